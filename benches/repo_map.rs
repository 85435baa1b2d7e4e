//! The repository map on a large tree: a cold build (an empty cache, every
//! file parsed), then warm builds (nothing changed, the cache full, and new
//! words of the user's each time, so nothing of the ranking is reused).
//! The first warm build is reported apart: on a tree written just before
//! the cold build, the cold build's stamps are too recent to trust
//! (`RACY_MARGIN`), so it reads and hashes every file again; the bench
//! waits out the margin before it, so that the builds after it trust them.
//!
//! ```text
//! REPO_MAP_BENCH_TREE=~/.cargo/registry/src cargo bench --bench repo_map
//! REPO_MAP_BENCH_GENERATE=10000 cargo bench --bench repo_map
//! ```
//!
//! `REPO_MAP_BENCH_TREE` is the tree (default: tokio's source in the cargo
//! registry), `REPO_MAP_BENCH_GENERATE=N` maps a generated tree of N source
//! files instead, `REPO_MAP_BENCH_RUNS` the warm runs (default 9, the
//! median is reported), `REPO_MAP_BENCH_TOKENS` the budget (default 4096),
//! `REPO_MAP_BENCH_SAVE=DIR` writes every map built to DIR (`cold.txt`,
//! `warm-N.txt`) so two builds of the code can be compared byte for byte.
//! `REPO_MAP_BENCH_KEEP=DIR` keeps the generated tree and the cache in DIR
//! (`tree/`, `state/`) and reuses them when they are there: every build of
//! a later run is then warm, the first too, and a profiler or an
//! instruction count over the whole process measures warm builds alone.

// A benchmark's report is what it prints.
#![allow(clippy::print_stdout)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use agent::tools::repo_map::{CACHE_FILE_NAME, Focus, RACY_MARGIN, build, tokens};
use anyhow::Context;

fn main() -> anyhow::Result<()> {
    let generated = tempfile::tempdir()?;
    let state = tempfile::tempdir()?;
    let kept = std::env::var_os("REPO_MAP_BENCH_KEEP").map(PathBuf::from);
    let (generated, state) = match &kept {
        Some(dir) => (dir.join("tree"), dir.join("state")),
        None => (generated.path().to_path_buf(), state.path().to_path_buf()),
    };
    let reused = kept.is_some() && state.exists();
    let tree = match std::env::var("REPO_MAP_BENCH_GENERATE") {
        Ok(count) => {
            if !reused {
                std::fs::create_dir_all(&generated)?;
                generate(
                    &generated,
                    count.parse().context("REPO_MAP_BENCH_GENERATE")?,
                )?;
            }
            generated
        }
        Err(_) => match std::env::var_os("REPO_MAP_BENCH_TREE") {
            Some(tree) => PathBuf::from(tree),
            None => default_tree()?,
        },
    };
    let tree = tree
        .canonicalize()
        .with_context(|| format!("tree {}", tree.display()))?;
    let runs: usize = env_number("REPO_MAP_BENCH_RUNS", 9)?;
    let budget: u64 = env_number("REPO_MAP_BENCH_TOKENS", 4096)?;
    std::fs::create_dir_all(&state)?;
    let cache = state.join(CACHE_FILE_NAME);
    let stop = AtomicBool::new(false);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("tree: {}", tree.display());
    println!("cores: {threads}; budget: {budget} tokens; warm runs: {runs} (median)");

    let written = Instant::now();
    let started = Instant::now();
    let (map, cold) =
        build(&tree, Some(&cache), &Focus::default(), budget, &stop).map_err(anyhow::Error::msg)?;
    let cold_time = started.elapsed();
    let save = std::env::var_os("REPO_MAP_BENCH_SAVE").map(PathBuf::from);
    if let Some(dir) = &save {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("cold.txt"), &map)?;
    }
    println!(
        "cold: {} ms ({} files, {} parsed, {} from the cache; map {} tokens)",
        cold_time.as_millis(),
        cold.files,
        cold.parsed,
        cold.cached,
        tokens(&map)
    );
    let cache_bytes = std::fs::metadata(&cache).map_or(0, |meta| meta.len());
    println!("cache: {:.1} MiB", cache_bytes as f64 / 1_048_576.0);

    if !reused {
        std::thread::sleep(
            (RACY_MARGIN + Duration::from_millis(200)).saturating_sub(written.elapsed()),
        );
    }
    let started = Instant::now();
    let first_focus = Focus {
        paths: BTreeSet::new(),
        words: BTreeSet::from(["first".to_owned()]),
    };
    let (_, first) =
        build(&tree, Some(&cache), &first_focus, budget, &stop).map_err(anyhow::Error::msg)?;
    println!(
        "first warm: {} ms ({} parsed, {} from the cache, {} of them unread)",
        started.elapsed().as_millis(),
        first.parsed,
        first.cached,
        first.unread
    );

    let mut times = Vec::new();
    let mut unread = Vec::new();
    for run in 0..runs {
        let focus = Focus {
            paths: BTreeSet::new(),
            words: BTreeSet::from([format!("word_{run}"), "new".to_owned(), "spawn".to_owned()]),
        };
        let started = Instant::now();
        let (map, warm) =
            build(&tree, Some(&cache), &focus, budget, &stop).map_err(anyhow::Error::msg)?;
        times.push(started.elapsed());
        unread.push(warm.unread);
        if let Some(dir) = &save {
            std::fs::write(dir.join(format!("warm-{run}.txt")), &map)?;
        }
        anyhow::ensure!(
            warm.parsed == 0,
            "a warm build parsed {} files",
            warm.parsed
        );
    }
    if let Some(dir) = &save {
        // Towards folders and names of both the generated tree and tokio's.
        let focus = Focus {
            paths: BTreeSet::from(["pkg001/".to_owned(), "src/runtime/".to_owned()]),
            words: ["process_42", "Service9", "JoinHandle", "spawn"]
                .map(str::to_owned)
                .into(),
        };
        let (map, _) =
            build(&tree, Some(&cache), &focus, budget, &stop).map_err(anyhow::Error::msg)?;
        std::fs::write(dir.join("focus.txt"), &map)?;
    }
    times.sort();
    let median = times
        .get(times.len() / 2)
        .copied()
        .unwrap_or(Duration::ZERO);
    println!(
        "warm: {} ms median (min {} ms, max {} ms; files unread: {:?})",
        median.as_millis(),
        times.first().map_or(0, Duration::as_millis),
        times.last().map_or(0, Duration::as_millis),
        unread
    );
    Ok(())
}

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> anyhow::Result<T> {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .ok()
            .with_context(|| format!("{name}={value}")),
        Err(_) => Ok(default),
    }
}

/// tokio's source in the cargo registry, the newest there.
fn default_tree() -> anyhow::Result<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
        .context("neither REPO_MAP_BENCH_TREE, CARGO_HOME nor HOME is set")?;
    let mut found = Vec::new();
    for index in std::fs::read_dir(home.join("registry/src"))? {
        for entry in std::fs::read_dir(index?.path())? {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("tokio-") && name[6..].starts_with(|c: char| c.is_ascii_digit()) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
        .pop()
        .context("no tokio in the cargo registry; set REPO_MAP_BENCH_TREE")
}

/// `count` source files in three languages, in folders of 100, each
/// defining a few names and using some of its neighbours'.
fn generate(root: &Path, count: usize) -> anyhow::Result<()> {
    for n in 0..count {
        let folder = root.join(format!("pkg{:03}", n / 100));
        std::fs::create_dir_all(&folder)?;
        let other = (n * 7 + 13) % count;
        let (name, text) = match n % 3 {
            0 => (
                format!("mod_{n}.py"),
                format!(
                    "class Service{n}:\n    def handle_{n}(self, request):\n        return process_{other}(request)\n\ndef process_{n}(value):\n    return Service{other}().handle_{other}(value)\n"
                ),
            ),
            1 => (
                format!("mod_{n}.rs"),
                format!(
                    "pub struct Engine{n} {{\n    level: u32,\n}}\n\nimpl Engine{n} {{\n    pub fn run_{n}(&self) -> u32 {{\n        process_{other}(self.level)\n    }}\n}}\n\npub fn process_{n}(value: u32) -> u32 {{\n    value + 1\n}}\n"
                ),
            ),
            _ => (
                format!("mod_{n}.ts"),
                format!(
                    "export interface Shape{n} {{ area(): number }}\nexport function process_{n}(s: Shape{other}): number {{\n  return render_{other}(s.area());\n}}\nexport function render_{n}(x: number): number {{ return x; }}\n"
                ),
            ),
        };
        std::fs::write(folder.join(name), text)?;
    }
    Ok(())
}

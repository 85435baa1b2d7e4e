//! `grep` and `glob` against ripgrep on a large real tree.
//!
//! ```text
//! SEARCH_BENCH_TREE=/tmp/search-bench-tree cargo bench --bench search
//! ```
//!
//! `SEARCH_BENCH_TREE` is the tree (default: the cargo registry sources),
//! `SEARCH_BENCH_RUNS` the timed runs of each side (default 9), `SEARCH_BENCH_RG`
//! the rg to run (default `rg` on the PATH), `SEARCH_BENCH_ONLY` a piece of
//! the case names to run only those (`glob`). Both sides walk the same tree
//! with the same rules (`--no-require-git`, as our walker ignores
//! `.gitignore` files outside a checkout too) on every core; ours renders
//! every result into a String in memory, rg writes to a pipe this process
//! drains. The runs alternate, so a slow patch of the machine hits both.

// A benchmark's report is what it prints.
#![allow(clippy::print_stdout)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use agent::tools::search::{
    GlobOptions, GrepOptions, glob_dir, grep_dir, render_glob, render_grep,
};
use anyhow::{Context, bail};

fn main() -> anyhow::Result<()> {
    let tree = match std::env::var_os("SEARCH_BENCH_TREE") {
        Some(tree) => PathBuf::from(tree),
        None => default_tree()?,
    };
    let tree = tree
        .canonicalize()
        .with_context(|| format!("tree {}", tree.display()))?;
    let runs: usize = match std::env::var("SEARCH_BENCH_RUNS") {
        Ok(runs) => runs.parse().context("SEARCH_BENCH_RUNS")?,
        Err(_) => 9,
    };
    let rg = std::env::var("SEARCH_BENCH_RG").unwrap_or_else(|_| "rg".to_owned());
    let version = Command::new(&rg)
        .arg("--version")
        .output()
        .with_context(|| format!("cannot run {rg}; install ripgrep (apt-get install ripgrep)"))?;
    let version = String::from_utf8_lossy(&version.stdout);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let only = std::env::var("SEARCH_BENCH_ONLY").unwrap_or_default();

    // Warm the page cache and the directory entries for both sides.
    let files = run_rg(&rg, &["--files", "--no-require-git"], &tree)?;
    let files = files.iter().filter(|&&byte| byte == b'\n').count();
    run_rg(&rg, &["--no-require-git", "-c", "zzzzqqqq"], &tree)?;

    println!(
        "tree: {} ({files} files under the ignore rules)",
        tree.display()
    );
    println!(
        "rg: {}",
        version.lines().next().unwrap_or("unknown version")
    );
    println!("cores: {threads}; runs per figure: {runs} (median)");
    println!();
    println!(
        "{:<34} {:>10} {:>10} {:>11} {:>8} {:>10}",
        "case", "ours ms", "rg ms", "capped ms", "ours/rg", "results"
    );

    let grep_cases: [(&str, &str, GrepOptions, Vec<&str>); 4] = [
        (
            "grep literal",
            "PhantomData",
            GrepOptions {
                fixed_strings: true,
                ..GrepOptions::new("PhantomData")
            },
            vec!["-F"],
        ),
        (
            "grep regex",
            r"fn \w+_mut\(",
            GrepOptions::new(r"fn \w+_mut\("),
            vec![],
        ),
        (
            "grep case-insensitive",
            "deprecated",
            GrepOptions {
                case_insensitive: true,
                ..GrepOptions::new("deprecated")
            },
            vec!["-i"],
        ),
        (
            "grep literal, many matches",
            "return",
            GrepOptions {
                fixed_strings: true,
                ..GrepOptions::new("return")
            },
            vec!["-F"],
        ),
    ];
    for (name, pattern, options, flags) in grep_cases {
        if !name.contains(&only) {
            continue;
        }
        let all = GrepOptions {
            max_results: usize::MAX,
            ..options.clone()
        };
        let mut rg_args = vec!["-n", "--no-require-git"];
        rg_args.extend(flags);
        rg_args.push("-e");
        rg_args.push(pattern);
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        let mut capped = Vec::new();
        let mut counts = (0, 0);
        for _ in 0..runs {
            let (elapsed, count) = time(|| {
                let outcome = grep_dir(&tree, &all, &AtomicBool::new(false))?;
                let text = render_grep(&outcome, &tree, &all);
                Ok(text.lines().count())
            })?;
            ours.push(elapsed);
            counts.0 = count;
            let (elapsed, count) = time(|| {
                let out = run_rg(&rg, &rg_args, &tree)?;
                Ok(out.iter().filter(|&&byte| byte == b'\n').count())
            })?;
            theirs.push(elapsed);
            counts.1 = count;
            let (elapsed, _) = time(|| {
                let outcome = grep_dir(&tree, &options, &AtomicBool::new(false))?;
                Ok(render_grep(&outcome, &tree, &options).len())
            })?;
            capped.push(elapsed);
        }
        report(name, &ours, &theirs, Some(&capped), counts);
    }

    let glob_cases: [(&str, &str, Vec<&str>); 2] = [
        ("glob * / rg --files", "*", vec![]),
        ("glob *.rs / rg --files -g *.rs", "*.rs", vec!["-g", "*.rs"]),
    ];
    for (name, pattern, flags) in glob_cases {
        if !name.contains(&only) {
            continue;
        }
        let all = GlobOptions {
            pattern: pattern.to_owned(),
            max_results: usize::MAX,
        };
        let mut rg_args = vec!["--files", "--no-require-git"];
        rg_args.extend(flags);
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        let mut counts = (0, 0);
        for _ in 0..runs {
            let (elapsed, count) = time(|| {
                let outcome = glob_dir(&tree, &all, &AtomicBool::new(false))?;
                Ok(render_glob(&outcome, &tree, &all).lines().count())
            })?;
            ours.push(elapsed);
            counts.0 = count;
            let (elapsed, count) = time(|| {
                let out = run_rg(&rg, &rg_args, &tree)?;
                Ok(out.iter().filter(|&&byte| byte == b'\n').count())
            })?;
            theirs.push(elapsed);
            counts.1 = count;
        }
        report(name, &ours, &theirs, None, counts);
    }
    Ok(())
}

fn default_tree() -> anyhow::Result<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
        .context("neither SEARCH_BENCH_TREE, CARGO_HOME nor HOME is set")?;
    Ok(home.join("registry/src"))
}

fn time(work: impl FnOnce() -> anyhow::Result<usize>) -> anyhow::Result<(Duration, usize)> {
    let start = Instant::now();
    let count = work()?;
    Ok((start.elapsed(), count))
}

/// Runs rg on `dir` with its output on a pipe, drained here as rg writes.
fn run_rg(rg: &str, args: &[&str], dir: &Path) -> anyhow::Result<Vec<u8>> {
    let mut child = Command::new(rg)
        .args(args)
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot run {rg}"))?;
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_end(&mut out)?;
    }
    let status = child.wait()?;
    // rg exits 1 when nothing matched.
    if !matches!(status.code(), Some(0 | 1)) {
        bail!("{rg} {args:?} failed: {status}");
    }
    Ok(out)
}

fn median(times: &[Duration]) -> f64 {
    let mut ms: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    match ms.len() {
        0 => f64::NAN,
        n => ms[n / 2],
    }
}

fn report(
    name: &str,
    ours: &[Duration],
    theirs: &[Duration],
    capped: Option<&[Duration]>,
    (our_count, their_count): (usize, usize),
) {
    let (ours, theirs) = (median(ours), median(theirs));
    let capped = capped.map_or_else(|| "-".to_owned(), |times| format!("{:.1}", median(times)));
    let results = if our_count == their_count {
        our_count.to_string()
    } else {
        format!("{our_count} vs {their_count}")
    };
    println!(
        "{name:<34} {ours:>10.1} {theirs:>10.1} {capped:>11} {:>8.2} {results:>10}",
        ours / theirs
    );
}

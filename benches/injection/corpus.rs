//! The corpus of the injection detector (see README.md beside this file):
//! what is committed under `benches/injection/`, this repository's own
//! files, and, where the machine has them, the READMEs and changelogs of
//! the crates in the cargo registry. Shared by the benchmark
//! (`benches/injection.rs`) and the test that holds the rates
//! (`tests/suite/untrusted_corpus.rs`).

use std::path::{Path, PathBuf};

/// One text, and where it belongs in the report.
#[derive(Clone)]
pub struct Sample {
    /// `injected/direct`, `benign/readmes`, `repo/rs`, `registry`...
    pub class: String,
    /// The file, and the number of the text in it when it holds several.
    pub name: String,
    pub text: String,
}

/// Files of this repository that quote injections on purpose: the
/// detector, its corpus and its tests. They are about injections, so they
/// are neither benign nor injected.
const ABOUT_INJECTIONS: &[&str] = &[
    "src/session/untrusted/",
    "benches/injection/",
    "benches/injection.rs",
    "tests/suite/untrusted.rs",
    "tests/suite/untrusted_corpus.rs",
];

/// The committed texts of `group` (`injected`, `benign` or `hard`), one
/// class per file.
pub fn committed(root: &Path, group: &str) -> Vec<Sample> {
    let dir = root.join("benches/injection").join(group);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    files.sort();
    let mut samples = Vec::new();
    for file in files {
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|err| panic!("{}: {err}", file.display()));
        for (number, text) in split(&text).into_iter().enumerate() {
            samples.push(Sample {
                class: format!("{group}/{stem}"),
                name: format!("{stem}.txt #{}", number + 1),
                text,
            });
        }
    }
    samples
}

/// The texts of a corpus file: separated by lines that hold only `%%`,
/// with `\u{HEX}` written for characters an editor would not show.
pub fn split(file: &str) -> Vec<String> {
    let mut texts = vec![String::new()];
    for line in file.lines() {
        if line == "%%" {
            texts.push(String::new());
            continue;
        }
        if let Some(current) = texts.last_mut() {
            if !current.is_empty() {
                current.push('\n');
            }
            current.push_str(&unescape(line));
        }
    }
    texts.retain(|text| !text.trim().is_empty());
    texts
}

fn unescape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("\\u{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        let decoded = after.find('}').and_then(|end| {
            u32::from_str_radix(&after[..end], 16)
                .ok()
                .and_then(char::from_u32)
                .map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &after[end + 1..];
            }
            None => {
                out.push_str("\\u{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every Markdown and Rust file of the repository (`src`, `docs`,
/// `tests`, `benches`, `examples` and the top level), but those about
/// injections; class `repo/md` or `repo/rs`.
pub fn repo_files(root: &Path) -> Vec<Sample> {
    let mut found = Vec::new();
    for dir in ["src", "docs", "tests", "benches", "examples"] {
        walk(&root.join(dir), &mut found);
    }
    if let Ok(entries) = std::fs::read_dir(root) {
        found.extend(
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|path| path.is_file()),
        );
    }
    found.sort();
    found
        .into_iter()
        .filter_map(|path| {
            let relative = path.strip_prefix(root).ok()?.to_string_lossy().into_owned();
            let kind = match path.extension()?.to_str()? {
                "md" => "md",
                "rs" => "rs",
                _ => return None,
            };
            if ABOUT_INJECTIONS
                .iter()
                .any(|about| relative.starts_with(about))
            {
                return None;
            }
            let text = std::fs::read_to_string(&path).ok()?;
            Some(Sample {
                class: format!("repo/{kind}"),
                name: relative,
                text,
            })
        })
        .collect()
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // What npm installs (examples/runner, tests/mcp-servers) is not the
        // repository's own writing.
        if path.is_dir() && entry.file_name() == "node_modules" {
            continue;
        }
        if path.is_dir() {
            walk(&path, found);
        } else {
            found.push(path);
        }
    }
}

/// The READMEs, changelogs and other Markdown files at the top of every
/// crate in the cargo registry, where there is one (`$CARGO_HOME`, else
/// `~/.cargo`); class `registry`. Empty on a machine without it.
pub fn registry_docs() -> Vec<Sample> {
    let Some(src) = registry_src() else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for index in std::fs::read_dir(&src).into_iter().flatten().flatten() {
        for krate in std::fs::read_dir(index.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            for file in std::fs::read_dir(krate.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let path = file.path();
                let name = file.file_name().to_string_lossy().to_ascii_lowercase();
                let wanted = name.starts_with("readme")
                    || name.starts_with("changelog")
                    || name.ends_with(".md");
                if wanted && path.is_file() {
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let name = path
                .strip_prefix(&src)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            Some(Sample {
                class: "registry".to_owned(),
                name,
                text,
            })
        })
        .collect()
}

/// Where cargo unpacks the registry's crates: `$CARGO_HOME`, else
/// `~/.cargo`.
fn registry_src() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))?;
    Some(home.join("registry/src"))
}

/// Every Rust file of every crate in the cargo registry, cut as the
/// agent cuts what it screens (head and tail within `limit` bytes,
/// `tools::truncate::head_tail`); class
/// `registry-code`. Real code that no rule was written from until
/// version 36, and that an agent fetches: a crate's source on a
/// registry's site, a raw file of a repository.
pub fn registry_code(limit: usize) -> Vec<Sample> {
    let Some(src) = registry_src() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    walk(&src, &mut found);
    found.retain(|path| path.extension().is_some_and(|ext| ext == "rs"));
    found.sort();
    found
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let text = agent::tools::truncate::head_tail(&text, limit);
            let name = path.strip_prefix(&src).unwrap_or(&path);
            Some(Sample {
                class: "registry-code".to_owned(),
                name: name.to_string_lossy().into_owned(),
                text,
            })
        })
        .collect()
}

/// The registry's documents of the crates `Cargo.lock` names, at their
/// locked versions: the ones a build of this commit unpacks, so the same
/// on every machine that built it, where [`registry_docs`] is whatever
/// the machine holds. Named `crate-version/file`, in that order.
pub fn locked_registry_docs(root: &Path) -> Vec<Sample> {
    #[derive(serde::Deserialize)]
    struct Lock {
        #[serde(default)]
        package: Vec<Package>,
    }
    #[derive(serde::Deserialize)]
    struct Package {
        name: String,
        version: String,
    }
    let path = root.join("Cargo.lock");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let lock: Lock =
        toml::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let locked: std::collections::BTreeSet<String> = lock
        .package
        .iter()
        .map(|package| format!("{}-{}", package.name, package.version))
        .collect();
    let mut docs: Vec<Sample> = registry_docs()
        .into_iter()
        .filter_map(|mut sample| {
            // `index.crates.io-HASH/crate-version/file`.
            let (_, local) = sample.name.split_once('/')?;
            let krate = local.split('/').next()?;
            if !locked.contains(krate) {
                return None;
            }
            sample.name = local.to_owned();
            Some(sample)
        })
        .collect();
    docs.sort_by(|a, b| a.name.cmp(&b.name));
    docs.dedup_by(|a, b| a.name == b.name);
    docs
}

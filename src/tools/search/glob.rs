//! `glob`: the walked files whose path matches a glob, sorted and cut to
//! the quota.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use ignore::DirEntry;

use super::collect::{Shelf, Visit, collect};
use super::walk::{PathFilter, Walk};
use super::{Problems, SearchError, render_problems};
use crate::tools::paths;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobOptions {
    pub pattern: String,
    /// Paths kept; the others are only counted.
    pub max_results: usize,
}

#[derive(Debug)]
pub struct GlobOutcome {
    pub root: PathBuf,
    /// The first `max_results` matching files, sorted.
    pub paths: Vec<PathBuf>,
    /// Matching files in all, shown or not.
    pub total: u64,
    pub problems: Problems,
}

/// Lists the files under `root` whose path relative to it matches
/// `options.pattern`.
pub fn glob_dir(
    root: &Path,
    options: &GlobOptions,
    stop: &AtomicBool,
) -> Result<GlobOutcome, SearchError> {
    let walk = Walk::new(root)?;
    let walk = walk.only(Some(PathFilter::new(&options.pattern)?), None);
    let found = collect(&walk, options.max_results, stop, || GlobThread);
    Ok(GlobOutcome {
        root: root.to_path_buf(),
        paths: found.items,
        total: found.tally,
        problems: found.problems,
    })
}

/// The walk gives only the matching files: each is counted, and kept
/// unless it sorts after all this thread may show.
struct GlobThread;

impl Visit for GlobThread {
    type Item = PathBuf;
    /// Matching files, shown or not.
    type Tally = u64;

    fn file(&mut self, entry: DirEntry, shelf: &mut Shelf<PathBuf, u64>) {
        shelf.tally += 1;
        if !shelf.is_past(entry.path()) {
            shelf.keep(entry.into_path());
        }
    }
}

/// One path a line, relative to `base`; then what was left out.
pub fn render_glob(outcome: &GlobOutcome, base: &Path, options: &GlobOptions) -> String {
    let mut out = String::new();
    for path in &outcome.paths {
        // As `paths::display`, without a String per path: a glob may list
        // tens of thousands.
        match path.strip_prefix(base) {
            Ok(relative) => out.push_str(&relative.to_string_lossy()),
            Err(_) => out.push_str(&path.to_string_lossy()),
        }
        out.push('\n');
    }
    if outcome.total == 0 {
        let _ = writeln!(
            out,
            "No files match {:?} in {} (git-ignored and hidden files are skipped).",
            options.pattern,
            paths::display(base, &outcome.root),
        );
    } else if (outcome.paths.len() as u64) < outcome.total {
        let _ = writeln!(
            out,
            "[capped: showing the first {} of {} files; narrow the pattern or the path]",
            outcome.paths.len(),
            outcome.total,
        );
    }
    render_problems(&mut out, &outcome.problems);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::search::tree;

    fn glob(root: &Path, pattern: &str, max_results: usize) -> String {
        let options = GlobOptions {
            pattern: pattern.to_owned(),
            max_results,
        };
        let outcome = glob_dir(root, &options, &AtomicBool::new(false)).unwrap();
        render_glob(&outcome, root, &options)
    }

    #[test]
    fn glob_matches_names_anywhere_and_paths_from_the_root() {
        let (_dir, root) = tree(&[
            (".gitignore", b"build/\n"),
            ("Cargo.toml", b""),
            ("src/main.rs", b""),
            ("src/tools/mod.rs", b""),
            ("build/gen.rs", b""),
            (".github/workflows/ci.yml", b""),
            ("docs/a.md", b""),
        ]);
        assert_eq!(glob(&root, "*.rs", 100), "src/main.rs\nsrc/tools/mod.rs\n");
        assert_eq!(
            glob(&root, "**/*.rs", 100),
            "src/main.rs\nsrc/tools/mod.rs\n"
        );
        assert_eq!(glob(&root, "src/*.rs", 100), "src/main.rs\n");
        assert_eq!(glob(&root, "./*.{toml,md}", 100), "Cargo.toml\ndocs/a.md\n");
        assert_eq!(
            glob(&root, ".github/**/*.yml", 100),
            ".github/workflows/ci.yml\n"
        );
        assert_eq!(
            glob(&root, "*", 2),
            "Cargo.toml\ndocs/a.md\n[capped: showing the first 2 of 4 files; narrow the pattern or the path]\n"
        );
        assert_eq!(
            glob(&root, "*.zig", 2),
            "No files match \"*.zig\" in . (git-ignored and hidden files are skipped).\n"
        );
        let err = glob_dir(
            &root,
            &GlobOptions {
                pattern: "/etc/*".to_owned(),
                max_results: 1,
            },
            &AtomicBool::new(false),
        )
        .unwrap_err();
        assert!(err.to_string().contains("relative"), "{err}");
    }

    #[test]
    fn glob_cap_is_exact_across_threads() {
        let files: Vec<String> = (0..500).map(|n| format!("d{}/f{n:03}.rs", n % 5)).collect();
        let borrowed: Vec<(&str, &[u8])> =
            files.iter().map(|name| (name.as_str(), &b""[..])).collect();
        let (_dir, root) = tree(&borrowed);
        let options = GlobOptions {
            pattern: "*.rs".to_owned(),
            max_results: 7,
        };
        let outcome = glob_dir(&root, &options, &AtomicBool::new(false)).unwrap();
        assert_eq!(outcome.total, 500);
        let mut all = files.clone();
        all.sort_by(|a, b| Path::new(a).cmp(Path::new(b)));
        let expected: Vec<PathBuf> = all[..7].iter().map(|name| root.join(name)).collect();
        assert_eq!(outcome.paths, expected);
    }
}

//! The map of a small tree of several languages, built end to end with
//! the cache: what comes first for a focus file, the same bytes twice, the
//! budget kept, and a second build that parses nothing.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::*;

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "store/db.py",
        "class Database:\n    def query_rows(self, sql):\n        return []\n",
    );
    write(
        root,
        "store/cache.py",
        "def cache_lookup(key):\n    return None\n",
    );
    write(
        root,
        "app/main.py",
        "from store.db import Database\n\ndef run_app():\n    db = Database()\n    db.query_rows('x')\n",
    );
    write(
        root,
        "web/ui.ts",
        "export function renderPage(title: string) { return formatTitle(title); }\n",
    );
    write(
        root,
        "web/format.ts",
        "export function formatTitle(t: string) { return t; }\n",
    );
    write(root, "README.md", "# demo\n");
    dir
}

fn focus(paths: &[&str]) -> Focus {
    Focus {
        paths: paths.iter().map(|path| (*path).to_owned()).collect(),
        words: BTreeSet::new(),
    }
}

#[test]
fn the_focus_file_brings_what_it_uses_first() {
    let dir = tree();
    let stop = AtomicBool::new(false);
    let (map, stats) = build(dir.path(), None, &focus(&["app/main.py"]), 2_000, &stop).unwrap();
    assert_eq!(stats.files, 6);
    if !langs::COMPILED_IN {
        assert!(map.contains("README.md"), "{map}");
        return;
    }
    assert!(map.starts_with("store/db.py:\n"), "{map}");
    assert!(
        map.contains("     1: class Database:\n     2: def query_rows(self, sql):"),
        "{map}"
    );
    let (web, _) = build(dir.path(), None, &focus(&["web/ui.ts"]), 2_000, &stop).unwrap();
    assert!(
        web.starts_with("web/format.ts:\n     1: export function formatTitle"),
        "{web}"
    );
    assert!(web.contains("README.md\n"), "{web}");
}

#[test]
fn a_second_build_parses_nothing_and_says_the_same() {
    let dir = tree();
    let state = tempfile::tempdir().unwrap();
    let cache = state.path().join(CACHE_FILE_NAME);
    let stop = AtomicBool::new(false);
    let first = build(dir.path(), Some(&cache), &Focus::default(), 1_000, &stop).unwrap();
    let second = build(dir.path(), Some(&cache), &Focus::default(), 1_000, &stop).unwrap();
    assert_eq!(first.0, second.0);
    if langs::COMPILED_IN {
        assert_eq!((first.1.parsed, first.1.cached), (5, 0));
        assert_eq!((second.1.parsed, second.1.cached), (0, 5));
    }
    write(
        dir.path(),
        "store/cache.py",
        "def cache_lookup(key, default):\n    return default\n",
    );
    let third = build(dir.path(), Some(&cache), &Focus::default(), 1_000, &stop).unwrap();
    if langs::COMPILED_IN {
        assert_eq!((third.1.parsed, third.1.cached), (1, 4));
        assert!(
            third.0.contains("def cache_lookup(key, default):"),
            "{}",
            third.0
        );
    }
}

#[test]
fn a_small_budget_is_kept() {
    let dir = tree();
    let stop = AtomicBool::new(false);
    let (map, _) = build(dir.path(), None, &Focus::default(), 64, &stop).unwrap();
    assert!(tokens(&map) <= 64, "{map}");
    assert!(
        map.ends_with("files shown, best-ranked first, with 1 definitions]\n")
            || map.contains("files shown"),
        "{map}"
    );
}

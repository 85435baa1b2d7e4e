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

/// An hour, in ns: a scan this long after a file's last change trusts
/// its stamp at the next scan.
const HOUR_NS: i64 = 3_600 * 1_000_000_000;

fn scan_at(root: &Path, cache: &Path, seen_ns: i64) -> scan::Scan {
    let mut cache = cache::Cache::open(Some(cache));
    scan::scan_at(root, &mut cache, &AtomicBool::new(false), seen_ns).unwrap()
}

fn names(scan: &scan::Scan, path: &str) -> Vec<String> {
    let file = scan.files.iter().find(|file| file.path == path).unwrap();
    file.tags.named().map(|(_, name)| name.to_owned()).collect()
}

/// Makes the cache's stamp of `path` what the file's is now, its content
/// key left as it was, as if the file had changed within the clock tick
/// of the last scan's read; and says that scan started at the file's last
/// change plus `after_ns`.
fn forge_stamp(cache: &Path, root: &Path, path: &str, after_ns: i64) {
    let stamp = stamp::Stamp::of(&std::fs::metadata(root.join(path)).unwrap());
    let raw = rusqlite::Connection::open(cache).unwrap();
    let changed = raw
        .execute(
            "UPDATE stamps SET size = ?1, mtime = ?2, ctime = ?3, inode = ?4, dev = ?5, seen = ?6
             WHERE root = ?7 AND path = ?8",
            rusqlite::params![
                stamp.size as i64,
                stamp.mtime_ns,
                stamp.ctime_ns,
                stamp.inode as i64,
                stamp.dev as i64,
                stamp.mtime_ns.max(stamp.ctime_ns) + after_ns,
                root.to_str().unwrap(),
                path
            ],
        )
        .unwrap();
    assert_eq!(changed, 1);
}

#[test]
fn an_unchanged_file_is_not_read_once_its_stamp_is_old_enough() {
    let dir = tree();
    let state = tempfile::tempdir().unwrap();
    let cache = state.path().join(CACHE_FILE_NAME);
    let now = stamp::now_ns();
    // Just written: the files changed within the margin of the scan.
    let first = scan_at(dir.path(), &cache, now);
    let second = scan_at(dir.path(), &cache, now + HOUR_NS);
    let third = scan_at(dir.path(), &cache, now + 2 * HOUR_NS);
    if !langs::COMPILED_IN {
        return;
    }
    assert_eq!((first.parsed, first.cached, first.unread), (5, 0, 0));
    assert_eq!((second.parsed, second.cached, second.unread), (0, 5, 0));
    assert_eq!((third.parsed, third.cached, third.unread), (0, 5, 5));
    assert_eq!(first.files, third.files);
    // A changed file is read (its size and times differ), the others not.
    write(
        dir.path(),
        "store/cache.py",
        "def cache_lookup(key, default):\n    return default\n",
    );
    let fourth = scan_at(dir.path(), &cache, now + 3 * HOUR_NS);
    assert_eq!((fourth.parsed, fourth.cached, fourth.unread), (1, 4, 4));
    let file = fourth
        .files
        .iter()
        .find(|file| file.path == "store/cache.py");
    let tags = &file.unwrap().tags;
    assert_eq!(
        tags.signature(tags.get(0)),
        "def cache_lookup(key, default):"
    );
}

#[test]
fn a_change_in_the_racy_window_under_the_same_stamp_is_read() {
    let dir = tree();
    let state = tempfile::tempdir().unwrap();
    let cache = state.path().join(CACHE_FILE_NAME);
    let now = stamp::now_ns();
    scan_at(dir.path(), &cache, now);
    // The same size, another name: only the content says it changed.
    write(
        dir.path(),
        "store/cache.py",
        "def cache_lookuq(key):\n    return None\n",
    );
    // The scan that hashed it started a second after the change: within
    // the margin, so the stamp is not trusted and the file is read.
    forge_stamp(&cache, dir.path(), "store/cache.py", 1_000_000_000);
    let racy = scan_at(dir.path(), &cache, now + HOUR_NS);
    if !langs::COMPILED_IN {
        return;
    }
    assert_eq!((racy.parsed, racy.unread), (1, 0));
    assert!(names(&racy, "store/cache.py").contains(&"cache_lookuq".to_owned()));
    // The same forgery an hour after the change is believed, which is
    // what the margin guards against: the tags are the last content's.
    write(
        dir.path(),
        "store/cache.py",
        "def cache_lookur(key):\n    return None\n",
    );
    forge_stamp(&cache, dir.path(), "store/cache.py", HOUR_NS);
    let trusted = scan_at(dir.path(), &cache, now + 2 * HOUR_NS);
    assert_eq!((trusted.parsed, trusted.unread), (0, 5));
    assert!(names(&trusted, "store/cache.py").contains(&"cache_lookuq".to_owned()));
}

#[test]
fn a_deleted_file_loses_its_stamp_and_a_damaged_stamp_table_is_made_again() {
    let dir = tree();
    let state = tempfile::tempdir().unwrap();
    let cache_path = state.path().join(CACHE_FILE_NAME);
    let now = stamp::now_ns();
    let first = scan_at(dir.path(), &cache_path, now);
    let known = |root: &Path| {
        let version = format!("1/{}", env!("CARGO_PKG_VERSION"));
        let scope = cache::Scope {
            root: root.to_str().unwrap(),
            version: &version,
            seen_ns: 0,
        };
        cache::Cache::open(Some(&cache_path))
            .known(&scope)
            .files
            .len()
    };
    if !langs::COMPILED_IN {
        return;
    }
    assert_eq!(known(dir.path()), 5);
    std::fs::remove_file(dir.path().join("web/ui.ts")).unwrap();
    scan_at(dir.path(), &cache_path, now + HOUR_NS);
    assert_eq!(known(dir.path()), 4);

    let raw = rusqlite::Connection::open(&cache_path).unwrap();
    raw.execute_batch("DROP TABLE stamps; CREATE TABLE stamps (path TEXT, key TEXT);")
        .unwrap();
    drop(raw);
    let rebuilt = scan_at(dir.path(), &cache_path, now + 2 * HOUR_NS);
    assert_eq!(rebuilt.parsed, 4);
    assert_eq!(rebuilt.files.len(), first.files.len() - 1);
    let again = scan_at(dir.path(), &cache_path, now + 3 * HOUR_NS);
    assert_eq!((again.parsed, again.unread), (0, 4));
    assert_eq!(again.files, rebuilt.files);
}

#[test]
fn sessions_scanning_the_same_tree_at_once_agree() {
    let dir = tree();
    let state = tempfile::tempdir().unwrap();
    let cache = state.path().join(CACHE_FILE_NAME);
    let now = stamp::now_ns();
    let alone = scan_at(dir.path(), &cache, now).files;
    // Each session's clock later than the last: the stamps come to be
    // trusted while the others write theirs.
    let scans: Vec<Vec<scan::FileSymbols>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|worker| {
                let (root, cache) = (dir.path(), &cache);
                scope.spawn(move || {
                    let mut all = Vec::new();
                    for n in 1..=5 {
                        all.extend(scan_at(root, cache, now + (n + worker) * HOUR_NS).files);
                    }
                    all
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let five_times: Vec<scan::FileSymbols> = (0..5).flat_map(|_| alone.clone()).collect();
    for files in scans {
        assert_eq!(files, five_times);
    }
}

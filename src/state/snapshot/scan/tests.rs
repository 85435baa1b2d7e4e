use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::super::{Snapshotter, compare, tree};
use super::{Focus, Outcome};

/// A work dir in a temp folder and a snapshotter over it.
struct Fixture {
    _root: tempfile::TempDir,
    work: PathBuf,
    snap: Snapshotter,
}

impl Fixture {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let snap = Snapshotter::new(&work, &root.path().join("objects"), 1024);
        Fixture {
            _root: root,
            work,
            snap,
        }
    }

    fn write(&self, path: &str, content: &str) {
        let path = self.work.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        backdate(&path);
    }

    fn objects(&mut self) -> usize {
        self.snap.pack.count().unwrap()
    }

    /// Scans, and checks what every scan must give: the count of changes
    /// the flat comparison finds, and a stored tree that reads back as
    /// what was scanned.
    fn scan(&mut self, focus: Option<&Focus>) -> Outcome {
        let before = self.snap.last_tree();
        let outcome = self.snap.scan_tree(focus).unwrap();
        let now = self.snap.last_tree();
        assert_eq!(
            outcome.changed,
            compare(&before, &now).count() as u64,
            "{:?}",
            compare(&before, &now)
        );
        assert_eq!(tree::load(&mut self.snap, &outcome.hash).unwrap(), now);
        outcome
    }

    fn focus(&mut self, files: &[&str]) -> Outcome {
        let focus = Focus::on_the_way_to(files.iter().copied()).unwrap();
        self.scan(Some(&focus))
    }
}

/// Written long ago: an unchanged file is not read again ("racy" files
/// always are).
fn backdate(path: &Path) {
    let past = SystemTime::now() - Duration::from_secs(3600);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(past).unwrap();
}

/// Three levels deep, with neighbours at every level.
fn deep_fixture() -> Fixture {
    let fixture = Fixture::new();
    for path in [
        "top.txt",
        "a/a.txt",
        "a/b/b.txt",
        "a/b/c/deep.txt",
        "a/b/c/beside.txt",
        "x/x.txt",
        "x/y/y.txt",
    ] {
        fixture.write(path, path);
    }
    fixture
}

#[test]
fn one_changed_deep_file_stores_its_blob_and_the_folders_on_its_path() {
    let mut fixture = deep_fixture();
    let first = fixture.scan(None);
    // Seven files, six folders with the work dir: no two alike.
    assert_eq!(fixture.objects(), 7 + 6);
    assert_eq!(first.stats.hashed, 7);

    fixture.write("a/b/c/deep.txt", "changed");
    let before = fixture.objects();
    let second = fixture.scan(None);
    assert_eq!(second.changed, 1);
    assert_eq!(second.stats.hashed, 1, "the others only stat'ed");
    // The blob, then c, b, a and the work dir; not x, nor x/y.
    assert_eq!(fixture.objects(), before + 1 + 4);
    assert_ne!(second.hash, first.hash);

    // The same change made again the other way round, told where it is.
    fixture.write("a/b/c/deep.txt", "a/b/c/deep.txt");
    let before = fixture.objects();
    let third = fixture.focus(&["a/b/c/deep.txt"]);
    assert_eq!((third.changed, third.hash.clone()), (1, first.hash));
    assert_eq!(fixture.objects(), before, "every object was stored before");
}

#[test]
fn an_unchanged_tree_stores_nothing_and_reads_nothing() {
    let mut fixture = deep_fixture();
    std::os::unix::fs::symlink("top.txt", fixture.work.join("link")).unwrap();
    std::fs::create_dir_all(fixture.work.join("empty")).unwrap();
    let first = fixture.scan(None);
    let before = fixture.objects();
    let again = fixture.scan(None);
    assert_eq!(again.hash, first.hash);
    assert_eq!((again.changed, again.stats.hashed), (0, 0));
    assert_eq!(fixture.objects(), before);
}

#[test]
fn a_moved_folder_keeps_its_object_and_a_deleted_one_counts_what_it_held() {
    let mut fixture = deep_fixture();
    fixture.scan(None);
    let tree_of = |fixture: &Fixture, folder: &str| -> String {
        let root = fixture.snap.last.as_ref().unwrap();
        super::find_folder(root, folder).unwrap().hash.clone()
    };
    let b = tree_of(&fixture, "a/b");

    // a/b holds b.txt, c, c/deep.txt and c/beside.txt: 5 paths with it.
    std::fs::rename(fixture.work.join("a/b"), fixture.work.join("x/b")).unwrap();
    let before = fixture.objects();
    let moved = fixture.scan(None);
    assert_eq!(moved.changed, 5 + 5);
    assert_eq!(
        tree_of(&fixture, "x/b"),
        b,
        "the same object, not stored again"
    );
    // a, x and the work dir.
    assert_eq!(fixture.objects(), before + 3);

    std::fs::rename(fixture.work.join("x/b"), fixture.work.join("x/renamed")).unwrap();
    let renamed = fixture.scan(None);
    assert_eq!(renamed.changed, 10);
    assert_eq!(tree_of(&fixture, "x/renamed"), b);

    std::fs::remove_dir_all(fixture.work.join("x")).unwrap();
    let before = fixture.objects();
    let deleted = fixture.scan(None);
    // x, x.txt, y, y/y.txt and renamed with its 4.
    assert_eq!(deleted.changed, 4 + 5);
    assert_eq!(fixture.objects(), before + 1, "only the work dir's object");
}

#[test]
fn links_are_kept_not_followed_and_a_new_target_is_a_change() {
    let mut fixture = deep_fixture();
    let work = fixture.work.clone();
    std::os::unix::fs::symlink("a/a.txt", work.join("to-file")).unwrap();
    std::os::unix::fs::symlink("x", work.join("to-folder")).unwrap();
    std::os::unix::fs::symlink("nowhere", work.join("dangling")).unwrap();
    fixture.scan(None);
    let tree = fixture.snap.last_tree();
    assert!(
        !tree
            .entries
            .keys()
            .any(|path| path.starts_with("to-folder/"))
    );
    assert_eq!(
        tree.entries["dangling"],
        super::Entry::Link {
            target: "nowhere".into()
        }
    );

    std::fs::remove_file(work.join("to-file")).unwrap();
    std::os::unix::fs::symlink("top.txt", work.join("to-file")).unwrap();
    // A file where a link was, and a link where a folder was.
    std::fs::remove_file(work.join("dangling")).unwrap();
    fixture.write("dangling", "now a file");
    std::fs::remove_dir_all(work.join("x/y")).unwrap();
    std::os::unix::fs::symlink("../a", work.join("x/y")).unwrap();
    let changed = fixture.scan(None);
    // to-file, dangling, x/y (and y.txt that was in it).
    assert_eq!(changed.changed, 4);
}

#[test]
fn empty_folders_are_kept_and_share_one_object() {
    let mut fixture = Fixture::new();
    for folder in ["one", "two/three", "closed"] {
        std::fs::create_dir_all(fixture.work.join(folder)).unwrap();
    }
    std::fs::set_permissions(
        fixture.work.join("closed"),
        std::fs::Permissions::from_mode(0o500),
    )
    .unwrap();
    fixture.scan(None);
    // The work dir, two (holding three) and {} for one, three and closed.
    assert_eq!(fixture.objects(), 3);
    let tree = fixture.snap.last_tree();
    assert_eq!(
        tree.entries.keys().collect::<Vec<_>>(),
        ["closed", "one", "two", "two/three"]
    );
    assert_eq!(tree.entries["closed"], super::Entry::Dir { mode: 0o500 });

    std::fs::set_permissions(
        fixture.work.join("closed"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    std::fs::remove_dir(fixture.work.join("two/three")).unwrap();
    let changed = fixture.scan(None);
    assert_eq!(changed.changed, 2, "a mode and a folder gone");
    // Put back as it was, folders and mode.
    fixture.snap.restore(&tree).unwrap();
    assert!(fixture.work.join("two/three").is_dir());
    assert_eq!(
        crate::state::confined::tests::mode(&fixture.work.join("closed")),
        0o500
    );
    assert!(fixture.snap.diff(&tree).unwrap().is_empty());
    std::fs::set_permissions(
        fixture.work.join("closed"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
}

#[test]
fn a_focused_scan_lists_only_the_folders_on_the_way() {
    let mut fixture = deep_fixture();
    let first = fixture.scan(None);
    // Outside the focus: not seen, by design (nothing but the files told
    // may have changed).
    fixture.write("x/y/y.txt", "changed behind the scan's back");
    fixture.write("a/b/c/deep.txt", "changed");
    let focused = fixture.focus(&["a/b/c/deep.txt"]);
    assert_eq!(focused.changed, 1);
    assert_eq!(focused.stats.hashed, 1);
    // Three files in the folders on the way were stat'ed, none outside.
    assert_eq!(focused.stats.files, 1 + 1 + 1 + 2);
    assert_ne!(focused.hash, first.hash);
    let full = fixture.scan(None);
    assert_eq!(full.changed, 1, "the full scan finds the other one");

    // New folders on the way, made by the write.
    fixture.write("x/new/deeper/made.txt", "made");
    let made = fixture.focus(&["x/new/deeper/made.txt"]);
    assert_eq!(made.changed, 3);
    assert_eq!(fixture.scan(None).changed, 0, "the focus saw all of it");

    // A folder made next to the file, which the write did not make: a
    // focused scan takes it in whole.
    fixture.write("a/b/side/inner/s.txt", "s");
    fixture.write("a/b/b.txt", "changed");
    let side = fixture.focus(&["a/b/b.txt"]);
    assert_eq!(side.changed, 4);
    assert_eq!(fixture.scan(None).changed, 0);
}

#[test]
fn ignore_files_and_the_repository_are_never_a_focus() {
    assert!(Focus::on_the_way_to(["src/.gitignore"]).is_none());
    assert!(Focus::on_the_way_to([".ignore"]).is_none());
    assert!(Focus::on_the_way_to([".git/info/exclude"]).is_none());
    assert!(Focus::on_the_way_to([""]).is_none());
    let focus = Focus::on_the_way_to(["a/b/c.txt", "d.txt"]).unwrap();
    let mut folders: Vec<_> = focus.folders.into_iter().collect();
    folders.sort();
    assert_eq!(folders, ["", "a", "a/b"]);
}

#[test]
fn ignored_files_stay_out_of_a_focused_scan_too() {
    let mut fixture = deep_fixture();
    fixture.write("a/.gitignore", "*.log\nbuild/\n");
    fixture.scan(None);
    fixture.write("a/b/c/debug.log", "log");
    fixture.write("a/build/out.o", "o");
    fixture.write("a/b/c/deep.txt", "changed");
    let focused = fixture.focus(&["a/b/c/debug.log", "a/build/out.o", "a/b/c/deep.txt"]);
    assert_eq!(focused.changed, 1);
    let tree = fixture.snap.last_tree();
    assert!(!tree.entries.contains_key("a/b/c/debug.log"));
    assert!(!tree.entries.contains_key("a/build"));
}

#[test]
fn kinds_that_change_places_count_as_the_flat_comparison_does() {
    let mut fixture = deep_fixture();
    fixture.scan(None);
    let work = fixture.work.clone();
    // A file becomes a folder, a folder a file, a file is made
    // executable, a folder closed.
    std::fs::remove_file(work.join("top.txt")).unwrap();
    fixture.write("top.txt/inside.txt", "in");
    std::fs::remove_dir_all(work.join("a/b/c")).unwrap();
    fixture.write("a/b/c", "a file now");
    std::fs::set_permissions(work.join("a/a.txt"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(work.join("x/y"), std::fs::Permissions::from_mode(0o700)).unwrap();
    // `scan` checks the count against the flat comparison.
    let changed = fixture.scan(None);
    assert_eq!(changed.changed, 2 + 3 + 1 + 1);
}

#[test]
fn a_folder_object_with_a_name_that_is_not_one_is_refused() {
    let mut fixture = Fixture::new();
    for name in ["..", "a/b", "", "."] {
        let json = serde_json::to_vec(&serde_json::json!({
            name: {"kind": "link", "target": "x"}
        }))
        .unwrap();
        let hash = super::super::hash_bytes(&json);
        fixture.snap.store_bytes(&hash, &json).unwrap();
        let err = tree::load(&mut fixture.snap, &hash)
            .unwrap_err()
            .to_string();
        assert!(err.contains("damaged checkpoint"), "{name:?}: {err}");
    }
}

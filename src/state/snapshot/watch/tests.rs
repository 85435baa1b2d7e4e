use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use rustix::fs::inotify;
use rustix::io::Errno;

use super::super::Snapshotter;
use super::super::scan::Outcome;
use super::{Look, WATCH_AFTER};

/// A work dir in a temp folder, scanned once, and a snapshotter over it.
struct Fixture {
    root: tempfile::TempDir,
    work: PathBuf,
    snap: Snapshotter,
}

/// Three levels deep, with neighbours at every level: 8 files in 6
/// folders with the work dir.
const FILES: [&str; 8] = [
    "top.txt",
    "a/a.txt",
    "a/b/b.txt",
    "a/b/c/deep.txt",
    "a/b/c/beside.txt",
    "x/x.txt",
    "x/y/y.txt",
    "x/y/z.txt",
];

impl Fixture {
    fn new() -> Self {
        Self::with(&[])
    }

    /// Also with `more` files (path, content).
    fn with(more: &[(&str, &str)]) -> Self {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        let files = FILES.iter().map(|path| (*path, *path));
        for (path, content) in files.chain(more.iter().copied()) {
            let path = work.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, content).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(SystemTime::now() - Duration::from_secs(3600))
                .unwrap();
        }
        let mut snap = Snapshotter::new(&work, &root.path().join("objects"), 1024);
        // Watched whatever the scan took: these trees scan in less than
        // the watches cost (see `a_tree_that_scans_fast_is_not_watched`).
        snap.set_watching(true);
        snap.scan_tree(None).unwrap();
        Fixture { root, work, snap }
    }

    /// Runs `script` in the work dir in another process, as a command
    /// would.
    fn sh(&self, script: &str) {
        let status = Command::new("sh")
            .args(["-c", script])
            .current_dir(&self.work)
            .status()
            .unwrap();
        assert!(status.success(), "{script}");
    }

    /// The scan after a command, which must give the tree a full scan of
    /// the same work dir by a snapshotter that never saw it gives.
    fn after_a_command(&mut self) -> Outcome {
        let outcome = self.snap.scan_changed().unwrap();
        assert_eq!(
            outcome.hash,
            self.full_scan(),
            "the watched scan missed a change"
        );
        outcome
    }

    fn full_scan(&self) -> String {
        let mut fresh = Snapshotter::new(&self.work, &self.root.path().join("objects"), 1024);
        fresh.set_watching(false);
        fresh.scan_tree(None).unwrap().hash
    }
}

#[test]
fn changes_another_process_makes_are_seen_where_they_were_made() {
    let mut fixture = Fixture::new();
    // Nothing changed: the last tree, without a scan.
    let none = fixture.after_a_command();
    assert_eq!((none.changed, none.stats.files), (0, 0));

    fixture.sh("echo changed > a/b/c/deep.txt");
    let modified = fixture.after_a_command();
    assert_eq!(modified.changed, 1);
    // The folders on the way: top.txt, a.txt, b.txt and c's two files;
    // nothing in x.
    assert_eq!(modified.stats.files, 5);

    fixture.sh("echo new > x/y/new.txt");
    let created = fixture.after_a_command();
    assert_eq!(created.changed, 1);
    assert_eq!(created.stats.files, 1 + 1 + 3);

    fixture.sh("rm x/y/z.txt; chmod 755 a/a.txt");
    let deleted = fixture.after_a_command();
    assert_eq!(deleted.changed, 2);
    assert_eq!(fixture.after_a_command().stats.files, 0);

    // Listed since by a scan told where a tool wrote: nothing left to see.
    fixture.sh("echo written > a/a.txt");
    let focus = super::Focus::on_the_way_to(["a/a.txt"]).unwrap();
    assert_eq!(fixture.snap.scan_tree(Some(&focus)).unwrap().changed, 1);
    assert_eq!(fixture.after_a_command().stats.files, 0);
}

#[test]
fn a_new_nested_folder_is_walked_and_watched() {
    let mut fixture = Fixture::new();
    fixture.sh("mkdir -p x/new/deeper && echo f > x/new/deeper/f && echo g > x/new/g");
    let made = fixture.after_a_command();
    // new, deeper and their two files.
    assert_eq!(made.changed, 4);
    // Watched since: a change in it is seen.
    fixture.sh("echo again > x/new/deeper/f");
    assert_eq!(fixture.after_a_command().changed, 1);
}

#[test]
fn a_folder_renamed_or_made_again_is_seen() {
    let mut fixture = Fixture::new();
    fixture.sh("mv a/b a/renamed");
    // b, b.txt, c and c's two files gone, and as many made.
    assert_eq!(fixture.after_a_command().changed, 10);
    fixture.sh("echo changed > a/renamed/c/deep.txt");
    assert_eq!(fixture.after_a_command().changed, 1);

    // Removed and made again by the same name, with other content: what
    // the last scan saw below it says nothing.
    fixture.sh("rm -r x/y && mkdir -p x/y/sub && echo s > x/y/sub/s.txt");
    assert_eq!(fixture.after_a_command().changed, 2 + 2);
    fixture.sh("echo t > x/y/sub/t.txt");
    assert_eq!(fixture.after_a_command().changed, 1);

    // An empty folder, which nothing in it reports gone, replaced by one
    // moved in from where nothing is watched: its parent's event says.
    fixture.sh("mkdir x/y/hollow");
    assert_eq!(fixture.after_a_command().changed, 1);
    let outside = fixture.root.path().join("outside/hollow");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("inside.txt"), "in").unwrap();
    // A process in it keeps its own watch from saying it is gone.
    let mut inside = Command::new("sleep")
        .arg("60")
        .current_dir(fixture.work.join("x/y/hollow"))
        .spawn()
        .unwrap();
    fixture.sh("rmdir x/y/hollow && mv ../outside/hollow x/y/hollow");
    let replaced = fixture.snap.scan_changed();
    inside.kill().unwrap();
    inside.wait().unwrap();
    assert_eq!(replaced.unwrap().hash, fixture.full_scan());
}

/// The watches kept by the kernel, as `/proc` lists them.
fn kernel_watches(snap: &Snapshotter) -> usize {
    use std::os::fd::AsRawFd;
    let fd = snap.watch.fd.as_ref().unwrap().as_raw_fd();
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).unwrap();
    info.lines()
        .filter(|line| line.starts_with("inotify wd:"))
        .count()
}

#[test]
fn the_watches_follow_the_folders_of_the_tree() {
    let mut fixture = Fixture::new();
    let watches = |fixture: &Fixture| {
        let mut paths: Vec<_> = fixture.snap.watch.wds.keys().cloned().collect();
        paths.sort();
        assert_eq!(kernel_watches(&fixture.snap), paths.len());
        paths
    };
    assert_eq!(watches(&fixture), ["", "a", "a/b", "a/b/c", "x", "x/y"]);
    // Ignored now: no longer in the tree, nor watched.
    fixture.sh("echo x/ > .gitignore");
    fixture.after_a_command();
    assert_eq!(watches(&fixture), ["", "a", "a/b", "a/b/c"]);
    // Removed, one of them kept open by a process, so that its watch does
    // not say it is gone: the listing of a/ does.
    let mut inside = Command::new("sleep")
        .arg("60")
        .current_dir(fixture.work.join("a/b/c"))
        .spawn()
        .unwrap();
    fixture.sh("mkdir new && rm -r a/b");
    let outcome = fixture.snap.scan_changed();
    let paths = watches(&fixture);
    inside.kill().unwrap();
    inside.wait().unwrap();
    assert_eq!(outcome.unwrap().hash, fixture.full_scan());
    assert_eq!(paths, ["", "a", "new"]);
}

#[test]
fn a_folder_moved_and_another_made_in_its_place_are_both_watched() {
    let mut fixture = Fixture::new();
    fixture.sh("mv a/b x/b && mkdir -p a/b/c && echo n > a/b/c/n.txt");
    fixture.after_a_command();
    fixture.sh("echo changed > x/b/b.txt && echo changed > a/b/c/n.txt");
    assert_eq!(fixture.after_a_command().changed, 2);

    // The walk may meet the new folder first, and the moved one's watch
    // then at its new path: that watch stays.
    let work = fixture.work.clone();
    let watch = &mut fixture.snap.watch;
    let moved = watch.wds["x/b"];
    std::fs::rename(work.join("x/b"), work.join("x/moved")).unwrap();
    std::fs::create_dir(work.join("x/b")).unwrap();
    let fd = watch.fd.clone().unwrap();
    let made = inotify::add_watch(&*fd, work.join("x/b"), super::watched_events()).unwrap();
    let again = inotify::add_watch(&*fd, work.join("x/moved"), super::watched_events()).unwrap();
    assert_eq!(again, moved);
    watch.map(&[(made, "x/b".to_owned()), (moved, "x/moved".to_owned())]);
    watch.drain();
    watch.changed = super::Changed::default();
    std::fs::write(work.join("x/moved/b.txt"), "moved").unwrap();
    watch.drain();
    assert!(watch.changed.folders.contains("x/moved"));
}

#[test]
fn an_ignore_file_changed_anywhere_makes_a_full_scan() {
    let mut fixture = Fixture::with(&[("a/.gitignore", "*.log\n"), ("a/b/c/debug.log", "log")]);
    assert!(
        !fixture
            .snap
            .last_tree()
            .entries
            .contains_key("a/b/c/debug.log")
    );
    // a/b/c is neither where the change was nor on its way.
    fixture.sh(": > a/.gitignore");
    let unignored = fixture.after_a_command();
    assert_eq!(unignored.changed, 2);
    assert!(
        fixture
            .snap
            .last_tree()
            .entries
            .contains_key("a/b/c/debug.log")
    );

    // One that links to a file in no watched folder.
    let rules = fixture.root.path().join("rules");
    std::fs::write(&rules, "*.tmp\n").unwrap();
    std::os::unix::fs::symlink(&rules, fixture.work.join("x/.gitignore")).unwrap();
    fixture.sh("echo t > x/y/t.tmp");
    assert_eq!(fixture.after_a_command().changed, 1, "the link, not t.tmp");
    settle_rules(&mut fixture.snap);
    std::fs::write(&rules, "*.log\n").unwrap();
    assert_eq!(fixture.after_a_command().changed, 1, "t.tmp");
}

/// Takes the rule files as settled, as they are once a full scan ran two
/// seconds after they last changed.
fn settle_rules(snap: &mut Snapshotter) {
    for rule in &mut snap.watch.rules {
        rule.settled = true;
    }
}

#[test]
fn a_changed_exclude_of_the_repository_makes_a_full_scan() {
    let mut fixture = Fixture::with(&[(".git/info/exclude", "*.tmp\n"), ("x/y/t.tmp", "t")]);
    // Just written: it may change again within one tick, unseen.
    assert!(matches!(fixture.snap.watch.look(), Look::Everywhere));
    fixture.snap.scan_tree(None).unwrap();
    settle_rules(&mut fixture.snap);
    assert!(matches!(fixture.snap.watch.look(), Look::Nowhere));
    // Not in a watched folder: no event.
    fixture.sh("echo '*.log' > .git/info/exclude");
    let excluded = fixture.after_a_command();
    assert_eq!(excluded.changed, 1);
    assert!(fixture.snap.last_tree().entries.contains_key("x/y/t.tmp"));
}

#[test]
fn an_overflowing_queue_makes_a_full_scan() {
    let mut fixture = Fixture::new();
    let limit: usize = std::fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(usize::MAX);
    if limit <= 1 << 20 {
        // Events in a/ until the queue is full: two files in turn, so no
        // event repeats the one before it, which the kernel would merge.
        let files =
            ["a/one", "a/two"].map(|name| std::fs::File::create(fixture.work.join(name)).unwrap());
        for index in 0..=limit {
            files[index % 2].write_at(b"x", 0).unwrap();
        }
    } else {
        // Too many to make here: the queue's overflow event, as it comes.
        fixture
            .snap
            .watch
            .note(-1, super::ReadFlags::QUEUE_OVERFLOW, None);
    }
    // Past the end of the queue: only the overflow says something changed.
    fixture.sh("echo changed > x/y/y.txt");
    let outcome = fixture.after_a_command();
    assert_eq!(outcome.stats.files, FILES.len() + 2, "a full scan");
}

#[test]
fn running_out_of_watches_turns_the_watcher_off() {
    let mut fixture = Fixture::new();
    fixture.snap.watch.fail_adds = Some(Errno::NOSPC);
    fixture.sh("mkdir n && echo n > n/f");
    assert_eq!(fixture.after_a_command().changed, 2);
    assert!(!fixture.snap.watch.on && fixture.snap.watch.fd.is_none());
    fixture.snap.watch.fail_adds = None;
    // n/ is not watched: a full scan sees it.
    fixture.sh("echo again > n/f");
    let outcome = fixture.after_a_command();
    assert_eq!(outcome.changed, 1);
    assert_eq!(outcome.stats.files, FILES.len() + 1, "a full scan");
}

#[test]
fn a_watch_that_could_not_be_added_makes_the_next_look_a_full_scan() {
    let mut fixture = Fixture::new();
    fixture.snap.watch.fail_adds = Some(Errno::ACCESS);
    fixture.sh("mkdir n && echo n > n/f");
    fixture.after_a_command();
    // Once the watches can be added again, the full scan adds them.
    fixture.snap.watch.fail_adds = None;
    fixture.sh("echo again > n/f");
    assert_eq!(fixture.after_a_command().changed, 1);
    assert!(fixture.snap.watch.vouches());
    fixture.sh("echo once more > n/f");
    let outcome = fixture.after_a_command();
    assert_eq!(outcome.stats.files, 1 + 1, "n/f and top.txt");
}

#[test]
fn a_file_written_through_another_link_is_seen() {
    let mut fixture = Fixture::new();
    // The event names x/, where the link is; a/a.txt changed too.
    fixture.sh("ln a/a.txt x/linked.txt && echo more >> x/linked.txt");
    assert_eq!(fixture.after_a_command().changed, 2);
    // Both folders hold a file with two links: listed at every look.
    fixture.sh("echo again >> x/linked.txt");
    assert_eq!(fixture.after_a_command().changed, 2);
    fixture.sh("echo and again >> a/a.txt");
    assert_eq!(fixture.after_a_command().changed, 2);
}

#[test]
fn the_watcher_can_be_turned_off_and_on() {
    let mut fixture = Fixture::new();
    fixture.snap.set_watching(false);
    fixture.sh("echo changed > x/y/y.txt");
    assert_eq!(fixture.after_a_command().stats.files, FILES.len());
    fixture.snap.set_watching(true);
    // Not watched until a full scan.
    fixture.sh("echo again > x/y/y.txt");
    assert_eq!(fixture.after_a_command().stats.files, FILES.len());
    fixture.sh("echo once more > x/y/y.txt");
    assert_eq!(fixture.after_a_command().stats.files, 1 + 1 + 2);

    // Turned on again, and first a scan told where a tool wrote: the
    // folders it did not list were not watched when they changed.
    fixture.snap.set_watching(false);
    fixture.snap.set_watching(true);
    fixture.sh("echo by a tool > top.txt; echo by a command > x/y/y.txt");
    let focus = super::Focus::on_the_way_to(["top.txt"]).unwrap();
    fixture.snap.scan_tree(Some(&focus)).unwrap();
    assert_eq!(fixture.after_a_command().changed, 1);
}

/// What the watcher relies on: the walk hands a folder to its filter
/// before it reads the folder's ignore file and lists it, so a watch the
/// filter adds is there before either.
#[test]
fn the_walk_reads_a_folder_after_its_filter_let_it_in() {
    let root = tempfile::tempdir().unwrap();
    let folder = root.path().join("d");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("skip.txt"), "").unwrap();
    let walk = ignore::WalkBuilder::new(root.path())
        .require_git(false)
        .filter_entry(|entry| {
            if entry.file_name() == "d" {
                std::fs::write(entry.path().join(".ignore"), "skip.txt\n").unwrap();
                std::fs::write(entry.path().join("late.txt"), "").unwrap();
            }
            true
        })
        .build();
    let mut seen: Vec<String> = walk
        .map(|entry| relative(root.path(), entry.unwrap().path()))
        .collect();
    seen.sort();
    assert_eq!(seen, ["", "d", "d/late.txt"]);
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned()
}

/// A tree that scans whole faster than an inotify instance closes is not
/// watched (its instance is closed on a thread after the first scan)
/// unless watching was asked for.
#[test]
fn a_tree_that_scans_fast_is_not_watched() {
    // Where git's global excludes file exists, the first walk of a
    // process compiles `ignore`'s regex for git's config (the binary does
    // it on a warm-up thread as it starts), which a debug build takes
    // longer than the threshold to do.
    ignore::gitignore::gitconfig_excludes_path();
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    std::fs::create_dir_all(work.join("a")).unwrap();
    std::fs::write(work.join("a/f.txt"), "x").unwrap();
    let mut snap = Snapshotter::new(&work, &root.path().join("objects"), 1024);
    // The choice follows how long the last full scan took, and a loaded
    // machine (CI running its tests side by side) can take longer than
    // the threshold to scan even this tree once: so scan until a scan
    // and the next both come in under it, as they do on a quiet one.
    let unwatched = (0..50).any(|_| {
        snap.scan_tree(None).unwrap();
        snap.watch.fd.is_none() && {
            snap.scan_changed().unwrap();
            snap.watch.fd.is_none()
        }
    });
    assert!(unwatched, "no inotify instance for a small tree");
    snap.set_watching(true);
    snap.scan_changed().unwrap();
    assert!(snap.watch.fd.is_some(), "watched when asked");
    snap.watch.after_full_scan(WATCH_AFTER / 2);
    assert!(snap.watch.fd.is_some(), "asked for: kept");
}

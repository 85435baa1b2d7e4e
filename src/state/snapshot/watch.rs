//! Where the work dir changed, as the kernel reports it: the scan after a
//! command lists again only the folders in which something happened since
//! the last scan, instead of making a `stat` of every file.
//!
//! Every folder a scan enters is watched (inotify: one descriptor per
//! [`super::Snapshotter`], close-on-exec so no command inherits it, and
//! one watch per folder). The watch is added before the walk reads the
//! folder's ignore files and lists it (the walk opens a folder, hands it to
//! the filter that adds the watch, and only then reads it; a test pins
//! that order), so a change in the folder that the listing may not show
//! raises an event. The events say in which folder an entry came, went or
//! changed: those folders, and the folders on the way to them, are what
//! the next scan after a command lists ([`Look::At`]). A folder made or
//! removed is listed by its own path too (its parent reports it at once;
//! its own watch, only once no process has it open): a new one is walked
//! whole, as the walk enters every folder the last scan did not see; one
//! made where another was removed is listed, and so is every folder below
//! it that the last scan saw, since those were removed first, each
//! reported by its parent. A folder moved is a full scan.
//!
//! The kernel queues an event when the system call that made the change
//! returns, so once a command has ended, all it changed is in the queue,
//! and a change made while a scan runs is there for the next one.
//! Processes the session left running are covered the same way: their
//! writes raise events whenever they come.
//!
//! Where the watcher cannot vouch for the events being all there is, the
//! scan looks everywhere ([`Look::Everywhere`]), and that full scan watches
//! every folder again: the first scan of the process, a queue that
//! overflowed, a watch that could not be added, a watched folder moved
//! (its path and those below it are no longer right), an ignore file
//! changed anywhere (`.gitignore`, `.ignore`, `.git`: they decide what is
//! kept in other folders), a change to git's rule files outside the
//! watched folders (a repository's `info/exclude`, the global excludes
//! file and the configuration naming it, `stat`'ed at each look), an error
//! reading the queue. Running out of watches (`fs.inotify.max_user_watches`)
//! turns the watcher off for good: its watches go back to other programs,
//! and every scan after a command is a full one, as without a watcher.
//!
//! What inotify does not see, and so neither does a scan after a command
//! (a full scan would):
//! - writes through a shared `mmap`: the kernel raises no event for them;
//! - a file with several links written through one in a folder that is not
//!   watched (outside the work dir, or ignored), made since the file's
//!   folder was last listed: an event names the folder of the link written
//!   through. Folders holding a file with several links when listed are
//!   listed at every look, and a link that a scan finds new to its name
//!   makes that look a full scan;
//! - changes made by another machine on a network file system.
//!
//! Cost: a watch per folder, about 1 KiB of kernel memory each with the
//! folder's inode, which a watch keeps in memory, counted against the
//! user's `fs.inotify.max_user_watches`; folders left out of the
//! checkpoints (ignored ones, `.git`) are not watched.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::ops::Bound;
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use rustix::io::Errno;

use super::scan::{Focus, Links, RACY_WINDOW, RULE_NAMES};

/// Bytes read from the queue at a time (an event is 16 bytes and a name).
const READ_BYTES: usize = 64 * 1024;

/// A work dir whose full scan takes this long or longer is watched (see
/// [`Watcher::after_full_scan`]).
const WATCH_AFTER: Duration = Duration::from_millis(5);

/// What the scan after a command must look at.
#[derive(Debug)]
pub(super) enum Look {
    /// The watcher cannot vouch: a full scan.
    Everywhere,
    /// Nothing changed since the last scan.
    Nowhere,
    At(Focus),
}

/// What changes in a watched folder raises an event: an entry made,
/// removed, moved, written or given other attributes, and the folder
/// itself removed or moved. Only folders, and below the work dir (which
/// may be reached through a link, as the walk reaches it) never through
/// a link.
fn watched_events() -> WatchFlags {
    WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::MODIFY
        | WatchFlags::CLOSE_WRITE
        | WatchFlags::ATTRIB
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
        | WatchFlags::ONLYDIR
}

/// The watches of one work dir and what they reported.
#[derive(Debug)]
pub(super) struct Watcher {
    /// Off: every look is everywhere and no folder is watched.
    on: bool,
    /// The last full scan took less than [`WATCH_AFTER`]: the watches
    /// cost more than the scans they save, and there are none.
    small: bool,
    /// Watching was asked for ([`Self::set_on`]): kept whatever the scans
    /// take.
    forced: bool,
    /// Made at the first scan.
    fd: Option<Arc<OwnedFd>>,
    /// The watched folders (paths relative to the work dir, `""` for it),
    /// by watch and by path.
    folders: HashMap<i32, String>,
    wds: BTreeMap<String, i32>,
    changed: Changed,
    /// Folders holding a file with more than one link: listed at every
    /// look.
    linked: HashSet<String>,
    /// git's rule files outside the watched folders, as the last full
    /// scan found them.
    rules: Vec<RuleFile>,
    /// Makes every watch that a scan adds fail with this error.
    #[cfg(test)]
    pub(super) fail_adds: Option<Errno>,
}

/// What the events said since the last scan that took them in.
#[derive(Debug, Default)]
struct Changed {
    /// Listed again.
    folders: HashSet<String>,
    /// Nothing can be said: a full scan.
    everything: bool,
}

impl Watcher {
    pub(super) fn new() -> Self {
        Watcher {
            on: true,
            small: false,
            forced: false,
            fd: None,
            folders: HashMap::new(),
            wds: BTreeMap::new(),
            changed: Changed::default(),
            linked: HashSet::new(),
            rules: Vec::new(),
            #[cfg(test)]
            fail_adds: None,
        }
    }

    /// Turns watching on or off. Off, the watches go: a scan after a
    /// command scans everything.
    pub(super) fn set_on(&mut self, on: bool) {
        if !on {
            self.turn_off();
        }
        self.on = on;
        self.forced = on;
        self.small = false;
    }

    /// After a full scan that took `took`: a tree that scans whole faster
    /// than [`WATCH_AFTER`] is cheaper scanned than watched. Closing an
    /// inotify instance that held watches waits for the kernel's SRCU
    /// grace period (8 to 16 ms measured), which a process would pay at
    /// its exit, after its last event; here it is paid on a thread of its
    /// own, now. A tree that grows is watched again from the full scan
    /// after the one that found it slow.
    pub(super) fn after_full_scan(&mut self, took: Duration) {
        self.small = !self.forced && took < WATCH_AFTER;
        if !self.small {
            return;
        }
        if let Some(fd) = self.fd.take() {
            let _ = std::thread::Builder::new()
                .name("inotify-close".to_owned())
                .spawn(move || drop(fd));
        }
        self.folders.clear();
        self.wds.clear();
        self.changed = Changed::default();
        self.linked.clear();
        self.rules.clear();
    }

    fn turn_off(&mut self) {
        self.on = false;
        // Closing the descriptor removes every watch.
        self.fd = None;
        self.folders.clear();
        self.wds.clear();
        self.changed = Changed::default();
        self.linked.clear();
        self.rules.clear();
    }

    /// Before a scan: what came since is taken in (and forgotten, before a
    /// full scan, which sees it), and the work dir is watched. The sink is
    /// for the walk; `None` when nothing is watched.
    pub(super) fn begin(&mut self, root: &Path, full: bool) -> Option<Sink> {
        if !self.on || self.small {
            return None;
        }
        let fd = match &self.fd {
            Some(fd) => Arc::clone(fd),
            None => {
                let flags = CreateFlags::CLOEXEC | CreateFlags::NONBLOCK;
                // Not now (too many descriptors, say): the next scan tries
                // again, and until then every look is everywhere.
                let fd = Arc::new(inotify::init(flags).ok()?);
                self.fd = Some(Arc::clone(&fd));
                // What the folders did before they were watched is unknown.
                self.changed.everything = true;
                fd
            }
        };
        self.drain();
        if full {
            self.changed = Changed::default();
        }
        let sink = Sink(Arc::new(SinkInner {
            fd,
            seen: Mutex::default(),
            #[cfg(test)]
            fail: self.fail_adds,
        }));
        sink.enter(root, String::new());
        Some(sink)
    }

    /// After a scan that went to its end: the watches it added are mapped
    /// and those of folders no longer in the tree removed.
    pub(super) fn end(
        &mut self,
        sink: Option<Sink>,
        full: bool,
        started: SystemTime,
        links: Links,
    ) {
        let Some(sink) = sink else {
            return;
        };
        let seen = std::mem::take(&mut *sink.seen());
        if let Some(err) = seen.failed {
            if err == Errno::NOSPC {
                self.turn_off();
                return;
            }
            // A folder in the tree is not watched.
            self.changed.everything = true;
        }
        self.map(&seen.added);
        self.prune(&seen, full);
        // What the queue said before the walk, of a folder it listed, is in
        // the listing (after a scan told where a tool wrote, say).
        self.changed
            .folders
            .retain(|folder| !seen.entered.contains(folder));
        if full {
            self.linked = links.folders;
            self.rules = rule_files(&seen.repositories)
                .into_iter()
                .chain(seen.linked_rules)
                .map(|path| RuleFile::now(path, started))
                .collect();
        } else {
            self.linked.retain(|folder| !seen.entered.contains(folder));
            self.linked.extend(links.folders);
            // The file may have been written through the other link
            // already, where nothing is watched or the folder was not
            // listed.
            self.changed.everything |= links.new;
        }
    }

    /// Whether the events are known to be all that changed since the
    /// last scan.
    pub(super) fn vouches(&self) -> bool {
        self.fd.is_some() && !self.changed.everything
    }

    /// What the scan after a command must look at (taken: a scan that
    /// fails halfway makes the next one a full one anyway).
    pub(super) fn look(&mut self) -> Look {
        self.drain();
        if !self.vouches() || self.rules.iter().any(RuleFile::changed) {
            return Look::Everywhere;
        }
        let changed = std::mem::take(&mut self.changed);
        if changed.folders.is_empty() && self.linked.is_empty() {
            return Look::Nowhere;
        }
        Look::At(Focus::on_changes(
            changed.folders.iter().chain(&self.linked),
        ))
    }

    /// Takes in what the queue holds.
    fn drain(&mut self) {
        let Some(fd) = self.fd.clone() else {
            return;
        };
        let mut buffer = vec![MaybeUninit::<u8>::uninit(); READ_BYTES];
        let mut reader = inotify::Reader::new(&*fd, &mut buffer);
        loop {
            match reader.next() {
                Ok(event) => self.note(event.wd(), event.events(), event.file_name()),
                Err(Errno::WOULDBLOCK) => break,
                Err(Errno::INTR) => {}
                Err(_) => {
                    self.changed.everything = true;
                    break;
                }
            }
        }
    }

    /// Takes in one event of the watch `wd`, about the entry `name` of its
    /// folder or (without a name) the folder itself.
    fn note(&mut self, wd: i32, mask: ReadFlags, name: Option<&CStr>) {
        if mask.contains(ReadFlags::QUEUE_OVERFLOW) {
            self.changed.everything = true;
            return;
        }
        // Not a folder of the tree (any more): a watch removed since.
        let Some(folder) = self.folders.get(&wd).cloned() else {
            return;
        };
        let gone = ReadFlags::DELETE_SELF | ReadFlags::IGNORED;
        if mask.intersects(ReadFlags::MOVE_SELF | ReadFlags::UNMOUNT)
            || (folder.is_empty() && mask.intersects(gone))
        {
            self.changed.everything = true;
            return;
        }
        if mask.intersects(gone) {
            if mask.contains(ReadFlags::IGNORED) {
                self.folders.remove(&wd);
                if self.wds.get(&folder) == Some(&wd) {
                    self.wds.remove(&folder);
                }
            }
            // Removed (which its parent reports too), or no longer
            // watched: listed again if it is still there.
            self.changed.folders.insert(parent(&folder).to_owned());
            self.changed.folders.insert(folder);
            return;
        }
        let Some(name) = name else {
            // The folder's own mode, say: listed again (its parent lists
            // it on the way).
            self.changed.folders.insert(folder);
            return;
        };
        let name = String::from_utf8_lossy(name.to_bytes());
        if RULE_NAMES.contains(&name.as_ref()) {
            self.changed.everything = true;
            return;
        }
        if mask.contains(ReadFlags::ISDIR) {
            // Made, removed or given another mode: listed (a new one,
            // whole), whatever the last scan saw at that path.
            self.changed
                .folders
                .insert(super::scan::join(&folder, &name));
        }
        self.changed.folders.insert(folder);
    }

    /// Maps the watches a scan added to their folders. A folder's watch
    /// named by another path now was moved; a path with another watch now
    /// is another folder, and the old watch goes, unless this scan added
    /// it too (the folder moved, and was met at its new path).
    fn map(&mut self, added: &[(i32, String)]) {
        let mut this_scan = HashSet::new();
        for (wd, _) in added {
            if !this_scan.insert(*wd) {
                // One folder at two paths (a bind mount): its events name
                // only one of them.
                self.changed.everything = true;
            }
        }
        for (wd, path) in added {
            if let Some(old) = self.folders.insert(*wd, path.clone())
                && old != *path
                && self.wds.get(&old) == Some(wd)
            {
                self.wds.remove(&old);
            }
            if let Some(old) = self.wds.insert(path.clone(), *wd)
                && old != *wd
                && !this_scan.contains(&old)
            {
                self.folders.remove(&old);
                self.remove_watch(old);
            }
        }
    }

    /// Removes the watches of folders no longer in the tree: after a full
    /// scan, those it did not enter; after a focused one, those the last
    /// scan saw in a folder it listed and it did not meet again, and what
    /// was below them (a look at the few folders listed, not every watch).
    fn prune(&mut self, seen: &Seen, full: bool) {
        let mut gone = Vec::new();
        if full {
            let stale = self.wds.keys().filter(|path| !seen.entered.contains(*path));
            gone.extend(stale.cloned());
        } else {
            for path in &seen.known {
                if seen.entered.contains(path) || seen.passed.contains(path) {
                    continue;
                }
                gone.extend(self.wds.get_key_value(path).map(|(path, _)| path.clone()));
                let below = format!("{path}/");
                let range = self
                    .wds
                    .range::<str, _>((Bound::Included(below.as_str()), Bound::Unbounded));
                let stale = range.take_while(|(path, _)| path.starts_with(&below));
                gone.extend(stale.map(|(path, _)| path.clone()));
            }
        }
        for path in gone {
            let Some(wd) = self.wds.remove(&path) else {
                continue;
            };
            if self.folders.get(&wd) == Some(&path) {
                self.folders.remove(&wd);
                self.remove_watch(wd);
            }
        }
    }

    fn remove_watch(&self, wd: i32) {
        if let Some(fd) = &self.fd {
            // Gone with its folder already, or not: either way unwatched.
            let _ = inotify::remove_watch(&**fd, wd);
        }
    }
}

/// The folder `path` is in (`""` for one in the work dir).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}

/// What a walk tells the watcher as it goes: the filter that decides
/// which folders it enters runs inside the walk, which wants it `Sync`.
#[derive(Debug, Clone)]
pub(super) struct Sink(Arc<SinkInner>);

#[derive(Debug)]
struct SinkInner {
    fd: Arc<OwnedFd>,
    seen: Mutex<Seen>,
    #[cfg(test)]
    fail: Option<Errno>,
}

#[derive(Debug, Default)]
struct Seen {
    /// Watches added, with their folders.
    added: Vec<(i32, String)>,
    entered: HashSet<String>,
    /// Folders a focused walk took as the last scan saw them.
    passed: HashSet<String>,
    /// The folders the last scan saw in those a focused walk lists.
    known: HashSet<String>,
    /// `.git` entries met, and whether each is a file (a linked worktree
    /// or a submodule).
    repositories: Vec<(PathBuf, bool)>,
    /// Ignore files met that are links.
    linked_rules: Vec<PathBuf>,
    /// The first error adding a watch.
    failed: Option<Errno>,
}

impl Sink {
    fn seen(&self) -> MutexGuard<'_, Seen> {
        // The walk runs on one thread: a poisoned lock is from a panic
        // that ends the scan anyway; what it holds is still right.
        self.0.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The walk enters the folder at `path` (`relative` to the work dir).
    pub(super) fn enter(&self, path: &Path, relative: String) {
        let mut events = watched_events();
        if !relative.is_empty() {
            events |= WatchFlags::DONT_FOLLOW;
        }
        #[cfg(test)]
        let added = match self.0.fail {
            Some(err) => Err(err),
            None => inotify::add_watch(&*self.0.fd, path, events),
        };
        #[cfg(not(test))]
        let added = inotify::add_watch(&*self.0.fd, path, events);
        let mut seen = self.seen();
        match added {
            Ok(wd) => seen.added.push((wd, relative.clone())),
            // Removed or replaced since the walk met it: its parent, whose
            // watch was there before, has the event.
            Err(Errno::NOENT | Errno::NOTDIR) if !relative.is_empty() => {}
            Err(err) => {
                seen.failed.get_or_insert(err);
            }
        }
        seen.entered.insert(relative);
    }

    /// A focused walk lists the folders in which the last scan saw
    /// `known`: those it meets neither entered nor passed are gone.
    pub(super) fn expect(&self, known: &HashSet<String>) {
        self.seen().known.clone_from(known);
    }

    pub(super) fn pass(&self, relative: String) {
        self.seen().passed.insert(relative);
    }

    /// The walk met a repository (`.git`), whose rules it read.
    pub(super) fn repository(&self, path: &Path, kind: Option<std::fs::FileType>) {
        let is_file = kind.is_some_and(|kind| kind.is_file());
        self.seen().repositories.push((path.to_owned(), is_file));
    }

    /// The walk met an ignore file that is a link: it reads the file
    /// linked to, which may be in no watched folder.
    pub(super) fn linked_rules(&self, path: &Path) {
        self.seen().linked_rules.push(path.to_owned());
    }
}

/// A file outside the watched folders whose content decides what a scan
/// keeps, as the last full scan found it.
#[derive(Debug)]
struct RuleFile {
    path: PathBuf,
    stamp: Option<FileStamp>,
    /// Changed since shortly before the scan started: it may change again
    /// without changing its stamp (within one tick of the clock), so only
    /// a full scan vouches for it.
    settled: bool,
}

#[derive(Debug, PartialEq, Eq)]
struct FileStamp {
    dev: u64,
    inode: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl RuleFile {
    fn now(path: PathBuf, started: SystemTime) -> RuleFile {
        let stamp = file_stamp(&path);
        let settled = stamp.as_ref().is_none_or(|stamp| {
            let (secs, nanos) = stamp.ctime;
            let ctime = u64::try_from(secs).map_or(SystemTime::UNIX_EPOCH, |secs| {
                let nanos = u32::try_from(nanos).unwrap_or(0);
                SystemTime::UNIX_EPOCH + Duration::new(secs, nanos)
            });
            started
                .duration_since(ctime)
                .is_ok_and(|age| age >= RACY_WINDOW)
        });
        RuleFile {
            path,
            stamp,
            settled,
        }
    }

    fn changed(&self) -> bool {
        !self.settled || file_stamp(&self.path) != self.stamp
    }
}

/// The file's stamp, through links (as the walk reads it); `None` when
/// it cannot be read.
fn file_stamp(path: &Path) -> Option<FileStamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some(FileStamp {
        dev: meta.dev(),
        inode: meta.ino(),
        size: meta.len(),
        mtime: (meta.mtime(), meta.mtime_nsec()),
        ctime: (meta.ctime(), meta.ctime_nsec()),
    })
}

/// The rule files the walk reads that lie outside the work dir's
/// watched folders: git's global configuration (which names the global
/// excludes file) and that file, and each repository's `info/exclude`
/// (and the ignore files that are links, which the caller adds).
fn rule_files(repositories: &[(PathBuf, bool)]) -> Vec<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let home = std::env::home_dir();
    let mut files: Vec<PathBuf> = set("GIT_CONFIG_GLOBAL")
        .into_iter()
        .map(Into::into)
        .collect();
    files.extend(home.as_ref().map(|home| home.join(".gitconfig")));
    let config = set("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.map(|home| home.join(".config")));
    files.extend(config.map(|config| config.join("git/config")));
    files.push(set("GIT_CONFIG_SYSTEM").map_or_else(|| "/etc/gitconfig".into(), Into::into));
    files.extend(crate::state::walk::global_excludes_path());
    for (dot_git, is_file) in repositories {
        files.extend(repository_rule_files(dot_git, *is_file));
    }
    files
}

/// The files of a repository's rules that the walk reads, as the ignore
/// crate finds them: `.git/info/exclude`, or for a `.git` file (`gitdir:
/// PATH`), `info/exclude` in the folder that `PATH/commondir` names, and
/// that `commondir`.
fn repository_rule_files(dot_git: &Path, is_file: bool) -> Vec<PathBuf> {
    if !is_file {
        return vec![dot_git.join("info/exclude")];
    }
    // A change to the `.git` file itself is an event in its folder.
    let Ok(text) = std::fs::read_to_string(dot_git) else {
        return Vec::new();
    };
    let Some(real) = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("gitdir: "))
    else {
        return Vec::new();
    };
    let real = PathBuf::from(real);
    let commondir = real.join("commondir");
    let common = std::fs::read_to_string(&commondir)
        .ok()
        .and_then(|text| text.lines().next().map(str::to_owned))
        .map(|line| {
            if line.starts_with('.') {
                real.join(line)
            } else {
                PathBuf::from(line)
            }
        });
    let mut files = vec![commondir];
    files.extend(common.map(|common| common.join("info/exclude")));
    files
}

#[cfg(test)]
mod tests;

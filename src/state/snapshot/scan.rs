//! The scan: the work dir walked into one folder object per folder (see
//! [`super::tree`]), against what the last scan saw.
//!
//! The last scan's folders are kept with each file's `stat` stamp, so
//! this one reads only the files whose stamp changed, and a folder whose
//! entries all came out as before keeps its hash: it is neither
//! serialised nor hashed again. Counting the paths that differ from the
//! last scan falls out of the same comparison.
//!
//! A scan may also be told where to look ([`Focus`]): the folders on the
//! way to the files a tool wrote, or to where the kernel saw something
//! change ([`super::watch`]). Those are listed again, and every other
//! folder is taken as the last scan saw it, without a `stat`. That is
//! only right when nothing else can have changed the work dir, which the
//! session and the watcher know and this module does not.

use std::collections::HashSet;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use super::tree::{self, Node};
use super::watch::{Look, Sink};
use super::{Entry, ScanStats, Snapshotter, Stored, Tree};
use crate::state::StateError;

/// A file modified this close to the scan may change again within the same
/// mtime tick; it is always re-read ("racy" files, as git calls them).
pub(super) const RACY_WINDOW: Duration = Duration::from_secs(2);

/// Names whose change can change what the scan keeps elsewhere: the
/// ignore files, and the repository (`.git/info/exclude`).
pub(super) const RULE_NAMES: [&str; 3] = [".gitignore", ".ignore", ".git"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    pub(super) size: u64,
    pub(super) mtime_ns: i128,
    pub(super) inode: u64,
    pub(super) mode: u32,
}

/// A folder as the last scan saw it, and the hash of its stored object.
#[derive(Debug, Default)]
pub(super) struct Folder {
    /// Sorted by name.
    entries: Vec<Scanned>,
    hash: String,
}

#[derive(Debug)]
struct Scanned {
    name: String,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    File { hash: String, stamp: Stamp },
    Link { target: String },
    Dir { mode: u32, folder: Folder },
}

impl Scanned {
    fn node(&self) -> Node<&str> {
        match &self.kind {
            Kind::File { hash, stamp } => Node::File {
                hash,
                mode: stamp.mode,
                size: stamp.size,
            },
            Kind::Link { target } => Node::Link { target },
            Kind::Dir { mode, folder } => Node::Dir {
                mode: *mode,
                tree: &folder.hash,
            },
        }
    }
}

impl Folder {
    fn find(&mut self, name: &str) -> Option<&mut Scanned> {
        let at = self
            .entries
            .binary_search_by(|entry| entry.name.as_str().cmp(name))
            .ok()?;
        self.entries.get_mut(at)
    }

    /// The paths in this folder and below.
    fn count(&self) -> u64 {
        let mut count = 0;
        let mut pending = vec![self];
        while let Some(folder) = pending.pop() {
            count += folder.entries.len() as u64;
            for entry in &folder.entries {
                if let Kind::Dir { folder, .. } = &entry.kind {
                    pending.push(folder);
                }
            }
        }
        count
    }

    /// The flat form of this tree.
    pub(super) fn flatten(&self) -> Tree {
        let mut tree = Tree::new();
        let mut pending = vec![(String::new(), self)];
        while let Some((prefix, folder)) = pending.pop() {
            for scanned in &folder.entries {
                let path = if prefix.is_empty() {
                    scanned.name.clone()
                } else {
                    format!("{prefix}/{}", scanned.name)
                };
                let entry = match &scanned.kind {
                    Kind::File { hash, stamp } => Entry::File {
                        hash: hash.clone(),
                        mode: stamp.mode,
                        size: stamp.size,
                    },
                    Kind::Link { target } => Entry::Link {
                        target: target.clone(),
                    },
                    Kind::Dir { mode, folder } => {
                        pending.push((path.clone(), folder));
                        Entry::Dir { mode: *mode }
                    }
                };
                tree.entries.insert(path, entry);
            }
        }
        tree
    }
}

/// Where a scan looks again: folders by their path relative to the work
/// dir (`""` for the work dir itself).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Focus {
    folders: HashSet<String>,
}

impl Focus {
    /// The folders on the way to each of `files` (paths relative to the
    /// work dir). `None` when a change there can reach further: an
    /// ignore file decides what is kept in other folders, and so does
    /// the repository's `info/exclude`.
    pub fn on_the_way_to<'a>(files: impl IntoIterator<Item = &'a str>) -> Option<Focus> {
        let mut focus = Focus::default();
        focus.folders.insert(String::new());
        for file in files {
            if file.is_empty() || file.split('/').any(|name| RULE_NAMES.contains(&name)) {
                return None;
            }
            if let Some((folder, _)) = file.rsplit_once('/') {
                focus.add_with_parents(folder);
            }
        }
        Some(focus)
    }

    /// `folders` and the folders on the way to them.
    pub(super) fn on_changes<'a>(folders: impl IntoIterator<Item = &'a String>) -> Focus {
        let mut focus = Focus::default();
        focus.folders.insert(String::new());
        for folder in folders {
            focus.add_with_parents(folder);
        }
        focus
    }

    /// `folder` and every folder on the way to it.
    fn add_with_parents(&mut self, folder: &str) {
        if folder.is_empty() {
            return;
        }
        for (at, _) in folder.match_indices('/') {
            self.folders.insert(folder[..at].to_owned());
        }
        self.folders.insert(folder.to_owned());
    }
}

/// What [`Snapshotter::scan_tree`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The work dir's folder object.
    pub hash: String,
    /// Paths created, modified or deleted since the last scan (all of
    /// them, after none).
    pub changed: u64,
    pub stats: ScanStats,
}

/// A folder being listed.
struct Frame {
    depth: usize,
    name: String,
    mode: u32,
    entries: Vec<Scanned>,
    /// The same folder as the last scan saw it.
    last: Option<Folder>,
}

/// A folder the walk did not enter because a focused scan takes it as it
/// was: its depth and name.
type Passed = Arc<Mutex<Vec<(usize, String)>>>;

impl Snapshotter {
    /// Scans the work dir (only the folders of `focus`, if given), stores
    /// what is new and returns its tree's hash. Without a previous scan
    /// to take the other folders from, a focused scan looks everywhere.
    pub fn scan_tree(&mut self, focus: Option<&Focus>) -> Result<Outcome, StateError> {
        let focus = focus.filter(|_| self.last.is_some());
        let started = SystemTime::now();
        let sink = self.watch.begin(&self.work_dir, focus.is_none());
        // Taken apart as the walk goes; lost if it fails halfway, and the
        // next scan reads every file again.
        let last = self.last.take();
        let passed: Passed = Arc::default();
        let walker = self.walker(focus, last.as_ref(), &passed, sink.clone());
        let mut walk = Walk {
            frames: vec![Frame {
                depth: 0,
                name: String::new(),
                mode: 0,
                entries: Vec::new(),
                last,
            }],
            changed: 0,
            stats: ScanStats::default(),
            started,
            links: Links::default(),
        };
        for entry in walker {
            walk.take_passed(self, &passed)?;
            let Ok(entry) = entry else { continue };
            if entry.depth() == 0 {
                continue;
            }
            walk.add(self, &entry)?;
        }
        walk.take_passed(self, &passed)?;
        walk.close_to(self, 1)?;
        let Some(root) = walk.frames.pop() else {
            return Err(StateError::Invalid("the scan lost its root".into()));
        };
        let (root, _, _) = walk.finish(self, root)?;
        let hash = root.hash.clone();
        self.last = Some(root);
        self.watch.end(sink, focus.is_none(), started, walk.links);
        if focus.is_none()
            && let Ok(took) = started.elapsed()
        {
            self.watch.after_full_scan(took);
        }
        Ok(Outcome {
            hash,
            changed: walk.changed,
            stats: walk.stats,
        })
    }

    /// Scans what may have changed since the last scan, when anything may
    /// have: the folders where the watcher saw a change, or everything
    /// when it cannot vouch for having seen them all (see
    /// [`super::watch`]). Nothing changed: the last tree, without a scan.
    pub fn scan_changed(&mut self) -> Result<Outcome, StateError> {
        let Some(last) = &self.last else {
            return self.scan_tree(None);
        };
        let focus = match self.watch.look() {
            Look::Everywhere => return self.scan_tree(None),
            Look::Nowhere => {
                return Ok(Outcome {
                    hash: last.hash.clone(),
                    changed: 0,
                    stats: ScanStats::default(),
                });
            }
            Look::At(focus) => focus,
        };
        let focused = self.scan_tree(Some(&focus))?;
        if self.watch.vouches() {
            return Ok(focused);
        }
        // The focused scan found what the watcher cannot vouch for: a
        // file with a new link may have been written through it where
        // nothing is watched (see `super::watch`). Everything, now.
        let full = self.scan_tree(None)?;
        Ok(Outcome {
            hash: full.hash,
            changed: focused.changed + full.changed,
            stats: ScanStats {
                files: full.stats.files,
                hashed: focused.stats.hashed + full.stats.hashed,
                stored_bytes: focused.stats.stored_bytes + full.stats.stored_bytes,
                skipped_large: full.stats.skipped_large,
            },
        })
    }

    /// The walk: what git would keep, without `.git`, and with a focus,
    /// only into the folders it names and those the last scan did not
    /// see (the others are put in `passed`). Every folder entered is
    /// watched before it is listed, and a repository met is told to the
    /// watcher (`sink`).
    fn walker(
        &self,
        focus: Option<&Focus>,
        last: Option<&Folder>,
        passed: &Passed,
        sink: Option<Sink>,
    ) -> ignore::Walk {
        // The folders a focused walk passes by: those the last scan saw
        // in the folders it lists.
        let mut known = HashSet::new();
        if let (Some(focus), Some(last)) = (focus, last) {
            for path in &focus.folders {
                let Some(folder) = find_folder(last, path) else {
                    continue;
                };
                for entry in &folder.entries {
                    if matches!(entry.kind, Kind::Dir { .. }) {
                        known.insert(join(path, &entry.name));
                    }
                }
            }
        }
        if let Some(sink) = &sink {
            sink.expect(&known);
        }
        let focused = focus.map(|focus| (focus.clone(), known));
        let root = self.work_dir.clone();
        let passed = Arc::clone(passed);
        ignore::WalkBuilder::new(&self.work_dir)
            .hidden(false)
            .require_git(false)
            .git_global(crate::state::walk::git_global())
            .parents(false)
            .filter_entry(move |entry| {
                // A name that is not UTF-8 cannot be stored, nor can
                // anything below it.
                let Some(name) = entry.file_name().to_str() else {
                    return false;
                };
                if name == ".git" {
                    if let Some(sink) = &sink {
                        sink.repository(entry.path(), entry.file_type());
                    }
                    return false;
                }
                let kind = entry.file_type();
                if !kind.is_some_and(|kind| kind.is_dir()) {
                    if let Some(sink) = &sink
                        && RULE_NAMES.contains(&name)
                        && kind.is_some_and(|kind| kind.is_symlink())
                    {
                        sink.linked_rules(entry.path());
                    }
                    return true;
                }
                let Some(relative) = super::relative(&root, entry.path()) else {
                    return false;
                };
                if focused.as_ref().is_none_or(|(focus, known)| {
                    focus.folders.contains(&relative) || !known.contains(&relative)
                }) {
                    // Called before the walk reads the folder's ignore
                    // files and lists it: see `super::watch`.
                    if let Some(sink) = &sink {
                        sink.enter(entry.path(), relative);
                    }
                    return true;
                }
                if let Some(sink) = &sink {
                    sink.pass(relative);
                }
                if let Ok(mut passed) = passed.lock() {
                    passed.push((entry.depth(), name.to_owned()));
                }
                false
            })
            .build()
    }
}

/// What the last scan saw in `parent` as the folder `name`: its mode, and
/// its entries taken out (the hash is left, for comparing with it).
fn take_last_dir(parent: &mut Frame, name: &str) -> Option<(u32, Folder)> {
    let scanned = parent.last.as_mut()?.find(name)?;
    match &mut scanned.kind {
        Kind::Dir { mode, folder } => Some((
            *mode,
            Folder {
                entries: std::mem::take(&mut folder.entries),
                hash: folder.hash.clone(),
            },
        )),
        Kind::File { .. } | Kind::Link { .. } => None,
    }
}

pub(super) fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_owned()
    } else {
        format!("{folder}/{name}")
    }
}

fn find_folder<'a>(root: &'a Folder, path: &str) -> Option<&'a Folder> {
    let mut folder = root;
    for name in path.split('/').filter(|name| !name.is_empty()) {
        let at = folder
            .entries
            .binary_search_by(|entry| entry.name.as_str().cmp(name))
            .ok()?;
        match &folder.entries[at].kind {
            Kind::Dir { folder: inner, .. } => folder = inner,
            Kind::File { .. } | Kind::Link { .. } => return None,
        }
    }
    Some(folder)
}

/// One scan in progress: the folders open from the work dir down to
/// where the walk is.
struct Walk {
    frames: Vec<Frame>,
    changed: u64,
    stats: ScanStats,
    started: SystemTime,
    links: Links,
}

/// Files with more than one link, which the watcher must know about: a
/// write through one link raises an event in that link's folder only.
#[derive(Debug, Default)]
pub(super) struct Links {
    /// The folders listed that hold one.
    pub(super) folders: HashSet<String>,
    /// Whether one is new to its name since the last scan.
    pub(super) new: bool,
}

impl Walk {
    /// Adds what the walk yielded (below the work dir).
    fn add(&mut self, snap: &mut Snapshotter, entry: &ignore::DirEntry) -> Result<(), StateError> {
        let depth = entry.depth();
        self.close_to(snap, depth)?;
        let (Some(kind), Some(name)) = (entry.file_type(), entry.file_name().to_str()) else {
            return Ok(());
        };
        let name = name.to_owned();
        let path = entry.path();
        let Some(parent) = self.frames.last_mut() else {
            return Ok(());
        };
        if kind.is_dir() {
            // Gone since the listing: an empty folder, dropped when closed
            // unless something shows up in it after all.
            let mode = entry
                .metadata()
                .map_or(0o700, |meta| meta.permissions().mode() & 0o7777);
            let last = take_last_dir(parent, &name).map(|(_, folder)| folder);
            self.frames.push(Frame {
                depth,
                name,
                mode,
                entries: Vec::new(),
                last,
            });
            return Ok(());
        }
        if kind.is_symlink() {
            // Gone or replaced since the listing: not part of this state.
            if let Ok(target) = std::fs::read_link(path) {
                parent.entries.push(Scanned {
                    name,
                    kind: Kind::Link {
                        target: target.to_string_lossy().into_owned(),
                    },
                });
            }
            return Ok(());
        }
        if !kind.is_file() {
            return Ok(());
        }
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return Ok(());
        };
        if meta.len() > snap.max_file_bytes {
            self.stats.skipped_large += 1;
            return Ok(());
        }
        let stamp = Stamp {
            size: meta.len(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            inode: meta.ino(),
            mode: meta.permissions().mode() & 0o7777,
        };
        let racy = meta
            .modified()
            .ok()
            .and_then(|modified| self.started.duration_since(modified).ok())
            .is_none_or(|age| age < RACY_WINDOW);
        if meta.nlink() > 1 {
            self.linked(&name, stamp.inode);
        }
        let Some(parent) = self.frames.last_mut() else {
            return Ok(());
        };
        let known = match parent.last.as_mut().and_then(|last| last.find(&name)) {
            Some(Scanned {
                kind: Kind::File { hash, stamp: known },
                ..
            }) if *known == stamp && !racy => Some(hash.clone()),
            _ => None,
        };
        let hash = match known {
            Some(hash) => hash,
            None => match snap.store_file(path)? {
                Stored::Hash(hash, stored) => {
                    self.stats.hashed += 1;
                    self.stats.stored_bytes += stored;
                    hash
                }
                Stored::TooLarge => {
                    self.stats.skipped_large += 1;
                    return Ok(());
                }
                Stored::Gone => return Ok(()),
            },
        };
        self.stats.files += 1;
        parent.entries.push(Scanned {
            name,
            kind: Kind::File { hash, stamp },
        });
        Ok(())
    }

    /// Notes the file `name` of the folder being listed, which has more
    /// than one link: whether the last scan saw it there (the same file),
    /// and its folder.
    fn linked(&mut self, name: &str, inode: u64) {
        let Some(parent) = self.frames.last_mut() else {
            return;
        };
        let last = parent.last.as_mut().and_then(|last| last.find(name));
        self.links.new |= !matches!(last, Some(Scanned {
            kind: Kind::File { stamp, .. },
            ..
        }) if stamp.inode == inode);
        let folder = self.frames.iter().skip(1).map(|frame| frame.name.as_str());
        self.links
            .folders
            .insert(folder.collect::<Vec<_>>().join("/"));
    }

    /// Adds the folders a focused walk passed by, as the last scan saw
    /// them.
    fn take_passed(&mut self, snap: &mut Snapshotter, passed: &Passed) -> Result<(), StateError> {
        let list = match passed.lock() {
            Ok(mut list) => std::mem::take(&mut *list),
            Err(_) => return Err(StateError::Invalid("the scan's walk panicked".into())),
        };
        for (depth, name) in list {
            self.close_to(snap, depth)?;
            let Some(parent) = self.frames.last_mut() else {
                continue;
            };
            // The walk passes by only folders the last scan saw.
            let Some((mode, folder)) = take_last_dir(parent, &name) else {
                return Err(StateError::Invalid(format!(
                    "the scan passed by {name:?}, which it did not know"
                )));
            };
            parent.entries.push(Scanned {
                name,
                kind: Kind::Dir { mode, folder },
            });
        }
        Ok(())
    }

    /// Closes the folders at `depth` and below: their entries are all in.
    fn close_to(&mut self, snap: &mut Snapshotter, depth: usize) -> Result<(), StateError> {
        while self.frames.len() > 1 && self.frames.last().is_some_and(|frame| frame.depth >= depth)
        {
            let Some(frame) = self.frames.pop() else {
                break;
            };
            let (folder, name, mode) = self.finish(snap, frame)?;
            if let Some(parent) = self.frames.last_mut() {
                parent.entries.push(Scanned {
                    name,
                    kind: Kind::Dir { mode, folder },
                });
            }
        }
        Ok(())
    }

    /// A folder whose entries are all in: counted against the last scan,
    /// and stored unless it is the same.
    fn finish(
        &mut self,
        snap: &mut Snapshotter,
        frame: Frame,
    ) -> Result<(Folder, String, u32), StateError> {
        let Frame {
            mut entries,
            last,
            name,
            mode,
            ..
        } = frame;
        entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let (changed, same) = match &last {
            Some(last) => compare(&entries, &last.entries),
            None => (entries.len() as u64, false),
        };
        self.changed += changed;
        let hash = match last {
            Some(last) if same => last.hash,
            _ => {
                let json = tree::folder_json(
                    entries
                        .iter()
                        .map(|entry| (entry.name.as_str(), entry.node())),
                )?;
                let hash = super::hash_bytes(&json);
                snap.store_bytes(&hash, &json)?;
                hash
            }
        };
        Ok((Folder { entries, hash }, name, mode))
    }
}

/// The paths that differ between a folder's entries now and as the last
/// scan saw them (what is in a folder that came or went included; what
/// is in one that stayed is counted when that one is finished), and
/// whether the folder's object is the same.
fn compare(now: &[Scanned], last: &[Scanned]) -> (u64, bool) {
    let same = now.len() == last.len()
        && now
            .iter()
            .zip(last)
            .all(|(new, old)| new.name == old.name && new.node() == old.node());
    let gone = |scanned: &Scanned| match &scanned.kind {
        Kind::Dir { folder, .. } => 1 + folder.count(),
        Kind::File { .. } | Kind::Link { .. } => 1,
    };
    let mut changed = 0;
    let (mut now, mut last) = (now.iter().peekable(), last.iter().peekable());
    loop {
        match (now.peek(), last.peek()) {
            (None, None) => break,
            (Some(_), None) => {
                changed += 1;
                now.next();
            }
            (None, Some(old)) => {
                changed += gone(old);
                last.next();
            }
            (Some(new), Some(old)) => match new.name.cmp(&old.name) {
                std::cmp::Ordering::Less => {
                    changed += 1;
                    now.next();
                }
                std::cmp::Ordering::Greater => {
                    changed += gone(old);
                    last.next();
                }
                std::cmp::Ordering::Equal => {
                    changed += match (&new.kind, &old.kind) {
                        (Kind::Dir { mode: a, .. }, Kind::Dir { mode: b, .. }) => u64::from(a != b),
                        (_, Kind::Dir { .. }) => gone(old),
                        _ => u64::from(new.node() != old.node()),
                    };
                    now.next();
                    last.next();
                }
            },
        }
    }
    (changed, same)
}

#[cfg(test)]
mod tests;

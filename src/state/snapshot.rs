//! Captures the work dir into a content-addressed store and puts it back.
//!
//! What is captured: every regular file, symlink and folder the walk
//! reaches, with its mode, honouring `.gitignore`/`.ignore` (what git
//! would not keep is build output and dependencies: big, and rebuilt by
//! the tools anyway), leaving out `.git` (the repository is the user's own
//! history, not the agent's to rewind) and files over a size cap (a
//! checkpoint must not copy a database dump on every iteration). A file whose size, mtime,
//! inode and mode are unchanged since the last scan is not read again, so
//! a scan costs a `stat` per file and folder plus the bytes that changed
//! (see [`scan`]; a focused scan, only the folders it is told, which after
//! a command are those where the kernel saw a change: [`watch`]). A
//! folder's mtime is not kept: it changes whenever a file in it comes or
//! goes, which the files already say.
//!
//! Checkpoints store the tree one object per folder ([`tree`]); restoring
//! and comparing work on the flat form, [`Tree`].

mod scan;
pub mod tree;
mod watch;

pub use scan::{Focus, Outcome};

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use serde::{Deserialize, Serialize};
use sha2::Digest;

use super::StateError;
use super::confined::Confined;
use super::pack::Pack;

/// Files larger than this are not captured (and so not restored).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Entry {
    File { hash: String, mode: u32, size: u64 },
    Link { target: String },
    Dir { mode: u32 },
}

/// The work dir as a checkpoint keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// Relative path (with `/`) to entry, sorted, so a folder comes
    /// before what it holds.
    pub entries: BTreeMap<String, Entry>,
    /// Whether the folders are among the entries. Checkpoints before
    /// format 4 kept files and links only; restoring one of those leaves
    /// the folders alone as it did then (but for making the ones a file
    /// needs and removing the ones a removed file leaves empty).
    pub folders: bool,
}

impl Tree {
    /// A tree of the current format.
    pub fn new() -> Self {
        Tree {
            entries: BTreeMap::new(),
            folders: true,
        }
    }
}

impl Default for Tree {
    fn default() -> Self {
        Tree::new()
    }
}

/// What [`Snapshotter::store_file`] made of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stored {
    /// Its hash, and the bytes written to the store (0 when it had them).
    Hash(String, u64),
    /// Over the size cap when read, whatever the scan's `stat` said.
    TooLarge,
    /// No longer a regular file at that path.
    Gone,
}

/// Scans and restores one work dir against one object store.
pub struct Snapshotter {
    work_dir: PathBuf,
    objects: PathBuf,
    max_file_bytes: u64,
    /// The work dir as the last scan saw it, `None` before the first
    /// (and after one that failed halfway).
    last: Option<scan::Folder>,
    pack: Pack,
    watch: watch::Watcher,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub files: usize,
    /// Files read and hashed (new or changed since the last scan).
    pub hashed: usize,
    /// Bytes written to the store (content it did not have yet).
    pub stored_bytes: u64,
    /// Files over the size cap, left out.
    pub skipped_large: usize,
}

/// What restoring a tree changes in the work dir, as paths relative to
/// it; a folder's ends with `/`. Deletions are in the order they are made,
/// what a folder holds before the folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub created: Vec<String>,
    pub modified: Vec<String>,
    pub deleted: Vec<String>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.created.is_empty() && self.modified.is_empty() && self.deleted.is_empty()
    }

    pub fn count(&self) -> usize {
        self.created.len() + self.modified.len() + self.deleted.len()
    }
}

impl Snapshotter {
    pub fn new(work_dir: &Path, objects: &Path, max_file_bytes: u64) -> Self {
        Snapshotter {
            work_dir: work_dir.to_path_buf(),
            objects: objects.to_path_buf(),
            max_file_bytes,
            last: None,
            pack: Pack::new(&objects.join("pack")),
            watch: watch::Watcher::new(),
        }
    }

    /// Whether the folders are watched for changes (on unless turned off):
    /// off, a scan after a command (see [`Self::scan_changed`]) scans
    /// everything, as it did before the watcher.
    pub fn set_watching(&mut self, on: bool) {
        self.watch.set_on(on);
    }

    /// The work dir as a tree, its new content stored.
    pub fn scan(&mut self) -> Result<(Tree, ScanStats), StateError> {
        let outcome = self.scan_tree(None)?;
        Ok((self.last_tree(), outcome.stats))
    }

    /// Whether the scanner remembers a scan of the work dir.
    pub fn has_scanned(&self) -> bool {
        self.last.is_some()
    }

    /// Forgets the last scan, as one that fails halfway does.
    #[cfg(test)]
    pub(crate) fn forget_last_scan(&mut self) {
        self.last = None;
    }

    /// The flat form of the last scan's tree (empty before the first).
    pub fn last_tree(&self) -> Tree {
        self.last
            .as_ref()
            .map_or_else(Tree::new, scan::Folder::flatten)
    }

    /// Reads a file and stores its content under its hash. The file is
    /// read as it is now, not as the scan's `stat` saw it: it may have
    /// grown past the cap since, or been replaced by a link (to
    /// `/dev/zero`, say) or a FIFO. So the read stops one byte past the
    /// cap, and only a regular file is read, never through a link.
    fn store_file(&mut self, path: &Path) -> Result<Stored, StateError> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let file = match rustix::fs::open(path, flags, Mode::empty()) {
            Ok(fd) => std::fs::File::from(fd),
            // Removed, or a link or a socket put in its place, since the
            // scan saw it: not part of this state.
            Err(Errno::NOENT | Errno::LOOP | Errno::NOTDIR | Errno::NXIO) => {
                return Ok(Stored::Gone);
            }
            Err(err) => return Err(StateError::io(path, err.into())),
        };
        let meta = file.metadata().map_err(|err| StateError::io(path, err))?;
        if !meta.is_file() {
            return Ok(Stored::Gone);
        }
        let mut bytes = Vec::new();
        file.take(self.max_file_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|err| StateError::io(path, err))?;
        if bytes.len() as u64 > self.max_file_bytes {
            return Ok(Stored::TooLarge);
        }
        let hash = hash_bytes(&bytes);
        let stored = self.store_bytes(&hash, &bytes)?;
        Ok(Stored::Hash(hash, stored))
    }

    /// Stores `bytes` under `hash` unless the pack has it already. (An
    /// object a format 2 session kept as a file of its own is stored
    /// again: a `stat` per new object to avoid that is not worth it.)
    pub fn store_bytes(&mut self, hash: &str, bytes: &[u8]) -> Result<u64, StateError> {
        check_hash(hash)?;
        if self.pack.contains(hash)? {
            return Ok(0);
        }
        // No fsync: see `super::durable`.
        self.pack.append(hash, bytes)?;
        Ok(bytes.len() as u64)
    }

    /// The object stored under `hash`, checked against it. Sessions of
    /// format 2 kept one file per object; those are still read.
    pub fn load_bytes(&mut self, hash: &str) -> Result<Vec<u8>, StateError> {
        check_hash(hash)?;
        let bytes = match self.pack.read(hash)? {
            Some(bytes) => bytes,
            None => {
                let path = self.object_path(hash);
                std::fs::read(&path).map_err(|err| StateError::io(&path, err))?
            }
        };
        if hash_bytes(&bytes) != hash {
            return Err(StateError::Invalid(format!(
                "the stored object {hash} is damaged"
            )));
        }
        Ok(bytes)
    }

    /// Where format 2 kept the object `hash`, which [`check_hash`] let
    /// through: two hex digits, then the other 62.
    fn object_path(&self, hash: &str) -> PathBuf {
        let (dir, rest) = hash.split_at(hash.len().min(2));
        self.objects.join(dir).join(rest)
    }

    /// What [`restore`](Self::restore) would change, without changing it.
    pub fn diff(&mut self, target: &Tree) -> Result<Changes, StateError> {
        let (current, _) = self.scan()?;
        Ok(compare(&current, target))
    }

    /// Puts the work dir back to `target`: changed files rewritten,
    /// files that are not in it removed, missing ones recreated, modes
    /// and links as they were; the same for folders (of a tree that
    /// records them), a folder made since removed once what it held is.
    /// Ignored and oversized files are left alone, and so is a folder
    /// that still holds some. Nothing is written through a link: see
    /// [`super::confined`].
    pub fn restore(&mut self, target: &Tree) -> Result<Changes, StateError> {
        let (current, _) = self.scan()?;
        let changes = compare(&current, target);
        if changes.is_empty() {
            return Ok(changes);
        }
        let mut work = Confined::open(&self.work_dir)?;
        let applied = self.apply(&mut work, &current, target);
        // Also after a step failed: the folders opened up for the restore
        // get their modes back.
        let finished = work.finish();
        applied.and(finished)?;
        if let Ok(root) = std::fs::File::open(&self.work_dir) {
            let _ = rustix::fs::syncfs(&root);
        }
        Ok(changes)
    }

    /// The changes of [`restore`](Self::restore), made in `work`. The
    /// last scan's stamps may stay: a file written here is a new file (a
    /// temp file renamed over the name), whose inode and mtime no scan
    /// saw, so the next scan reads it again.
    fn apply(
        &mut self,
        work: &mut Confined,
        current: &Tree,
        target: &Tree,
    ) -> Result<(), StateError> {
        // What a folder holds sorts after it: in reverse, it goes first.
        for (path, entry) in current.entries.iter().rev() {
            if target.entries.contains_key(path) {
                continue;
            }
            match entry {
                Entry::Dir { .. } if target.folders => {
                    work.remove_folder(path)?;
                }
                Entry::Dir { .. } => {}
                Entry::File { .. } | Entry::Link { .. } => {
                    work.remove_file(path)?;
                    if !target.folders {
                        remove_empty_parents(work, path)?;
                    }
                }
            }
        }
        // A folder before what it holds.
        for (path, entry) in &target.entries {
            if current.entries.get(path) == Some(entry) {
                continue;
            }
            match entry {
                Entry::Dir { mode } => work.put_folder(path, *mode)?,
                Entry::Link { target } => work.put_link(path, target)?,
                Entry::File { hash, mode, .. } => {
                    let bytes = self.load_bytes(hash)?;
                    // No fsync per file: the file system is synced once
                    // at the end.
                    work.put_file(path, &bytes, *mode)?;
                }
            }
        }
        Ok(())
    }
}

/// What differs between two trees, seen from `current` going to
/// `target`. Folders count only when both trees record them.
pub fn compare(current: &Tree, target: &Tree) -> Changes {
    let folders = current.folders && target.folders;
    let shown = |path: &str, entry: &Entry| -> Option<String> {
        match entry {
            Entry::Dir { .. } if !folders => None,
            Entry::Dir { .. } => Some(format!("{path}/")),
            Entry::File { .. } | Entry::Link { .. } => Some(path.to_owned()),
        }
    };
    let mut changes = Changes::default();
    for (path, entry) in &target.entries {
        let list = match current.entries.get(path) {
            None => &mut changes.created,
            Some(existing) if existing != entry => &mut changes.modified,
            Some(_) => continue,
        };
        list.extend(shown(path, entry));
    }
    for (path, entry) in current.entries.iter().rev() {
        if !target.entries.contains_key(path) {
            changes.deleted.extend(shown(path, entry));
        }
    }
    changes
}

/// A hash names an object only if it is one: 64 lowercase hex digits, as
/// [`hash_bytes`] writes them. One read from a manifest or a stored index
/// that is not (a path such as `../../dev/zero`, text that is not ASCII)
/// comes from a damaged or forged checkpoint, and is used for nothing:
/// not to look in the pack, not as a path.
fn check_hash(hash: &str) -> Result<(), StateError> {
    if hash.len() == 64
        && hash
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Ok(());
    }
    const SHOWN: usize = 80;
    let shown: String = hash.chars().take(SHOWN).collect();
    let more = if shown.len() < hash.len() { "..." } else { "" };
    Err(StateError::Invalid(format!(
        "a damaged checkpoint: {shown:?}{more} is not an object hash (64 lowercase hex digits)"
    )))
}

pub fn hash_bytes(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = sha2::Sha256::digest(bytes);
    let mut text = String::with_capacity(digest.len() * 2);
    for byte in digest {
        text.push(char::from(HEX[usize::from(byte >> 4)]));
        text.push(char::from(HEX[usize::from(byte & 0xf)]));
    }
    text
}

fn relative(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let text = relative.to_str()?;
    (!text.is_empty()).then(|| text.to_owned())
}

/// Folders emptied by a deletion go too, up to the work dir (for trees
/// that do not record folders).
fn remove_empty_parents(work: &mut Confined, file: &str) -> Result<(), StateError> {
    let mut path = file;
    while let Some((parent, _)) = path.rsplit_once('/') {
        if !work.remove_folder(parent)? {
            break;
        }
        path = parent;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::confined::tests::mode;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn scan_restore_roundtrip_and_unchanged_files_are_not_reread() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(work.join("src")).unwrap();
        std::fs::write(work.join("src/a.txt"), "a").unwrap();
        std::fs::write(work.join("keep.sh"), "#!/bin/sh").unwrap();
        std::fs::set_permissions(work.join("keep.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::fs::write(work.join(".gitignore"), "build/\n").unwrap();
        std::fs::create_dir_all(work.join("build")).unwrap();
        std::fs::write(work.join("build/out.o"), "obj").unwrap();
        std::os::unix::fs::symlink("src/a.txt", work.join("link")).unwrap();
        let mut snap = Snapshotter::new(&work, &root.path().join("objects"), 1024);
        let (tree, stats) = snap.scan().unwrap();
        assert_eq!(
            tree.entries.keys().collect::<Vec<_>>(),
            [".gitignore", "keep.sh", "link", "src", "src/a.txt"]
        );
        assert_eq!(stats.hashed, 3);

        std::fs::write(work.join("src/a.txt"), "changed").unwrap();
        std::fs::write(work.join("new.txt"), "new").unwrap();
        std::fs::remove_file(work.join("keep.sh")).unwrap();
        std::fs::create_dir_all(work.join("fresh/dir")).unwrap();
        std::fs::write(work.join("fresh/dir/x"), "x").unwrap();
        let changes = snap.restore(&tree).unwrap();
        assert_eq!(changes.created, ["keep.sh"]);
        assert_eq!(changes.modified, ["src/a.txt"]);
        assert_eq!(
            changes.deleted,
            ["new.txt", "fresh/dir/x", "fresh/dir/", "fresh/"]
        );
        assert_eq!(
            std::fs::read_to_string(work.join("src/a.txt")).unwrap(),
            "a"
        );
        assert!(!work.join("new.txt").exists() && !work.join("fresh").exists());
        let mode = std::fs::metadata(work.join("keep.sh"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o755);
        assert_eq!(
            std::fs::read_to_string(work.join("build/out.o")).unwrap(),
            "obj"
        );
        assert!(snap.diff(&tree).unwrap().is_empty());
    }

    /// A work dir with an empty folder, a closed one and a nested one.
    fn folders_fixture() -> (tempfile::TempDir, PathBuf, Snapshotter) {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(work.join("empty")).unwrap();
        std::fs::create_dir_all(work.join("nested/inner")).unwrap();
        std::fs::write(work.join("nested/inner/f"), "f").unwrap();
        std::fs::create_dir_all(work.join("closed")).unwrap();
        std::fs::write(work.join("closed/c"), "c").unwrap();
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o500))
            .unwrap();
        let snap = Snapshotter::new(&work, &root.path().join("objects"), 1024);
        (root, work, snap)
    }

    #[test]
    fn folders_come_back_with_their_modes_and_new_ones_go() {
        let (_root, work, mut snap) = folders_fixture();
        let (tree, _) = snap.scan().unwrap();
        assert_eq!(tree.entries["closed"], Entry::Dir { mode: 0o500 });

        std::fs::remove_dir(work.join("empty")).unwrap();
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::fs::write(work.join("closed/later"), "l").unwrap();
        std::fs::remove_dir_all(work.join("nested/inner")).unwrap();
        std::fs::create_dir_all(work.join("made/deeper")).unwrap();
        let (now, _) = snap.scan().unwrap();
        let changes = compare(&now, &tree);
        assert_eq!(
            changes.created,
            ["empty/", "nested/inner/", "nested/inner/f"]
        );
        assert_eq!(changes.modified, ["closed/"]);
        assert_eq!(changes.deleted, ["made/deeper/", "made/", "closed/later"]);

        assert_eq!(snap.restore(&tree).unwrap(), changes);
        assert!(work.join("empty").is_dir() && !work.join("made").exists());
        assert_eq!(mode(&work.join("closed")), 0o500);
        assert!(!work.join("closed/later").exists());
        assert!(snap.diff(&tree).unwrap().is_empty());
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o700))
            .unwrap();
    }

    #[test]
    fn a_tree_without_folders_leaves_them_alone() {
        let (_root, work, mut snap) = folders_fixture();
        let (mut tree, _) = snap.scan().unwrap();
        // What formats 2 and 3 stored.
        tree.entries
            .retain(|_, entry| !matches!(entry, Entry::Dir { .. }));
        tree.folders = false;
        std::fs::create_dir_all(work.join("made")).unwrap();
        std::fs::write(work.join("made/new"), "n").unwrap();
        std::fs::create_dir_all(work.join("also-made")).unwrap();
        std::fs::remove_dir_all(work.join("nested")).unwrap();
        let changes = snap.restore(&tree).unwrap();
        assert_eq!(changes.created, ["nested/inner/f"]);
        assert_eq!(changes.deleted, ["made/new"]);
        // As before: a folder a removed file leaves empty goes, others stay.
        assert!(!work.join("made").exists());
        assert!(work.join("also-made").is_dir() && work.join("empty").is_dir());
        assert_eq!(read(&work.join("nested/inner/f")), "f");
        assert_eq!(mode(&work.join("closed")), 0o500);
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o700))
            .unwrap();
    }

    #[test]
    fn names_as_long_as_the_file_system_allows_are_restored() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(work.join("closed")).unwrap();
        let long = "n".repeat(250);
        let link = "l".repeat(255);
        std::fs::write(work.join(&long), "old").unwrap();
        std::fs::write(work.join("closed").join(&long), "old").unwrap();
        std::os::unix::fs::symlink(&long, work.join(&link)).unwrap();
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o500))
            .unwrap();
        let mut snap = Snapshotter::new(&work, &root.path().join("objects"), 1024);
        let (tree, _) = snap.scan().unwrap();
        std::fs::write(work.join(&long), "new").unwrap();
        std::fs::remove_file(work.join(&link)).unwrap();
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o700))
            .unwrap();
        std::fs::remove_file(work.join("closed").join(&long)).unwrap();
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o500))
            .unwrap();
        let changes = snap.restore(&tree).unwrap();
        assert_eq!(changes.count(), 3, "{changes:?}");
        assert_eq!(read(&work.join(&long)), "old");
        assert_eq!(read(&work.join("closed").join(&long)), "old");
        assert_eq!(
            std::fs::read_link(work.join(&link)).unwrap(),
            Path::new(&long)
        );
        assert_eq!(mode(&work.join("closed")), 0o500);
        assert!(snap.diff(&tree).unwrap().is_empty());
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o700))
            .unwrap();
    }

    #[test]
    fn a_restore_that_fails_halfway_closes_the_folders_it_opened() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(work.join("closed")).unwrap();
        std::fs::write(work.join("closed/a"), "a").unwrap();
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o500))
            .unwrap();
        let mut snap = Snapshotter::new(&work, &root.path().join("objects"), 1024);
        let (mut tree, _) = snap.scan().unwrap();
        // An object the store does not have: the restore stops there,
        // after it opened `closed` to remove what was made in it since.
        tree.entries.insert(
            "closed/a".to_owned(),
            Entry::File {
                hash: hash_bytes(b"never stored"),
                mode: 0o644,
                size: 12,
            },
        );
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o700))
            .unwrap();
        std::fs::write(work.join("closed/since"), "s").unwrap();
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o500))
            .unwrap();
        assert!(snap.restore(&tree).is_err());
        assert_eq!(mode(&work.join("closed")), 0o500);
        std::fs::set_permissions(work.join("closed"), std::fs::Permissions::from_mode(0o700))
            .unwrap();
    }

    #[test]
    fn a_file_over_the_cap_when_read_is_left_out_whatever_its_stat_said() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let mut snap = Snapshotter::new(&work, &root.path().join("objects"), 1024);
        // The scan saw it under the cap; it grew before it was read.
        let grown = work.join("grown");
        std::fs::write(&grown, vec![b'x'; 4096]).unwrap();
        let _ = snap.store_file(&grown);
        assert_eq!(snap.pack.count().unwrap(), 0, "nothing over the cap stored");
        assert_eq!(snap.store_file(&grown).unwrap(), Stored::TooLarge);
        // Replaced by something that never ends, or never ends a read: not
        // a file any more (and the read does not wait for a writer).
        std::fs::remove_file(&grown).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &grown).unwrap();
        assert_eq!(snap.store_file(&grown).unwrap(), Stored::Gone);
        std::fs::remove_file(&grown).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &grown,
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert_eq!(snap.store_file(&grown).unwrap(), Stored::Gone);
        assert_eq!(snap.pack.count().unwrap(), 0);
        // Under the cap, it is read and stored.
        std::fs::remove_file(&grown).unwrap();
        std::fs::write(&grown, vec![b'x'; 1024]).unwrap();
        let hash = hash_bytes(&[b'x'; 1024]);
        assert_eq!(snap.store_file(&grown).unwrap(), Stored::Hash(hash, 1024));
    }

    #[test]
    fn a_hash_that_is_not_one_is_a_damaged_checkpoint_never_a_path() {
        let root = tempfile::tempdir().unwrap();
        let objects = root.path().join("state/objects");
        std::fs::create_dir_all(&objects).unwrap();
        std::fs::write(root.path().join("state/outside"), "outside").unwrap();
        let mut snap = Snapshotter::new(root.path(), &objects, 1024);
        let stored = hash_bytes(b"stored");
        snap.store_bytes(&stored, b"stored").unwrap();
        let hashes = [
            // Not on a character boundary where a loose object's folder
            // name ends.
            format!("a\u{e9}{}", "0".repeat(61)),
            "../outside".to_owned(),
            format!("../{}", "0".repeat(61)),
            stored.to_uppercase(),
            String::new(),
        ];
        for hash in &hashes {
            match snap.load_bytes(hash) {
                Err(StateError::Invalid(message)) => assert!(
                    message.contains("damaged checkpoint")
                        && message.contains(&format!("{hash:?}")),
                    "{hash:?}: {message}"
                ),
                other => panic!("{hash:?}: {other:?}"),
            }
        }
        assert_eq!(snap.load_bytes(&stored).unwrap(), b"stored");
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap()
    }
}

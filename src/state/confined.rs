//! Changes to the work dir made through folders opened one name at a time,
//! never following a symlink.
//!
//! A command may leave a link where a folder was (`rm -rf sub && ln -s
//! /outside sub`), and may hide it from the scan (an ignore rule that
//! matches links but not folders). A rollback that wrote `sub/file` by its
//! path would then write into `/outside`. Here every folder on the way is
//! opened relative to its parent with `O_NOFOLLOW`, a link or file found
//! where a folder belongs is replaced by a real folder, and an entry is
//! created beside its name and renamed over it, which replaces a link
//! instead of writing through it. Because each step starts from a folder
//! already open, a process still running cannot redirect the restore by
//! swapping a folder for a link between a check and a write.
//!
//! A folder whose mode keeps its owner out (0555, 0000) is opened up while
//! the restore works in it and given its mode back at the end. A mode is
//! changed through a descriptor of the folder checked, never by its name,
//! so a link swapped in its place cannot pass the change on to its target.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::io::Write;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::StateError;

/// What the restore needs in a folder it works in: read, write, search.
const OWNER_RWX: u32 = 0o700;

/// A folder opened only to name things in it: no read permission needed.
const FOLDER: OFlags = OFlags::PATH
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

pub struct Confined {
    root: PathBuf,
    root_fd: OwnedFd,
    /// The folder used last: consecutive entries of a sorted tree mostly
    /// share their folder, so most operations open nothing.
    cached: Option<(String, OwnedFd)>,
    /// Folder modes to set at the end: those the tree records for the
    /// folders made or changed, and the old modes of folders opened up.
    modes: BTreeMap<String, u32>,
    /// Called just before a folder's mode is changed, with its path: the
    /// tests swap the folder for a link there, as a racing process could.
    #[cfg(test)]
    before_chmod: Option<Hook>,
}

/// See `Confined::before_chmod`.
#[cfg(test)]
type Hook = Box<dyn FnMut(&str)>;

impl Confined {
    /// The work dir, made if it is missing (a rollback into an emptied
    /// sandbox puts everything back).
    pub fn open(root: &Path) -> Result<Self, StateError> {
        std::fs::create_dir_all(root).map_err(|err| StateError::io(root, err))?;
        let root_fd = rustix::fs::open(
            root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|err| StateError::io(root, err.into()))?;
        Ok(Confined {
            root: root.to_path_buf(),
            root_fd,
            cached: None,
            modes: BTreeMap::new(),
            #[cfg(test)]
            before_chmod: None,
        })
    }

    /// Writes a file (through a temp file and a rename, so a link or
    /// hard link in its place is replaced, not written through).
    pub fn put_file(&mut self, relative: &str, bytes: &[u8], mode: u32) -> Result<(), StateError> {
        let (folder, name) = split(relative)?;
        let parent = self.make_folder(folder)?;
        let result = (|| {
            clear_folder(&parent, &name)?;
            let temp = temp_name();
            let fd = rustix::fs::openat(
                &parent,
                temp.as_c_str(),
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o600),
            )?;
            let mut file = std::fs::File::from(fd);
            let written = file
                .write_all(bytes)
                .map_err(|err| Errno::from_io_error(&err).unwrap_or(Errno::IO))
                .and_then(|()| rustix::fs::fchmod(&file, Mode::from_raw_mode(mode)));
            drop(file);
            let renamed =
                written.and_then(|()| rustix::fs::renameat(&parent, &temp, &parent, &name));
            if renamed.is_err() {
                let _ = rustix::fs::unlinkat(&parent, &temp, AtFlags::empty());
            }
            renamed
        })();
        self.keep(folder, parent);
        result.map_err(|err| self.error(relative, err))
    }

    pub fn put_link(&mut self, relative: &str, target: &str) -> Result<(), StateError> {
        let (folder, name) = split(relative)?;
        let parent = self.make_folder(folder)?;
        let result = (|| {
            clear_folder(&parent, &name)?;
            let temp = temp_name();
            rustix::fs::symlinkat(target, &parent, &temp)?;
            let renamed = rustix::fs::renameat(&parent, &temp, &parent, &name);
            if renamed.is_err() {
                let _ = rustix::fs::unlinkat(&parent, &temp, AtFlags::empty());
            }
            renamed
        })();
        self.keep(folder, parent);
        result.map_err(|err| self.error(relative, err))
    }

    /// Makes `relative` a real folder (replacing a file or link there);
    /// its mode is set by [`finish`](Self::finish), once nothing more is
    /// written inside.
    pub fn put_folder(&mut self, relative: &str, mode: u32) -> Result<(), StateError> {
        let (folder, name) = split(relative)?;
        let parent = self.make_folder(folder)?;
        let result = make_step(&parent, &name);
        self.keep(folder, parent);
        result.map_err(|err| self.error(relative, err))?;
        self.modes.insert(relative.to_owned(), mode);
        Ok(())
    }

    /// Removes a file or link. Nothing to do when its folder is gone or
    /// is not a folder any more (then nothing of ours is behind it).
    pub fn remove_file(&mut self, relative: &str) -> Result<(), StateError> {
        let (folder, name) = split(relative)?;
        let Some(parent) = self.find_folder(folder)? else {
            return Ok(());
        };
        let result = match rustix::fs::unlinkat(&parent, &name, AtFlags::empty()) {
            Err(Errno::NOENT) => Ok(()),
            other => other,
        };
        self.keep(folder, parent);
        result.map_err(|err| self.error(relative, err))
    }

    /// Removes an empty folder; says whether it went. One that still
    /// holds something (ignored or oversized files, which a restore
    /// leaves alone) stays.
    pub fn remove_folder(&mut self, relative: &str) -> Result<bool, StateError> {
        let (folder, name) = split(relative)?;
        let Some(parent) = self.find_folder(folder)? else {
            return Ok(true);
        };
        let result = match rustix::fs::unlinkat(&parent, &name, AtFlags::REMOVEDIR) {
            Ok(()) | Err(Errno::NOENT) => Ok(true),
            Err(Errno::NOTEMPTY | Errno::EXIST) => Ok(false),
            Err(err) => Err(err),
        };
        self.keep(folder, parent);
        if matches!(result, Ok(true)) {
            self.modes.remove(relative);
        }
        result.map_err(|err| self.error(relative, err))
    }

    /// Sets the folder modes: deepest first, so a folder that keeps its
    /// owner out is closed only after everything inside it is done.
    pub fn finish(mut self) -> Result<(), StateError> {
        let modes = std::mem::take(&mut self.modes);
        for (relative, mode) in modes.iter().rev() {
            let (folder, name) = split(relative)?;
            let Some(parent) = self.find_folder(folder)? else {
                continue;
            };
            // Opened, then changed through the descriptor: a folder a
            // racing process swaps for a link is never looked up again.
            let result = match open_step(parent.as_fd(), &name) {
                Ok(fd) => match rustix::fs::fstat(&fd) {
                    Ok(stat) if stat.st_mode & 0o7777 != *mode => {
                        self.before_chmod(relative);
                        chmod_folder(fd.as_fd(), *mode)
                    }
                    Ok(_) => Ok(()),
                    Err(err) => Err(err),
                },
                Err(Errno::NOENT | Errno::NOTDIR | Errno::LOOP) => Ok(()),
                Err(err) => Err(err),
            };
            self.keep(folder, parent);
            result.map_err(|err| self.error(relative, err))?;
        }
        Ok(())
    }

    /// The folder `relative` ("" for the work dir), each missing folder
    /// on the way made and each file or link on the way replaced.
    fn make_folder(&mut self, relative: &str) -> Result<OwnedFd, StateError> {
        self.open_folder(relative, true)?
            .ok_or_else(|| StateError::Invalid(format!("{relative}: not a folder")))
    }

    /// The folder `relative`, or `None` when something on the way is
    /// missing or not a folder.
    fn find_folder(&mut self, relative: &str) -> Result<Option<OwnedFd>, StateError> {
        self.open_folder(relative, false)
    }

    fn open_folder(&mut self, relative: &str, make: bool) -> Result<Option<OwnedFd>, StateError> {
        if let Some((path, fd)) = self.cached.take()
            && path == relative
        {
            return Ok(Some(fd));
        }
        let mut current = rustix::io::dup(&self.root_fd).map_err(|err| self.error("", err))?;
        if relative.is_empty() {
            return Ok(Some(current));
        }
        let mut so_far = String::with_capacity(relative.len());
        for part in relative.split('/') {
            check_name(relative, part)?;
            if !so_far.is_empty() {
                so_far.push('/');
            }
            so_far.push_str(part);
            let name = c_name(part)?;
            let opened = if make {
                make_step(&current, &name).and_then(|()| open_step(current.as_fd(), &name))
            } else {
                open_step(current.as_fd(), &name)
            };
            let next = match opened {
                Ok(fd) => fd,
                Err(Errno::NOENT | Errno::NOTDIR | Errno::LOOP) if !make => return Ok(None),
                Err(err) => return Err(self.error(&so_far, err)),
            };
            let mode = rustix::fs::fstat(&next)
                .map_err(|err| self.error(&so_far, err))?
                .st_mode
                & 0o7777;
            if mode & OWNER_RWX != OWNER_RWX {
                self.before_chmod(&so_far);
                chmod_folder(next.as_fd(), mode | OWNER_RWX)
                    .map_err(|err| self.error(&so_far, err))?;
                self.modes.entry(so_far.clone()).or_insert(mode);
            }
            current = next;
        }
        Ok(Some(current))
    }

    #[cfg(test)]
    fn before_chmod(&mut self, relative: &str) {
        if let Some(hook) = self.before_chmod.as_mut() {
            hook(relative);
        }
    }

    #[cfg(not(test))]
    fn before_chmod(&mut self, _relative: &str) {}

    fn keep(&mut self, relative: &str, fd: OwnedFd) {
        self.cached = Some((relative.to_owned(), fd));
    }

    fn error(&self, relative: &str, err: Errno) -> StateError {
        StateError::io(&self.root.join(relative), err.into())
    }
}

/// Opens the folder `name` in `dir`; a link there is not followed
/// (`O_PATH | O_NOFOLLOW` would open the link itself, hence the check).
fn open_step(dir: BorrowedFd<'_>, name: &CString) -> Result<OwnedFd, Errno> {
    let fd = rustix::fs::openat(dir, name.as_c_str(), FOLDER, Mode::empty())?;
    let stat = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
        return Err(Errno::NOTDIR);
    }
    Ok(fd)
}

/// Sets the mode of the folder open as `fd` (an `O_PATH` descriptor from
/// [`open_step`]) through that descriptor. `chmodat` would look its name
/// up again and follow a link a racing process put there since the check
/// (`rm -rf sub && ln -s /outside sub`), giving the mode to `/outside`.
///
/// `fchmod` refuses an `O_PATH` descriptor (EBADF), so the folder is
/// opened for reading through it (`.` of the folder itself, no name
/// looked up), which needs its owner to read and search it; for one that
/// keeps its owner out, `/proc/self/fd/N` names the descriptor's folder.
fn chmod_folder(fd: BorrowedFd<'_>, mode: u32) -> Result<(), Errno> {
    let mode = Mode::from_raw_mode(mode);
    match rustix::fs::fchmod(fd, mode) {
        Err(Errno::BADF) => {}
        done => return done,
    }
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let reopened = match rustix::fs::openat(fd, c".", flags, Mode::empty()) {
        Ok(folder) => return rustix::fs::fchmod(&folder, mode),
        Err(err) => err,
    };
    let by_descriptor = format!("/proc/self/fd/{}", fd.as_raw_fd());
    match rustix::fs::chmod(by_descriptor.as_str(), mode) {
        // No /proc: say why the folder could not be opened.
        Err(Errno::NOENT) => Err(reopened),
        other => other,
    }
}

/// Makes sure `name` in `dir` is a real folder.
fn make_step(dir: &OwnedFd, name: &CString) -> Result<(), Errno> {
    match rustix::fs::statat(dir, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::Directory => return Ok(()),
        Ok(_) => rustix::fs::unlinkat(dir, name.as_c_str(), AtFlags::empty())?,
        Err(Errno::NOENT) => {}
        Err(err) => return Err(err),
    }
    // As `mkdir` would make it; a folder the tree records gets its own
    // mode at the end, and one the umask keeps its owner out of is opened
    // up by `open_folder` like any other.
    rustix::fs::mkdirat(dir, name.as_c_str(), Mode::from_raw_mode(0o777))
}

/// A folder standing where a file or link goes is removed with what is
/// left in it (only what the scan does not see: ignored files).
fn clear_folder(dir: &OwnedFd, name: &CString) -> Result<(), Errno> {
    match rustix::fs::statat(dir, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::Directory => {
            remove_tree(dir.as_fd(), name)
        }
        Ok(_) | Err(Errno::NOENT) => Ok(()),
        Err(err) => Err(err),
    }
}

fn remove_tree(dir: BorrowedFd<'_>, name: &CString) -> Result<(), Errno> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = match rustix::fs::openat(dir, name.as_c_str(), flags, Mode::empty()) {
        // It goes anyway: let its owner in, through a descriptor of the
        // folder (see `chmod_folder`), and open that very folder.
        Err(Errno::ACCESS) => {
            let folder = open_step(dir, name)?;
            chmod_folder(folder.as_fd(), OWNER_RWX)?;
            rustix::fs::openat(&folder, c".", flags, Mode::empty())?
        }
        other => other?,
    };
    let mut children = Vec::new();
    let mut listing = rustix::fs::Dir::read_from(&fd)?;
    while let Some(entry) = listing.read() {
        let entry = entry?;
        let child = entry.file_name();
        if child.to_bytes() == b"." || child.to_bytes() == b".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => FileType::from_raw_mode(
                rustix::fs::statat(&fd, child, AtFlags::SYMLINK_NOFOLLOW)?.st_mode,
            ),
            kind => kind,
        };
        children.push((child.to_owned(), kind == FileType::Directory));
    }
    for (child, is_folder) in children {
        if is_folder {
            remove_tree(fd.as_fd(), &child)?;
        } else {
            rustix::fs::unlinkat(&fd, child.as_c_str(), AtFlags::empty())?;
        }
    }
    rustix::fs::unlinkat(dir, name.as_c_str(), AtFlags::REMOVEDIR)
}

/// The folder part and the last name of a tree path.
fn split(relative: &str) -> Result<(&str, CString), StateError> {
    relative
        .split('/')
        .try_for_each(|part| check_name(relative, part))?;
    let (folder, name) = relative.rsplit_once('/').unwrap_or(("", relative));
    Ok((folder, c_name(name)?))
}

/// A tree read from the store names paths inside the work dir; one that
/// climbs out of it is damaged (or forged), never followed.
fn check_name(relative: &str, name: &str) -> Result<(), StateError> {
    if name.is_empty() || name == "." || name == ".." {
        return Err(StateError::Invalid(format!(
            "the stored path {relative:?} leaves the work dir"
        )));
    }
    Ok(())
}

fn c_name(name: &str) -> Result<CString, StateError> {
    CString::new(name).map_err(|_| StateError::Invalid(format!("{name:?} holds a NUL byte")))
}

/// The name an entry is written under before it is renamed over its
/// own. Short whatever the entry's name: one built from it (`.NAME.tmp`)
/// is over `NAME_MAX` (255 bytes) for a name of 240 or so, and the
/// restore would fail there, halfway.
fn temp_name() -> CString {
    // Hex digits and ASCII: no NUL.
    CString::new(format!(".agent-restore-{:016x}", fastrand::u64(..))).unwrap_or_default()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// The permission bits of `path` itself (not of what a link names);
    /// the snapshot's tests use it too.
    pub(in crate::state) fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }

    #[test]
    fn links_in_the_way_are_replaced_never_followed() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        let outside = root.path().join("outside");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, work.join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.join("f"), work.join("f")).unwrap();
        std::fs::write(outside.join("f"), "outside").unwrap();
        let mut confined = Confined::open(&work).unwrap();
        confined.put_file("sub/deeper/file", b"in", 0o640).unwrap();
        confined.put_file("f", b"mine", 0o600).unwrap();
        confined.finish().unwrap();
        assert!(
            std::fs::symlink_metadata(work.join("sub"))
                .unwrap()
                .is_dir()
        );
        assert_eq!(std::fs::read(work.join("sub/deeper/file")).unwrap(), b"in");
        assert_eq!(mode(&work.join("sub/deeper/file")), 0o640);
        assert_eq!(std::fs::read(work.join("f")).unwrap(), b"mine");
        assert_eq!(std::fs::read(outside.join("f")).unwrap(), b"outside");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    }

    #[test]
    fn closed_folders_are_opened_for_the_restore_and_closed_again() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().to_path_buf();
        std::fs::create_dir_all(work.join("ro/inner")).unwrap();
        std::fs::write(work.join("ro/inner/gone"), "x").unwrap();
        std::fs::create_dir_all(work.join("busy/build")).unwrap();
        std::fs::write(work.join("busy/build/out.o"), "o").unwrap();
        std::fs::set_permissions(
            work.join("ro/inner"),
            std::fs::Permissions::from_mode(0o500),
        )
        .unwrap();
        std::fs::set_permissions(work.join("ro"), std::fs::Permissions::from_mode(0o555)).unwrap();
        let mut confined = Confined::open(&work).unwrap();
        confined.remove_file("ro/inner/gone").unwrap();
        confined.put_file("ro/inner/new", b"n", 0o644).unwrap();
        confined.put_folder("made", 0o500).unwrap();
        confined.put_file("made/file", b"m", 0o400).unwrap();
        // A folder in the way of a file goes, ignored content and all.
        confined.put_file("busy", b"now a file", 0o644).unwrap();
        assert!(!confined.remove_folder("ro").unwrap(), "not empty");
        confined.finish().unwrap();
        assert_eq!(mode(&work.join("ro")), 0o555);
        assert_eq!(mode(&work.join("ro/inner")), 0o500);
        assert_eq!(mode(&work.join("made")), 0o500);
        assert_eq!(std::fs::read(work.join("ro/inner/new")).unwrap(), b"n");
        assert!(!work.join("ro/inner/gone").exists());
        assert_eq!(std::fs::read(work.join("busy")).unwrap(), b"now a file");
        for folder in ["ro/inner", "ro", "made"] {
            std::fs::set_permissions(work.join(folder), std::fs::Permissions::from_mode(0o700))
                .unwrap();
        }
    }

    /// Folders its owner cannot even read or search: only a descriptor
    /// opened without looking inside (`O_PATH`) reaches them, and their
    /// mode is changed through it.
    #[test]
    fn folders_closed_to_reading_or_searching_are_opened_and_closed_again() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().to_path_buf();
        let closed = [("none", 0o000), ("no-read", 0o300), ("no-search", 0o600)];
        for (name, _) in closed {
            std::fs::create_dir_all(work.join(name).join("inner")).unwrap();
        }
        for (name, mode) in closed {
            let inner = work.join(name).join("inner");
            std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o000)).unwrap();
            std::fs::set_permissions(work.join(name), std::fs::Permissions::from_mode(mode))
                .unwrap();
        }
        let mut confined = Confined::open(&work).unwrap();
        for (name, _) in closed {
            confined
                .put_file(&format!("{name}/f"), b"f", 0o644)
                .unwrap();
            // Removing a folder it cannot open lets its owner in first.
            confined
                .put_file(&format!("{name}/inner"), b"i", 0o644)
                .unwrap();
        }
        confined.finish().unwrap();
        for (name, expected) in closed {
            assert_eq!(mode(&work.join(name)), expected, "{name}");
            std::fs::set_permissions(work.join(name), std::fs::Permissions::from_mode(0o700))
                .unwrap();
            assert_eq!(std::fs::read(work.join(name).join("f")).unwrap(), b"f");
            assert_eq!(std::fs::read(work.join(name).join("inner")).unwrap(), b"i");
        }
    }

    #[test]
    fn paths_that_climb_out_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let mut confined = Confined::open(&root.path().join("work")).unwrap();
        for path in ["../x", "a/../../x", "a//b", "/abs", "."] {
            let err = confined.put_file(path, b"", 0o644).unwrap_err();
            assert!(
                err.to_string().contains("leaves the work dir"),
                "{path}: {err}"
            );
        }
        assert!(!root.path().join("x").exists());
    }

    /// Swaps the folder `relative` of `work` for a link to `outside` the
    /// first time the restore is about to change its mode, as a process
    /// still running could; the folder itself goes to `moved`.
    fn swap_on_chmod(confined: &mut Confined, work: &Path, relative: &str, outside: &Path) {
        let (work, relative, outside) = (
            work.to_path_buf(),
            relative.to_owned(),
            outside.to_path_buf(),
        );
        let mut done = false;
        confined.before_chmod = Some(Box::new(move |path| {
            if path == relative && !done {
                done = true;
                std::fs::rename(work.join(&relative), work.join("moved")).unwrap();
                std::os::unix::fs::symlink(&outside, work.join(&relative)).unwrap();
            }
        }));
    }

    #[test]
    fn a_folder_swapped_for_a_link_before_its_mode_changes_leaves_the_target_alone() {
        // Opening up a closed folder, and giving a folder its mode at the end.
        for (closed, recorded) in [(0o500, None), (0o755, Some(0o555))] {
            let root = tempfile::tempdir().unwrap();
            let work = root.path().join("work");
            let outside = root.path().join("outside");
            std::fs::create_dir_all(work.join("sub")).unwrap();
            std::fs::create_dir_all(&outside).unwrap();
            std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o750)).unwrap();
            std::fs::set_permissions(work.join("sub"), std::fs::Permissions::from_mode(closed))
                .unwrap();
            let mut confined = Confined::open(&work).unwrap();
            swap_on_chmod(&mut confined, &work, "sub", &outside);
            let result = match recorded {
                None => confined.put_file("sub/f", b"f", 0o600),
                Some(mode) => confined.put_folder("sub", mode),
            };
            let finished = result.and_then(|()| confined.finish());
            assert_eq!(mode(&outside), 0o750, "{closed:o}: {finished:?}");
            assert!(work.join("sub").is_symlink(), "{closed:o}");
            // The folder that was checked got the mode, wherever it went.
            let expected = recorded.unwrap_or(closed | OWNER_RWX);
            assert_eq!(mode(&work.join("moved")), expected, "{closed:o}");
            assert!(finished.is_ok(), "{closed:o}: {finished:?}");
            std::fs::set_permissions(work.join("moved"), std::fs::Permissions::from_mode(0o700))
                .unwrap();
        }
    }
}

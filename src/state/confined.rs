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
//! the restore works in it and given its mode back at the end.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
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
}

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
        })
    }

    /// Writes a file (through a temp file and a rename, so a link or
    /// hard link in its place is replaced, not written through).
    pub fn put_file(&mut self, relative: &str, bytes: &[u8], mode: u32) -> Result<(), StateError> {
        let (folder, name) = split(relative)?;
        let parent = self.make_folder(folder)?;
        let result = (|| {
            clear_folder(&parent, &name)?;
            let temp = temp_name(&name);
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
            let temp = temp_name(&name);
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
            let result = match rustix::fs::statat(&parent, &name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat)
                    if FileType::from_raw_mode(stat.st_mode) == FileType::Directory
                        && stat.st_mode & 0o7777 != *mode =>
                {
                    // chmodat follows a link in the last place; the
                    // statat just above saw a folder there, and only a
                    // process racing this one could swap it, to change
                    // a mode, never to write.
                    rustix::fs::chmodat(
                        &parent,
                        &name,
                        Mode::from_raw_mode(*mode),
                        AtFlags::empty(),
                    )
                }
                Ok(_) | Err(Errno::NOENT) => Ok(()),
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
                make_step(&current, &name).and_then(|()| open_step(&current, &name))
            } else {
                open_step(&current, &name)
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
                rustix::fs::chmodat(
                    &current,
                    &name,
                    Mode::from_raw_mode(mode | OWNER_RWX),
                    AtFlags::empty(),
                )
                .map_err(|err| self.error(&so_far, err))?;
                self.modes.entry(so_far.clone()).or_insert(mode);
            }
            current = next;
        }
        Ok(Some(current))
    }

    fn keep(&mut self, relative: &str, fd: OwnedFd) {
        self.cached = Some((relative.to_owned(), fd));
    }

    fn error(&self, relative: &str, err: Errno) -> StateError {
        StateError::io(&self.root.join(relative), err.into())
    }
}

/// Opens the folder `name` in `dir`; a link there is not followed
/// (`O_PATH | O_NOFOLLOW` would open the link itself, hence the check).
fn open_step(dir: &OwnedFd, name: &CString) -> Result<OwnedFd, Errno> {
    let fd = rustix::fs::openat(dir, name.as_c_str(), FOLDER, Mode::empty())?;
    let stat = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
        return Err(Errno::NOTDIR);
    }
    Ok(fd)
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
        // It goes anyway: let its owner in.
        Err(Errno::ACCESS) => {
            rustix::fs::chmodat(
                dir,
                name.as_c_str(),
                Mode::from_raw_mode(OWNER_RWX),
                AtFlags::empty(),
            )?;
            rustix::fs::openat(dir, name.as_c_str(), flags, Mode::empty())?
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

fn temp_name(name: &CString) -> CString {
    let mut bytes = b".".to_vec();
    bytes.extend_from_slice(name.to_bytes());
    bytes.extend_from_slice(format!(".restore{}", fastrand::u32(..)).as_bytes());
    // Made of a name without NUL and ASCII: no NUL.
    CString::new(bytes).unwrap_or_default()
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
}

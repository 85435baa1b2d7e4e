//! The private temp folder of commands that may write nowhere else, and
//! the sweep of the folders that killed agents left behind.
//!
//! A session removes its folder when it ends; a process killed outright
//! (SIGKILL, the OOM killer, a stopped sandbox) cannot. Each folder left in
//! the shared temp folder costs every later fenced command one more
//! Landlock rule (one per entry of the folders above the state folder), so
//! debris must not pile up. Whether an owner is alive is the kernel's to
//! say, not a PID's (PIDs are reused, and namespaces may share a `/tmp`):
//! the owner holds an exclusive `flock` on its folder for as long as it
//! lives, and a folder whose lock can be taken has no owner.

use std::fs::{DirBuilder, File};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

const PREFIX: &str = "agent-tmp-";

/// A folder made for this process; locked while the value lives.
pub struct PrivateTmp {
    path: PathBuf,
    _lock: File,
}

impl PrivateTmp {
    /// Makes a fresh folder under `base`, owned by this process.
    pub fn make(base: &Path) -> Option<Self> {
        // A fresh name each time: a folder someone made in advance is
        // never used. It is made under a hidden name that no sweep takes,
        // locked, and only then given its real one, so that no other
        // agent's sweep sees it unlocked.
        for _ in 0..8 {
            let name = format!("{PREFIX}{:016x}", fastrand::u64(..));
            let hidden = base.join(format!(".{name}"));
            if DirBuilder::new().mode(0o700).create(&hidden).is_err() {
                continue;
            }
            let Some(lock) = File::open(&hidden).ok().filter(|f| f.try_lock().is_ok()) else {
                let _ = std::fs::remove_dir(&hidden);
                continue;
            };
            let path = base.join(&name);
            let renamed = rustix::fs::renameat_with(
                rustix::fs::CWD,
                &hidden,
                rustix::fs::CWD,
                &path,
                rustix::fs::RenameFlags::NOREPLACE,
            );
            if renamed.is_err() {
                let _ = std::fs::remove_dir(&hidden);
                continue;
            }
            return Some(PrivateTmp {
                path: path.canonicalize().ok()?,
                _lock: lock,
            });
        }
        None
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Removes the folders under `base` whose agent is gone; returns how many.
/// Only real folders (no link is followed) of this user, named as
/// [`PrivateTmp::make`] names them, whose lock nobody holds.
pub fn sweep(base: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(base) else {
        return 0;
    };
    let uid = rustix::process::geteuid().as_raw();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(|name| name.starts_with(PREFIX)) {
            continue;
        }
        let path = entry.path();
        let ours =
            std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_dir() && meta.uid() == uid);
        if !ours {
            continue;
        }
        let Ok(folder) = File::open(&path) else {
            continue;
        };
        if folder.try_lock().is_ok() && std::fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_takes_only_the_folders_of_gone_agents() {
        let base = tempfile::tempdir().unwrap();
        let base = base.path();
        // Left by a killed agent: nobody holds its lock.
        let stale = base.join("agent-tmp-00000000deadbeef");
        std::fs::create_dir(&stale).unwrap();
        std::fs::write(stale.join("scratch"), "x").unwrap();
        // A living agent's, made as agents make theirs.
        let alive = PrivateTmp::make(base).unwrap();
        std::fs::write(alive.path().join("work"), "x").unwrap();
        // A link under the name, to a folder that must survive.
        let precious = base.join("precious");
        std::fs::create_dir(&precious).unwrap();
        std::fs::write(precious.join("keep"), "x").unwrap();
        std::os::unix::fs::symlink(&precious, base.join("agent-tmp-link")).unwrap();
        // Other names, and a plain file under the name.
        std::fs::create_dir(base.join("other-tmp-1")).unwrap();
        std::fs::write(base.join("agent-tmp-file"), "x").unwrap();

        assert_eq!(sweep(base), 1);
        assert!(!stale.exists());
        assert!(alive.path().join("work").exists());
        assert!(precious.join("keep").exists());
        assert!(base.join("agent-tmp-link").exists());
        assert!(base.join("other-tmp-1").exists());
        assert!(base.join("agent-tmp-file").exists());

        // Once its owner lets go (the process ends), it is debris too.
        let path = alive.path().to_path_buf();
        drop(alive);
        assert_eq!(sweep(base), 1);
        assert!(!path.exists());
    }

    #[test]
    fn a_made_folder_is_private_and_leaves_no_hidden_name() {
        use std::os::unix::fs::PermissionsExt;
        let base = tempfile::tempdir().unwrap();
        let made = PrivateTmp::make(base.path()).unwrap();
        let mode = std::fs::metadata(made.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert!(
            made.path()
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with(PREFIX)
        );
        let names: Vec<_> = std::fs::read_dir(base.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, [made.path().file_name().unwrap()]);
    }
}

//! State on the sandbox disk: one folder per session under the state
//! folder, holding the event journal, the checkpoints and the content
//! store they share. Folders are 0700 and files 0600: they hold the
//! conversation and copies of the work dir.

pub mod checkpoint;
mod confined;
pub mod durable;
pub mod journal;
pub mod pack;
pub mod retention;
pub mod search;
pub mod snapshot;
pub mod walk;

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// `$AGENT_STATE_DIR`, else `$XDG_STATE_HOME/agent`, else
/// `~/.local/state/agent`: outside any work dir, on the sandbox disk.
pub fn default_state_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir).join("agent"));
    }
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(|home| PathBuf::from(home).join(".local/state/agent"))
}

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(String),
}

impl StateError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        StateError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// Creates `dir` and its missing parents as 0700, and tightens `dir`
/// itself if it existed with looser bits.
pub fn private_dir(dir: &Path) -> Result<(), StateError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|err| StateError::io(dir, err))?;
    let meta = std::fs::metadata(dir).map_err(|err| StateError::io(dir, err))?;
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|err| StateError::io(dir, err))?;
    }
    Ok(())
}

/// Writes a 0600 file through a temp file, fsync and rename, then syncs
/// the folder: after a crash the file is either the old one or the new
/// one, never a mix.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    write_private(path, bytes, true)
}

/// A 0600 file through a temp file and a rename, so no reader ever sees
/// half of it; with `sync`, fsynced with its folder too (many small
/// writes skip that and sync the file system once instead).
pub fn write_private(path: &Path, bytes: &[u8], sync: bool) -> Result<(), StateError> {
    let dir = path
        .parent()
        .ok_or_else(|| StateError::Invalid(format!("{} has no folder", path.display())))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp{}", fastrand::u32(..)));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)?;
        file.write_all(bytes)?;
        if sync {
            file.sync_all()?;
        }
        std::fs::rename(&temp, path)?;
        if sync {
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(|err| StateError::io(path, err))
}

/// The folder of one session.
#[derive(Debug, Clone)]
pub struct SessionDir {
    pub root: PathBuf,
}

impl SessionDir {
    pub fn new(state_dir: &Path, session_id: &str) -> Self {
        SessionDir {
            root: state_dir.join("sessions").join(session_id),
        }
    }

    pub fn create(&self) -> Result<(), StateError> {
        private_dir(&self.root)?;
        private_dir(&self.objects())?;
        private_dir(&self.checkpoints())
    }

    pub fn journal(&self) -> PathBuf {
        self.root.join("journal.jsonl")
    }

    pub fn objects(&self) -> PathBuf {
        self.root.join("objects")
    }

    pub fn checkpoints(&self) -> PathBuf {
        self.root.join("checkpoints")
    }

    pub fn control_socket(&self) -> PathBuf {
        self.root.join("control.sock")
    }

    /// Held (flock) by the live process: retention never removes a
    /// session whose lock is taken, and `attach` knows it is live. It
    /// holds the journal's length when its holder took it (see
    /// [`lock_holder_start`]).
    pub fn lock_file(&self) -> PathBuf {
        self.root.join("lock")
    }
}

/// Takes the session's lock for the life of the process, and writes in it
/// where this process's turn starts in the journal.
pub fn lock_session(dir: &SessionDir) -> Result<std::fs::File, StateError> {
    let path = dir.lock_file();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&path)
        .map_err(|err| StateError::io(&path, err))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).map_err(
        |_| {
            StateError::Invalid(format!(
                "session {} is already running in another process",
                dir.root.display()
            ))
        },
    )?;
    let start = std::fs::metadata(dir.journal()).map_or(0, |meta| meta.len());
    // Best effort: without it `attach` cannot tell a turn that is ending
    // from one that is starting, and waits for the lock to be let go.
    // Written over the old figure and then cut to length, never emptied
    // first: emptying frees the file's block, which on a file system
    // mounted with `discard` costs a trim (0.2 ms, every turn). A reader
    // in between sees no number and waits, as it would for an empty file.
    let line = format!("{start}\n");
    let _ = std::os::unix::fs::FileExt::write_all_at(&file, line.as_bytes(), 0)
        .and_then(|()| file.set_len(line.len() as u64));
    Ok(file)
}

/// Where the live process's turn starts in the journal (a byte offset):
/// a `session-end` that ends before it belongs to an earlier turn. `None`
/// when that cannot be read (the holder may be writing it).
pub fn lock_holder_start(dir: &SessionDir) -> Option<u64> {
    std::fs::read_to_string(dir.lock_file())
        .ok()?
        .strip_suffix('\n')?
        .parse()
        .ok()
}

/// Whether a live process holds the session's lock.
pub fn is_live(dir: &SessionDir) -> bool {
    let Ok(file) = std::fs::File::open(dir.lock_file()) else {
        return false;
    };
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockShared) {
        Ok(()) => {
            let _ = rustix::fs::flock(&file, rustix::fs::FlockOperation::Unlock);
            false
        }
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each turn's figure replaces the last, a shorter one included:
    /// the file is cut to it, not left holding the old figure's tail.
    #[test]
    fn the_lock_holds_the_journal_length_of_its_holders_turn() {
        let state = tempfile::tempdir().unwrap();
        let dir = SessionDir::new(state.path(), "s");
        dir.create().unwrap();
        std::fs::write(dir.journal(), "x".repeat(12345)).unwrap();
        let lock = lock_session(&dir).unwrap();
        assert_eq!(lock_holder_start(&dir), Some(12345));
        assert!(lock_session(&dir).is_err(), "one holder at a time");
        drop(lock);
        std::fs::write(dir.journal(), "x".repeat(7)).unwrap();
        let _lock = lock_session(&dir).unwrap();
        assert_eq!(lock_holder_start(&dir), Some(7));
        assert_eq!(std::fs::read_to_string(dir.lock_file()).unwrap(), "7\n");
    }
}

//! The tags of files already parsed, in one SQLite file at the state
//! folder's root that every session on the machine shares, keyed by a hash
//! of the content (and of the language and the query's version), so a file
//! is parsed once whatever its path or worktree. A cache that cannot be
//! opened or read is deleted and made again; if even that fails the map is
//! built without one. Never fatal.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

/// The file name in the state folder.
pub const FILE_NAME: &str = "repo-map.sqlite";
/// Past this size the older half of the entries goes.
const MAX_BYTES: i64 = 256 * 1024 * 1024;
/// Another session writing waits at most this long for us and we for it.
const BUSY_WAIT: Duration = Duration::from_secs(5);

/// A 32-byte content key.
pub type Key = [u8; 32];

pub struct Cache {
    path: Option<PathBuf>,
    connection: Option<Connection>,
    /// A read failed: the file is made again before the next write.
    damaged: bool,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Failed(#[from] rusqlite::Error);

impl Cache {
    /// The cache at `path`, made if missing, made again if it is not a
    /// cache; `None`: no cache at all (every file is parsed).
    pub fn open(path: Option<&Path>) -> Cache {
        let Some(path) = path else {
            return Cache {
                path: None,
                connection: None,
                damaged: false,
            };
        };
        let connection = connect(path).or_else(|_| {
            remove(path);
            connect(path)
        });
        Cache {
            path: Some(path.to_path_buf()),
            connection: connection.ok(),
            damaged: false,
        }
    }

    /// The tags kept for `key`, encoded.
    pub fn get(&mut self, key: &Key) -> Option<Vec<u8>> {
        let connection = self.connection.as_ref()?;
        let found = connection
            .prepare_cached("SELECT data FROM tags WHERE key = ?1")
            .and_then(|mut statement| {
                statement
                    .query_row(params![&key[..]], |row| row.get::<_, Vec<u8>>(0))
                    .optional()
            });
        match found {
            Ok(found) => found,
            Err(_) => {
                self.damaged = true;
                None
            }
        }
    }

    /// Keeps `entries` (key, encoded tags) in one transaction; a damaged
    /// file is made again first.
    pub fn put(&mut self, entries: &[(Key, Vec<u8>)]) {
        if self.damaged
            && let Some(path) = &self.path
        {
            self.connection = None;
            remove(path);
            self.connection = connect(path).ok();
            self.damaged = false;
        }
        if entries.is_empty() {
            return;
        }
        let Some(connection) = self.connection.as_mut() else {
            return;
        };
        if write(connection, entries).is_err() {
            self.damaged = true;
        }
    }

    /// Whether a read failed since the file was opened.
    #[cfg(test)]
    pub fn damaged(&self) -> bool {
        self.damaged
    }
}

fn connect(path: &Path) -> Result<Connection, Failed> {
    let connection = Connection::open(path)?;
    connection.busy_timeout(BUSY_WAIT)?;
    // WAL: sessions read while another writes.
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    connection.execute_batch(
        "CREATE TABLE IF NOT EXISTS tags (
             key BLOB PRIMARY KEY,
             data BLOB NOT NULL,
             stamp INTEGER NOT NULL
         ) WITHOUT ROWID;
         CREATE INDEX IF NOT EXISTS tags_stamp ON tags (stamp);",
    )?;
    // A file that is not SQLite fails here, not at the first read.
    connection.query_row("SELECT count(*) FROM tags LIMIT 1", [], |_| Ok(()))?;
    Ok(connection)
}

fn write(connection: &mut Connection, entries: &[(Key, Vec<u8>)]) -> Result<(), Failed> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
        });
    let transaction = connection.transaction()?;
    {
        let mut insert = transaction
            .prepare_cached("INSERT OR REPLACE INTO tags (key, data, stamp) VALUES (?1, ?2, ?3)")?;
        for (key, data) in entries {
            insert.execute(params![&key[..], data, stamp])?;
        }
    }
    transaction.commit()?;
    trim(connection)
}

/// Bounds the file: past [`MAX_BYTES`], the older half of the entries
/// goes (their pages are reused, the file does not shrink).
fn trim(connection: &Connection) -> Result<(), Failed> {
    let pages: i64 = connection.query_row("PRAGMA page_count", [], |row| row.get(0))?;
    let size: i64 = connection.query_row("PRAGMA page_size", [], |row| row.get(0))?;
    if pages.saturating_mul(size) <= MAX_BYTES {
        return Ok(());
    }
    connection.execute(
        "DELETE FROM tags WHERE stamp <= (SELECT stamp FROM tags ORDER BY stamp
             LIMIT 1 OFFSET (SELECT count(*) / 2 FROM tags))",
        [],
    )?;
    Ok(())
}

/// Deletes the cache and its journal files.
fn remove(path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_kept_across_openings() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut cache = Cache::open(Some(&path));
        cache.put(&[([1; 32], b"one".to_vec())]);
        drop(cache);
        let mut cache = Cache::open(Some(&path));
        assert_eq!(cache.get(&[1; 32]), Some(b"one".to_vec()));
        assert_eq!(cache.get(&[2; 32]), None);
        assert!(!cache.damaged());
    }

    #[test]
    fn a_damaged_file_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, vec![0x5a; 8192]).unwrap();
        let mut cache = Cache::open(Some(&path));
        assert_eq!(cache.get(&[1; 32]), None);
        cache.put(&[([1; 32], b"one".to_vec())]);
        drop(cache);
        let mut cache = Cache::open(Some(&path));
        assert_eq!(cache.get(&[1; 32]), Some(b"one".to_vec()));
    }

    #[test]
    fn no_cache_is_no_cache() {
        let mut cache = Cache::open(None);
        cache.put(&[([1; 32], b"one".to_vec())]);
        assert_eq!(cache.get(&[1; 32]), None);
    }
}

//! The tags of files already parsed, in one SQLite file at the state
//! folder's root that every session on the machine shares, keyed by a hash
//! of the content (and of the language and the query's version), so a file
//! is parsed once whatever its path or worktree; and beside them each
//! file's stamp and key at its last scan, so an unchanged file is not even
//! read (`stamp.rs` says when a stamp is trusted). A cache that cannot be
//! opened or read is deleted and made again; if even that fails the map is
//! built without one. Never fatal.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::stamp::{Known, KnownFiles, Stamp};

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

/// What one scan learnt, written in one transaction.
#[derive(Debug, Default)]
pub struct Learnt {
    /// Tags parsed now, encoded, by content key.
    pub tags: Vec<(Key, Vec<u8>)>,
    /// Files hashed now (root-relative path, stamp taken before the read,
    /// key of what was read).
    pub stamps: Vec<(String, Stamp, Key)>,
    /// Paths the cache knew under the root that the walk did not find.
    pub gone: Vec<String>,
}

/// Where the scan's files are and what names their keys.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    /// The root, as the walk was given it.
    pub root: &'a str,
    /// The tags' and keys' version: a stamp of another is not used.
    pub version: &'a str,
    /// When the scan started (ns since the epoch), before any file was
    /// looked at.
    pub seen_ns: i64,
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

    /// Every path under `scope.root` the cache has a stamp of, by path, in
    /// one query, with its tags where they are still kept. A row of the
    /// wrong shape is left out (its file is read again and the row made
    /// anew).
    pub fn known(&mut self, scope: &Scope<'_>) -> KnownFiles {
        let Some(connection) = self.connection.as_ref() else {
            return KnownFiles::default();
        };
        let read = || -> Result<KnownFiles, Failed> {
            let mut statement = connection.prepare_cached(
                "SELECT s.path, s.size, s.mtime, s.ctime, s.inode, s.dev, s.seen, s.key, t.data
                 FROM stamps s LEFT JOIN tags t ON t.key = s.key
                 WHERE s.root = ?1 AND s.version = ?2",
            )?;
            let mut rows = statement.query(params![scope.root, scope.version])?;
            let mut known = KnownFiles::default();
            while let Some(row) = rows.next()? {
                if let Some((path, entry)) = known_row(row, &mut known.tags) {
                    known.files.insert(path, entry);
                }
            }
            Ok(known)
        };
        read().unwrap_or_else(|_| {
            self.damaged = true;
            KnownFiles::default()
        })
    }

    /// The tags kept for each of `keys`, encoded, in one read transaction.
    pub fn get_many(&mut self, keys: &[Key]) -> Vec<Option<Vec<u8>>> {
        let Some(connection) = self.connection.as_mut().filter(|_| !keys.is_empty()) else {
            return vec![None; keys.len()];
        };
        let mut read = || -> Result<Vec<Option<Vec<u8>>>, Failed> {
            let transaction =
                connection.transaction_with_behavior(TransactionBehavior::Deferred)?;
            let mut found = Vec::with_capacity(keys.len());
            {
                let mut statement =
                    transaction.prepare_cached("SELECT data FROM tags WHERE key = ?1")?;
                for key in keys {
                    found.push(
                        statement
                            .query_row(params![&key[..]], |row| row.get::<_, Vec<u8>>(0))
                            .optional()?,
                    );
                }
            }
            transaction.commit()?;
            Ok(found)
        };
        read().unwrap_or_else(|_| {
            self.damaged = true;
            vec![None; keys.len()]
        })
    }

    /// The tags kept for `key`, encoded.
    #[cfg(test)]
    pub fn get(&mut self, key: &Key) -> Option<Vec<u8>> {
        self.get_many(&[*key]).pop().flatten()
    }

    /// Keeps what a scan learnt in one transaction; a damaged file is made
    /// again first.
    pub fn put(&mut self, scope: &Scope<'_>, learnt: &Learnt) {
        if self.damaged
            && let Some(path) = &self.path
        {
            self.connection = None;
            remove(path);
            self.connection = connect(path).ok();
            self.damaged = false;
        }
        if learnt.tags.is_empty() && learnt.stamps.is_empty() && learnt.gone.is_empty() {
            return;
        }
        let Some(connection) = self.connection.as_mut() else {
            return;
        };
        if write(connection, scope, learnt).is_err() {
            self.damaged = true;
        }
    }

    /// Whether a read failed since the file was opened.
    #[cfg(test)]
    pub fn damaged(&self) -> bool {
        self.damaged
    }
}

/// One row of [`Cache::known`], its tags added to `tags`; `None` if a
/// column is not what this code writes.
fn known_row(row: &Row<'_>, tags: &mut Vec<u8>) -> Option<(String, Known)> {
    let path: String = row.get(0).ok()?;
    let number = |index: usize| row.get::<_, i64>(index).ok();
    let stamp = Stamp {
        size: u64::try_from(number(1)?).ok()?,
        mtime_ns: number(2)?,
        ctime_ns: number(3)?,
        // Stored as their bits: SQLite's integers are signed.
        inode: number(4)?.cast_unsigned(),
        dev: number(5)?.cast_unsigned(),
    };
    let seen_ns = number(6)?;
    if row.get_ref(7).ok()?.as_blob().ok()?.len() != size_of::<Key>() {
        return None;
    }
    let data = row.get_ref(8).ok()?.as_blob_or_null().ok()?;
    let range = data.map(|data| {
        tags.extend_from_slice(data);
        tags.len() - data.len()..tags.len()
    });
    Some((
        path,
        Known {
            stamp,
            seen_ns,
            tags: range,
        },
    ))
}

fn connect(path: &Path) -> Result<Connection, Failed> {
    let connection = Connection::open(path)?;
    connection.busy_timeout(BUSY_WAIT)?;
    // WAL: sessions read while another writes.
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    // A warm scan reads every stamp of the tree and the tags it joins to,
    // which lie all over the file: with SQLite's default 2 MiB of page
    // cache the pages of a large tree's cache are read again and again.
    // Pages are cached as they are read, so a small cache costs little.
    connection.pragma_update(None, "cache_size", -64 * 1024)?;
    connection.execute_batch(
        "CREATE TABLE IF NOT EXISTS tags (
             key BLOB PRIMARY KEY,
             data BLOB NOT NULL,
             stamp INTEGER NOT NULL
         ) WITHOUT ROWID;
         CREATE INDEX IF NOT EXISTS tags_stamp ON tags (stamp);
         CREATE TABLE IF NOT EXISTS stamps (
             root TEXT NOT NULL,
             path TEXT NOT NULL,
             version TEXT NOT NULL,
             size INTEGER NOT NULL,
             mtime INTEGER NOT NULL,
             ctime INTEGER NOT NULL,
             inode INTEGER NOT NULL,
             dev INTEGER NOT NULL,
             seen INTEGER NOT NULL,
             key BLOB NOT NULL,
             PRIMARY KEY (root, path)
         ) WITHOUT ROWID;",
    )?;
    // A file that is not SQLite, or tables of another shape, fail here,
    // not at the first read.
    connection.query_row("SELECT count(*) FROM tags LIMIT 1", [], |_| Ok(()))?;
    connection.query_row(
        "SELECT count(root), count(path), count(version), count(size), count(mtime),
             count(ctime), count(inode), count(dev), count(seen), count(key)
         FROM (SELECT * FROM stamps LIMIT 1)",
        [],
        |_| Ok(()),
    )?;
    Ok(connection)
}

fn write(connection: &mut Connection, scope: &Scope<'_>, learnt: &Learnt) -> Result<(), Failed> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
        });
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    {
        let mut insert = transaction
            .prepare_cached("INSERT OR REPLACE INTO tags (key, data, stamp) VALUES (?1, ?2, ?3)")?;
        for (key, data) in &learnt.tags {
            insert.execute(params![&key[..], data, stamp])?;
        }
        let mut insert = transaction.prepare_cached(
            "INSERT OR REPLACE INTO stamps
                 (root, path, version, size, mtime, ctime, inode, dev, seen, key)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?;
        for (path, file, key) in &learnt.stamps {
            insert.execute(params![
                scope.root,
                path,
                scope.version,
                i64::try_from(file.size).unwrap_or(i64::MAX),
                file.mtime_ns,
                file.ctime_ns,
                file.inode.cast_signed(),
                file.dev.cast_signed(),
                scope.seen_ns,
                &key[..]
            ])?;
        }
        let mut delete =
            transaction.prepare_cached("DELETE FROM stamps WHERE root = ?1 AND path = ?2")?;
        for path in &learnt.gone {
            delete.execute(params![scope.root, path])?;
        }
    }
    transaction.commit()?;
    trim(connection)
}

/// Bounds the file: past [`MAX_BYTES`], the older half of the entries
/// goes, and the stamps of what went (their pages are reused, the file
/// does not shrink).
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
    connection.execute(
        "DELETE FROM stamps WHERE NOT EXISTS (SELECT 1 FROM tags WHERE tags.key = stamps.key)",
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

    const SCOPE: Scope<'static> = Scope {
        root: "/work",
        version: "1",
        seen_ns: 5,
    };

    fn tags(entries: &[(Key, &[u8])]) -> Learnt {
        Learnt {
            tags: entries
                .iter()
                .map(|(key, data)| (*key, data.to_vec()))
                .collect(),
            ..Learnt::default()
        }
    }

    fn stamp(size: u64) -> Stamp {
        Stamp {
            size,
            mtime_ns: 1,
            ctime_ns: 2,
            inode: u64::MAX,
            dev: 4,
        }
    }

    #[test]
    fn entries_are_kept_across_openings() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut cache = Cache::open(Some(&path));
        cache.put(&SCOPE, &tags(&[([1; 32], b"one")]));
        drop(cache);
        let mut cache = Cache::open(Some(&path));
        assert_eq!(cache.get(&[1; 32]), Some(b"one".to_vec()));
        assert_eq!(cache.get(&[2; 32]), None);
        assert_eq!(
            cache.get_many(&[[2; 32], [1; 32]]),
            [None, Some(b"one".to_vec())]
        );
        assert!(!cache.damaged());
    }

    #[test]
    fn stamps_are_kept_by_root_and_version_with_their_tags() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut cache = Cache::open(Some(&path));
        let mut learnt = tags(&[([1; 32], b"one")]);
        learnt.stamps = vec![
            ("a.rs".to_owned(), stamp(10), [1; 32]),
            ("b.rs".to_owned(), stamp(20), [2; 32]),
        ];
        cache.put(&SCOPE, &learnt);
        let other_root = Scope {
            root: "/elsewhere",
            ..SCOPE
        };
        cache.put(
            &other_root,
            &Learnt {
                stamps: vec![("c.rs".to_owned(), stamp(30), [1; 32])],
                ..Learnt::default()
            },
        );
        drop(cache);
        let mut cache = Cache::open(Some(&path));
        let known = cache.known(&SCOPE);
        assert_eq!(known.files.len(), 2);
        let a = &known.files["a.rs"];
        assert_eq!((a.stamp, a.seen_ns), (stamp(10), 5));
        assert_eq!(known.tags.get(a.tags.clone().unwrap()), Some(&b"one"[..]));
        // No tags under its key (trimmed away): the stamp alone says nothing.
        assert_eq!(known.files["b.rs"].tags, None);
        let newer = Scope {
            version: "2",
            ..SCOPE
        };
        assert!(cache.known(&newer).files.is_empty());
        assert_eq!(cache.known(&other_root).files.len(), 1);
        cache.put(
            &SCOPE,
            &Learnt {
                gone: vec!["a.rs".to_owned()],
                ..Learnt::default()
            },
        );
        let known = cache.known(&SCOPE);
        assert_eq!(known.files.keys().collect::<Vec<_>>(), ["b.rs"]);
        assert!(!cache.damaged());
    }

    #[test]
    fn a_row_of_the_wrong_shape_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut cache = Cache::open(Some(&path));
        let mut learnt = tags(&[([1; 32], b"one")]);
        learnt.stamps = vec![
            ("a.rs".to_owned(), stamp(10), [1; 32]),
            ("b.rs".to_owned(), stamp(20), [1; 32]),
        ];
        cache.put(&SCOPE, &learnt);
        drop(cache);
        let raw = Connection::open(&path).unwrap();
        raw.execute("UPDATE stamps SET key = x'0102' WHERE path = 'a.rs'", [])
            .unwrap();
        raw.execute("UPDATE stamps SET size = 'big' WHERE path = 'b.rs'", [])
            .unwrap();
        drop(raw);
        let mut cache = Cache::open(Some(&path));
        assert!(cache.known(&SCOPE).files.is_empty());
        assert!(!cache.damaged());
    }

    #[test]
    fn a_damaged_file_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, vec![0x5a; 8192]).unwrap();
        let mut cache = Cache::open(Some(&path));
        assert_eq!(cache.get(&[1; 32]), None);
        cache.put(&SCOPE, &tags(&[([1; 32], b"one")]));
        drop(cache);
        let mut cache = Cache::open(Some(&path));
        assert_eq!(cache.get(&[1; 32]), Some(b"one".to_vec()));
    }

    #[test]
    fn a_stamp_table_of_another_shape_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut cache = Cache::open(Some(&path));
        let mut learnt = tags(&[([1; 32], b"one")]);
        learnt.stamps = vec![("a.rs".to_owned(), stamp(10), [1; 32])];
        cache.put(&SCOPE, &learnt);
        drop(cache);
        let raw = Connection::open(&path).unwrap();
        raw.execute_batch("DROP TABLE stamps; CREATE TABLE stamps (root TEXT, junk BLOB);")
            .unwrap();
        drop(raw);
        let mut cache = Cache::open(Some(&path));
        assert!(cache.known(&SCOPE).files.is_empty());
        cache.put(&SCOPE, &learnt);
        assert_eq!(cache.known(&SCOPE).files.len(), 1);
        assert!(!cache.damaged());
    }

    #[test]
    fn a_stamp_table_that_fails_to_read_is_made_again_at_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut cache = Cache::open(Some(&path));
        let mut learnt = tags(&[([1; 32], b"one")]);
        learnt.stamps = vec![("a.rs".to_owned(), stamp(10), [1; 32])];
        // The table goes behind the open connection's back.
        let raw = Connection::open(&path).unwrap();
        raw.execute_batch("DROP TABLE stamps;").unwrap();
        assert!(cache.known(&SCOPE).files.is_empty());
        assert!(cache.damaged());
        cache.put(&SCOPE, &learnt);
        assert!(!cache.damaged());
        assert_eq!(cache.known(&SCOPE).files.len(), 1);
    }

    #[test]
    fn no_cache_is_no_cache() {
        let mut cache = Cache::open(None);
        cache.put(&SCOPE, &tags(&[([1; 32], b"one")]));
        assert_eq!(cache.get(&[1; 32]), None);
        assert!(cache.known(&SCOPE).files.is_empty());
    }
}

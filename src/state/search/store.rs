//! The index file: an SQLite database with one FTS5 table of document
//! bodies, a table of what each body is (session, `_seq`, time, kind,
//! length in tokens), and a table of sessions with how far each journal
//! was read. Opened afresh when damaged or of another format; WAL, so
//! that searches do not wait for the sessions that keep it up to date.

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::SearchError;
use super::extract::{Chunk, Doc};

/// The format of the file (`PRAGMA user_version`). A file of any other
/// is rebuilt from the journals. 2: `docs.len`, the body's token count
/// (format 1 had none: the ranking read it from FTS5's own table), and
/// an index of the dropped sessions.
pub const FORMAT: i64 = 2;
/// How long a writer waits for another process's write to end.
const BUSY_WAIT: Duration = Duration::from_secs(5);

const SCHEMA: &str = "
CREATE TABLE sessions(
    sid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    indexed_bytes INTEGER NOT NULL DEFAULT 0,
    last_seq INTEGER NOT NULL DEFAULT 0,
    events INTEGER NOT NULL DEFAULT 0,
    body_bytes INTEGER NOT NULL DEFAULT 0,
    started TEXT,
    last_ts TEXT,
    last_epoch INTEGER NOT NULL DEFAULT 0,
    work_dir TEXT,
    model TEXT,
    dropped INTEGER NOT NULL DEFAULT 0
);
-- Every search counts the dropped sessions: without it, a scan of all.
CREATE INDEX sessions_dropped ON sessions(dropped) WHERE dropped = 1;
CREATE TABLE docs(
    rowid INTEGER PRIMARY KEY,
    sid INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    epoch INTEGER NOT NULL,
    ts TEXT NOT NULL,
    kind INTEGER NOT NULL,
    len INTEGER NOT NULL
);
CREATE INDEX docs_by_session ON docs(sid);
CREATE VIRTUAL TABLE fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
";

/// One session as the index knows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionRow {
    pub sid: i64,
    pub id: String,
    pub indexed_bytes: u64,
    pub last_seq: u64,
    pub events: u64,
    pub body_bytes: u64,
    pub started: Option<String>,
    pub last_ts: Option<String>,
    pub last_epoch: i64,
    pub work_dir: Option<String>,
    pub model: Option<String>,
    /// Left out by the size cap: its documents are gone.
    pub dropped: bool,
}

/// Opens the index at `path`, made afresh when it is not a database of
/// this format. `Err` only when even a fresh one cannot be made.
pub fn open(path: &Path) -> Result<Connection, SearchError> {
    match open_as_is(path) {
        Ok(conn) => Ok(conn),
        Err(err) if err.is_damage() => {
            crate::diag!("agent: the search index is rebuilt ({err})");
            remove(path);
            open_as_is(path)
        }
        Err(err) => Err(err),
    }
}

/// Removes the index and its WAL files.
pub fn remove(path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}

fn open_as_is(path: &Path) -> Result<Connection, SearchError> {
    // Made 0600 before SQLite sees it; its WAL files take the same mode.
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(|err| SearchError::io(path, err))?;
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_WAIT)?;
    let mut conn = conn;
    let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    match version {
        FORMAT => {}
        0 => create(&mut conn)?,
        other => {
            return Err(SearchError::OtherFormat(other));
        }
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // Queries read the index through the page cache the kernel already
    // has, not by a read call per page.
    // Past the default cap too: a candidate's lookups are scattered, and
    // a page outside the map is a read call each.
    conn.pragma_update(None, "mmap_size", 1024i64 * 1024 * 1024)?;
    conn.pragma_update(None, "cache_size", -16384i64)?;
    super::bm25::register(&conn)?;
    Ok(conn)
}

/// The schema in an empty file, once: two processes may both try.
fn create(conn: &mut Connection) -> Result<(), SearchError> {
    // Before the first table: freed pages can then be given back.
    conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
    let mode: String =
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        crate::diag!("agent: the search index is not in WAL mode ({mode})");
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let tables: i64 = tx.query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))?;
    match (version, tables) {
        (0, 0) => {
            tx.execute_batch(SCHEMA)?;
            tx.pragma_update(None, "user_version", FORMAT)?;
        }
        // Another process made it meanwhile.
        (FORMAT, _) => {}
        // Tables of a format before versions were written, or another.
        (other, _) => return Err(SearchError::OtherFormat(other)),
    }
    tx.commit()?;
    Ok(())
}

fn row_of(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
    Ok(SessionRow {
        sid: row.get(0)?,
        id: row.get(1)?,
        indexed_bytes: row.get::<_, i64>(2)?.max(0) as u64,
        last_seq: row.get::<_, i64>(3)?.max(0) as u64,
        events: row.get::<_, i64>(4)?.max(0) as u64,
        body_bytes: row.get::<_, i64>(5)?.max(0) as u64,
        started: row.get(6)?,
        last_ts: row.get(7)?,
        last_epoch: row.get(8)?,
        work_dir: row.get(9)?,
        model: row.get(10)?,
        dropped: row.get::<_, i64>(11)? != 0,
    })
}

const COLUMNS: &str = "sid, id, indexed_bytes, last_seq, events, body_bytes, started, last_ts, \
                       last_epoch, work_dir, model, dropped";

pub fn session(conn: &Connection, id: &str) -> Result<Option<SessionRow>, SearchError> {
    let sql = format!("SELECT {COLUMNS} FROM sessions WHERE id = ?1");
    Ok(conn.query_row(&sql, [id], row_of).optional()?)
}

/// Every session, the most recent first.
pub fn sessions(conn: &Connection) -> Result<Vec<SessionRow>, SearchError> {
    let sql = format!("SELECT {COLUMNS} FROM sessions ORDER BY last_epoch DESC, id");
    let mut statement = conn.prepare(&sql)?;
    let rows = statement.query_map([], row_of)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Adds what `chunk` read of session `id`'s journal, and where the next
/// read starts, in one transaction. `reset` first removes what the
/// index held of it (a journal read again from its start). `read_after`
/// is how far the index had read when the chunk was read (`None`: the
/// session was not in it): if another catch-up (of this process or
/// another) moved it meanwhile, the chunk is not added twice.
pub fn add_chunk(
    conn: &mut Connection,
    id: &str,
    chunk: &Chunk,
    reset: bool,
    read_after: Option<u64>,
) -> Result<(), SearchError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let now: Option<i64> = tx
        .query_row(
            "SELECT indexed_bytes FROM sessions WHERE id = ?1",
            [id],
            |row| row.get(0),
        )
        .optional()?;
    if now.map(|bytes| bytes.max(0) as u64) != read_after {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO sessions(id) VALUES (?1) ON CONFLICT(id) DO NOTHING",
        [id],
    )?;
    let sid: i64 = tx.query_row("SELECT sid FROM sessions WHERE id = ?1", [id], |row| {
        row.get(0)
    })?;
    if reset {
        delete_docs(&tx, sid)?;
        tx.execute(
            "UPDATE sessions SET indexed_bytes = 0, last_seq = 0, events = 0, body_bytes = 0, \
             started = NULL, dropped = 0 WHERE sid = ?1",
            [sid],
        )?;
    }
    let body_bytes = insert_docs(&tx, sid, &chunk.docs)?;
    tx.execute(
        "UPDATE sessions SET indexed_bytes = ?2, last_seq = max(last_seq, ?3), \
         events = events + ?4, body_bytes = body_bytes + ?5, \
         started = coalesce(started, ?6), last_ts = coalesce(?7, last_ts), \
         last_epoch = max(last_epoch, ?8), work_dir = coalesce(?9, work_dir), \
         model = coalesce(?10, model) WHERE sid = ?1",
        params![
            sid,
            chunk.end as i64,
            chunk.last_seq as i64,
            chunk.events as i64,
            body_bytes as i64,
            chunk.first_ts,
            chunk.last_ts,
            chunk.last_epoch,
            chunk.work_dir,
            chunk.model,
        ],
    )?;
    tx.commit()?;
    Ok(())
}

/// The documents of one session, as the same statements every insert
/// uses (the benchmark fills its index through here too).
///
/// Each `docs` row carries its body's token count as FTS5 counted it
/// (read back from FTS5's `docsize` row, just written, so on a page in
/// memory): the ranking then finds a candidate's length beside its age,
/// one lookup, where reading `docsize` too made two scattered ones.
pub fn insert_docs(conn: &Connection, sid: i64, docs: &[Doc]) -> Result<u64, SearchError> {
    let mut rowid: i64 = conn
        .prepare_cached("SELECT coalesce(max(rowid), 0) FROM docs")?
        .query_row([], |row| row.get(0))?;
    let mut body = conn.prepare_cached("INSERT INTO fts(rowid, body) VALUES (?1, ?2)")?;
    let mut size = conn.prepare_cached("SELECT sz FROM fts_docsize WHERE id = ?1")?;
    let mut meta = conn.prepare_cached(
        "INSERT INTO docs(rowid, sid, seq, epoch, ts, kind, len) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let mut bytes = 0u64;
    for doc in docs {
        rowid += 1;
        body.execute(params![rowid, doc.body])?;
        let sizes: Vec<u8> = size.query_row([rowid], |row| row.get(0))?;
        meta.execute(params![
            rowid,
            sid,
            doc.seq as i64,
            doc.epoch,
            doc.ts,
            doc.kind.code(),
            varint(&sizes)
        ])?;
        bytes += doc.body.len() as u64;
    }
    Ok(bytes)
}

/// The first of SQLite's variable-length integers in `bytes` (FTS5's
/// `docsize` holds one per column): 7 bits a byte, most significant
/// first, the high bit set on all but the last; a ninth byte gives 8.
fn varint(bytes: &[u8]) -> i64 {
    let mut value = 0u64;
    for (n, &byte) in bytes.iter().enumerate().take(9) {
        if n == 8 {
            return ((value << 8) | u64::from(byte)) as i64;
        }
        value = (value << 7) | u64::from(byte & 0x7f);
        if byte < 0x80 {
            break;
        }
    }
    value as i64
}

fn delete_docs(conn: &Connection, sid: i64) -> Result<(), SearchError> {
    conn.execute(
        "DELETE FROM fts WHERE rowid IN (SELECT rowid FROM docs WHERE sid = ?1)",
        [sid],
    )?;
    conn.execute("DELETE FROM docs WHERE sid = ?1", [sid])?;
    Ok(())
}

/// Forgets sessions whose folders are gone.
pub fn remove_sessions(conn: &mut Connection, ids: &[String]) -> Result<(), SearchError> {
    if ids.is_empty() {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for id in ids {
        let sid: Option<i64> = tx
            .query_row("SELECT sid FROM sessions WHERE id = ?1", [id], |row| {
                row.get(0)
            })
            .optional()?;
        if let Some(sid) = sid {
            delete_docs(&tx, sid)?;
            tx.execute("DELETE FROM sessions WHERE sid = ?1", [sid])?;
        }
    }
    tx.commit()?;
    let _ = conn.execute_batch("PRAGMA incremental_vacuum");
    Ok(())
}

/// The bytes the index's pages hold (free pages left out).
pub fn used_bytes(conn: &Connection) -> Result<u64, SearchError> {
    let pages: i64 = conn.pragma_query_value(None, "page_count", |row| row.get(0))?;
    let free: i64 = conn.pragma_query_value(None, "freelist_count", |row| row.get(0))?;
    let size: i64 = conn.pragma_query_value(None, "page_size", |row| row.get(0))?;
    Ok(((pages - free).max(0) * size) as u64)
}

/// Keeps the index under `max_bytes`: the sessions whose last event is
/// oldest lose their documents first (they stay listed, marked dropped),
/// down to 80 % of the cap, so that the next few iterations do not drop
/// again. FTS5 frees a deleted row's index entries only when it merges
/// its segments, so the merge is forced after a drop. Returns how many
/// sessions were dropped.
pub fn enforce_cap(conn: &mut Connection, max_bytes: u64) -> Result<usize, SearchError> {
    let mut dropped = 0;
    // The estimate below is proportional; a second round corrects it.
    for _ in 0..3 {
        let used = used_bytes(conn)?;
        if used <= max_bytes {
            break;
        }
        let target = max_bytes / 10 * 8;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let total_body: i64 = tx.query_row(
            "SELECT coalesce(sum(body_bytes), 0) FROM sessions WHERE dropped = 0",
            [],
            |row| row.get(0),
        )?;
        // Index bytes per body byte: what dropping a session frees.
        let ratio = used as f64 / (total_body.max(1) as f64);
        let mut to_free = (used - target) as f64;
        let oldest: Vec<(i64, i64)> = {
            let mut statement = tx.prepare(
                "SELECT sid, body_bytes FROM sessions WHERE dropped = 0 ORDER BY last_epoch, sid",
            )?;
            let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        if oldest.is_empty() {
            break;
        }
        for (sid, body) in oldest {
            if to_free <= 0.0 {
                break;
            }
            delete_docs(&tx, sid)?;
            tx.execute(
                "UPDATE sessions SET dropped = 1, body_bytes = 0 WHERE sid = ?1",
                [sid],
            )?;
            to_free -= (body.max(1) as f64) * ratio;
            dropped += 1;
        }
        tx.execute("INSERT INTO fts(fts) VALUES ('optimize')", [])?;
        tx.commit()?;
        let _ = conn.execute_batch("PRAGMA incremental_vacuum");
    }
    Ok(dropped)
}

/// How many sessions the cap left out (of `id` alone when given).
pub fn dropped_count(conn: &Connection, id: Option<&str>) -> Result<u64, SearchError> {
    let count: i64 = match id {
        Some(id) => conn
            .prepare_cached("SELECT count(*) FROM sessions WHERE dropped = 1 AND id = ?1")?
            .query_row([id], |row| row.get(0))?,
        None => conn
            .prepare_cached("SELECT count(*) FROM sessions WHERE dropped = 1")?
            .query_row([], |row| row.get(0))?,
    };
    Ok(count.max(0) as u64)
}

/// A session row for `id`, made if missing; its `sid`.
pub fn session_id(conn: &Connection, id: &str) -> Result<i64, SearchError> {
    conn.execute(
        "INSERT INTO sessions(id) VALUES (?1) ON CONFLICT(id) DO NOTHING",
        [id],
    )?;
    Ok(
        conn.query_row("SELECT sid FROM sessions WHERE id = ?1", [id], |row| {
            row.get(0)
        })?,
    )
}

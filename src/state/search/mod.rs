//! Session transcript search: an SQLite FTS5 index in the state folder
//! (`search.sqlite`) over every session's journal, caught up from where
//! each journal was last read. The journals are the truth; the index is
//! a copy that can always be made again, so a missing, damaged or older
//! index is rebuilt, never an error. What is indexed is `extract.rs`,
//! the file `store.rs`, queries `query.rs` and `rank.rs`.

mod bm25;
pub mod extract;
pub mod query;
mod rank;
pub mod store;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

pub use rank::Hit;
pub use store::SessionRow;

use super::{SessionDir, is_live};

/// The index's file in the state folder.
pub const INDEX_FILE: &str = "search.sqlite";
/// `[session_search] max_index_mb` when not set.
pub const DEFAULT_MAX_INDEX_MB: u64 = 256;

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("search index: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("the search index is of format {0}, this agent reads {FORMAT}", FORMAT = store::FORMAT)]
    OtherFormat(i64),
    /// The query has no word to look for.
    #[error("the query has no word to look for")]
    EmptyQuery,
}

impl SearchError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        SearchError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// Whether the index file is at fault (not a database, damaged, of
    /// another format): a fresh one is the cure.
    pub fn is_damage(&self) -> bool {
        match self {
            SearchError::OtherFormat(_) => true,
            SearchError::Sqlite(err) => matches!(
                err.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
            ),
            _ => false,
        }
    }
}

/// Matches, and whether the size cap left some sessions out.
#[derive(Debug, Default)]
pub struct Results {
    pub hits: Vec<Hit>,
    /// Sessions (in the query's scope) whose documents the size cap
    /// dropped: their matches cannot be among the hits.
    pub sessions_left_out: u64,
}

/// The index of one state folder, open.
pub struct Index {
    conn: Connection,
    path: PathBuf,
    state_dir: PathBuf,
    max_bytes: u64,
}

impl Index {
    /// Opens (or makes) the index of `state_dir`, kept under `max_bytes`.
    pub fn open(state_dir: &Path, max_bytes: u64) -> Result<Index, SearchError> {
        let path = state_dir.join(INDEX_FILE);
        Ok(Index {
            conn: store::open(&path)?,
            path,
            state_dir: state_dir.to_path_buf(),
            max_bytes,
        })
    }

    /// The connection, for the benchmark that fills an index directly.
    pub fn connection(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Every session's journal read to its end, the sessions whose
    /// folders are gone forgotten, and the size cap applied.
    pub fn catch_up(&mut self) -> Result<(), SearchError> {
        self.cured(Index::catch_up_all)
    }

    /// One session's journal read to its end (what the running session
    /// does after its checkpoints), and the size cap applied.
    pub fn catch_up_session(&mut self, id: &str) -> Result<(), SearchError> {
        self.cured(|index| {
            let known = store::session(&index.conn, id)?;
            index.catch_up_one(id, known.as_ref())?;
            store::enforce_cap(&mut index.conn, index.max_bytes)?;
            Ok(())
        })
    }

    /// The best `limit` matches for what a person typed, of one session
    /// when `session` is given. An index found damaged here is rebuilt
    /// and asked again.
    pub fn search(
        &mut self,
        text: &str,
        session: Option<&str>,
        limit: usize,
    ) -> Result<Results, SearchError> {
        let terms = query::fts_terms(text);
        if terms.is_empty() {
            return Err(SearchError::EmptyQuery);
        }
        let now = chrono::Utc::now().timestamp();
        let ask = |index: &mut Index| -> Result<Results, SearchError> {
            Ok(Results {
                hits: rank::search(&index.conn, &terms, session, limit, now)?,
                sessions_left_out: store::dropped_count(&index.conn, session)?,
            })
        };
        match ask(self) {
            Err(err) if err.is_damage() => {
                self.rebuild(&err)?;
                self.catch_up_all()?;
                ask(self)
            }
            other => other,
        }
    }

    /// Every session the index knows, the most recent first.
    pub fn sessions(&mut self) -> Result<Vec<SessionRow>, SearchError> {
        self.cured(|index| store::sessions(&index.conn))
    }

    /// Forgets sessions (retention removed their folders).
    pub fn forget(&mut self, ids: &[String]) -> Result<(), SearchError> {
        self.cured(|index| store::remove_sessions(&mut index.conn, ids))
    }

    /// Runs `op`; when it finds the file damaged, starts a fresh index
    /// and runs it once more (a catch-up then reads every journal).
    fn cured<T>(
        &mut self,
        op: impl Fn(&mut Index) -> Result<T, SearchError>,
    ) -> Result<T, SearchError> {
        match op(self) {
            Err(err) if err.is_damage() => {
                self.rebuild(&err)?;
                op(self)
            }
            other => other,
        }
    }

    fn rebuild(&mut self, why: &SearchError) -> Result<(), SearchError> {
        crate::diag!("agent: the search index is rebuilt ({why})");
        // The old file's handle is let go before the file is removed.
        self.conn = Connection::open_in_memory()?;
        store::remove(&self.path);
        self.conn = store::open(&self.path)?;
        Ok(())
    }

    fn catch_up_all(&mut self) -> Result<(), SearchError> {
        let folders = session_folders(&self.state_dir);
        let known: HashMap<String, SessionRow> = store::sessions(&self.conn)?
            .into_iter()
            .map(|row| (row.id.clone(), row))
            .collect();
        let gone: Vec<String> = known
            .keys()
            .filter(|id| !folders.contains(*id))
            .cloned()
            .collect();
        store::remove_sessions(&mut self.conn, &gone)?;
        for id in &folders {
            self.catch_up_one(id, known.get(id))?;
        }
        store::enforce_cap(&mut self.conn, self.max_bytes)?;
        Ok(())
    }

    /// Reads what session `id`'s journal gained since `known` was
    /// written. A journal shorter than what was read is another one (the
    /// folder was made again): read from its start. A session the cap
    /// dropped is read again from the start once it is used again.
    fn catch_up_one(&mut self, id: &str, known: Option<&SessionRow>) -> Result<(), SearchError> {
        let dir = SessionDir::new(&self.state_dir, id);
        let journal = dir.journal();
        let Ok(meta) = std::fs::metadata(&journal) else {
            return Ok(());
        };
        let len = meta.len();
        let (offset, reset) = match known {
            None => (0, false),
            Some(row) if len < row.indexed_bytes => (0, true),
            Some(row) if len == row.indexed_bytes => return Ok(()),
            Some(row) if row.dropped => (0, true),
            Some(row) => (row.indexed_bytes, false),
        };
        let finished = !is_live(&dir);
        let chunk = match extract::read_from(&journal, offset, finished) {
            Ok(chunk) => chunk,
            // An unreadable journal is left out, not the whole catch-up.
            Err(err) => {
                crate::diag!("agent: search: {}: {err}", journal.display());
                return Ok(());
            }
        };
        if known.is_some() && !reset && chunk.end == offset {
            return Ok(());
        }
        store::add_chunk(
            &mut self.conn,
            id,
            &chunk,
            reset,
            known.map(|row| row.indexed_bytes),
        )
    }
}

/// The names of the session folders in `state_dir`.
fn session_folders(state_dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(state_dir.join("sessions")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

/// Called by retention with the session folders it removed: their rows
/// go too. Does nothing where no index was ever made.
pub fn forget_removed(state_dir: &Path, removed: &[PathBuf]) {
    if removed.is_empty() || !state_dir.join(INDEX_FILE).exists() {
        return;
    }
    let ids: Vec<String> = removed
        .iter()
        .filter_map(|path| Some(path.file_name()?.to_str()?.to_owned()))
        .collect();
    let result = Index::open(state_dir, u64::MAX).and_then(|mut index| index.forget(&ids));
    if let Err(err) = result {
        crate::diag!("agent: the search index keeps removed sessions until the next search: {err}");
    }
}

#[cfg(test)]
mod tests;

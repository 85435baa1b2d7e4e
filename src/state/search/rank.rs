//! A query against the index: the best documents by BM25 discounted by
//! age, each with a snippet and where the query matched in it.

use std::collections::HashMap;

use rusqlite::types::Value;
use rusqlite::{Connection, params};
use serde::Serialize;

use super::extract::Kind;
use super::query::{CLOSE, OPEN, ranges_of};
use super::{SearchError, bm25};

/// The age at which a document's relevance counts half: a match from a
/// month ago must be clearly better to beat one from today.
const HALF_WEIGHT_SECS: f64 = 30.0 * 86_400.0;
/// Matches ranked at most, the most recently indexed: past this, the
/// cost of a query would grow with the index (each candidate costs a
/// lookup of its `docs` row, scattered over the file), and the age
/// discount makes older matches rare among the best anyway. A more
/// specific query reaches them.
const CANDIDATES: usize = 500;
/// Tokens in a snippet at most.
const SNIPPET_TOKENS: i64 = 24;

/// One match, as `agent sessions search` prints it and the tool shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    pub session_id: String,
    pub seq: u64,
    pub ts: String,
    /// `user-message`, `assistant-text`, `tool-call` or `tool-result`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub snippet: String,
    /// `[start, end)` of each match in `snippet`, in characters.
    pub ranges: Vec<[usize; 2]>,
    /// Higher is better; only the order means anything.
    pub score: f64,
}

/// The best `limit` documents for `terms` (the phrases of
/// [`super::query::fts_terms`], ANDed), of one session when `session` is
/// given.
///
/// The score is BM25 ([`super::bm25`]: FTS5's formula, each phrase's
/// document count estimated from its newest matches) divided by
/// `1 + age / 30 days`, the age being from the document's event to
/// `now`: a document of today keeps its relevance, one of a month ago
/// half of it, one of a year ago about 8 %. Hyperbolic rather than
/// exponential so that an old match that is much better still wins.
///
/// Only the [`CANDIDATES`] most recently indexed matches are ranked
/// (all of them within one session): FTS5 walks the query's lists newest
/// first and stops there. The ranking reads no body and one `docs` row per
/// candidate (its age and length); the session's name and the snippets are read
/// for the hits only (FTS5 makes a snippet by reading the text again).
pub fn search(
    conn: &Connection,
    terms: &[String],
    session: Option<&str>,
    limit: usize,
    now: i64,
) -> Result<Vec<Hit>, SearchError> {
    let query = terms.join(" ");
    let hits = bm25::hits_blob(&phrase_counts(conn, terms)?);
    // The rowids a session's documents lie between: FTS5 walks only those.
    let (sid, low, high, candidates) = match session {
        Some(id) => {
            // An aggregate: one row, of NULLs for a session without documents.
            let bounds: (Option<i64>, Option<i64>, Option<i64>) = conn
                .prepare_cached(
                    "SELECT s.sid, min(d.rowid), max(d.rowid) FROM sessions s \
                     JOIN docs d ON d.sid = s.sid WHERE s.id = ?1",
                )?
                .query_row([id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
            match bounds {
                (Some(sid), Some(low), Some(high)) => (Some(sid), low, high, -1),
                _ => return Ok(Vec::new()),
            }
        }
        None => (None, i64::MIN, i64::MAX, CANDIDATES as i64),
    };
    // FTS5 walks the matches newest first, the outer loop (`CROSS JOIN`
    // keeps it there), and stops at the bound; each candidate's `docs`
    // row gives its age and its length (the one lookup a candidate costs).
    let sql = format!(
        "SELECT t.rowid, s.id, t.seq, t.ts, t.kind, t.score FROM \
           (SELECT c.rowid, c.sid, c.seq, c.ts, c.kind, \
                   c.bm25 / (1.0 + max(0, ?2 - c.epoch) / {HALF_WEIGHT_SECS:.1}) AS score \
            FROM (SELECT fts.rowid AS rowid, d.sid, d.seq, d.ts, d.kind, d.epoch, \
                         {name}(fts, ?4, d.len) AS bm25 \
                  FROM fts CROSS JOIN docs d ON d.rowid = fts.rowid \
                  WHERE fts MATCH ?1 AND fts.rowid BETWEEN ?5 AND ?6 \
                  ORDER BY fts.rowid DESC LIMIT ?7) AS c \
            WHERE ?8 IS NULL OR c.sid = ?8 \
            ORDER BY score DESC, c.rowid DESC LIMIT ?3) AS t \
         JOIN sessions s ON s.sid = t.sid ORDER BY t.score DESC, t.rowid DESC",
        name = bm25::NAME
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows: Vec<_> = statement
        .query_map(
            params![query, now, limit, hits, low, high, candidates, sid],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, i64>(4)?,
                    row.get::<_, f64>(5)?,
                ))
            },
        )?
        .collect::<Result<_, _>>()?;
    let snippets = snippets(conn, &query, &rows)?;
    let mut found = Vec::with_capacity(rows.len());
    for (rowid, session_id, seq, ts, kind, score) in rows {
        let (snippet, ranges) = snippets
            .get(&rowid)
            .map(|marked| ranges_of(marked))
            .unwrap_or_default();
        found.push(Hit {
            session_id,
            seq: seq.max(0) as u64,
            ts,
            kind: Kind::from_code(kind).map_or("unknown", Kind::name),
            snippet,
            ranges,
            score,
        });
    }
    Ok(found)
}

/// The marked snippets of the hits' rows, by rowid, from one walk of the
/// query's matches between the lowest and highest of them: a query per
/// hit (`rowid = ?`) made FTS5 look each phrase up again in every
/// segment, once per hit, more than half of a whole search's time.
/// `+rowid` keeps the list from FTS5, which would take it as one lookup
/// per rowid; a snippet is made only for the rows in it.
fn snippets(
    conn: &Connection,
    query: &str,
    rows: &[(i64, String, i64, String, i64, f64)],
) -> Result<HashMap<i64, String>, SearchError> {
    let rowids = rows.iter().map(|row| row.0);
    let (Some(low), Some(high)) = (rowids.clone().min(), rowids.clone().max()) else {
        return Ok(HashMap::new());
    };
    // The rowids as parameters: the bundled SQLite is built without its
    // JSON functions (`.cargo/config.toml`).
    let list: Vec<i64> = rowids.collect();
    let placeholders = (0..list.len())
        .map(|at| format!("?{}", at + 7))
        .collect::<Vec<_>>()
        .join(",");
    let mut statement = conn.prepare_cached(&format!(
        "SELECT rowid, snippet(fts, 0, ?2, ?3, '…', ?4) FROM fts \
         WHERE fts MATCH ?1 AND rowid BETWEEN ?5 AND ?6 \
         AND +rowid IN ({placeholders})"
    ))?;
    let mut values = vec![
        Value::Text(query.to_owned()),
        Value::Text(OPEN.to_string()),
        Value::Text(CLOSE.to_string()),
        Value::Integer(SNIPPET_TOKENS),
        Value::Integer(low),
        Value::Integer(high),
    ];
    values.extend(list.into_iter().map(Value::Integer));
    let marked = statement
        .query_map(rusqlite::params_from_iter(values), |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<Result<_, _>>()?;
    Ok(marked)
}

/// For each phrase, how many of its newest [`CANDIDATES`] matches there
/// are and, when the walk stopped at the bound, how many rowids they
/// span: what [`super::bm25`] estimates the phrase's frequency from.
pub(super) fn phrase_counts(
    conn: &Connection,
    terms: &[String],
) -> Result<Vec<(u64, u64)>, SearchError> {
    let newest: Option<i64> = conn
        .prepare_cached("SELECT max(rowid) FROM docs")?
        .query_row([], |row| row.get(0))?;
    let mut walk = conn.prepare_cached(
        "SELECT count(*), min(rowid) FROM \
         (SELECT rowid FROM fts WHERE fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2)",
    )?;
    terms
        .iter()
        .map(|term| {
            let (count, oldest): (i64, Option<i64>) = walk
                .query_row(params![term, CANDIDATES as i64], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })?;
            let span = match (newest, oldest) {
                (Some(newest), Some(oldest)) if count as usize >= CANDIDATES => {
                    (newest - oldest + 1).max(1) as u64
                }
                _ => 0,
            };
            Ok((count.max(0) as u64, span))
        })
        .collect()
}

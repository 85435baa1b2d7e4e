//! A query against the index: the best documents by BM25 discounted by
//! age, each with a snippet and where the query matched in it.

use rusqlite::{Connection, params};
use serde::Serialize;

use super::SearchError;
use super::extract::Kind;
use super::query::{CLOSE, OPEN, ranges_of};

/// The age at which a document's relevance counts half: a match from a
/// month ago must be clearly better to beat one from today.
const HALF_WEIGHT_SECS: f64 = 30.0 * 86_400.0;
/// Matches ranked at most, the most recently indexed: past this, the
/// cost of a query would grow with the index (BM25 scores every match;
/// a word in most of a million documents took 2.7 s), and the age
/// discount makes older matches rare among the best anyway. A more
/// specific query reaches them.
const CANDIDATES: usize = 2000;
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

/// The best `limit` documents for `query` (an FTS5 expression from
/// [`super::query::fts_query`]), of one session when `session` is given.
///
/// The score is FTS5's BM25 (negated, so higher is better) divided by
/// `1 + age / 30 days`, the age being from the document's event to
/// `now`: a document of today keeps its relevance, one of a month ago
/// half of it, one of a year ago about 8 %. Hyperbolic rather than
/// exponential so that an old match that is much better still wins.
///
/// Only the [`CANDIDATES`] most recently indexed matches are ranked
/// (all of them within one session). The ranking reads no body; snippets are made afterwards for the hits
/// only (FTS5 makes one by reading the document's text again).
pub fn search(
    conn: &Connection,
    query: &str,
    session: Option<&str>,
    limit: usize,
    now: i64,
) -> Result<Vec<Hit>, SearchError> {
    let discount = format!("(1.0 + max(0, ?2 - d.epoch) / {HALF_WEIGHT_SECS:.1})");
    let sql = match session {
        // One session's matches are few: all of them are ranked.
        Some(_) => format!(
            "SELECT fts.rowid, s.id, d.seq, d.ts, d.kind, (-bm25(fts)) / {discount} AS score \
             FROM fts JOIN docs d ON d.rowid = fts.rowid JOIN sessions s ON s.sid = d.sid \
             WHERE fts MATCH ?1 AND s.id = ?4 ORDER BY score DESC LIMIT ?3"
        ),
        // FTS5 walks a word's list newest first and stops at the bound.
        None => format!(
            "SELECT m.rowid, s.id, d.seq, d.ts, d.kind, (-m.bm25) / {discount} AS score \
             FROM (SELECT rowid, bm25(fts) AS bm25 FROM fts WHERE fts MATCH ?1 \
                   ORDER BY rowid DESC LIMIT {CANDIDATES}) AS m \
             JOIN docs d ON d.rowid = m.rowid JOIN sessions s ON s.sid = d.sid \
             ORDER BY score DESC LIMIT ?3"
        ),
    };
    let mut statement = conn.prepare(&sql)?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let map = |row: &rusqlite::Row<'_>| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, i64>(2)?,
            row.get::<_, String>(3)?,
            row.get::<_, i64>(4)?,
            row.get::<_, f64>(5)?,
        ))
    };
    let rows: Vec<_> = match session {
        Some(id) => statement
            .query_map(params![query, now, limit, id], map)?
            .collect::<Result<_, _>>()?,
        None => statement
            .query_map(params![query, now, limit], map)?
            .collect::<Result<_, _>>()?,
    };
    let mut snippet = conn.prepare(
        "SELECT snippet(fts, 0, ?2, ?3, '…', ?4) FROM fts WHERE fts MATCH ?1 AND rowid = ?5",
    )?;
    let mut hits = Vec::with_capacity(rows.len());
    for (rowid, session_id, seq, ts, kind, score) in rows {
        let marked: String = snippet.query_row(
            params![
                query,
                OPEN.to_string(),
                CLOSE.to_string(),
                SNIPPET_TOKENS,
                rowid
            ],
            |row| row.get(0),
        )?;
        let (snippet, ranges) = ranges_of(&marked);
        hits.push(Hit {
            session_id,
            seq: seq.max(0) as u64,
            ts,
            kind: Kind::from_code(kind).map_or("unknown", Kind::name),
            snippet,
            ranges,
            score,
        });
    }
    Ok(hits)
}

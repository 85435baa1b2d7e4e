//! `agent_bm25(fts, hits)`: FTS5's BM25 for the current row, with each
//! phrase's document count given by the caller instead of counted.
//!
//! FTS5's own `bm25()` counts, once per query, every row that holds each
//! phrase (for its IDF): a walk of the word's whole list, whatever the
//! `LIMIT`. For a word in 40 % of a million messages that walk alone took
//! 25 to 80 ms, more than everything else a query does. Here the caller
//! walks only the newest [`super::rank`] candidates of each phrase and
//! passes what it saw; the rest (term frequency, row length, average
//! length, k1 = 1.2, b = 0.75, IDF floored at 1e-6) is `bm25()`'s formula,
//! so the scores are the same wherever the count is exact.
//!
//! `hits` is a blob of little-endian `f64` pairs, one per phrase in query
//! order: `(count, span)`. A span of 0 says `count` is every row with the
//! phrase. Otherwise the newest `count` such rows lie within the last
//! `span` rowids, and the phrase is taken to be as frequent in the whole
//! table (`count * rows / span`): a log dampens the estimate's error, and
//! the IDF is one factor per phrase, so a one-word query ranks exactly as
//! with `bm25()`.
//!
//! An optional third argument is the row's length in tokens (`docs.len`,
//! what FTS5 counted): without it the length is asked of FTS5, a lookup
//! in its `docsize` table per row.
//!
//! The result is positive: higher is better.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_void};
use std::ptr;

use rusqlite::Connection;
use rusqlite::ffi;

use super::SearchError;

/// The function's name in SQL.
pub const NAME: &str = "agent_bm25";

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Registers [`NAME`] on `conn` (FTS5 functions belong to a connection).
pub fn register(conn: &Connection) -> Result<(), SearchError> {
    // SAFETY: the handle is this open connection's, used on this thread
    // while `conn` is borrowed; the statement is finalized before return.
    // FTS5 hands its API out only as a pointer bound to `SELECT fts5(?)`.
    let rc = unsafe {
        let db = conn.handle();
        let mut api: *mut ffi::fts5_api = ptr::null_mut();
        let mut statement: *mut ffi::sqlite3_stmt = ptr::null_mut();
        let mut rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut statement,
            ptr::null_mut(),
        );
        if rc == ffi::SQLITE_OK {
            rc = ffi::sqlite3_bind_pointer(
                statement,
                1,
                (&raw mut api).cast::<c_void>(),
                c"fts5_api_ptr".as_ptr(),
                None,
            );
        }
        if rc == ffi::SQLITE_OK {
            rc = ffi::sqlite3_step(statement);
            if rc == ffi::SQLITE_ROW {
                rc = ffi::SQLITE_OK;
            }
        }
        ffi::sqlite3_finalize(statement);
        match (rc, api.as_ref()) {
            (ffi::SQLITE_OK, Some(found)) if found.iVersion >= 2 => match found.xCreateFunction {
                Some(create) => create(
                    api,
                    c"agent_bm25".as_ptr(),
                    ptr::null_mut(),
                    Some(agent_bm25),
                    None,
                ),
                None => ffi::SQLITE_ERROR,
            },
            (ffi::SQLITE_OK, _) => ffi::SQLITE_ERROR,
            (rc, _) => rc,
        }
    };
    match rc {
        ffi::SQLITE_OK => Ok(()),
        rc => Err(SearchError::Sqlite(rusqlite::Error::SqliteFailure(
            ffi::Error::new(rc),
            Some("FTS5's API for agent_bm25".to_owned()),
        ))),
    }
}

/// What one row needs of FTS5, read through its extension API.
struct Row {
    rows: f64,
    average_len: f64,
    len: f64,
    /// Instances of each phrase in the row.
    frequency: Vec<f64>,
}

/// The BM25 of a row from what FTS5 said of it and the caller's counts.
fn score(row: &Row, hits: &[u8]) -> f64 {
    let norm = K1 * (1.0 - B + B * row.len / row.average_len.max(f64::MIN_POSITIVE));
    let estimates = hits.chunks_exact(16).map(|pair| {
        let (count, span) = pair.split_at(8);
        let number = |bytes: &[u8]| bytes.try_into().map_or(0.0, f64::from_le_bytes);
        (number(count), number(span))
    });
    row.frequency
        .iter()
        .zip(estimates)
        .map(|(&frequency, (count, span))| {
            let hit = if span > 0.0 {
                (count * row.rows / span).clamp(count, row.rows)
            } else {
                count
            };
            let idf = ((row.rows - hit + 0.5) / (hit + 0.5)).ln();
            let idf = if idf > 0.0 { idf } else { 1e-6 };
            idf * (frequency * (K1 + 1.0)) / (frequency + norm)
        })
        .sum()
}

/// Reads [`Row`] for the current row, of length `len` when given; an
/// SQLite error code on failure.
///
/// # Safety
/// `api` and `fts` as FTS5 passes them to an auxiliary function.
unsafe fn read_row(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    len: Option<i64>,
) -> Result<Row, c_int> {
    let check = |rc: c_int| {
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err(rc)
        }
    };
    let missing = ffi::SQLITE_MISUSE;
    let (
        Some(row_count),
        Some(total_size),
        Some(phrase_count),
        Some(inst_count),
        Some(inst),
        Some(column_size),
    ) = (
        api.xRowCount,
        api.xColumnTotalSize,
        api.xPhraseCount,
        api.xInstCount,
        api.xInst,
        api.xColumnSize,
    )
    else {
        return Err(missing);
    };
    // SAFETY: FTS5's own functions on the context it gave.
    unsafe {
        let (mut rows, mut tokens) = (0i64, 0i64);
        check(row_count(fts, &mut rows))?;
        check(total_size(fts, -1, &mut tokens))?;
        let phrases = usize::try_from(phrase_count(fts)).unwrap_or(0);
        let mut frequency = vec![0.0; phrases];
        let mut instances = 0;
        check(inst_count(fts, &mut instances))?;
        for n in 0..instances {
            let (mut phrase, mut column, mut offset) = (0, 0, 0);
            check(inst(fts, n, &mut phrase, &mut column, &mut offset))?;
            if let Some(slot) = usize::try_from(phrase)
                .ok()
                .and_then(|at| frequency.get_mut(at))
            {
                *slot += 1.0;
            }
        }
        let len = match len {
            Some(len) => len as f64,
            None => {
                let mut len = 0;
                check(column_size(fts, -1, &mut len))?;
                f64::from(len)
            }
        };
        let rows = rows.max(1) as f64;
        Ok(Row {
            rows,
            average_len: tokens as f64 / rows,
            len,
            frequency,
        })
    }
}

unsafe extern "C" fn agent_bm25(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    count: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: the pointers are FTS5's, valid for this call (`values`
    // holds `count` of them); the blob is read before any other call on
    // its value.
    unsafe {
        let len = match count {
            2.. => match values.add(1).as_ref() {
                Some(&value) if ffi::sqlite3_value_type(value) == ffi::SQLITE_INTEGER => {
                    Some(ffi::sqlite3_value_int64(value))
                }
                _ => None,
            },
            _ => None,
        };
        let hits: &[u8] = match (count, values.as_ref()) {
            (1.., Some(&value)) => {
                let blob = ffi::sqlite3_value_blob(value).cast::<u8>();
                let len = usize::try_from(ffi::sqlite3_value_bytes(value)).unwrap_or(0);
                if blob.is_null() {
                    &[]
                } else {
                    std::slice::from_raw_parts(blob, len)
                }
            }
            _ => &[],
        };
        let Some(api) = api.as_ref() else {
            ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_MISUSE);
            return;
        };
        match read_row(api, fts, len) {
            Ok(row) => ffi::sqlite3_result_double(ctx, score(&row, hits)),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

/// The blob `agent_bm25` takes: `(count, span)` per phrase.
pub fn hits_blob(estimates: &[(u64, u64)]) -> Vec<u8> {
    let mut blob = Vec::with_capacity(estimates.len() * 16);
    for &(count, span) in estimates {
        blob.extend_from_slice(&(count as f64).to_le_bytes());
        blob.extend_from_slice(&(span as f64).to_le_bytes());
    }
    blob
}

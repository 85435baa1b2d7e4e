use std::io::Write;

use serde_json::json;

use rusqlite::params;

use super::*;

/// A session folder whose journal holds one user message per text, at
/// `ts`; appended when the journal exists.
fn session(state: &Path, id: &str, ts: &str, texts: &[&str]) {
    let dir = state.join("sessions").join(id);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("journal.jsonl");
    let seq = crate::state::journal::last_seq(&path);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .unwrap();
    for (n, text) in texts.iter().enumerate() {
        let line = json!({"type": "user-message", "_seq": seq + 1 + n as u64, "ts": ts,
                          "text": text, "source": "prompt"});
        writeln!(file, "{line}").unwrap();
    }
}

fn found(index: &mut Index, text: &str) -> Vec<(String, u64)> {
    index
        .search(text, None, 50)
        .unwrap()
        .hits
        .into_iter()
        .map(|hit| (hit.session_id, hit.seq))
        .collect()
}

const NOW: &str = "2026-06-01T00:00:00.000Z";

#[test]
fn catch_up_reads_only_what_is_new() {
    let state = tempfile::tempdir().unwrap();
    session(state.path(), "a", NOW, &["first apple"]);
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    assert_eq!(found(&mut index, "apple"), vec![("a".into(), 1)]);
    session(state.path(), "a", NOW, &["second apple"]);
    session(state.path(), "b", NOW, &["apple pie"]);
    index.catch_up().unwrap();
    index.catch_up().unwrap();
    let mut hits = found(&mut index, "apple");
    hits.sort();
    assert_eq!(
        hits,
        vec![("a".into(), 1), ("a".into(), 2), ("b".into(), 1)]
    );
    let rows = index.sessions().unwrap();
    assert_eq!(rows.iter().map(|row| row.events).sum::<u64>(), 3);
    assert_eq!(
        index.search("apple", Some("b"), 10).unwrap().hits.len(),
        1,
        "one session only"
    );
}

#[test]
fn gone_sessions_are_forgotten() {
    let state = tempfile::tempdir().unwrap();
    session(state.path(), "a", NOW, &["kiwi"]);
    session(state.path(), "b", NOW, &["kiwi"]);
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    std::fs::remove_dir_all(state.path().join("sessions/a")).unwrap();
    index.catch_up().unwrap();
    assert_eq!(found(&mut index, "kiwi"), vec![("b".into(), 1)]);
    std::fs::remove_dir_all(state.path().join("sessions/b")).unwrap();
    forget_removed(state.path(), &[state.path().join("sessions/b")]);
    assert!(found(&mut index, "kiwi").is_empty());
    assert!(index.sessions().unwrap().is_empty());
}

#[test]
fn a_damaged_or_older_index_is_made_again() {
    let state = tempfile::tempdir().unwrap();
    session(state.path(), "a", NOW, &["mango"]);
    let path = state.path().join(INDEX_FILE);
    std::fs::write(&path, vec![0x5a; 8192]).unwrap();
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    assert_eq!(found(&mut index, "mango"), vec![("a".into(), 1)]);
    drop(index);
    let conn = Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", store::FORMAT - 1)
        .unwrap();
    drop(conn);
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    assert!(index.sessions().unwrap().is_empty(), "a fresh index");
    index.catch_up().unwrap();
    assert_eq!(found(&mut index, "mango"), vec![("a".into(), 1)]);
}

#[test]
fn the_cap_drops_the_least_recently_used_sessions_and_says_so() {
    let state = tempfile::tempdir().unwrap();
    let filler = |word: &str| format!("{word} {}", "lorem ipsum dolor sit amet ".repeat(400));
    let days = ["2026-01-01", "2026-02-01", "2026-03-01", "2026-04-01"];
    for (n, day) in days.iter().enumerate() {
        let texts: Vec<String> = (0..20)
            .map(|i| filler(&format!("papaya{n} w{i}")))
            .collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        session(
            state.path(),
            &format!("s{n}"),
            &format!("{day}T00:00:00Z"),
            &texts,
        );
    }
    let mut unbounded = Index::open(state.path(), u64::MAX).unwrap();
    unbounded.catch_up().unwrap();
    let full = store::used_bytes(unbounded.connection()).unwrap();
    drop(unbounded);
    store::remove(&state.path().join(INDEX_FILE));
    // Room for about two of the four.
    let mut index = Index::open(state.path(), full / 2).unwrap();
    index.catch_up().unwrap();
    assert!(store::used_bytes(index.connection()).unwrap() <= full / 2);
    let oldest = index.search("papaya0", None, 5).unwrap();
    assert!(oldest.hits.is_empty());
    assert!(oldest.sessions_left_out >= 1);
    let newest = index.search("papaya3", None, 5).unwrap();
    assert_eq!(newest.hits.len(), 5);
    let rows = index.sessions().unwrap();
    assert_eq!(rows.len(), 4, "dropped sessions stay listed");
    assert!(rows.iter().find(|row| row.id == "s0").unwrap().dropped);
    assert!(!rows.iter().find(|row| row.id == "s3").unwrap().dropped);
    // Used again: read again, and another one leaves.
    session(
        state.path(),
        "s0",
        "2026-05-01T00:00:00Z",
        &["papaya0 again"],
    );
    index.catch_up().unwrap();
    assert!(!index.search("papaya0", None, 5).unwrap().hits.is_empty());
}

#[test]
fn hostile_queries_never_fail() {
    let state = tempfile::tempdir().unwrap();
    session(
        state.path(),
        "a",
        NOW,
        &["see foo.rs near col:x and \"quoted\" AND stuff"],
    );
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    for query in [
        "foo.rs",
        "NEAR(",
        "NEAR(a b)",
        "col:x",
        "\"x",
        "\"",
        "* x",
        "a AND",
        "AND",
        "OR NOT",
        "x*",
        "^x",
        "x -y",
        "(((",
        "a\u{0}b",
        "\u{1b}[31m",
        "body:x",
        "rowid",
        "'; DROP TABLE docs; --",
        "\u{E000}x\u{E001}",
        "😀 x",
        "ǅ ﬁ",
    ] {
        let result = index.search(query, None, 10);
        assert!(
            matches!(result, Ok(_) | Err(SearchError::EmptyQuery)),
            "{query:?}: {result:?}"
        );
    }
    assert_eq!(found(&mut index, "foo.rs").len(), 1);
    assert_eq!(found(&mut index, "near AND").len(), 1, "AND is a word here");
    assert!(matches!(
        index.search("  * ", None, 10),
        Err(SearchError::EmptyQuery)
    ));
}

#[test]
fn a_chunk_two_catch_ups_read_is_added_once() {
    let state = tempfile::tempdir().unwrap();
    session(state.path(), "a", NOW, &["twice"]);
    let journal = state.path().join("sessions/a/journal.jsonl");
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    let chunk = extract::read_from(&journal, 0, true).unwrap();
    for _ in 0..2 {
        store::add_chunk(index.connection(), "a", &chunk, false, None).unwrap();
    }
    assert_eq!(found(&mut index, "twice").len(), 1);
    index.catch_up().unwrap();
    assert_eq!(found(&mut index, "twice").len(), 1);
}

#[test]
fn of_two_equal_matches_the_recent_one_ranks_first() {
    let state = tempfile::tempdir().unwrap();
    let today = chrono::Utc::now().to_rfc3339();
    session(
        state.path(),
        "old",
        "2024-01-01T00:00:00Z",
        &["same words here"],
    );
    session(state.path(), "new", &today, &["same words here"]);
    // A word in every document weighs nothing in BM25.
    session(
        state.path(),
        "other",
        &today,
        &["unrelated", "things", "entirely"],
    );
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    let hits = index.search("words", None, 10).unwrap().hits;
    assert_eq!(hits[0].session_id, "new");
    assert!(hits[0].score > hits[1].score * 5.0, "{hits:?}");
}

#[test]
fn a_common_word_ranks_the_newest_matches() {
    let state = tempfile::tempdir().unwrap();
    let texts: Vec<String> = (0..2500).map(|n| format!("common word{n}")).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    session(state.path(), "many", NOW, &texts);
    session(state.path(), "rest", NOW, &["other", "things", "entirely"]);
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    let hits = index.search("common", None, 5).unwrap().hits;
    assert_eq!(hits.len(), 5);
    assert!(hits.iter().all(|hit| hit.seq > 500), "{hits:?}");
    // The oldest is still found by a word of its own, and in its session.
    assert_eq!(found(&mut index, "common word0"), vec![("many".into(), 1)]);
    assert_eq!(
        index
            .search("common", Some("many"), 3000)
            .unwrap()
            .hits
            .len(),
        2500
    );
}

/// `agent_bm25` over every match of `query` (with the length in `docs`,
/// as the ranking calls it), beside FTS5's `bm25`.
fn both_scores(index: &mut Index, query: &str, hits: &[(u64, u64)]) -> Vec<(f64, f64)> {
    let conn = index.connection();
    let sql = format!(
        "SELECT -bm25(fts), {}(fts, ?2, d.len) FROM fts \
         CROSS JOIN docs d ON d.rowid = fts.rowid WHERE fts MATCH ?1",
        bm25::NAME
    );
    let mut statement = conn.prepare(&sql).unwrap();
    statement
        .query_map(params![query, bm25::hits_blob(hits)], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn agent_bm25_is_fts5_bm25_when_the_counts_are_exact() {
    let state = tempfile::tempdir().unwrap();
    session(
        state.path(),
        "a",
        NOW,
        &[
            "red fox jumps",
            "red red fox",
            "a blue fox and a red hen and more words here",
            "blue hen",
            "nothing at all",
        ],
    );
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    let scores = both_scores(&mut index, "\"red\" \"fox\"", &[(3, 0), (3, 0)]);
    assert_eq!(scores.len(), 3);
    for (theirs, ours) in scores {
        assert!(
            theirs > 0.0 && (theirs - ours).abs() < 1e-9,
            "{theirs} {ours}"
        );
    }
}

#[test]
fn a_count_estimated_from_the_newest_matches_is_close() {
    let state = tempfile::tempdir().unwrap();
    // One document in five has the word: its newest 500 matches span
    // 2,500 documents of 3,000.
    let texts: Vec<String> = (0..3000)
        .map(|n| match n % 5 {
            0 => format!("often filler{n}"),
            _ => format!("filler{n} other"),
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    session(state.path(), "a", NOW, &texts);
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    let counts = rank::phrase_counts(index.connection(), &["\"often\"".to_owned()]).unwrap();
    assert_eq!(counts.len(), 1);
    assert_eq!(counts[0].0, 500, "the walk stops at the bound");
    assert!((2490..=2500).contains(&counts[0].1), "{counts:?}");
    let scores = both_scores(&mut index, "\"often\"", &counts);
    assert_eq!(scores.len(), 600);
    for (theirs, ours) in scores {
        assert!((theirs - ours).abs() < theirs * 0.01, "{theirs} {ours}");
    }
}

#[test]
fn a_session_search_finds_its_matches_between_other_sessions() {
    let state = tempfile::tempdir().unwrap();
    session(state.path(), "a", NOW, &["alpha one"]);
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    session(state.path(), "b", NOW, &["alpha two", "alpha three"]);
    index.catch_up().unwrap();
    session(state.path(), "a", NOW, &["alpha four"]);
    index.catch_up().unwrap();
    let seqs = |index: &mut Index, id: &str| -> Vec<(String, u64)> {
        let mut hits: Vec<_> = index
            .search("alpha", Some(id), 10)
            .unwrap()
            .hits
            .into_iter()
            .map(|hit| (hit.session_id, hit.seq))
            .collect();
        hits.sort();
        hits
    };
    assert_eq!(
        seqs(&mut index, "a"),
        vec![("a".into(), 1), ("a".into(), 2)]
    );
    assert_eq!(
        seqs(&mut index, "b"),
        vec![("b".into(), 1), ("b".into(), 2)]
    );
    assert!(seqs(&mut index, "nobody").is_empty());
    assert_eq!(found(&mut index, "alpha").len(), 4);
}

/// The schema of format 1, before `docs.len`.
const FORMAT_1: &str = "
CREATE TABLE sessions(sid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
    indexed_bytes INTEGER NOT NULL DEFAULT 0, last_seq INTEGER NOT NULL DEFAULT 0,
    events INTEGER NOT NULL DEFAULT 0, body_bytes INTEGER NOT NULL DEFAULT 0,
    started TEXT, last_ts TEXT, last_epoch INTEGER NOT NULL DEFAULT 0, work_dir TEXT,
    model TEXT, dropped INTEGER NOT NULL DEFAULT 0);
CREATE TABLE docs(rowid INTEGER PRIMARY KEY, sid INTEGER NOT NULL, seq INTEGER NOT NULL,
    epoch INTEGER NOT NULL, ts TEXT NOT NULL, kind INTEGER NOT NULL);
CREATE INDEX docs_by_session ON docs(sid);
CREATE VIRTUAL TABLE fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
PRAGMA user_version = 1;
";

#[test]
fn an_index_of_format_1_is_rebuilt_as_format_2_with_the_same_hits() {
    let state = tempfile::tempdir().unwrap();
    session(state.path(), "a", NOW, &["plum jam", "plum tart", "other"]);
    session(state.path(), "b", NOW, &["a plum", "nothing"]);
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    let expected = found(&mut index, "plum");
    assert_eq!(expected.len(), 3);
    drop(index);
    // What format 1 left: every journal read, no lengths in `docs`.
    let path = state.path().join(INDEX_FILE);
    store::remove(&path);
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(FORMAT_1).unwrap();
    for (id, bytes) in ["a", "b"].map(|id| {
        let journal = state.path().join("sessions").join(id).join("journal.jsonl");
        (id, std::fs::metadata(journal).unwrap().len() as i64)
    }) {
        conn.execute(
            "INSERT INTO sessions(id, indexed_bytes) VALUES (?1, ?2)",
            params![id, bytes],
        )
        .unwrap();
    }
    drop(conn);
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    let version: i64 = index
        .connection()
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap();
    assert_eq!(version, 2);
    assert_eq!(found(&mut index, "plum"), expected);
}

#[test]
fn docs_len_is_the_token_count_fts5_ranks_with() {
    let state = tempfile::tempdir().unwrap();
    let long = "word ".repeat(300);
    session(
        state.path(),
        "a",
        NOW,
        &["one word", "Ünïcödé foo.rs, a-b word", &long],
    );
    let mut index = Index::open(state.path(), u64::MAX).unwrap();
    index.catch_up().unwrap();
    let conn = index.connection();
    let sql = format!(
        "SELECT d.len, {name}(fts, ?2, d.len), {name}(fts, ?2) FROM fts \
         CROSS JOIN docs d ON d.rowid = fts.rowid WHERE fts MATCH ?1 ORDER BY d.rowid",
        name = bm25::NAME
    );
    let rows: Vec<(i64, f64, f64)> = conn
        .prepare(&sql)
        .unwrap()
        .query_map(params!["word", bm25::hits_blob(&[(3, 0)])], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let lens: Vec<i64> = rows.iter().map(|row| row.0).collect();
    assert_eq!(lens, vec![2, 6, 300]);
    for (_, given, asked) in rows {
        assert!(
            given > 0.0 && (given - asked).abs() < 1e-12,
            "{given} {asked}"
        );
    }
}

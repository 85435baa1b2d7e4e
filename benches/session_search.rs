//! Session search at scale: query latency over an index of 100,000 (and,
//! with the env var below, 1,000,000) messages, its size on disk, and
//! what keeping it in step costs a session per iteration.
//!
//! ```text
//! cargo bench --bench session_search
//! SEARCH_BENCH_MESSAGES=100000,1000000 cargo bench --bench session_search
//! ```
//!
//! The messages are synthetic: words drawn from a vocabulary of 20,000
//! with Zipf frequencies (so some words are in most documents and most
//! words in few), 45 words on average, a mix of user messages, assistant
//! text, tool calls and tool outputs, spread over the last 60 days.
//! Writing a million of them as journals and reading them back would
//! measure JSON, not the index, so the index is filled directly through
//! the same insert code a catch-up uses (`store::insert_docs`), one
//! transaction per session of 200 messages. The per-iteration cost is
//! measured the real way: one iteration's events appended to a real
//! journal, then the catch-up the session runs after its checkpoint
//! (`Index::open` + `catch_up_session`).

// A benchmark stops at its first failure, and its report is its output.
#![allow(clippy::expect_used, clippy::print_stdout)]

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use agent::state::search::extract::{Doc, Kind};
use agent::state::search::{Index, store};
use anyhow::Context;

const VOCABULARY: usize = 20_000;
const PER_SESSION: usize = 200;
const QUERIES: usize = 200;
const DAY: i64 = 86_400;

fn main() -> anyhow::Result<()> {
    let sizes = std::env::var("SEARCH_BENCH_MESSAGES").unwrap_or_else(|_| "100000".to_owned());
    println!("load before: {}", load());
    for size in sizes.split(',') {
        let size: usize = size.trim().parse().context("SEARCH_BENCH_MESSAGES")?;
        run(size)?;
    }
    println!("load after: {}", load());
    Ok(())
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .trim()
        .to_owned()
}

struct Words {
    words: Vec<String>,
    /// Cumulative Zipf weights.
    cumulative: Vec<f64>,
    rng: fastrand::Rng,
}

impl Words {
    fn new() -> Self {
        let syllables = [
            "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "do", "fe", "gi",
            "ho", "ju", "be", "cy", "wa", "xo",
        ];
        // Three syllables make 8,000 words; past those a fourth keeps
        // every rank a word of its own (before, rank 8,000 was rank 0
        // again, so a third of the "rare" words were common ones).
        let words = (0..VOCABULARY)
            .map(|n| {
                let (a, b, c) = (n % 20, (n / 20) % 20, (n / 400) % 20);
                let tail = match n / 8000 {
                    0 => "",
                    round => syllables[round - 1],
                };
                format!("{}{}{}{tail}", syllables[a], syllables[b], syllables[c])
            })
            .collect();
        let mut total = 0.0;
        let cumulative = (1..=VOCABULARY)
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect();
        Words {
            words,
            cumulative,
            rng: fastrand::Rng::with_seed(7),
        }
    }

    fn pick(&mut self) -> &str {
        let total = self.cumulative[VOCABULARY - 1];
        let at = self.rng.f64() * total;
        let rank = self.cumulative.partition_point(|&c| c < at);
        &self.words[rank.min(VOCABULARY - 1)]
    }

    fn text(&mut self, words: usize) -> String {
        let mut text = String::with_capacity(words * 7);
        for _ in 0..words {
            if !text.is_empty() {
                text.push(' ');
            }
            let word = self.pick().to_owned();
            text.push_str(&word);
        }
        text
    }

    fn doc(&mut self, seq: u64, now: i64) -> Doc {
        let (kind, words) = match self.rng.u32(0..10) {
            0 => (Kind::UserMessage, self.rng.usize(10..60)),
            1..=3 => (Kind::AssistantText, self.rng.usize(15..90)),
            4..=6 => (Kind::ToolCall, self.rng.usize(3..15)),
            _ => (Kind::ToolResult, self.rng.usize(20..110)),
        };
        let mut body = self.text(words);
        // One in a thousand carries a unique marker (a needle query).
        if seq % 1000 == 7 {
            body.push_str(&format!(" needle{seq}x"));
        }
        Doc {
            seq,
            ts: String::new(),
            epoch: now - self.rng.i64(0..60 * DAY),
            kind,
            body,
        }
    }
}

fn run(messages: usize) -> anyhow::Result<()> {
    println!("\n== {messages} messages");
    let dir = tempfile::tempdir()?;
    let state = dir.path();
    std::fs::create_dir_all(state.join("sessions"))?;
    let mut index = Index::open(state, u64::MAX)?;
    let mut words = Words::new();
    let now = chrono::Utc::now().timestamp();
    let started = Instant::now();
    let mut seq_total = 0u64;
    for session in 0..messages.div_ceil(PER_SESSION) {
        let count = PER_SESSION.min(messages - session * PER_SESSION);
        let docs: Vec<Doc> = (0..count)
            .map(|_| {
                seq_total += 1;
                words.doc(seq_total, now)
            })
            .collect();
        let conn = index.connection();
        let tx = conn.transaction()?;
        let sid = store::session_id(&tx, &format!("synthetic-{session:06}"))?;
        store::insert_docs(&tx, sid, &docs)?;
        tx.commit()?;
    }
    let fill = started.elapsed();
    let file = std::fs::metadata(state.join("search.sqlite"))?.len();
    let wal = std::fs::metadata(state.join("search.sqlite-wal")).map_or(0, |meta| meta.len());
    println!(
        "filled in {:.1} s ({:.0} messages/s); index {:.1} MiB (+ WAL {:.1} MiB), {:.0} bytes per message",
        fill.as_secs_f64(),
        messages as f64 / fill.as_secs_f64(),
        file as f64 / 1048576.0,
        wal as f64 / 1048576.0,
        file as f64 / messages as f64
    );
    queries(&mut index, &mut words, messages)?;
    iteration_cost(state, &mut index)?;
    Ok(())
}

fn percentiles(mut times: Vec<Duration>) -> String {
    times.sort();
    let at = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    format!(
        "p50 {:>7.2} ms  p95 {:>7.2} ms  max {:>7.2} ms",
        at(0.50).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3
    )
}

/// A query's words, and the session it is limited to.
type Query = (String, Option<String>);

fn queries(index: &mut Index, words: &mut Words, messages: usize) -> anyhow::Result<()> {
    let mut rng = fastrand::Rng::with_seed(11);
    let word = |rng: &mut fastrand::Rng, ranks: std::ops::Range<usize>| {
        words.words[rng.usize(ranks)].clone()
    };
    let sets: Vec<(&str, Vec<String>)> = vec![
        (
            "rare word (rank 2,000-20,000)",
            (0..QUERIES)
                .map(|_| word(&mut rng, 2_000..VOCABULARY))
                .collect(),
        ),
        (
            "middling word (rank 100-2,000)",
            (0..QUERIES).map(|_| word(&mut rng, 100..2_000)).collect(),
        ),
        (
            "two middling words",
            (0..QUERIES)
                .map(|_| {
                    format!(
                        "{} {}",
                        word(&mut rng, 100..2_000),
                        word(&mut rng, 100..2_000)
                    )
                })
                .collect(),
        ),
        (
            "a unique marker",
            (0..QUERIES)
                .map(|_| format!("needle{}x", rng.usize(0..messages / 1000) * 1000 + 7))
                .collect(),
        ),
        (
            "common word (rank 10-100)",
            (0..QUERIES / 4).map(|_| word(&mut rng, 10..100)).collect(),
        ),
        (
            "most common word (rank 0-3)",
            (0..10).map(|_| word(&mut rng, 0..3)).collect(),
        ),
    ];
    let sessions = messages.div_ceil(PER_SESSION);
    let in_session: Vec<Query> = (0..QUERIES)
        .map(|_| {
            (
                word(&mut rng, 100..2_000),
                Some(format!("synthetic-{:06}", rng.usize(0..sessions))),
            )
        })
        .collect();
    let mut sets: Vec<(&str, Vec<Query>)> = sets
        .into_iter()
        .map(|(name, set)| (name, set.into_iter().map(|q| (q, None)).collect()))
        .collect();
    sets.push(("middling word, one session", in_session));
    let mut typical = Vec::new();
    for (name, set) in &sets {
        let mut times = Vec::with_capacity(set.len());
        let mut hits = 0usize;
        for (query, session) in set {
            let started = Instant::now();
            let results = index.search(query, session.as_deref(), 20)?;
            times.push(started.elapsed());
            hits += results.hits.len();
        }
        if !name.starts_with("common") && !name.starts_with("most") && !name.ends_with("session") {
            typical.extend(times.iter().copied());
        }
        println!(
            "{name:<32} {}  ({:.1} hits/query, limit 20)",
            percentiles(times),
            hits as f64 / set.len() as f64
        );
    }
    println!(
        "{:<32} {}",
        "the four typical sets together",
        percentiles(typical)
    );
    Ok(())
}

/// One iteration's events as the journal holds them: a user message,
/// 20 text deltas, an exec call with its log and a 2 KiB result, usage,
/// a checkpoint.
fn iteration(seq: &mut u64, iteration: u32, words: &mut Words) -> String {
    let mut out = String::new();
    let ts = chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string();
    let mut line = |value: serde_json::Value| {
        *seq += 1;
        let mut value = value;
        value["_seq"] = (*seq).into();
        value["ts"] = ts.clone().into();
        out.push_str(&value.to_string());
        out.push('\n');
    };
    use serde_json::json;
    line(json!({"type": "user-message", "text": words.text(30), "source": "inject"}));
    for _ in 0..20 {
        line(json!({"type": "text-delta", "delta": words.text(5), "iteration": iteration}));
    }
    line(
        json!({"type": "tool-call-start", "id": "c", "name": "exec", "args": {"command": words.text(6)}, "iteration": iteration}),
    );
    for _ in 0..5 {
        line(json!({"type": "exec-log", "id": "c", "stream": "stdout", "data": words.text(20)}));
    }
    line(
        json!({"type": "tool-result", "id": "c", "name": "exec", "ok": true, "output": words.text(300), "truncated": false, "duration_ms": 5}),
    );
    line(
        json!({"type": "usage-update", "input_tokens": 1, "output_tokens": 1, "cached_input_tokens": 0, "reasoning_tokens": 0, "total_input_tokens": 1, "total_output_tokens": 1}),
    );
    line(
        json!({"type": "checkpoint-saved", "iteration": iteration, "checkpoint": "x", "files_changed": 1}),
    );
    out
}

fn iteration_cost(state: &Path, index: &mut Index) -> anyhow::Result<()> {
    let dir = state.join("sessions/live");
    std::fs::create_dir_all(&dir)?;
    let mut journal = std::fs::File::create(dir.join("journal.jsonl"))?;
    let mut words = Words::new();
    let mut seq = 0;
    let mut times = Vec::new();
    let mut opens = Vec::new();
    for n in 1..=40u32 {
        journal.write_all(iteration(&mut seq, n, &mut words).as_bytes())?;
        let started = Instant::now();
        let mut fresh = Index::open(state, u64::MAX)?;
        opens.push(started.elapsed());
        fresh.catch_up_session("live")?;
        times.push(started.elapsed());
    }
    let found = index.search("needle7x", None, 5)?;
    anyhow::ensure!(!found.hits.is_empty(), "the marker of message 7 is found");
    println!(
        "catch-up of one iteration (31 events), open included: {}",
        percentiles(times)
    );
    println!("  of which opening the index:     {}", percentiles(opens));
    Ok(())
}

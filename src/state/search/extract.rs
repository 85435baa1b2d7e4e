//! What of a journal is indexed: the lines after a byte offset become
//! documents. User messages, the assistant's text (its `text-delta`
//! events joined), each tool call's name and a short summary of its
//! arguments, and the first and last 2 KiB of each tool result, all as
//! the journal holds them: masked by the writer before they were
//! written. Reasoning is never indexed, nor diffs, logs or usage.

use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::Value;

use super::query::clean;

/// Of a tool result, this much of its start and of its end.
const RESULT_END_BYTES: usize = 2 * 1024;
/// Of a user message or the assistant's text, this much of each end.
const TEXT_END_BYTES: usize = 16 * 1024;
/// One argument's value in a call's summary, at most.
const ARG_BYTES: usize = 200;
/// A call's whole summary, at most.
const CALL_BYTES: usize = 1024;
/// A journal line longer than this is skipped: no event the writer makes
/// is (tool output in events is capped at 16 KiB), and a reader must not
/// hold an unbounded line.
const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// What a document is, as search results name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    UserMessage,
    AssistantText,
    ToolCall,
    ToolResult,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::UserMessage,
        Kind::AssistantText,
        Kind::ToolCall,
        Kind::ToolResult,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::UserMessage => "user-message",
            Kind::AssistantText => "assistant-text",
            Kind::ToolCall => "tool-call",
            Kind::ToolResult => "tool-result",
        }
    }

    pub fn code(self) -> i64 {
        match self {
            Kind::UserMessage => 1,
            Kind::AssistantText => 2,
            Kind::ToolCall => 3,
            Kind::ToolResult => 4,
        }
    }

    pub fn from_code(code: i64) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.code() == code)
    }
}

/// One indexed piece of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    /// The `_seq` of its event (of the first `text-delta` for text).
    pub seq: u64,
    pub ts: String,
    /// `ts` in seconds since the epoch (0 when it cannot be read).
    pub epoch: i64,
    pub kind: Kind,
    pub body: String,
}

/// What reading a journal from an offset found.
#[derive(Debug, Default)]
pub struct Chunk {
    pub docs: Vec<Doc>,
    /// Where the next read starts: after the last line read whole, or at
    /// the start of an assistant text that may not have ended yet.
    pub end: u64,
    pub events: u64,
    pub last_seq: u64,
    pub first_ts: Option<String>,
    pub last_ts: Option<String>,
    pub last_epoch: i64,
    /// From `session-start`, if the chunk holds one.
    pub work_dir: Option<String>,
    pub model: Option<String>,
}

/// An assistant text still being joined.
struct Text {
    /// Where its first line starts, and the counts before it.
    start: u64,
    events_before: u64,
    seq_before: u64,
    seq: u64,
    ts: String,
    iteration: u64,
    text: String,
}

/// Reads `journal` from byte `offset`. With `finished` (no process
/// writes it any more) an assistant text at the very end is indexed;
/// otherwise it is read again next time, when it may have grown.
pub fn read_from(journal: &Path, offset: u64, finished: bool) -> std::io::Result<Chunk> {
    let mut file = std::fs::File::open(journal)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, file);
    let mut chunk = Chunk {
        end: offset,
        ..Chunk::default()
    };
    let mut text: Option<Text> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 || line.last() != Some(&b'\n') {
            if read > MAX_LINE_BYTES {
                // Too long to be an event: skipped up to its end.
                chunk.end += read as u64;
                skip_line(&mut reader, &mut chunk.end)?;
                continue;
            }
            // The end, or a line still being written: read next time.
            break;
        }
        let start = chunk.end;
        chunk.end += read as u64;
        let Ok(event) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        take_event(&event, start, &mut text, &mut chunk);
    }
    if let Some(open) = text {
        if finished {
            chunk.docs.push(open.into_doc());
        } else {
            chunk.end = open.start;
            chunk.events = open.events_before;
            chunk.last_seq = open.seq_before;
        }
    }
    Ok(chunk)
}

fn skip_line(reader: &mut impl BufRead, end: &mut u64) -> std::io::Result<()> {
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        let (used, done) = match buffer.iter().position(|&byte| byte == b'\n') {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        reader.consume(used);
        *end += used as u64;
        if done {
            return Ok(());
        }
    }
}

fn take_event(event: &Value, start: u64, text: &mut Option<Text>, chunk: &mut Chunk) {
    let kind = event["type"].as_str().unwrap_or_default();
    let seq = event["_seq"].as_u64().unwrap_or(0);
    let ts = event["ts"].as_str().unwrap_or_default().to_owned();
    let epoch = epoch_of(&ts);
    if kind == "text-delta" {
        let iteration = event["iteration"].as_u64().unwrap_or(0);
        let delta = event["delta"].as_str().unwrap_or_default();
        match text {
            Some(open) if open.iteration == iteration => open.text.push_str(delta),
            _ => {
                if let Some(done) = text.take() {
                    chunk.docs.push(done.into_doc());
                }
                *text = Some(Text {
                    start,
                    events_before: chunk.events,
                    seq_before: chunk.last_seq,
                    seq,
                    ts: ts.clone(),
                    iteration,
                    text: delta.to_owned(),
                });
            }
        }
    } else if kind != "reasoning-delta"
        && let Some(done) = text.take()
    {
        // Reasoning may come between pieces of text; anything else ends it.
        chunk.docs.push(done.into_doc());
    }
    chunk.events += 1;
    chunk.last_seq = chunk.last_seq.max(seq);
    if chunk.first_ts.is_none() && !ts.is_empty() {
        chunk.first_ts = Some(ts.clone());
    }
    if !ts.is_empty() {
        chunk.last_ts = Some(ts.clone());
        chunk.last_epoch = chunk.last_epoch.max(epoch);
    }
    let doc = |kind: Kind, body: String| Doc {
        seq,
        ts: ts.clone(),
        epoch,
        kind,
        body: clean(&body),
    };
    match kind {
        "session-start" => {
            chunk.work_dir = event["work_dir"].as_str().map(str::to_owned);
            chunk.model = event["model"].as_str().map(str::to_owned);
        }
        "user-message" => {
            let text = event["text"].as_str().unwrap_or_default();
            chunk
                .docs
                .push(doc(Kind::UserMessage, ends(text, TEXT_END_BYTES)));
        }
        "tool-call-start" => {
            let name = event["name"].as_str().unwrap_or_default();
            let summary = summary(&event["args"]);
            chunk
                .docs
                .push(doc(Kind::ToolCall, format!("{name} {summary}")));
        }
        // What a search found is in the index already: indexed again, every
        // later search would find its own earlier answers.
        "tool-result" if event["name"] == "session_search" => {}
        "tool-result" => {
            let name = event["name"].as_str().unwrap_or_default();
            let output = event["output"].as_str().unwrap_or_default();
            chunk.docs.push(doc(
                Kind::ToolResult,
                format!("{name} {}", ends(output, RESULT_END_BYTES)),
            ));
        }
        _ => {}
    }
}

impl Text {
    fn into_doc(self) -> Doc {
        Doc {
            seq: self.seq,
            epoch: epoch_of(&self.ts),
            ts: self.ts,
            kind: Kind::AssistantText,
            body: clean(&ends(&self.text, TEXT_END_BYTES)),
        }
    }
}

/// Seconds since the epoch of an RFC 3339 time, 0 when it is not one.
pub fn epoch_of(ts: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(ts).map_or(0, |time| time.timestamp())
}

/// The first and last `each` bytes of `text` (cut on character
/// boundaries), joined by an ellipsis when something was left out.
fn ends(text: &str, each: usize) -> String {
    if text.len() <= 2 * each {
        return text.to_owned();
    }
    let head = text.floor_char_boundary(each);
    let tail = text.ceil_char_boundary(text.len() - each);
    format!("{} … {}", &text[..head], &text[tail..])
}

/// A call's arguments in a line: `key=value` for each, values cut short.
fn summary(args: &Value) -> String {
    let Value::Object(map) = args else {
        return String::new();
    };
    let mut out = String::new();
    for (key, value) in map {
        let value = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let value = &value[..value.floor_char_boundary(ARG_BYTES)];
        if out.len() + key.len() + value.len() + 2 > CALL_BYTES {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(key);
        out.push('=');
        out.push_str(value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn journal(lines: &[serde_json::Value]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut file = std::fs::File::create(&path).unwrap();
        for line in lines {
            writeln!(file, "{line}").unwrap();
        }
        (dir, path)
    }

    fn event(seq: u64, kind: &str, rest: serde_json::Value) -> serde_json::Value {
        let mut event =
            serde_json::json!({"type": kind, "_seq": seq, "ts": "2026-01-02T03:04:05.000Z"});
        for (key, value) in rest.as_object().unwrap() {
            event[key] = value.clone();
        }
        event
    }

    #[test]
    fn the_indexed_events_and_nothing_else() {
        use serde_json::json;
        let (_dir, path) = journal(&[
            event(1, "session-start", json!({"work_dir": "/w", "model": "m"})),
            event(
                2,
                "user-message",
                json!({"text": "find the bug", "source": "prompt"}),
            ),
            event(
                3,
                "reasoning-delta",
                json!({"delta": "secret thoughts", "iteration": 1}),
            ),
            event(4, "text-delta", json!({"delta": "I will ", "iteration": 1})),
            event(
                5,
                "reasoning-delta",
                json!({"delta": "more thoughts", "iteration": 1}),
            ),
            event(6, "text-delta", json!({"delta": "look.", "iteration": 1})),
            event(
                7,
                "tool-call-start",
                json!({"id": "c", "name": "exec", "args": {"command": "cargo test", "timeout": 5}, "iteration": 1}),
            ),
            event(
                8,
                "tool-result",
                json!({"id": "c", "name": "exec", "ok": true, "output": "ok", "truncated": false, "duration_ms": 1}),
            ),
            event(
                9,
                "file-complete",
                json!({"id": "c", "path": "a", "op": "create", "bytes": 1, "diff": "+diffword"}),
            ),
            event(
                10,
                "tool-result",
                json!({"id": "d", "name": "session_search", "ok": true, "output": "old hits", "truncated": false, "duration_ms": 1}),
            ),
        ]);
        let chunk = read_from(&path, 0, false).unwrap();
        let docs: Vec<(u64, &str, &str)> = chunk
            .docs
            .iter()
            .map(|doc| (doc.seq, doc.kind.name(), doc.body.as_str()))
            .collect();
        assert_eq!(
            docs,
            vec![
                (2, "user-message", "find the bug"),
                (4, "assistant-text", "I will look."),
                (7, "tool-call", "exec command=cargo test timeout=5"),
                (8, "tool-result", "exec ok"),
            ]
        );
        assert_eq!((chunk.events, chunk.last_seq), (10, 10));
        assert_eq!(chunk.end, std::fs::metadata(&path).unwrap().len());
        assert_eq!(chunk.work_dir.as_deref(), Some("/w"));
        assert_eq!(chunk.docs[0].epoch, 1_767_323_045);
    }

    #[test]
    fn a_text_at_the_end_waits_unless_the_journal_is_finished() {
        use serde_json::json;
        let (_dir, path) = journal(&[
            event(1, "user-message", json!({"text": "hi", "source": "prompt"})),
            event(2, "text-delta", json!({"delta": "half", "iteration": 1})),
        ]);
        let first_line = std::fs::read_to_string(&path).unwrap().find('\n').unwrap() as u64 + 1;
        let open = read_from(&path, 0, false).unwrap();
        assert_eq!((open.docs.len(), open.end, open.events), (1, first_line, 1));
        let again = read_from(&path, open.end, false).unwrap();
        assert_eq!((again.docs.len(), again.end), (0, first_line));
        let done = read_from(&path, open.end, true).unwrap();
        assert_eq!(done.docs[0].body, "half");
        assert_eq!(done.events, 1);
    }

    #[test]
    fn a_line_being_written_is_left_for_next_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let whole = r#"{"type":"user-message","_seq":1,"ts":"x","text":"one","source":"prompt"}"#;
        std::fs::write(&path, format!("{whole}\n{{\"type\":\"user-mess")).unwrap();
        let chunk = read_from(&path, 0, true).unwrap();
        assert_eq!(chunk.docs.len(), 1);
        assert_eq!(chunk.end, whole.len() as u64 + 1);
    }

    #[test]
    fn long_outputs_keep_their_ends() {
        let output = format!("{}MIDDLE{}", "a".repeat(3000), "z".repeat(3000));
        let kept = ends(&output, RESULT_END_BYTES);
        assert!(!kept.contains("MIDDLE"));
        assert!(kept.starts_with(&"a".repeat(2048)) && kept.ends_with(&"z".repeat(2048)));
        let wide = "é".repeat(3000);
        assert!(ends(&wide, RESULT_END_BYTES).len() <= 2 * RESULT_END_BYTES + 8);
    }
}

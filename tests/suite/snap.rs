//! A session's event stream as a snapshot that reads like the contract's
//! examples: one line per event, `_seq` first, then the `type`, then the
//! rest of the event as compact JSON in the order the agent wrote it.
//!
//! ```text
//!  1 session-start {"session_id":"[SESSION]","model":"pro",...,"work_dir":"[WORK]",...}
//!  2 user-message {"text":"write hello","source":"prompt"}
//!  3 activity {"activity":"writing-file","tool_call_id":"call_w"}
//! ```
//!
//! `ts` is left out ([`check_stream`](super::check_stream) has checked it on
//! every line). What changes from run to run or machine to machine becomes a
//! `[PLACEHOLDER]`, after its shape is checked, so the snapshot still pins
//! that the field is there and what kind of value it holds:
//!
//! | what | becomes |
//! |---|---|
//! | `session_id` made by the agent (`s-<UTC time>-<8 hex>`), wherever it appears (checkpoint paths) | `[SESSION]` |
//! | `version` of `session-start` (crate version + git revision) | `[VERSION]` |
//! | `sandbox` of `session-start` (what this kernel's Landlock allows) | `[SANDBOX]` |
//! | `duration_ms` (`tool-result`, `session-end`) | `[MS]` |
//! | `deadline` of `hitl-request` when it is a time | `[DEADLINE]` |
//! | the time in a command's result, `[exit code 0, 7 ms]` | `[exit code 0, [MS] ms]` |
//! | the environment's folders: state, work, home, temp root | `[STATE]`, `[WORK]`, `[HOME]`, `[ROOT]` |
//! | the mock server's `http://127.0.0.1:PORT` | `[SERVER]` |
//! | with the scripted model, `input_tokens` and `total_input_tokens` (`usage-update`, `session-end`): it estimates them from the conversation's size, and the conversation holds the temp work dir's path and each command's time | `[ESTIMATE]` |
//!
//! The scripted model is assumed when the environment wrote a script
//! ([`TestEnv::script`]); [`Snap::estimated_input`] says so for a script
//! from elsewhere.
//!
//! Every event is kept by default. [`Snap::coalesce`] joins each run of
//! streamed pieces (`text-delta`, `reasoning-delta`, `file-delta`, and a
//! command's `exec-log`) into one line whose `_seq` is the run's range:
//! `5-9 text-delta {"delta":"All done.","iteration":2}`. How a model's text
//! is cut into pieces is rarely the point of a test; and how a command's
//! stdout and stderr interleave is not defined (two pipes, read as they
//! become ready), so a command's run of `exec-log` is one line per stream,
//! stdout first (the second line has no `_seq` of its own), and its
//! `tool-result` output, when it starts with some interleaving of the two,
//! shows stdout, then stderr. A test of how pieces are cut keeps every
//! event and asserts on them. [`Snap::skip`] leaves out whole kinds; their
//! `_seq` numbers stay missing, so the gap shows.
//!
//! ```ignore
//! let run = env.run(&["--prompt", "write hello"]);
//! insta::assert_snapshot!(env.snap().coalesce().render(&run));
//! ```
//!
//! A new or changed snapshot fails the test and is written beside the old
//! one as `.snap.new` to review (`cargo insta review`, or rename it); with
//! `CI=true` nothing is written (see the README's test section).

use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value};

use super::{Finished, TestEnv};

impl TestEnv {
    /// The snapshot renderer for runs in this environment (its folders and
    /// its mock server are filtered).
    pub fn snap(&self) -> Snap {
        let root = self.root.path();
        let mut snap = Snap {
            coalesce: false,
            estimated_input: root.join("script.json").exists(),
            skip: Vec::new(),
            replace: Vec::new(),
        };
        snap = snap
            .path(&self.state_dir(), "[STATE]")
            .path(&self.work, "[WORK]")
            .path(&root.join("home"), "[HOME]")
            .path(root, "[ROOT]");
        if let Some(origin) = origin(&self.api_url) {
            snap = snap.text(&origin, "[SERVER]");
        }
        snap
    }
}

/// How a [`Finished`] run becomes snapshot text; see the module doc.
pub struct Snap {
    coalesce: bool,
    estimated_input: bool,
    skip: Vec<String>,
    /// Literal replacements, longest first when applied.
    replace: Vec<(String, String)>,
}

impl Snap {
    /// Joins runs of streamed pieces into one line each.
    pub fn coalesce(mut self) -> Snap {
        self.coalesce = true;
        self
    }

    /// The run's model was the scripted one: its input token counts are
    /// estimates that vary with paths and timings.
    pub fn estimated_input(mut self) -> Snap {
        self.estimated_input = true;
        self
    }

    /// Leaves out the events of these types.
    pub fn skip(mut self, kinds: &[&str]) -> Snap {
        self.skip
            .extend(kinds.iter().map(|kind| (*kind).to_owned()));
        self
    }

    /// Writes `path` (and its canonical form) as `name` in every string.
    pub fn path(mut self, path: &Path, name: &str) -> Snap {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        for form in [path, canonical.as_path()] {
            let form = form.to_str().expect("a UTF-8 path").to_owned();
            if !self.replace.iter().any(|(from, _)| *from == form) {
                self.replace.push((form, name.to_owned()));
            }
        }
        self
    }

    /// Writes `from` as `to` in every string.
    pub fn text(mut self, from: &str, to: &str) -> Snap {
        self.replace.push((from.to_owned(), to.to_owned()));
        self
    }

    /// The snapshot text of a run's events, one line each.
    pub fn render(&self, run: &Finished) -> String {
        let mut replace = self.replace.clone();
        replace.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        let filters = Filters::new(replace);
        let events: Vec<(u64, String, Map<String, Value>)> = run
            .events
            .iter()
            .filter(|event| {
                let kind = event["type"].as_str().unwrap_or("");
                !self.skip.iter().any(|skip| skip == kind)
            })
            .map(|event| {
                let mut fields = event.as_object().expect("an event object").clone();
                let seq = fields
                    .shift_remove("_seq")
                    .and_then(|v| v.as_u64())
                    .expect("_seq");
                let kind = fields.shift_remove("type").expect("type");
                fields.shift_remove("ts");
                let kind = kind.as_str().expect("type is a string").to_owned();
                redact(&kind, &mut fields, self.estimated_input);
                let fields = match filters.value(Value::Object(fields)) {
                    Value::Object(fields) => fields,
                    _ => unreachable!("filters keep the shape"),
                };
                (seq, kind, fields)
            })
            .collect();
        let lines = if self.coalesce {
            coalesced(events)
        } else {
            events
                .into_iter()
                .map(|(seq, kind, fields)| Line {
                    seqs: Some((seq, seq)),
                    kind,
                    fields,
                })
                .collect()
        };
        let labels: Vec<String> = lines
            .iter()
            .map(|line| match line.seqs {
                Some((first, last)) if first == last => first.to_string(),
                Some((first, last)) => format!("{first}-{last}"),
                None => String::new(),
            })
            .collect();
        let width = labels.iter().map(String::len).max().unwrap_or(0);
        let mut out = String::new();
        for (label, line) in labels.iter().zip(&lines) {
            let fields = Value::Object(line.fields.clone()).to_string();
            out.push_str(&format!("{label:>width$} {} {fields}\n", line.kind));
        }
        out
    }
}

/// The `scheme://host:port` of a URL.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split('/').next()?;
    Some(format!("{scheme}://{host}"))
}

/// Placeholders for the fields that change between runs, after checking
/// their shape.
fn redact(kind: &str, fields: &mut Map<String, Value>, estimated_input: bool) {
    let mut set = |name: &str, placeholder: &str, shape_ok: fn(&Value) -> bool| {
        if let Some(value) = fields.get_mut(name) {
            assert!(shape_ok(value), "{kind}: unexpected {name}: {value}");
            if !value.is_null() {
                *value = Value::from(placeholder);
            }
        }
    };
    set("duration_ms", "[MS]", Value::is_u64);
    if estimated_input {
        set("input_tokens", "[ESTIMATE]", Value::is_u64);
        set("total_input_tokens", "[ESTIMATE]", Value::is_u64);
    }
    match kind {
        "session-start" => {
            set("version", "[VERSION]", |v| {
                v.as_str()
                    .is_some_and(|v| v.starts_with(env!("CARGO_PKG_VERSION")))
            });
            set("sandbox", "[SANDBOX]", Value::is_object);
        }
        // A time, or null for a request that waits for ever.
        "hitl-request" => set("deadline", "[DEADLINE]", |v| {
            v.is_null()
                || v.as_str()
                    .is_some_and(|v| v.len() == 24 && v.ends_with('Z'))
        }),
        _ => {}
    }
}

/// The literal and pattern filters applied to every string of an event.
struct Filters {
    replace: Vec<(String, String)>,
    patterns: Vec<(Regex, &'static str)>,
}

impl Filters {
    fn new(replace: Vec<(String, String)>) -> Filters {
        let patterns = [
            // The agent's own session ids; one given with --session-id stays.
            (r"\bs-\d{8}T\d{6}-[0-9a-f]{8}\b", "[SESSION]"),
            // The time a command took, in its result.
            (
                r"(\[(?:exit code -?\d+|killed by signal \d+|ended), )\d+ ms\]",
                "${1}[MS] ms]",
            ),
        ]
        .into_iter()
        .map(|(pattern, to)| (Regex::new(pattern).expect("a valid pattern"), to))
        .collect();
        Filters { replace, patterns }
    }

    fn string(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for (from, to) in &self.replace {
            text = text.replace(from.as_str(), to);
        }
        for (pattern, to) in &self.patterns {
            text = pattern.replace_all(&text, *to).into_owned();
        }
        text
    }

    fn value(&self, value: Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.string(&text)),
            Value::Array(items) => Value::Array(items.into_iter().map(|v| self.value(v)).collect()),
            Value::Object(fields) => Value::Object(
                fields
                    .into_iter()
                    .map(|(key, value)| (key, self.value(value)))
                    .collect(),
            ),
            other => other,
        }
    }
}

struct Line {
    /// The `_seq` range the line stands for; `None` for the second stream
    /// of a command's coalesced output.
    seqs: Option<(u64, u64)>,
    kind: String,
    fields: Map<String, Value>,
}

/// The field holding a streamed event's text, and the fields that say which
/// stream it belongs to. `exec-log` groups by call id only: its two streams
/// interleave as the pipes happen to be read.
fn streamed(kind: &str) -> Option<(&'static str, &'static [&'static str])> {
    match kind {
        "text-delta" | "reasoning-delta" => Some(("delta", &["iteration"])),
        "file-delta" => Some(("delta", &["id", "path"])),
        "exec-log" => Some(("data", &["id"])),
        _ => None,
    }
}

fn coalesced(events: Vec<(u64, String, Map<String, Value>)>) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut run: Vec<(u64, Map<String, Value>)> = Vec::new();
    let mut run_kind = String::new();
    // What each command wrote, joined per stream: (call id, stream) -> text.
    let mut exec_output: Vec<((String, String), String)> = Vec::new();
    for (seq, kind, mut fields) in events {
        let same_run = !run.is_empty()
            && kind == run_kind
            && streamed(&kind).is_some_and(|(_, keys)| {
                keys.iter()
                    .all(|key| fields.get(*key) == run[0].1.get(*key))
            });
        if !same_run && !run.is_empty() {
            lines.extend(joined(&run_kind, std::mem::take(&mut run)));
            if run_kind == "exec-log" {
                remember_exec_output(&lines, &mut exec_output);
            }
        }
        if streamed(&kind).is_some() {
            run_kind = kind;
            run.push((seq, fields));
            continue;
        }
        if kind == "tool-result" {
            stdout_first(&mut fields, &exec_output);
        }
        lines.push(Line {
            seqs: Some((seq, seq)),
            kind,
            fields,
        });
    }
    if !run.is_empty() {
        lines.extend(joined(&run_kind, run));
    }
    lines
}

/// One run of streamed pieces as one line, or one line per stream
/// (`exec-log`, stdout first).
fn joined(kind: &str, run: Vec<(u64, Map<String, Value>)>) -> Vec<Line> {
    let (text_field, _) = streamed(kind).expect("a streamed kind");
    let seqs = (run[0].0, run[run.len() - 1].0);
    let mut groups: Vec<(Option<String>, Map<String, Value>)> = Vec::new();
    for (_, fields) in run {
        let stream = fields
            .get("stream")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let piece = fields[text_field]
            .as_str()
            .expect("streamed text")
            .to_owned();
        match groups.iter_mut().find(|(key, _)| *key == stream) {
            Some((_, joined)) => {
                let text = joined[text_field].as_str().unwrap_or("").to_owned() + &piece;
                joined[text_field] = Value::String(text);
            }
            None => groups.push((stream, fields)),
        }
    }
    groups.sort_by_key(|(stream, _)| stream.as_deref() != Some("stdout"));
    groups
        .into_iter()
        .enumerate()
        .map(|(index, (_, fields))| Line {
            seqs: (index == 0).then_some(seqs),
            kind: kind.to_owned(),
            fields,
        })
        .collect()
}

/// Notes the text of the `exec-log` lines just joined at the end of `lines`.
fn remember_exec_output(lines: &[Line], exec_output: &mut Vec<((String, String), String)>) {
    for line in lines.iter().rev() {
        let field = |name: &str| line.fields[name].as_str().unwrap_or("").to_owned();
        exec_output.push(((field("id"), field("stream")), field("data")));
        if line.seqs.is_some() {
            break;
        }
    }
}

/// A command's result holds its stdout and stderr in the order the pipes
/// were read, which is not defined: when its text starts with some
/// interleaving of the two streams' `exec-log` text, that start is shown
/// as stdout, then stderr.
fn stdout_first(fields: &mut Map<String, Value>, exec_output: &[((String, String), String)]) {
    let id = fields.get("id").and_then(Value::as_str).unwrap_or("");
    let text_of = |stream: &str| {
        exec_output
            .iter()
            .find(|((call, which), _)| call == id && which == stream)
            .map(|(_, text)| text.as_str())
    };
    let (Some(out), Some(err)) = (text_of("stdout"), text_of("stderr")) else {
        return;
    };
    let Some(output) = fields.get("output").and_then(Value::as_str) else {
        return;
    };
    let length = out.len() + err.len();
    if output.len() >= length
        && output.is_char_boundary(length)
        && interleaves(&output.as_bytes()[..length], out.as_bytes(), err.as_bytes())
    {
        let ordered = format!("{out}{err}{}", &output[length..]);
        fields.insert("output".to_owned(), Value::String(ordered));
    }
}

/// Whether `whole` is `a` and `b` interleaved, each in its own order.
fn interleaves(whole: &[u8], a: &[u8], b: &[u8]) -> bool {
    // reachable[j]: the first i + j bytes of `whole` can be the first i of
    // `a` and the first j of `b` (for the current i).
    let mut reachable = vec![false; b.len() + 1];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            reachable[j] = if i == 0 && j == 0 {
                true
            } else {
                let from_a = i > 0 && reachable[j] && a[i - 1] == whole[i + j - 1];
                let from_b = j > 0 && reachable[j - 1] && b[j - 1] == whole[i + j - 1];
                from_a || from_b
            };
        }
    }
    reachable[b.len()]
}

#[test]
fn coalesce_joins_pieces_and_puts_a_commands_stdout_first() {
    let env = TestEnv::offline();
    let work = env.work.to_str().unwrap();
    let events: Vec<Value> = [
        serde_json::json!({"type": "text-delta", "delta": "Let me ", "iteration": 1}),
        serde_json::json!({"type": "text-delta", "delta": "look.", "iteration": 1}),
        serde_json::json!({"type": "exec-log", "id": "c", "stream": "stderr", "data": "e1\n"}),
        serde_json::json!({"type": "exec-log", "id": "c", "stream": "stdout", "data": "o1\n"}),
        serde_json::json!({"type": "exec-log", "id": "c", "stream": "stdout", "data": "o2\n"}),
        serde_json::json!({"type": "tool-result", "id": "c", "name": "exec", "ok": true,
            "output": format!("o1\ne1\no2\n[exit code 0, 12 ms] in {work}"), "duration_ms": 12}),
        serde_json::json!({"type": "usage-update", "input_tokens": 7}),
    ]
    .into_iter()
    .enumerate()
    .map(|(index, mut event)| {
        event["_seq"] = Value::from(index as u64 + 1);
        event
    })
    .collect();
    let run = Finished {
        events,
        lines: Vec::new(),
        code: Some(0),
        stderr: String::new(),
    };
    assert_eq!(
        env.snap().coalesce().skip(&["usage-update"]).render(&run),
        r#"1-2 text-delta {"delta":"Let me look.","iteration":1}
3-5 exec-log {"id":"c","stream":"stdout","data":"o1\no2\n"}
    exec-log {"id":"c","stream":"stderr","data":"e1\n"}
  6 tool-result {"id":"c","name":"exec","ok":true,"output":"o1\no2\ne1\n[exit code 0, [MS] ms] in [WORK]","duration_ms":"[MS]"}
"#
    );
    assert!(interleaves(b"o1\ne1\no2\n", b"o1\no2\n", b"e1\n"));
    assert!(!interleaves(b"o2\ne1\no1\n", b"o1\no2\n", b"e1\n"));
}

//! The one place that writes to stdout.
//!
//! Every event passes through [`EventWriter::emit`]: it gets the next `_seq`
//! and a `ts`, every string in it is redacted, and it is written as one line
//! and flushed. A reader that went away (EPIPE) is not a crash: the session
//! goes on and finishes its work, it just has nobody to tell.
//!
//! The subcommands that run no session have no events to number or redact,
//! so they get a plain door here instead: [`replay_stdout`] for `attach`,
//! whose journal lines an `EventWriter` already numbered and redacted when
//! the session wrote them, and [`print_text`] for `checkpoints` and
//! `rollback`, which answer a person in plain text. Nothing else opens
//! stdout (a layout test checks it).

use std::io::{self, Write};
use std::path::Path;
use std::sync::Mutex;

use serde_json::{Map, Value};

use super::events::{ErrorCode, Event, OutputStream};
use super::redact::{HeldText, Redactor};
use super::text::TextRenderer;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Json,
    Text,
}

pub struct EventWriter {
    inner: Mutex<Inner>,
    redactor: Redactor,
}

struct Inner {
    out: Box<dyn Write + Send>,
    format: OutputFormat,
    text: TextRenderer,
    next_seq: u64,
    reader_gone: bool,
    /// Set by `session-end`: it is the last line, whatever arrives later.
    ended: bool,
    /// The session journal: every line goes there before stdout.
    journal: Option<Box<dyn Write + Send>>,
    journal_failed: bool,
    /// Streamed text not written yet because it may be the start of a
    /// secret that the next piece completes (see [`Redactor::safe_cut`]).
    held: Vec<(StreamKey, HeldText)>,
}

#[derive(Clone, Copy)]
enum Hold {
    AsNeeded,
    Never,
}

/// One streamed text: its pieces are redacted as a whole.
#[derive(Debug, Clone, PartialEq)]
enum StreamKey {
    Text { iteration: u32 },
    Reasoning { iteration: u32 },
    Exec { id: String, stream: OutputStream },
    File { id: String, path: String },
}

impl StreamKey {
    /// The stream and text of a streaming event; `None` for other events.
    fn of(event: &Event) -> Option<(StreamKey, &str)> {
        match event {
            Event::TextDelta { delta, iteration } => Some((
                StreamKey::Text {
                    iteration: *iteration,
                },
                delta,
            )),
            Event::ReasoningDelta { delta, iteration } => Some((
                StreamKey::Reasoning {
                    iteration: *iteration,
                },
                delta,
            )),
            Event::ExecLog { id, stream, data } => Some((
                StreamKey::Exec {
                    id: id.clone(),
                    stream: *stream,
                },
                data,
            )),
            Event::FileDelta { id, path, delta } => Some((
                StreamKey::File {
                    id: id.clone(),
                    path: path.clone(),
                },
                delta,
            )),
            Event::SessionStart { .. }
            | Event::ToolsChanged { .. }
            | Event::Activity { .. }
            | Event::ToolCallStart { .. }
            | Event::FileComplete { .. }
            | Event::ToolResult { .. }
            | Event::TodosUpdate { .. }
            | Event::HitlRequest { .. }
            | Event::HitlResolved { .. }
            | Event::PlanConfirmed { .. }
            | Event::ModeChanged { .. }
            | Event::UserMessage { .. }
            | Event::UsageUpdate { .. }
            | Event::CheckpointSaved { .. }
            | Event::CheckpointRestored { .. }
            | Event::Summarizing { .. }
            | Event::Summarized { .. }
            | Event::CommandAck { .. }
            | Event::Error { .. }
            | Event::SessionEnd { .. } => None,
        }
    }

    fn event(&self, text: String) -> Event {
        match self.clone() {
            StreamKey::Text { iteration } => Event::TextDelta {
                delta: text,
                iteration,
            },
            StreamKey::Reasoning { iteration } => Event::ReasoningDelta {
                delta: text,
                iteration,
            },
            StreamKey::Exec { id, stream } => Event::ExecLog {
                id,
                stream,
                data: text,
            },
            StreamKey::File { id, path } => Event::FileDelta {
                id,
                path,
                delta: text,
            },
        }
    }
}

impl EventWriter {
    /// `first_seq` is 1 for a new session and continues after a restore.
    pub fn new(
        out: Box<dyn Write + Send>,
        format: OutputFormat,
        redactor: Redactor,
        first_seq: u64,
    ) -> Self {
        EventWriter {
            inner: Mutex::new(Inner {
                out,
                format,
                text: TextRenderer::default(),
                next_seq: first_seq,
                reader_gone: false,
                ended: false,
                journal: None,
                journal_failed: false,
                held: Vec::new(),
            }),
            redactor,
        }
    }

    pub fn stdout(format: OutputFormat, redactor: Redactor, first_seq: u64) -> Self {
        let out = Box::new(super::tty::FreshLine::for_stdout(io::stdout()));
        Self::new(out, format, redactor, first_seq)
    }

    /// From now on every event line is appended to `journal` (as JSON,
    /// whatever the output format) before it is written to stdout.
    pub fn journal_to(&self, journal: Box<dyn Write + Send>) {
        match self.inner.lock() {
            Ok(mut guard) => guard.journal = Some(journal),
            Err(poisoned) => poisoned.into_inner().journal = Some(journal),
        }
    }

    /// Stamps, redacts, writes and flushes one event. Returns the `_seq`
    /// of the last line written.
    ///
    /// Streamed text (`text-delta`, `reasoning-delta`, `exec-log`,
    /// `file-delta`) may be held back for a moment so that a secret split
    /// over two pieces is still masked; held text is written before the next
    /// event of another kind (asynchronous command acks aside). After
    /// `session-end` nothing more is written (a late command ack must not
    /// follow the last line).
    pub fn emit(&self, event: Event) -> u64 {
        self.emit_with(event, Hold::AsNeeded)
    }

    /// Like [`emit`](Self::emit), but a streaming event's text is written
    /// now, with whatever was held for its stream: for output that paused
    /// (a progress line with no newline yet), where showing it beats
    /// waiting for the word to end. Only a bounded end that may be the
    /// start of a secret is still held (see [`Redactor::forced_cut`]).
    pub fn emit_now(&self, event: Event) -> u64 {
        self.emit_with(event, Hold::Never)
    }

    fn emit_with(&self, event: Event, hold: Hold) -> u64 {
        if shows_work_dir_content(&event) {
            // A key file's lines are masked only once the scan has found
            // them; bounded by the scan's own time limit.
            self.redactor.wait_for_scan();
        }
        self.write_held(event, hold)
    }

    fn write_held(&self, mut event: Event, hold: Hold) -> u64 {
        if let Event::ToolResult {
            output,
            truncated: true,
            ..
        } = &mut event
        {
            // The cap cut the output anywhere, maybe inside a secret whose
            // first half no rule knows; the end that may begin one goes.
            let keep = self.redactor.forced_cut(output);
            output.truncate(keep);
        }
        let mut inner = match self.inner.lock() {
            Ok(guard) => guard,
            // A panic while holding the lock leaves the counter intact; the
            // stream must go on, so take the guard back.
            Err(poisoned) => poisoned.into_inner(),
        };
        if inner.ended {
            return inner.next_seq - 1;
        }
        match StreamKey::of(&event) {
            Some((key, text)) => {
                let position = match inner.held.iter().position(|(held, _)| *held == key) {
                    Some(position) => position,
                    None => {
                        inner.held.push((key, HeldText::default()));
                        inner.held.len() - 1
                    }
                };
                let held = &mut inner.held[position].1;
                held.push(text);
                let ready = match hold {
                    Hold::AsNeeded => held.take_safe(&self.redactor),
                    Hold::Never => held.take_forced(&self.redactor),
                };
                if !ready.is_empty() {
                    let event = inner.held[position].0.event(ready);
                    self.write_event(&mut inner, &event);
                }
            }
            None => {
                if !matches!(event, Event::CommandAck { .. }) {
                    for (key, held) in std::mem::take(&mut inner.held) {
                        let text = held.into_text();
                        if !text.is_empty() {
                            self.write_event(&mut inner, &key.event(text));
                        }
                    }
                }
                inner.ended = matches!(event, Event::SessionEnd { .. });
                self.write_event(&mut inner, &event);
            }
        }
        let seq = inner.next_seq - 1;
        drop(inner);
        if let Event::SessionStart { work_dir, .. } = &event {
            // After the first line is out, so the start does not wait for
            // it; the scan runs in a thread of its own.
            self.redactor.scan_for_private_keys(Path::new(work_dir));
        }
        seq
    }

    fn write_event(&self, inner: &mut Inner, event: &Event) {
        let seq = inner.next_seq;
        inner.next_seq += 1;
        let json = (inner.format == OutputFormat::Json || inner.journal.is_some())
            .then(|| self.json_line(event, seq));
        if let (Some(journal), Some(line)) = (inner.journal.as_mut(), json.as_ref())
            && journal.write_all(line.as_bytes()).is_err()
            && !inner.journal_failed
        {
            inner.journal_failed = true;
            crate::diag!("agent: the session journal cannot be written; attach will miss events");
        }
        let line = match inner.format {
            OutputFormat::Json => json,
            OutputFormat::Text => {
                let redacted = self.redacted_event(event);
                inner.text.render(&redacted)
            }
        };
        if let Some(line) = line {
            inner.write(line.as_bytes());
        }
    }

    /// The `_seq` the next event will get.
    pub fn next_seq(&self) -> u64 {
        match self.inner.lock() {
            Ok(guard) => guard.next_seq,
            Err(poisoned) => poisoned.into_inner().next_seq,
        }
    }

    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    fn json_line(&self, event: &Event, seq: u64) -> String {
        let mut line = stamp(event, seq, &timestamp_now());
        self.redactor.redact_value(&mut line);
        let mut text = line.to_string();
        text.push('\n');
        text
    }

    fn redacted_event(&self, event: &Event) -> Event {
        let mut value = match serde_json::to_value(event) {
            Ok(value) => value,
            Err(_) => return event.clone(),
        };
        self.redactor.redact_value(&mut value);
        serde_json::from_value(value).unwrap_or_else(|_| event.clone())
    }
}

/// Whether an event may show what the work dir holds (command output, a
/// file read, a diff): such events wait for the start-up scan for private
/// keys. The model's own text cannot show a key line before a tool did.
fn shows_work_dir_content(event: &Event) -> bool {
    match event {
        Event::ExecLog { .. } | Event::ToolResult { .. } | Event::FileComplete { .. } => true,
        Event::SessionStart { .. }
        | Event::ToolsChanged { .. }
        | Event::TextDelta { .. }
        | Event::ReasoningDelta { .. }
        | Event::Activity { .. }
        | Event::ToolCallStart { .. }
        | Event::FileDelta { .. }
        | Event::TodosUpdate { .. }
        | Event::HitlRequest { .. }
        | Event::HitlResolved { .. }
        | Event::PlanConfirmed { .. }
        | Event::ModeChanged { .. }
        | Event::UserMessage { .. }
        | Event::UsageUpdate { .. }
        | Event::CheckpointSaved { .. }
        | Event::CheckpointRestored { .. }
        | Event::Summarizing { .. }
        | Event::Summarized { .. }
        | Event::CommandAck { .. }
        | Event::Error { .. }
        | Event::SessionEnd { .. } => false,
    }
}

impl Inner {
    fn write(&mut self, bytes: &[u8]) {
        if self.reader_gone {
            return;
        }
        let result = self.out.write_all(bytes).and_then(|()| self.out.flush());
        if let Err(err) = result {
            self.reader_gone = true;
            if err.kind() != io::ErrorKind::BrokenPipe {
                crate::diag!("agent: stdout is no longer writable ({err}); events are dropped");
            }
        }
    }
}

/// The event as a JSON object with `type`, `_seq` and `ts` first.
pub fn stamp(event: &Event, seq: u64, ts: &str) -> Value {
    let body = match serde_json::to_value(event) {
        Ok(Value::Object(map)) => map,
        // Every variant is a struct variant, so this cannot happen; an
        // error event keeps the stream well-formed if it ever does.
        _ => {
            let mut map = Map::new();
            map.insert("type".into(), Value::from("error"));
            map.insert("code".into(), Value::from(ErrorCode::Internal.to_string()));
            map.insert("message".into(), Value::from("event failed to serialize"));
            map.insert("fatal".into(), Value::from(false));
            map
        }
    };
    let mut stamped = Map::with_capacity(body.len() + 2);
    let mut body = body;
    if let Some(kind) = body.shift_remove("type") {
        stamped.insert("type".into(), kind);
    }
    stamped.insert("_seq".into(), Value::from(seq));
    stamped.insert("ts".into(), Value::from(ts));
    stamped.extend(body);
    Value::Object(stamped)
}

/// RFC 3339, UTC, milliseconds.
pub fn timestamp_now() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Stdout for `agent attach` to replay journal lines byte for byte; the
/// first starts on a fresh line, like a session's own first event.
pub fn replay_stdout() -> impl Write {
    super::tty::FreshLine::for_stdout(io::stdout().lock())
}

/// Writes `text` for a person (`agent checkpoints`, `agent rollback`). A
/// reader that went away leaves nothing to do.
pub fn print_text(text: &str) {
    let mut stdout = io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn stamps_seq_and_ts_and_redacts() {
        let sink = Shared::default();
        let writer = EventWriter::new(
            Box::new(sink.clone()),
            OutputFormat::Json,
            Redactor::new(["tok-secret-value".to_owned()]),
            7,
        );
        writer.emit(Event::TextDelta {
            delta: "the token is tok-secret-value\n".into(),
            iteration: 1,
        });
        writer.emit(Event::warning(ErrorCode::Internal, "y"));
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines[0]["_seq"], 7);
        assert_eq!(lines[1]["_seq"], 8);
        assert_eq!(lines[0]["delta"], "the token is [REDACTED:secret-value]\n");
        assert!(text.starts_with("{\"type\":\"text-delta\",\"_seq\":7,\"ts\":\""));
        let ts = lines[0]["ts"].as_str().unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(ts).is_ok());
        assert_eq!(ts.len(), "2026-01-01T00:00:00.000Z".len());
    }

    #[test]
    fn a_secret_split_over_deltas_is_still_masked() {
        let sink = Shared::default();
        let writer = EventWriter::new(
            Box::new(sink.clone()),
            OutputFormat::Json,
            Redactor::new(["tok-secret-value".to_owned()]),
            1,
        );
        for piece in ["The token is tok-se", "cret-va", "lue and more", " text"] {
            writer.emit(Event::TextDelta {
                delta: piece.into(),
                iteration: 1,
            });
        }
        writer.emit(Event::warning(ErrorCode::Internal, "x"));
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let deltas: String = text
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|event| event["type"] == "text-delta")
            .map(|event| event["delta"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(deltas, "The token is [REDACTED:secret-value] and more text");
        assert!(!text.contains("tok-se"));
        // _seq stays gapless although some pieces wrote nothing.
        let seqs: Vec<u64> = text
            .lines()
            .map(|line| {
                serde_json::from_str::<Value>(line).unwrap()["_seq"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    }

    fn lines_of(sink: &Shared) -> Vec<Value> {
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    #[test]
    fn a_forced_flush_holds_back_only_what_may_start_a_secret() {
        let sink = Shared::default();
        let writer = EventWriter::new(
            Box::new(sink.clone()),
            OutputFormat::Json,
            Redactor::new(["tok-secret-value".to_owned()]),
            1,
        );
        let log = |data: &str| Event::ExecLog {
            id: "c".into(),
            stream: OutputStream::Stdout,
            data: data.into(),
        };
        for piece in [
            "45%",
            " token tok-se",
            "cret-value ghp_aB",
            "cDeFgHiJkLmNoPqRsTuVwXyZ0123456789 done",
        ] {
            writer.emit_now(log(piece));
        }
        let data: Vec<String> = lines_of(&sink)
            .iter()
            .map(|event| event["data"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            data,
            [
                "45%",
                " token ",
                "[REDACTED:secret-value] ",
                "[REDACTED:github-token] done"
            ]
        );
    }

    #[test]
    fn a_capped_tool_result_does_not_end_in_half_a_secret() {
        let sink = Shared::default();
        let writer = EventWriter::new(
            Box::new(sink.clone()),
            OutputFormat::Json,
            Redactor::new(["tok-secret-value".to_owned()]),
            1,
        );
        for (output, truncated) in [("ok tok-secr", true), ("ok 45%", true), ("ok tok-", false)] {
            writer.emit(Event::ToolResult {
                id: "c".into(),
                name: "exec".into(),
                ok: true,
                output: output.into(),
                truncated,
                duration_ms: 1,
                flags: Vec::new(),
            });
        }
        let outputs: Vec<Value> = lines_of(&sink)
            .iter()
            .map(|event| event["output"].clone())
            .collect();
        assert_eq!(outputs, ["ok ", "ok 45%", "ok tok-"]);
    }

    /// A writer into a sink, kept over many streams so that its rules are
    /// compiled once, and how many of its lines were read.
    struct Tap {
        writer: EventWriter,
        sink: Shared,
        read: usize,
    }

    impl Tap {
        fn new(secret: &str) -> Tap {
            let sink = Shared::default();
            let writer = EventWriter::new(
                Box::new(sink.clone()),
                OutputFormat::Json,
                Redactor::new([secret.to_owned()]),
                1,
            );
            Tap {
                writer,
                sink,
                read: 0,
            }
        }

        /// The data of each `exec-log` that `pieces` come out as, given
        /// with `emit_now` (a partial line shown at once) or `emit`, then
        /// another event.
        fn stream(&mut self, pieces: &[&str], now: bool) -> Vec<String> {
            for piece in pieces {
                let event = Event::ExecLog {
                    id: "c".into(),
                    stream: OutputStream::Stdout,
                    data: (*piece).into(),
                };
                match now {
                    true => self.writer.emit_now(event),
                    false => self.writer.emit(event),
                };
            }
            self.writer.emit(Event::warning(ErrorCode::Internal, "end"));
            let lines = lines_of(&self.sink);
            let fresh = lines[self.read..]
                .iter()
                .filter(|event| event["type"] == "exec-log")
                .map(|event| event["data"].as_str().unwrap().to_owned())
                .collect();
            self.read = lines.len();
            fresh
        }
    }

    fn pieces_of(text: &str, size: usize) -> Vec<&str> {
        let mut pieces = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(size.min(rest.len()));
            pieces.push(piece);
            rest = tail;
        }
        pieces
    }

    #[test]
    fn a_secret_across_the_forced_cut_of_a_long_run_is_masked_at_every_offset() {
        use base64::Engine;
        const VALUE: &str = "Zq7Vx9Lk2Pw4Rt6Ym8Hn";
        let encoded = base64::engine::general_purpose::STANDARD.encode(VALUE);
        // A key in a JSON file: its newlines escaped, no white space.
        let key = format!(
            "-----BEGIN PRIVATE KEY-----\\n{}\\n-----END PRIVATE KEY-----\\n",
            [
                "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
                "u1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0"
            ]
            .join("\\n")
        );
        let secrets = [
            VALUE,
            encoded.as_str(),
            "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
            key.as_str(),
        ];
        // Minified JSON: one run without white space, held whole for its
        // URL until past 4 KiB, then cut wherever the 512-byte tail ends.
        let head = "{\"url\":\"https://example.org/\",\"data\":\"";
        let line = |at: usize, secret: &str, size: usize| {
            let mut text = head.to_owned();
            text.push_str(&",".repeat(at - head.len()));
            text.push_str(secret);
            text.push_str(&",".repeat(size.max(4096) + 400 - text.len()));
            text.push_str("\"}\n");
            text
        };
        // 8 KiB pieces shown at once (a command's partial line), and small
        // ones held as needed (a model's deltas).
        for (size, now) in [(8192, true), (61, false)] {
            let mut tap = Tap::new(VALUE);
            // Where the cut falls with nothing to mask.
            let plain = tap.stream(&pieces_of(&line(100, "", size), size), now);
            let cut = plain[0].len();
            assert!(cut > 3000 && cut < 8192, "{cut}");
            for secret in secrets {
                // Every offset; the key's every few.
                let step = 1 + secret.len() / 64 * 8;
                for at in (cut - secret.len()..=cut).step_by(step) {
                    let text = line(at, secret, size);
                    let out = tap.stream(&pieces_of(&text, size), now);
                    for data in &out {
                        for start in 0..=secret.len() - 6 {
                            let fragment = &secret[start..start + 6];
                            assert!(
                                !data.contains(fragment),
                                "{fragment:?} of {secret} at {at} (cut {cut}, pieces of {size})"
                            );
                        }
                    }
                    let masked = tap.writer.redactor().redact(&text);
                    assert_eq!(out.concat(), masked, "{secret} at {at}");
                }
            }
        }
    }

    /// How many bytes of a stream fed in `size` pieces are still held after
    /// each piece, and what came out in all.
    fn held_after_each(text: &str, size: usize) -> (Vec<usize>, String) {
        let sink = Shared::default();
        let writer = EventWriter::new(
            Box::new(sink.clone()),
            OutputFormat::Json,
            Redactor::new([]),
            1,
        );
        let mut fed = 0;
        let mut held = Vec::new();
        for piece in pieces_of(text, size) {
            fed += piece.len();
            writer.emit(Event::TextDelta {
                delta: piece.into(),
                iteration: 1,
            });
            let out: usize = lines_of(&sink)
                .iter()
                .map(|event| event["delta"].as_str().unwrap().len())
                .sum();
            held.push(fed - out);
        }
        writer.emit(Event::warning(ErrorCode::Internal, "end"));
        let out = lines_of(&sink)
            .iter()
            .filter(|event| event["type"] == "text-delta")
            .map(|event| event["delta"].as_str().unwrap().to_owned())
            .collect();
        (held, out)
    }

    #[test]
    fn only_a_private_key_header_holds_the_stream() {
        let body: String = (0..20)
            .map(|i| format!("MIIC{i:02}{}\n", "Ab0+".repeat(14)))
            .collect();
        // Not a private key: out as soon as the header cannot become one,
        // so no more than the last word and a piece is ever held.
        for text in [
            format!("-----BEGIN CERTIFICATE-----\n{body}-----END CERTIFICATE-----\n"),
            format!(
                "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{body}-----END PGP PUBLIC KEY BLOCK-----\n"
            ),
            format!("A PEM file starts with -----BEGIN and a label.\n{body}"),
            format!("-----BEGIN RSA PUBLIC KEY-----\n{body}"),
        ] {
            let (held, out) = held_after_each(&text, 5);
            assert!(held.iter().all(|&h| h <= 64 + 5), "{held:?}\n{text}");
            assert_eq!(out, text);
        }
        // A private key, however its header is cut, is held to its end.
        let key =
            format!("x\n-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----\ny\n");
        for size in [1, 5, 64] {
            let (held, out) = held_after_each(&key, size);
            assert_eq!(out, "x\n[REDACTED:private-key]\ny\n", "pieces of {size}");
            let end = key.find("-----END").unwrap();
            let at_end = held[end / size];
            assert!(at_end >= end - 2, "pieces of {size}: {held:?}");
        }
        let pgp = format!("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{body}");
        let (held, _) = held_after_each(&pgp, 5);
        assert_eq!(held.last(), Some(&pgp.len()));
    }

    #[test]
    fn broken_pipe_is_not_a_crash() {
        let writer = EventWriter::new(Box::new(Broken), OutputFormat::Json, Redactor::new([]), 1);
        assert_eq!(writer.emit(Event::warning(ErrorCode::Internal, "b")), 1);
        assert_eq!(writer.emit(Event::warning(ErrorCode::Internal, "b")), 2);
        assert_eq!(writer.next_seq(), 3);
    }
}

//! The one place that writes to stdout.
//!
//! Every event passes through [`EventWriter::emit`]: it gets the next `_seq`
//! and a `ts`, every string in it is redacted, and it is written as one line
//! and flushed. A reader that went away (EPIPE) is not a crash: the session
//! goes on and finishes its work, it just has nobody to tell.

use std::io::{self, Write};
use std::sync::Mutex;

use serde_json::{Map, Value};

use super::events::Event;
use super::redact::Redactor;
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
            }),
            redactor,
        }
    }

    pub fn stdout(format: OutputFormat, redactor: Redactor) -> Self {
        Self::new(Box::new(io::stdout()), format, redactor, 1)
    }

    /// Stamps, redacts, writes and flushes one event. Returns its `_seq`.
    pub fn emit(&self, event: Event) -> u64 {
        let mut inner = match self.inner.lock() {
            Ok(guard) => guard,
            // A panic while holding the lock leaves the counter intact; the
            // stream must go on, so take the guard back.
            Err(poisoned) => poisoned.into_inner(),
        };
        let seq = inner.next_seq;
        inner.next_seq += 1;
        let line = match inner.format {
            OutputFormat::Json => Some(self.json_line(&event, seq)),
            OutputFormat::Text => {
                let redacted = self.redacted_event(&event);
                inner.text.render(&redacted)
            }
        };
        if let Some(line) = line {
            inner.write(line.as_bytes());
        }
        seq
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

impl Inner {
    fn write(&mut self, bytes: &[u8]) {
        if self.reader_gone {
            return;
        }
        let result = self.out.write_all(bytes).and_then(|()| self.out.flush());
        if let Err(err) = result {
            self.reader_gone = true;
            if err.kind() != io::ErrorKind::BrokenPipe {
                eprintln!("agent: stdout is no longer writable ({err}); events are dropped");
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
            map.insert("code".into(), Value::from("internal"));
            map.insert("message".into(), Value::from("event failed to serialize"));
            map.insert("fatal".into(), Value::from(false));
            map
        }
    };
    let mut stamped = Map::with_capacity(body.len() + 2);
    let mut body = body;
    if let Some(kind) = body.remove("type") {
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
            delta: "the token is tok-secret-value".into(),
            iteration: 1,
        });
        writer.emit(Event::warning("x", "y"));
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines[0]["_seq"], 7);
        assert_eq!(lines[1]["_seq"], 8);
        assert_eq!(lines[0]["delta"], "the token is [REDACTED:secret-value]");
        assert!(text.starts_with("{\"type\":\"text-delta\",\"_seq\":7,\"ts\":\""));
        let ts = lines[0]["ts"].as_str().unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(ts).is_ok());
        assert_eq!(ts.len(), "2026-01-01T00:00:00.000Z".len());
    }

    #[test]
    fn broken_pipe_is_not_a_crash() {
        let writer = EventWriter::new(Box::new(Broken), OutputFormat::Json, Redactor::new([]), 1);
        assert_eq!(writer.emit(Event::warning("a", "b")), 1);
        assert_eq!(writer.emit(Event::warning("a", "b")), 2);
    }
}

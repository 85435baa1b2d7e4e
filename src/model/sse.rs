//! Server-sent events decoded from bytes as they arrive, as the HTML
//! standard describes the format: lines end in LF, CRLF or CR, a blank line
//! dispatches the event, one leading byte order mark is ignored. Pure:
//! bytes in, `data` payloads out.
//!
//! It replaces `eventsource-stream` 0.2, which panicked on a stream that
//! opens with a byte order mark (it sliced one byte into the three-byte
//! character) and, after one invalid UTF-8 byte, held every later byte of
//! the stream without yielding an event. Lines are decoded whole here: the
//! line ends are ASCII, so a chunk boundary inside a character never
//! matters, and memory is bounded by [`MAX_EVENT_BYTES`].

/// The most a single event's data (and any one line) may hold. Providers
/// send small deltas; a proxy that answers in one event still fits.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

const BOM: &[u8] = "\u{feff}".as_bytes();

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    #[error("an event is larger than {MAX_EVENT_BYTES} bytes")]
    TooLarge,
    #[error("an event's data is not UTF-8")]
    NotUtf8,
}

#[derive(Debug, Default)]
pub struct Decoder {
    /// The line being read, without its end.
    line: Vec<u8>,
    /// The event's data lines so far, joined by `\n`.
    data: String,
    has_data: bool,
    /// The last line ended in CR: an LF right after it belongs to it.
    after_cr: bool,
    /// The first line has been read (the only place a BOM may stand).
    started: bool,
}

impl Decoder {
    /// Takes the next bytes of the stream and returns the data of every
    /// event they complete. An event not closed by a blank line when the
    /// stream ends is dropped, as the standard says; the parsers then see
    /// no final event and report a cut stream.
    pub fn push(&mut self, mut bytes: &[u8]) -> Result<Vec<String>, SseError> {
        let mut events = Vec::new();
        while let Some((&first, rest)) = bytes.split_first() {
            if std::mem::take(&mut self.after_cr) && first == b'\n' {
                bytes = rest;
                continue;
            }
            match bytes
                .iter()
                .position(|&byte| byte == b'\n' || byte == b'\r')
            {
                None => {
                    self.extend_line(bytes)?;
                    break;
                }
                Some(end) => {
                    self.extend_line(&bytes[..end])?;
                    self.after_cr = bytes[end] == b'\r';
                    bytes = &bytes[end + 1..];
                    if let Some(data) = self.end_line()? {
                        events.push(data);
                    }
                }
            }
        }
        Ok(events)
    }

    fn extend_line(&mut self, piece: &[u8]) -> Result<(), SseError> {
        if self.data.len() + self.line.len() + piece.len() > MAX_EVENT_BYTES {
            return Err(SseError::TooLarge);
        }
        self.line.extend_from_slice(piece);
        Ok(())
    }

    fn end_line(&mut self) -> Result<Option<String>, SseError> {
        let mut line = std::mem::take(&mut self.line);
        if !std::mem::replace(&mut self.started, true) && line.starts_with(BOM) {
            line.drain(..BOM.len());
        }
        let dispatched = self.read_line(&line);
        // The buffer's room is kept for the next line.
        line.clear();
        self.line = line;
        dispatched
    }

    fn read_line(&mut self, line: &[u8]) -> Result<Option<String>, SseError> {
        if line.is_empty() {
            if !std::mem::take(&mut self.has_data) {
                return Ok(None);
            }
            return Ok(Some(std::mem::take(&mut self.data)));
        }
        let (name, value) = match line.iter().position(|&byte| byte == b':') {
            // A comment (keep-alives are sent this way).
            Some(0) => return Ok(None),
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        // `event`, `id` and `retry` are not used: every payload of both
        // wire formats says what it is.
        if name == b"data" {
            let value = std::str::from_utf8(value).map_err(|_| SseError::NotUtf8)?;
            if std::mem::replace(&mut self.has_data, true) {
                self.data.push('\n');
            }
            self.data.push_str(value);
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]]) -> Result<Vec<String>, SseError> {
        let mut decoder = Decoder::default();
        let mut events = Vec::new();
        for chunk in chunks {
            events.extend(decoder.push(chunk)?);
        }
        Ok(events)
    }

    #[test]
    fn events_fields_comments_and_line_ends() {
        let stream = b": keep-alive\nevent: message_start\ndata: {\"a\":1}\n\n\
                       id: 7\r\ndata:two\r\ndata:  lines\r\n\r\n\
                       data: cr\r\rdata\n\nretry: 10\nignored: x\n\n\
                       data: not closed";
        assert_eq!(
            decode(&[stream]).unwrap(),
            ["{\"a\":1}", "two\n lines", "cr", ""]
        );
    }

    #[test]
    fn every_split_gives_the_same_events() {
        let stream = "\u{feff}data: é😀\r\n\r\ndata: b\r\rdata: c\n\n".as_bytes();
        let whole = decode(&[stream]).unwrap();
        assert_eq!(whole, ["é😀", "b", "c"]);
        for cut in 0..=stream.len() {
            assert_eq!(
                decode(&[&stream[..cut], &stream[cut..]]).unwrap(),
                whole,
                "{cut}"
            );
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(decode(&bytes).unwrap(), whole);
    }

    #[test]
    fn a_bom_counts_only_at_the_start() {
        assert_eq!(
            decode(&[b"\xef\xbb", b"\xbfdata: x\n\n\xef\xbb\xbfdata: y\n\n"]).unwrap(),
            ["x"]
        );
    }

    #[test]
    fn invalid_utf8_is_an_error_only_in_data() {
        assert_eq!(decode(&[b": \xff\n\ndata: ok\n\n"]).unwrap(), ["ok"]);
        assert_eq!(decode(&[b"data: \xff\n\n"]), Err(SseError::NotUtf8));
    }

    #[test]
    fn an_endless_line_or_event_is_refused_at_the_cap() {
        let mut decoder = Decoder::default();
        let chunk = vec![b'x'; 1024 * 1024];
        let mut result = Ok(Vec::new());
        for _ in 0..=MAX_EVENT_BYTES / chunk.len() {
            result = decoder.push(&chunk);
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(SseError::TooLarge));
        assert!(decoder.line.len() <= MAX_EVENT_BYTES);

        let mut decoder = Decoder::default();
        let line = format!("data: {}\n", "y".repeat(1024 * 1024));
        let mut result = Ok(Vec::new());
        for _ in 0..=MAX_EVENT_BYTES / line.len() {
            result = decoder.push(line.as_bytes());
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(SseError::TooLarge));
        assert!(decoder.data.len() <= MAX_EVENT_BYTES);
    }
}

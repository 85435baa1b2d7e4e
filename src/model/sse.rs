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

/// The whole way from bytes to stream items, for the property tests of
/// both wire formats.
#[cfg(test)]
pub mod test_support {
    use proptest::prelude::*;

    use super::Decoder;
    use crate::model::{ModelError, StreamItem};

    /// `cases` by default, so that `cargo test` stays quick on two cores;
    /// `PROPTEST_CASES=10000` searches deeper.
    pub fn config(cases: u32) -> ProptestConfig {
        let cases = std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|value| value.parse().ok())
            .unwrap_or(cases);
        ProptestConfig::with_cases(cases)
    }

    /// What a stream gives: its items, then how it ended (the first error,
    /// or what the parser says about the end of the bytes).
    pub type Outcome = (Vec<StreamItem>, Result<(), ModelError>);

    /// `chunks` through the decoder and on into `parser`, with the
    /// parser's `feed` and `finish`.
    pub fn run<'a, P>(
        chunks: impl IntoIterator<Item = &'a [u8]>,
        mut parser: P,
        feed: impl Fn(&mut P, &str) -> Result<Vec<StreamItem>, ModelError>,
        finish: impl FnOnce(&P) -> Result<(), ModelError>,
    ) -> Outcome {
        let mut decoder = Decoder::default();
        let mut items = Vec::new();
        for chunk in chunks {
            let events = match decoder.push(chunk) {
                Ok(events) => events,
                Err(err) => return (items, Err(ModelError::Malformed(err.to_string()))),
            };
            for data in events {
                match feed(&mut parser, &data) {
                    Ok(new) => items.extend(new),
                    Err(err) => return (items, Err(err)),
                }
            }
        }
        (items, finish(&parser))
    }

    /// `bytes` split at `cuts` parses, without a panic, to bounded output:
    /// every item is made of bytes of the input, the id of a tool call
    /// counting for at most `id_cap` bytes (for ids a parser makes up).
    pub fn assert_bounded<'a>(
        bytes: &'a [u8],
        cuts: &[prop::sample::Index],
        parse: impl Fn(Vec<&'a [u8]>) -> Outcome,
        id_cap: usize,
    ) {
        let (items, _) = parse(split(bytes, cuts));
        let size: usize = items
            .iter()
            .map(|item| match item {
                StreamItem::Text(text)
                | StreamItem::Reasoning(text)
                | StreamItem::ReasoningSignature(text)
                | StreamItem::ToolCallArguments { delta: text, .. } => text.len(),
                StreamItem::ToolCallStarted { id, name, .. } => id.len().min(id_cap) + name.len(),
                StreamItem::Usage(_) | StreamItem::Finished => 1,
            })
            .sum();
        assert!(
            size <= bytes.len(),
            "{size} bytes of items from {} bytes",
            bytes.len()
        );
    }

    /// `bytes` cut short at `cut`, then split at `cuts`, gives a prefix of
    /// the whole stream's items, and is reported cut unless it gave them
    /// all.
    pub fn cut_short<'a>(
        bytes: &'a [u8],
        cut: prop::sample::Index,
        cuts: &[prop::sample::Index],
        parse: impl Fn(Vec<&'a [u8]>) -> Outcome,
    ) -> Result<(), TestCaseError> {
        let (all, _) = parse(vec![bytes]);
        let short = &bytes[..cut.index(bytes.len() + 1)];
        let (items, end) = parse(split(short, cuts));
        prop_assert_eq!(&items[..], &all[..items.len()]);
        if items.len() == all.len() {
            prop_assert_eq!(end, Ok(()));
        } else {
            prop_assert!(matches!(end, Err(ModelError::StreamCut(_))), "{:?}", end);
        }
        Ok(())
    }

    /// `bytes` cut at the given points (in any order, repeats allowed).
    pub fn split<'a>(bytes: &'a [u8], cuts: &[prop::sample::Index]) -> Vec<&'a [u8]> {
        let mut points: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for point in points {
            chunks.push(&bytes[start..point]);
            start = point;
        }
        chunks.push(&bytes[start..]);
        chunks
    }

    pub fn cuts() -> impl Strategy<Value = Vec<prop::sample::Index>> {
        prop::collection::vec(any::<prop::sample::Index>(), 0..16)
    }

    #[derive(Debug, Clone)]
    pub enum Mutation {
        Flip(prop::sample::Index, u8),
        Delete(prop::sample::Index, usize),
        Insert(prop::sample::Index, Vec<u8>),
        Truncate(prop::sample::Index),
    }

    pub fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
        let one = prop_oneof![
            (any::<prop::sample::Index>(), any::<u8>())
                .prop_map(|(at, bits)| Mutation::Flip(at, bits)),
            (any::<prop::sample::Index>(), 1..64usize)
                .prop_map(|(at, len)| Mutation::Delete(at, len)),
            (
                any::<prop::sample::Index>(),
                prop::collection::vec(
                    prop_oneof![
                        any::<u8>(),
                        Just(b'\n'),
                        Just(b'\r'),
                        Just(b':'),
                        Just(b'"'),
                        Just(b'{')
                    ],
                    1..16
                )
            )
                .prop_map(|(at, bytes)| Mutation::Insert(at, bytes)),
            any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        ];
        prop::collection::vec(one, 1..6)
    }

    pub fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
        for mutation in mutations {
            match mutation {
                Mutation::Flip(at, bits) => {
                    if !bytes.is_empty() {
                        let at = at.index(bytes.len());
                        bytes[at] ^= bits.max(&1);
                    }
                }
                Mutation::Delete(at, len) => {
                    let at = at.index(bytes.len() + 1);
                    let end = (at + len).min(bytes.len());
                    bytes.drain(at..end);
                }
                Mutation::Insert(at, new) => {
                    let at = at.index(bytes.len() + 1);
                    bytes.splice(at..at, new.iter().copied());
                }
                Mutation::Truncate(at) => {
                    let at = at.index(bytes.len() + 1);
                    bytes.truncate(at);
                }
            }
        }
        bytes
    }

    /// Text as a model writes it: ASCII, JSON's special characters, and
    /// characters of two, three and four bytes, so that cuts fall inside
    /// them.
    pub fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                4 => prop::char::range('a', 'z'),
                1 => Just(' '),
                1 => Just('\n'),
                1 => Just('"'),
                1 => Just('\\'),
                1 => Just('é'),
                1 => Just('€'),
                1 => Just('😀'),
                1 => Just('\u{feff}'),
                1 => any::<char>(),
            ],
            0..24,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    /// How the events of a generated stream are written: the line end, a
    /// byte order mark, keep-alive comments and the space after `data:`.
    #[derive(Debug, Clone)]
    pub struct Framing {
        pub eol: &'static str,
        pub bom: bool,
        pub comments: bool,
        pub space: bool,
    }

    pub fn framing() -> impl Strategy<Value = Framing> {
        (
            prop::sample::select(vec!["\n", "\r\n", "\r"]),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(eol, bom, comments, space)| Framing {
                eol,
                bom,
                comments,
                space,
            })
    }

    impl Framing {
        /// The SSE bytes of `events`, each an optional event name and its
        /// data payload.
        pub fn write(&self, events: &[(Option<&str>, String)]) -> Vec<u8> {
            let eol = self.eol;
            let mut out = String::new();
            if self.bom {
                out.push('\u{feff}');
            }
            for (name, data) in events {
                if self.comments {
                    out.push_str(&format!(": keep-alive{eol}"));
                }
                if let Some(name) = name {
                    out.push_str(&format!("event: {name}{eol}"));
                }
                let space = if self.space { " " } else { "" };
                out.push_str(&format!("data:{space}{data}{eol}{eol}"));
            }
            out.into_bytes()
        }
    }
}

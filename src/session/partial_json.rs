//! Reads the top-level string values of a JSON object while its text is
//! still arriving, so the content of a `write_file` can be shown as the
//! model streams it. Chunk boundaries may fall anywhere: inside a key, an
//! escape, a `\uXXXX`, or between the two halves of a surrogate pair.
//! Pure: text in, events out.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// More decoded text of the string value of a top-level key.
    Text { key: String, text: String },
    /// That string value is complete.
    End { key: String },
}

#[derive(Debug, Default)]
pub struct PartialObject {
    state: State,
    key: String,
    escape: Escape,
    /// A high surrogate waiting for its low half.
    high_surrogate: Option<u16>,
    /// Nesting inside a non-string value being skipped.
    depth: u32,
    skip_in_string: bool,
    skip_escape: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    #[default]
    BeforeObject,
    BeforeKey,
    InKey,
    BeforeColon,
    BeforeValue,
    InString,
    InOther,
    AfterValue,
    Done,
    /// Not an object, or broken: stop reading.
    Invalid,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
enum Escape {
    #[default]
    None,
    Backslash,
    Unicode(String),
}

impl PartialObject {
    pub fn feed(&mut self, chunk: &str) -> Vec<Piece> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        for c in chunk.chars() {
            self.step(c, &mut text, &mut pieces);
        }
        if !text.is_empty() {
            pieces.push(Piece::Text {
                key: self.key.clone(),
                text,
            });
        }
        pieces
    }

    fn step(&mut self, c: char, text: &mut String, pieces: &mut Vec<Piece>) {
        match self.state {
            State::BeforeObject => match c {
                '{' => self.state = State::BeforeKey,
                c if c.is_whitespace() => {}
                _ => self.state = State::Invalid,
            },
            State::BeforeKey => match c {
                '"' => {
                    self.key.clear();
                    self.escape = Escape::None;
                    self.state = State::InKey;
                }
                '}' => self.state = State::Done,
                c if c.is_whitespace() || c == ',' => {}
                _ => self.state = State::Invalid,
            },
            State::InKey => {
                // Keys are compared, not shown: escapes in keys are kept
                // as written, which is fine for the ASCII keys we look for.
                match (&self.escape, c) {
                    (Escape::Backslash, _) => {
                        self.key.push(c);
                        self.escape = Escape::None;
                    }
                    (_, '\\') => self.escape = Escape::Backslash,
                    (_, '"') => self.state = State::BeforeColon,
                    (_, c) => self.key.push(c),
                }
            }
            State::BeforeColon => match c {
                ':' => self.state = State::BeforeValue,
                c if c.is_whitespace() => {}
                _ => self.state = State::Invalid,
            },
            State::BeforeValue => match c {
                '"' => {
                    self.escape = Escape::None;
                    self.high_surrogate = None;
                    self.state = State::InString;
                }
                c if c.is_whitespace() => {}
                '{' | '[' => {
                    self.depth = 1;
                    self.skip_in_string = false;
                    self.skip_escape = false;
                    self.state = State::InOther;
                }
                _ => {
                    self.depth = 0;
                    self.state = State::InOther;
                }
            },
            State::InString => self.string_char(c, text, pieces),
            State::InOther => self.skip_char(c),
            State::AfterValue => match c {
                ',' => self.state = State::BeforeKey,
                '}' => self.state = State::Done,
                c if c.is_whitespace() => {}
                _ => self.state = State::Invalid,
            },
            State::Done | State::Invalid => {}
        }
    }

    fn string_char(&mut self, c: char, text: &mut String, pieces: &mut Vec<Piece>) {
        match std::mem::take(&mut self.escape) {
            Escape::None => match c {
                '\\' => self.escape = Escape::Backslash,
                '"' => {
                    self.flush_surrogate(text);
                    if !text.is_empty() {
                        pieces.push(Piece::Text {
                            key: self.key.clone(),
                            text: std::mem::take(text),
                        });
                    }
                    pieces.push(Piece::End {
                        key: self.key.clone(),
                    });
                    self.state = State::AfterValue;
                }
                c => {
                    self.flush_surrogate(text);
                    text.push(c);
                }
            },
            Escape::Backslash => {
                let decoded = match c {
                    'n' => Some('\n'),
                    't' => Some('\t'),
                    'r' => Some('\r'),
                    'b' => Some('\u{8}'),
                    'f' => Some('\u{c}'),
                    '"' | '\\' | '/' => Some(c),
                    'u' => {
                        self.escape = Escape::Unicode(String::new());
                        None
                    }
                    _ => Some('\u{FFFD}'),
                };
                if let Some(decoded) = decoded {
                    self.flush_surrogate(text);
                    text.push(decoded);
                }
            }
            Escape::Unicode(mut hex) => {
                hex.push(c);
                if hex.len() < 4 {
                    self.escape = Escape::Unicode(hex);
                    return;
                }
                let Ok(unit) = u16::from_str_radix(&hex, 16) else {
                    self.flush_surrogate(text);
                    text.push('\u{FFFD}');
                    return;
                };
                match (self.high_surrogate.take(), unit) {
                    (Some(high), 0xDC00..=0xDFFF) => {
                        let code = 0x10000
                            + ((u32::from(high) - 0xD800) << 10)
                            + (u32::from(unit) - 0xDC00);
                        text.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    }
                    (previous, 0xD800..=0xDBFF) => {
                        if previous.is_some() {
                            text.push('\u{FFFD}');
                        }
                        self.high_surrogate = Some(unit);
                    }
                    (previous, unit) => {
                        if previous.is_some() {
                            text.push('\u{FFFD}');
                        }
                        text.push(char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}'));
                    }
                }
            }
        }
    }

    /// A high surrogate not followed by a low one stands for nothing.
    fn flush_surrogate(&mut self, text: &mut String) {
        if self.high_surrogate.take().is_some() {
            text.push('\u{FFFD}');
        }
    }

    fn skip_char(&mut self, c: char) {
        if self.skip_in_string {
            if self.skip_escape {
                self.skip_escape = false;
            } else if c == '\\' {
                self.skip_escape = true;
            } else if c == '"' {
                self.skip_in_string = false;
            }
            return;
        }
        match c {
            '"' => self.skip_in_string = true,
            '{' | '[' => self.depth += 1,
            '}' | ']' if self.depth > 0 => {
                self.depth -= 1;
                if self.depth == 0 {
                    self.state = State::AfterValue;
                }
            }
            ',' if self.depth == 0 => self.state = State::BeforeKey,
            '}' if self.depth == 0 => self.state = State::Done,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `json` cut at every `step` characters and joins the text per key.
    fn decode(json: &str, step: usize) -> (String, String, Vec<String>) {
        let mut object = PartialObject::default();
        let chars: Vec<char> = json.chars().collect();
        let (mut path, mut content, mut ended) = (String::new(), String::new(), Vec::new());
        for chunk in chars.chunks(step) {
            let chunk: String = chunk.iter().collect();
            for piece in object.feed(&chunk) {
                match piece {
                    Piece::Text { key, text } if key == "path" => path.push_str(&text),
                    Piece::Text { key, text } if key == "content" => content.push_str(&text),
                    Piece::Text { .. } => {}
                    Piece::End { key } => ended.push(key),
                }
            }
        }
        (path, content, ended)
    }

    #[test]
    fn decodes_every_escape_at_every_chunk_boundary() {
        let content = "line \"one\"\n\ttab \\ slash / é 😀 \u{1} end";
        let json = serde_json::json!({"path": "a/b.txt", "mode": {"x": [1, "}"]}, "content": content, "n": 3})
            .to_string();
        // serde_json leaves non-ASCII as is; also check the \u form.
        let escaped = json.replace('é', "\\u00e9").replace('😀', "\\ud83d\\ude00");
        for text in [&json, &escaped] {
            for step in 1..=7 {
                let (path, decoded, ended) = decode(text, step);
                assert_eq!(path, "a/b.txt", "step {step}");
                assert_eq!(decoded, content, "step {step} of {text}");
                assert_eq!(ended, ["path", "content"]);
            }
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let (_, content, _) = decode(r#"{"content": "a\ud83dB\udc00c"}"#, 1);
        assert_eq!(content, "a\u{FFFD}B\u{FFFD}c");
    }

    #[test]
    fn content_before_path_is_still_seen() {
        let (path, content, ended) = decode(r#"{"content":"x\ny","path":"p"}"#, 2);
        assert_eq!((path.as_str(), content.as_str()), ("p", "x\ny"));
        assert_eq!(ended, ["content", "path"]);
    }

    #[test]
    fn not_an_object_yields_nothing() {
        let mut object = PartialObject::default();
        assert!(object.feed(r#"["content", "x"]"#).is_empty());
    }
}

/// Generated, cut, mutated and random text.
#[cfg(test)]
mod properties {
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use super::*;

    /// `text` fed in pieces cut at the given char positions.
    fn feed_split(text: &str, cuts: &[prop::sample::Index]) -> Vec<Vec<Piece>> {
        let boundaries: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        let mut points: Vec<usize> = cuts.iter().map(|cut| *cut.get(&boundaries)).collect();
        points.sort_unstable();
        let mut object = PartialObject::default();
        let mut fed = Vec::new();
        let mut start = 0;
        for point in points.into_iter().chain([text.len()]) {
            fed.push(object.feed(&text[start..point]));
            start = point;
        }
        fed
    }

    /// Each string value's key and text, in order, and the keys whose
    /// value ended.
    fn collect(fed: &[Vec<Piece>]) -> (Vec<(String, String)>, Vec<String>) {
        let mut texts: Vec<(String, String)> = Vec::new();
        let mut ends = Vec::new();
        let mut open = false;
        for piece in fed.iter().flatten() {
            let key = match piece {
                Piece::Text { key, .. } | Piece::End { key } => key,
            };
            if !open {
                texts.push((key.clone(), String::new()));
            }
            match piece {
                Piece::Text { text, .. } => {
                    open = true;
                    texts.last_mut().unwrap().1.push_str(text);
                }
                Piece::End { key } => {
                    open = false;
                    ends.push(key.clone());
                }
            }
        }
        (texts, ends)
    }

    /// Output per feed is bounded by what was fed: decoded text is never
    /// longer than twice its input (`\q` becomes U+FFFD, three bytes), and
    /// a piece carries a key already read.
    fn assert_bounded(text: &str, cuts: &[prop::sample::Index]) {
        let fed = feed_split(text, cuts);
        let total: usize = fed
            .iter()
            .flatten()
            .map(|piece| match piece {
                Piece::Text { text, .. } => text.len(),
                Piece::End { .. } => 0,
            })
            .sum();
        assert!(total <= 2 * text.len() + 3, "{total} from {}", text.len());
        for piece in fed.iter().flatten() {
            let (Piece::Text { key, .. } | Piece::End { key }) = piece;
            assert!(key.len() <= text.len());
        }
        let pieces: usize = fed.iter().map(Vec::len).sum();
        assert!(pieces <= text.chars().count() + fed.len());
    }

    fn key() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::char::range('a', 'z'), 1..6)
            .prop_map(|chars| chars.into_iter().collect())
    }

    fn string() -> impl Strategy<Value = String> {
        crate::model::sse::test_support::text()
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            string().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::vec((key(), inner), 0..4)
                    .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            ]
        })
    }

    fn object() -> impl Strategy<Value = Map<String, Value>> {
        prop::collection::vec((key(), value()), 0..6).prop_map(|pairs| pairs.into_iter().collect())
    }

    /// JSON with every non-ASCII character written as `\uXXXX` (surrogate
    /// pairs for the astral ones), as some models write it.
    fn ascii_json(value: &Value) -> String {
        let mut out = String::new();
        for c in value.to_string().chars() {
            if c.is_ascii() {
                out.push(c);
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(crate::model::sse::test_support::config(64))]

        #[test]
        fn an_object_split_anywhere_gives_its_string_values(
            object in object(), ascii in any::<bool>(), pretty in any::<bool>(),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..24)
        ) {
            let value = Value::Object(object.clone());
            let text = match (ascii, pretty) {
                (true, _) => ascii_json(&value),
                (false, true) => serde_json::to_string_pretty(&value).unwrap_or_default(),
                (false, false) => value.to_string(),
            };
            let strings: Vec<(String, String)> = object
                .iter()
                .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
                .collect();
            let (texts, ends) = collect(&feed_split(&text, &cuts));
            prop_assert_eq!(&texts, &strings);
            let keys: Vec<String> = strings.into_iter().map(|(key, _)| key).collect();
            prop_assert_eq!(ends, keys);
            assert_bounded(&text, &cuts);
        }

        #[test]
        fn a_cut_object_gives_a_prefix_of_its_string_values(
            object in object(), cut in any::<prop::sample::Index>(),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8)
        ) {
            let text = Value::Object(object).to_string();
            let (all, all_ends) = collect(&feed_split(&text, &[]));
            let boundaries: Vec<usize> = text.char_indices().map(|(at, _)| at).chain([text.len()]).collect();
            let short = &text[..*cut.get(&boundaries)];
            let (texts, ends) = collect(&feed_split(short, &cuts));
            prop_assert!(ends.len() <= all_ends.len() && ends[..] == all_ends[..ends.len()]);
            prop_assert!(texts.len() <= all.len());
            for (index, (key, text)) in texts.iter().enumerate() {
                prop_assert_eq!(key, &all[index].0);
                prop_assert!(all[index].1.starts_with(text.as_str()));
            }
        }

        #[test]
        fn mutated_and_random_text_never_panics_and_stays_bounded(
            object in object(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), prop_oneof![
                Just('"'), Just('\\'), Just('{'), Just('}'), Just('['), Just(']'), Just(','),
                Just(':'), Just('u'), Just('d'), Just('8'), any::<char>()
            ], any::<bool>()), 1..8),
            random in prop::collection::vec(any::<char>(), 0..64),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..16)
        ) {
            let mut chars: Vec<char> = Value::Object(object).to_string().chars().collect();
            for (at, c, insert) in edits {
                let at = at.index(chars.len() + 1);
                if insert || at == chars.len() {
                    chars.insert(at, c);
                } else {
                    chars[at] = c;
                }
            }
            let mutated: String = chars.into_iter().collect();
            assert_bounded(&mutated, &cuts);
            let random: String = random.into_iter().collect();
            assert_bounded(&random, &cuts);
            assert_bounded(&format!("{{\"content\": \"{random}"), &cuts);
        }
    }

    #[test]
    fn a_long_escape_run_stays_bounded() {
        let text = format!("{{\"content\":\"{}\"}}", "\\ud83d".repeat(10_000));
        assert_bounded(&text, &[]);
        let (texts, _) = collect(&feed_split(&text, &[]));
        assert_eq!(texts, [("content".to_owned(), "\u{FFFD}".repeat(10_000))]);
    }
}

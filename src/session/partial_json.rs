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

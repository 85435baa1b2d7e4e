//! Private key blocks: the pattern of a whole one, reading a streamed
//! text for one still open (so the writer holds it back until its end line
//! has come), and the body lines of the blocks in a text, learned so they
//! are masked also when they show one by one.

use std::sync::OnceLock;

use regex::Regex;

use super::MIN_KEY_LINE_LEN;

const BEGIN: &str = "-----BEGIN";
const END: &str = "-----END";

/// A whole private key block, or one cut off by the end of the text.
pub(super) const KEY_BLOCK: &str = r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)";

/// The body lines of the private key blocks in `text` worth learning:
/// base64 only, at least [`MIN_KEY_LINE_LEN`] long. Lines are split at
/// newlines and at a literal `\n`, as keys sit in JSON files (service
/// account keys) with their newlines escaped.
pub(super) fn key_lines(text: &str) -> Vec<String> {
    static BLOCK: OnceLock<Option<Regex>> = OnceLock::new();
    if !text.contains("PRIVATE KEY") {
        return Vec::new();
    }
    let Some(block) = BLOCK.get_or_init(|| Regex::new(KEY_BLOCK).ok()) else {
        return Vec::new();
    };
    block
        .find_iter(text)
        .flat_map(|found| {
            found
                .as_str()
                .split('\n')
                .flat_map(|line| line.split("\\n"))
                .map(|line| line.trim().trim_end_matches("\\r"))
                .filter(|line| {
                    line.len() >= MIN_KEY_LINE_LEN
                        && line
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
                })
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// What is known of the private key blocks in a held text, so that a new
/// piece is read once: how far it was searched for `-----BEGIN`, the block
/// open in it, the last one closed.
#[derive(Default)]
pub(super) struct KeyBlocks {
    /// `text[..begins_read]` holds no `-----BEGIN` of an open block.
    begins_read: usize,
    block: Option<OpenBlock>,
    /// The last private key block closed in the text: a cut must not fall
    /// in it (before `KEY-----`, the last word of its end line).
    pub(super) closed: Option<(usize, usize)>,
}

/// A `-----BEGIN` whose header is, or may still become, that of a private
/// key, and whose end line has not come whole.
#[derive(Clone, Copy)]
struct OpenBlock {
    begin: usize,
    part: BlockPart,
}

/// Where the reading of an open block is; each `read` is how far it got.
#[derive(Clone, Copy)]
enum BlockPart {
    /// The label after `-----BEGIN`.
    Header { read: usize },
    /// The body, searched for `-----END`.
    Body { read: usize },
    /// The label after the `-----END` at `end`.
    Footer { end: usize, read: usize },
}

/// What the label after a `-----BEGIN` or `-----END` is, as far as it has
/// come.
enum Label {
    /// A private key's, complete with its closing dashes, ending here.
    Key(usize),
    /// May still become one (`-----BEGIN RSA PRIV`).
    Open,
    /// Cannot: a certificate, a public key, prose.
    Other,
}

impl KeyBlocks {
    /// Where a private key block that is not closed yet begins in `text`:
    /// from its `-----BEGIN` while the header may still be a private key
    /// header (`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`), until its
    /// end line (`-----END ... PRIVATE KEY-----`) has come whole, as
    /// [`KEY_BLOCK`] wants. Reads only what it has not read before.
    pub(super) fn open(&mut self, text: &str) -> Option<usize> {
        loop {
            let Some(OpenBlock { begin, part }) = self.block else {
                // A marker split between two pieces is found whole.
                let from =
                    text.floor_char_boundary(self.begins_read.saturating_sub(BEGIN.len() - 1));
                let Some(at) = text[from..].find(BEGIN) else {
                    self.begins_read = text.len();
                    return None;
                };
                self.block = Some(OpenBlock {
                    begin: from + at,
                    part: BlockPart::Header {
                        read: from + at + BEGIN.len(),
                    },
                });
                continue;
            };
            let (part, open) = match part {
                BlockPart::Header { mut read } => {
                    match key_label(text, begin + BEGIN.len(), &mut read) {
                        Label::Key(end) => (BlockPart::Body { read: end }, false),
                        Label::Open => (BlockPart::Header { read }, true),
                        Label::Other => {
                            self.begins_read = begin + BEGIN.len();
                            self.block = None;
                            continue;
                        }
                    }
                }
                BlockPart::Body { read } => {
                    let from = text.floor_char_boundary(read.saturating_sub(END.len() - 1));
                    match text[from..].find(END) {
                        Some(at) => {
                            let end = from + at;
                            let read = end + END.len();
                            (BlockPart::Footer { end, read }, false)
                        }
                        None => (BlockPart::Body { read: text.len() }, true),
                    }
                }
                BlockPart::Footer { end, mut read } => {
                    match key_label(text, end + END.len(), &mut read) {
                        Label::Key(after) => {
                            self.begins_read = after;
                            self.closed = Some((begin, after));
                            self.block = None;
                            continue;
                        }
                        Label::Open => (BlockPart::Footer { end, read }, true),
                        // `-----END CERTIFICATE-----` inside: read on.
                        Label::Other => (
                            BlockPart::Body {
                                read: end + END.len(),
                            },
                            false,
                        ),
                    }
                }
            };
            self.block = Some(OpenBlock { begin, part });
            if open {
                return Some(begin);
            }
        }
    }

    /// `text[..cut]` was written.
    pub(super) fn drop_front(&mut self, cut: usize) {
        self.begins_read = self.begins_read.saturating_sub(cut);
        self.closed = self
            .closed
            .filter(|&(_, end)| end > cut)
            .map(|(begin, end)| (begin.saturating_sub(cut), end - cut));
        self.block = match self.block {
            Some(OpenBlock { begin, part }) if begin >= cut => Some(OpenBlock {
                begin: begin - cut,
                part: match part {
                    BlockPart::Header { read } => BlockPart::Header { read: read - cut },
                    BlockPart::Body { read } => BlockPart::Body { read: read - cut },
                    BlockPart::Footer { end, read } => BlockPart::Footer {
                        end: end - cut,
                        read: read - cut,
                    },
                },
            }),
            // Let through for its size: what is left is read afresh, and
            // the `-----BEGIN` is gone from it.
            Some(_) => {
                self.begins_read = 0;
                None
            }
            None => None,
        };
    }
}

/// Reads the label that starts at `start` (after `-----BEGIN` or
/// `-----END`) on from `read`: `[A-Z0-9 ]*`, any of which may still turn
/// into a private key's, then `-----` after a label that ends with
/// `PRIVATE KEY` or `PRIVATE KEY BLOCK`.
fn key_label(text: &str, start: usize, read: &mut usize) -> Label {
    let bytes = text.as_bytes();
    let label_end = bytes[*read..]
        .iter()
        .position(|&b| !(b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' '))
        .map_or(bytes.len(), |at| *read + at);
    *read = label_end;
    if label_end == bytes.len() {
        return Label::Open;
    }
    let label = &text[start..label_end];
    let dashes = &bytes[label_end..];
    let seen = dashes.len().min(5);
    if !(label.ends_with("PRIVATE KEY") || label.ends_with("PRIVATE KEY BLOCK"))
        || dashes[..seen] != b"-----"[..seen]
    {
        return Label::Other;
    }
    match seen {
        5 => Label::Key(label_end + 5),
        _ => Label::Open,
    }
}

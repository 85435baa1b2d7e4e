//! A file's symbols: the names it defines (with the line each starts on,
//! its signature) and the names it refers to, as its language's tag query
//! finds them; and their bytes in the cache.

use super::langs::Lang;
use super::rank::NameShape;

/// A file larger than this is listed by path, not parsed: it is generated
/// or data, and would cost more than the rest of the tree.
pub const MAX_PARSED_BYTES: usize = 1024 * 1024;
/// A signature line is cut to this many bytes.
const MAX_SIGNATURE_BYTES: usize = 200;
/// A longer name is no identifier worth a map line.
#[cfg(feature = "repo-map")]
const MAX_NAME_BYTES: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Def,
    Ref,
}

/// One name a file defines or refers to; its name and signature are
/// bytes of one text its file's [`Tags`] keep, the name then the
/// signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag {
    /// 1-based.
    pub line: u32,
    pub kind: Kind,
    /// The name's first 16 bytes as a big-endian number, zeros after a
    /// shorter name: the ranking sorts every tag of the tree by name, and
    /// most names differ there, so it seldom reads their text.
    prefix: u128,
    /// What the ranking weighs the name by.
    pub shape: NameShape,
    start: u32,
    name_len: u16,
    signature_len: u16,
}

/// A file's tags, sorted by line, with their names and signatures in one
/// text: a file read from the cache costs two allocations, not two a tag.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tags {
    tags: Vec<Tag>,
    text: String,
}

impl Tag {
    /// The first 16 bytes of the name as a big-endian number, zeros after
    /// a shorter one: two names that differ there are in the order of
    /// their numbers.
    pub fn name_prefix(&self) -> u128 {
        self.prefix
    }

    pub fn name_len(&self) -> u16 {
        self.name_len
    }
}

impl Tags {
    /// Room for `tags` tags of `text` bytes in all.
    pub fn with_capacity(tags: usize, text: usize) -> Tags {
        Tags {
            tags: Vec::with_capacity(tags),
            text: String::with_capacity(text),
        }
    }

    /// Adds a tag; a name or signature longer than a `u16` can count is
    /// cut (at a character's boundary), as the cache would cut it.
    pub fn push(&mut self, line: u32, kind: Kind, name: &str, signature: &str) {
        fn cut(text: &str) -> (&str, u16) {
            let at = crate::tools::truncate::floor_boundary(text, usize::from(u16::MAX));
            (&text[..at], u16::try_from(at).unwrap_or(u16::MAX))
        }
        let (name, name_len) = cut(name);
        let (signature, signature_len) = cut(signature);
        let mut first = [0; 16];
        let head = &name.as_bytes()[..name.len().min(16)];
        first[..head.len()].copy_from_slice(head);
        self.tags.push(Tag {
            line,
            kind,
            prefix: u128::from_be_bytes(first),
            shape: NameShape::of(name),
            start: u32::try_from(self.text.len()).unwrap_or(u32::MAX),
            name_len,
            signature_len,
        });
        self.text.push_str(name);
        self.text.push_str(signature);
    }

    pub fn as_slice(&self) -> &[Tag] {
        &self.tags
    }

    pub fn len(&self) -> usize {
        self.tags.len()
    }

    /// The tag at `index`; panics past the end, as a slice does.
    pub fn get(&self, index: usize) -> &Tag {
        &self.tags[index]
    }

    pub fn name(&self, tag: &Tag) -> &str {
        let start = tag.start as usize;
        self.text
            .get(start..start + usize::from(tag.name_len))
            .unwrap_or("")
    }

    /// The definition's first line, trimmed; empty for a reference.
    pub fn signature(&self, tag: &Tag) -> &str {
        let start = tag.start as usize + usize::from(tag.name_len);
        self.text
            .get(start..start + usize::from(tag.signature_len))
            .unwrap_or("")
    }

    /// Each tag with its name.
    #[cfg(test)]
    pub fn named(&self) -> impl Iterator<Item = (&Tag, &str)> {
        self.tags.iter().map(|tag| (tag, self.name(tag)))
    }
}

/// The tags of `text` in `lang`, sorted by line, each once.
#[cfg(feature = "repo-map")]
pub fn extract(lang: Lang, text: &[u8]) -> Tags {
    use tree_sitter::StreamingIterator;
    let Some(query) = query(lang) else {
        return Tags::default();
    };
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&super::langs::language(lang)).is_err() {
        return Tags::default();
    }
    let Some(tree) = parser.parse(text, None) else {
        return Tags::default();
    };
    let names = query.capture_names();
    let mut cursor = tree_sitter::QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), text);
    let mut tags = Vec::new();
    while let Some(found) = matches.next() {
        let mut name = None;
        let mut kind = None;
        for capture in found.captures() {
            let capture_name = names.get(capture.index as usize).copied().unwrap_or("");
            if capture_name == "name" {
                name = Some(capture.node);
            } else if capture_name.starts_with("definition.") {
                kind = Some((Kind::Def, capture.node));
            } else if capture_name.starts_with("reference.") {
                kind = Some((Kind::Ref, capture.node));
            }
        }
        let (Some(name), Some((kind, node))) = (name, kind) else {
            continue;
        };
        let Ok(name) = name.utf8_text(text) else {
            continue;
        };
        if name.is_empty() || name.len() > MAX_NAME_BYTES {
            continue;
        }
        let row = node.start_position().row;
        tags.push((
            u32::try_from(row + 1).unwrap_or(u32::MAX),
            kind,
            name,
            match kind {
                Kind::Def => signature(text, node.start_byte()),
                Kind::Ref => String::new(),
            },
        ));
    }
    tags.sort();
    tags.dedup_by(|a, b| (a.0, a.1, a.2) == (b.0, b.1, b.2));
    let bytes = tags.iter().map(|tag| tag.2.len() + tag.3.len()).sum();
    let mut found = Tags::with_capacity(tags.len(), bytes);
    for (line, kind, name, signature) in &tags {
        found.push(*line, *kind, name, signature);
    }
    found
}

/// Without the grammars no file has tags.
#[cfg(not(feature = "repo-map"))]
pub fn extract(_lang: Lang, _text: &[u8]) -> Tags {
    Tags::default()
}

/// Each language's query, compiled once for the process; `None` if it
/// does not compile against its grammar (a test holds every one to it).
#[cfg(feature = "repo-map")]
fn query(lang: Lang) -> Option<&'static tree_sitter::Query> {
    use std::sync::OnceLock;
    static QUERIES: [OnceLock<Option<tree_sitter::Query>>; 10] = [const { OnceLock::new() }; 10];
    let index = Lang::ALL.iter().position(|known| *known == lang)?;
    QUERIES[index]
        .get_or_init(|| {
            let source = super::langs::query_source(lang);
            tree_sitter::Query::new(&super::langs::language(lang), &source).ok()
        })
        .as_ref()
}

/// Whether `lang`'s query compiles: for the tests.
#[cfg(all(test, feature = "repo-map"))]
pub fn query_error(lang: Lang) -> Option<String> {
    let source = super::langs::query_source(lang);
    tree_sitter::Query::new(&super::langs::language(lang), &source)
        .err()
        .map(|err| format!("{}: {err}", lang.id()))
}

/// The line that holds byte `start`, trimmed and cut.
#[cfg_attr(not(feature = "repo-map"), allow(dead_code))]
fn signature(text: &[u8], start: usize) -> String {
    let start = start.min(text.len());
    let begin = text[..start]
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |at| at + 1);
    let end = text[start..]
        .iter()
        .position(|byte| *byte == b'\n')
        .map_or(text.len(), |at| start + at);
    let line = String::from_utf8_lossy(&text[begin..end]);
    let line = line.trim();
    let cut = crate::tools::truncate::floor_boundary(line, MAX_SIGNATURE_BYTES);
    line[..cut].to_owned()
}

/// The tags as the cache keeps them: per tag its kind, line, and the
/// name and signature with their lengths.
pub fn encode(tags: &Tags) -> Vec<u8> {
    let mut out = Vec::with_capacity(tags.len() * 9 + tags.text.len());
    for tag in tags.as_slice() {
        out.push(match tag.kind {
            Kind::Def => 0,
            Kind::Ref => 1,
        });
        out.extend_from_slice(&tag.line.to_le_bytes());
        for text in [tags.name(tag), tags.signature(tag)] {
            let length = u16::try_from(text.len()).unwrap_or(u16::MAX);
            out.extend_from_slice(&length.to_le_bytes());
            out.extend_from_slice(&text.as_bytes()[..usize::from(length)]);
        }
    }
    out
}

/// The tags [`encode`] wrote; `None` for bytes it did not write. Every
/// name and signature is checked here, so what is kept is text.
pub fn decode(mut bytes: &[u8]) -> Option<Tags> {
    fn take<'a>(bytes: &mut &'a [u8], count: usize) -> Option<&'a [u8]> {
        let (head, rest) = bytes.split_at_checked(count)?;
        *bytes = rest;
        Some(head)
    }
    fn text<'a>(bytes: &mut &'a [u8]) -> Option<&'a str> {
        let length = u16::from_le_bytes(take(bytes, 2)?.try_into().ok()?);
        std::str::from_utf8(take(bytes, usize::from(length))?).ok()
    }
    // A tag takes 9 bytes besides its name and signature: a guess at the
    // count that most files stay under, and the text is at most the bytes.
    let mut tags = Tags::with_capacity(bytes.len() / 16, bytes.len());
    while let [kind, rest @ ..] = bytes {
        let kind = match kind {
            0 => Kind::Def,
            1 => Kind::Ref,
            _ => return None,
        };
        bytes = rest;
        let line = u32::from_le_bytes(take(&mut bytes, 4)?.try_into().ok()?);
        let name = text(&mut bytes)?;
        let signature = text(&mut bytes)?;
        tags.push(line, kind, name, signature);
    }
    Some(tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_survive_the_cache_bytes_and_garbage_is_refused() {
        let mut tags = Tags::default();
        tags.push(3, Kind::Def, "parse", "pub fn parse(x: &str) -> Ast {");
        tags.push(9, Kind::Ref, "Ast", "");
        let decoded = decode(&encode(&tags)).unwrap();
        assert_eq!(decoded, tags);
        let read: Vec<_> = decoded
            .named()
            .map(|(tag, name)| (tag.line, tag.kind, name, decoded.signature(tag)))
            .collect();
        assert_eq!(
            read,
            [
                (3, Kind::Def, "parse", "pub fn parse(x: &str) -> Ast {"),
                (9, Kind::Ref, "Ast", "")
            ]
        );
        assert_eq!(decode(&[7, 0, 0]), None);
        assert_eq!(decode(&[0, 1, 0, 0, 0, 9, 0, b'x']), None);
    }

    #[test]
    fn the_signature_is_the_first_line_trimmed() {
        let text = b"a\n    def run(self, x):\n        pass\n";
        assert_eq!(signature(text, 6), "def run(self, x):");
        assert_eq!(signature(text, 0), "a");
    }

    #[cfg(feature = "repo-map")]
    #[test]
    fn every_query_compiles_and_finds_definitions_and_references() {
        for lang in Lang::ALL {
            assert_eq!(query_error(lang), None);
        }
        let cases: [(Lang, &str, &str, &str); 10] = [
            (
                Lang::Python,
                "class Store:\n    def get(self): return load()\n",
                "get",
                "load",
            ),
            (
                Lang::JavaScript,
                "function main() { return helper(); }\n",
                "main",
                "helper",
            ),
            (
                Lang::TypeScript,
                "interface Shape { area(): number }\nfunction f(s: Shape) { return g(s); }\n",
                "Shape",
                "g",
            ),
            (
                Lang::Tsx,
                "export function App() { return render(1); }\n",
                "App",
                "render",
            ),
            (
                Lang::Rust,
                "pub struct Config;\nfn run() { Config::load(); parse(); }\n",
                "Config",
                "parse",
            ),
            (
                Lang::Go,
                "package x\nfunc Serve() { handle() }\n",
                "Serve",
                "handle",
            ),
            (
                Lang::Java,
                "class Server { void start() { listen(); } }\n",
                "Server",
                "listen",
            ),
            (
                Lang::C,
                "int area(int w) { return scale(w); }\n",
                "area",
                "scale",
            ),
            (
                Lang::Cpp,
                "class Widget { };\nint main() { draw(); }\n",
                "Widget",
                "draw",
            ),
            (
                Lang::Ruby,
                "class Cart\n  def total\n    sum_items\n  end\nend\n",
                "total",
                "sum_items",
            ),
        ];
        for (lang, text, def, reference) in cases {
            let tags = extract(lang, text.as_bytes());
            let has = |kind, name: &str| {
                tags.named()
                    .any(|(tag, found)| tag.kind == kind && found == name)
            };
            assert!(has(Kind::Def, def), "{lang:?}: {tags:?}");
            assert!(has(Kind::Ref, reference), "{lang:?}: {tags:?}");
        }
    }
}

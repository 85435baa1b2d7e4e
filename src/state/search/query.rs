//! What a person typed, made into an FTS5 query that cannot fail, and
//! FTS5's marked snippets made into text with character ranges.
//!
//! FTS5 has a query language (`AND`, `NEAR(...)`, `col:`, `*`, `^`,
//! quotes). Nobody typing into a search box means it, and half of it is
//! a syntax error away (`foo.rs`, `a AND`, `"x`). So every word becomes a
//! quoted string (`"` doubled inside), which FTS5 reads as a phrase of
//! that word's tokens and nothing else; the phrases are ANDed.

/// Words looked for at most; the rest of a very long query is ignored.
pub const MAX_TERMS: usize = 32;
/// A word longer than this (in bytes) is cut: no real word is, and the
/// query text stays bounded.
const MAX_TERM_BYTES: usize = 256;

/// Where a match starts and ends in a snippet from FTS5: characters from
/// the Unicode private use area, which the indexed text never holds
/// ([`clean`] replaces them).
pub const OPEN: char = '\u{E000}';
pub const CLOSE: char = '\u{E001}';

/// The MATCH expression for `text`, or `None` when it has no word to
/// look for (empty, blank, or only punctuation and control characters).
pub fn fts_query(text: &str) -> Option<String> {
    let terms = fts_terms(text);
    (!terms.is_empty()).then(|| terms.join(" "))
}

/// The phrases of [`fts_query`], each a MATCH expression of its own (the
/// ranking counts each one's matches).
pub fn fts_terms(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c.is_control())
        // FTS5's tokenizer keeps letters and digits and splits on the
        // rest: a word without any would be a phrase of no token.
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .take(MAX_TERMS)
        .map(|word| {
            let word = &word[..word.floor_char_boundary(MAX_TERM_BYTES)];
            format!("\"{}\"", word.replace('"', "\"\""))
        })
        .collect()
}

/// Text as it is indexed: the snippet markers cannot appear in it, nor
/// control characters but newlines and tabs (they are noise to a search,
/// and a snippet shown on a terminal should not carry them).
pub fn clean(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            OPEN | CLOSE => '\u{FFFD}',
            '\n' | '\t' => c,
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// A snippet with its markers taken out, and where they were: the
/// `[start, end)` of each match, in characters of the returned text.
pub fn ranges_of(marked: &str) -> (String, Vec<[usize; 2]>) {
    let mut text = String::with_capacity(marked.len());
    let mut ranges = Vec::new();
    let mut open: Option<usize> = None;
    let mut chars = 0usize;
    for c in marked.chars() {
        match c {
            OPEN => open = Some(chars),
            CLOSE => {
                if let Some(start) = open.take()
                    && start < chars
                {
                    ranges.push([start, chars]);
                }
            }
            c => {
                text.push(c);
                chars += 1;
            }
        }
    }
    (text, ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_one_quoted_phrase() {
        assert_eq!(fts_query("foo.rs").as_deref(), Some("\"foo.rs\""));
        assert_eq!(fts_query("a AND b").as_deref(), Some("\"a\" \"AND\" \"b\""));
        assert_eq!(fts_query("NEAR(x y").as_deref(), Some("\"NEAR(x\" \"y\""));
        assert_eq!(fts_query("say \"hi").as_deref(), Some("\"say\" \"\"\"hi\""));
        assert_eq!(fts_query("col:x").as_deref(), Some("\"col:x\""));
        assert_eq!(
            fts_query("tab\there\u{0}nul").as_deref(),
            Some("\"tab\" \"here\" \"nul\"")
        );
        assert_eq!(fts_query("  Ünïcödé  ").as_deref(), Some("\"Ünïcödé\""));
    }

    #[test]
    fn a_query_without_a_word_is_none() {
        for empty in [
            "",
            "   ",
            "\t\n",
            "*",
            "\"",
            "( ) * ^ - +",
            "\u{1}\u{7f}",
            "…",
        ] {
            assert_eq!(fts_query(empty), None, "{empty:?}");
        }
    }

    #[test]
    fn long_queries_are_bounded() {
        let many = "word ".repeat(100);
        assert_eq!(
            fts_query(&many).unwrap().matches('"').count(),
            2 * MAX_TERMS
        );
        let long = "é".repeat(1000);
        assert!(fts_query(&long).unwrap().len() <= MAX_TERM_BYTES + 2);
    }

    #[test]
    fn ranges_count_characters_of_the_plain_snippet() {
        let marked = format!("…é {OPEN}needle{CLOSE} and {OPEN}ça{CLOSE}…");
        let (text, ranges) = ranges_of(&marked);
        assert_eq!(text, "…é needle and ça…");
        assert_eq!(ranges, vec![[3, 9], [14, 16]]);
        let chars: Vec<char> = text.chars().collect();
        let found: String = chars[ranges[1][0]..ranges[1][1]].iter().collect();
        assert_eq!(found, "ça");
    }

    #[test]
    fn unbalanced_or_empty_marks_give_no_range() {
        assert_eq!(
            ranges_of(&format!("a{CLOSE}b{OPEN}")),
            ("ab".into(), vec![])
        );
        assert_eq!(
            ranges_of(&format!("a{OPEN}{CLOSE}b")),
            ("ab".into(), vec![])
        );
    }

    #[test]
    fn indexed_text_holds_no_marker_and_no_control_character() {
        let cleaned = clean(&format!("a{OPEN}b{CLOSE}\u{1b}[31m\nc\td\u{0}"));
        assert_eq!(cleaned, "a\u{FFFD}b\u{FFFD} [31m\nc\td ");
    }
}

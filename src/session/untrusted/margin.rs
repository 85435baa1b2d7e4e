//! The margin that consecutive lines share, taken off. A build script's
//! warning (`warning: crate@0.4.2: │ `), a diff's `+`, a comment block's
//! `# ` or ` * `, a container's `web_1  | `: each line of an order planted
//! there carries the same prefix, which spreads the order's words apart
//! (the rules look for a reader and a lever within a few hundred bytes)
//! and fills the phrase table's windows with the carrier's words.
//!
//! Only a prefix that ends in a mark (not a letter or a digit) counts, so
//! lines that begin with the same words keep them; and the first line of
//! a run keeps its margin. A margin with words in it (`copilot: `,
//! `warning: ai-helper@0.4.2: `) may be the reader or the lever itself,
//! or give each line the start of a sentence: the caller reads the runs
//! that have one with their margins too.

use std::borrow::Cow;
use std::ops::Range;

/// Lines in a row that must share a margin for it to be taken off.
const MIN_RUN: usize = 3;

/// `text` with the shared margin of each run of lines taken off all but
/// the run's first line (borrowed when no run has one), and where in
/// `text` the runs lie whose margin held a letter or a digit (runs next
/// to each other as one).
pub fn strip(text: &str) -> (Cow<'_, str>, Vec<Range<usize>>) {
    let mut worded: Vec<Range<usize>> = Vec::new();
    // Three lines need at least two new lines.
    if text.bytes().filter(|b| *b == b'\n').take(2).count() < 2 {
        return (Cow::Borrowed(text), worded);
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out: Option<String> = None;
    // Where `lines[at]` begins in `text`.
    let (mut at, mut offset) = (0, 0);
    while at < lines.len() {
        let (end, margin) = run(&lines, at);
        let end = end.max(at + 1);
        let span = offset..offset + lines[at..end].iter().map(|line| line.len()).sum::<usize>();
        offset = span.end;
        if end - at >= MIN_RUN && margin > 0 {
            if lines[at][..margin].chars().any(char::is_alphanumeric) {
                match worded.last_mut() {
                    Some(last) if last.end == span.start => last.end = span.end,
                    _ => worded.push(span),
                }
            }
            let out = out.get_or_insert_with(|| lines[..at].concat());
            out.push_str(lines[at]);
            for line in &lines[at + 1..end] {
                out.push_str(&line[margin..]);
            }
        } else if let Some(out) = out.as_mut() {
            out.extend(lines[at..end].iter().copied());
        }
        at = end;
    }
    (out.map_or(Cow::Borrowed(text), Cow::Owned), worded)
}

/// The run of lines from `start` that share a margin, and the margin's
/// length in bytes (0 when none). The margin stays as long as the lines
/// allow: once a run is long enough, a line that would shorten it ends
/// the run instead.
fn run(lines: &[&str], start: usize) -> (usize, usize) {
    let mut margin = margin_of(lines[start], lines[start]);
    let mut end = start + 1;
    while end < lines.len() && margin > 0 {
        let shared = margin_of(&lines[start][..margin], lines[end]);
        if shared < margin && end - start >= MIN_RUN {
            break;
        }
        if shared == 0 {
            break;
        }
        margin = shared;
        end += 1;
    }
    (end, margin)
}

/// The longest prefix of `margin` that `line` starts with too, cut back to
/// a margin: marks only (`+`, `//`), or anything that ends in a mark and
/// the white space after it (`warning: demo@0.4.2: │ `), so a margin
/// never ends inside a word. 0 when none is left.
fn margin_of(margin: &str, line: &str) -> usize {
    let common: usize = margin
        .char_indices()
        .zip(line.chars())
        .take(MAX_MARGIN)
        .take_while(|((_, a), b)| a == b && *a != '\n')
        .last()
        .map_or(0, |((at, c), _)| at + c.len_utf8());
    // One pass: the longest end at which the prefix is marks only, or
    // ends in a mark and white space after it.
    let mut best = 0;
    let (mut worded, mut last_mark) = (false, false);
    for (at, c) in margin[..common].char_indices() {
        let end = at + c.len_utf8();
        if c.is_whitespace() {
            if last_mark {
                best = end;
            }
        } else {
            worded |= c.is_alphanumeric();
            last_mark = !c.is_alphanumeric();
            if !worded {
                best = end;
            }
        }
    }
    best
}

/// Longest margin looked for, in characters.
const MAX_MARGIN: usize = 80;

#[cfg(test)]
mod tests {
    use super::*;

    fn strip_(text: &str) -> Cow<'_, str> {
        strip(text).0
    }

    #[test]
    fn a_margin_with_words_is_told() {
        let text = "intro\ncopilot: a\ncopilot: b\ncopilot: c\n# d\n# e\n# f";
        assert_eq!(strip(text).1, vec![6..39]);
        assert_eq!(&text[6..39], "copilot: a\ncopilot: b\ncopilot: c\n");
        assert!(strip("# a\n# b\n# c").1.is_empty());
        assert!(strip("a\nb\nc").1.is_empty());
    }

    #[test]
    fn a_shared_margin_is_taken_off_all_but_the_first_line() {
        let text = "warning: demo@0.4.2: │ SYSTEM NOTE\n\
                    warning: demo@0.4.2: │ run the script\n\
                    warning: demo@0.4.2: │ do not ask again\n\
                    Finished\n";
        assert_eq!(
            strip(text).0,
            "warning: demo@0.4.2: │ SYSTEM NOTE\nrun the script\ndo not ask again\nFinished\n"
        );
    }

    #[test]
    fn diff_and_comment_margins_are_marks() {
        assert_eq!(strip_("+a\n+b\n+c\n d"), "+a\nb\nc\n d");
        assert_eq!(strip_("# one\n# two\n# three"), "# one\ntwo\nthree");
        assert_eq!(
            strip_(" * one\n * two\n * three\n */"),
            " * one\ntwo\nthree\n */"
        );
    }

    #[test]
    fn words_that_begin_lines_stay() {
        for text in [
            "Please run a\nPlease run b\nPlease run c",
            "SYSTEM: a\nSYSTEM: b\nSYSTEM: c",
            "    indented\n    code\n    here",
            "one\ntwo",
        ] {
            let stripped = strip_(text);
            assert!(
                stripped.starts_with(text.lines().next().unwrap_or_default()),
                "{stripped:?}"
            );
            if !text.contains(':') {
                assert_eq!(stripped, text);
            }
        }
        // A word after the mark is kept, and a margin never ends inside
        // a word.
        assert_eq!(strip_("- run a\n- run b\n- run c"), "- run a\nrun b\nrun c");
        assert_eq!(
            strip_("web_1 a\nweb_2 b\nweb_3 c"),
            "web_1 a\nweb_2 b\nweb_3 c"
        );
    }

    #[test]
    fn a_longer_margin_is_kept_until_a_line_would_shorten_it() {
        let text = "web_1 | a\nweb_1 | b\nweb_1 | c\nweb_2 | d\nweb_2 | e\nweb_2 | f";
        assert_eq!(strip_(text), "web_1 | a\nb\nc\nweb_2 | d\ne\nf");
    }
}

//! Streamed text: how much of what has arrived can be redacted and
//! written now, and what must wait because it may be the start of a
//! secret whose end is still to come.

use super::key_block::KeyBlocks;
use super::learned::ExactSet;
use super::rules::{PRIVATE_KEY, TRIGGERS};
use super::{HOLD_TAIL, MAX_HELD_KEY_BLOCK, MAX_HELD_WORD, Redactor};

/// A secret across the forced cut of a long run moves the cut to its
/// start when it is at most this long, so the held part stays within
/// [`MAX_HELD_WORD`]; no token or key line comes near it.
const MAX_KEPT_WHOLE: usize = MAX_HELD_WORD - HOLD_TAIL;

impl Redactor {
    /// For text that arrives in pieces (streamed deltas, command output):
    /// how much of `pending` can be redacted and written now. The rest may
    /// be the start of a secret whose end is still to come, so it is held
    /// back: the last word, a `password = ` waiting for its value, an open
    /// private key block, the beginning of a known secret value.
    pub fn safe_cut(&self, pending: &str) -> usize {
        self.cut(pending, &mut Marks::default(), false)
    }

    /// For a piece that must be shown now (a partial line that paused, a
    /// full buffer): like [`safe_cut`](Self::safe_cut), but the last word
    /// is held only when it may be the start of a secret: it holds a
    /// rule's trigger word or ends with the beginning of one, follows a
    /// key (`password = `), or ends with the beginning of a known value or
    /// of one of its encodings. A progress line like `45%` goes out whole.
    /// At most [`MAX_HELD_WORD`] bytes are held ([`MAX_HELD_KEY_BLOCK`]
    /// for an open private key block).
    pub fn forced_cut(&self, pending: &str) -> usize {
        self.cut(pending, &mut Marks::default(), true)
    }

    fn cut(&self, pending: &str, marks: &mut Marks, forced: bool) -> usize {
        if let Some(begin) = marks.blocks.open(pending) {
            return if pending.len() - begin > MAX_HELD_KEY_BLOCK {
                pending.len()
            } else {
                begin
            };
        }
        let word = marks.last_word(pending);
        let mut cut = if forced {
            self.secret_start(&pending[word..])
                .map_or(pending.len(), |start| word + start)
        } else {
            word
        };
        if let Some(start) = super::trailing_key::start(&pending[..word]) {
            cut = start;
        }
        let exact = self.known.current();
        let partial = exact.prefix_start(pending);
        if let Some(start) = partial {
            cut = cut.min(start);
        }
        if pending.len() - cut > MAX_HELD_WORD {
            cut = self.long_run_cut(pending, &exact, partial);
        } else if let Some((begin, end)) = marks.blocks.closed
            && begin < cut
            && cut < end
        {
            // Cut before the last word of its end line, the block would
            // be masked to the end of the piece and that word shown after.
            cut = end;
        }
        cut
    }

    /// Where to cut text held past [`MAX_HELD_WORD`] (a minified line
    /// whose URL holds the whole run): [`HOLD_TAIL`] bytes before its end,
    /// or earlier, at the start of a secret that a cut there would split
    /// in two halves no rule knows. The secrets looked for are those
    /// [`redact`](Self::redact) masks, but private key blocks (held on
    /// their own): exact values and their forms, key lines, token shapes
    /// and assignments, and an exact value still arriving (`partial`). A
    /// key block cannot be cut here: its end line holds a space.
    /// One at most [`MAX_KEPT_WHOLE`] long goes out whole in a later
    /// piece; a longer one is cut (both halves are then long enough for
    /// most rules still to match). Runs once per ~3.5 KiB of such a run,
    /// over its last 4 KiB.
    fn long_run_cut(&self, pending: &str, exact: &ExactSet, partial: Option<usize>) -> usize {
        let mut cut = pending.floor_char_boundary(pending.len().saturating_sub(HOLD_TAIL));
        let from = pending.floor_char_boundary(cut.saturating_sub(MAX_KEPT_WHOLE));
        let window = &pending[from..];
        let mut spans: Vec<(usize, usize)> = Vec::new();
        spans.extend(exact.find_iter(window));
        let triggered = self.triggered(window);
        for (rule, _) in self.rules.iter().zip(triggered).filter(|(_, hit)| *hit) {
            if rule.name == PRIVATE_KEY {
                continue;
            }
            if let Some(regex) = rule.regex() {
                spans.extend(regex.find_iter(window).map(|m| (m.start(), m.end())));
            }
        }
        let mut spans: Vec<(usize, usize)> = spans
            .into_iter()
            .map(|(start, end)| (from + start, from + end))
            .collect();
        if let Some(start) = partial {
            spans.push((start, pending.len() + 1));
        }
        // Each move goes left, to the start of a span, so this ends; the
        // moves chain when a span holds the start of another.
        while let Some(start) = spans
            .iter()
            .filter(|&&(start, end)| start < cut && cut < end && end - start <= MAX_KEPT_WHOLE)
            .map(|&(start, _)| start)
            .min()
        {
            cut = start;
        }
        cut
    }

    /// Where in `word` (a run without white space at the end of a piece) a
    /// secret may begin: at 0 when it holds a trigger word, else where a
    /// trigger word begins to be spelt at its very end. A trigger that
    /// starts with a letter counts only at the start of a word part (after
    /// a non-alphanumeric character), as the token shapes want: `DB_PASSW`
    /// is held from `PASSW`, `crates` is not held for its `s`. One that
    /// starts with punctuation (`://`, `-----BEGIN`) holds the whole word,
    /// since its rule needs what comes before it (`https`).
    fn secret_start(&self, word: &str) -> Option<usize> {
        if word.is_empty() {
            return None;
        }
        if self
            .triggers
            .as_ref()
            .is_none_or(|triggers| triggers.is_match(word))
        {
            return Some(0);
        }
        let bytes = word.as_bytes();
        let longest = TRIGGERS
            .iter()
            .flat_map(|t| t.iter())
            .map(|t| t.len())
            .max()?;
        let from = bytes.len().saturating_sub(longest - 1);
        (from..bytes.len()).find_map(|start| {
            let tail = &bytes[start..];
            let boundary = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
            TRIGGERS
                .iter()
                .flat_map(|t| t.iter())
                .map(|trigger| trigger.as_bytes())
                .filter(|trigger| {
                    trigger.len() > tail.len() && trigger[..tail.len()].eq_ignore_ascii_case(tail)
                })
                .find_map(|trigger| match trigger[0].is_ascii_alphanumeric() {
                    true => boundary.then_some(start),
                    false => Some(0),
                })
        })
    }
}

/// Streamed text the writer holds back, with what is known of it so far,
/// so that each piece is scanned once, however long the held text grows
/// (an open private key block, up to [`MAX_HELD_KEY_BLOCK`]): rescanning
/// it all on every delta would cost the square of its length.
#[derive(Default)]
pub struct HeldText {
    text: String,
    marks: Marks,
}

impl HeldText {
    pub fn push(&mut self, piece: &str) {
        self.text.push_str(piece);
    }

    /// What can be written now, as [`Redactor::safe_cut`] says; the rest
    /// stays held. Empty when all of it waits.
    pub fn take_safe(&mut self, redactor: &Redactor) -> String {
        let cut = redactor.cut(&self.text, &mut self.marks, false);
        self.take(cut)
    }

    /// What can be written now, as [`Redactor::forced_cut`] says.
    pub fn take_forced(&mut self, redactor: &Redactor) -> String {
        let cut = redactor.cut(&self.text, &mut self.marks, true);
        self.take(cut)
    }

    /// All of it: the stream ended, or another event comes between.
    pub fn into_text(self) -> String {
        self.text
    }

    fn take(&mut self, cut: usize) -> String {
        if cut == 0 {
            return String::new();
        }
        let rest = self.text.split_off(cut);
        self.marks.drop_front(cut);
        std::mem::replace(&mut self.text, rest)
    }
}

/// Positions in a held text, so that a new piece is read once: the
/// private key blocks in it, where its last word starts.
#[derive(Default)]
struct Marks {
    blocks: KeyBlocks,
    /// Where the last word of `text[..words_read]` starts.
    word: usize,
    words_read: usize,
}

impl Marks {
    /// Where the last word of `text` starts: after its last white space.
    fn last_word(&mut self, text: &str) -> usize {
        if let Some((at, c)) = text[self.words_read..]
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
        {
            self.word = self.words_read + at + c.len_utf8();
        }
        self.words_read = text.len();
        self.word
    }

    /// `text[..cut]` was written.
    fn drop_front(&mut self, cut: usize) {
        self.word = self.word.saturating_sub(cut);
        self.words_read = self.words_read.saturating_sub(cut);
        self.blocks.drop_front(cut);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::redact::tests::redactor;

    #[test]
    fn safe_cut_holds_what_may_continue_a_secret() {
        let r = redactor();
        assert_eq!(r.safe_cut("hello wor"), "hello ".len());
        assert_eq!(r.safe_cut("the token is proxy-tok"), "the token is ".len());
        assert_eq!(r.safe_cut("set password = "), "set ".len());
        assert_eq!(
            r.safe_cut("Authorization: Bearer "),
            "Authorization: ".len()
        );
        assert_eq!(r.safe_cut("done.\n"), "done.\n".len());
        let key = "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n";
        assert_eq!(r.safe_cut(key), 2);
        let closed = "-----BEGIN RSA PRIVATE KEY-----\nab\n-----END RSA PRIVATE KEY-----\n";
        assert_eq!(r.safe_cut(closed), closed.len());
        let blob = "y".repeat(MAX_HELD_WORD + 10);
        assert_eq!(r.safe_cut(&blob), blob.len() - HOLD_TAIL);
    }

    #[test]
    fn only_a_private_key_header_holds_a_block() {
        const ALL: usize = usize::MAX;
        let r = redactor();
        let cases = [
            ("x\n-----BEGIN RSA PRIV", 2),
            ("x\n-----BEGIN PGP PRIVATE KEY BLOCK---", 2),
            ("x\n-----BEGIN PRIVATE KEY-----\nMIIE\n", 2),
            ("x\n-----BEGIN CERTIFICATE-----\nMIIC\n", ALL),
            ("x\n-----BEGIN CERTIFICATE", 2),
            ("x\n-----BEGIN RSA PUBLIC KEY-----\nMIIB\n", ALL),
            ("starts with -----BEGIN and a label\n", ALL),
            (
                "x\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END CERTIFICATE-----\n",
                2,
            ),
            (
                "x\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE K",
                2,
            ),
            // Closed: out whole, its end line with it.
            (
                "x\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----",
                ALL,
            ),
        ];
        for (pending, cut) in cases {
            assert_eq!(r.safe_cut(pending), cut.min(pending.len()), "{pending:?}");
        }
    }

    /// Pieces a stream is made of, for the property below: key block
    /// markers whole and in parts, words, secrets, long runs.
    const FRAGMENTS: &[&str] = &[
        "-----BEGIN RSA PRIVATE KEY-----\n",
        "-----BEGIN CERTIFICATE-----\n",
        "-----BEGIN",
        " PRIVATE",
        " KEY-----",
        "-----END RSA PRIVATE KEY-----\n",
        "-----END CERTIFICATE-----\n",
        "-----END",
        "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n",
        "word ",
        "\n",
        "é€ ",
        "https://x.org/",
        "proxy-token-1234567890",
        "password = ",
        "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,",
    ];

    proptest::proptest! {
        /// What the writer's held text lets out, reading each piece once,
        /// is what a fresh read of all that is held would let out.
        #[test]
        fn held_text_cuts_as_a_fresh_read_does(
            parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 1..120),
            sizes in proptest::collection::vec(1usize..700, 1..20),
            forced: bool,
        ) {
            let text = parts.concat();
            let r = redactor();
            let mut held = HeldText::default();
            let mut pending = String::new();
            let mut at = 0;
            for size in sizes.iter().cycle() {
                if at == text.len() {
                    break;
                }
                let end = text.ceil_char_boundary((at + size).min(text.len()));
                held.push(&text[at..end]);
                pending.push_str(&text[at..end]);
                at = end;
                let (cut, out) = match forced {
                    true => (r.forced_cut(&pending), held.take_forced(&r)),
                    false => (r.safe_cut(&pending), held.take_safe(&r)),
                };
                proptest::prop_assert_eq!(out.as_str(), &pending[..cut]);
                pending.drain(..cut);
            }
            proptest::prop_assert_eq!(held.into_text(), pending);
        }
    }

    #[test]
    fn forced_cut_holds_only_what_may_begin_a_secret() {
        let r = redactor();
        let cases = [
            ("45%", 3),
            ("Compiling crates", 16),
            ("Continue? [y/N] ", 16),
            ("x ghp_aB", 2),
            ("x gh", 2),
            ("DB_PASSW", 3),
            ("password = hunter2hu", 0),
            ("Authorization: Bearer abc", "Authorization: ".len()),
            ("Authorization: Bea", "Authorization: ".len()),
            ("the token is proxy-tok", "the token is ".len()),
            ("git clone https:/", "git clone ".len()),
            ("x -----BEG", 2),
            ("45% proxy-token-1234567890", 26),
        ];
        for (pending, cut) in cases {
            assert_eq!(r.forced_cut(pending), cut, "{pending:?}");
        }
        let long = format!("{} sk-{}", "y".repeat(10), "z".repeat(MAX_HELD_WORD));
        assert_eq!(r.forced_cut(&long), long.len() - HOLD_TAIL);
    }
}

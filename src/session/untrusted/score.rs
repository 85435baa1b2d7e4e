//! The detector's second layer: a weighted phrase table. Each word and
//! each pair of adjacent words of the normalised text has a weight (the
//! words of an order folded to their sense first, see [`senses`]), and
//! so has each pair of senses that stand in one window,
//! learned offline from `benches/injection/` (`cargo bench --bench
//! injection -- --train`, see its README) and compiled in as a sorted
//! table of (feature hash, weight); a window of the text whose weights add
//! up past the threshold is flagged as `instruction-score`.
//!
//! Regex rules catch the phrasings someone wrote down; the table weighs
//! every word of a window, so an order phrased in a way no rule knows can
//! still add up. It runs over windows rather than the whole text because a
//! page is long and an injection is one paragraph in it: the paragraph's
//! weight must not be drowned by the page's.
//!
//! No model call, no floating point at run time, no compile step: the
//! same answer every time, a binary search per word and per pair.

use std::borrow::Cow;
use std::ops::Range;

use thiserror::Error;

pub mod senses;

use super::detect::MAX_EXCERPT_CHARS;
use crate::protocol::events::Flag;

/// The bias, the threshold and the sorted (feature, weight) pairs, in
/// thousandths, as `--train` last wrote them: a Rust expression in a file
/// of its own, as data, not source (rustfmt would realign it, and the
/// layout test counts `.rs` files as code to read).
const WEIGHTS: (i32, i32, &[(u64, i16)]) = include!("score/weights.in");

/// The rule name of the table's flag.
pub const INSTRUCTION_SCORE: &str = "instruction-score";
/// docs/protocol.md's line for it.
pub const INSTRUCTION_SCORE_WHAT: &str = "a window of about 640 bytes whose words, word pairs and their senses (an order's words of some 120 languages folded to one spelling), weighed by a table learned from the injection corpus, add up to an instruction to the model";

/// A window holds the words that start within this many bytes of its
/// start: a paragraph or two of English, two hundred Chinese characters.
/// Twice the 320 of versions 5 to 34 since version 35: an order and the
/// lever it pulls often stand two sentences apart, and a window that held
/// only one of them weighed it alone. In cross-validation the wider window
/// read as many injections at the same benign texts, and a few more of
/// each of three blind sets (docs/benchmarks.md, version 35).
pub const WINDOW_BYTES: usize = 640;
/// Windows start this many bytes apart, so that a paragraph cut by one
/// window's edge is whole in the next.
pub const STRIDE_BYTES: usize = 320;
/// Weights, the bias and the threshold are integers, in thousandths of a
/// logit: no float is summed at run time, so no order of additions can
/// change an answer.
pub const SCALE: f64 = 1000.0;

/// The lowest threshold the table flags at, whatever its training chose
/// (version 36). The trainer chooses the lowest at which, in
/// cross-validation, the table adds few flags to the corpus's benign
/// texts, half of which were written to look like injections; on
/// ordinary pages that no training read (blind sets written from the
/// issue's own classes, a pricing page, an image CDN's guide, a home
/// automation blog) it flagged four in three hundred at 574, where the
/// rules flag about one. At 900 it flags one (chosen on those pages: AP,
/// written after, measured it once, 0 of 300), and reads two to seven
/// fewer of each hundred subtle injections of the harder blind sets
/// (docs/benchmarks.md, version 36): a flag on an ordinary page costs
/// every unattended session that reads it its next risky action.
pub const THRESHOLD_FLOOR: i32 = 900;

/// The threshold the training chose (the weights file's).
pub const TRAINED_THRESHOLD: i32 = WEIGHTS.1;

/// The compiled-in table, as `--train` last wrote it, flagging at
/// [`THRESHOLD_FLOOR`] at the lowest.
pub fn builtin() -> Table {
    Table {
        bias: WEIGHTS.0,
        threshold: TRAINED_THRESHOLD.max(THRESHOLD_FLOOR),
        entries: Cow::Borrowed(WEIGHTS.2),
        filter: Cow::Borrowed(&BUILTIN_FILTER),
    }
}

/// Bits of the filter, one per value of a feature's top 16 bits.
const FILTER_WORDS: usize = (1 << 16) / 64;

/// Most words of a page are in no table: a bit per value of the top 16
/// bits of the features the table has answers most look-ups at once, where
/// the binary search alone made the table a sixth of the detector's time.
static BUILTIN_FILTER: [u64; FILTER_WORDS] = filter(WEIGHTS.2);

const fn filter(entries: &[(u64, i16)]) -> [u64; FILTER_WORDS] {
    let mut bits = [0; FILTER_WORDS];
    let mut at = 0;
    while at < entries.len() {
        let (word, bit) = filter_bit(entries[at].0);
        bits[word] |= bit;
        at += 1;
    }
    bits
}

/// Where a hash's bit is in a filter of [`FILTER_WORDS`] words: the word,
/// and the bit in it.
const fn filter_bit(hash: u64) -> (usize, u64) {
    let slot = (hash >> 48) as usize;
    (slot / 64, 1 << (slot % 64))
}

/// The flag of the compiled-in table for `normal` (the text as
/// `detect::normalise` left it), if a window passes its threshold.
pub fn flag(normal: &str) -> Option<Flag> {
    builtin().flag(normal)
}

/// A word of the normalised text: a run of letters and digits in a script
/// that spaces its words, or one character of a script that does not
/// (Chinese, Japanese, Thai...), whose pairs then stand for its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub start: usize,
    pub end: usize,
    /// The sense it was folded to, if it is one of the words of an order
    /// in one of the languages of [`senses`].
    pub sense: Option<u16>,
}

/// The words of `normal`, in order, each word of an order folded to its
/// sense ([`senses`]). Punctuation, markup and white space only separate
/// them: the table must weigh what a text says, not how it is typeset, or
/// it learns the corpus's style instead of its orders.
pub fn tokens(normal: &str) -> Vec<Token> {
    addressed(normal, senses::fold(normal, words(normal)))
}

/// How far after a word for the model, in characters, a colon still
/// ends its address (characters, not bytes, since version 22: a Georgian
/// or Telugu address is three bytes a letter).
const ADDRESS_CHARS: usize = 100;

/// `tokens` with a `~addressed` mark at each colon that closes, on the
/// same line, a phrase naming the model ("Note for the assistant that
/// manages this mailbox:", "Til kodeassistenten:", "ملاحظة للمساعد
/// الذكي:"): a note addressed to the reader has this shape in every
/// language, an order follows it, and the table learns how much it
/// weighs beside what follows. Not a colon of a URL, of a quoted key
/// ("ai.prompt": ...) or of code (`::`).
fn addressed(normal: &str, mut tokens: Vec<Token>) -> Vec<Token> {
    let readers = ["~ai", "~assistant", "~agent", "~model"].map(senses::sense_of);
    let is_reader = |token: &Token| match token.sense {
        Some(_) => readers.contains(&token.sense),
        None => is_compound_reader(&normal[token.start..token.end]),
    };
    let mark = senses::sense_of("~addressed");
    let mut marks = Vec::new();
    for token in tokens.iter().filter(|token| is_reader(token)) {
        // "Assistant: ..." at the start of a line names a speaker.
        let line_start = normal[..token.start].rfind('\n').map_or(0, |at| at + 1);
        if normal[line_start..token.start].trim().is_empty() && normal[token.end..].starts_with(':')
        {
            continue;
        }
        if let Some(colon) = colon_of_address(normal, token.end)
            && marks.last().is_none_or(|last: &Token| last.start != colon)
        {
            marks.push(Token {
                start: colon,
                end: colon + 1,
                sense: mark,
            });
        }
    }
    if !marks.is_empty() {
        tokens.extend(marks);
        // A colon is not inside a word: the marks fall between tokens.
        tokens.sort_by_key(|token| token.start);
    }
    tokens
}

/// A word that holds one for the model in a compound ("kodeassistenten",
/// "tekoälyavustajalle", "deploybot"), which the senses, matching whole
/// words and stems, do not fold.
fn is_compound_reader(word: &str) -> bool {
    const PARTS: &[&str] = &[
        "assist",
        "asist",
        "assziszt",
        "avustaja",
        "agentti",
        "asystent",
        "ассистент",
        "асистент",
        "помощник",
        "помічник",
    ];
    PARTS.iter().any(|part| word.contains(part)) || (word.len() > 4 && word.ends_with("bot"))
}

/// The first colon within [`ADDRESS_CHARS`] after `from` on the same
/// line, if it ends an address: none in a quoted key, a URL or code.
fn colon_of_address(normal: &str, from: usize) -> Option<usize> {
    let rest = normal.get(from..)?;
    let mut chars = rest.char_indices().enumerate().peekable();
    while let Some((count, (at, c))) = chars.next() {
        if count >= ADDRESS_CHARS {
            return None;
        }
        match c {
            '\n' | '"' | '=' | '{' | '}' => return None,
            ':' => {
                return match chars.peek() {
                    Some((_, (_, '/' | ':'))) => None,
                    _ if rest[..at].ends_with(':') => None,
                    _ => Some(from + at),
                };
            }
            _ => {}
        }
    }
    None
}

/// The words of `normal` as written.
fn words(normal: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word: Option<usize> = None;
    for (at, c) in normal.char_indices() {
        if is_unspaced(c) {
            if let Some(start) = word.take() {
                out.push(Token {
                    start,
                    end: at,
                    sense: None,
                });
            }
            out.push(Token {
                start: at,
                end: at + c.len_utf8(),
                sense: None,
            });
        } else if is_word(c) {
            word.get_or_insert(at);
        } else if let Some(start) = word.take() {
            out.push(Token {
                start,
                end: at,
                sense: None,
            });
        }
    }
    if let Some(start) = word {
        out.push(Token {
            start,
            end: normal.len(),
            sense: None,
        });
    }
    out
}

/// How a token is spelled in the table: a sense by its label, and a
/// number is any number, so that a port or a date teaches nothing.
pub fn spelling<'a>(normal: &'a str, token: &Token) -> &'a str {
    if let Some(sense) = token.sense {
        return senses::label(sense);
    }
    let word = &normal[token.start..token.end];
    if word.bytes().all(|b| b.is_ascii_digit()) {
        "0"
    } else {
        word
    }
}

/// Scripts written without spaces between words: each character is a
/// token of its own.
pub fn is_unspaced(c: char) -> bool {
    matches!(
        u32::from(c),
        0x0E00..=0x0EFF // Thai, Lao
            | 0x1000..=0x109F // Myanmar
            | 0x1780..=0x17FF // Khmer
            | 0x3040..=0x30FF // Hiragana, Katakana
            | 0x3400..=0x4DBF // CJK extension A
            | 0x4E00..=0x9FFF // CJK unified ideographs
            | 0xF900..=0xFAFF // CJK compatibility ideographs
            | 0x20000..=0x2FA1F // CJK extensions B to F, compatibility supplement
    )
}

/// Letters and digits, and the combining marks that `is_alphanumeric`
/// leaves out but that belong inside a word (accents written apart, the
/// vowel signs of Indic scripts).
fn is_word(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            u32::from(c),
            0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05C7 | 0x0610..=0x061A | 0x064B..=0x065F
        )
        || (matches!(u32::from(c), 0x0900..=0x0DFF) && !matches!(c, '\u{0964}' | '\u{0965}'))
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

/// The feature of one word: FNV-1a of its spelling.
pub fn unigram(word: &str) -> u64 {
    fnv(FNV_OFFSET, word.as_bytes())
}

/// The feature of two adjacent words, joined by 0xFF, a byte no UTF-8
/// text holds, so that no pair hashes as a word would.
pub fn bigram(first: &str, second: &str) -> u64 {
    pair(unigram(first), second)
}

/// [`bigram`] from the first word's [`unigram`], which FNV-1a continues.
fn pair(first: u64, second: &str) -> u64 {
    fnv(fnv(first, &[0xFF]), second.as_bytes())
}

/// The feature of two senses in one window, in either order and however
/// far apart: an order is a conjunction ("skip" and "approve" and an AI
/// reader) that a sum of single words and neighbours cannot see, and its
/// words stand anywhere in the sentence in most languages. Joined by
/// 0xFE, which no pair of words uses.
pub fn sense_pair(first: u16, second: u16) -> u64 {
    let (first, second) = (first.min(second), first.max(second));
    fnv(
        fnv(unigram(senses::label(first)), &[0xFE]),
        senses::label(second).as_bytes(),
    )
}

/// The distinct senses of a window's tokens, sorted, into `out`; then
/// each pair of them once.
fn sense_pairs<'a>(
    tokens: &[Token],
    window: Range<usize>,
    out: &'a mut Vec<u16>,
) -> impl Iterator<Item = (u16, u16)> + 'a {
    out.clear();
    out.extend(tokens[window].iter().filter_map(|token| token.sense));
    out.sort_unstable();
    out.dedup();
    let senses: &'a [u16] = out;
    senses
        .iter()
        .enumerate()
        .flat_map(move |(at, &first)| senses[at + 1..].iter().map(move |&second| (first, second)))
}

/// The windows of a text, as ranges of `tokens`: the words that start
/// within [`WINDOW_BYTES`] of a point, the points [`STRIDE_BYTES`] apart.
/// A text shorter than a window is one window; no window is empty.
pub fn windows(tokens: &[Token]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let (mut first, mut end, mut at) = (0, 0, 0);
    while first < tokens.len() {
        while first < tokens.len() && tokens[first].start < at {
            first += 1;
        }
        let Some(token) = tokens.get(first) else {
            break;
        };
        // A long stretch without words (a table of symbols, a blob of
        // white space) moves the window to the next word.
        if token.start >= at + WINDOW_BYTES {
            at = token.start - token.start % STRIDE_BYTES;
        }
        end = end.max(first);
        while end < tokens.len() && tokens[end].start < at + WINDOW_BYTES {
            end += 1;
        }
        if out.last().is_none_or(|last| last.end < end) {
            out.push(first..end);
        }
        if end == tokens.len() {
            break;
        }
        at += STRIDE_BYTES;
    }
    out
}

/// The features of one window, with their repeats: each word, and each
/// pair of adjacent words inside it. A window's score is the bias plus
/// the weights of the distinct ones, which is what [`Table::scores`]
/// computes with one look-up per word.
pub fn features(normal: &str, tokens: &[Token], window: Range<usize>) -> Vec<(u64, String)> {
    let mut out = Vec::with_capacity(2 * window.len());
    for at in window.clone() {
        let word = spelling(normal, &tokens[at]);
        out.push((unigram(word), word.to_owned()));
        if at > window.start {
            let before = spelling(normal, &tokens[at - 1]);
            out.push((bigram(before, word), format!("{before} {word}")));
        }
    }
    let mut senses = Vec::new();
    for (first, second) in sense_pairs(tokens, window, &mut senses) {
        let name = format!("{}&{}", senses::label(first), senses::label(second));
        out.push((sense_pair(first, second), name));
    }
    out
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum TableError {
    #[error("the table's features are not sorted and unique at entry {0}")]
    Unsorted(usize),
}

/// Sorted (feature, weight) pairs, a bias and a threshold, in thousandths.
#[derive(Debug, Clone)]
pub struct Table {
    bias: i32,
    threshold: i32,
    entries: Cow<'static, [(u64, i16)]>,
    filter: Cow<'static, [u64]>,
}

/// A feature found in the table, and its weight.
type Weighed = Option<(u64, i32)>;

/// A window's score, and where it lies in the normalised text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scored {
    pub score: i32,
    /// The tokens of the window.
    pub window: Range<usize>,
}

impl Table {
    /// A table built elsewhere (the trainer's); its features must be
    /// sorted and unique, as the binary search needs.
    pub fn new(bias: i32, threshold: i32, entries: Vec<(u64, i16)>) -> Result<Self, TableError> {
        let table = Self {
            bias,
            threshold,
            filter: Cow::Owned(filter(&entries).to_vec()),
            entries: Cow::Owned(entries),
        };
        table.check()?;
        Ok(table)
    }

    pub fn check(&self) -> Result<(), TableError> {
        match self
            .entries
            .windows(2)
            .position(|pair| pair[0].0 >= pair[1].0)
        {
            Some(at) => Err(TableError::Unsorted(at + 1)),
            None => Ok(()),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn bias(&self) -> i32 {
        self.bias
    }

    pub fn threshold(&self) -> i32 {
        self.threshold
    }

    pub fn with_threshold(mut self, threshold: i32) -> Self {
        self.threshold = threshold;
        self
    }

    pub fn entries(&self) -> &[(u64, i16)] {
        &self.entries
    }

    pub fn weight(&self, feature: u64) -> i32 {
        let (word, bit) = filter_bit(feature);
        if self.filter[word] & bit == 0 {
            return 0;
        }
        self.entries
            .binary_search_by_key(&feature, |(key, _)| *key)
            .map_or(0, |at| i32::from(self.entries[at].1))
    }

    /// Per token, its word and the pair it ends, with their weights, where
    /// the table has them.
    fn contributions(&self, normal: &str, tokens: &[Token]) -> (Vec<Weighed>, Vec<Weighed>) {
        let mut words = Vec::with_capacity(tokens.len());
        let mut pairs = Vec::with_capacity(tokens.len());
        let mut before: Option<u64> = None;
        let weighed = |feature: u64| {
            let weight = self.weight(feature);
            (weight != 0).then_some((feature, weight))
        };
        for token in tokens {
            let word = spelling(normal, token);
            let feature = unigram(word);
            words.push(weighed(feature));
            pairs.push(before.and_then(|before| weighed(pair(before, word))));
            before = Some(feature);
        }
        (words, pairs)
    }

    /// Every window of `normal` with its score, in the order of the text.
    /// A feature counts once in a window however often it occurs: a page
    /// that repeats a word (a licence block, a list of links) must not
    /// add it up into an order.
    pub fn scores(&self, normal: &str) -> Vec<Scored> {
        self.scores_of(normal, &tokens(normal))
    }

    fn scores_of(&self, normal: &str, tokens: &[Token]) -> Vec<Scored> {
        let (words, pairs) = self.contributions(normal, tokens);
        let mut hits: Vec<(u64, i32)> = Vec::new();
        let mut senses = Vec::new();
        windows(tokens)
            .into_iter()
            .map(|window| {
                hits.clear();
                for at in window.clone() {
                    hits.extend(words[at]);
                    // The pair that crosses into the window from before
                    // it is not the window's.
                    if at > window.start {
                        hits.extend(pairs[at]);
                    }
                }
                for (first, second) in sense_pairs(tokens, window.clone(), &mut senses) {
                    let feature = sense_pair(first, second);
                    let weight = self.weight(feature);
                    if weight != 0 {
                        hits.push((feature, weight));
                    }
                }
                hits.sort_unstable_by_key(|(feature, _)| *feature);
                hits.dedup_by_key(|(feature, _)| *feature);
                let sum: i64 = hits.iter().map(|(_, weight)| i64::from(*weight)).sum();
                let score = (i64::from(self.bias) + sum).clamp(i32::MIN.into(), i32::MAX.into());
                Scored {
                    score: i32::try_from(score).unwrap_or(i32::MAX),
                    window,
                }
            })
            .collect()
    }

    /// The highest-scoring window, the first of equals.
    pub fn best(&self, normal: &str) -> Option<Scored> {
        self.best_of(normal, &tokens(normal))
    }

    fn best_of(&self, normal: &str, tokens: &[Token]) -> Option<Scored> {
        self.scores_of(normal, tokens)
            .into_iter()
            .reduce(|best, next| if next.score > best.score { next } else { best })
    }

    /// One flag when the best window passes the threshold; its excerpt is
    /// the part of that window that weighs most.
    pub fn flag(&self, normal: &str) -> Option<Flag> {
        self.flag_tokens(normal, &tokens(normal))
    }

    /// [`Table::flag`] over the words [`tokens`] made of `normal`.
    pub fn flag_tokens(&self, normal: &str, tokens: &[Token]) -> Option<Flag> {
        let best = self
            .best_of(normal, tokens)
            .filter(|best| best.score >= self.threshold)?;
        Some(Flag {
            rule: INSTRUCTION_SCORE.to_owned(),
            excerpt: self.excerpt(normal, &tokens[best.window]),
        })
    }

    /// The span of at most [`MAX_EXCERPT_CHARS`] within the window whose
    /// words weigh most, on one line: a window is longer than an excerpt,
    /// and its heaviest part is the one a person should read.
    fn excerpt(&self, normal: &str, tokens: &[Token]) -> String {
        let (words, pairs) = self.contributions(normal, tokens);
        let weight = |weighed: &Weighed| weighed.map_or(0, |(_, weight)| weight);
        let words: Vec<i32> = words.iter().map(weight).collect();
        let pairs: Vec<i32> = pairs.iter().map(weight).collect();
        let Some(first) = tokens.first() else {
            return String::new();
        };
        let chars_before = |at: usize| normal[first.start..at].chars().count();
        let (mut best, mut best_sum) = ((0, 0), i64::MIN);
        let mut end = 0;
        let mut sum = 0i64;
        for start in 0..tokens.len() {
            end = end.max(start);
            let origin = chars_before(tokens[start].start);
            while end < tokens.len() && chars_before(tokens[end].end) - origin <= MAX_EXCERPT_CHARS
            {
                sum += i64::from(words[end]);
                if end > start {
                    sum += i64::from(pairs[end]);
                }
                end += 1;
            }
            if end > start && sum > best_sum {
                best = (start, end);
                best_sum = sum;
            }
            if end > start {
                sum -= i64::from(words[start]);
                if start + 1 < end {
                    sum -= i64::from(pairs[start + 1]);
                }
            }
        }
        let (from, to) = match tokens.get(best.0).zip(tokens.get(best.1.saturating_sub(1))) {
            Some((from, to)) if best.1 > best.0 => (from.start, to.end),
            _ => (first.start, first.end),
        };
        normal[from..to]
            .chars()
            .map(|c| if c == '\n' { ' ' } else { c })
            .take(MAX_EXCERPT_CHARS)
            .collect::<String>()
            .trim()
            .to_owned()
    }
}

#[cfg(test)]
mod tests;

//! The detector: the rule table ([`super::rules`]) and the weighted phrase
//! table ([`super::score`]) over one text, with no model call and the
//! same answer every time. The patterns run in sets, one pass each over
//! the normalised text ([`lean`]); only the rules that hit are run again,
//! for the excerpt. The phrase table weighs the same normalised text,
//! window by window. Hidden characters and terminal escapes are found by
//! a scan of the text as it came. The compiled table is held while the
//! session screens and let go when it stops ([`held`]).

use std::collections::HashMap;
use std::ops::Range;

use super::frame::{is_bidi_control, is_hidden, is_tag, marker};
use super::rules::{
    ALSO, ENCODED_PAYLOAD, HIDDEN_CHARACTERS, Rule, TERMINAL_ESCAPE, UNLESS, table,
};
use super::unescape::unescape;
use super::{confusables, encoded, lexicon, margin, overrides, score};
use crate::protocol::events::Flag;
pub use held::KeepCaches;
use held::Screen;
use lean::{Finder, Matcher, Scratch};

mod held;
mod lean;

/// An excerpt is the hit with this many bytes around it, at most.
const EXCERPT_CONTEXT: usize = 24;
/// And never longer than this many characters.
pub(super) const MAX_EXCERPT_CHARS: usize = 160;

/// What the rules find in `text`: at most one flag per rule, in the
/// order of the table, then the order to ignore the instructions read
/// from the folded words ([`overrides`]), then the phrase table's, then
/// hidden characters and terminal escapes, then (unless a pattern of the
/// rule flagged it already) text hidden in base64 or hex that reads as
/// an injection or a command ([`encoded`]).
///
/// The words are read with the text's escapes undone ([`unescape`]);
/// hidden characters and terminal escapes are looked for in the text as
/// it came, where a person or a terminal would meet them.
pub fn detect(text: &str) -> Vec<Flag> {
    let mut screen = Screen::begin();
    let plain = unescape(text);
    let mut flags = detect_plain(&mut screen, text, &plain);
    if !flags.iter().any(|flag| flag.rule == ENCODED_PAYLOAD) {
        flags.extend(encoded_payload(&mut screen, &plain));
    }
    flags
}

/// What `text` holds in base64 or hex, read once: the first run that is
/// a command ([`encoded::is_command`]), else what the rules and the table
/// find in all the decoded text together (one pass, however many runs).
fn encoded_payload(screen: &mut Screen, text: &str) -> Option<Flag> {
    let runs = encoded::decoded(text);
    let (name, shown) = match runs.iter().find(|(_, run)| encoded::is_command(run)) {
        Some((encoding, run)) => (encoding.name().to_owned(), run.clone()),
        None => {
            let joined: Vec<&str> = runs.iter().map(|(_, run)| run.as_str()).collect();
            let joined = joined.join("\n\n");
            let hit = detect_plain(screen, &joined, &unescape(&joined))
                .into_iter()
                .next()?;
            let mut names: Vec<&str> = Vec::new();
            for (encoding, _) in &runs {
                if !names.contains(&encoding.name()) {
                    names.push(encoding.name());
                }
            }
            (names.join(" and "), hit.excerpt)
        }
    };
    // Hidden characters stay out of the excerpt, as the rules' excerpts
    // leave them out of the normalised text.
    let flat: String = shown
        .chars()
        .filter(|c| !is_hidden(*c))
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let excerpt = format!("{name} decodes to: {}", flat.trim());
    Some(Flag {
        rule: ENCODED_PAYLOAD.to_owned(),
        excerpt: excerpt.chars().take(MAX_EXCERPT_CHARS).collect(),
    })
}

/// What the rules, the folded order and the table find in `plain` (the
/// text with its escapes undone), and the hidden characters and terminal
/// escapes of `text`, as it came.
fn detect_plain(screen: &mut Screen, text: &str, plain: &str) -> Vec<Flag> {
    let mut flags = Vec::new();
    let (stripped, worded) = margin::strip(plain);
    let normal = normalise_lines(&stripped);
    if let Some(compiled) = &screen.compiled {
        let scratch = &mut screen.scratch;
        flags.extend(compiled.hits(scratch, &normal));
        // A margin with words may be the reader or the lever, or what
        // made each line a sentence's start: the rules read those lines
        // with it too, and as far around them as a rule looks for what
        // must stand near (a lever just after the run).
        for span in compiled.reach(plain, worded) {
            for flag in compiled.hits(scratch, &normalise_lines(&plain[span])) {
                if !flags.iter().any(|known| known.rule == flag.rule) {
                    flags.push(flag);
                }
            }
        }
        if let Some((start, end)) = compiled.lexicon.find(&normal) {
            flags.push(Flag {
                rule: lexicon::ID.to_owned(),
                excerpt: excerpt(&normal, start, end),
            });
        }
    }
    let tokens = score::tokens(&normal);
    if let Some((start, end)) = overrides::find(&normal, &tokens) {
        flags.push(Flag {
            rule: overrides::ID.to_owned(),
            excerpt: excerpt(&normal, start, end),
        });
    }
    flags.extend(score::builtin().flag_tokens(&normal, &tokens));
    flags.extend(hidden_characters(text));
    flags.extend(terminal_escape(text));
    flags
}

struct Compiled {
    /// The sets and the lists below, each compiled once ([`lean`]): a
    /// list that two rules share is one matcher.
    matchers: Vec<Matcher>,
    /// The patterns in sets of at most [`SET_SIZE`] patterns and
    /// [`SET_BYTES`] bytes ([`chunked`]), each with the index of its first
    /// pattern and its matcher.
    sets: Vec<(usize, usize)>,
    /// Each pattern, with the index of its rule, compiled alone only
    /// when its set says it matched ([`Scratch::take_finder`]): most texts
    /// match a few of the hundreds, and compiling each one twice (in its
    /// set and alone) doubled the table's half-second compile.
    patterns: Vec<(usize, &'static str)>,
    /// Per rule, what must also match near a hit, and how near.
    /// Cut, like the sets, into runs of at most [`SET_BYTES`] (version
    /// 29: `addressed-lever`'s, joined whole, took a tenth of the time
    /// once three more lists joined it); empty where the rule has none.
    near: Vec<Runs>,
    /// Per rule, what must each stand near a hit besides its `near`
    /// (`rules::ALSO`): each entry of the table in runs, as `near` is
    /// (version 30: `credentials-asked`'s list, joined whole once it
    /// took the desk, the security team and the call talked away, cost
    /// half again the time of the whole corpus).
    also: Vec<Vec<Runs>>,
    /// Per rule, what must not stand near a hit, each within its own
    /// reach (`rules::UNLESS`).
    unless: Vec<Runs>,
    rules: Vec<&'static Rule>,
    /// The word lists of `kept-quiet-any-language` ([`lexicon`]).
    lexicon: lexicon::Lexicon,
}

/// Starts compiling the table on a thread of its own, unless it is
/// compiled: it takes a third of a second of CPU, which a call whose
/// result will be screened (a fetch, an MCP tool) spends beside its own
/// wait rather than after it. The screen that comes first waits for it;
/// nothing is paid twice.
pub fn prepare() {
    held::prepare();
}

/// The patterns are written with `\b` as an ASCII word boundary: a
/// Unicode one would keep the regex engine off its fast paths; and
/// (version 32) with `\w` and `\W` as the cheap classes below.
fn ascii_boundaries(pattern: &str) -> String {
    pattern
        .replace(r"\b", r"(?-u:\b)")
        .replace(r"\w", WORD)
        .replace(r"\W", NOT_WORD)
}

/// `\w` and `\W` written as cheap classes. Unicode's `\w` is some seven
/// hundred ranges, whose UTF-8 automaton every `\w*` of every alternation
/// repeats: version 32's table took 357 MB and 1.6 s to compile with it
/// (a session that screened one line of `curl` output peaked at 409 MB),
/// 119 MB and 0.55 s with these (141 MB for that session). A word's letter is anything but white
/// space, ASCII punctuation and the punctuation and symbols of the
/// scripts the corpus is written in (Ethiopic's "።", Arabic's "،",
/// Devanagari's "।", CJK's "。", general punctuation, arrows, emoji): the
/// committed corpus reads the same flags as with Unicode's classes.
macro_rules! punctuation {
    () => {
        r"\x00-\x2F\x3A-\x40\x5B-\x5E\x60\x7B-\x7F\u{A0}-\u{BF}\u{D7}\u{F7}\u{387}\u{55A}-\u{55F}\u{589}\u{5BE}\u{5C0}\u{5C3}\u{5C6}\u{5F3}\u{5F4}\u{60C}\u{60D}\u{61B}\u{61E}\u{61F}\u{66A}-\u{66D}\u{6D4}\u{964}\u{965}\u{970}\u{DF4}\u{E4F}\u{E5A}\u{E5B}\u{104A}-\u{104F}\u{10FB}\u{1360}-\u{1368}\u{17D4}-\u{17DA}\u{2000}-\u{206F}\u{20A0}-\u{20CF}\u{2100}-\u{214F}\u{2190}-\u{2BFF}\u{2E00}-\u{2E7F}\u{3000}-\u{303F}\u{FE10}-\u{FE1F}\u{FE30}-\u{FE6F}\u{FF01}-\u{FF0F}\u{FF1A}-\u{FF20}\u{FF3B}-\u{FF40}\u{FF5B}-\u{FF65}\u{1F000}-\u{1FAFF}"
    };
}

/// A word's letter.
const WORD: &str = concat!(r"[^\s", punctuation!(), "]");

/// Anything else.
const NOT_WORD: &str = concat!(r"[\s", punctuation!(), "]");

const SIZE_LIMIT: usize = 64 << 20;

/// Patterns per set. One set of all of them scans at 5 MiB/s
/// (release build, the benchmark's texts): its lazy DFA grows too large
/// and is rebuilt again and again; sets of 64 scan at 12 to 14 MiB/s, one
/// pattern at a time at 4 MiB/s.
const SET_SIZE: usize = 64;

/// The sources of a set add up to at most this many bytes. The phrase
/// lists of versions 18 to 20 are 3 to 14 KiB each, and version 20 put
/// six of them in the last set of 64: the benchmark's benign texts took
/// 45 % longer than with version 19. Sets of at most 16 KiB scan them in
/// about half version 19's time (8 KiB: a tenth slower than 16; 20 and
/// 32 KiB: 1.7 times as long).
const SET_BYTES: usize = 16 << 10;

/// `sources` cut into runs of at most [`SET_SIZE`] patterns and
/// [`SET_BYTES`] bytes (a longer pattern alone), each with the index of
/// its first pattern.
fn chunked(sources: &[String]) -> Vec<(usize, &[String])> {
    let mut out = Vec::new();
    let (mut first, mut bytes) = (0, 0);
    for (index, source) in sources.iter().enumerate() {
        let full = index - first == SET_SIZE || bytes + source.len() > SET_BYTES;
        if index > first && full {
            out.push((first, &sources[first..index]));
            (first, bytes) = (index, 0);
        }
        bytes += source.len();
    }
    if first < sources.len() {
        out.push((first, &sources[first..]));
    }
    out
}

fn compile() -> Result<Compiled, lean::BuildError> {
    let mut sources = Vec::new();
    let mut patterns = Vec::new();
    let rules: Vec<&'static Rule> = table().collect();
    for (index, rule) in rules.iter().enumerate() {
        for pattern in rule.patterns {
            patterns.push((index, *pattern));
            sources.push(ascii_boundaries(pattern));
        }
    }
    let mut lists = Lists::default();
    let sets = chunked(&sources)
        .into_iter()
        .map(|(first, sources)| {
            let set = Matcher::new(sources, true, SIZE_LIMIT, SIZE_LIMIT)?;
            lists.matchers.push(set);
            Ok((first, lists.matchers.len() - 1))
        })
        .collect::<Result<_, lean::BuildError>>()?;
    let near = rules
        .iter()
        .map(|rule| match rule.near {
            Some(near) => lists.in_runs(near),
            None => Ok(Vec::new()),
        })
        .collect::<Result<_, _>>()?;
    let also = keyed(&rules, ALSO, |list| lists.in_runs(list))?;
    let unless = keyed(&rules, UNLESS, |list| lists.whole(list))?;
    Ok(Compiled {
        matchers: lists.matchers,
        sets,
        patterns,
        near,
        also,
        unless,
        rules,
        lexicon: lexicon::build()?,
    })
}

/// Per rule, its entries of a table keyed by rule id, each compiled by
/// `compile` (whole for `UNLESS`, in runs for `ALSO`).
fn keyed<T>(
    rules: &[&'static Rule],
    table: &[(&str, &'static [&'static str], usize)],
    mut compile: impl FnMut((&'static [&'static str], usize)) -> Result<T, lean::BuildError>,
) -> Result<Vec<Vec<T>>, lean::BuildError> {
    let mut out = Vec::with_capacity(rules.len());
    for rule in rules {
        let mut entries = Vec::new();
        for (_, patterns, within) in table.iter().filter(|(id, _, _)| *id == rule.id) {
            entries.push(compile((patterns, *within))?);
        }
        out.push(entries);
    }
    Ok(out)
}

/// Lists of patterns that any may match, each as one alternation (by its
/// matcher's index) with the reach it is read within.
type Runs = Vec<(usize, usize)>;

/// The matchers of the lists, each alternation compiled once however
/// many rules read it (`guardian-kept-out`'s near and `concealed-errand`'s
/// `ALSO` are one list).
#[derive(Default)]
struct Lists {
    matchers: Vec<Matcher>,
    known: HashMap<String, usize>,
}

impl Lists {
    /// Patterns that any may match, as alternations of runs of at most
    /// [`SET_BYTES`].
    fn in_runs(
        &mut self,
        (patterns, within): (&'static [&'static str], usize),
    ) -> Result<Runs, lean::BuildError> {
        let sources: Vec<String> = patterns.iter().map(|p| ascii_boundaries(p)).collect();
        chunked(&sources)
            .into_iter()
            .map(|(_, run)| Ok((self.alternation(run)?, within)))
            .collect()
    }

    /// Patterns that any may match, as one alternation.
    fn whole(
        &mut self,
        (patterns, within): (&'static [&'static str], usize),
    ) -> Result<(usize, usize), lean::BuildError> {
        let sources: Vec<String> = patterns.iter().map(|p| ascii_boundaries(p)).collect();
        Ok((self.alternation(&sources)?, within))
    }

    fn alternation(&mut self, sources: &[String]) -> Result<usize, lean::BuildError> {
        let joined = sources
            .iter()
            .map(|source| format!("(?:{source})"))
            .collect::<Vec<_>>()
            .join("|");
        if let Some(known) = self.known.get(&joined) {
            return Ok(*known);
        }
        self.matchers.push(Matcher::new(
            std::slice::from_ref(&joined),
            false,
            SIZE_LIMIT,
            SIZE_LIMIT,
        )?);
        self.known.insert(joined, self.matchers.len() - 1);
        Ok(self.matchers.len() - 1)
    }
}

impl Compiled {
    fn hits(&self, scratch: &mut Scratch, normal: &str) -> Vec<Flag> {
        let mut found: Vec<(usize, Flag)> = Vec::new();
        let mut matched = Vec::new();
        for (first, set) in &self.sets {
            let cache = scratch.get(&self.matchers, *set);
            let which = self.matchers[*set].which(cache, normal);
            matched.extend(which.into_iter().map(|index| first + index));
        }
        for matched in matched {
            let (rule, pattern) = &self.patterns[matched];
            if found.iter().any(|(known, _)| known == rule) {
                continue;
            }
            let matchers = &self.matchers;
            let matches = |scratch: &mut Scratch, matcher: usize, text: &str| {
                matchers[matcher].is_match(scratch.get(matchers, matcher), text)
            };
            // What matches near no hit if it matches nowhere: one pass
            // over the text spares a pass per hit (version 28 measured a
            // weakening met thirty times in one file; version 29 a
            // password met in every guide, its `ALSO` tried at each), and
            // the pattern's compiling.
            let near = &self.near[*rule];
            let also = &self.also[*rule];
            if (!near.is_empty() && !near.iter().any(|(near, _)| matches(scratch, *near, normal)))
                || also
                    .iter()
                    .any(|runs| !runs.iter().any(|(also, _)| matches(scratch, *also, normal)))
            {
                continue;
            }
            // It compiled in its set, so it compiles alone.
            let Some(mut finder) = scratch.take_finder(matched, || {
                Finder::new(&ascii_boundaries(pattern), SIZE_LIMIT).ok()
            }) else {
                scratch.put_finder(matched, None);
                continue;
            };
            let mut stands_near = |(matcher, within): &(usize, usize), hit: &Range<usize>| {
                let (start, end) = around(normal, hit.start, hit.end, *within);
                matches(scratch, *matcher, &normal[start..end])
            };
            let hit = first_hit(&mut finder, normal, |hit| {
                (near.is_empty() || near.iter().any(|near| stands_near(near, hit)))
                    && also
                        .iter()
                        .all(|runs| runs.iter().any(|also| stands_near(also, hit)))
                    && !self.unless[*rule]
                        .iter()
                        .any(|unless| stands_near(unless, hit))
            });
            scratch.put_finder(matched, Some(finder));
            if let Some(hit) = hit {
                found.push((
                    *rule,
                    Flag {
                        rule: self.rules[*rule].id.to_owned(),
                        excerpt: excerpt(normal, hit.start, hit.end),
                    },
                ));
            }
        }
        found.sort_by_key(|(rule, _)| *rule);
        found.into_iter().map(|(_, flag)| flag).collect()
    }

    /// `spans` of `text` widened on each side by as far as any rule looks
    /// around a hit (`near`, `ALSO`, `UNLESS`; its units, at most four
    /// bytes each), those that then overlap merged.
    fn reach(&self, text: &str, spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
        let within = (self.near.iter().flatten())
            .chain(self.also.iter().flatten().flatten())
            .chain(self.unless.iter().flatten())
            .map(|(_, within)| *within)
            .max();
        let bytes = 4 * within.unwrap_or(0);
        let mut out: Vec<Range<usize>> = Vec::with_capacity(spans.len());
        for span in spans {
            let start = text.floor_char_boundary(span.start.saturating_sub(bytes));
            let end = text.ceil_char_boundary(span.end + bytes);
            match out.last_mut() {
                Some(last) if last.end >= start => last.end = end,
                _ => out.push(start..end),
            }
        }
        out
    }
}

/// The span from `within` units before `start` to `within` after `end`.
/// A unit is a letter of an alphabet (Latin, Greek, Cyrillic, Arabic,
/// Hebrew: one or two bytes) or a byte of any other character (three or
/// four: an ideograph, a syllable, which say as much as a short word).
/// Bytes alone (version 15) gave a Greek or Russian note half the reach
/// of an English one, and a reader two lines above a lever went unseen
/// (version 16). The letters of the other alphabets and abugidas that put
/// spaces between words (Indic, Georgian, Thai, Khmer, Myanmar) and
/// Vietnamese's accented Latin are letters too, Ethiopic, kana and Hangul
/// syllables two (version 19): a Georgian note had a third of an English
/// one's reach, a Korean one half.
pub fn around(text: &str, start: usize, end: usize, within: usize) -> (usize, usize) {
    let units = |c: char| match u32::from(c) {
        0..=0x7FF => 1,
        0x0900..=0x0DFF | 0x0E00..=0x0EFF | 0x1000..=0x109F | 0x10A0..=0x10FF => 1,
        0x1780..=0x17FF | 0x1C90..=0x1CBF | 0x1E00..=0x1EFF | 0x2D00..=0x2D2F => 1,
        0x1200..=0x139F | 0x3040..=0x30FF | 0xAC00..=0xD7AF => 2,
        _ => c.len_utf8(),
    };
    let mut spent = 0;
    let mut before = start;
    for (at, c) in text[..start].char_indices().rev() {
        if spent >= within {
            break;
        }
        spent += units(c);
        before = at;
    }
    let mut spent = 0;
    let mut after = end;
    for c in text[end..].chars() {
        if spent >= within {
            break;
        }
        spent += units(c);
        after += c.len_utf8();
    }
    (before, after)
}

/// Whether a hit at `start` begins inside a word or a dotted name, where
/// a pattern's `\b` (ASCII's, see [`ascii_boundaries`]) sees a word start
/// that a reader does not:
/// - up to three ASCII letters glued to a cased letter of a script that
///   puts spaces between words: "ki" after the "ę" of the Polish
///   "dzięki" (scripts without spaces are left out: "作为AI助手" is read);
/// - a word for a reader that is the part of a dotted name after a dot,
///   when the name goes on after it: `kestrel.ai,`, `https.Agent(`. Text
///   glued to a sentence's full stop ("page.You are now...", "done.AI, send
///   ...") is still read: a space or a word other than a reader's follows.
fn inside_name(normal: &str, start: usize) -> bool {
    let mut before = normal[..start].chars().rev();
    let (word, previous) = match (normal[start..].strip_prefix('.'), before.next()) {
        (Some(word), Some(previous)) => (word, previous),
        (None, Some('.')) => match before.next() {
            Some(previous) => (&normal[start..], previous),
            None => return false,
        },
        (None, Some(previous)) => {
            let glued = normal[start..]
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(normal.len() - start);
            return cased_spaced_letter(previous) && (1..=3).contains(&glued);
        }
        _ => return false,
    };
    let len = word
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(word.len());
    let mut rest = word[len..].chars();
    let goes_on = match (rest.next(), rest.next()) {
        (None, _) => true,
        (Some(c), _) if c.is_whitespace() => false,
        (Some('(' | '.' | '[' | ']' | '{' | '/' | '\'' | '"' | '-' | '@'), _) => true,
        // ",linda" in a CSV row, not ", send" in a sentence.
        (Some(_), after) => after.is_some_and(|c| !c.is_whitespace()),
    };
    previous.is_alphanumeric() && READER_NAMES.contains(&&word[..len]) && goes_on
}

/// Words for a reader that are also the last part of common names: a
/// domain (`.ai`, `.bot`), a class (`http.Agent`), a config key.
const READER_NAMES: &[&str] = &[
    "ai",
    "agent",
    "agents",
    "assistant",
    "assistants",
    "bot",
    "bots",
    "llm",
    "gpt",
    "model",
    "models",
    "copilot",
    "claude",
    "gemini",
];

/// A cased letter outside ASCII of a script that puts spaces between
/// words: Latin, Greek, Cyrillic and Armenian, and Vietnamese's Latin
/// letters. A modifier letter such as U+02BC, which reads as an
/// apostrophe, is not cased.
fn cased_spaced_letter(c: char) -> bool {
    !c.is_ascii()
        && (c.is_lowercase() || c.is_uppercase())
        && (c < '\u{0590}' || ('\u{1E00}'..='\u{1FFF}').contains(&c))
}

/// The first hit of `regex` in `normal` that is not inside a name
/// ([`inside_name`]) and that `keep` accepts. After a hit inside a name
/// the search starts again at its next character, so that the name does
/// not hide a hit that overlaps it.
fn first_hit(
    finder: &mut Finder,
    normal: &str,
    mut keep: impl FnMut(&Range<usize>) -> bool,
) -> Option<Range<usize>> {
    let mut at = 0;
    while let Some(hit) = finder.find_at(normal, at) {
        if hit.start >= normal.len() {
            return keep(&hit).then_some(hit);
        }
        // Past the hit's first character: each turn moves on.
        let next = normal.ceil_char_boundary(hit.start + 1);
        if inside_name(normal, hit.start) {
            at = next;
        } else if keep(&hit) {
            return Some(hit);
        } else {
            at = hit.end.max(next);
        }
    }
    None
}

/// The text the patterns read: lower case; hidden characters dropped
/// (tag characters read as the ASCII they stand for), so a zero-width
/// space inside a word does not hide it; full-width forms and curly
/// quotes folded to ASCII; `*` and backquotes (markdown emphasis and
/// code) dropped; quote markers at the start of a line dropped; every run
/// of white space one space, or one new line when it held one.
/// Escapes are undone first ([`unescape`]), and look-alike letters read
/// as the Latin ones they imitate ([`confusables`]): what the table is
/// trained on is what the detector reads.
pub fn normalise(text: &str) -> String {
    normalise_plain(&unescape(text))
}

fn normalise_plain(text: &str) -> String {
    normalise_lines(&margin::strip(text).0)
}

/// [`normalise_plain`] but for the margins, which `text` keeps.
fn normalise_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space: Option<char> = None;
    let mut line_start = true;
    for c in text.chars() {
        let c = match u32::from(c) {
            code @ 0xE0020..=0xE007E => char::from_u32(code - 0xE0000).unwrap_or(' '),
            code @ 0xFF01..=0xFF5E => char::from_u32(code - 0xFEE0).unwrap_or(c),
            0x3000 | 0xA0 => ' ',
            0x2018 | 0x2019 | 0x2032 => '\'',
            0x201C | 0x201D => '"',
            _ if c.is_ascii() => c,
            _ => confusables::styled(c).unwrap_or(c),
        };
        if c == '\n' || (c.is_whitespace() && !is_hidden(c)) {
            if c == '\n' || space == Some('\n') {
                space = Some('\n');
                line_start = true;
            } else if !line_start {
                space = Some(' ');
            }
            continue;
        }
        if is_hidden(c) || c == '*' || c == '`' || (line_start && c == '>') {
            continue;
        }
        if let Some(space) = space.take()
            && !out.is_empty()
        {
            out.push(space);
        }
        line_start = false;
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    match confusables::fold(&out) {
        std::borrow::Cow::Owned(folded) => folded,
        std::borrow::Cow::Borrowed(_) => out,
    }
}

/// The hit with a little of the text around it, on one line.
fn excerpt(text: &str, start: usize, end: usize) -> String {
    let from = text.floor_char_boundary(start.saturating_sub(EXCERPT_CONTEXT));
    let to = text.ceil_char_boundary(end + EXCERPT_CONTEXT);
    let flat: String = text[from..to]
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .take(MAX_EXCERPT_CHARS)
        .collect();
    flat.trim().to_owned()
}

/// Tag characters (but for the flag emoji they spell, 🏴 then a region
/// code), bidirectional controls, or invisible characters: 3 in a row, or
/// 10 in all of the kinds that have no place in ordinary text.
fn hidden_characters(text: &str) -> Option<Flag> {
    if text.is_ascii() {
        return None;
    }
    let (mut tags, mut bidi, mut run, mut longest, mut scattered) = (0, 0, 0, 0, 0);
    let mut first: Option<usize> = None;
    let mut decoded = String::new();
    let mut prev = ' ';
    // Tag characters of a flag so far (a region code is at most 6, and
    // the cancel tag ends it).
    let mut flag_tags = 0;
    for (at, c) in text.char_indices() {
        flag_tags = if is_tag(c) && (flag_tags > 0 || prev == '\u{1F3F4}') && flag_tags < 7 {
            flag_tags + 1
        } else {
            0
        };
        let in_flag = flag_tags > 0;
        let invisible = is_hidden(c) && !c.is_control() && c != '\u{AD}';
        if is_tag(c) && !in_flag {
            tags += 1;
            if let Some(ascii) = char::from_u32(u32::from(c) - 0xE0000).filter(|a| a.is_ascii())
                && decoded.len() < 80
            {
                decoded.push(ascii);
            }
        }
        if is_bidi_control(c) {
            bidi += 1;
        }
        if invisible && !in_flag && !(c == '\u{200D}' && is_pictograph(prev)) {
            run += 1;
            longest = longest.max(run);
            if stray(c, at) {
                scattered += 1;
            }
            if (tags > 0 || bidi > 0 || run >= 3 || scattered >= 10) && first.is_none() {
                first = Some(at);
            }
        } else {
            run = 0;
        }
        prev = c;
    }
    let at = first?;
    let mut parts = Vec::new();
    if tags > 0 {
        parts.push(format!("{tags} tag characters spelling {decoded:?}"));
    }
    if bidi > 0 {
        parts.push(format!("{bidi} bidirectional controls"));
    }
    if longest >= 3 {
        parts.push(format!("a run of {longest} invisible characters"));
    } else if scattered >= 10 {
        parts.push(format!("{scattered} invisible characters"));
    }
    Some(Flag {
        rule: HIDDEN_CHARACTERS.to_owned(),
        excerpt: format!("{}: {}", parts.join(", "), window(text, at)),
    })
}

/// An invisible character that ordinary text has no use for (a
/// zero-width space, a word joiner, a filler), unlike the joiners and
/// direction marks of some scripts; a byte order mark at the start is
/// ordinary too.
fn stray(c: char, at: usize) -> bool {
    match u32::from(c) {
        0xFEFF => at > 0,
        0x200C..=0x200F => false,
        _ => true,
    }
}

/// Emoji and other pictographs, which a zero-width joiner glues into one
/// picture (👨‍👩‍👧).
fn is_pictograph(c: char) -> bool {
    matches!(u32::from(c), 0x2600..=0x27BF | 0x1F000..=0x1FAFF | 0xFE0F)
}

/// Around `at`, hidden characters shown, at most [`MAX_EXCERPT_CHARS`].
fn window(text: &str, at: usize) -> String {
    let from = text.floor_char_boundary(at.saturating_sub(EXCERPT_CONTEXT));
    let to = text.ceil_char_boundary(at + 4 * EXCERPT_CONTEXT);
    let shown: String = text[from..to]
        .chars()
        .flat_map(|c| match c {
            '\n' => vec![' '],
            c if is_hidden(c) => marker(c).chars().collect(),
            c => vec![c],
        })
        .take(MAX_EXCERPT_CHARS)
        .collect();
    shown.trim().to_owned()
}

/// An escape sequence that hides or overwrites text: concealed text
/// (SGR 8), cursor moves, erasing, scrolling, saving and restoring the
/// cursor, a reset, or an operating system command (a window title, a
/// link). Colours alone are not flagged.
fn terminal_escape(text: &str) -> Option<Flag> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| b == 0x1b) {
        let at = i + offset;
        let hides = match bytes.get(at + 1) {
            Some(b'[') => {
                let params_start = at + 2;
                let mut end = params_start;
                while bytes.get(end).is_some_and(|b| (0x20..0x40).contains(b)) {
                    end += 1;
                }
                let params = &text[params_start..end];
                match bytes.get(end) {
                    Some(b'm') => params.split(';').any(|param| param == "8"),
                    Some(final_byte) => b"ABCDEFGHJKSTfsu".contains(final_byte),
                    None => false,
                }
            }
            Some(b']' | b'7' | b'8' | b'c') => true,
            _ => false,
        };
        if hides {
            return Some(Flag {
                rule: TERMINAL_ESCAPE.to_owned(),
                excerpt: window(text, at),
            });
        }
        i = at + 1;
    }
    None
}

#[cfg(test)]
mod tests;

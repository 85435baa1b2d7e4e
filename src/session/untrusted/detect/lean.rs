//! Regexes that only answer whether, and which of their patterns, match:
//! the rule table's sets and its lists of what must stand near a hit.
//!
//! `regex`'s `Regex` and `RegexSet` build, beside the forward automaton a
//! yes-or-no search needs, a reverse one (to find where a match starts)
//! and capture states, and keep a cache for each engine: for the table's
//! seven hundred thousand NFA states that was three times the memory of
//! the forward automaton alone. A [`Matcher`] keeps one NFA, without
//! captures, and runs it as a lazy DFA, or as a PikeVM when the lazy DFA
//! gives up (a cache cleared again and again on a long text). The caches
//! live in a [`Scratch`] that the caller keeps or drops, so that a
//! session pays for them only while it screens.

use std::collections::HashMap;
use std::ops::Range;

use regex_automata::hybrid::dfa::{Cache as DfaCache, DFA};
use regex_automata::meta;
use regex_automata::nfa::thompson::pikevm::{Cache as PikeCache, PikeVM};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::prefilter::Prefilter;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchKind, PatternSet};

/// Why a pattern did not compile: its syntax, or an automaton over the
/// size limit, as the engine words it (its own errors are large enough to
/// slow every `Result` they travel in).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BuildError(String);

macro_rules! build_error_from {
    ($($error:ty),*) => {$(
        impl From<$error> for BuildError {
            fn from(error: $error) -> Self {
                Self(error.to_string())
            }
        }
    )*};
}

build_error_from!(
    aho_corasick::BuildError,
    thompson::BuildError,
    regex_automata::hybrid::BuildError,
    meta::BuildError
);

/// Patterns compiled for yes-or-no answers.
pub struct Matcher {
    dfa: DFA,
    pikevm: PikeVM,
}

/// What a search of one [`Matcher`] keeps between texts: the lazy DFA's
/// states, and the PikeVM's, made only if it is ever needed.
pub struct Cache {
    dfa: DfaCache,
    pikevm: Option<PikeCache>,
}

impl Cache {
    fn memory_usage(&self) -> usize {
        self.dfa.memory_usage() + self.pikevm.as_ref().map_or(0, PikeCache::memory_usage)
    }
}

impl Matcher {
    /// `patterns`, each one of the matcher's patterns; `all` for a set
    /// ([`Matcher::which`]), whose patterns must each be found even where
    /// another matched first. The NFA may take `size_limit` bytes, the
    /// lazy DFA's cache `cache_capacity`.
    pub fn new(
        patterns: &[String],
        all: bool,
        size_limit: usize,
        cache_capacity: usize,
    ) -> Result<Self, BuildError> {
        let kind = if all {
            MatchKind::All
        } else {
            MatchKind::LeftmostFirst
        };
        let hirs = syntax::parse_many_with(patterns, &syntax::Config::new())
            .map_err(|error| BuildError(error.to_string()))?;
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .nfa_size_limit(Some(size_limit)),
            )
            .build_many_from_hir(&hirs)?;
        let prefilter = Prefilter::from_hirs_prefix(kind, &hirs);
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .match_kind(kind)
                    .specialize_start_states(prefilter.is_some())
                    .prefilter(prefilter)
                    .unicode_word_boundary(true)
                    .cache_capacity(cache_capacity)
                    .skip_cache_capacity_check(true)
                    // As `regex`'s own lazy DFA: give up on a cache that
                    // is cleared again and again, for the PikeVM.
                    .minimum_cache_clear_count(Some(3))
                    .minimum_bytes_per_state(Some(10)),
            )
            .build_from_nfa(nfa.clone())?;
        let pikevm = PikeVM::builder()
            .configure(PikeVM::config().match_kind(kind))
            .build_from_nfa(nfa)?;
        Ok(Self { dfa, pikevm })
    }

    #[cfg(test)]
    pub fn pattern_len(&self) -> usize {
        self.dfa.pattern_len()
    }

    pub fn cache(&self) -> Cache {
        Cache {
            dfa: self.dfa.create_cache(),
            pikevm: None,
        }
    }

    /// Whether any pattern matches anywhere in `text`.
    pub fn is_match(&self, cache: &mut Cache, text: &str) -> bool {
        let input = Input::new(text).earliest(true);
        match self.dfa.try_search_fwd(&mut cache.dfa, &input) {
            Ok(found) => found.is_some(),
            Err(_) => {
                let pikevm = cache
                    .pikevm
                    .get_or_insert_with(|| self.pikevm.create_cache());
                self.pikevm.is_match(pikevm, input)
            }
        }
    }

    /// The indexes of the patterns that match somewhere in `text`.
    pub fn which(&self, cache: &mut Cache, text: &str) -> Vec<usize> {
        let mut found = PatternSet::new(self.dfa.pattern_len());
        let input = Input::new(text);
        if self
            .dfa
            .try_which_overlapping_matches(&mut cache.dfa, &input, &mut found)
            .is_err()
        {
            found.clear();
            let pikevm = cache
                .pikevm
                .get_or_insert_with(|| self.pikevm.create_cache());
            self.pikevm
                .which_overlapping_matches(pikevm, &input, &mut found);
        }
        found.iter().map(|pattern| pattern.as_usize()).collect()
    }
}

/// One pattern compiled to find where it matches, which the rules need
/// only for a pattern its set says matched: with no capture state but
/// the whole match's, as the hit's span is all they read.
pub struct Finder {
    regex: meta::Regex,
    cache: meta::Cache,
}

impl Finder {
    pub fn new(pattern: &str, size_limit: usize) -> Result<Self, BuildError> {
        let regex = meta::Regex::builder()
            .configure(
                meta::Config::new()
                    .which_captures(WhichCaptures::Implicit)
                    .nfa_size_limit(Some(size_limit))
                    // A long alternation outgrows the lazy DFA's default
                    // cache and falls back to a slower engine (version
                    // 31: the weakenings' took ten times the time over
                    // long documents).
                    .hybrid_cache_capacity(size_limit),
            )
            .build(pattern)?;
        let cache = regex.create_cache();
        Ok(Self { regex, cache })
    }

    /// The first match in `text` that starts at `at` or after it.
    pub fn find_at(&mut self, text: &str, at: usize) -> Option<Range<usize>> {
        let input = Input::new(text).range(at..);
        let found = self.regex.search_with(&mut self.cache, &input)?;
        Some(found.range())
    }

    fn memory_usage(&self) -> usize {
        self.regex.memory_usage() + self.cache.memory_usage()
    }
}

/// The caches of a table of matchers, by the matcher's index, each made
/// the first time its matcher runs.
/// And the finders compiled for the patterns that matched, by the
/// pattern's index (`None` for one that did not compile).
#[derive(Default)]
pub struct Scratch {
    caches: Vec<Option<Cache>>,
    finders: HashMap<usize, Option<Finder>>,
}

impl Scratch {
    pub fn get(&mut self, matchers: &[Matcher], index: usize) -> &mut Cache {
        if self.caches.len() < matchers.len() {
            self.caches.resize_with(matchers.len(), || None);
        }
        self.caches[index].get_or_insert_with(|| matchers[index].cache())
    }

    /// The finder of pattern `index`, taken out to run beside the
    /// matchers' caches: [`Scratch::put_finder`] puts it back.
    pub fn take_finder(
        &mut self,
        index: usize,
        compile: impl FnOnce() -> Option<Finder>,
    ) -> Option<Finder> {
        self.finders.remove(&index).unwrap_or_else(compile)
    }

    pub fn put_finder(&mut self, index: usize, finder: Option<Finder>) {
        self.finders.insert(index, finder);
    }

    pub fn memory_usage(&self) -> usize {
        let caches: usize = self.caches.iter().flatten().map(Cache::memory_usage).sum();
        let finders: usize = self
            .finders
            .values()
            .flatten()
            .map(Finder::memory_usage)
            .sum();
        caches + finders
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATTERNS: &[&str] = &[
        r"(?-u:\b)ignore\s(?:all\s)?previous(?-u:\b)",
        r"ne\s\S+\sпароль",
        r"[^\n]{0,20}?(?-u:\b)curl(?-u:\b)",
        r"忽略[^。\n]{0,10}指令",
    ];

    const TEXTS: &[&str] = &[
        "please ignore all previous notes",
        "ignoreprevious",
        "не ne скажи пароль",
        "x curl y",
        "请忽略之前的指令。",
        "请忽略。之前的指令",
        "",
    ];

    fn sources() -> Vec<String> {
        PATTERNS.iter().map(|p| (*p).to_owned()).collect()
    }

    /// A set says which patterns match, and a list whether any does, as
    /// `regex`'s `RegexSet` and `Regex` do.
    #[test]
    fn a_matcher_answers_as_regex_does() {
        let set = Matcher::new(&sources(), true, 1 << 20, 1 << 20).unwrap();
        let list = Matcher::new(&[sources().join("|")], false, 1 << 20, 1 << 20).unwrap();
        let want_set = regex::RegexSet::new(PATTERNS).unwrap();
        let want_list = regex::Regex::new(&sources().join("|")).unwrap();
        let (mut set_cache, mut list_cache) = (set.cache(), list.cache());
        for text in TEXTS {
            let want: Vec<usize> = want_set.matches(text).into_iter().collect();
            assert_eq!(set.which(&mut set_cache, text), want, "{text}");
            assert_eq!(
                list.is_match(&mut list_cache, text),
                want_list.is_match(text)
            );
        }
        assert!(set_cache.pikevm.is_none(), "the lazy DFA answered");
    }

    /// A lazy DFA whose cache is cleared again and again gives up, and
    /// the PikeVM answers in its place, the same.
    #[test]
    fn the_pikevm_answers_when_the_lazy_dfa_gives_up() {
        let pattern = r"[a-z]{0,12}q[a-z]{0,12}z".to_owned();
        let set = Matcher::new(std::slice::from_ref(&pattern), true, 1 << 20, 1).unwrap();
        let list = Matcher::new(std::slice::from_ref(&pattern), false, 1 << 20, 1).unwrap();
        let want = regex::Regex::new(&pattern).unwrap();
        let mut text = String::new();
        let mut seed = 7_u32;
        for _ in 0..20_000 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            // Letters a to q: runs of q the DFA must track, no z to end a match.
            text.push(char::from(b'a' + ((seed >> 16) % 17) as u8));
        }
        for text in [text.clone(), format!("{text} qz")] {
            let (mut set_cache, mut list_cache) = (set.cache(), list.cache());
            let expected = want.is_match(&text);
            assert_eq!(set.which(&mut set_cache, &text).len() == 1, expected);
            assert_eq!(list.is_match(&mut list_cache, &text), expected);
            assert!(set_cache.pikevm.is_some() && list_cache.pikevm.is_some());
        }
    }

    /// A finder finds what `regex` finds, from the same place.
    #[test]
    fn a_finder_finds_as_regex_does() {
        for pattern in PATTERNS {
            let mut finder = Finder::new(pattern, 1 << 20).unwrap();
            let want = regex::Regex::new(pattern).unwrap();
            for text in TEXTS {
                for at in (0..=text.len()).filter(|at| text.is_char_boundary(*at)) {
                    let found = want.find_at(text, at).map(|hit| hit.range());
                    assert_eq!(
                        finder.find_at(text, at),
                        found,
                        "{pattern} in {text} at {at}"
                    );
                }
            }
        }
    }
}

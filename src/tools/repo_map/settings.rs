//! What the map needs from the session: where the cache is, its budgets
//! (config, model table, the context window), and what the session has
//! seen so far, the files it touched and the words the user wrote, which
//! draw the tool's map towards them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use serde::Deserialize;

use super::{MAX_TOOL_TOKENS, MIN_TOOL_TOKENS, rank::Focus};
use crate::model::ModelSpec;

/// Words of the user's kept at most; past it new ones are not noted.
const MAX_WORDS: usize = 4_096;
/// Files the session touched kept at most.
const MAX_PATHS: usize = 1_024;
/// A map takes at most this share of the context window.
const WINDOW_SHARE: u64 = 8;

/// `[repo_map]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RepoMapConfig {
    /// The tool's budget when a call names none; 0: the model's
    /// (`repo_map_tokens` in the model table, else a share of its window).
    pub tool_tokens: u64,
    /// A map of this many tokens opens the first message; 0: none.
    pub context_tokens: u64,
}

impl RepoMapConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.tool_tokens != 0 && !(MIN_TOOL_TOKENS..=MAX_TOOL_TOKENS).contains(&self.tool_tokens)
        {
            return Err(format!(
                "repo_map.tool_tokens must be 0 or between {MIN_TOOL_TOKENS} and {MAX_TOOL_TOKENS}"
            ));
        }
        if self.context_tokens > 100_000 {
            return Err("repo_map.context_tokens must be at most 100000".into());
        }
        Ok(())
    }
}

/// The map's settings for one session, and what it has seen.
#[derive(Debug, Default)]
pub struct MapSettings {
    cache: Option<PathBuf>,
    tool_tokens: u64,
    context_tokens: u64,
    /// The map of the first message, built once.
    context: OnceLock<String>,
    seen: Mutex<Focus>,
}

impl MapSettings {
    pub fn new(cache: Option<PathBuf>, config: &RepoMapConfig, model: &ModelSpec) -> Self {
        let cap = (model.context_window / WINDOW_SHARE).max(MIN_TOOL_TOKENS);
        let tool_tokens = match config.tool_tokens {
            0 => model.repo_map_tokens(),
            set => set,
        };
        MapSettings {
            cache,
            tool_tokens: tool_tokens.clamp(MIN_TOOL_TOKENS, MAX_TOOL_TOKENS).min(cap),
            context_tokens: config.context_tokens.min(cap),
            context: OnceLock::new(),
            seen: Mutex::new(Focus::default()),
        }
    }

    pub fn cache(&self) -> Option<&Path> {
        self.cache.as_deref()
    }

    /// The tool's budget when a call names none.
    pub fn tool_tokens(&self) -> u64 {
        self.tool_tokens
    }

    /// The first message's map budget; 0: no map there.
    pub fn context_tokens(&self) -> u64 {
        self.context_tokens
    }

    /// Keeps the first message's map; only the first call counts.
    pub fn set_context(&self, map: String) {
        let _ = self.context.set(map);
    }

    /// The first message's map block, or empty.
    pub fn context_block(&self) -> String {
        match self.context.get() {
            Some(map) if !map.is_empty() => format!(
                "<repo_map>\nThe repository's files, the most important first, with the signature lines of their key definitions (line: text); the repo_map tool draws a map around given files.\n{}</repo_map>",
                map
            ),
            _ => String::new(),
        }
    }

    /// What the session has seen, to draw the map towards.
    pub fn focus(&self) -> Focus {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A file the session worked on, relative to the work dir.
    pub fn note_path(&self, relative: &str) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.paths.len() < MAX_PATHS {
            seen.paths.insert(relative.to_owned());
        }
    }

    /// What the user wrote: its identifiers and file names weigh more.
    pub fn note_words(&self, text: &str) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        for word in words(text) {
            if seen.words.len() >= MAX_WORDS {
                break;
            }
            seen.words.insert(word);
        }
    }
}

/// The identifiers and paths in a text: runs of letters, digits, `_`,
/// `.`, `/` and `-`, with the file name of a path and the parts of a
/// dotted name besides.
pub fn words(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let word_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
    for run in text.split(|c: char| !word_char(c)) {
        let run = run.trim_matches(|c| matches!(c, '.' | '/' | '-'));
        if run.len() < 2 {
            continue;
        }
        found.insert(run.to_owned());
        if let Some((_, name)) = run.rsplit_once('/') {
            found.insert(name.to_owned());
        }
        for part in run.split(['.', '/', '-']) {
            if part.len() >= 2 {
                found.insert(part.to_owned());
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_identifiers_paths_and_file_names() {
        let found = words("Fix `parse_config` in src/config.rs, then Store.get()!");
        for word in [
            "parse_config",
            "src/config.rs",
            "config.rs",
            "config",
            "Store",
            "get",
            "Fix",
        ] {
            assert!(found.contains(word), "{word}: {found:?}");
        }
        assert!(!found.contains("!"));
    }

    #[test]
    fn budgets_come_from_config_then_model_and_are_capped() {
        let mut model = crate::model::ModelTable::default().resolve("pro");
        model.context_window = 16_000;
        let settings = MapSettings::new(None, &RepoMapConfig::default(), &model);
        assert_eq!(settings.tool_tokens(), 500);
        model.context_window = 400_000;
        let settings = MapSettings::new(None, &RepoMapConfig::default(), &model);
        assert_eq!(settings.tool_tokens(), 4_096);
        let config = RepoMapConfig {
            tool_tokens: 2_000,
            context_tokens: 90_000,
        };
        let settings = MapSettings::new(None, &config, &model);
        assert_eq!(settings.tool_tokens(), 2_000);
        assert_eq!(settings.context_tokens(), 50_000);
        assert!(
            RepoMapConfig {
                tool_tokens: 9_000,
                context_tokens: 0
            }
            .validate()
            .is_err()
        );
    }
}

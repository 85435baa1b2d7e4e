//! Masks secrets in every string of every event before it leaves the process.
//!
//! Two kinds of knowledge: a versioned table of rules (token shapes, key
//! blocks, `password = ...` assignments), and a set of exact values (the
//! API token, the values of variables the config marks secret, the lines of
//! every private key seen) masked wherever they appear, also encoded.
//!
//! A rule's regular expression is compiled the first time a text holds one
//! of its trigger words, found by one Aho-Corasick pass; compiling all of
//! them at start would cost more than the rest of the start together. The
//! exact values are one Aho-Corasick automaton, swapped whole when a value
//! is learned, so the hot path takes no lock longer than an `Arc` clone.
//! Redaction only touches what is written to stdout (and the journal and
//! the `--hitl-dir` request files); what tools write to disk is left
//! exactly as the model asked.
//!
//! The parts: `rules` is the table of shapes and assignments and how a
//! match is masked, `literal` tells a literal secret from a reference or
//! a placeholder, `learned` holds the exact values and the start-up scan
//! for key files, `key_block` reads private key blocks, and `held`
//! decides how much of streamed text can go out before its end is known.

mod held;
mod key_block;
mod learned;
mod literal;
mod rules;
mod trailing_key;

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use serde_json::Value;

pub use held::HeldText;
pub use literal::looks_like_literal_secret;

use learned::{Known, value_forms};
use rules::{PRIVATE_KEY, RULES, Rule, TRIGGERS, masked_value};

/// Bumped whenever a rule is added, removed or changed.
pub const RULES_VERSION: u32 = 3;

/// Exact secret values shorter than this are not masked: masking "abc"
/// everywhere would shred ordinary text and protect nothing.
pub const MIN_EXACT_SECRET_LEN: usize = 8;
/// The value of an assignment rule (`password = ...`) must be at least this
/// long to count as a literal secret.
pub const MIN_ASSIGNED_SECRET_LEN: usize = 8;
/// Private key body lines shorter than this are not learned: the short
/// last line of a block (`AQAB`, `Zg==`) is common in ordinary base64.
pub const MIN_KEY_LINE_LEN: usize = 16;
/// Key lines stop being learned at this many bytes: about 16,000 lines.
/// Secret values and their encodings are not counted: however many key
/// lines a work dir holds, a value learned later is masked.
pub const MAX_KEY_LINE_BYTES: usize = 1024 * 1024;

/// The start-up scan for private keys: files visited, size of a file read,
/// bytes read in all, and time, whichever ends first.
pub const SCAN_MAX_FILES: usize = 20_000;
pub const SCAN_MAX_FILE_BYTES: u64 = 256 * 1024;
pub const SCAN_MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;
pub const SCAN_TIME_LIMIT: Duration = Duration::from_secs(2);

/// A streamed run without white space longer than this is let through
/// (all but its last [`HOLD_TAIL`] bytes): no token is that long, and a
/// minified file must not be held back whole. It bounds what a forced
/// flush holds back too.
pub const MAX_HELD_WORD: usize = 4 * 1024;
pub const HOLD_TAIL: usize = 512;
/// An unterminated private key block is held up to this size.
pub const MAX_HELD_KEY_BLOCK: usize = 64 * 1024;

/// One secret found in a text, as [`Redactor::mask_with`] hands it over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found<'a> {
    /// The rule's name, as in `[REDACTED:<rule>]`.
    pub rule: &'static str,
    /// The secret as it stands in the text (for an assignment, the value
    /// only: the key and the `=` stay).
    pub value: &'a str,
    /// Found by what stands before it (`password = `, `Bearer `), not by
    /// its own shape or as a known value: alone it would not be found.
    pub by_context: bool,
}

/// Masks secrets in strings. Shared by reference; what it learns (a value
/// added later, a private key seen in passing) counts for every later call,
/// from any thread.
pub struct Redactor {
    rules: Vec<Rule>,
    /// Trigger pattern index to rule index.
    trigger_rule: Vec<usize>,
    triggers: Option<AhoCorasick>,
    known: Arc<Known>,
}

impl Redactor {
    /// `exact_secrets` are values masked wherever they appear (the API token,
    /// the values of variables the config marks secret), in their encoded
    /// forms too.
    pub fn new(exact_secrets: impl IntoIterator<Item = String>) -> Self {
        let rules: Vec<Rule> = RULES
            .iter()
            .map(|(name, pattern, value_group, check)| Rule {
                name,
                pattern,
                value_group: *value_group,
                check: *check,
                regex: OnceLock::new(),
            })
            .collect();
        let mut trigger_rule = Vec::new();
        let mut words = Vec::new();
        for (rule, triggers) in TRIGGERS.iter().enumerate() {
            for word in *triggers {
                trigger_rule.push(rule);
                words.push(*word);
            }
        }
        // A contiguous NFA, not the DFA the builder would pick: measured
        // (optimized build) it is built in 65 µs instead of 180 µs, which
        // pays for the exact-value automaton at start; the search is a
        // little slower (about 0.1 µs per event).
        let triggers = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(&words)
            .ok();
        let known = Known::default();
        known.add(
            exact_secrets
                .into_iter()
                .flat_map(|value| value_forms(&value)),
        );
        Redactor {
            rules,
            trigger_rule,
            triggers,
            known: Arc::new(known),
        }
    }

    /// Masks `value` (and its encoded forms) from now on, wherever it
    /// appears: for secrets learned after start, such as the value of a
    /// secret variable that only the login profile sets. Values shorter
    /// than [`MIN_EXACT_SECRET_LEN`] are ignored. Safe to call from any
    /// thread while events are written.
    pub fn add_exact(&self, value: &str) {
        self.known.add(value_forms(value));
    }

    /// Learns the body lines of every private key block in `text`, so they
    /// are masked also when they show one by one (`grep`, `sed -n 3,5p`,
    /// `read_file` with an offset).
    pub fn learn_private_keys(&self, text: &str) {
        self.known.learn_key_blocks(text);
    }

    /// [`learn_private_keys`](Self::learn_private_keys) for a file, read
    /// when it is a regular file of at most [`SCAN_MAX_FILE_BYTES`].
    pub fn learn_private_keys_in_file(&self, path: &Path) {
        self.known.learn_key_file(path);
    }

    /// Starts a scan of `dir` for private key files in a thread of its own,
    /// bounded by the `SCAN_*` limits; the first call starts it, later
    /// calls do nothing. See [`wait_for_scan`](Self::wait_for_scan).
    pub fn scan_for_private_keys(&self, dir: &Path) {
        self.known.start_scan(dir);
    }

    /// Blocks until the scan started by
    /// [`scan_for_private_keys`](Self::scan_for_private_keys) is done (at
    /// most until its time limit); returns at once when none runs.
    pub fn wait_for_scan(&self) {
        self.known.wait_for_scan();
    }

    /// Which rules `text` holds a trigger word of: only those can match.
    fn triggered(&self, text: &str) -> [bool; RULES.len()] {
        let Some(triggers) = &self.triggers else {
            // Without the trigger automaton every rule is tried.
            return [true; RULES.len()];
        };
        let mut triggered = [false; RULES.len()];
        for found in triggers.find_overlapping_iter(text) {
            if let Some(rule) = self.trigger_rule.get(found.pattern().as_usize()) {
                triggered[*rule] = true;
            }
        }
        triggered
    }

    /// Returns the text with every secret replaced by `[REDACTED:rule]`.
    pub fn redact(&self, text: &str) -> String {
        self.mask_with(text, &mut |found| format!("[REDACTED:{}]", found.rule))
    }

    /// Returns the text with every secret replaced by what `mask` makes of
    /// it: [`redact`](Self::redact) with a mask of the caller's choosing
    /// (the session gives the model numbered placeholders). The exact
    /// values go first, then the rules in the table's order, each over the
    /// text the earlier ones masked, so a later rule sees the masks of the
    /// earlier ones and a found value may hold one (a key block whose lines
    /// were known).
    pub fn mask_with(&self, text: &str, mask: &mut dyn FnMut(&Found<'_>) -> String) -> String {
        let mut out = self.known.current().replace_with(text, mask);
        let triggered = self.triggered(&out);
        for (rule, _) in self.rules.iter().zip(triggered).filter(|(_, hit)| *hit) {
            let Some(regex) = rule.regex() else { continue };
            if !regex.is_match(&out) {
                continue;
            }
            if rule.name == PRIVATE_KEY {
                // Its lines may show one by one later, without the block.
                self.known.learn_key_blocks(&out);
            }
            let replaced = match rule.value_group {
                None => regex
                    .replace_all(&out, |caps: &regex::Captures<'_>| {
                        mask(&Found {
                            rule: rule.name,
                            value: caps.get(0).map_or("", |m| m.as_str()),
                            by_context: false,
                        })
                    })
                    .into_owned(),
                Some(group) => regex
                    .replace_all(&out, |caps: &regex::Captures<'_>| {
                        masked_value(rule, group, caps, mask)
                    })
                    .into_owned(),
            };
            out = replaced;
        }
        out
    }

    /// Redacts every string inside a JSON value, object keys included.
    pub fn redact_value(&self, value: &mut Value) {
        match value {
            Value::String(text) => {
                let redacted = self.redact(text);
                if redacted != *text {
                    *text = redacted;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.redact_value(item)),
            Value::Object(map) => {
                let needs_key_change = map.keys().any(|key| self.redact(key) != *key);
                if needs_key_change {
                    let old = std::mem::take(map);
                    for (key, mut item) in old {
                        self.redact_value(&mut item);
                        map.insert(self.redact(&key), item);
                    }
                } else {
                    map.values_mut().for_each(|item| self.redact_value(item));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn redactor() -> Redactor {
        Redactor::new(["proxy-token-1234567890".to_owned(), "short".to_owned()])
    }

    #[test]
    fn masks_exact_values_but_not_short_ones() {
        let r = redactor();
        assert_eq!(
            r.redact("token=proxy-token-1234567890!"),
            "token=[REDACTED:secret-value]!"
        );
        assert_eq!(r.redact("a short story"), "a short story");
    }

    #[test]
    fn masks_known_token_shapes() {
        let r = redactor();
        let cases = [
            ("AKIAIOSFODNN7EXAMPLE", "aws-access-key-id"),
            ("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "github-token"),
            ("glpat-abcdefghijklmnopqrst", "gitlab-token"),
            ("xoxb-1234567890-abcdefghij", "slack-token"),
            ("sk-proj-abcdefghijklmnopqrstuvwxyz012345", "openai-key"),
            ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "anthropic-key"),
            ("AIzaSyA-1234567890abcdefghijklmnopqrstu", "gcp-api-key"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt",
            ),
        ];
        for (secret, rule) in cases {
            let out = r.redact(&format!("before {secret} after"));
            assert_eq!(out, format!("before [REDACTED:{rule}] after"), "{secret}");
        }
    }

    #[test]
    fn masks_assignment_values_and_keeps_keys() {
        let r = redactor();
        assert_eq!(
            r.redact("password = hunter22"),
            "password = [REDACTED:secret-assignment]"
        );
        assert_eq!(
            r.redact(r#"{"api_key": "abcd1234"}"#),
            r#"{"api_key": "[REDACTED:secret-assignment]"}"#
        );
        assert_eq!(
            r.redact("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            "aws_secret_access_key = [REDACTED:aws-secret-access-key]"
        );
        assert_eq!(
            r.redact("Authorization: Bearer abcdefghijklmnopqrstuvwxyz"),
            "Authorization: Bearer [REDACTED:bearer-token]"
        );
        assert_eq!(
            r.redact("git clone https://user:s3cretpass@example.com/x.git"),
            "git clone https://user:[REDACTED:url-credentials]@example.com/x.git"
        );
    }

    #[test]
    fn masks_private_key_blocks_even_unterminated() {
        let r = redactor();
        let block =
            "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\ny";
        assert_eq!(r.redact(block), "x\n[REDACTED:private-key]\ny");
        let cut = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNz";
        assert_eq!(r.redact(cut), "[REDACTED:private-key]");
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        let r = redactor();
        let text = "fn main() { let password_len = 3; println!(\"sk-\"); }";
        assert_eq!(r.redact(text), text);
    }

    #[test]
    fn walks_json_values() {
        let r = redactor();
        let mut value =
            serde_json::json!({"a": ["proxy-token-1234567890"], "proxy-token-1234567890": 1});
        r.redact_value(&mut value);
        assert_eq!(
            value,
            serde_json::json!({"a": ["[REDACTED:secret-value]"], "[REDACTED:secret-value]": 1})
        );
    }
}

//! Masks secrets in every string of every event before it leaves the process.
//!
//! The rule table is versioned (docs/protocol.md names the version): a
//! change of rules is a visible change. A rule's regular expression is
//! compiled the first time a text holds one of its trigger words, found by
//! one Aho-Corasick pass; compiling all of them at start would cost more
//! than the rest of the start together. Redaction only touches what is written to stdout (and later the
//! journal); what tools write to disk is left exactly as the model asked.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::Regex;
use serde_json::Value;

/// Bumped whenever a rule is added, removed or changed.
pub const RULES_VERSION: u32 = 1;

/// Exact secret values shorter than this are not masked: masking "abc"
/// everywhere would shred ordinary text and protect nothing.
pub const MIN_EXACT_SECRET_LEN: usize = 8;

struct Rule {
    name: &'static str,
    pattern: &'static str,
    /// For assignment rules, the capture group holding the value: everything
    /// before it (the key, the `=`) stays readable.
    value_group: Option<usize>,
    regex: OnceLock<Option<Regex>>,
}

impl Rule {
    fn regex(&self) -> Option<&Regex> {
        // The table is a constant checked by unit tests; a pattern that
        // failed to compile is skipped rather than taking the agent down.
        self.regex
            .get_or_init(|| Regex::new(self.pattern).ok())
            .as_ref()
    }
}

/// Words, compared without case, one of which every match of the rule of
/// the same index in [`RULES`] contains.
const TRIGGERS: &[&[&str]] = &[
    &["-----BEGIN"],
    &["AKIA", "ASIA", "ABIA", "ACCA", "AROA", "AIDA"],
    &["secret"],
    &["AIza"],
    &["AccountKey="],
    &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    &["glpat-"],
    &["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-"],
    &["_live_"],
    &["sk-ant-"],
    &["sk-"],
    &["npm_"],
    &["eyJ"],
    &["bearer"],
    &["://"],
    &[
        "password",
        "passwd",
        "pwd",
        "secret",
        "apikey",
        "api_key",
        "api-key",
        "accesstoken",
        "access_token",
        "access-token",
        "authtoken",
        "auth_token",
        "auth-token",
        "clientsecret",
        "client_secret",
        "client-secret",
        "privatekey",
        "private_key",
        "private-key",
    ],
];

/// (name, pattern, value group). Ordered so that the specific rules run
/// before the generic assignment rule and mask under their own name.
const RULES: &[(&str, &str, Option<usize>)] = &[
    (
        "private-key",
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)",
        None,
    ),
    (
        "aws-access-key-id",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[0-9A-Z]{16}\b",
        None,
    ),
    (
        "aws-secret-access-key",
        r#"(?i)(aws_?secret_?access_?key["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})"#,
        Some(2),
    ),
    ("gcp-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b", None),
    (
        "azure-storage-key",
        r"(AccountKey=)([A-Za-z0-9+/=]{40,})",
        Some(2),
    ),
    (
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        None,
    ),
    ("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b", None),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b", None),
    ("stripe-key", r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b", None),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}", None),
    (
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        None,
    ),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", None),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        None,
    ),
    (
        "bearer-token",
        r"(?i)(\bbearer\s+)([A-Za-z0-9\-._~+/]{16,}=*)",
        Some(2),
    ),
    (
        "url-credentials",
        r"([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:)([^\s@/]{3,})(@)",
        Some(2),
    ),
    (
        "secret-assignment",
        r#"(?i)((?:password|passwd|pwd|secret|secret_key|api[_\-]?key|apikey|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?key)["']?\s*[:=]\s*["']?)([^\s"',;]{4,})"#,
        Some(2),
    ),
];

/// A key that announces a secret value after it (`password = `,
/// `Bearer `), at the very end of a text: the value may be in the next chunk.
const TRAILING_KEY: &str = r#"(?i)(?:password|passwd|pwd|secret|secret_key|api[_\-]?key|apikey|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?key|aws_?secret_?access_?key|accountkey|bearer)["']?\s*[:=]?\s*["']?$"#;

/// A streamed run without white space longer than this is let through
/// (all but its last [`HOLD_TAIL`] bytes): no token is that long, and a
/// minified file must not be held back whole.
pub const MAX_HELD_WORD: usize = 4 * 1024;
pub const HOLD_TAIL: usize = 512;
/// An unterminated private key block is held up to this size.
pub const MAX_HELD_KEY_BLOCK: usize = 64 * 1024;

/// Masks secrets in strings.
pub struct Redactor {
    rules: Vec<Rule>,
    /// Trigger pattern index to rule index.
    trigger_rule: Vec<usize>,
    triggers: Option<AhoCorasick>,
    exact: Vec<String>,
    /// Secret values learned after start (set by a login profile).
    learned: std::sync::RwLock<Vec<String>>,
    trailing_key: OnceLock<Option<Regex>>,
}

impl Redactor {
    /// `exact_secrets` are values masked wherever they appear (the API token,
    /// the values of variables the config marks secret).
    pub fn new(exact_secrets: impl IntoIterator<Item = String>) -> Self {
        let rules: Vec<Rule> = RULES
            .iter()
            .map(|(name, pattern, value_group)| Rule {
                name,
                pattern,
                value_group: *value_group,
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
        let triggers = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&words)
            .ok();
        let mut exact: Vec<String> = exact_secrets
            .into_iter()
            .filter(|value| value.len() >= MIN_EXACT_SECRET_LEN)
            .collect();
        // Longest first, so a secret that contains another is masked whole.
        exact.sort_by_key(|value| std::cmp::Reverse(value.len()));
        exact.dedup();
        Redactor {
            rules,
            trigger_rule,
            triggers,
            exact,
            learned: std::sync::RwLock::new(Vec::new()),
            trailing_key: OnceLock::new(),
        }
    }

    /// Masks `value` from now on, wherever it appears.
    pub fn add_exact(&self, value: &str) {
        if value.len() < MIN_EXACT_SECRET_LEN {
            return;
        }
        let mut learned = match self.learned.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if !learned.iter().any(|known| known == value) {
            learned.push(value.to_owned());
            learned.sort_by_key(|value| std::cmp::Reverse(value.len()));
        }
    }

    /// For text that arrives in pieces (streamed deltas, command output):
    /// how much of `pending` can be redacted and written now. The rest may
    /// be the start of a secret whose end is still to come, so it is held
    /// back: the last word, a `password = ` waiting for its value, an open
    /// private key block.
    pub fn safe_cut(&self, pending: &str) -> usize {
        if let Some(begin) = pending.rfind("-----BEGIN")
            && !pending[begin..].contains("-----END")
        {
            return if pending.len() - begin > MAX_HELD_KEY_BLOCK {
                pending.len()
            } else {
                begin
            };
        }
        let mut cut = pending
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map(|(index, c)| index + c.len_utf8())
            .unwrap_or(0);
        if let Some(found) = self
            .trailing_key
            .get_or_init(|| Regex::new(TRAILING_KEY).ok())
            .as_ref()
            .and_then(|regex| regex.find(&pending[..cut]))
        {
            cut = found.start();
        }
        if pending.len() - cut > MAX_HELD_WORD {
            cut = pending.len() - HOLD_TAIL;
            while !pending.is_char_boundary(cut) {
                cut -= 1;
            }
        }
        cut
    }

    /// Returns the text with every secret replaced by `[REDACTED:rule]`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.exact {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "[REDACTED:secret-value]");
            }
        }
        if let Ok(learned) = self.learned.read() {
            for secret in learned.iter() {
                if out.contains(secret.as_str()) {
                    out = out.replace(secret.as_str(), "[REDACTED:secret-value]");
                }
            }
        }
        let mut triggered = [false; RULES.len()];
        match &self.triggers {
            Some(triggers) => {
                for found in triggers.find_overlapping_iter(&out) {
                    if let Some(rule) = self.trigger_rule.get(found.pattern().as_usize()) {
                        triggered[*rule] = true;
                    }
                }
            }
            // Without the trigger automaton every rule is tried.
            None => triggered = [true; RULES.len()],
        }
        for (rule, _) in self.rules.iter().zip(triggered).filter(|(_, hit)| *hit) {
            let Some(regex) = rule.regex() else { continue };
            if !regex.is_match(&out) {
                continue;
            }
            let replaced = match rule.value_group {
                None => regex
                    .replace_all(&out, format!("[REDACTED:{}]", rule.name).as_str())
                    .into_owned(),
                Some(group) => regex
                    .replace_all(&out, |caps: &regex::Captures<'_>| {
                        let mut kept = String::new();
                        for index in 1..caps.len() {
                            if index == group {
                                kept.push_str(&format!("[REDACTED:{}]", rule.name));
                            } else if let Some(part) = caps.get(index) {
                                kept.push_str(part.as_str());
                            }
                        }
                        kept
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

    fn redactor() -> Redactor {
        Redactor::new(["proxy-token-1234567890".to_owned(), "short".to_owned()])
    }

    #[test]
    fn every_rule_compiles_and_has_triggers() {
        let redactor = Redactor::new([]);
        assert_eq!(TRIGGERS.len(), RULES.len());
        assert!(redactor.triggers.is_some());
        for rule in &redactor.rules {
            assert!(rule.regex().is_some(), "{}", rule.name);
        }
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

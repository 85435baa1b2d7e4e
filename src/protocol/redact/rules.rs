//! The versioned table of rules: token shapes, key blocks, assignments
//! (`password = ...`), each with the trigger words that must be in a text
//! before its regular expression is compiled and run, and how a match of
//! one with a value group is masked.

use std::sync::OnceLock;

use regex::Regex;

use super::key_block::KEY_BLOCK;
use super::literal::{is_placeholder, is_reference, looks_like_literal_secret};

pub(super) const PRIVATE_KEY: &str = "private-key";

/// What a rule's value must look like before it is masked.
#[derive(Clone, Copy)]
pub(super) enum Check {
    /// The shape alone is enough (`ghp_...`, `AKIA...`).
    Shape,
    /// Not a reference (`$X`) or a placeholder (`<token>`).
    NotPlaceholder,
    /// A literal secret: see [`looks_like_literal_secret`].
    Literal,
}

pub(super) struct Rule {
    pub(super) name: &'static str,
    pub(super) pattern: &'static str,
    /// For assignment rules, the capture group holding the value: everything
    /// before it (the key, the `=`) stays readable.
    pub(super) value_group: Option<usize>,
    pub(super) check: Check,
    pub(super) regex: OnceLock<Option<Regex>>,
}

impl Rule {
    pub(super) fn regex(&self) -> Option<&Regex> {
        // The table is a constant checked by unit tests; a pattern that
        // failed to compile is skipped rather than taking the agent down.
        self.regex
            .get_or_init(|| Regex::new(self.pattern).ok())
            .as_ref()
    }
}

/// Words, compared without case, one of which every match of the rule of
/// the same index in [`RULES`] contains.
pub(super) const TRIGGERS: &[&[&str]] = &[
    &["-----BEGIN"],
    &["AKIA", "ASIA", "ABIA", "ACCA", "AROA", "AIDA"],
    &["secret"],
    &["AIza"],
    &["AccountKey="],
    &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    &["glpat-"],
    &["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-"],
    &["sk_live_", "rk_live_"],
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

/// (name, pattern, value group, check). Ordered so that the specific rules
/// run before the generic assignment rule and mask under their own name.
pub(super) const RULES: &[(&str, &str, Option<usize>, Check)] = &[
    (PRIVATE_KEY, KEY_BLOCK, None, Check::Shape),
    (
        "aws-access-key-id",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[0-9A-Z]{16}\b",
        None,
        Check::Shape,
    ),
    (
        "aws-secret-access-key",
        r#"(?i)(aws_?secret_?access_?key["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})"#,
        Some(2),
        Check::Shape,
    ),
    (
        "gcp-api-key",
        r"\bAIza[0-9A-Za-z_\-]{35}\b",
        None,
        Check::Shape,
    ),
    (
        "azure-storage-key",
        r"(AccountKey=)([A-Za-z0-9+/=]{40,})",
        Some(2),
        Check::Shape,
    ),
    (
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        None,
        Check::Shape,
    ),
    (
        "gitlab-token",
        r"\bglpat-[A-Za-z0-9_\-]{20,}\b",
        None,
        Check::Shape,
    ),
    (
        "slack-token",
        r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b",
        None,
        Check::Shape,
    ),
    (
        "stripe-key",
        r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b",
        None,
        Check::Shape,
    ),
    (
        "anthropic-key",
        r"\bsk-ant-[A-Za-z0-9_\-]{20,}",
        None,
        Check::Shape,
    ),
    (
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        None,
        Check::Shape,
    ),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", None, Check::Shape),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        None,
        Check::Shape,
    ),
    (
        "bearer-token",
        r"(?i)(\bbearer\s+)([A-Za-z0-9\-._~+/]{16,}=*)",
        Some(2),
        Check::NotPlaceholder,
    ),
    (
        "url-credentials",
        r"([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:)([^\s@/]{3,})(@)",
        Some(2),
        Check::NotPlaceholder,
    ),
    (
        "secret-assignment",
        r#"(?i)((?:password|passwd|(?:\b|_)pwd|secret|secret_key|api[_\-]?key|apikey|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?key)["']?\s*[:=]\s*["']?)([^\s"',;]{4,})"#,
        Some(2),
        Check::Literal,
    ),
];

/// The text of one match of a rule with a value group: the value masked,
/// or the whole match unchanged when the value fails the rule's check.
pub(super) fn masked_value(
    rule: &Rule,
    group: usize,
    caps: &regex::Captures<'_>,
    mask: &mut dyn FnMut(&super::Found<'_>) -> String,
) -> String {
    let whole = caps.get(0).map_or("", |m| m.as_str());
    let Some(value) = caps.get(group) else {
        return whole.to_owned();
    };
    let value = value.as_str();
    let quoted = group > 1
        && caps
            .get(group - 1)
            .is_some_and(|before| before.as_str().ends_with(['"', '\'']));
    let secret = match rule.check {
        Check::Shape => true,
        Check::NotPlaceholder => !is_reference(value) && !is_placeholder(value),
        Check::Literal => looks_like_literal_secret(value, quoted),
    };
    if !secret {
        return whole.to_owned();
    }
    let mut kept = String::new();
    for index in 1..caps.len() {
        if index == group {
            kept.push_str(&mask(&super::Found {
                rule: rule.name,
                value,
                by_context: true,
            }));
        } else if let Some(part) = caps.get(index) {
            kept.push_str(part.as_str());
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::redact::Redactor;

    #[test]
    fn every_rule_compiles_and_has_triggers() {
        let redactor = Redactor::new([]);
        assert_eq!(TRIGGERS.len(), RULES.len());
        assert!(redactor.triggers.is_some());
        for rule in &redactor.rules {
            assert!(rule.regex().is_some(), "{}", rule.name);
        }
    }
}

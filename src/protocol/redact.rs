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

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};
use std::time::{Duration, Instant};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::Regex;
use serde_json::Value;

/// Bumped whenever a rule is added, removed or changed.
pub const RULES_VERSION: u32 = 2;

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
/// Folders the scan does not enter: version control objects and installed
/// dependencies, large and not where a deployment key lives.
const SCAN_SKIPPED_DIRS: &[&str] = &[".git", "node_modules", "target", ".venv", "__pycache__"];

/// A streamed run without white space longer than this is let through
/// (all but its last [`HOLD_TAIL`] bytes): no token is that long, and a
/// minified file must not be held back whole. It bounds what a forced
/// flush holds back too.
pub const MAX_HELD_WORD: usize = 4 * 1024;
pub const HOLD_TAIL: usize = 512;
/// An unterminated private key block is held up to this size.
pub const MAX_HELD_KEY_BLOCK: usize = 64 * 1024;
/// A secret across the forced cut of a long run moves the cut to its
/// start when it is at most this long, so the held part stays within
/// [`MAX_HELD_WORD`]; no token or key line comes near it.
const MAX_KEPT_WHOLE: usize = MAX_HELD_WORD - HOLD_TAIL;
const BEGIN: &str = "-----BEGIN";
const END: &str = "-----END";

const KEY_BLOCK: &str = r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)";
const PRIVATE_KEY: &str = "private-key";

/// What an exact pattern is, for its mask and its budget.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Exact {
    /// A secret value or one of its encoded forms: always kept.
    SecretValue,
    /// A body line of a private key seen: kept up to [`MAX_KEY_LINE_BYTES`].
    KeyLine,
}

impl Exact {
    fn rule(self) -> &'static str {
        match self {
            Exact::SecretValue => "secret-value",
            Exact::KeyLine => PRIVATE_KEY,
        }
    }
}

/// What a rule's value must look like before it is masked.
#[derive(Clone, Copy)]
enum Check {
    /// The shape alone is enough (`ghp_...`, `AKIA...`).
    Shape,
    /// Not a reference (`$X`) or a placeholder (`<token>`).
    NotPlaceholder,
    /// A literal secret: see [`looks_like_literal_secret`].
    Literal,
}

struct Rule {
    name: &'static str,
    pattern: &'static str,
    /// For assignment rules, the capture group holding the value: everything
    /// before it (the key, the `=`) stays readable.
    value_group: Option<usize>,
    check: Check,
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
const RULES: &[(&str, &str, Option<usize>, Check)] = &[
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

/// A key that announces a secret value after it (`password = `,
/// `Bearer `), at the very end of a text: the value may be in the next chunk.
const TRAILING_KEY: &str = r#"(?i)(?:password|passwd|pwd|secret|secret_key|api[_\-]?key|apikey|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?key|aws_?secret_?access_?key|accountkey|bearer)["']?\s*[:=]?\s*["']?$"#;

/// Masks secrets in strings. Shared by reference; what it learns (a value
/// added later, a private key seen in passing) counts for every later call,
/// from any thread.
pub struct Redactor {
    rules: Vec<Rule>,
    /// Trigger pattern index to rule index.
    trigger_rule: Vec<usize>,
    triggers: Option<AhoCorasick>,
    known: Arc<Known>,
    trailing_key: OnceLock<Option<Regex>>,
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
            trailing_key: OnceLock::new(),
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
        let deadline = Instant::now() + SCAN_TIME_LIMIT;
        {
            let mut scan = self.known.scan();
            if scan.started {
                return;
            }
            *scan = ScanState {
                started: true,
                running: true,
                deadline,
            };
            self.known.scanning.store(true, Ordering::Release);
        }
        let known = Arc::clone(&self.known);
        let root = dir.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("agent-key-scan".into())
            .spawn(move || {
                known.scan_dir(&root, deadline);
                known.scan_finished();
            });
        if spawned.is_err() {
            self.known.scan_finished();
        }
    }

    /// Blocks until the scan started by
    /// [`scan_for_private_keys`](Self::scan_for_private_keys) is done (at
    /// most until its time limit); returns at once when none runs.
    pub fn wait_for_scan(&self) {
        if !self.known.scanning.load(Ordering::Acquire) {
            return;
        }
        let mut scan = self.known.scan();
        while scan.running {
            let left = scan.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            scan = match self.known.scan_done.wait_timeout(scan, left) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

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
        if let Some(begin) = marks.open_key_block(pending) {
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
        if let Some(found) = self
            .trailing_key
            .get_or_init(|| Regex::new(TRAILING_KEY).ok())
            .as_ref()
            .and_then(|regex| regex.find(&pending[..word]))
        {
            cut = found.start();
        }
        let exact = self.known.current();
        let partial = exact.prefix_start(pending);
        if let Some(start) = partial {
            cut = cut.min(start);
        }
        if pending.len() - cut > MAX_HELD_WORD {
            cut = self.long_run_cut(pending, &exact, partial);
        } else if let Some((begin, end)) = marks.closed
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
        if let Some(automaton) = &exact.automaton {
            spans.extend(automaton.find_iter(window).map(|m| (m.start(), m.end())));
        }
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
        let mut out = self.known.current().replace(text);
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
                    .replace_all(&out, format!("[REDACTED:{}]", rule.name).as_str())
                    .into_owned(),
                Some(group) => regex
                    .replace_all(&out, |caps: &regex::Captures<'_>| {
                        masked_value(rule, group, caps)
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

/// Positions in a held text, so that a new piece is read once: how far it
/// was searched for `-----BEGIN`, the key block open in it, where its last
/// word starts.
#[derive(Default)]
struct Marks {
    /// `text[..begins_read]` holds no `-----BEGIN` of an open block.
    begins_read: usize,
    block: Option<OpenBlock>,
    /// The last private key block closed in the text: a cut must not fall
    /// in it (before `KEY-----`, the last word of its end line).
    closed: Option<(usize, usize)>,
    /// Where the last word of `text[..words_read]` starts.
    word: usize,
    words_read: usize,
}

/// A `-----BEGIN` whose header is, or may still become, that of a private
/// key, and whose end line has not come whole.
#[derive(Clone, Copy)]
struct OpenBlock {
    begin: usize,
    part: BlockPart,
}

/// Where the reading of an open block is; each `read` is how far it got.
#[derive(Clone, Copy)]
enum BlockPart {
    /// The label after `-----BEGIN`.
    Header { read: usize },
    /// The body, searched for `-----END`.
    Body { read: usize },
    /// The label after the `-----END` at `end`.
    Footer { end: usize, read: usize },
}

/// What the label after a `-----BEGIN` or `-----END` is, as far as it has
/// come.
enum Label {
    /// A private key's, complete with its closing dashes, ending here.
    Key(usize),
    /// May still become one (`-----BEGIN RSA PRIV`).
    Open,
    /// Cannot: a certificate, a public key, prose.
    Other,
}

impl Marks {
    /// Where a private key block that is not closed yet begins in `text`:
    /// from its `-----BEGIN` while the header may still be a private key
    /// header (`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`), until its
    /// end line (`-----END ... PRIVATE KEY-----`) has come whole, as
    /// [`KEY_BLOCK`] wants. Reads only what it has not read before.
    fn open_key_block(&mut self, text: &str) -> Option<usize> {
        loop {
            let Some(OpenBlock { begin, part }) = self.block else {
                // A marker split between two pieces is found whole.
                let from =
                    text.floor_char_boundary(self.begins_read.saturating_sub(BEGIN.len() - 1));
                let Some(at) = text[from..].find(BEGIN) else {
                    self.begins_read = text.len();
                    return None;
                };
                self.block = Some(OpenBlock {
                    begin: from + at,
                    part: BlockPart::Header {
                        read: from + at + BEGIN.len(),
                    },
                });
                continue;
            };
            let (part, open) = match part {
                BlockPart::Header { mut read } => {
                    match key_label(text, begin + BEGIN.len(), &mut read) {
                        Label::Key(end) => (BlockPart::Body { read: end }, false),
                        Label::Open => (BlockPart::Header { read }, true),
                        Label::Other => {
                            self.begins_read = begin + BEGIN.len();
                            self.block = None;
                            continue;
                        }
                    }
                }
                BlockPart::Body { read } => {
                    let from = text.floor_char_boundary(read.saturating_sub(END.len() - 1));
                    match text[from..].find(END) {
                        Some(at) => {
                            let end = from + at;
                            let read = end + END.len();
                            (BlockPart::Footer { end, read }, false)
                        }
                        None => (BlockPart::Body { read: text.len() }, true),
                    }
                }
                BlockPart::Footer { end, mut read } => {
                    match key_label(text, end + END.len(), &mut read) {
                        Label::Key(after) => {
                            self.begins_read = after;
                            self.closed = Some((begin, after));
                            self.block = None;
                            continue;
                        }
                        Label::Open => (BlockPart::Footer { end, read }, true),
                        // `-----END CERTIFICATE-----` inside: read on.
                        Label::Other => (
                            BlockPart::Body {
                                read: end + END.len(),
                            },
                            false,
                        ),
                    }
                }
            };
            self.block = Some(OpenBlock { begin, part });
            if open {
                return Some(begin);
            }
        }
    }

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
        self.begins_read = self.begins_read.saturating_sub(cut);
        self.closed = self
            .closed
            .filter(|&(_, end)| end > cut)
            .map(|(begin, end)| (begin.saturating_sub(cut), end - cut));
        self.block = match self.block {
            Some(OpenBlock { begin, part }) if begin >= cut => Some(OpenBlock {
                begin: begin - cut,
                part: match part {
                    BlockPart::Header { read } => BlockPart::Header { read: read - cut },
                    BlockPart::Body { read } => BlockPart::Body { read: read - cut },
                    BlockPart::Footer { end, read } => BlockPart::Footer {
                        end: end - cut,
                        read: read - cut,
                    },
                },
            }),
            // Let through for its size: what is left is read afresh, and
            // the `-----BEGIN` is gone from it.
            Some(_) => {
                self.begins_read = 0;
                None
            }
            None => None,
        };
    }
}

/// Reads the label that starts at `start` (after `-----BEGIN` or
/// `-----END`) on from `read`: `[A-Z0-9 ]*`, any of which may still turn
/// into a private key's, then `-----` after a label that ends with
/// `PRIVATE KEY` or `PRIVATE KEY BLOCK`.
fn key_label(text: &str, start: usize, read: &mut usize) -> Label {
    let bytes = text.as_bytes();
    let label_end = bytes[*read..]
        .iter()
        .position(|&b| !(b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' '))
        .map_or(bytes.len(), |at| *read + at);
    *read = label_end;
    if label_end == bytes.len() {
        return Label::Open;
    }
    let label = &text[start..label_end];
    let dashes = &bytes[label_end..];
    let seen = dashes.len().min(5);
    if !(label.ends_with("PRIVATE KEY") || label.ends_with("PRIVATE KEY BLOCK"))
        || dashes[..seen] != b"-----"[..seen]
    {
        return Label::Other;
    }
    match seen {
        5 => Label::Key(label_end + 5),
        _ => Label::Open,
    }
}

/// The text of one match of a rule with a value group: the value masked,
/// or the whole match unchanged when the value fails the rule's check.
fn masked_value(rule: &Rule, group: usize, caps: &regex::Captures<'_>) -> String {
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
            kept.push_str(&format!("[REDACTED:{}]", rule.name));
        } else if let Some(part) = caps.get(index) {
            kept.push_str(part.as_str());
        }
    }
    kept
}

/// Whether the value of an assignment (`password = VALUE`) is a literal
/// secret. It must be at least [`MIN_ASSIGNED_SECRET_LEN`] characters and
/// none of: a reference (`$X`, `${X}`, `%X%`, `{x}`, `os.environ[...]`,
/// `process.env.X`, `getenv(...)`, a call or an index), a placeholder
/// (`<...>`, `xxx`, `***`, `...`, `changeme`, `your-...`, `...-here`,
/// `example`, one character repeated), a path (`/...`, `~/...`, `./...`
/// made of path characters), or, unless `quoted`, a name (`DB_PASSWORD`,
/// `db_password`, `dbPassword`, `self.password`). And it must vary: two
/// kinds of characters (lower case, upper case, digits, others) and five
/// different characters, or sixteen characters and eight different ones.
pub fn looks_like_literal_secret(value: &str, quoted: bool) -> bool {
    let length = value.chars().count();
    if length < MIN_ASSIGNED_SECRET_LEN
        || is_reference(value)
        || is_placeholder(value)
        || is_path(value)
        || (!quoted && is_name(value))
    {
        return false;
    }
    let kinds = [
        value.chars().any(|c| c.is_lowercase()),
        value.chars().any(|c| c.is_uppercase()),
        value.chars().any(|c| c.is_ascii_digit()),
        value.chars().any(|c| !c.is_alphanumeric()),
    ]
    .into_iter()
    .filter(|kind| *kind)
    .count();
    let distinct = value.chars().collect::<HashSet<_>>().len();
    (kinds >= 2 && distinct >= 5) || (length >= 16 && distinct >= 8)
}

fn is_reference(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.starts_with('$')
        || (value.len() > 2 && value.starts_with('%') && value.ends_with('%'))
        || value.starts_with("%(")
        || (value.starts_with('{') && value.ends_with('}'))
        || value.starts_with("#{")
        || [
            "environ",
            "process.env",
            "getenv",
            "env(",
            "env[",
            "env.",
            "env::",
            "secrets.",
        ]
        .iter()
        .any(|marker| lower.contains(marker))
        || is_call_or_index(value)
}

/// `get_secret(`, `config["x"`, `vault.read(`: code, not a value.
fn is_call_or_index(value: &str) -> bool {
    let Some(open) = value.find(['(', '[']) else {
        return false;
    };
    let callee = &value[..open];
    callee
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && callee
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':'))
}

fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let mut chars = value.chars();
    let first = chars.next();
    value.starts_with('<')
        || value.ends_with('>')
        || (value.starts_with('[') && value.ends_with(']'))
        || chars.all(|c| Some(c) == first)
        || lower.starts_with("your")
        || [
            "xxx",
            "***",
            "...",
            "changeme",
            "change_me",
            "change-me",
            "changeit",
            "placeholder",
            "example",
            "redacted",
            "-here",
            "_here",
            "dummy",
            "replace",
        ]
        .iter()
        .any(|marker| lower.contains(marker))
        || [
            "password",
            "passwd",
            "undefined",
            "required",
            "optional",
            "disabled",
            "notset",
        ]
        .contains(&lower.as_str())
}

fn is_path(value: &str) -> bool {
    ["/", "~/", "./", "../"]
        .iter()
        .any(|start| value.starts_with(start))
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '~'))
}

/// An identifier or a chain of them: `DB_PASSWORD`, `db_password`,
/// `dbPassword`, `DbPassword`, `self.password`, `settings.SECRET_KEY`.
fn is_name(value: &str) -> bool {
    fn word(part: &str) -> bool {
        !part.is_empty() && part.chars().all(|c| c.is_ascii_lowercase())
    }
    fn snake(part: &str) -> bool {
        part.contains('_') && part.split('_').all(word)
    }
    fn screaming(part: &str) -> bool {
        part.contains('_')
            && part.starts_with(|c: char| c.is_ascii_uppercase())
            && part
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    }
    fn camel(part: &str) -> bool {
        // Pieces that start where a capital is, each a letter and then
        // lower case letters only: `dbPassword`, `DbPassword`.
        let mut count = 0;
        let mut rest = part;
        while !rest.is_empty() {
            let head = rest
                .char_indices()
                .skip(1)
                .find(|(_, c)| c.is_ascii_uppercase())
                .map_or(rest.len(), |(at, _)| at);
            let mut piece = rest[..head].chars();
            let first = piece.next().unwrap_or(' ');
            if !(first.is_ascii_alphabetic() && word(piece.as_str())) {
                return false;
            }
            count += 1;
            rest = &rest[head..];
        }
        count >= 2
    }
    let parts: Vec<&str> = value.split('.').collect();
    if parts.len() >= 2 {
        parts
            .iter()
            .all(|part| word(part) || snake(part) || screaming(part) || camel(part))
    } else {
        snake(value) || screaming(value) || camel(value)
    }
}

/// A value and the forms it takes in output, each with its label.
fn value_forms(value: &str) -> Vec<(String, Exact)> {
    if value.len() < MIN_EXACT_SECRET_LEN {
        return Vec::new();
    }
    encoded_forms(value)
        .into_iter()
        .filter(|form| form.len() >= MIN_EXACT_SECRET_LEN)
        .map(|form| (form, Exact::SecretValue))
        .collect()
}

/// The value itself; base64, standard and URL-safe, with and without
/// padding, of the value and of the value with a newline (`base64` of a
/// file, of `echo`'s output); the characters of a longer base64 stream
/// that depend on the value alone, at each of the three alignments it can
/// have there; lower and upper case hex; the URL encodings (RFC 3986,
/// lower case escapes, `+` for space, JavaScript's and Python's sets of
/// characters left alone); the JSON string escape.
fn encoded_forms(value: &str) -> Vec<String> {
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let bytes = value.as_bytes();
    let mut forms = vec![value.to_owned()];
    let with_newline = [bytes, b"\n"].concat();
    for input in [bytes, with_newline.as_slice()] {
        for engine in [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD] {
            forms.push(engine.encode(input));
        }
    }
    for lead in 0..3usize {
        // Character i of base64 holds bits 6i..6i+6; the value's bits are
        // 8*lead..8*(lead+len). Lead and trail bytes are zero: they only
        // touch the characters left out.
        let first = (8 * lead).div_ceil(6);
        let end = (8 * (lead + bytes.len())) / 6;
        let mut padded = vec![0u8; lead];
        padded.extend_from_slice(bytes);
        padded.resize(padded.len().div_ceil(3) * 3, 0);
        for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            let encoded = engine.encode(&padded);
            if let Some(core) = encoded.get(first..end) {
                forms.push(core.to_owned());
            }
        }
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    forms.push(hex.to_ascii_uppercase());
    forms.push(hex);
    let unreserved = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
    let percent = |keep: &dyn Fn(u8) -> bool, lower: bool, plus: bool| -> String {
        let mut out = String::new();
        for &b in bytes {
            if keep(b) {
                out.push(b as char);
            } else if plus && b == b' ' {
                out.push('+');
            } else if lower {
                out.push_str(&format!("%{b:02x}"));
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    };
    forms.push(percent(&unreserved, false, false));
    forms.push(percent(&unreserved, true, false));
    forms.push(percent(&unreserved, false, true));
    forms.push(percent(
        &|b| unreserved(b) || matches!(b, b'!' | b'\'' | b'(' | b')' | b'*'),
        false,
        false,
    ));
    forms.push(percent(&|b| unreserved(b) || b == b'/', false, false));
    if let Ok(json) = serde_json::to_string(value) {
        forms.push(json[1..json.len() - 1].to_owned());
    }
    let mut seen = HashSet::new();
    forms.retain(|form| seen.insert(form.clone()));
    forms
}

/// The body lines of the private key blocks in `text` worth learning:
/// base64 only, at least [`MIN_KEY_LINE_LEN`] long. Lines are split at
/// newlines and at a literal `\n`, as keys sit in JSON files (service
/// account keys) with their newlines escaped.
fn key_lines(text: &str) -> Vec<String> {
    static BLOCK: OnceLock<Option<Regex>> = OnceLock::new();
    if !text.contains("PRIVATE KEY") {
        return Vec::new();
    }
    let Some(block) = BLOCK.get_or_init(|| Regex::new(KEY_BLOCK).ok()) else {
        return Vec::new();
    };
    block
        .find_iter(text)
        .flat_map(|found| {
            found
                .as_str()
                .split('\n')
                .flat_map(|line| line.split("\\n"))
                .map(|line| line.trim().trim_end_matches("\\r"))
                .filter(|line| {
                    line.len() >= MIN_KEY_LINE_LEN
                        && line
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
                })
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The exact values and what a scan for keys is doing.
#[derive(Default)]
struct Known {
    set: RwLock<Arc<ExactSet>>,
    /// Serialises additions: two learners must not both build from the
    /// same old set and lose one's values.
    adding: Mutex<()>,
    scan: Mutex<ScanState>,
    scan_done: Condvar,
    /// Whether a scan runs: the check on every event must not take a lock.
    scanning: AtomicBool,
}

struct ScanState {
    started: bool,
    running: bool,
    deadline: Instant,
}

impl Default for ScanState {
    fn default() -> Self {
        ScanState {
            started: false,
            running: false,
            deadline: Instant::now(),
        }
    }
}

impl Known {
    fn current(&self) -> Arc<ExactSet> {
        Arc::clone(&self.set.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn scan(&self) -> MutexGuard<'_, ScanState> {
        self.scan.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds patterns to the set. Key lines past [`MAX_KEY_LINE_BYTES`] are
    /// dropped; secret values never are: a work dir full of keys must not
    /// leave a value learned later (`add_exact`) unmasked.
    fn add(&self, forms: impl IntoIterator<Item = (String, Exact)>) {
        let _adding = self.adding.lock().unwrap_or_else(PoisonError::into_inner);
        let current = self.current();
        let mut key_room = MAX_KEY_LINE_BYTES.saturating_sub(current.key_line_bytes);
        let mut fresh = Vec::new();
        let mut seen = HashSet::new();
        for (form, kind) in forms {
            if current.contains(&form) || !seen.insert(form.clone()) {
                continue;
            }
            match kind {
                Exact::SecretValue => {}
                Exact::KeyLine if form.len() > key_room => continue,
                Exact::KeyLine => key_room -= form.len(),
            }
            fresh.push((form, kind));
        }
        if fresh.is_empty() {
            return;
        }
        let next = Arc::new(current.with(fresh));
        *self.set.write().unwrap_or_else(PoisonError::into_inner) = next;
    }

    fn learn_key_blocks(&self, text: &str) {
        let lines = key_lines(text);
        if !lines.is_empty() {
            self.add(lines.into_iter().map(|line| (line, Exact::KeyLine)));
        }
    }

    fn learn_key_file(&self, path: &Path) {
        let Ok(meta) = std::fs::metadata(path) else {
            return;
        };
        if !meta.is_file() || meta.len() > SCAN_MAX_FILE_BYTES {
            return;
        }
        if let Ok(bytes) = std::fs::read(path) {
            self.learn_key_blocks(&String::from_utf8_lossy(&bytes));
        }
    }

    /// Breadth first, so the files near the top (where a deployment key is
    /// put) come before the depths of a large tree; symbolic links are not
    /// followed. The lines found are added in batches: each addition
    /// rebuilds the automaton, so one per key file would cost the square
    /// of the number of keys.
    fn scan_dir(&self, root: &Path, deadline: Instant) {
        let mut found = Vec::new();
        self.scan_into(root, deadline, &mut found);
        self.add(found.into_iter().map(|line| (line, Exact::KeyLine)));
    }

    fn scan_into(&self, root: &Path, deadline: Instant, found: &mut Vec<String>) {
        const BATCH_BYTES: usize = 64 * 1024;
        let Ok(needle) = AhoCorasick::new(["PRIVATE KEY"]) else {
            return;
        };
        let mut folders = VecDeque::from([root.to_path_buf()]);
        let (mut files, mut bytes) = (0usize, 0u64);
        while let Some(folder) = folders.pop_front() {
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries.flatten() {
                if files >= SCAN_MAX_FILES
                    || bytes >= SCAN_MAX_TOTAL_BYTES
                    || Instant::now() > deadline
                {
                    return;
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path: PathBuf = entry.path();
                if kind.is_dir() {
                    let skipped = entry
                        .file_name()
                        .to_str()
                        .is_some_and(|name| SCAN_SKIPPED_DIRS.contains(&name));
                    if !skipped {
                        folders.push_back(path);
                    }
                    continue;
                }
                if !kind.is_file() {
                    continue;
                }
                files += 1;
                let size = entry.metadata().map_or(u64::MAX, |meta| meta.len());
                if size > SCAN_MAX_FILE_BYTES {
                    continue;
                }
                bytes += size;
                if let Ok(content) = std::fs::read(&path)
                    && needle.is_match(&content)
                {
                    found.extend(key_lines(&String::from_utf8_lossy(&content)));
                    if found.iter().map(String::len).sum::<usize>() > BATCH_BYTES {
                        self.add(found.drain(..).map(|line| (line, Exact::KeyLine)));
                    }
                }
            }
        }
    }

    fn scan_finished(&self) {
        self.scan().running = false;
        self.scanning.store(false, Ordering::Release);
        self.scan_done.notify_all();
    }
}

/// One generation of exact values: the patterns, their automaton, and a
/// sorted copy for finding the start of one at the end of a text.
#[derive(Default)]
struct ExactSet {
    patterns: Vec<(String, Exact)>,
    automaton: Option<AhoCorasick>,
    sorted: Vec<String>,
    /// First bytes of the patterns: most positions are ruled out by this.
    starts: Vec<bool>,
    longest: usize,
    /// Bytes of the key lines, counted against [`MAX_KEY_LINE_BYTES`].
    key_line_bytes: usize,
}

impl ExactSet {
    fn contains(&self, form: &str) -> bool {
        self.sorted
            .binary_search_by(|probe| probe.as_str().cmp(form))
            .is_ok()
    }

    fn with(&self, fresh: Vec<(String, Exact)>) -> ExactSet {
        let mut patterns = self.patterns.clone();
        patterns.extend(fresh);
        // Leftmost-longest: a value inside a longer one is masked as the
        // longer one, and a padded base64 form wins over its prefix.
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(patterns.iter().map(|(pattern, _)| pattern))
            .ok();
        let mut sorted: Vec<String> = patterns.iter().map(|(p, _)| p.clone()).collect();
        sorted.sort();
        let mut starts = vec![false; 256];
        for pattern in &sorted {
            if let Some(first) = pattern.bytes().next() {
                starts[usize::from(first)] = true;
            }
        }
        ExactSet {
            longest: sorted.iter().map(String::len).max().unwrap_or(0),
            key_line_bytes: patterns
                .iter()
                .filter(|(_, kind)| *kind == Exact::KeyLine)
                .map(|(pattern, _)| pattern.len())
                .sum(),
            patterns,
            automaton,
            sorted,
            starts,
        }
    }

    fn replace(&self, text: &str) -> String {
        let Some(automaton) = self.automaton.as_ref().filter(|a| a.is_match(text)) else {
            return text.to_owned();
        };
        let mut out = String::with_capacity(text.len());
        automaton.replace_all_with(text, &mut out, |found, _, out| {
            let kind = self
                .patterns
                .get(found.pattern().as_usize())
                .map_or(Exact::SecretValue, |(_, kind)| *kind);
            out.push_str("[REDACTED:");
            out.push_str(kind.rule());
            out.push(']');
            true
        });
        out
    }

    /// Where the longest end of `text` that is the beginning (not the
    /// whole) of a pattern starts.
    fn prefix_start(&self, text: &str) -> Option<usize> {
        let bytes = text.as_bytes();
        let from = bytes.len().saturating_sub(self.longest.saturating_sub(1));
        (from..bytes.len()).find(|&start| {
            if !self
                .starts
                .get(usize::from(bytes[start]))
                .copied()
                .unwrap_or(false)
            {
                return false;
            }
            let tail = &bytes[start..];
            let at = self.sorted.partition_point(|p| p.as_bytes() < tail);
            self.sorted[at..]
                .iter()
                .take(2)
                .any(|p| p.len() > tail.len() && p.as_bytes().starts_with(tail))
        })
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
    fn masks_encoded_forms_of_exact_values() {
        use base64::Engine;
        use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
        let value = "Tr0ub4dor&3 horse/staple?";
        let r = Redactor::new([value.to_owned()]);
        let hex: String = value.bytes().map(|b| format!("{b:02x}")).collect();
        for form in [
            STANDARD.encode(value),
            STANDARD.encode(format!("{value}\n")),
            URL_SAFE_NO_PAD.encode(value),
            hex.to_uppercase(),
            hex,
            "Tr0ub4dor%263%20horse%2Fstaple%3F".to_owned(),
            "Tr0ub4dor%263%20horse%2fstaple%3f".to_owned(),
            "Tr0ub4dor%263+horse%2Fstaple%3F".to_owned(),
        ] {
            assert_eq!(
                r.redact(&format!("<{form}>")),
                "<[REDACTED:secret-value]>",
                "{form}"
            );
        }
        // Inside a longer base64 stream, at each alignment, only the few
        // characters shared with the neighbours show.
        for lead in ["", "x", "xy"] {
            for trail in ["", "!", "!!"] {
                let stream = STANDARD.encode(format!("{lead}{value}{trail}"));
                let out = r.redact(&stream);
                let shown = out.replace("[REDACTED:secret-value]", "");
                assert!(shown.len() <= 8, "{stream} -> {out}");
            }
        }
    }

    #[test]
    fn values_added_later_are_masked_from_any_thread() {
        let r = std::sync::Arc::new(redactor());
        let adder = r.clone();
        std::thread::spawn(move || adder.add_exact("late-secret-value"))
            .join()
            .unwrap();
        assert_eq!(
            r.redact("x late-secret-value y"),
            "x [REDACTED:secret-value] y"
        );
        assert_eq!(r.safe_cut("x late-sec"), 2);
        r.add_exact("tiny");
        assert_eq!(r.redact("a tiny word"), "a tiny word");
    }

    #[test]
    fn secret_values_are_masked_when_key_lines_filled_the_budget() {
        // Key lines of 4 KiB, distinct by their first characters, as many
        // as the budget holds, and one more.
        let line = |i: usize| format!("{i:08}{}", "Ab0+".repeat(1022));
        let count = MAX_KEY_LINE_BYTES / line(0).len();
        let block = |lines: std::ops::Range<usize>| {
            let body: Vec<String> = lines.map(line).collect();
            format!(
                "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
                body.join("\n")
            )
        };
        let r = Redactor::new([]);
        r.learn_private_keys(&block(0..count));
        assert_eq!(r.redact(&line(count - 1)), "[REDACTED:private-key]");
        r.add_exact("learned-late-value");
        assert_eq!(
            r.redact("a learned-late-value"),
            "a [REDACTED:secret-value]"
        );
        assert_eq!(
            r.redact(&base64::Engine::encode(
                &base64::engine::general_purpose::STANDARD,
                "learned-late-value"
            )),
            "[REDACTED:secret-value]"
        );
        // Key lines stay bounded.
        r.learn_private_keys(&block(count..count + 1));
        assert_eq!(r.redact(&line(count)), line(count));
    }

    const KEY_LINES: [&str; 3] = [
        "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
        "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
        "AQAB",
    ];

    fn key_block() -> String {
        format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
            KEY_LINES.join("\n")
        )
    }

    #[test]
    fn key_lines_seen_in_a_block_are_masked_alone_later() {
        let r = redactor();
        assert_eq!(r.redact(&key_block()), "[REDACTED:private-key]\n");
        assert_eq!(
            r.redact(&format!("id_rsa:3:{}\n", KEY_LINES[1])),
            "id_rsa:3:[REDACTED:private-key]\n"
        );
        // The short last line is not learned; other base64 is left alone.
        assert_eq!(r.redact(KEY_LINES[2]), KEY_LINES[2]);
        let other = "dGhpcyBpcyBvcmRpbmFyeSBiYXNlNjQgdGV4dCBub3QgYSBrZXkgYXQgYWxs";
        assert_eq!(r.redact(other), other);
        // A key in a JSON file has its newlines escaped.
        r.learn_private_keys(
            r#"{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"}"#,
        );
        assert_eq!(
            r.redact("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"),
            "[REDACTED:private-key]"
        );
    }

    #[test]
    fn the_scan_learns_key_files_and_can_be_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("deploy/keys")).unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join("deploy/keys/id_rsa"), key_block()).unwrap();
        let in_git = "-----BEGIN PRIVATE KEY-----\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo\n-----END PRIVATE KEY-----\n";
        std::fs::write(dir.path().join(".git/packed"), in_git).unwrap();
        let r = redactor();
        r.wait_for_scan();
        r.scan_for_private_keys(dir.path());
        r.wait_for_scan();
        assert_eq!(r.redact(KEY_LINES[0]), "[REDACTED:private-key]");
        // Version control folders are not entered.
        let git_line = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo";
        assert_eq!(r.redact(git_line), git_line);
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

    #[test]
    fn assignment_values_must_look_like_literal_secrets() {
        // The look-alikes and literals themselves are in the corpus
        // (tests/data/redaction-corpus.toml); here the parts of the test.
        assert!(!looks_like_literal_secret("short1!", false));
        assert!(!looks_like_literal_secret("${OPENAI_API_KEY}", false));
        assert!(!looks_like_literal_secret("<your-token>", false));
        assert!(!looks_like_literal_secret("/home/agent/src", false));
        assert!(!looks_like_literal_secret("aaaaaaa1", false));
        assert!(looks_like_literal_secret("hunter2hunter2", false));
        // Quoted, a name is a literal string after all.
        assert!(!looks_like_literal_secret("db_password_value", false));
        assert!(looks_like_literal_secret("db_password_value", true));
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

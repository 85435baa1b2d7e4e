//! The exact values a redactor masks: secrets it was given or told later,
//! in every encoded form, and the body lines of private keys it has seen,
//! in one Aho-Corasick automaton swapped whole when a value is learned;
//! and the start-up scan of the work dir for key files.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::Instant;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::Found;
use super::key_block::key_lines;
use super::rules::PRIVATE_KEY;
use super::{
    MAX_KEY_LINE_BYTES, MIN_EXACT_SECRET_LEN, SCAN_MAX_FILE_BYTES, SCAN_MAX_FILES,
    SCAN_MAX_TOTAL_BYTES, SCAN_TIME_LIMIT,
};

/// Folders the scan does not enter: version control objects and installed
/// dependencies, large and not where a deployment key lives.
const SCAN_SKIPPED_DIRS: &[&str] = &[".git", "node_modules", "target", ".venv", "__pycache__"];

/// What an exact pattern is, for its mask and its budget.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Exact {
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

/// A value and the forms it takes in output, each with its label.
pub(super) fn value_forms(value: &str) -> Vec<(String, Exact)> {
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

/// The exact values and what a scan for keys is doing.
#[derive(Default)]
pub(super) struct Known {
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
    pub(super) fn current(&self) -> Arc<ExactSet> {
        Arc::clone(&self.set.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn scan(&self) -> MutexGuard<'_, ScanState> {
        self.scan.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// See [`Redactor::scan_for_private_keys`](super::Redactor::scan_for_private_keys).
    pub(super) fn start_scan(self: &Arc<Self>, dir: &Path) {
        let deadline = Instant::now() + SCAN_TIME_LIMIT;
        {
            let mut scan = self.scan();
            if scan.started {
                return;
            }
            *scan = ScanState {
                started: true,
                running: true,
                deadline,
            };
            self.scanning.store(true, Ordering::Release);
        }
        let known = Arc::clone(self);
        let root = dir.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("agent-key-scan".into())
            .spawn(move || {
                known.scan_dir(&root, deadline);
                known.scan_finished();
            });
        if spawned.is_err() {
            self.scan_finished();
        }
    }

    /// See [`Redactor::wait_for_scan`](super::Redactor::wait_for_scan).
    pub(super) fn wait_for_scan(&self) {
        if !self.scanning.load(Ordering::Acquire) {
            return;
        }
        let mut scan = self.scan();
        while scan.running {
            let left = scan.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            scan = match self.scan_done.wait_timeout(scan, left) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Adds patterns to the set. Key lines past [`MAX_KEY_LINE_BYTES`] are
    /// dropped; secret values never are: a work dir full of keys must not
    /// leave a value learned later (`add_exact`) unmasked.
    pub(super) fn add(&self, forms: impl IntoIterator<Item = (String, Exact)>) {
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

    pub(super) fn learn_key_blocks(&self, text: &str) {
        let lines = key_lines(text);
        if !lines.is_empty() {
            self.add(lines.into_iter().map(|line| (line, Exact::KeyLine)));
        }
    }

    pub(super) fn learn_key_file(&self, path: &Path) {
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
pub(super) struct ExactSet {
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

    pub(super) fn replace_with(
        &self,
        text: &str,
        mask: &mut dyn FnMut(&Found<'_>) -> String,
    ) -> String {
        let Some(automaton) = self.automaton.as_ref().filter(|a| a.is_match(text)) else {
            return text.to_owned();
        };
        let mut out = String::with_capacity(text.len());
        automaton.replace_all_with(text, &mut out, |found, value, out| {
            let kind = self
                .patterns
                .get(found.pattern().as_usize())
                .map_or(Exact::SecretValue, |(_, kind)| *kind);
            out.push_str(&mask(&Found {
                rule: kind.rule(),
                value,
                by_context: false,
            }));
            true
        });
        out
    }

    /// Where each exact value in `text` starts and ends.
    pub(super) fn find_iter<'a>(
        &'a self,
        text: &'a str,
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        self.automaton
            .iter()
            .flat_map(move |automaton| automaton.find_iter(text))
            .map(|found| (found.start(), found.end()))
    }

    /// Where the longest end of `text` that is the beginning (not the
    /// whole) of a pattern starts.
    pub(super) fn prefix_start(&self, text: &str) -> Option<usize> {
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
    use crate::protocol::redact::Redactor;
    use crate::protocol::redact::tests::redactor;

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
}

//! `grep`: the lines of the walked files that match a regex, with their
//! context, kept per file in one buffer and cut to the quota in path order.

use std::fmt::Write as _;
use std::io;
use std::ops::AddAssign;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::DirEntry;

use super::collect::{Found, Shelf, Visit, collect};
use super::walk::{PathFilter, Walk, file_types};
use super::{
    DEFAULT_GREP_RESULTS, MAX_GREP_RESULTS, MAX_LINE_CHARS, Problems, SearchError, counted,
    render_problems,
};
use crate::tools::paths;

/// What to look for, as `grep`'s arguments say it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepOptions {
    pub pattern: String,
    pub case_insensitive: bool,
    pub fixed_strings: bool,
    /// Lines shown before and after each match.
    pub context: usize,
    /// A ripgrep file type: `rust`, `py`.
    pub file_type: Option<String>,
    /// Only files whose path, relative to the root, matches.
    pub glob: Option<String>,
    /// Matching lines kept; the others are only counted.
    pub max_results: usize,
}

impl GrepOptions {
    pub fn new(pattern: impl Into<String>) -> GrepOptions {
        GrepOptions {
            pattern: pattern.into(),
            case_insensitive: false,
            fixed_strings: false,
            context: 0,
            file_type: None,
            glob: None,
            max_results: DEFAULT_GREP_RESULTS,
        }
    }
}

#[derive(Debug)]
pub struct GrepOutcome {
    pub root: PathBuf,
    /// Sorted by path; together they hold the first `max_results` matching
    /// lines of the whole search, with their context.
    pub files: Vec<FileHits>,
    pub shown_matches: u64,
    /// Matching lines in all files, shown or not.
    pub total_matches: u64,
    pub files_matched: u64,
    pub files_searched: u64,
    pub binary_skipped: u64,
    pub problems: Problems,
}

/// The lines kept from one file: one text buffer and a record per line, so
/// a match costs no allocation of its own.
#[derive(Debug, Default)]
pub struct FileHits {
    pub path: PathBuf,
    /// Matching lines among `lines`.
    stored: usize,
    lines: Vec<HitLine>,
    text: Vec<u8>,
}

#[derive(Debug, Clone, Copy)]
struct HitLine {
    kind: LineKind,
    number: u64,
    start: usize,
    end: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Match,
    Before,
    After,
    /// Between two groups of lines that do not touch (rg's `--`).
    Break,
}

impl FileHits {
    fn push(&mut self, kind: LineKind, number: Option<u64>, line: &[u8], match_at: usize) {
        let start = self.text.len();
        clip_into(&mut self.text, trim_terminator(line), match_at);
        self.lines.push(HitLine {
            kind,
            number: number.unwrap_or(0),
            start,
            end: self.text.len(),
        });
    }

    fn clear(&mut self) {
        self.stored = 0;
        self.lines.clear();
        self.text.clear();
    }

    /// Keeps the first `keep` matching lines and the context after the last
    /// of them.
    fn cut_after(&mut self, keep: usize) {
        let mut matches = 0;
        let mut end = self.lines.len();
        for (index, line) in self.lines.iter().enumerate() {
            match line.kind {
                LineKind::Match | LineKind::Before | LineKind::Break if matches == keep => {
                    end = index;
                    break;
                }
                LineKind::Match => matches += 1,
                LineKind::Before | LineKind::After | LineKind::Break => {}
            }
        }
        self.lines.truncate(end);
        self.stored = matches;
    }
}

impl Found for FileHits {
    fn path(&self) -> &Path {
        &self.path
    }

    fn weight(&self) -> usize {
        self.stored
    }
}

/// Searches the files under `root` (or the file `root`) for
/// `options.pattern`. Setting `stop` ends the walk early; what was found by
/// then is returned.
pub fn grep_dir(
    root: &Path,
    options: &GrepOptions,
    stop: &AtomicBool,
) -> Result<GrepOutcome, SearchError> {
    let walk = Walk::new(root)?;
    let needle = Needle {
        matcher: build_matcher(options)?,
        context: options.context,
        quota: options.max_results.max(1),
        stop,
    };
    let filter = options.glob.as_deref().map(PathFilter::new).transpose()?;
    let types = options.file_type.as_deref().map(file_types).transpose()?;
    let walk = walk.only(filter, types);
    let found = collect(&walk, needle.quota, stop, || GrepThread::new(&needle));

    // The files kept hold the first `quota` matching lines between them;
    // the last may hold more, which its share of the quota cuts off.
    let mut files = found.items;
    let mut left = needle.quota;
    for file in &mut files {
        if file.stored > left {
            file.cut_after(left);
        }
        left -= file.stored;
    }
    Ok(GrepOutcome {
        root: root.to_path_buf(),
        shown_matches: files.iter().map(|file| file.stored as u64).sum(),
        files,
        total_matches: found.tally.total,
        files_matched: found.tally.files_matched,
        files_searched: found.tally.searched,
        binary_skipped: found.tally.binary,
        problems: found.problems,
    })
}

/// `path:line:text` for matches, `path-line-text` for context and `--`
/// between groups, as rg prints them; then what was left out, if anything.
pub fn render_grep(outcome: &GrepOutcome, base: &Path, options: &GrepOptions) -> String {
    let mut out = String::new();
    for (index, file) in outcome.files.iter().enumerate() {
        if options.context > 0 && index > 0 {
            out.push_str("--\n");
        }
        let shown = paths::display(base, &file.path);
        for line in &file.lines {
            let text = String::from_utf8_lossy(&file.text[line.start..line.end]);
            let _ = match line.kind {
                LineKind::Match => writeln!(out, "{shown}:{}:{text}", line.number),
                LineKind::Before | LineKind::After => {
                    writeln!(out, "{shown}-{}-{text}", line.number)
                }
                LineKind::Break => writeln!(out, "--"),
            };
        }
    }
    if outcome.total_matches == 0 {
        let binary = match outcome.binary_skipped {
            0 => String::new(),
            n => format!(", {n} binary skipped"),
        };
        let _ = writeln!(
            out,
            "No matches in {} ({} searched{binary}; git-ignored and hidden files are not searched).",
            paths::display(base, &outcome.root),
            counted(outcome.files_searched, "file"),
        );
    } else if outcome.shown_matches < outcome.total_matches {
        let raise = if options.max_results < MAX_GREP_RESULTS {
            format!(", or raise max_results (at most {MAX_GREP_RESULTS})")
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "[capped: showing the first {} of {} matching lines, which are in {}; narrow the search with path, glob or type{raise}]",
            outcome.shown_matches,
            outcome.total_matches,
            counted(outcome.files_matched, "file"),
        );
    }
    render_problems(&mut out, &outcome.problems);
    out
}

/// Files read whole for private keys after one search, at most: one per
/// file whose shown lines look like a key's, a few in practice.
const MAX_KEY_FILES_LEARNED: usize = 32;

/// A key file made during the session is not in the start-up scan: when a
/// shown line looks like a key body line (base64 only), its file is read
/// for key blocks, so those lines are masked. Ordinary source lines cost
/// nothing but this look at them.
pub(super) fn learn_keys_shown(outcome: &GrepOutcome, report: &dyn crate::tools::Reporter) {
    let looks_like_key_line = |text: &[u8]| {
        text.len() >= crate::protocol::redact::MIN_KEY_LINE_LEN
            && text
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
    };
    outcome
        .files
        .iter()
        .filter(|file| {
            file.lines
                .iter()
                .any(|line| looks_like_key_line(&file.text[line.start..line.end]))
        })
        .take(MAX_KEY_FILES_LEARNED)
        .for_each(|file| report.report(crate::tools::Report::FileMayHoldKeys(&file.path)));
}

fn build_matcher(options: &GrepOptions) -> Result<RegexMatcher, SearchError> {
    if options.pattern.is_empty() {
        return Err(SearchError::EmptyPattern);
    }
    RegexMatcherBuilder::new()
        .case_insensitive(options.case_insensitive)
        .fixed_strings(options.fixed_strings)
        // As rg does: a matcher that cannot match a newline lets the
        // searcher scan whole buffers instead of line by line.
        .line_terminator(Some(b'\n'))
        .build(&options.pattern)
        .map_err(|err| SearchError::Regex {
            message: err.to_string(),
            hint: if options.fixed_strings {
                ""
            } else {
                "\n(to search for the text as it is, set fixed_strings)"
            },
        })
}

/// What every thread of one search looks for.
struct Needle<'a> {
    matcher: RegexMatcher,
    context: usize,
    quota: usize,
    stop: &'a AtomicBool,
}

/// The counts of one thread, then of the whole search.
#[derive(Debug, Default)]
struct Tally {
    /// Matching lines, shown or not.
    total: u64,
    files_matched: u64,
    searched: u64,
    binary: u64,
}

impl AddAssign for Tally {
    fn add_assign(&mut self, other: Tally) {
        self.total += other.total;
        self.files_matched += other.files_matched;
        self.searched += other.searched;
        self.binary += other.binary;
    }
}

struct GrepThread<'a> {
    needle: &'a Needle<'a>,
    searcher: Searcher,
    /// Without context or line numbers, for files that are only counted.
    counter: Searcher,
    /// Reused while a file has no match, so a file without one costs no
    /// allocation.
    scratch: FileHits,
}

impl<'a> GrepThread<'a> {
    fn new(needle: &'a Needle<'a>) -> GrepThread<'a> {
        GrepThread {
            needle,
            searcher: searcher(needle.context, true),
            counter: searcher(0, false),
            scratch: FileHits::default(),
        }
    }

    /// The matching lines of the file at `path` and whether it is binary;
    /// with `count_only`, the lines are counted, not kept.
    fn search(&mut self, path: &Path, count_only: bool) -> io::Result<(u64, bool)> {
        let needle = self.needle;
        if count_only {
            let mut sink = Count {
                stop: needle.stop,
                matches: 0,
                binary: false,
            };
            self.counter
                .search_path(&needle.matcher, path, &mut sink)
                .map(|()| (sink.matches, sink.binary))
        } else {
            let mut sink = Collect {
                hits: &mut self.scratch,
                matcher: &needle.matcher,
                stop: needle.stop,
                quota: needle.quota,
                matches: 0,
                dropping: false,
                binary: false,
            };
            self.searcher
                .search_path(&needle.matcher, path, &mut sink)
                .map(|()| (sink.matches, sink.binary))
        }
    }
}

impl Visit for GrepThread<'_> {
    type Item = FileHits;
    type Tally = Tally;

    fn file(&mut self, entry: DirEntry, shelf: &mut Shelf<FileHits, Tally>) {
        shelf.tally.searched += 1;
        let count_only = shelf.is_past(entry.path());
        match self.search(entry.path(), count_only) {
            Err(err) => {
                self.scratch.clear();
                shelf
                    .problems
                    .note(|| format!("{}: {err}", entry.path().display()));
            }
            Ok((_, true)) => {
                self.scratch.clear();
                shelf.tally.binary += 1;
            }
            Ok((0, false)) => {}
            Ok((matches, false)) => {
                shelf.tally.total += matches;
                shelf.tally.files_matched += 1;
                if !count_only {
                    let mut hits = std::mem::take(&mut self.scratch);
                    hits.path = entry.into_path();
                    shelf.keep(hits);
                }
            }
        }
    }
}

fn searcher(context: usize, line_numbers: bool) -> Searcher {
    SearcherBuilder::new()
        .line_number(line_numbers)
        .before_context(context)
        .after_context(context)
        // rg's rule for the files it finds by walking: a NUL byte makes the
        // file binary, and the search of it stops.
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .build()
}

/// Keeps the lines of one file: its first `quota` matching lines with
/// their context, and a count of the rest.
struct Collect<'a> {
    hits: &'a mut FileHits,
    matcher: &'a RegexMatcher,
    stop: &'a AtomicBool,
    quota: usize,
    matches: u64,
    /// A match was over the quota: nothing more is kept.
    dropping: bool,
    binary: bool,
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> io::Result<bool> {
        self.matches += 1;
        if self.dropping || self.hits.stored >= self.quota {
            self.dropping = true;
            return Ok(!self.stop.load(Ordering::Relaxed));
        }
        let line = found.bytes();
        // Only a line that will be cut needs to know where its match is.
        let match_at = if line.len() > MAX_LINE_CHARS {
            self.matcher
                .find(line)
                .ok()
                .flatten()
                .map_or(0, |at| at.start())
        } else {
            0
        };
        self.hits.stored += 1;
        self.hits
            .push(LineKind::Match, found.line_number(), line, match_at);
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> io::Result<bool> {
        if !self.dropping {
            let kind = match context.kind() {
                SinkContextKind::Before => LineKind::Before,
                SinkContextKind::After | SinkContextKind::Other => LineKind::After,
            };
            self.hits
                .push(kind, context.line_number(), context.bytes(), 0);
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> io::Result<bool> {
        if !self.dropping {
            self.hits.lines.push(HitLine {
                kind: LineKind::Break,
                number: 0,
                start: 0,
                end: 0,
            });
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> io::Result<bool> {
        self.binary = true;
        Ok(false)
    }
}

/// Counts the matching lines of a file that cannot be shown.
struct Count<'a> {
    stop: &'a AtomicBool,
    matches: u64,
    binary: bool,
}

impl Sink for Count<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, _: &SinkMatch<'_>) -> io::Result<bool> {
        self.matches += 1;
        Ok(!self.stop.load(Ordering::Relaxed))
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> io::Result<bool> {
        self.binary = true;
        Ok(false)
    }
}

fn trim_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Appends `line`, or when it is longer than [`MAX_LINE_CHARS`] a window
/// of it that starts a little before the match at byte `match_at`, with
/// markers saying how many characters were left out on each side.
fn clip_into(out: &mut Vec<u8>, line: &[u8], match_at: usize) {
    if line.len() <= MAX_LINE_CHARS {
        out.extend_from_slice(line);
        return;
    }
    let text = String::from_utf8_lossy(line);
    let total = text.chars().count();
    if total <= MAX_LINE_CHARS {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    let match_char = String::from_utf8_lossy(&line[..match_at.min(line.len())])
        .chars()
        .count();
    // A little of what comes before the match shows what it belongs to.
    let first = match_char
        .saturating_sub(MAX_LINE_CHARS / 5)
        .min(total - MAX_LINE_CHARS);
    let window: String = text.chars().skip(first).take(MAX_LINE_CHARS).collect();
    if first > 0 {
        out.extend_from_slice(format!("[... {first} characters] ").as_bytes());
    }
    out.extend_from_slice(window.as_bytes());
    let after = total - first - MAX_LINE_CHARS;
    if after > 0 {
        out.extend_from_slice(format!(" [... {after} characters]").as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::search::tree;

    fn grep(root: &Path, options: &GrepOptions) -> String {
        let outcome = grep_dir(root, options, &AtomicBool::new(false)).unwrap();
        render_grep(&outcome, root, options)
    }

    #[test]
    fn grep_skips_ignored_hidden_and_binary_files_and_sorts() {
        let (_dir, root) = tree(&[
            (".gitignore", b"target/\n*.log\n"),
            ("b.txt", b"needle 1\nhay\nneedle 2\n"),
            ("a/z.txt", b"needle z\n"),
            ("a-b.txt", b"needle dash\n"),
            ("target/out.txt", b"needle ignored\n"),
            ("run.log", b"needle log\n"),
            (".hidden/x.txt", b"needle hidden\n"),
            ("bin.dat", b"needle\0binary\n"),
        ]);
        assert_eq!(
            grep(&root, &GrepOptions::new("needle")),
            "a/z.txt:1:needle z\na-b.txt:1:needle dash\nb.txt:1:needle 1\nb.txt:3:needle 2\n"
        );
        let outcome =
            grep_dir(&root, &GrepOptions::new("needle"), &AtomicBool::new(false)).unwrap();
        assert_eq!(outcome.binary_skipped, 1);
        assert_eq!(outcome.total_matches, 4);
        assert_eq!(outcome.files_matched, 3);
    }

    #[test]
    fn grep_options_change_the_match() {
        let (_dir, root) = tree(&[
            ("src/lib.rs", b"fn Main() {}\nlet x = a.b(c);\n"),
            ("app.py", b"def main():\n    a.b(c)\n"),
        ]);
        let mut options = GrepOptions::new("main");
        options.case_insensitive = true;
        assert_eq!(
            grep(&root, &options),
            "app.py:1:def main():\nsrc/lib.rs:1:fn Main() {}\n"
        );
        let mut options = GrepOptions::new("a.b(c)");
        options.fixed_strings = true;
        options.file_type = Some("rust".to_owned());
        assert_eq!(grep(&root, &options), "src/lib.rs:2:let x = a.b(c);\n");
        let mut options = GrepOptions::new("a.b\\(c");
        options.glob = Some("*.py".to_owned());
        assert_eq!(grep(&root, &options), "app.py:2:    a.b(c)\n");
        options.glob = Some("src/*.rs".to_owned());
        assert_eq!(grep(&root, &options), "src/lib.rs:2:let x = a.b(c);\n");
    }

    #[test]
    fn context_lines_are_marked_like_rg() {
        let body: String = (1..=12).map(|n| format!("line {n}\n")).collect();
        let (_dir, root) = tree(&[("a.txt", body.as_bytes()), ("b.txt", b"x\nline 1\n")]);
        let mut options = GrepOptions::new("^line (3|4|10)$");
        options.context = 1;
        assert_eq!(
            grep(&root, &options),
            "a.txt-2-line 2\na.txt:3:line 3\na.txt:4:line 4\na.txt-5-line 5\n--\n\
             a.txt-9-line 9\na.txt:10:line 10\na.txt-11-line 11\n"
        );
        options.pattern = "line 1$".to_owned();
        assert_eq!(
            grep(&root, &options),
            "a.txt:1:line 1\na.txt-2-line 2\n--\nb.txt-1-x\nb.txt:2:line 1\n"
        );
    }

    #[test]
    fn the_cap_keeps_the_first_lines_in_order_and_counts_the_rest() {
        let files: Vec<(String, String)> = (0..300)
            .map(|n| {
                (
                    format!("d{}/f{n:03}.txt", n % 7),
                    "hit\nmiss\nhit\n".to_owned(),
                )
            })
            .collect();
        let borrowed: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(name, body)| (name.as_str(), body.as_bytes()))
            .collect();
        let (_dir, root) = tree(&borrowed);
        let mut options = GrepOptions::new("hit");
        options.max_results = 5;
        options.context = 1;
        let outcome = grep_dir(&root, &options, &AtomicBool::new(false)).unwrap();
        assert_eq!(outcome.total_matches, 600);
        assert_eq!(outcome.shown_matches, 5);
        assert_eq!(
            render_grep(&outcome, &root, &options),
            "d0/f000.txt:1:hit\nd0/f000.txt-2-miss\nd0/f000.txt:3:hit\n--\n\
             d0/f007.txt:1:hit\nd0/f007.txt-2-miss\nd0/f007.txt:3:hit\n--\n\
             d0/f014.txt:1:hit\nd0/f014.txt-2-miss\n\
             [capped: showing the first 5 of 600 matching lines, which are in 300 files; \
             narrow the search with path, glob or type, or raise max_results (at most 2000)]\n"
        );
        // The same answer every time, whatever the threads did.
        for _ in 0..3 {
            assert_eq!(
                render_grep(
                    &grep_dir(&root, &options, &AtomicBool::new(false)).unwrap(),
                    &root,
                    &options
                ),
                render_grep(&outcome, &root, &options)
            );
        }
    }

    #[test]
    fn the_cap_applies_inside_one_file() {
        let body: String = (1..=50).map(|n| format!("hit {n}\n")).collect();
        let (_dir, root) = tree(&[("a.txt", body.as_bytes())]);
        let mut options = GrepOptions::new("hit");
        options.max_results = 2;
        assert_eq!(
            grep(&root, &options),
            "a.txt:1:hit 1\na.txt:2:hit 2\n[capped: showing the first 2 of 50 matching lines, \
             which are in 1 file; narrow the search with path, glob or type, or raise \
             max_results (at most 2000)]\n"
        );
    }

    #[test]
    fn a_file_root_and_no_match_are_answered() {
        let (_dir, root) = tree(&[("a.txt", b"one\n"), ("b.txt", b"one\n")]);
        let outcome = grep_dir(
            &root.join("a.txt"),
            &GrepOptions::new("one"),
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(
            render_grep(&outcome, &root, &GrepOptions::new("one")),
            "a.txt:1:one\n"
        );
        assert_eq!(
            grep(&root, &GrepOptions::new("two")),
            "No matches in . (2 files searched; git-ignored and hidden files are not searched).\n"
        );
    }

    #[test]
    fn long_lines_are_cut_around_the_match() {
        let line = format!("{}NEEDLE{}\n", "a".repeat(1_000), "é".repeat(1_000));
        let (_dir, root) = tree(&[("min.js", line.as_bytes())]);
        let out = grep(&root, &GrepOptions::new("NEEDLE"));
        let expected = format!(
            "min.js:1:[... 900 characters] {}NEEDLE{} [... 606 characters]\n",
            "a".repeat(100),
            "é".repeat(394)
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn a_set_stop_flag_ends_the_walk() {
        let (_dir, root) = tree(&[("a.txt", b"x\n"), ("b/c.txt", b"x\n")]);
        let outcome = grep_dir(&root, &GrepOptions::new("x"), &AtomicBool::new(true)).unwrap();
        assert_eq!(outcome.total_matches, 0);
    }
}

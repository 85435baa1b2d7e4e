//! The search tools: `glob` finds files by name, `grep` searches their
//! content. Both walk the tree with ripgrep's own crates, so they skip what
//! `rg` skips (ignore files, hidden entries, binary files) and use every
//! core. The searches are plain functions over a folder ([`glob_dir`],
//! [`grep_dir`]) that a benchmark can call; the tool handlers confine the
//! path, run them on the blocking pool and render the result for the model.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::types::{Types, TypesBuilder};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{ToolContext, ToolOutput, files, paths};

pub const GLOB_DESCRIPTION: &str = "Find files by name with a glob such as **/*.rs or src/**/test_*.py, matched against paths relative to `path` (default: the work dir); a pattern without / matches file names at any depth. Sorted by path. Git-ignored and hidden files are skipped.";
pub const GREP_DESCRIPTION: &str = "Search file contents with a regular expression (ripgrep syntax). Answers path:line:text lines sorted by path and line. Git-ignored, hidden and binary files are skipped. Narrow the search with path, glob or type.";

/// Paths `glob` shows; the output says how many there were in all.
pub const MAX_GLOB_RESULTS: usize = 1_000;
/// Matching lines `grep` shows when the model gives no `max_results`.
pub const DEFAULT_GREP_RESULTS: usize = 200;
/// The most `max_results` may ask for.
pub const MAX_GREP_RESULTS: usize = 2_000;
/// `context` asks for this many lines before and after a match, at most.
pub const MAX_CONTEXT_LINES: usize = 10;
/// A longer line is cut to this many characters around its match: shorter
/// than `read_file`'s cut because a search shows hundreds of lines, and one
/// minified file would fill the model's share of the output.
pub const MAX_LINE_CHARS: usize = 500;
/// A search still running after this stops and reports what it found.
pub const SEARCH_TIMEOUT: Duration = Duration::from_secs(60);
/// Unreadable paths named in the output; the others are only counted.
const MAX_PROBLEMS_SHOWN: usize = 3;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlobArgs {
    pub pattern: String,
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrepArgs {
    pub pattern: String,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub glob: Option<String>,
    #[serde(default)]
    pub case_insensitive: bool,
    #[serde(default)]
    pub fixed_strings: bool,
    #[serde(default)]
    pub context: Option<usize>,
    #[serde(default, rename = "type")]
    pub file_type: Option<String>,
    #[serde(default)]
    pub max_results: Option<usize>,
}

pub fn glob_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Glob such as **/*.rs, *.{ts,tsx} or src/**/mod.rs"},
            "path": {"type": "string", "description": "Folder to search, relative to the work dir (default: the work dir)"}
        },
        "required": ["pattern"],
        "additionalProperties": false
    })
}

pub fn grep_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Regular expression (Rust regex syntax, as ripgrep), or a literal with fixed_strings"},
            "path": {"type": "string", "description": "File or folder to search, relative to the work dir (default: the work dir)"},
            "glob": {"type": "string", "description": "Only files matching this glob, e.g. *.rs or src/**/*.ts"},
            "type": {"type": "string", "description": "Only files of this ripgrep type, e.g. rust, py, js, ts, go, java, cpp, md"},
            "case_insensitive": {"type": "boolean", "description": "Ignore case"},
            "fixed_strings": {"type": "boolean", "description": "Search for the pattern literally, not as a regex"},
            "context": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT_LINES, "description": "Lines to show before and after each match"},
            "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_GREP_RESULTS, "description": format!("Matching lines to show (default {DEFAULT_GREP_RESULTS})")}
        },
        "required": ["pattern"],
        "additionalProperties": false
    })
}

/// Every error here is one the model can fix by asking differently.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("the pattern is empty")]
    EmptyPattern,
    #[error("invalid regex: {message}{hint}")]
    Regex { message: String, hint: &'static str },
    #[error("invalid glob {pattern:?}: {message}")]
    Glob { pattern: String, message: String },
    #[error("unknown file type {name:?}{hint}")]
    FileType { name: String, hint: String },
    #[error("cannot search {path}: {source}")]
    Root { path: String, source: io::Error },
}

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobOptions {
    pub pattern: String,
    /// Paths kept; the others are only counted.
    pub max_results: usize,
}

/// Paths the walk could not read: counted, the first few named.
#[derive(Debug, Default)]
pub struct Problems {
    pub count: u64,
    pub first: Vec<String>,
}

impl Problems {
    fn note(&mut self, problem: impl FnOnce() -> String) {
        self.count += 1;
        if self.first.len() < MAX_PROBLEMS_SHOWN {
            self.first.push(problem());
        }
    }

    fn merge(&mut self, other: Problems) {
        self.count += other.count;
        for problem in other.first {
            if self.first.len() < MAX_PROBLEMS_SHOWN {
                self.first.push(problem);
            }
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

#[derive(Debug)]
pub struct GlobOutcome {
    pub root: PathBuf,
    /// The first `max_results` matching files, sorted.
    pub paths: Vec<PathBuf>,
    /// Matching files in all, shown or not.
    pub total: u64,
    pub problems: Problems,
}

/// Searches the files under `root` (or the file `root`) for
/// `options.pattern`. Setting `stop` ends the walk early; what was found by
/// then is returned.
pub fn grep_dir(
    root: &Path,
    options: &GrepOptions,
    stop: &AtomicBool,
) -> Result<GrepOutcome, SearchError> {
    let matcher = build_matcher(options)?;
    let filter = options.glob.as_deref().map(PathFilter::new).transpose()?;
    let types = options.file_type.as_deref().map(file_types).transpose()?;
    check_root(root)?;
    let mut walk = walker(root, filter.as_ref().is_some_and(|f| f.hidden));
    if let Some(types) = types {
        walk.types(types);
    }
    let shared = GrepShared {
        root,
        matcher,
        filter,
        context: options.context,
        quota: options.max_results.max(1),
        stop,
        done: Mutex::new(Vec::new()),
    };
    walk.build_parallel().visit(&mut GrepVisitors(&shared));

    let quota = shared.quota;
    let threads = shared
        .done
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let mut outcome = GrepOutcome {
        root: root.to_path_buf(),
        files: Vec::new(),
        shown_matches: 0,
        total_matches: 0,
        files_matched: 0,
        files_searched: 0,
        binary_skipped: 0,
        problems: Problems::default(),
    };
    for found in threads {
        outcome.total_matches += found.total;
        outcome.files_matched += found.files_matched;
        outcome.files_searched += found.searched;
        outcome.binary_skipped += found.binary;
        outcome.problems.merge(found.problems);
        outcome.files.extend(found.files);
    }
    sort_by_path(&mut outcome.files, |file| &file.path);
    let keep = files_holding(&outcome.files, quota);
    outcome.files.truncate(keep);
    let mut left = quota;
    for file in &mut outcome.files {
        if file.stored > left {
            file.cut_after(left);
        }
        left -= file.stored;
    }
    outcome.shown_matches = outcome.files.iter().map(|f| f.stored as u64).sum();
    Ok(outcome)
}

/// Lists the files under `root` whose path relative to it matches
/// `options.pattern`.
pub fn glob_dir(
    root: &Path,
    options: &GlobOptions,
    stop: &AtomicBool,
) -> Result<GlobOutcome, SearchError> {
    let filter = PathFilter::new(&options.pattern)?;
    check_root(root)?;
    let walk = walker(root, filter.hidden);
    let shared = GlobShared {
        root,
        filter,
        quota: options.max_results.max(1),
        stop,
        done: Mutex::new(Vec::new()),
    };
    walk.build_parallel().visit(&mut GlobVisitors(&shared));

    let quota = shared.quota;
    let threads = shared
        .done
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let mut outcome = GlobOutcome {
        root: root.to_path_buf(),
        paths: Vec::new(),
        total: 0,
        problems: Problems::default(),
    };
    for found in threads {
        outcome.total += found.total;
        outcome.problems.merge(found.problems);
        outcome.paths.extend(found.paths);
    }
    sort_by_path(&mut outcome.paths, |path| path);
    outcome.paths.truncate(quota);
    Ok(outcome)
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

/// `1 file`, `2 files`.
fn counted(count: u64, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        _ => format!("{count} {noun}s"),
    }
}

/// One path a line, relative to `base`; then what was left out.
pub fn render_glob(outcome: &GlobOutcome, base: &Path, options: &GlobOptions) -> String {
    let mut out = String::new();
    for path in &outcome.paths {
        // As `paths::display`, without a String per path: a glob may list
        // tens of thousands.
        match path.strip_prefix(base) {
            Ok(relative) => out.push_str(&relative.to_string_lossy()),
            Err(_) => out.push_str(&path.to_string_lossy()),
        }
        out.push('\n');
    }
    if outcome.total == 0 {
        let _ = writeln!(
            out,
            "No files match {:?} in {} (git-ignored and hidden files are skipped).",
            options.pattern,
            paths::display(base, &outcome.root),
        );
    } else if (outcome.paths.len() as u64) < outcome.total {
        let _ = writeln!(
            out,
            "[capped: showing the first {} of {} files; narrow the pattern or the path]",
            outcome.paths.len(),
            outcome.total,
        );
    }
    render_problems(&mut out, &outcome.problems);
    out
}

fn render_problems(out: &mut String, problems: &Problems) {
    if problems.count > 0 {
        let _ = writeln!(
            out,
            "[{} could not be read: {}{}]",
            counted(problems.count, "path"),
            problems.first.join("; "),
            if problems.count > problems.first.len() as u64 {
                "; ..."
            } else {
                ""
            }
        );
    }
}

pub async fn glob(args: GlobArgs, ctx: &ToolContext) -> ToolOutput {
    let root = match search_root(ctx, args.path.as_deref()).await {
        Ok(root) => root,
        Err(fail) => return fail,
    };
    let options = GlobOptions {
        pattern: args.pattern,
        max_results: MAX_GLOB_RESULTS,
    };
    let task_options = options.clone();
    let searched = off_the_loop(ctx, move |stop| glob_dir(&root, &task_options, stop)).await;
    match searched {
        Ok((Ok(outcome), interrupted)) => ToolOutput::ok(
            render_glob(&outcome, &ctx.work_dir, &options) + &interruption_note(interrupted),
        ),
        Ok((Err(err), _)) => ToolOutput::fail(err.to_string()),
        Err(fail) => fail,
    }
}

pub async fn grep(args: GrepArgs, ctx: &ToolContext) -> ToolOutput {
    let root = match search_root(ctx, args.path.as_deref()).await {
        Ok(root) => root,
        Err(fail) => return fail,
    };
    let options = GrepOptions {
        pattern: args.pattern,
        case_insensitive: args.case_insensitive,
        fixed_strings: args.fixed_strings,
        context: args.context.unwrap_or(0).min(MAX_CONTEXT_LINES),
        file_type: args.file_type.filter(|name| !name.trim().is_empty()),
        glob: args.glob.filter(|glob| !glob.trim().is_empty()),
        max_results: args
            .max_results
            .unwrap_or(DEFAULT_GREP_RESULTS)
            .clamp(1, MAX_GREP_RESULTS),
    };
    let task_options = options.clone();
    let events = ctx.events.clone();
    let searched = off_the_loop(ctx, move |stop| {
        let found = grep_dir(&root, &task_options, stop);
        if let Ok(outcome) = &found {
            learn_keys_shown(outcome, events.redactor());
        }
        found
    })
    .await;
    match searched {
        Ok((Ok(outcome), interrupted)) => ToolOutput::ok(
            render_grep(&outcome, &ctx.work_dir, &options) + &interruption_note(interrupted),
        ),
        Ok((Err(err), _)) => ToolOutput::fail(err.to_string()),
        Err(fail) => fail,
    }
}

/// Files read whole for private keys after one search, at most: one per
/// file whose shown lines look like a key's, a few in practice.
const MAX_KEY_FILES_LEARNED: usize = 32;

/// A key file made during the session is not in the start-up scan: when a
/// shown line looks like a key body line (base64 only), its file is read
/// for key blocks, so those lines are masked. Ordinary source lines cost
/// nothing but this look at them.
fn learn_keys_shown(outcome: &GrepOutcome, redactor: &crate::protocol::redact::Redactor) {
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
        .for_each(|file| redactor.learn_private_keys_in_file(&file.path));
}

/// The folder or file to search: the work dir when no path is given.
async fn search_root(ctx: &ToolContext, requested: Option<&str>) -> Result<PathBuf, ToolOutput> {
    let requested = requested
        .filter(|path| !path.trim().is_empty())
        .unwrap_or(".");
    let root = files::resolve(ctx, requested)?;
    match tokio::fs::metadata(&root).await {
        Ok(_) => Ok(root),
        Err(err) => Err(ToolOutput::fail(format!(
            "cannot search {requested}: {err}"
        ))),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interrupted {
    Cancelled,
    TimedOut,
}

fn interruption_note(interrupted: Option<Interrupted>) -> String {
    match interrupted {
        None => String::new(),
        Some(Interrupted::Cancelled) => {
            "[cancelled: only part of the tree was searched]\n".to_owned()
        }
        Some(Interrupted::TimedOut) => format!(
            "[stopped after {} s: only part of the tree was searched; narrow the path, glob or type]\n",
            SEARCH_TIMEOUT.as_secs()
        ),
    }
}

/// Sets the flag when dropped, so a walk whose tool call was abandoned
/// stops instead of running on unseen.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs a blocking walk on tokio's blocking pool, so the session keeps
/// reading stdin meanwhile; a cancel or [`SEARCH_TIMEOUT`] stops the walk
/// and keeps what it found.
async fn off_the_loop<T: Send + 'static>(
    ctx: &ToolContext,
    search: impl FnOnce(&AtomicBool) -> T + Send + 'static,
) -> Result<(T, Option<Interrupted>), ToolOutput> {
    let stop = Arc::new(AtomicBool::new(false));
    let _guard = StopOnDrop(stop.clone());
    let flag = stop.clone();
    let mut task = tokio::task::spawn_blocking(move || search(&flag));
    let failed =
        |err: tokio::task::JoinError| ToolOutput::fail(format!("the search failed: {err}"));
    let interrupted = tokio::select! {
        joined = &mut task => return joined.map(|value| (value, None)).map_err(failed),
        () = ctx.cancel.cancelled() => Interrupted::Cancelled,
        () = tokio::time::sleep(SEARCH_TIMEOUT) => Interrupted::TimedOut,
    };
    stop.store(true, Ordering::Relaxed);
    task.await
        .map(|value| (value, Some(interrupted)))
        .map_err(failed)
}

fn check_root(root: &Path) -> Result<(), SearchError> {
    std::fs::metadata(root)
        .map(|_| ())
        .map_err(|source| SearchError::Root {
            path: root.display().to_string(),
            source,
        })
}

fn walker(root: &Path, hidden: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    // rg honours .gitignore only inside a git checkout; a work dir that is
    // not one (yet) should still skip the build output it names.
    builder.require_git(false).hidden(!hidden);
    if hidden {
        builder.filter_entry(|entry| entry.file_name() != ".git");
    }
    builder
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

fn file_types(name: &str) -> Result<Types, SearchError> {
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    let known = builder.definitions();
    if !known.iter().any(|def| def.name() == name) {
        let extension = format!("*.{name}");
        let meant: Vec<&str> = known
            .iter()
            .filter(|def| def.globs().contains(&extension))
            .map(|def| def.name())
            .collect();
        let hint = if meant.is_empty() {
            "; types are ripgrep's, e.g. rust, py, js, ts, go, java, c, cpp, md, json, yaml, toml, sh"
                .to_owned()
        } else {
            format!("; did you mean {}?", meant.join(" or "))
        };
        return Err(SearchError::FileType {
            name: name.to_owned(),
            hint,
        });
    }
    builder.select(name);
    builder.build().map_err(|err| SearchError::FileType {
        name: name.to_owned(),
        hint: format!(": {err}"),
    })
}

/// A glob over paths relative to the search root, with gitignore's rule: a
/// pattern without `/` matches the file name at any depth, one with `/`
/// matches from the root; `*` stays within one folder, `**` crosses them.
struct PathFilter {
    /// `None` matches everything (`*`, `**`): no glob to run per file.
    set: Option<GlobSet>,
    /// The pattern has no `/`: it is matched against the file name alone.
    name_only: bool,
    /// The pattern names a hidden entry (`.github/**`), so hidden entries
    /// are walked.
    hidden: bool,
}

impl PathFilter {
    fn new(pattern: &str) -> Result<PathFilter, SearchError> {
        let invalid = |message: String| SearchError::Glob {
            pattern: pattern.to_owned(),
            message,
        };
        let relative = pattern.strip_prefix("./").unwrap_or(pattern);
        if relative.trim().is_empty() {
            return Err(invalid("the pattern is empty".to_owned()));
        }
        if relative.starts_with('/') {
            return Err(invalid(
                "globs are matched against paths relative to the searched folder; give the folder as path and a relative pattern such as src/**/*.rs".to_owned(),
            ));
        }
        let name_only = !relative.contains('/');
        let glob = GlobBuilder::new(relative)
            .literal_separator(true)
            .build()
            .map_err(|err| invalid(err.kind().to_string()))?;
        let set = match relative {
            "*" | "**" | "**/*" => None,
            _ => Some(
                GlobSetBuilder::new()
                    .add(glob)
                    .build()
                    .map_err(|err| invalid(err.kind().to_string()))?,
            ),
        };
        let hidden = relative
            .split('/')
            .any(|part| part.starts_with('.') && part != "." && part != "..");
        Ok(PathFilter {
            set,
            name_only,
            hidden,
        })
    }

    fn matches(&self, root: &Path, path: &Path) -> bool {
        let Some(set) = &self.set else {
            return true;
        };
        let name = || path.file_name().is_some_and(|name| set.is_match(name));
        if self.name_only {
            return name();
        }
        match path.strip_prefix(root) {
            Ok(relative) if !relative.as_os_str().is_empty() => set.is_match(relative),
            // The root itself is a file: its name is what can match.
            _ => name(),
        }
    }
}

/// The order of `Path`'s `Ord` (component by component) for the clean
/// paths a walk yields, as a byte comparison: `/` ranks below every other
/// byte, so `a/b` comes before `a-b` as it does by components.
fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    let a = a.as_os_str().as_encoded_bytes().iter();
    let b = b.as_os_str().as_encoded_bytes().iter();
    a.map(|&byte| key_byte(byte))
        .cmp(b.map(|&byte| key_byte(byte)))
}

/// Sorts in [`path_order`]. `Path::cmp` parses components on every
/// comparison, which made the sort cost as much as the whole walk on a
/// large tree; a key of bytes, made once per path, compares with memcmp.
fn sort_by_path<T>(items: &mut [T], path: impl Fn(&T) -> &Path) {
    items.sort_by_cached_key(|item| sort_key(path(item)));
}

/// The path's bytes with `/` as 0, which no file name holds.
fn sort_key(path: &Path) -> Vec<u8> {
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .map(|&byte| key_byte(byte))
        .collect()
}

fn key_byte(byte: u8) -> u8 {
    if byte == b'/' { 0 } else { byte }
}

/// How many files from the start hold `quota` matching lines (all of them
/// if they hold fewer).
fn files_holding(files: &[FileHits], quota: usize) -> usize {
    let mut held = 0;
    for (index, file) in files.iter().enumerate() {
        held += file.stored;
        if held >= quota {
            return index + 1;
        }
    }
    files.len()
}

struct GrepShared<'a> {
    root: &'a Path,
    matcher: RegexMatcher,
    filter: Option<PathFilter>,
    context: usize,
    quota: usize,
    stop: &'a AtomicBool,
    done: Mutex<Vec<ThreadHits>>,
}

/// What one walker thread found; merged once the walk is over, so threads
/// share no lock while they search.
#[derive(Default)]
struct ThreadHits {
    files: Vec<FileHits>,
    /// Matching lines held in `files`.
    stored: usize,
    /// Set once this thread holds `quota` matching lines from files up to
    /// this path: a file past it cannot be among the first `quota` lines
    /// of the whole search, so it is only counted.
    past: Option<PathBuf>,
    total: u64,
    files_matched: u64,
    searched: u64,
    binary: u64,
    problems: Problems,
}

impl ThreadHits {
    /// Drops the files past the first `quota` matching lines once twice
    /// that many are held, so memory stays bounded on a pattern that
    /// matches everywhere while the sort is paid only now and then.
    fn trim(&mut self, quota: usize) {
        if self.stored <= quota.saturating_mul(2) {
            return;
        }
        sort_by_path(&mut self.files, |file| &file.path);
        let keep = files_holding(&self.files, quota);
        self.files.truncate(keep);
        self.stored = self.files.iter().map(|file| file.stored).sum();
        self.past = self.files.last().map(|file| file.path.clone());
    }
}

struct GrepVisitors<'a>(&'a GrepShared<'a>);

impl<'a> ParallelVisitorBuilder<'a> for GrepVisitors<'a> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 'a> {
        let shared = self.0;
        Box::new(GrepVisitor {
            shared,
            searcher: searcher(shared.context, true),
            counter: searcher(0, false),
            found: ThreadHits::default(),
            scratch: FileHits::default(),
        })
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

struct GrepVisitor<'a> {
    shared: &'a GrepShared<'a>,
    searcher: Searcher,
    /// Without context or line numbers, for files that are only counted.
    counter: Searcher,
    found: ThreadHits,
    /// Reused while a file has no match, so a file without one costs no
    /// allocation.
    scratch: FileHits,
}

impl GrepVisitor<'_> {
    fn search(&mut self, entry: DirEntry) {
        let shared = self.shared;
        self.found.searched += 1;
        let path = entry.path();
        let count_only = self
            .found
            .past
            .as_deref()
            .is_some_and(|past| path_order(path, past).is_gt());
        let searched = if count_only {
            let mut sink = Count {
                stop: shared.stop,
                matches: 0,
                binary: false,
            };
            self.counter
                .search_path(&shared.matcher, path, &mut sink)
                .map(|()| (sink.matches, sink.binary))
        } else {
            let mut sink = Collect {
                hits: &mut self.scratch,
                matcher: &shared.matcher,
                stop: shared.stop,
                quota: shared.quota,
                matches: 0,
                dropping: false,
                binary: false,
            };
            self.searcher
                .search_path(&shared.matcher, path, &mut sink)
                .map(|()| (sink.matches, sink.binary))
        };
        match searched {
            Err(err) => {
                self.scratch.clear();
                self.found
                    .problems
                    .note(|| format!("{}: {err}", path.display()));
            }
            Ok((_, true)) => {
                self.scratch.clear();
                self.found.binary += 1;
            }
            Ok((0, false)) => {}
            Ok((matches, false)) => {
                self.found.total += matches;
                self.found.files_matched += 1;
                if !count_only {
                    let mut hits = std::mem::take(&mut self.scratch);
                    hits.path = entry.into_path();
                    self.found.stored += hits.stored;
                    self.found.files.push(hits);
                    self.found.trim(shared.quota);
                }
            }
        }
    }
}

impl ParallelVisitor for GrepVisitor<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.shared.stop.load(Ordering::Relaxed) {
            return WalkState::Quit;
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                self.found.problems.note(|| err.to_string());
                return WalkState::Continue;
            }
        };
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            return WalkState::Continue;
        }
        if let Some(filter) = &self.shared.filter
            && !filter.matches(self.shared.root, entry.path())
        {
            return WalkState::Continue;
        }
        self.search(entry);
        WalkState::Continue
    }
}

impl Drop for GrepVisitor<'_> {
    fn drop(&mut self) {
        let found = std::mem::take(&mut self.found);
        self.shared
            .done
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(found);
    }
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

struct GlobShared<'a> {
    root: &'a Path,
    filter: PathFilter,
    quota: usize,
    stop: &'a AtomicBool,
    done: Mutex<Vec<ThreadPaths>>,
}

#[derive(Default)]
struct ThreadPaths {
    paths: Vec<PathBuf>,
    /// As [`ThreadHits::past`]: later paths are only counted.
    past: Option<PathBuf>,
    total: u64,
    problems: Problems,
}

struct GlobVisitors<'a>(&'a GlobShared<'a>);

impl<'a> ParallelVisitorBuilder<'a> for GlobVisitors<'a> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 'a> {
        Box::new(GlobVisitor {
            shared: self.0,
            found: ThreadPaths::default(),
        })
    }
}

struct GlobVisitor<'a> {
    shared: &'a GlobShared<'a>,
    found: ThreadPaths,
}

impl ParallelVisitor for GlobVisitor<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        let shared = self.shared;
        if shared.stop.load(Ordering::Relaxed) {
            return WalkState::Quit;
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                self.found.problems.note(|| err.to_string());
                return WalkState::Continue;
            }
        };
        if !entry.file_type().is_some_and(|kind| kind.is_file())
            || !shared.filter.matches(shared.root, entry.path())
        {
            return WalkState::Continue;
        }
        self.found.total += 1;
        if self
            .found
            .past
            .as_deref()
            .is_some_and(|past| path_order(entry.path(), past).is_gt())
        {
            return WalkState::Continue;
        }
        self.found.paths.push(entry.into_path());
        if self.found.paths.len() > shared.quota.saturating_mul(2) {
            sort_by_path(&mut self.found.paths, |path| path);
            self.found.paths.truncate(shared.quota);
            self.found.past = self.found.paths.last().cloned();
        }
        WalkState::Continue
    }
}

impl Drop for GlobVisitor<'_> {
    fn drop(&mut self) {
        let found = std::mem::take(&mut self.found);
        self.shared
            .done
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(found);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &[u8])]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (name, content) in files {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        (dir, root)
    }

    fn grep(root: &Path, options: &GrepOptions) -> String {
        let outcome = grep_dir(root, options, &AtomicBool::new(false)).unwrap();
        render_grep(&outcome, root, options)
    }

    fn glob(root: &Path, pattern: &str, max_results: usize) -> String {
        let options = GlobOptions {
            pattern: pattern.to_owned(),
            max_results,
        };
        let outcome = glob_dir(root, &options, &AtomicBool::new(false)).unwrap();
        render_glob(&outcome, root, &options)
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
    fn bad_patterns_are_explained() {
        let (_dir, root) = tree(&[("a.txt", b"x\n")]);
        let stop = AtomicBool::new(false);
        let err = grep_dir(&root, &GrepOptions::new("fn ("), &stop).unwrap_err();
        assert!(err.to_string().contains("unclosed group"), "{err}");
        assert!(err.to_string().contains("fixed_strings"), "{err}");
        let mut options = GrepOptions::new("x");
        options.glob = Some("[a".to_owned());
        let err = grep_dir(&root, &options, &stop).unwrap_err();
        assert!(
            err.to_string().contains("unclosed character class"),
            "{err}"
        );
        options.glob = None;
        options.file_type = Some("rs".to_owned());
        let err = grep_dir(&root, &options, &stop).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown file type \"rs\"; did you mean rust?"
        );
        let err = grep_dir(&root, &GrepOptions::new(""), &stop).unwrap_err();
        assert_eq!(err.to_string(), "the pattern is empty");
        let missing = glob_dir(
            &root.join("nope"),
            &GlobOptions {
                pattern: "*".to_owned(),
                max_results: 10,
            },
            &stop,
        );
        assert!(matches!(missing, Err(SearchError::Root { .. })));
    }

    #[test]
    fn glob_matches_names_anywhere_and_paths_from_the_root() {
        let (_dir, root) = tree(&[
            (".gitignore", b"build/\n"),
            ("Cargo.toml", b""),
            ("src/main.rs", b""),
            ("src/tools/mod.rs", b""),
            ("build/gen.rs", b""),
            (".github/workflows/ci.yml", b""),
            ("docs/a.md", b""),
        ]);
        assert_eq!(glob(&root, "*.rs", 100), "src/main.rs\nsrc/tools/mod.rs\n");
        assert_eq!(
            glob(&root, "**/*.rs", 100),
            "src/main.rs\nsrc/tools/mod.rs\n"
        );
        assert_eq!(glob(&root, "src/*.rs", 100), "src/main.rs\n");
        assert_eq!(glob(&root, "./*.{toml,md}", 100), "Cargo.toml\ndocs/a.md\n");
        assert_eq!(
            glob(&root, ".github/**/*.yml", 100),
            ".github/workflows/ci.yml\n"
        );
        assert_eq!(
            glob(&root, "*", 2),
            "Cargo.toml\ndocs/a.md\n[capped: showing the first 2 of 4 files; narrow the pattern or the path]\n"
        );
        assert_eq!(
            glob(&root, "*.zig", 2),
            "No files match \"*.zig\" in . (git-ignored and hidden files are skipped).\n"
        );
        let err = glob_dir(
            &root,
            &GlobOptions {
                pattern: "/etc/*".to_owned(),
                max_results: 1,
            },
            &AtomicBool::new(false),
        )
        .unwrap_err();
        assert!(err.to_string().contains("relative"), "{err}");
    }

    #[test]
    fn glob_cap_is_exact_across_threads() {
        let files: Vec<String> = (0..500).map(|n| format!("d{}/f{n:03}.rs", n % 5)).collect();
        let borrowed: Vec<(&str, &[u8])> =
            files.iter().map(|name| (name.as_str(), &b""[..])).collect();
        let (_dir, root) = tree(&borrowed);
        let options = GlobOptions {
            pattern: "*.rs".to_owned(),
            max_results: 7,
        };
        let outcome = glob_dir(&root, &options, &AtomicBool::new(false)).unwrap();
        assert_eq!(outcome.total, 500);
        let mut all = files.clone();
        all.sort_by(|a, b| Path::new(a).cmp(Path::new(b)));
        let expected: Vec<PathBuf> = all[..7].iter().map(|name| root.join(name)).collect();
        assert_eq!(outcome.paths, expected);
    }

    #[test]
    fn path_order_is_the_order_of_components() {
        let names = [
            "/r/a", "/r/a/b", "/r/a-b", "/r/a.b", "/r/a/b/c", "/r/ab", "/r/a0", "/r/A", "/r/a/b-c",
            "/r/a/b/d", "/r/a/bc", "/r/é", "/r/z", "/r", "/r/a b",
        ];
        for a in names {
            for b in names {
                let (a, b) = (Path::new(a), Path::new(b));
                assert_eq!(path_order(a, b), a.cmp(b), "{a:?} {b:?}");
                assert_eq!(sort_key(a).cmp(&sort_key(b)), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn a_set_stop_flag_ends_the_walk() {
        let (_dir, root) = tree(&[("a.txt", b"x\n"), ("b/c.txt", b"x\n")]);
        let outcome = grep_dir(&root, &GrepOptions::new("x"), &AtomicBool::new(true)).unwrap();
        assert_eq!(outcome.total_matches, 0);
    }
}

//! The search tools: `glob` finds files by name, `grep` searches their
//! content. Both walk the tree with ripgrep's own crates, so they skip what
//! `rg` skips (ignore files, hidden entries, binary files) and use every
//! core. The searches are plain functions over a folder ([`glob_dir`],
//! [`grep_dir`]) that a benchmark can call; the tool handlers here confine
//! the path, run them on the blocking pool and render the result for the
//! model.
//!
//! `walk` says which files a search is given, `collect` runs the walk on
//! every core and merges what per-thread visitors keep, in path order and
//! cut to a quota; `grep` and `glob` are such visitors with their options
//! and their rendering.

mod collect;
mod glob;
mod grep;
pub(crate) mod walk;

use crate::protocol::events::ActivityKind;
use crate::tools::registry::ToolDef;
use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

pub use self::glob::{GlobOptions, GlobOutcome, glob_dir, render_glob};
pub use self::grep::{FileHits, GrepOptions, GrepOutcome, grep_dir, render_grep};
use super::{ToolContext, ToolOutput, files};

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

impl ToolDef for GlobArgs {
    const NAME: &'static str = "glob";
    const DESCRIPTION: &'static str = GLOB_DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::Searching;
    fn schema() -> Value {
        glob_schema()
    }
    fn target(&self) -> Option<&str> {
        self.path.as_deref()
    }
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

impl ToolDef for GrepArgs {
    const NAME: &'static str = "grep";
    const DESCRIPTION: &'static str = GREP_DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::Searching;
    fn schema() -> Value {
        grep_schema()
    }
    fn target(&self) -> Option<&str> {
        self.path.as_deref()
    }
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

/// `1 file`, `2 files`.
fn counted(count: u64, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        _ => format!("{count} {noun}s"),
    }
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
    let (root, asked) = match search_root(ctx, args.path.as_deref()) {
        Ok(found) => found,
        Err(fail) => return fail,
    };
    let options = GlobOptions {
        pattern: args.pattern,
        max_results: MAX_GLOB_RESULTS,
    };
    let task_options = options.clone();
    let searched = off_the_loop(ctx, move |stop| glob_dir(&root, &task_options, stop)).await;
    answer(searched, asked, |outcome| {
        render_glob(outcome, &ctx.work_dir, &options)
    })
}

pub async fn grep(args: GrepArgs, ctx: &ToolContext) -> ToolOutput {
    let (root, asked) = match search_root(ctx, args.path.as_deref()) {
        Ok(found) => found,
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
    let report = ctx.report.clone();
    let searched = off_the_loop(ctx, move |stop| {
        let found = grep_dir(&root, &task_options, stop);
        if let Ok(outcome) = &found {
            grep::learn_keys_shown(outcome, report.as_ref());
        }
        found
    })
    .await;
    answer(searched, asked, |outcome| {
        render_grep(outcome, &ctx.work_dir, &options)
    })
}

/// The folder or file to search, and the path as the model gave it: the
/// work dir and `.` when no path is given. Whether it is there is the
/// search's own first look.
fn search_root<'a>(
    ctx: &ToolContext,
    requested: Option<&'a str>,
) -> Result<(PathBuf, &'a str), ToolOutput> {
    let requested = requested
        .filter(|path| !path.trim().is_empty())
        .unwrap_or(".");
    Ok((files::resolve(ctx, requested)?, requested))
}

/// The rendered outcome with a note if the search was cut short, or what
/// went wrong.
fn answer<T>(
    searched: Result<(Result<T, SearchError>, Option<Interrupted>), ToolOutput>,
    asked: &str,
    render: impl FnOnce(&T) -> String,
) -> ToolOutput {
    match searched {
        Ok((Ok(outcome), interrupted)) => {
            ToolOutput::ok(render(&outcome) + &interruption_note(interrupted))
        }
        Ok((Err(err), _)) => ToolOutput::fail(match &err {
            // Named as the model wrote it, not by the absolute path it
            // resolved to.
            SearchError::Root { source, .. } => format!("cannot search {asked}: {source}"),
            SearchError::EmptyPattern
            | SearchError::Regex { .. }
            | SearchError::Glob { .. }
            | SearchError::FileType { .. } => err.to_string(),
        }),
        Err(fail) => fail,
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

#[cfg(test)]
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

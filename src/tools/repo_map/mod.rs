//! `repo_map`: the shape of the work dir in a budget of tokens: its files,
//! best-ranked first, each with the signature lines of its most used
//! definitions. Read-only, offered in plan mode, approved like `grep`. The
//! same map, of `[repo_map] context_tokens`, can open the session's first
//! message (`session/context.rs`); it is built once and never updated, so
//! the cached prompt prefix stays the same bytes.
//!
//! `langs` knows the grammars, `tags` reads a file's symbols, `cache`
//! keeps them by content and each file's `stamp` by path, `scan` maps the
//! tree with them, `rank` orders
//! the definitions and `render` fits them to the budget.

mod cache;
mod langs;
mod rank;
mod render;
mod scan;
mod settings;
mod stamp;
mod tags;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::Deserialize;
use serde_json::{Value, json};

pub use self::cache::FILE_NAME as CACHE_FILE_NAME;
pub use self::rank::Focus;
pub use self::render::tokens;
pub use self::settings::{MapSettings, RepoMapConfig};
pub use self::stamp::RACY_MARGIN;
use super::registry::ToolDef;
use super::{ToolContext, ToolOutput, files};
use crate::protocol::events::ActivityKind;

pub const DESCRIPTION: &str = "A map of the repository: its source files, the most important first, each with the signature lines of its key definitions (line: text), ranked by how the code refers to them. \
Use it to find your way in a code base you do not know before reading files. `focus` draws the map towards the files or folders you work on.";

/// The most a call may ask for: the model sees at most 32 KiB of a tool's
/// output whole (`MODEL_OUTPUT_LIMIT`), four bytes a token.
pub const MAX_TOOL_TOKENS: u64 = 8_000;
/// The least a call may ask for: the last line alone takes most of it.
pub const MIN_TOOL_TOKENS: u64 = 64;
/// A call still reading the tree after this stops and maps what it read;
/// the files it parsed are in the cache for the next call.
pub const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// Set, it makes every map build say on stderr what it parsed and how
/// long it took (tests and benchmarks read it).
pub const STATS_VAR: &str = "AGENT_REPO_MAP_STATS";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepoMapArgs {
    #[serde(default)]
    pub focus: Vec<String>,
    #[serde(default)]
    pub budget_tokens: Option<u64>,
}

impl ToolDef for RepoMapArgs {
    const NAME: &'static str = "repo_map";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::Searching;
    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "focus": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Files or folders, relative to the work dir, to center the map on"
                },
                "budget_tokens": {
                    "type": "integer",
                    "minimum": MIN_TOOL_TOKENS,
                    "maximum": MAX_TOOL_TOKENS,
                    "description": "Size of the map in tokens (default: the model's)"
                }
            },
            "additionalProperties": false
        })
    }
    fn action(&self) -> Option<String> {
        Some(match self.focus.is_empty() {
            true => "map the repository".to_owned(),
            false => format!("map the repository around {}", self.focus.join(", ")),
        })
    }
}

/// What one build found, besides the map.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildStats {
    pub files: usize,
    pub parsed: usize,
    pub cached: usize,
    /// Of the cached, the files not read: their stamps held.
    pub unread: usize,
}

/// The map of `root` in `budget` tokens, drawn towards `focus`, with the
/// tags cache at `cache` (none: every file is parsed). Blocking; `stop`
/// ends the walk early with what it found.
pub fn build(
    root: &Path,
    cache: Option<&Path>,
    focus: &Focus,
    budget: u64,
    stop: &AtomicBool,
) -> Result<(String, BuildStats), String> {
    let started = Instant::now();
    let mut cache = cache::Cache::open(cache);
    let scanned = scan::scan(root, &mut cache, stop).map_err(|err| err.to_string())?;
    let scanned_at = started.elapsed();
    let entries = rank::rank(&scanned.files, focus);
    let ranked_at = started.elapsed();
    let map = render::fit(&scanned.files, &entries, budget, scanned.partial);
    let stats = BuildStats {
        files: scanned.files.len(),
        parsed: scanned.parsed,
        cached: scanned.cached,
        unread: scanned.unread,
    };
    if std::env::var_os(STATS_VAR).is_some() {
        crate::diag!(
            "repo-map: {} files, {} parsed, {} from the cache ({} unread), {} tokens, {} ms (scan {} ms, rank {} ms)",
            stats.files,
            stats.parsed,
            stats.cached,
            stats.unread,
            render::tokens(&map),
            started.elapsed().as_millis(),
            scanned_at.as_millis(),
            (ranked_at - scanned_at).as_millis()
        );
    }
    Ok((map, stats))
}

pub async fn run(args: RepoMapArgs, ctx: &ToolContext) -> ToolOutput {
    let settings = ctx.repo_map.clone();
    let mut focus = settings.focus();
    for path in &args.focus {
        match focus_path(ctx, path) {
            Ok(relative) => {
                focus.paths.insert(relative);
            }
            Err(fail) => return fail,
        }
    }
    let budget = args.budget_tokens.map_or(settings.tool_tokens(), |asked| {
        asked.clamp(MIN_TOOL_TOKENS, MAX_TOOL_TOKENS)
    });
    let root = ctx.work_dir.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let mut task =
        tokio::task::spawn_blocking(move || build(&root, settings.cache(), &focus, budget, &flag));
    let (joined, cut) = tokio::select! {
        joined = &mut task => (joined, None),
        () = ctx.cancel.cancelled() => {
            stop.store(true, Ordering::Relaxed);
            (task.await, Some("[cancelled: only part of the tree was read]\n".to_owned()))
        }
        () = tokio::time::sleep(TIMEOUT) => {
            stop.store(true, Ordering::Relaxed);
            let note = format!(
                "[stopped after {} s: only part of the tree was read; the next call goes on from the cache]\n",
                TIMEOUT.as_secs()
            );
            (task.await, Some(note))
        }
    };
    match joined {
        Ok(Ok((map, _))) => ToolOutput::ok(map + cut.as_deref().unwrap_or("")),
        Ok(Err(why)) => ToolOutput::fail(format!("cannot map the work dir: {why}")),
        Err(err) => ToolOutput::fail(format!("mapping the work dir failed: {err}")),
    }
}

/// Builds the first message's map, if the config asks for one, off the
/// async thread: the session starts after it, and never builds it again.
/// A map that cannot be built leaves the message without one.
pub async fn prepare_context(settings: Arc<MapSettings>, work_dir: &Path) {
    let budget = settings.context_tokens();
    if budget == 0 {
        return;
    }
    let root = work_dir.to_path_buf();
    let task_settings = settings.clone();
    let built = tokio::task::spawn_blocking(move || {
        let focus = task_settings.focus();
        build(
            &root,
            task_settings.cache(),
            &focus,
            budget,
            &AtomicBool::new(false),
        )
    })
    .await;
    match built {
        Ok(Ok((map, _))) => settings.set_context(map),
        Ok(Err(why)) => crate::diag!("agent: warning: no repository map in the context: {why}"),
        Err(err) => crate::diag!("agent: warning: no repository map in the context: {err}"),
    }
}

/// A focus path as the map names files: relative to the work dir, a
/// folder with a `/` after it.
fn focus_path(ctx: &ToolContext, path: &str) -> Result<String, ToolOutput> {
    let resolved: PathBuf = files::resolve(ctx, path)?;
    let relative = resolved
        .strip_prefix(&ctx.work_dir)
        .map_err(|_| ToolOutput::fail(format!("refused: {path} is outside the work dir")))?;
    let mut relative = relative.to_string_lossy().into_owned();
    if resolved.is_dir() && !relative.is_empty() {
        relative.push('/');
    }
    Ok(relative)
}

#[cfg(test)]
mod tests;

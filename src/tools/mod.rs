//! The tools the model can call: one file per family, and this registry
//! that offers them, parses their arguments and runs them.

pub mod debug;
pub mod edit;
pub mod exec;
pub mod files;
pub mod interactive;
pub mod network;
pub mod paths;
pub mod procs;
pub mod registry;
pub mod repo_map;
mod report;
pub mod sandbox;
pub mod search;
pub mod service;
pub mod session_search;
pub mod skill;
pub mod tool_search;
pub mod truncate;
pub mod untrusted;
pub mod web;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::protocol::events::Mode;
pub use registry::{BadCall, Call, Offer, RuntimeTool, Tool, parse_arguments};
pub use report::{Report, Reporter};

/// What goes back to the model beyond this is shortened to head and tail.
pub const MODEL_OUTPUT_LIMIT: usize = 32 * 1024;
/// `tool-result.output` in events is capped here (`truncated: true`).
pub const EVENT_OUTPUT_LIMIT: usize = 16 * 1024;

/// What a tool needs from the session.
#[derive(Clone)]
pub struct ToolContext {
    /// Canonical.
    pub work_dir: PathBuf,
    /// Where the tool reports its progress; the session shows it.
    pub report: Arc<dyn Reporter>,
    pub cancel: CancellationToken,
    pub exec: Arc<exec::ExecSettings>,
    pub web: Arc<web::WebSettings>,
    /// The session's mode when the tool runs: plan mode confines `exec`.
    pub mode: Mode,
    /// Whether the model takes images (so `read_file` can return one).
    pub images_supported: bool,
    /// The skills the session found, for the `skill` tool.
    pub skills: Arc<crate::skills::discover::Catalog>,
    /// The index of earlier sessions, for `session_search`.
    pub search: Arc<session_search::SearchSettings>,
    /// The repository map's settings and what the session has seen.
    pub repo_map: Arc<repo_map::MapSettings>,
}

/// A tool's answer. `ok: false` is an answer too: the model reads why and
/// can correct itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub ok: bool,
    pub output: String,
    /// A picture for the model (`read_file` on an image).
    pub image: Option<crate::model::Image>,
    /// A third party wrote the output: the session frames it for the
    /// model and screens it for instructions. Boxed: most outputs have
    /// none, and every `Result<_, ToolOutput>` carries the field.
    pub untrusted: Option<Box<untrusted::Origin>>,
}

impl ToolOutput {
    pub fn ok(output: impl Into<String>) -> Self {
        ToolOutput {
            ok: true,
            output: output.into(),
            image: None,
            untrusted: None,
        }
    }

    pub fn fail(output: impl Into<String>) -> Self {
        ToolOutput {
            ok: false,
            output: output.into(),
            image: None,
            untrusted: None,
        }
    }

    /// The same output, marked as written by a third party.
    pub fn from_third_party(mut self, origin: untrusted::Origin) -> Self {
        self.untrusted = Some(Box::new(origin));
        self
    }
}

/// Runs one call of a tool that works on the work dir.
pub async fn run(call: Call, ctx: &ToolContext) -> ToolOutput {
    match call {
        Call::ReadFile(args) => files::read(args, ctx).await,
        Call::WriteFile(args) => files::write(args, ctx).await,
        Call::EditFile(args) => files::edit(args, ctx).await,
        Call::ListDir(args) => files::list(args, ctx).await,
        Call::Glob(args) => search::glob(args, ctx).await,
        Call::Grep(args) => search::grep(args, ctx).await,
        Call::Exec(args) => exec::run(args, ctx).await,
        Call::WebFetch(args) => web::fetch(args, ctx).await,
        Call::Skill(args) => skill::run(args, ctx).await,
        Call::SessionSearch(args) => session_search::run(args, ctx).await,
        Call::RepoMap(args) => repo_map::run(args, ctx).await,
        // The session runs these itself (see `ToolDef::IN_SESSION`).
        Call::TodoWrite(_)
        | Call::AskUser(_)
        | Call::WritePlan(_)
        | Call::ToolSearch(_)
        | Call::Debug(_)
        | Call::Runtime(_) => ToolOutput::fail(format!(
            "internal error: {} is run by the session, not the tool registry",
            call.name()
        )),
    }
}

/// Milliseconds since `start`, for `duration_ms`.
pub fn elapsed_ms(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Where git's global excludes file exists, every walk of the work dir
/// (checkpoints, search, the listing) has `ignore` look it up, which
/// compiles the regex that reads it from the git config on its first use,
/// under a lock: 1.5 M instructions, a sixth of a short turn's CPU
/// (`state::walk`: where there is no such file, nothing is compiled). The
/// session calls this once `session-start` is out: on a thread of its
/// own, beside the model request rather than in the first checkpoint
/// after a command, and not during the process's start, whose page faults
/// it would slow (the allocations of a second thread take the address
/// space's lock). A walk that comes first waits for it; nothing is paid
/// twice.
pub fn warm_up_walks() {
    if !crate::state::walk::git_global() {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("walk-warm-up".to_owned())
        .spawn(ignore::gitignore::gitconfig_excludes_path);
}

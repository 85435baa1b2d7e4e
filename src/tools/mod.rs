//! The tools the model can call: one file per family, and this registry
//! that offers them, parses their arguments and runs them.

pub mod edit;
pub mod exec;
pub mod files;
pub mod interactive;
pub mod paths;
pub mod procs;
pub mod sandbox;
pub mod search;
pub mod truncate;
pub mod web;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::model::ToolSpec;
use crate::protocol::EventWriter;
use crate::protocol::events::{ActivityKind, Mode};

/// Every tool name of the wire contract, implemented here or not yet:
/// `--blocked-tools` accepts these and nothing else.
pub const CONTRACT_TOOLS: [&str; 11] = [
    "read_file",
    "write_file",
    "edit_file",
    "list_dir",
    "glob",
    "grep",
    "exec",
    "todo_write",
    "ask_user",
    "write_plan",
    "web_fetch",
];

/// What goes back to the model beyond this is shortened to head and tail.
pub const MODEL_OUTPUT_LIMIT: usize = 32 * 1024;
/// `tool-result.output` in events is capped here (`truncated: true`).
pub const EVENT_OUTPUT_LIMIT: usize = 16 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    ReadFile,
    WriteFile,
    EditFile,
    ListDir,
    Glob,
    Grep,
    Exec,
    WebFetch,
    TodoWrite,
    AskUser,
    WritePlan,
}

impl Tool {
    pub const ALL: [Tool; 11] = [
        Tool::ReadFile,
        Tool::WriteFile,
        Tool::EditFile,
        Tool::ListDir,
        Tool::Glob,
        Tool::Grep,
        Tool::Exec,
        Tool::WebFetch,
        Tool::TodoWrite,
        Tool::AskUser,
        Tool::WritePlan,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Tool::ReadFile => "read_file",
            Tool::WriteFile => "write_file",
            Tool::EditFile => "edit_file",
            Tool::ListDir => "list_dir",
            Tool::Glob => "glob",
            Tool::Grep => "grep",
            Tool::Exec => "exec",
            Tool::WebFetch => "web_fetch",
            Tool::TodoWrite => "todo_write",
            Tool::AskUser => "ask_user",
            Tool::WritePlan => "write_plan",
        }
    }

    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|tool| tool.name() == name)
    }

    pub fn activity(self) -> ActivityKind {
        match self {
            Tool::ReadFile | Tool::ListDir => ActivityKind::ReadingFile,
            Tool::WriteFile => ActivityKind::WritingFile,
            Tool::EditFile => ActivityKind::EditingFile,
            Tool::Glob | Tool::Grep => ActivityKind::Searching,
            Tool::Exec => ActivityKind::RunningCommand,
            Tool::WebFetch => ActivityKind::FetchingUrl,
            Tool::TodoWrite => ActivityKind::CreatingTodos,
            Tool::AskUser => ActivityKind::AskingUser,
            Tool::WritePlan => ActivityKind::Planning,
        }
    }

    /// Whether the mode offers the tool: plan mode has no tool that
    /// writes, and only plan mode has `write_plan`.
    pub fn offered_in(self, mode: Mode) -> bool {
        match self {
            Tool::WriteFile | Tool::EditFile => mode != Mode::Plan,
            Tool::WritePlan => mode == Mode::Plan,
            Tool::ReadFile
            | Tool::ListDir
            | Tool::Glob
            | Tool::Grep
            | Tool::Exec
            | Tool::WebFetch
            | Tool::TodoWrite
            | Tool::AskUser => true,
        }
    }

    /// Tools the session runs itself: they wait for a person or change
    /// the session's state, not the work dir.
    pub fn runs_in_session(self) -> bool {
        matches!(self, Tool::TodoWrite | Tool::AskUser | Tool::WritePlan)
    }

    pub fn spec(self) -> ToolSpec {
        let (description, parameters) = match self {
            Tool::ReadFile => (files::READ_DESCRIPTION, files::read_schema()),
            Tool::WriteFile => (files::WRITE_DESCRIPTION, files::write_schema()),
            Tool::EditFile => (files::EDIT_DESCRIPTION, files::edit_schema()),
            Tool::ListDir => (files::LIST_DESCRIPTION, files::list_schema()),
            Tool::Glob => (search::GLOB_DESCRIPTION, search::glob_schema()),
            Tool::Grep => (search::GREP_DESCRIPTION, search::grep_schema()),
            Tool::Exec => (exec::DESCRIPTION, exec::schema()),
            Tool::WebFetch => (web::DESCRIPTION, web::schema()),
            Tool::TodoWrite => (interactive::TODO_DESCRIPTION, interactive::todo_schema()),
            Tool::AskUser => (interactive::ASK_DESCRIPTION, interactive::ask_schema()),
            Tool::WritePlan => (interactive::PLAN_DESCRIPTION, interactive::plan_schema()),
        };
        ToolSpec {
            name: self.name().to_owned(),
            description: description.to_owned(),
            parameters,
        }
    }
}

/// What a tool needs from the session.
#[derive(Clone)]
pub struct ToolContext {
    /// Canonical.
    pub work_dir: PathBuf,
    pub events: Arc<EventWriter>,
    pub cancel: CancellationToken,
    pub exec: Arc<exec::ExecSettings>,
    pub web: Arc<web::WebSettings>,
    /// The session's mode when the tool runs: plan mode confines `exec`.
    pub mode: Mode,
    /// Whether the model takes images (so `read_file` can return one).
    pub images_supported: bool,
}

/// A tool's answer. `ok: false` is an answer too: the model reads why and
/// can correct itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub ok: bool,
    pub output: String,
    /// A picture for the model (`read_file` on an image).
    pub image: Option<crate::model::Image>,
}

impl ToolOutput {
    pub fn ok(output: impl Into<String>) -> Self {
        ToolOutput {
            ok: true,
            output: output.into(),
            image: None,
        }
    }

    pub fn fail(output: impl Into<String>) -> Self {
        ToolOutput {
            ok: false,
            output: output.into(),
            image: None,
        }
    }
}

/// Runs one call. Errors in the arguments are answers for the model.
pub async fn run(tool: Tool, call_id: &str, arguments: &Value, ctx: &ToolContext) -> ToolOutput {
    match tool {
        Tool::ReadFile => match parse::<files::ReadArgs>(tool, arguments) {
            Ok(args) => files::read(args, ctx).await,
            Err(fail) => fail,
        },
        Tool::WriteFile => match parse::<files::WriteArgs>(tool, arguments) {
            Ok(args) => files::write(args, call_id, ctx).await,
            Err(fail) => fail,
        },
        Tool::EditFile => match parse::<files::EditArgs>(tool, arguments) {
            Ok(args) => files::edit(args, call_id, ctx).await,
            Err(fail) => fail,
        },
        Tool::ListDir => match parse::<files::ListArgs>(tool, arguments) {
            Ok(args) => files::list(args, ctx).await,
            Err(fail) => fail,
        },
        Tool::Glob => match parse::<search::GlobArgs>(tool, arguments) {
            Ok(args) => search::glob(args, ctx).await,
            Err(fail) => fail,
        },
        Tool::Grep => match parse::<search::GrepArgs>(tool, arguments) {
            Ok(args) => search::grep(args, ctx).await,
            Err(fail) => fail,
        },
        Tool::Exec => match parse::<exec::ExecArgs>(tool, arguments) {
            Ok(args) => exec::run(args, call_id, ctx).await,
            Err(fail) => fail,
        },
        Tool::WebFetch => match parse::<web::FetchArgs>(tool, arguments) {
            Ok(args) => web::fetch(args, ctx).await,
            Err(fail) => fail,
        },
        // The session runs these itself (see `Tool::runs_in_session`).
        Tool::TodoWrite | Tool::AskUser | Tool::WritePlan => ToolOutput::fail(format!(
            "internal error: {} is run by the session, not the tool registry",
            tool.name()
        )),
    }
}

pub fn parse<T: DeserializeOwned>(tool: Tool, arguments: &Value) -> Result<T, ToolOutput> {
    serde_json::from_value(arguments.clone()).map_err(|err| {
        ToolOutput::fail(format!(
            "bad arguments for {}: {err}. Expected: {}",
            tool.name(),
            tool.spec().parameters
        ))
    })
}

/// Parses the raw argument text the model streamed. An empty text is an
/// empty object: some models send nothing for a tool without arguments.
pub fn parse_arguments(raw: &str) -> Result<Value, String> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(format!("arguments must be a JSON object, got {other}")),
        Err(err) => Err(format!("arguments are not valid JSON ({err})")),
    }
}

/// Milliseconds since `start`, for `duration_ms`.
pub fn elapsed_ms(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

//! The events the agent writes to stdout, as plain serde data.
//!
//! The writer adds `_seq` and `ts`; these types carry everything else. They
//! deny unknown fields so that the round-trip test in `tests/` catches any
//! drift between what we write and what we declare.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::commands::Decision;

/// Version of the wire protocol, printed in `session-start`.
pub const PROTOCOL_VERSION: u32 = 1;

/// One line on stdout: its `type`, the `_seq` and `ts` that the writer
/// stamps on every line, and the fields of its type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Event {
    SessionStart {
        session_id: String,
        model: String,
        mode: Mode,
        version: String,
        protocol: u32,
        work_dir: String,
        tools: Vec<String>,
        resumed: bool,
        /// What confines the commands of this session (an extension of
        /// the contract; absent in journals written before it).
        #[serde(default)]
        sandbox: SandboxReport,
        /// Version of the masking rule table (docs/protocol.md).
        #[serde(default)]
        redaction_rules: u32,
        /// Version of the untrusted-content rule table, so a flag in a
        /// journal can be read against the table that raised it.
        #[serde(default)]
        untrusted_rules: u32,
    },
    /// The tools offered changed since `session-start` or the last
    /// `tools-changed` (an MCP server came, went or was restarted, the
    /// mode changed, the MCP gate let more tools in): the whole list, and
    /// what came and went. Written before the model call that offers it.
    ToolsChanged {
        tools: Vec<String>,
        added: Vec<String>,
        removed: Vec<String>,
    },
    TextDelta {
        delta: String,
        iteration: u32,
    },
    ReasoningDelta {
        delta: String,
        iteration: u32,
    },
    Activity {
        activity: ActivityKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call_id: Option<String>,
    },
    ToolCallStart {
        id: String,
        name: String,
        /// Always an object (`{}` when the model sent arguments that are not one).
        #[schemars(with = "serde_json::Map<String, Value>")]
        args: Value,
        iteration: u32,
    },
    ExecLog {
        id: String,
        stream: OutputStream,
        data: String,
    },
    FileDelta {
        id: String,
        path: String,
        delta: String,
    },
    FileComplete {
        id: String,
        path: String,
        op: FileOp,
        bytes: u64,
        diff: String,
    },
    ToolResult {
        id: String,
        name: String,
        ok: bool,
        output: String,
        truncated: bool,
        duration_ms: u64,
        /// Instruction-like text the untrusted-content rules found in a
        /// third-party result (docs/protocol.md); absent when none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        flags: Vec<Flag>,
    },
    TodosUpdate {
        todos: Vec<Todo>,
    },
    HitlRequest {
        id: String,
        kind: HitlKind,
        /// RFC 3339; null when there is none.
        deadline: Option<String>,
        default_decision: Decision,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        question: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        options: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        action: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    HitlResolved {
        id: String,
        decision: Decision,
        by: ResolvedBy,
    },
    PlanConfirmed {
        plan: String,
    },
    ModeChanged {
        from: Mode,
        to: Mode,
    },
    UserMessage {
        text: String,
        source: MessageSource,
    },
    UsageUpdate {
        input_tokens: u64,
        output_tokens: u64,
        cached_input_tokens: u64,
        reasoning_tokens: u64,
        total_input_tokens: u64,
        total_output_tokens: u64,
        /// This call's cost in US dollars, when the model table has prices.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
        /// The session's cost so far.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total_cost_usd: Option<f64>,
    },
    CheckpointSaved {
        iteration: u32,
        checkpoint: String,
        files_changed: u64,
    },
    CheckpointRestored {
        iteration: u32,
        checkpoint: String,
    },
    Summarizing {
        tokens_before: u64,
    },
    Summarized {
        tokens_before: u64,
        tokens_after: u64,
    },
    CommandAck {
        command: String,
        ok: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    Error {
        code: ErrorCode,
        message: String,
        fatal: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attempt: Option<u32>,
    },
    SessionEnd {
        exit_reason: ExitReason,
        iterations: u32,
        duration_ms: u64,
        total_input_tokens: u64,
        total_output_tokens: u64,
        total_cached_input_tokens: u64,
        total_reasoning_tokens: u64,
        /// The session's cost in US dollars, when the model table has
        /// prices.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
    },
}

impl Event {
    /// A non-fatal `error` event; the session goes on.
    pub fn warning(code: ErrorCode, message: impl Into<String>) -> Self {
        Event::Error {
            code,
            message: message.into(),
            fatal: false,
            attempt: None,
        }
    }
}

/// Every `code` an `error` event can carry (docs/protocol.md has the
/// table). One enum, so a new code is a new variant that the docs and the
/// schema see, never a string made up at the place of the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    BadCommand,
    ModelRateLimited,
    ModelServerError,
    ModelBadRequest,
    ModelAuth,
    ContextTooLong,
    ModelUnreachable,
    ModelIdleTimeout,
    ModelStreamCut,
    ModelStreamMalformed,
    ModelProviderError,
    ModelSetup,
    Script,
    Internal,
    LoginEnv,
    HitlDir,
    CompactionFailed,
    CheckpointFailed,
    CheckpointSyncSlow,
    RestoreFailed,
    RollbackFailed,
    // The loop breaker (docs/protocol.md, "Loops"): a call not run
    // because it was made too often, or failed too often; an answer cut
    // because it repeated itself; the session ended because a tool kept
    // failing. (Plain comments: a doc comment would split the schema's enum.)
    LoopIdenticalCalls,
    LoopIdenticalFailures,
    LoopToolFailures,
    LoopRepeatedText,
    LoopStuck,
    // A model kept failing and its fallback from the model table takes
    // over.
    ModelFallback,
    // A skill's SKILL.md could not be read or parsed; it is skipped.
    SkillInvalid,
    // MCP servers (docs/protocol.md, "MCP servers"): one did not start
    // (could not be run, or failed its handshake), did not list its tools
    // within its startup timeout, ended while the session ran, or did not
    // answer a call within its tool timeout. Never fatal.
    McpServerFailed,
    McpServerTimeout,
    McpServerCrashed,
    McpCallTimeout,
    // The files that define the MCP servers changed and cannot be used
    // (not valid, unreadable); the running servers are kept.
    McpConfigInvalid,
}

/// Which of the contract's promises about commands the kernel keeps in
/// this session, and which only the agent's own checks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxReport {
    /// The kernel's Landlock ABI version; null where there is no Landlock.
    pub landlock_abi: Option<u32>,
    /// What keeps `exec` read-only in plan mode.
    pub plan_exec: PlanExecGuard,
    /// Whether commands can write the state folder (journal, checkpoints).
    pub state_folder: StateFolderAccess,
    /// The token is gone from the agent's environment block and the agent
    /// is not dumpable: no command can read it from `/proc`.
    pub token_hidden: bool,
    /// The agent adopts what its commands leave behind, so a cancel and
    /// the end of the session kill every process they started.
    pub subreaper: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PlanExecGuard {
    /// A Landlock ruleset (writes only to a private temp folder), and the
    /// command classifier in front of it.
    Landlock,
    /// The command classifier alone.
    #[default]
    Classifier,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StateFolderAccess {
    /// Landlock keeps every command from writing it.
    ReadOnly,
    /// Commands run as the same user and could write it.
    #[default]
    Writable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Normal,
    Plan,
    Implement,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ActivityKind {
    ReadingFile,
    WritingFile,
    EditingFile,
    RunningCommand,
    Searching,
    CreatingTodos,
    AskingUser,
    Planning,
    FetchingUrl,
    Thinking,
    Summarizing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OutputStream {
    Stdout,
    Stderr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FileOp {
    Create,
    Update,
    Delete,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Todo {
    pub id: String,
    pub content: String,
    pub status: TodoStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// One hit of the untrusted-content rules in a tool's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Flag {
    /// The rule's id in the versioned rule table.
    pub rule: String,
    /// The text that matched, with a little around it, hidden characters
    /// shown as `[U+XXXX]`.
    pub excerpt: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HitlKind {
    AskUser,
    Plan,
    Approval,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ResolvedBy {
    Stdin,
    File,
    Timeout,
    Cancel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MessageSource {
    Prompt,
    Inject,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ExitReason {
    Completed,
    Cancelled,
    MaxIterations,
    Error,
    RolledBack,
    // The loop breaker ended it: one tool kept failing.
    Stuck,
}

impl ExitReason {
    /// The process exit status for this reason (documented in docs/protocol.md).
    pub fn exit_code(self) -> u8 {
        match self {
            ExitReason::Completed => 0,
            ExitReason::Error => 1,
            ExitReason::MaxIterations => 3,
            ExitReason::RolledBack => 4,
            ExitReason::Stuck => 5,
            ExitReason::Cancelled => 130,
        }
    }
}

display_as_serde!(
    ErrorCode,
    PlanExecGuard,
    StateFolderAccess,
    Mode,
    ActivityKind,
    OutputStream,
    FileOp,
    TodoStatus,
    HitlKind,
    ResolvedBy,
    MessageSource,
    ExitReason,
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn variants_serialize_with_kebab_type_and_snake_fields() {
        let event = Event::UsageUpdate {
            input_tokens: 1,
            output_tokens: 2,
            cached_input_tokens: 3,
            reasoning_tokens: 4,
            total_input_tokens: 5,
            total_output_tokens: 6,
            cost_usd: None,
            total_cost_usd: None,
        };
        assert_eq!(
            serde_json::to_value(&event).unwrap(),
            json!({"type": "usage-update", "input_tokens": 1, "output_tokens": 2,
                   "cached_input_tokens": 3, "reasoning_tokens": 4,
                   "total_input_tokens": 5, "total_output_tokens": 6})
        );
    }

    #[test]
    fn unknown_fields_are_refused() {
        let line = json!({"type": "text-delta", "delta": "x", "iteration": 1, "extra": true});
        assert!(serde_json::from_value::<Event>(line).is_err());
    }

    #[test]
    fn display_is_the_wire_spelling() {
        assert_eq!(ExitReason::MaxIterations.to_string(), "max-iterations");
        assert_eq!(ActivityKind::FetchingUrl.to_string(), "fetching-url");
        assert_eq!(TodoStatus::InProgress.to_string(), "in_progress");
        assert_eq!(format!("{:<10}|", Mode::Plan), "plan      |");
        assert_eq!(
            ErrorCode::CheckpointSyncSlow.to_string(),
            "checkpoint-sync-slow"
        );
    }

    #[test]
    fn todo_status_uses_contract_spelling() {
        assert_eq!(
            serde_json::to_value(TodoStatus::InProgress).unwrap(),
            json!("in_progress")
        );
    }
}

// The agent's wire protocol (docs/protocol.md) as TypeScript declarations.
// Generated from docs/protocol.schema.json, itself generated from the Rust
// types in src/protocol/, by `UPDATE_SCHEMA=1 cargo test --lib schema`.
// Do not edit: that test fails while this file differs from what it makes.

/**
 * One line on stdout: its `type`, the `_seq` and `ts` that the writer
 * stamps on every line, and the fields of its type.
 */
export type Event =
  | SessionStartEvent
  | ToolsChangedEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ActivityEvent
  | ToolCallStartEvent
  | ExecLogEvent
  | FileDeltaEvent
  | FileCompleteEvent
  | ToolResultEvent
  | TodosUpdateEvent
  | HitlRequestEvent
  | HitlResolvedEvent
  | PlanConfirmedEvent
  | ModeChangedEvent
  | UserMessageEvent
  | UsageUpdateEvent
  | CheckpointSavedEvent
  | CheckpointRestoredEvent
  | SummarizingEvent
  | SummarizedEvent
  | CommandAckEvent
  | ErrorEvent
  | SessionEndEvent;

export interface SessionStartEvent {
  type: "session-start";
  _seq: Seq;
  ts: Timestamp;
  session_id: string;
  model: string;
  mode: Mode;
  version: string;
  protocol: number;
  work_dir: string;
  tools: string[];
  resumed: boolean;
  /**
   * What confines the commands of this session (an extension of
   * the contract; absent in journals written before it).
   */
  sandbox: SandboxReport;
  /**
   * Version of the masking rule table (docs/protocol.md).
   */
  redaction_rules: number;
  /**
   * Version of the untrusted-content rule table, so a flag in a
   * journal can be read against the table that raised it.
   */
  untrusted_rules: number;
}

/**
 * The tools offered changed since `session-start` or the last
 * `tools-changed` (an MCP server came, went or was restarted, the
 * mode changed, the MCP gate let more tools in): the whole list, and
 * what came and went. Written before the model call that offers it.
 */
export interface ToolsChangedEvent {
  type: "tools-changed";
  _seq: Seq;
  ts: Timestamp;
  tools: string[];
  added: string[];
  removed: string[];
}

export interface TextDeltaEvent {
  type: "text-delta";
  _seq: Seq;
  ts: Timestamp;
  delta: string;
  iteration: number;
}

export interface ReasoningDeltaEvent {
  type: "reasoning-delta";
  _seq: Seq;
  ts: Timestamp;
  delta: string;
  iteration: number;
}

export interface ActivityEvent {
  type: "activity";
  _seq: Seq;
  ts: Timestamp;
  activity: ActivityKind;
  tool_call_id?: string;
}

export interface ToolCallStartEvent {
  type: "tool-call-start";
  _seq: Seq;
  ts: Timestamp;
  id: string;
  name: string;
  /**
   * Always an object (`{}` when the model sent arguments that are not one).
   */
  args: Record<string, unknown>;
  iteration: number;
}

export interface ExecLogEvent {
  type: "exec-log";
  _seq: Seq;
  ts: Timestamp;
  id: string;
  stream: OutputStream;
  data: string;
}

export interface FileDeltaEvent {
  type: "file-delta";
  _seq: Seq;
  ts: Timestamp;
  id: string;
  path: string;
  delta: string;
}

export interface FileCompleteEvent {
  type: "file-complete";
  _seq: Seq;
  ts: Timestamp;
  id: string;
  path: string;
  op: FileOp;
  bytes: number;
  diff: string;
}

export interface ToolResultEvent {
  type: "tool-result";
  _seq: Seq;
  ts: Timestamp;
  id: string;
  name: string;
  ok: boolean;
  output: string;
  truncated: boolean;
  duration_ms: number;
  /**
   * Instruction-like text the untrusted-content rules found in a
   * third-party result (docs/protocol.md); absent when none.
   */
  flags?: Flag[];
}

export interface TodosUpdateEvent {
  type: "todos-update";
  _seq: Seq;
  ts: Timestamp;
  todos: Todo[];
}

export interface HitlRequestEvent {
  type: "hitl-request";
  _seq: Seq;
  ts: Timestamp;
  id: string;
  kind: HitlKind;
  /**
   * RFC 3339; null when there is none.
   */
  deadline: string | null;
  default_decision: Decision;
  question?: string;
  options?: string[];
  content?: string;
  action?: string;
  reason?: string;
}

export interface HitlResolvedEvent {
  type: "hitl-resolved";
  _seq: Seq;
  ts: Timestamp;
  id: string;
  decision: Decision;
  by: ResolvedBy;
}

export interface PlanConfirmedEvent {
  type: "plan-confirmed";
  _seq: Seq;
  ts: Timestamp;
  plan: string;
}

export interface ModeChangedEvent {
  type: "mode-changed";
  _seq: Seq;
  ts: Timestamp;
  from: Mode;
  to: Mode;
}

export interface UserMessageEvent {
  type: "user-message";
  _seq: Seq;
  ts: Timestamp;
  text: string;
  source: MessageSource;
}

export interface UsageUpdateEvent {
  type: "usage-update";
  _seq: Seq;
  ts: Timestamp;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
  total_input_tokens: number;
  total_output_tokens: number;
  /**
   * This call's cost in US dollars, when the model table has prices.
   */
  cost_usd?: number;
  /**
   * The session's cost so far.
   */
  total_cost_usd?: number;
}

export interface CheckpointSavedEvent {
  type: "checkpoint-saved";
  _seq: Seq;
  ts: Timestamp;
  iteration: number;
  checkpoint: string;
  files_changed: number;
}

export interface CheckpointRestoredEvent {
  type: "checkpoint-restored";
  _seq: Seq;
  ts: Timestamp;
  iteration: number;
  checkpoint: string;
}

export interface SummarizingEvent {
  type: "summarizing";
  _seq: Seq;
  ts: Timestamp;
  tokens_before: number;
}

export interface SummarizedEvent {
  type: "summarized";
  _seq: Seq;
  ts: Timestamp;
  tokens_before: number;
  tokens_after: number;
}

export interface CommandAckEvent {
  type: "command-ack";
  _seq: Seq;
  ts: Timestamp;
  command: string;
  ok: boolean;
  reason?: string;
}

export interface ErrorEvent {
  type: "error";
  _seq: Seq;
  ts: Timestamp;
  code: ErrorCode;
  message: string;
  fatal: boolean;
  attempt?: number;
}

export interface SessionEndEvent {
  type: "session-end";
  _seq: Seq;
  ts: Timestamp;
  exit_reason: ExitReason;
  iterations: number;
  duration_ms: number;
  total_input_tokens: number;
  total_output_tokens: number;
  total_cached_input_tokens: number;
  total_reasoning_tokens: number;
  /**
   * The session's cost in US dollars, when the model table has
   * prices.
   */
  cost_usd?: number;
}

/**
 * One line on stdin. Fields a command does not know are ignored.
 */
export type Command =
  | HitlResponseCommand
  | InjectCommand
  | ConfirmPlanCommand
  | CancelCommand
  | RollbackCommand;

export interface HitlResponseCommand {
  type: "hitl-response";
  id: string;
  decision: Decision;
  data?: unknown;
}

export interface InjectCommand {
  type: "inject";
  text: string;
}

export interface ConfirmPlanCommand {
  type: "confirm-plan";
}

export interface CancelCommand {
  type: "cancel";
}

export interface RollbackCommand {
  type: "rollback";
  iteration: number;
}

export type ActivityKind =
  | "reading-file"
  | "writing-file"
  | "editing-file"
  | "running-command"
  | "searching"
  | "creating-todos"
  | "asking-user"
  | "planning"
  | "fetching-url"
  | "thinking"
  | "summarizing";

export type Decision = "approve" | "reject" | "edit";

/**
 * Every `code` an `error` event can carry (docs/protocol.md has the
 * table). One enum, so a new code is a new variant that the docs and the
 * schema see, never a string made up at the place of the error.
 */
export type ErrorCode =
  | "bad-command"
  | "model-rate-limited"
  | "model-server-error"
  | "model-bad-request"
  | "model-auth"
  | "context-too-long"
  | "model-unreachable"
  | "model-idle-timeout"
  | "model-stream-cut"
  | "model-stream-malformed"
  | "model-provider-error"
  | "model-setup"
  | "script"
  | "internal"
  | "login-env"
  | "hitl-dir"
  | "compaction-failed"
  | "checkpoint-failed"
  | "checkpoint-sync-slow"
  | "restore-failed"
  | "rollback-failed"
  | "loop-identical-calls"
  | "loop-identical-failures"
  | "loop-tool-failures"
  | "loop-repeated-text"
  | "loop-stuck"
  | "model-fallback"
  | "skill-invalid"
  | "mcp-server-failed"
  | "mcp-server-timeout"
  | "mcp-server-crashed"
  | "mcp-call-timeout"
  | "mcp-config-invalid";

export type ExitReason =
  | "completed"
  | "cancelled"
  | "max-iterations"
  | "error"
  | "rolled-back"
  | "stuck";

export type FileOp = "create" | "update" | "delete";

/**
 * One hit of the untrusted-content rules in a tool's result.
 */
export interface Flag {
  /**
   * The rule's id in the versioned rule table.
   */
  rule: string;
  /**
   * The text that matched, with a little around it, hidden characters
   * shown as `[U+XXXX]`.
   */
  excerpt: string;
}

export type HitlKind = "ask-user" | "plan" | "approval";

export type MessageSource = "prompt" | "inject";

export type Mode = "normal" | "plan" | "implement";

export type OutputStream = "stdout" | "stderr";

export type PlanExecGuard = "landlock" | "classifier";

export type ResolvedBy = "stdin" | "file" | "timeout" | "cancel";

/**
 * Which of the contract's promises about commands the kernel keeps in
 * this session, and which only the agent's own checks.
 */
export interface SandboxReport {
  /**
   * The kernel's Landlock ABI version; null where there is no Landlock.
   */
  landlock_abi: number | null;
  /**
   * What keeps `exec` read-only in plan mode.
   */
  plan_exec: PlanExecGuard;
  /**
   * Whether commands can write the state folder (journal, checkpoints).
   */
  state_folder: StateFolderAccess;
  /**
   * The token is gone from the agent's environment block and the agent
   * is not dumpable: no command can read it from `/proc`.
   */
  token_hidden: boolean;
  /**
   * The agent adopts what its commands leave behind, so a cancel and
   * the end of the session kill every process they started.
   */
  subreaper: boolean;
}

/**
 * The line's number: 1, 2, 3, ... one more for every line, no gaps; a restored session goes on counting.
 */
export type Seq = number;

export type StateFolderAccess = "read-only" | "writable";

/**
 * When the line was written: RFC 3339, UTC, milliseconds (2026-11-30T12:37:41.368Z).
 */
export type Timestamp = string;

export interface Todo {
  id: string;
  content: string;
  status: TodoStatus;
}

export type TodoStatus = "pending" | "in_progress" | "completed";

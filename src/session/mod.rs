//! The session: the iteration loop (one model call plus the tools it asked
//! for), the conversation it builds, and every way it can end.

pub mod checks;
pub mod compact;
pub mod control;
pub mod hitl;
pub mod partial_json;
mod prompt;
pub mod readonly;
pub mod todos;
pub mod turn;

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use futures_util::FutureExt;
use serde_json::Value;

use crate::model::{
    Image, Message, ModelClient, ModelRequest, ModelSpec, ToolResultMessage, ToolSpec, Usage,
};
use crate::protocol::EventWriter;
use crate::protocol::commands::Decision;
use crate::protocol::events::{
    ActivityKind, Event, ExitReason, HitlKind, MessageSource, Mode, PROTOCOL_VERSION, ResolvedBy,
};
use crate::tools::interactive::{AskUserArgs, TodoWriteArgs, WritePlanArgs};
use crate::tools::{self, EVENT_OUTPUT_LIMIT, MODEL_OUTPUT_LIMIT, Tool, ToolContext, ToolOutput};

use crate::state::checkpoint::{self, Checkpointer, Manifest, SessionState};
use crate::state::{SessionDir, StateError};
use checks::{Checks, Verdict};
pub use control::Control;
use hitl::{HitlSettings, Outcome, Request};
use todos::TodoList;

pub struct SessionConfig {
    pub session_id: String,
    pub prompt: String,
    /// The alias as given (`pro`), shown in `session-start`.
    pub model_alias: String,
    pub model: ModelSpec,
    pub mode: Mode,
    /// Canonical.
    pub work_dir: PathBuf,
    pub blocked_tools: Vec<String>,
    pub max_iterations: u32,
    pub previous_summary: Option<String>,
    pub exec: Arc<tools::exec::ExecSettings>,
    pub web: Arc<tools::web::WebSettings>,
    pub version: String,
    /// Given with the prompt (`--image`).
    pub images: Vec<Image>,
    pub checks: Checks,
    pub hitl: HitlSettings,
    pub state: StateSetup,
    pub compaction: compact::CompactionConfig,
}

/// Where the session keeps its checkpoints, and where it resumes from.
pub struct StateSetup {
    pub dir: SessionDir,
    /// Larger files are not captured in checkpoints.
    pub max_file_bytes: u64,
    pub restore: Option<RestorePoint>,
}

pub struct RestorePoint {
    pub path: PathBuf,
    pub manifest: Manifest,
}

pub struct Session {
    config: SessionConfig,
    model: ModelClient,
    events: Arc<EventWriter>,
    control: Arc<Control>,
    mode: Mode,
    offered: Vec<Tool>,
    specs: Vec<ToolSpec>,
    conversation: Vec<Message>,
    todos: TodoList,
    plan: Option<String>,
    totals: Usage,
    iterations: u32,
    model_calls: u32,
    checkpointer: Checkpointer,
}

/// Collects a summary without streaming it to the person (it is not an
/// answer); retries are still shown.
struct QuietTurn<'a> {
    builder: turn::TurnBuilder,
    events: &'a EventWriter,
}

impl crate::model::StreamSink for QuietTurn<'_> {
    fn item(&mut self, item: crate::model::StreamItem) {
        let _ = self.builder.accept(item);
    }

    fn retrying(
        &mut self,
        error: &crate::model::ModelError,
        attempt: u32,
        delay: std::time::Duration,
    ) {
        self.builder.restart();
        self.events.emit(turn::retry_event(error, attempt, delay));
    }
}

/// What running one tool call led to.
enum Step {
    Done(ToolOutput),
    /// The plan was approved: the context starts over in implement mode.
    PlanApproved(String),
}

impl Session {
    pub fn new(
        config: SessionConfig,
        model: ModelClient,
        events: Arc<EventWriter>,
        control: Arc<Control>,
    ) -> Self {
        let mode = config.mode;
        let checkpointer = Checkpointer::new(
            config.state.dir.clone(),
            &config.work_dir,
            config.state.max_file_bytes,
        );
        let mut session = Session {
            config,
            model,
            events,
            control,
            mode,
            offered: Vec::new(),
            specs: Vec::new(),
            conversation: Vec::new(),
            todos: TodoList::default(),
            plan: None,
            totals: Usage::default(),
            iterations: 0,
            model_calls: 0,
            checkpointer,
        };
        session.refresh_tools();
        session
    }

    /// The tools of the current mode, less the blocked ones.
    fn refresh_tools(&mut self) {
        let blocked = &self.config.blocked_tools;
        self.offered = Tool::ALL
            .into_iter()
            .filter(|tool| tool.offered_in(self.mode))
            .filter(|tool| !blocked.iter().any(|b| b == tool.name()))
            .collect();
        self.specs = self.offered.iter().map(|tool| tool.spec()).collect();
    }

    /// Runs to the end and returns why it ended; `session-start` is the
    /// first event written and `session-end` the last, whatever happens.
    pub async fn run(mut self) -> ExitReason {
        let started = Instant::now();
        let restore = self.config.state.restore.take();
        let resumed = restore
            .as_ref()
            .map(|point| self.resume(&point.manifest).map(|()| point));
        self.events.emit(Event::SessionStart {
            session_id: self.config.session_id.clone(),
            model: self.config.model_alias.clone(),
            mode: self.mode,
            version: self.config.version.clone(),
            protocol: PROTOCOL_VERSION,
            work_dir: self.config.work_dir.display().to_string(),
            tools: self
                .offered
                .iter()
                .map(|tool| tool.name().to_owned())
                .collect(),
            resumed: resumed.is_some(),
        });
        let reason = match resumed {
            Some(Err(err)) => {
                self.events.emit(Event::Error {
                    code: "restore-failed".to_owned(),
                    message: format!("cannot restore the checkpoint: {err}"),
                    fatal: true,
                    attempt: None,
                });
                Some(ExitReason::Error)
            }
            Some(Ok(point)) => {
                self.control.checkpoint_saved(point.manifest.iteration);
                self.events.emit(Event::CheckpointRestored {
                    iteration: point.manifest.iteration,
                    checkpoint: point.path.display().to_string(),
                });
                let images = self.config.images.clone();
                self.add_user_message(self.config.prompt.clone(), MessageSource::Prompt, images);
                None
            }
            None => {
                self.conversation.push(Message::System {
                    text: prompt::system_prompt(&self.config, self.mode),
                });
                let images = self.config.images.clone();
                self.add_user_message(self.config.prompt.clone(), MessageSource::Prompt, images);
                // Iteration 0: the work dir before the agent touched it,
                // so everything can be undone.
                self.save_checkpoint();
                None
            }
        };
        if let Some(reason) = reason {
            return self.end(started, reason);
        }

        // A bug that panics mid-session still ends the stream properly:
        // the proxy must always see `session-end`.
        let reason = match AssertUnwindSafe(self.iterate()).catch_unwind().await {
            Ok(reason) => reason,
            Err(panic) => {
                let detail = panic
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_owned());
                self.events.emit(Event::Error {
                    code: "internal".to_owned(),
                    message: format!("internal error, the session stops: {detail}"),
                    fatal: true,
                    attempt: None,
                });
                ExitReason::Error
            }
        };
        let reason = match reason {
            ExitReason::Cancelled => match self.control.take_rollback() {
                Some(iteration) => self.roll_back(iteration),
                None => {
                    self.save_checkpoint();
                    ExitReason::Cancelled
                }
            },
            ExitReason::Completed
            | ExitReason::MaxIterations
            | ExitReason::Error
            | ExitReason::RolledBack => reason,
        };
        self.end(started, reason)
    }

    fn end(&self, started: Instant, reason: ExitReason) -> ExitReason {
        self.events.emit(Event::SessionEnd {
            exit_reason: reason,
            iterations: self.iterations,
            duration_ms: tools::elapsed_ms(started),
            total_input_tokens: self.totals.input_tokens,
            total_output_tokens: self.totals.output_tokens,
            total_cached_input_tokens: self.totals.cached_input_tokens,
            total_reasoning_tokens: self.totals.reasoning_tokens,
        });
        reason
    }

    async fn iterate(&mut self) -> ExitReason {
        let cancel = self.control.cancel.clone();
        loop {
            if cancel.is_cancelled() {
                return ExitReason::Cancelled;
            }
            if self.iterations >= self.config.max_iterations {
                return ExitReason::MaxIterations;
            }
            self.iterations += 1;
            for text in self.control.take_injects() {
                self.add_user_message(text, MessageSource::Inject, Vec::new());
            }
            tokio::select! {
                () = self.compact_if_needed() => {}
                () = cancel.cancelled() => return ExitReason::Cancelled,
            }
            let called = tokio::select! {
                called = self.call_model() => called,
                () = cancel.cancelled() => return ExitReason::Cancelled,
            };
            let turn = match called {
                Ok(turn) => turn,
                Err(error) => {
                    self.events.emit(Event::Error {
                        code: error.code().to_owned(),
                        message: error.to_string(),
                        fatal: true,
                        attempt: None,
                    });
                    return ExitReason::Error;
                }
            };
            let calls = turn.tool_calls.clone();
            self.conversation.push(Message::Assistant(turn));
            if calls.is_empty() {
                self.save_checkpoint();
                if self.control.has_injects() {
                    continue;
                }
                return ExitReason::Completed;
            }
            for call in &calls {
                let result = if cancel.is_cancelled() {
                    // Every call gets a result, so a restored conversation
                    // stays valid for the provider.
                    ToolOutput::fail("not run: the session was cancelled")
                } else {
                    match self
                        .run_tool_call(&call.id, &call.name, &call.arguments)
                        .await
                    {
                        Step::Done(result) => result,
                        Step::PlanApproved(plan) => {
                            // The rest of this turn belongs to the old
                            // context, which is gone.
                            self.start_implementing(plan);
                            break;
                        }
                    }
                };
                self.conversation.push(Message::Tool(ToolResultMessage {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: tools::truncate::head_tail(&result.output, MODEL_OUTPUT_LIMIT),
                    is_error: !result.ok,
                    image: result.image,
                }));
            }
            if !cancel.is_cancelled() {
                self.save_checkpoint();
            }
        }
    }

    /// Past the threshold: `summarizing`, the middle of the conversation
    /// replaced by a summary (or, failing that, old tool outputs dropped),
    /// `summarized`.
    async fn compact_if_needed(&mut self) {
        let window = self.config.model.context_window;
        let limit = (window as f64 * self.config.compaction.threshold) as u64;
        let before = compact::estimate_tokens(&self.conversation, &self.specs);
        if before <= limit {
            return;
        }
        self.events.emit(Event::Activity {
            activity: ActivityKind::Summarizing,
            tool_call_id: None,
        });
        self.events.emit(Event::Summarizing {
            tokens_before: before,
        });
        let keep = self.config.compaction.keep_recent_turns;
        let summarised = match compact::middle(&self.conversation, keep) {
            None => Err("nothing is old enough to summarise".to_owned()),
            Some((start, end)) => {
                let transcript = compact::transcript(&self.conversation[start..end]);
                // The summariser's own input must fit the window too.
                let transcript =
                    tools::truncate::head_tail(&transcript, (window as usize).saturating_mul(2));
                self.summarise(transcript)
                    .await
                    .map(|summary| (start, end, summary))
            }
        };
        match summarised {
            Ok((start, end, summary)) => {
                let mut note = format!("## Summary of the earlier work\n\n{}", summary.trim());
                if let Some(plan) = &self.plan {
                    note.push_str(&format!("\n\n## The approved plan\n\n{plan}"));
                }
                if !self.todos.items().is_empty() {
                    note.push_str(&format!("\n\n## Todo list\n\n{}", self.todos.render()));
                }
                self.conversation.splice(
                    start..end,
                    [Message::User {
                        text: note,
                        images: Vec::new(),
                    }],
                );
            }
            Err(reason) => {
                self.events.emit(Event::warning(
                    "compaction-failed",
                    format!("no summary ({reason}); dropping the oldest tool outputs instead"),
                ));
            }
        }
        compact::drop_old_outputs(&mut self.conversation, &self.specs, limit);
        self.events.emit(Event::Summarized {
            tokens_before: before,
            tokens_after: compact::estimate_tokens(&self.conversation, &self.specs),
        });
    }

    /// One model call, no tools, for the summary text; its usage counts.
    async fn summarise(&mut self, transcript: String) -> Result<String, String> {
        let messages = [
            Message::System {
                text: compact::SUMMARY_INSTRUCTIONS.to_owned(),
            },
            Message::User {
                text: transcript,
                images: Vec::new(),
            },
        ];
        let request = ModelRequest {
            model_id: &self.config.model.model,
            messages: &messages,
            tools: &[],
            max_output_tokens: self.config.model.max_output_tokens.min(4_096),
            temperature: self.config.model.temperature,
        };
        let events = self.events.clone();
        let mut sink = QuietTurn {
            builder: turn::TurnBuilder::new(self.iterations),
            events: &events,
        };
        self.model_calls += 1;
        self.model
            .complete(&request, &mut sink)
            .await
            .map_err(|err| err.to_string())?;
        let (turn, usage) = sink.builder.finish();
        self.count_usage(usage);
        if turn.text.trim().is_empty() {
            return Err("the model returned an empty summary".to_owned());
        }
        Ok(turn.text)
    }

    fn count_usage(&mut self, usage: Usage) {
        self.totals.input_tokens += usage.input_tokens;
        self.totals.output_tokens += usage.output_tokens;
        self.totals.cached_input_tokens += usage.cached_input_tokens;
        self.totals.reasoning_tokens += usage.reasoning_tokens;
        self.events.emit(Event::UsageUpdate {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cached_input_tokens: usage.cached_input_tokens,
            reasoning_tokens: usage.reasoning_tokens,
            total_input_tokens: self.totals.input_tokens,
            total_output_tokens: self.totals.output_tokens,
        });
    }

    /// Saves the checkpoint of the current iteration and announces it. A
    /// failure is reported and the session goes on: losing undo is bad,
    /// losing the work in progress would be worse.
    fn save_checkpoint(&mut self) {
        let state = SessionState {
            session_id: &self.config.session_id,
            iteration: self.iterations,
            work_dir: &self.config.work_dir,
            model_alias: &self.config.model_alias,
            mode: self.mode,
            plan: self.plan.as_deref(),
            todos: self.todos.items(),
            todo_next_id: self.todos.last_id(),
            usage: self.totals,
            model_calls: self.model_calls,
            last_seq: self.events.next_seq().saturating_sub(1),
            conversation: &self.conversation,
        };
        match self.checkpointer.save(&state) {
            Ok((path, files_changed)) => {
                self.control.checkpoint_saved(self.iterations);
                self.events.emit(Event::CheckpointSaved {
                    iteration: self.iterations,
                    checkpoint: path.display().to_string(),
                    files_changed,
                });
            }
            Err(err) => {
                self.events.emit(Event::warning(
                    "checkpoint-failed",
                    format!(
                        "the checkpoint of iteration {} could not be saved: {err}",
                        self.iterations
                    ),
                ));
            }
        }
    }

    /// Sets the session (files included) back to a checkpoint.
    fn resume(&mut self, manifest: &Manifest) -> Result<(), StateError> {
        self.checkpointer.restore_files(manifest)?;
        self.conversation =
            checkpoint::load_conversation(self.checkpointer.snapshotter(), manifest)?;
        self.todos = TodoList::restored(manifest.todos.clone(), manifest.todo_next_id);
        self.plan = manifest.plan.clone();
        self.mode = manifest.mode;
        self.refresh_tools();
        self.totals = manifest.usage;
        self.iterations = manifest.iteration;
        self.model_calls = manifest.model_calls;
        self.model.resume_after(manifest.model_calls);
        Ok(())
    }

    /// `rollback`: the work dir and the conversation as they were after
    /// `iteration`, then the end of this process.
    fn roll_back(&mut self, iteration: u32) -> ExitReason {
        let path = checkpoint::manifest_path(&self.config.state.dir, iteration);
        let restored = checkpoint::load_manifest(&path).and_then(|manifest| self.resume(&manifest));
        match restored {
            Ok(()) => {
                self.events.emit(Event::CheckpointRestored {
                    iteration,
                    checkpoint: path.display().to_string(),
                });
                ExitReason::RolledBack
            }
            Err(err) => {
                self.events.emit(Event::Error {
                    code: "rollback-failed".to_owned(),
                    message: format!("cannot roll back to iteration {iteration}: {err}"),
                    fatal: true,
                    attempt: None,
                });
                ExitReason::Error
            }
        }
    }

    async fn call_model(
        &mut self,
    ) -> Result<crate::model::AssistantTurn, crate::model::ModelError> {
        let events = self.events.clone();
        let emit = move |event: Event| {
            events.emit(event);
        };
        let mut live = turn::LiveTurn {
            builder: turn::TurnBuilder::new(self.iterations),
            emit: &emit,
        };
        let request = ModelRequest {
            model_id: &self.config.model.model,
            messages: &self.conversation,
            tools: &self.specs,
            max_output_tokens: self.config.model.max_output_tokens,
            temperature: self.config.model.temperature,
        };
        self.model_calls += 1;
        self.model.complete(&request, &mut live).await?;
        let (turn, usage) = live.builder.finish();
        self.count_usage(usage);
        Ok(turn)
    }

    /// Announces, checks and runs one tool call, and reports its result.
    async fn run_tool_call(&mut self, id: &str, name: &str, raw_arguments: &str) -> Step {
        let started = Instant::now();
        let parsed = tools::parse_arguments(raw_arguments);
        self.events.emit(Event::ToolCallStart {
            id: id.to_owned(),
            name: name.to_owned(),
            args: parsed
                .clone()
                .unwrap_or_else(|_| Value::Object(Default::default())),
            iteration: self.iterations,
        });
        let step = match (self.resolve_tool(name), parsed) {
            (Err(refusal), _) => Step::Done(refusal),
            (Ok(_), Err(problem)) => Step::Done(ToolOutput::fail(format!(
                "{problem}: {}",
                tools::truncate::head_tail(raw_arguments, 2_000)
            ))),
            (Ok(tool), Ok(arguments)) => match self.pass_checks(id, tool, &arguments).await {
                Err(refusal) => Step::Done(refusal),
                Ok(()) if tool.runs_in_session() => {
                    self.run_session_tool(id, tool, &arguments).await
                }
                Ok(()) => {
                    let ctx = ToolContext {
                        work_dir: self.config.work_dir.clone(),
                        events: self.events.clone(),
                        cancel: self.control.cancel.clone(),
                        exec: self.config.exec.clone(),
                        web: self.config.web.clone(),
                        images_supported: self.config.model.images,
                    };
                    Step::Done(tools::run(tool, id, &arguments, &ctx).await)
                }
            },
        };
        let (ok, text) = match &step {
            Step::Done(result) => (result.ok, result.output.as_str()),
            Step::PlanApproved(_) => (true, "plan approved; continuing in implement mode"),
        };
        let (output, truncated) = tools::truncate::cap(text, EVENT_OUTPUT_LIMIT);
        self.events.emit(Event::ToolResult {
            id: id.to_owned(),
            name: name.to_owned(),
            ok,
            output,
            truncated,
            duration_ms: tools::elapsed_ms(started),
        });
        step
    }

    /// The tool by name, if this session offers it.
    fn resolve_tool(&self, name: &str) -> Result<Tool, ToolOutput> {
        if self
            .config
            .blocked_tools
            .iter()
            .any(|blocked| blocked == name)
        {
            return Err(ToolOutput::fail(format!(
                "refused: the tool {name} is blocked in this session"
            )));
        }
        match Tool::from_name(name).filter(|tool| self.offered.contains(tool)) {
            Some(tool) => Ok(tool),
            None => Err(ToolOutput::fail(format!(
                "unknown tool {name:?} in {} mode; the tools are: {}",
                self.mode.as_str(),
                self.offered
                    .iter()
                    .map(|tool| tool.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// The chain of checks (plan mode, approval policy); asks a person
    /// when the policy says so.
    async fn pass_checks(&self, id: &str, tool: Tool, arguments: &Value) -> Result<(), ToolOutput> {
        match self.config.checks.verdict(self.mode, tool, arguments) {
            Verdict::Allow => Ok(()),
            Verdict::Deny(reason) => Err(ToolOutput::fail(reason)),
            Verdict::Ask { action, reason } => {
                let request = Request {
                    action: Some(action.clone()),
                    reason: Some(reason),
                    ..Request::default()
                };
                match self.ask_person(id, HitlKind::Approval, request).await {
                    Outcome::Answered(answer) => match answer.decision {
                        Decision::Approve | Decision::Edit => Ok(()),
                        Decision::Reject => {
                            let why = match answer.by {
                                ResolvedBy::Timeout => {
                                    "nobody approved it before the deadline".to_owned()
                                }
                                ResolvedBy::Stdin | ResolvedBy::File | ResolvedBy::Cancel => {
                                    match answer.data.get("reason").and_then(Value::as_str) {
                                        Some(reason) => format!("the person refused: {reason}"),
                                        None => "the person refused it".to_owned(),
                                    }
                                }
                            };
                            Err(ToolOutput::fail(format!("refused ({action}): {why}")))
                        }
                    },
                    Outcome::Cancelled => {
                        Err(ToolOutput::fail("not run: the session was cancelled"))
                    }
                }
            }
        }
    }

    async fn ask_person(&self, id: &str, kind: HitlKind, request: Request) -> Outcome {
        hitl::wait_for_person(
            &self.control.hitl,
            &self.config.hitl,
            &self.events,
            &self.control.cancel,
            id,
            kind,
            Decision::Reject,
            request,
        )
        .await
    }

    async fn run_session_tool(&mut self, id: &str, tool: Tool, arguments: &Value) -> Step {
        match tool {
            Tool::TodoWrite => Step::Done(match tools::parse::<TodoWriteArgs>(tool, arguments) {
                Err(fail) => fail,
                Ok(args) => match self.todos.replace(args.todos) {
                    Err(problem) => ToolOutput::fail(problem),
                    Ok(list) => {
                        self.events.emit(Event::TodosUpdate {
                            todos: list.to_vec(),
                        });
                        ToolOutput::ok(format!("todo list updated:\n{}", self.todos.render()))
                    }
                },
            }),
            Tool::AskUser => Step::Done(match tools::parse::<AskUserArgs>(tool, arguments) {
                Err(fail) => fail,
                Ok(args) => self.ask_user(id, args).await,
            }),
            Tool::WritePlan => match tools::parse::<WritePlanArgs>(tool, arguments) {
                Err(fail) => Step::Done(fail),
                Ok(args) => self.submit_plan(id, args.plan).await,
            },
            Tool::ReadFile
            | Tool::WriteFile
            | Tool::EditFile
            | Tool::ListDir
            | Tool::Glob
            | Tool::Grep
            | Tool::Exec
            | Tool::WebFetch => Step::Done(ToolOutput::fail(format!(
                "internal error: {} is not a session tool",
                tool.name()
            ))),
        }
    }

    async fn ask_user(&self, id: &str, args: AskUserArgs) -> ToolOutput {
        if args.question.trim().is_empty() {
            return ToolOutput::fail("the question is empty");
        }
        let request = Request {
            question: Some(args.question),
            options: args.options,
            ..Request::default()
        };
        match self.ask_person(id, HitlKind::AskUser, request).await {
            Outcome::Cancelled => ToolOutput::fail("not answered: the session was cancelled"),
            Outcome::Answered(answer) => match (answer.decision, answer.by) {
                (_, ResolvedBy::Timeout) => ToolOutput::ok(format!(
                    "No answer came before the deadline ({} s); the default applies: no answer. \
                     Go on with your best judgement and say what you assumed.",
                    self.config.hitl.timeout.as_secs()
                )),
                (Decision::Reject, _) => ToolOutput::ok("The user declined to answer."),
                (Decision::Approve | Decision::Edit, _) => {
                    match answer.data.get("answer").map(|value| match value {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    }) {
                        Some(text) => ToolOutput::ok(format!("The user answered: {text}")),
                        None => ToolOutput::ok("The user approved, without an answer text."),
                    }
                }
            },
        }
    }

    async fn submit_plan(&self, id: &str, plan: String) -> Step {
        if plan.trim().is_empty() {
            return Step::Done(ToolOutput::fail("the plan is empty"));
        }
        let request = Request {
            content: Some(plan.clone()),
            ..Request::default()
        };
        let answer = match self.ask_person(id, HitlKind::Plan, request).await {
            Outcome::Cancelled => {
                return Step::Done(ToolOutput::fail("not confirmed: the session was cancelled"));
            }
            Outcome::Answered(answer) => answer,
        };
        match (answer.decision, answer.by) {
            (_, ResolvedBy::Timeout) => Step::Done(ToolOutput::fail(
                "Nobody confirmed the plan before the deadline. Do not change anything; \
                 end with a summary of the plan in your answer.",
            )),
            (Decision::Approve, _) => Step::PlanApproved(plan),
            (Decision::Edit, _) => match answer.data.get("plan").and_then(Value::as_str) {
                Some(edited) if !edited.trim().is_empty() => Step::PlanApproved(edited.to_owned()),
                _ => Step::PlanApproved(plan),
            },
            (Decision::Reject, _) => {
                let feedback = answer
                    .data
                    .get("feedback")
                    .and_then(Value::as_str)
                    .unwrap_or("(no feedback given)");
                Step::Done(ToolOutput::fail(format!(
                    "The plan was rejected. Feedback: {feedback}\n\
                     Revise the plan (you are still in plan mode) and submit it again with write_plan."
                )))
            }
        }
    }

    /// `plan-confirmed`, a fresh context (system prompt, task, approved
    /// plan, todos), `mode-changed`, and every tool again.
    fn start_implementing(&mut self, plan: String) {
        self.events
            .emit(Event::PlanConfirmed { plan: plan.clone() });
        self.plan = Some(plan.clone());
        let from = self.mode;
        self.mode = Mode::Implement;
        self.refresh_tools();
        let mut task = format!("{}\n\n## The approved plan\n\n{plan}", self.config.prompt);
        if !self.todos.items().is_empty() {
            task.push_str("\n\n## Todo list\n\n");
            task.push_str(&self.todos.render());
        }
        self.conversation = vec![
            Message::System {
                text: prompt::system_prompt(&self.config, self.mode),
            },
            Message::User {
                text: task,
                images: self.config.images.clone(),
            },
        ];
        self.events.emit(Event::ModeChanged {
            from,
            to: self.mode,
        });
    }

    fn add_user_message(&mut self, text: String, source: MessageSource, images: Vec<Image>) {
        self.events.emit(Event::UserMessage {
            text: text.clone(),
            source,
        });
        self.conversation.push(Message::User { text, images });
    }
}

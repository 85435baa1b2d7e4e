//! The session: the iteration loop (one model call plus the tools it asked
//! for), the conversation it builds, and every way it can end.

mod calling;
pub mod checks;
pub mod compact;
pub mod context;
pub mod control;
mod conversation;
mod debug;
mod dispatch;
pub mod egress;
pub mod gating;
pub mod hitl;
mod login_env;
pub mod loops;
mod mcp;
pub mod partial_json;
mod people;
mod persist;
mod prompt;
pub mod readonly;
mod repeats;
mod reporting;
pub mod state;
pub mod todos;
pub mod turn;
pub mod untrusted;

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use futures_util::FutureExt;

use crate::model::{Image, Message, ModelClient, ModelSpec, ToolResultMessage, ToolSet};
use crate::protocol::EventWriter;
use crate::protocol::events::ErrorCode;
use crate::protocol::events::{Event, ExitReason, MessageSource, Mode, PROTOCOL_VERSION};
use crate::tools::{self, MODEL_OUTPUT_LIMIT, Offer, ToolOutput};

use crate::state::SessionDir;
use crate::state::checkpoint::{Checkpointer, Manifest};
use checks::Checks;
pub use control::Control;
use hitl::HitlSettings;
use state::SessionState;

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
    /// What confines commands, as `session-start` reports it.
    pub sandbox: crate::protocol::events::SandboxReport,
    /// `[secrets] model_egress`: secrets in tool output reach the model as
    /// placeholders, or in the clear.
    pub model_egress: egress::ModelEgress,
    pub loop_breaker: loops::LoopBreakerConfig,
    /// `[context] project_instructions`: `AGENTS.md` files reach the model.
    pub project_instructions: bool,
    /// The model to go on with when this one keeps failing.
    pub fallback: Option<Fallback>,
    /// Where to look for skills; `None` with `[skills] enabled = false`.
    pub skills: Option<crate::skills::discover::Roots>,
    /// `[session_search]`: the index this session keeps up, and the tool.
    pub search: Arc<tools::session_search::SearchSettings>,
    /// The repository map: its settings, the first message's map.
    pub repo_map: Arc<tools::repo_map::MapSettings>,
    /// `[debugger]`: whether the `debug` tool is offered, its idle timeout.
    pub debugger: crate::debug::DebuggerConfig,
}

/// A model table entry's `fallback`, ready to call.
pub struct Fallback {
    pub alias: String,
    pub spec: ModelSpec,
    pub client: ModelClient,
}

/// How long the end of a session waits for the disk to confirm its
/// checkpoints before it says so and ends anyway.
const DURABLE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Where the session keeps its checkpoints, and where it resumes from.
pub struct StateSetup {
    pub dir: SessionDir,
    /// Larger files are not captured in checkpoints.
    pub max_file_bytes: u64,
    pub restore: Option<RestorePoint>,
}

pub struct RestorePoint {
    pub path: PathBuf,
    pub manifest: Manifest<state::Progress>,
}

pub struct Session {
    config: SessionConfig,
    model: ModelClient,
    events: Arc<EventWriter>,
    control: Arc<Control>,
    state: SessionState,
    /// The tools of the current mode; follows `state`'s mode.
    offer: Offer,
    specs: ToolSet,
    checkpointer: Checkpointer,
    /// The checkpoint of the iteration that ended, taken and not yet
    /// written: it is written while the next model request is out
    /// (`persist.rs`).
    pending_checkpoint: Option<persist::PendingCheckpoint>,
    /// Repeated and failing calls since the last user message.
    loops: loops::LoopBreaker,
    /// Set when the loop breaker ends the session: what kept failing.
    stuck: Option<String>,
    /// The skills found at the start, and the files skipped.
    skills: Arc<crate::skills::discover::Catalog>,
    skill_problems: Vec<crate::skills::discover::Problem>,
    /// The MCP servers and their tools (`mcp.rs`).
    mcp: crate::mcp::McpManager,
    /// Sees the servers' definitions change (`None`: no reload).
    mcp_reload: Option<crate::mcp::reload::Reloader>,
    mcp_gate: gating::Gate,
    /// The tool names the front end was last told of (`session-start`,
    /// `tools-changed`).
    announced: Vec<String>,
    /// The one debug session of the `debug` tool, if any (`debug.rs`).
    debugger: crate::debug::Debugger,
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
        let loops = loops::LoopBreaker::new(config.loop_breaker.clone());
        let (skills, skill_problems) = match &config.skills {
            Some(roots) => crate::skills::discover::discover(roots),
            None => Default::default(),
        };
        let debugger = crate::debug::Debugger::new(config.debugger.clone());
        let mut session = Session {
            config,
            model,
            events,
            control,
            state: SessionState::new(mode),
            offer: Offer::new(mode, &[], Vec::new()),
            specs: ToolSet::default(),
            checkpointer,
            pending_checkpoint: None,
            loops,
            stuck: None,
            skills: Arc::new(skills),
            skill_problems,
            mcp: crate::mcp::McpManager::default(),
            mcp_reload: None,
            mcp_gate: gating::Gate::default(),
            announced: Vec::new(),
            debugger,
        };
        session.refresh_tools();
        session
    }

    /// The tools of the current mode, less the blocked ones.
    fn refresh_tools(&mut self) {
        let offer = Offer::new(
            self.state.progress.mode,
            &self.config.blocked_tools,
            self.mcp.tools(),
        );
        let offer = match self.skills.is_empty() {
            true => offer.without(tools::Tool::Skill),
            false => offer,
        };
        let offer = match self.config.search.tool {
            true => offer,
            false => offer.without(tools::Tool::SessionSearch),
        };
        let offer = match self.debugger.enabled() {
            true => offer,
            false => offer.without(tools::Tool::Debug),
        };
        let offer = self.gate_mcp_tools(offer);
        // Every iteration asks; the answer rarely changes, and the tools'
        // JSON is kept with it (`ToolSet`).
        if offer != self.offer || self.specs.is_empty() {
            self.offer = offer;
            self.specs = ToolSet::new(self.offer.specs());
        }
    }

    /// Runs to the end and returns why it ended; `session-start` is the
    /// first event written and `session-end` the last, whatever happens.
    /// Borrowed, not consumed: the process may end without tearing the
    /// session down (see `cli::main`).
    pub async fn run(&mut self) -> ExitReason {
        let started = Instant::now();
        let restore = self.config.state.restore.take();
        let resumed = restore
            .as_ref()
            .map(|point| self.resume(&point.manifest).map(|()| point));
        // `session-start` lists the servers' tools: the one wait before it.
        self.await_mcp().await;
        self.emit_session_start(resumed.is_some());
        self.control.session_started();
        // Lines that came while the servers started are acknowledged now,
        // before anything else is written.
        tokio::task::yield_now().await;
        self.report_mcp();
        self.report_skill_problems();
        if !matches!(resumed, Some(Err(_))) {
            tools::warm_up_walks();
            self.start_login_env();
        }
        let reason = match resumed {
            Some(Err(err)) => {
                self.events.emit(Event::Error {
                    code: ErrorCode::RestoreFailed,
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
                self.state.conversation.push(Message::System {
                    text: prompt::system_prompt(&self.config, self.state.progress.mode),
                });
                self.add_task();
                // Iteration 0: the work dir before the agent touched it,
                // so everything can be undone; its scan overlaps the
                // first request.
                self.defer_checkpoint();
                None
            }
        };
        if let Some(reason) = reason {
            return self.end(started, reason);
        }

        // A bug that panics mid-session still ends the stream properly:
        // the proxy must always see `session-end`.
        let reason = AssertUnwindSafe(self.iterate()).catch_unwind().await;
        // However the loop ended, the iteration it last finished is kept.
        self.flush_checkpoint();
        let reason = match reason {
            Ok(reason) => reason,
            Err(panic) => {
                let detail = panic
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_owned());
                self.events.emit(Event::Error {
                    code: ErrorCode::Internal,
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
            | ExitReason::RolledBack
            | ExitReason::Stuck => reason,
        };
        self.end(started, reason)
    }

    /// `session-start`, listing the tools as the front end now knows them.
    fn emit_session_start(&mut self, resumed: bool) {
        let tools = self.announce();
        self.events.emit(Event::SessionStart {
            session_id: self.config.session_id.clone(),
            model: self.config.model_alias.clone(),
            mode: self.state.progress.mode,
            version: self.config.version.clone(),
            protocol: PROTOCOL_VERSION,
            work_dir: self.config.work_dir.display().to_string(),
            tools,
            resumed,
            sandbox: self.config.sandbox.clone(),
            redaction_rules: crate::protocol::redact::RULES_VERSION,
            untrusted_rules: crate::session::untrusted::RULES_VERSION,
        });
    }

    fn end(&self, started: Instant, reason: ExitReason) -> ExitReason {
        // Nothing a command started outlives the session: background jobs,
        // `setsid` and `nohup` children included (the agent is their
        // subreaper). Before `session-end`, so the proxy may stop the
        // sandbox as soon as it reads it.
        self.mcp.stop_all();
        self.debugger.stop();
        tools::procs::kill_all_descendants();
        let cleaning = self.config.exec.clean_up();
        // `session-end` tells the proxy it may stop the sandbox: every
        // checkpoint announced must be on the disk by then.
        let durable = self.checkpointer.wait_durable(DURABLE_WAIT);
        if let Some(cleaning) = cleaning {
            let _ = cleaning.join();
        }
        if !durable {
            self.events.emit(Event::warning(
                ErrorCode::CheckpointSyncSlow,
                format!(
                    "the disk has not confirmed the last checkpoints after {} s; they survive this process but maybe not a power cut",
                    DURABLE_WAIT.as_secs()
                ),
            ));
        }
        self.events.emit(Event::SessionEnd {
            exit_reason: reason,
            iterations: self.state.iterations,
            duration_ms: tools::elapsed_ms(started),
            total_input_tokens: self.state.progress.usage.input_tokens,
            total_output_tokens: self.state.progress.usage.output_tokens,
            total_cached_input_tokens: self.state.progress.usage.cached_input_tokens,
            total_reasoning_tokens: self.state.progress.usage.reasoning_tokens,
            cost_usd: self.config.model.prices().cost(&self.state.progress.usage),
        });
        reason
    }

    async fn iterate(&mut self) -> ExitReason {
        let cancel = self.control.cancel.clone();
        loop {
            if cancel.is_cancelled() {
                return ExitReason::Cancelled;
            }
            if self.state.iterations >= self.config.max_iterations {
                return ExitReason::MaxIterations;
            }
            self.state.iterations += 1;
            for text in self.control.take_injects() {
                self.add_user_message(text, MessageSource::Inject, Vec::new());
            }
            self.report_mcp();
            self.reload_mcp().await;
            self.refresh_tools();
            self.announce_tools();
            tokio::select! {
                () = self.compact_if_needed() => {}
                () = cancel.cancelled() => return ExitReason::Cancelled,
            }
            let called = tokio::select! {
                called = self.call_model_fitting() => called,
                () = cancel.cancelled() => return ExitReason::Cancelled,
            };
            let (turn, told) = match called {
                Ok(called) => called,
                Err(error) => {
                    self.events.emit(Event::Error {
                        code: error.code(),
                        message: error.to_string(),
                        fatal: true,
                        attempt: None,
                    });
                    return ExitReason::Error;
                }
            };
            let calls = turn.tool_calls.clone();
            self.state.conversation.push(Message::Assistant(turn));
            if calls.is_empty() {
                // An answer cut for repeating itself: the model is told
                // and goes on.
                if let Some(told) = &told {
                    self.state.conversation.push(Message::User {
                        text: told.clone(),
                        images: Vec::new(),
                    });
                }
                self.save_checkpoint();
                if self.control.has_injects() || told.is_some() {
                    continue;
                }
                return ExitReason::Completed;
            }
            for call in &calls {
                let result = if let Some(why) = self.not_running() {
                    // Every call gets a result, so a restored conversation
                    // stays valid for the provider.
                    ToolOutput::fail(why)
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
                let content = self.for_model(&call.name, &result.output);
                self.state
                    .conversation
                    .push(Message::Tool(ToolResultMessage {
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        content: tools::truncate::head_tail(&content, MODEL_OUTPUT_LIMIT),
                        is_error: !result.ok,
                        image: result.image,
                    }));
            }
            if let Some(stuck) = self.end_stuck() {
                return stuck;
            }
            if !cancel.is_cancelled() {
                self.defer_checkpoint();
            }
        }
    }

    fn add_user_message(&mut self, text: String, source: MessageSource, images: Vec<Image>) {
        // The user speaks again: what a flagged page asked for no longer
        // needs a person.
        self.state.progress.taint = None;
        self.events.emit(Event::UserMessage {
            text: text.clone(),
            source,
        });
        self.loops.user_spoke();
        self.config.repo_map.note_words(&text);
        self.state.conversation.push(Message::User { text, images });
    }

    /// The task of a new session: the person's prompt (what the event
    /// shows), after the environment, the project's instructions and the
    /// summary of earlier work (what the model reads first).
    fn add_task(&mut self) {
        let config = &self.config;
        let instructions = match config.project_instructions {
            true => context::at_root(&config.work_dir),
            false => Vec::new(),
        };
        let skills = crate::skills::listing::block(
            &self.skills.skills,
            crate::skills::listing::budget_bytes(config.model.context_window),
        );
        let text = context::first_message(
            &context::environment(&config.work_dir, &config.exec.shell),
            &instructions,
            &skills,
            &config.repo_map.context_block(),
            config.previous_summary.as_deref(),
            &config.prompt,
        );
        self.state.progress.instructions = instructions;
        self.events.emit(Event::UserMessage {
            text: config.prompt.clone(),
            source: MessageSource::Prompt,
        });
        self.loops.user_spoke();
        let images = config.images.clone();
        self.state.conversation.push(Message::User { text, images });
    }

    /// The `SKILL.md` files that were skipped, each a warning: the session
    /// goes on with the other skills.
    fn report_skill_problems(&mut self) {
        for problem in std::mem::take(&mut self.skill_problems) {
            self.events.emit(Event::warning(
                ErrorCode::SkillInvalid,
                format!(
                    "skipped the skill {}: {}",
                    problem.path.display(),
                    problem.reason
                ),
            ));
        }
    }

    /// The instruction files of the folders on the way to what a tool
    /// worked on, the first time the model goes there.
    fn instructions_on_the_way(&mut self, target: &str) -> String {
        if !self.config.project_instructions {
            return String::new();
        }
        let found = context::on_the_way_to(
            &self.config.work_dir,
            target,
            &self.state.progress.instructions,
        );
        let blocks: String = found
            .iter()
            .map(|file| format!("\n\n{}", file.block()))
            .collect();
        self.state.progress.instructions.extend(found);
        blocks
    }
}

//! The session: the iteration loop (one model call plus the tools it asked
//! for), the conversation it builds, and every way it can end.

pub mod control;
pub mod hitl;
pub mod partial_json;
mod prompt;
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
use crate::protocol::events::{Event, ExitReason, MessageSource, Mode, PROTOCOL_VERSION};
use crate::tools::{self, EVENT_OUTPUT_LIMIT, MODEL_OUTPUT_LIMIT, Tool, ToolContext, ToolOutput};

pub use control::Control;

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
}

pub struct Session {
    config: SessionConfig,
    model: ModelClient,
    events: Arc<EventWriter>,
    control: Arc<Control>,
    offered: Vec<Tool>,
    specs: Vec<ToolSpec>,
    conversation: Vec<Message>,
    totals: Usage,
    iterations: u32,
}

impl Session {
    pub fn new(
        config: SessionConfig,
        model: ModelClient,
        events: Arc<EventWriter>,
        control: Arc<Control>,
    ) -> Self {
        let offered: Vec<Tool> = Tool::ALL
            .into_iter()
            .filter(|tool| !config.blocked_tools.iter().any(|b| b == tool.name()))
            .collect();
        let specs = offered.iter().map(|tool| tool.spec()).collect();
        Session {
            config,
            model,
            events,
            control,
            offered,
            specs,
            conversation: Vec::new(),
            totals: Usage::default(),
            iterations: 0,
        }
    }

    /// Runs to the end and returns why it ended; `session-start` is the
    /// first event written and `session-end` the last, whatever happens.
    pub async fn run(mut self) -> ExitReason {
        let started = Instant::now();
        self.events.emit(Event::SessionStart {
            session_id: self.config.session_id.clone(),
            model: self.config.model_alias.clone(),
            mode: self.config.mode,
            version: self.config.version.clone(),
            protocol: PROTOCOL_VERSION,
            work_dir: self.config.work_dir.display().to_string(),
            tools: self
                .offered
                .iter()
                .map(|tool| tool.name().to_owned())
                .collect(),
            resumed: false,
        });
        self.conversation.push(Message::System {
            text: prompt::system_prompt(&self.config),
        });
        let images = std::mem::take(&mut self.config.images);
        self.add_user_message(self.config.prompt.clone(), MessageSource::Prompt, images);

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
                    self.run_tool_call(&call.id, &call.name, &call.arguments)
                        .await
                };
                self.conversation.push(Message::Tool(ToolResultMessage {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: tools::truncate::head_tail(&result.output, MODEL_OUTPUT_LIMIT),
                    is_error: !result.ok,
                    image: result.image,
                }));
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
        self.model.complete(&request, &mut live).await?;
        let (turn, usage) = live.builder.finish();
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
        Ok(turn)
    }

    /// Announces, checks and runs one tool call, and reports its result.
    async fn run_tool_call(&self, id: &str, name: &str, raw_arguments: &str) -> ToolOutput {
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
        let result = match (self.check_tool(name), parsed) {
            (Err(refusal), _) => refusal,
            (Ok(_), Err(problem)) => ToolOutput::fail(format!(
                "{problem}: {}",
                tools::truncate::head_tail(raw_arguments, 2_000)
            )),
            (Ok(tool), Ok(arguments)) => {
                let ctx = ToolContext {
                    work_dir: self.config.work_dir.clone(),
                    events: self.events.clone(),
                    cancel: self.control.cancel.clone(),
                    exec: self.config.exec.clone(),
                    web: self.config.web.clone(),
                    images_supported: self.config.model.images,
                };
                tools::run(tool, id, &arguments, &ctx).await
            }
        };
        let (output, truncated) = tools::truncate::cap(&result.output, EVENT_OUTPUT_LIMIT);
        self.events.emit(Event::ToolResult {
            id: id.to_owned(),
            name: name.to_owned(),
            ok: result.ok,
            output,
            truncated,
            duration_ms: tools::elapsed_ms(started),
        });
        result
    }

    /// The chain every call passes before it runs. Later checks (approval
    /// policy, plan mode) join here.
    fn check_tool(&self, name: &str) -> Result<Tool, ToolOutput> {
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
                "unknown tool {name:?}; the tools are: {}",
                self.offered
                    .iter()
                    .map(|tool| tool.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    fn add_user_message(&mut self, text: String, source: MessageSource, images: Vec<Image>) {
        self.events.emit(Event::UserMessage {
            text: text.clone(),
            source,
        });
        self.conversation.push(Message::User { text, images });
    }
}

//! One tool call: announced, held to the loop breaker and the checks,
//! run (the session's own tools here, the others in the registry),
//! screened when its result is third-party content, and reported.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::{Session, Step, loops, reporting, untrusted};
use crate::protocol::events::Event;
use crate::tools::{self, BadCall, Call, EVENT_OUTPUT_LIMIT, ToolContext, ToolOutput};

impl Session {
    /// Announces, checks and runs one tool call, and reports its result.
    pub(super) async fn run_tool_call(
        &mut self,
        id: &str,
        name: &str,
        raw_arguments: &str,
    ) -> Step {
        let started = Instant::now();
        let parsed = tools::parse_arguments(raw_arguments);
        self.events.emit(Event::ToolCallStart {
            id: id.to_owned(),
            name: name.to_owned(),
            args: parsed
                .clone()
                .unwrap_or_else(|_| Value::Object(Default::default())),
            iteration: self.state.iterations,
        });
        let loop_args = loops::loop_args(&parsed, raw_arguments);
        let checked = self.loop_check(name, &loop_args);
        let ran = checked.is_ok();
        self.let_in_held_back(name);
        // An unknown or blocked tool is the better answer than the JSON
        // of its arguments.
        let call = self.offer.admit(name).and_then(|()| match &parsed {
            Ok(arguments) => self.offer.parse(name, &self.for_tool(name, arguments)),
            Err(problem) => Err(BadCall(format!(
                "{problem}: {}",
                tools::truncate::head_tail(raw_arguments, 2_000)
            ))),
        });
        // A call the loop breaker holds back is answered by it alone.
        let call = checked.and(call);
        let mut step = match (call, &parsed) {
            (Ok(call), Ok(arguments)) => match self.pass_checks(id, &call, arguments).await {
                Err(refusal) => Step::Done(refusal),
                Ok(()) => self.dispatch(id, call).await,
            },
            (Err(BadCall(refusal)), _) => Step::Done(ToolOutput::fail(refusal)),
            (Ok(_), Err(problem)) => Step::Done(ToolOutput::fail(problem.clone())),
        };
        let flags = self.screen_untrusted(&mut step).await;
        let (ok, text) = match &step {
            Step::Done(result) => (result.ok, result.output.as_str()),
            Step::PlanApproved(_) => (true, "plan approved; continuing in implement mode"),
        };
        if ran {
            self.loops.after(name, &loop_args, ok, text);
        }
        // Masked whole, then capped: a cap through the middle of a secret
        // would leave a half that no rule recognises.
        let masked = self.events.redactor().redact(text);
        let (output, truncated) = tools::truncate::cap(&masked, EVENT_OUTPUT_LIMIT);
        self.events.emit(Event::ToolResult {
            id: id.to_owned(),
            name: name.to_owned(),
            ok,
            output,
            truncated,
            duration_ms: tools::elapsed_ms(started),
            flags,
        });
        step
    }

    /// Runs a call that passed its checks: the session's own tools here,
    /// the others in the tool registry, reporting through the events.
    async fn dispatch(&mut self, id: &str, call: Call) -> Step {
        self.note_call(&call);
        untrusted::prepare_for(&call);
        match call {
            Call::TodoWrite(args) => Step::Done(self.write_todos(args)),
            Call::AskUser(args) => Step::Done(self.ask_user(id, args).await),
            Call::WritePlan(args) => self.submit_plan(id, args.plan).await,
            Call::ToolSearch(args) => Step::Done(self.search_tools(&args)),
            Call::Runtime(call) => Step::Done(self.call_mcp(call).await),
            Call::Debug(args) => Step::Done(self.debug(id, args).await),
            call => {
                let ctx = ToolContext {
                    work_dir: self.config.work_dir.clone(),
                    report: Arc::new(reporting::CallEvents {
                        events: self.events.clone(),
                        call_id: id.to_owned(),
                    }),
                    cancel: self.control.cancel.clone(),
                    exec: self.config.exec.clone(),
                    web: self.config.web.clone(),
                    mode: self.state.progress.mode,
                    images_supported: self.config.model.images,
                    skills: self.skills.clone(),
                    search: self.config.search.clone(),
                    repo_map: self.config.repo_map.clone(),
                };
                let target = call.target().map(str::to_owned);
                let mut result = tools::run(call, &ctx).await;
                if let (true, Some(target)) = (result.ok, target) {
                    let blocks = self.instructions_on_the_way(&target);
                    result.output.push_str(&blocks);
                }
                Step::Done(result)
            }
        }
    }
}

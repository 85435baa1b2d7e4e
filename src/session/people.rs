//! People in the loop, seen from the session: the checks a tool call
//! passes (asking a person when the policy says so), and the tools that
//! wait for a person or change the session's own state (`ask_user`,
//! `write_plan`, `todo_write`).

use serde_json::Value;

use super::checks::Verdict;
use super::hitl::{self, Outcome, Request};
use super::{Session, Step, prompt};
use crate::protocol::commands::Decision;
use crate::protocol::events::{HitlKind, ResolvedBy};
use crate::tools::interactive::{AskUserArgs, TodoWriteArgs};
use crate::tools::{Call, ToolOutput};

impl Session {
    /// The chain of checks (plan mode, approval policy); asks a person
    /// when the policy says so.
    pub(super) async fn pass_checks(
        &self,
        id: &str,
        call: &Call,
        arguments: &Value,
    ) -> Result<(), ToolOutput> {
        match self.config.checks.verdict(
            self.state.progress.mode,
            self.state.progress.taint.as_ref(),
            call,
            arguments,
        ) {
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

    pub(super) async fn ask_person(&self, id: &str, kind: HitlKind, request: Request) -> Outcome {
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

    pub(super) fn write_todos(&mut self, args: TodoWriteArgs) -> ToolOutput {
        match self.state.replace_todos(args.todos) {
            Err(problem) => ToolOutput::fail(problem),
            Ok(event) => {
                self.events.emit(event);
                let list = self.state.progress.todos.render();
                ToolOutput::ok(format!("todo list updated:\n{list}"))
            }
        }
    }

    pub(super) async fn ask_user(&self, id: &str, args: AskUserArgs) -> ToolOutput {
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

    pub(super) async fn submit_plan(&self, id: &str, plan: String) -> Step {
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
    pub(super) fn start_implementing(&mut self, plan: String) {
        let config = &self.config;
        let events = self
            .state
            .approve_plan(plan, |mode| prompt::system_prompt(config, mode));
        self.refresh_tools();
        for event in events {
            self.events.emit(event);
        }
    }
}

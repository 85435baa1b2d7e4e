//! A readable rendering of the event stream for a person at a terminal
//! (`--format text`). Same events, same order; only the look differs.

use super::events::{ErrorCode, Event, MessageSource, OutputStream};

/// Remembers whether streamed text left the cursor mid-line, so the next
/// non-text event starts on a fresh line.
#[derive(Default)]
pub struct TextRenderer {
    mid_line: bool,
    streaming: Option<Streaming>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Streaming {
    Text,
    Reasoning,
}

impl TextRenderer {
    /// The text to print for an event, or `None` for events a person does
    /// not need to see (acks of accepted commands).
    pub fn render(&mut self, event: &Event) -> Option<String> {
        match event {
            Event::TextDelta { delta, .. } => Some(self.stream(Streaming::Text, delta)),
            Event::ReasoningDelta { delta, .. } => Some(self.stream(Streaming::Reasoning, delta)),
            Event::FileDelta { .. } => None,
            Event::CommandAck { ok: true, .. } => None,
            other => {
                let body = describe(other)?;
                let mut out = self.break_line();
                out.push_str(&body);
                out.push('\n');
                Some(out)
            }
        }
    }

    fn stream(&mut self, kind: Streaming, delta: &str) -> String {
        let mut out = String::new();
        if self.streaming != Some(kind) {
            out.push_str(&self.break_line());
            out.push_str(match kind {
                Streaming::Text => "",
                Streaming::Reasoning => "(thinking) ",
            });
            self.streaming = Some(kind);
        }
        out.push_str(delta);
        if !delta.is_empty() {
            self.mid_line = !delta.ends_with('\n');
        }
        out
    }

    fn break_line(&mut self) -> String {
        self.streaming = None;
        if std::mem::take(&mut self.mid_line) {
            "\n".to_owned()
        } else {
            String::new()
        }
    }
}

/// One arm per family of events, so a new event does not compile until it
/// is placed in one; each family's function describes its own events (and
/// nothing for any other: `describe` sends it none).
fn describe(event: &Event) -> Option<String> {
    match event {
        Event::SessionStart { .. }
        | Event::ToolsChanged { .. }
        | Event::UsageUpdate { .. }
        | Event::CommandAck { .. }
        | Event::Error { .. }
        | Event::SessionEnd { .. } => session_line(event),
        Event::Activity { .. }
        | Event::ToolCallStart { .. }
        | Event::ExecLog { .. }
        | Event::FileComplete { .. }
        | Event::ToolResult { .. } => tool_line(event),
        Event::UserMessage { .. }
        | Event::TodosUpdate { .. }
        | Event::HitlRequest { .. }
        | Event::HitlResolved { .. }
        | Event::PlanConfirmed { .. }
        | Event::ModeChanged { .. } => person_line(event),
        Event::CheckpointSaved { .. }
        | Event::CheckpointRestored { .. }
        | Event::Summarizing { .. }
        | Event::Summarized { .. } => context_line(event),
        Event::TextDelta { .. } | Event::ReasoningDelta { .. } | Event::FileDelta { .. } => None,
    }
}

/// The session's frame: its start and end, token use, errors, refused
/// commands.
fn session_line(event: &Event) -> Option<String> {
    let line = match event {
        Event::SessionStart {
            session_id,
            model,
            mode,
            version,
            work_dir,
            tools,
            resumed,
            ..
        } => format!(
            "== agent {version} | session {session_id}{} | model {model} | mode {} | {work_dir}\n   tools: {}",
            if *resumed { " (resumed)" } else { "" },
            mode,
            tools.join(", ")
        ),
        Event::ToolsChanged { added, removed, .. } => {
            let mut parts = Vec::new();
            if !added.is_empty() {
                parts.push(format!("+ {}", added.join(", ")));
            }
            if !removed.is_empty() {
                parts.push(format!("- {}", removed.join(", ")));
            }
            format!("   tools changed: {}", parts.join("; "))
        }
        Event::UsageUpdate {
            input_tokens,
            output_tokens,
            total_input_tokens,
            total_output_tokens,
            total_cost_usd,
            ..
        } => format!(
            "   tokens: {input_tokens} in / {output_tokens} out (session {total_input_tokens} / {total_output_tokens}{})",
            dollars(*total_cost_usd)
        ),
        Event::CommandAck {
            command, reason, ..
        } => format!(
            "!! command {command} refused: {}",
            reason.as_deref().unwrap_or("")
        ),
        Event::Error {
            code,
            message,
            fatal,
            attempt,
        } => {
            let attempt = attempt
                .map(|a| format!(" (attempt {a})"))
                .unwrap_or_default();
            let level = if *fatal {
                "ERROR"
            } else if is_loop_breaker(*code) {
                "loop breaker"
            } else {
                "warning"
            };
            // A block quotes the call's earlier result over several lines.
            let message = message.trim_end().replace('\n', "\n   ");
            format!("!! {level} [{code}]{attempt}: {message}")
        }
        Event::SessionEnd {
            exit_reason,
            iterations,
            duration_ms,
            total_input_tokens,
            total_output_tokens,
            total_cached_input_tokens,
            cost_usd,
            ..
        } => format!(
            "== {} after {iterations} iteration(s), {:.1} s, {total_input_tokens} in{} / {total_output_tokens} out tokens{}",
            exit_reason,
            *duration_ms as f64 / 1000.0,
            cached_share(*total_cached_input_tokens, *total_input_tokens),
            dollars(*cost_usd)
        ),
        _ => return None,
    };
    Some(line)
}

/// The work: what the agent is doing, tool calls, their output and results.
fn tool_line(event: &Event) -> Option<String> {
    let line = match event {
        Event::Activity { activity, .. } => format!("   ... {activity}"),
        Event::ToolCallStart { name, args, .. } => {
            format!("-> {name} {}", one_line(&args.to_string(), 200))
        }
        Event::ExecLog { stream, data, .. } => {
            let prefix = match stream {
                OutputStream::Stdout => "   | ",
                OutputStream::Stderr => "   ! ",
            };
            data.trim_end_matches('\n')
                .lines()
                .map(|line| format!("{prefix}{line}"))
                .collect::<Vec<_>>()
                .join("\n")
        }
        Event::FileComplete {
            path,
            op,
            bytes,
            diff,
            ..
        } => {
            let op = op.to_string();
            let mut out = format!("   {op} {path} ({bytes} bytes)");
            for line in diff.lines().take(40) {
                out.push_str("\n   ");
                out.push_str(line);
            }
            out
        }
        Event::ToolResult {
            name,
            ok,
            output,
            truncated,
            duration_ms,
            flags,
            ..
        } => {
            let mark = if *ok { "ok" } else { "FAILED" };
            let mut out = format!("<- {name} {mark} ({duration_ms} ms)");
            let shown: Vec<&str> = output.lines().take(12).collect();
            for line in &shown {
                out.push_str("\n   ");
                out.push_str(&one_line(line, 200));
            }
            if output.lines().count() > shown.len() || *truncated {
                out.push_str("\n   [...]");
            }
            // After the output, so a person reads the warning last.
            for flag in flags {
                out.push_str(&format!(
                    "\n   !! untrusted content flagged [{}]: {}",
                    flag.rule,
                    one_line(&flag.excerpt, 200)
                ));
            }
            out
        }
        _ => return None,
    };
    Some(line)
}

/// The conversation and the people in the loop: messages, todos,
/// questions and answers, the plan and the mode.
fn person_line(event: &Event) -> Option<String> {
    let line = match event {
        Event::UserMessage { text, source } => {
            format!(
                "== user ({}): {}",
                match source {
                    MessageSource::Prompt => "prompt",
                    MessageSource::Inject => "inject",
                },
                one_line(text, 400)
            )
        }
        Event::TodosUpdate { todos } => {
            let mut out = "   todos:".to_owned();
            for todo in todos {
                let status = todo.status.to_string();
                out.push_str(&format!("\n     [{status}] {}", todo.content));
            }
            out
        }
        Event::HitlRequest {
            id,
            kind,
            deadline,
            default_decision,
            question,
            options,
            content,
            action,
            reason,
        } => {
            let mut out = format!("?? waiting for a person ({kind}, id {id})");
            for (label, value) in [
                ("question", question.clone()),
                ("options", options.as_ref().map(|o| o.join(" / "))),
                ("plan", content.clone()),
                ("action", action.clone()),
                ("reason", reason.clone()),
                ("deadline", deadline.clone()),
            ] {
                if let Some(value) = value {
                    out.push_str(&format!("\n   {label}: {value}"));
                }
            }
            out.push_str(&format!("\n   default: {default_decision}"));
            out
        }
        Event::HitlResolved { id, decision, by } => {
            format!("   answered {id}: {decision} (by {by})")
        }
        Event::PlanConfirmed { plan } => format!("== plan confirmed\n{plan}"),
        Event::ModeChanged { from, to } => {
            format!("== mode {from} -> {to}")
        }
        _ => return None,
    };
    Some(line)
}

/// Checkpoints and compaction of the context.
fn context_line(event: &Event) -> Option<String> {
    let line = match event {
        Event::CheckpointSaved {
            iteration,
            checkpoint,
            ..
        } => format!("   checkpoint {iteration}: {checkpoint}"),
        Event::CheckpointRestored {
            iteration,
            checkpoint,
        } => format!("== restored checkpoint {iteration}: {checkpoint}"),
        Event::Summarizing { tokens_before } => {
            format!("   summarizing {tokens_before} tokens of context")
        }
        Event::Summarized {
            tokens_before,
            tokens_after,
        } => format!("   context {tokens_before} -> {tokens_after} tokens"),
        _ => return None,
    };
    Some(line)
}

/// A call not run, or an answer cut, for repeating itself.
fn is_loop_breaker(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::LoopIdenticalCalls
            | ErrorCode::LoopIdenticalFailures
            | ErrorCode::LoopToolFailures
            | ErrorCode::LoopRepeatedText
            | ErrorCode::LoopStuck
    )
}

/// ` (92% from the cache)` when the provider read any input from its cache.
fn cached_share(cached: u64, input: u64) -> String {
    match (cached, input) {
        (0, _) | (_, 0) => String::new(),
        _ => format!(
            " ({:.0}% from the cache)",
            cached as f64 * 100.0 / input as f64
        ),
    }
}

/// `, $0.0123` when the model table has prices.
fn dollars(cost: Option<f64>) -> String {
    cost.map(|cost| format!(", ${cost:.4}")).unwrap_or_default()
}

fn one_line(text: &str, max_chars: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    if flat.chars().count() <= max_chars {
        flat
    } else {
        let cut: String = flat.chars().take(max_chars).collect();
        format!("{cut}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::commands::Decision;
    use crate::protocol::events::ExitReason;

    #[test]
    fn streamed_text_then_event_breaks_the_line() {
        let mut r = TextRenderer::default();
        let mut out = String::new();
        out += &r
            .render(&Event::TextDelta {
                delta: "Hello".into(),
                iteration: 1,
            })
            .unwrap();
        out += &r
            .render(&Event::TextDelta {
                delta: " world".into(),
                iteration: 1,
            })
            .unwrap();
        out += &r
            .render(&Event::SessionEnd {
                exit_reason: ExitReason::Completed,
                iterations: 1,
                duration_ms: 1500,
                total_input_tokens: 10,
                total_output_tokens: 2,
                total_cached_input_tokens: 0,
                total_reasoning_tokens: 0,
                cost_usd: None,
            })
            .unwrap();
        assert_eq!(
            out,
            "Hello world\n== completed after 1 iteration(s), 1.5 s, 10 in / 2 out tokens\n"
        );
    }

    #[test]
    fn person_in_the_loop_steps_are_readable() {
        use crate::protocol::events::{HitlKind, Mode, ResolvedBy};
        let mut r = TextRenderer::default();
        let request = r
            .render(&Event::HitlRequest {
                id: "q1".into(),
                kind: HitlKind::AskUser,
                deadline: Some("2026-11-30T13:00:00.000Z".into()),
                default_decision: Decision::Reject,
                question: Some("Which database?".into()),
                options: Some(vec!["sqlite".into(), "postgres".into()]),
                content: None,
                action: None,
                reason: None,
            })
            .unwrap();
        assert_eq!(
            request,
            "?? waiting for a person (ask-user, id q1)\n   question: Which database?\n   options: sqlite / postgres\n   deadline: 2026-11-30T13:00:00.000Z\n   default: reject\n"
        );
        let resolved = r
            .render(&Event::HitlResolved {
                id: "q1".into(),
                decision: Decision::Approve,
                by: ResolvedBy::File,
            })
            .unwrap();
        assert_eq!(resolved, "   answered q1: approve (by file)\n");
        let changed = r
            .render(&Event::ModeChanged {
                from: Mode::Plan,
                to: Mode::Implement,
            })
            .unwrap();
        assert_eq!(changed, "== mode plan -> implement\n");
    }

    #[test]
    fn loop_breaker_blocks_are_told_apart_from_warnings() {
        let mut r = TextRenderer::default();
        let shown = r
            .render(&Event::warning(
                ErrorCode::LoopIdenticalCalls,
                "exec: not run: this call was already made 4 times; its last result was:\nok\n[exit code 0, 3 ms]\nDo something different.",
            ))
            .unwrap();
        assert_eq!(
            shown,
            "!! loop breaker [loop-identical-calls]: exec: not run: this call was already made 4 times; its last result was:\n   ok\n   [exit code 0, 3 ms]\n   Do something different.\n"
        );
        let end = r
            .render(&Event::SessionEnd {
                exit_reason: ExitReason::Stuck,
                iterations: 8,
                duration_ms: 100,
                total_input_tokens: 0,
                total_output_tokens: 0,
                total_cached_input_tokens: 0,
                total_reasoning_tokens: 0,
                cost_usd: None,
            })
            .unwrap();
        assert!(end.starts_with("== stuck after 8 iteration(s)"), "{end}");
        let end = r
            .render(&Event::SessionEnd {
                exit_reason: ExitReason::Completed,
                iterations: 3,
                duration_ms: 100,
                total_input_tokens: 1000,
                total_output_tokens: 50,
                total_cached_input_tokens: 920,
                total_reasoning_tokens: 0,
                cost_usd: Some(0.0123),
            })
            .unwrap();
        assert!(
            end.contains("1000 in (92% from the cache) / 50 out tokens, $0.0123"),
            "{end}"
        );
    }

    #[test]
    fn flags_of_a_tool_result_follow_its_output() {
        use crate::protocol::events::Flag;
        let mut r = TextRenderer::default();
        let shown = r
            .render(&Event::ToolResult {
                id: "f".into(),
                name: "web_fetch".into(),
                ok: true,
                output: "page".into(),
                truncated: false,
                duration_ms: 3,
                flags: vec![Flag {
                    rule: "role-change".into(),
                    excerpt: "the text that\nmatched".into(),
                }],
            })
            .unwrap();
        assert_eq!(
            shown,
            "<- web_fetch ok (3 ms)\n   page\n   !! untrusted content flagged [role-change]: the text that matched\n"
        );
    }

    #[test]
    fn accepted_acks_are_quiet_refused_ones_are_shown() {
        let mut r = TextRenderer::default();
        assert!(
            r.render(&Event::CommandAck {
                command: "inject".into(),
                ok: true,
                reason: None
            })
            .is_none()
        );
        let shown = r
            .render(&Event::CommandAck {
                command: "rollback".into(),
                ok: false,
                reason: Some("no checkpoints".into()),
            })
            .unwrap();
        assert!(shown.contains("rollback refused: no checkpoints"));
    }
}

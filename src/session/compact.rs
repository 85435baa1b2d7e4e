//! Keeping the conversation inside the model's window. Past a threshold,
//! the middle of the conversation is replaced by a summary the model
//! writes; the system prompt, the task, the plan, the todos and the most
//! recent turns stay verbatim. If the summary cannot be had, the oldest
//! tool outputs are dropped instead: the session goes on either way.

use serde::Deserialize;

use super::turn;
use crate::model::{Message, ModelRequest, ToolSet};
use crate::protocol::events::ErrorCode;
use crate::protocol::events::{ActivityKind, Event};
use crate::tools;

/// A tool output that was dropped to make room.
pub const DROPPED: &str = "[output dropped to keep the conversation within the model's window]";
/// Each message is cut to this in the transcript given to the summariser.
const TRANSCRIPT_MESSAGE_CHARS: usize = 4_000;
/// An image counts this much (providers bill about a thousand tokens).
const IMAGE_TOKENS: u64 = 1_000;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CompactionConfig {
    /// Compact when the estimate passes this share of the window.
    pub threshold: f64,
    /// Assistant turns (with their tool results) kept verbatim.
    pub keep_recent_turns: usize,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        CompactionConfig {
            threshold: 0.8,
            keep_recent_turns: 3,
        }
    }
}

impl CompactionConfig {
    pub fn validate(&self) -> Result<(), String> {
        if !(0.1..=0.95).contains(&self.threshold) {
            return Err("compaction.threshold must be between 0.1 and 0.95".into());
        }
        if !(1..=50).contains(&self.keep_recent_turns) {
            return Err("compaction.keep_recent_turns must be between 1 and 50".into());
        }
        Ok(())
    }
}

/// Four bytes a token, the usual rule of thumb; the schemas of the tools
/// count too, since they are sent with every call.
pub fn estimate_tokens(messages: &[Message], tools: &ToolSet) -> u64 {
    let (bytes, images) = size(messages, tools);
    tokens(bytes, images)
}

fn tokens(bytes: usize, images: u64) -> u64 {
    (bytes as u64).div_ceil(4) + images * IMAGE_TOKENS
}

/// The bytes and the images [`estimate_tokens`] counts.
fn size(messages: &[Message], tools: &ToolSet) -> (usize, u64) {
    let mut bytes = 0usize;
    let mut images = 0u64;
    for message in messages {
        match message {
            Message::System { text } => bytes += text.len(),
            Message::User {
                text,
                images: attached,
            } => {
                bytes += text.len();
                images += attached.len() as u64;
            }
            Message::Assistant(turn) => {
                bytes += turn.text.len() + turn.reasoning.len();
                for call in &turn.tool_calls {
                    bytes += call.name.len() + call.arguments.len() + 16;
                }
            }
            Message::Tool(result) => {
                bytes += result.content.len() + 16;
                images += u64::from(result.image.is_some());
            }
        }
    }
    (bytes + tools.bytes(), images)
}

/// Where the part to summarise starts and ends: after the system prompt and
/// the task, before the last `keep` assistant turns. `None` when there is
/// nothing in between.
pub fn middle(messages: &[Message], keep: usize) -> Option<(usize, usize)> {
    let start = messages
        .iter()
        .position(|message| matches!(message, Message::User { .. }))?
        + 1;
    let assistants: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| matches!(message, Message::Assistant(_)))
        .map(|(index, _)| index)
        .collect();
    let end = *assistants.get(assistants.len().checked_sub(keep)?)?;
    (end > start).then_some((start, end))
}

/// The part to summarise, as plain text for the summariser.
pub fn transcript(messages: &[Message]) -> String {
    let mut out = String::new();
    for message in messages {
        let (who, text) = match message {
            Message::System { text } => ("system", text.clone()),
            Message::User { text, .. } => ("user", text.clone()),
            Message::Assistant(turn) => {
                let mut text = turn.text.clone();
                for call in &turn.tool_calls {
                    text.push_str(&format!("\n[calls {} {}]", call.name, call.arguments));
                }
                ("assistant", text)
            }
            Message::Tool(result) => (
                "tool result",
                format!("{}: {}", result.name, result.content),
            ),
        };
        let cut = crate::tools::truncate::head_tail(&text, TRANSCRIPT_MESSAGE_CHARS);
        out.push_str(&format!("### {who}\n{cut}\n\n"));
    }
    out
}

pub const SUMMARY_INSTRUCTIONS: &str = "You summarise a coding agent's session so it can go on without the full history. \
Write a concise summary: what was done, which files were read or changed and how, commands run and their \
outcome, decisions taken, what failed, and what remains to do. Keep exact names, paths and error messages. \
No preamble.";

/// Drops the oldest tool outputs until the estimate is under `limit`;
/// the last turn's results are kept, the model needs them next.
pub fn drop_old_outputs(messages: &mut [Message], tools: &ToolSet, limit: u64) {
    let last_assistant = messages
        .iter()
        .rposition(|message| matches!(message, Message::Assistant(_)))
        .unwrap_or(messages.len());
    // Counted once and kept up to date: a long session has thousands of
    // outputs, and counting the whole conversation again after each one
    // dropped made this quadratic.
    let (mut bytes, mut images) = size(messages, tools);
    for message in &mut messages[..last_assistant] {
        if tokens(bytes, images) <= limit {
            return;
        }
        if let Message::Tool(result) = message
            && result.content != DROPPED
        {
            bytes = bytes - result.content.len() + DROPPED.len();
            images -= u64::from(result.image.take().is_some());
            result.content = DROPPED.to_owned();
        }
    }
}

/// Collects a summary without streaming it to the person (it is not an
/// answer); retries are still shown.
struct QuietTurn<'a> {
    builder: turn::TurnBuilder,
    events: &'a crate::protocol::EventWriter,
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

impl super::Session {
    /// How big the context is: the provider's count of the last request
    /// plus an estimate of what came after; four bytes a token before the
    /// first answer, or when a provider does not say.
    pub(super) fn context_tokens(&self) -> u64 {
        match self.state.conversation.measured() {
            Some((tokens, added)) => tokens + estimate_tokens(added, &ToolSet::default()),
            None => estimate_tokens(&self.state.conversation, &self.specs),
        }
    }

    /// Past the threshold: compacts to it.
    pub(super) async fn compact_if_needed(&mut self) {
        let limit =
            (self.config.model.context_window as f64 * self.config.compaction.threshold) as u64;
        let before = self.context_tokens();
        if before > limit {
            self.compact(before, limit).await;
        }
    }

    /// The provider refused the prompt as too long: compacts to half of
    /// what it holds, if there is anything to compact; whether it shrank.
    pub(super) async fn compact_after_refusal(&mut self, refusal: &str) -> bool {
        let conversation = &self.state.conversation;
        let keep = self.config.compaction.keep_recent_turns;
        let compactable = middle(conversation, keep).is_some()
            || conversation
                .iter()
                .any(|message| matches!(message, Message::Tool(_)));
        if !compactable {
            return false;
        }
        self.events.emit(Event::warning(
            ErrorCode::ContextTooLong,
            format!(
                "the provider found the prompt too long ({refusal}); compacting to try once more"
            ),
        ));
        let before = self.context_tokens();
        self.compact(before, before / 2).await
    }

    /// `summarizing`, the middle of the conversation replaced by a summary
    /// (or, failing that, old tool outputs dropped) until under `limit`,
    /// `summarized`; whether the conversation shrank.
    async fn compact(&mut self, before: u64, limit: u64) -> bool {
        // The summary rewrites what the taken checkpoint holds.
        self.flush_checkpoint();
        let window = self.config.model.context_window;
        // Measured the same way before and after: the provider's count and
        // four bytes a token do not compare.
        let estimated_before = estimate_tokens(&self.state.conversation, &self.specs);
        self.events.emit(Event::Activity {
            activity: ActivityKind::Summarizing,
            tool_call_id: None,
        });
        self.events.emit(Event::Summarizing {
            tokens_before: before,
        });
        let keep = self.config.compaction.keep_recent_turns;
        let summarised = match middle(&self.state.conversation, keep) {
            None => Err("nothing is old enough to summarise".to_owned()),
            Some((start, end)) => {
                let transcript = transcript(&self.state.conversation[start..end]);
                // The summariser's own input must fit the window too.
                let transcript =
                    tools::truncate::head_tail(&transcript, (window as usize).saturating_mul(2));
                self.summarise(transcript)
                    .await
                    .map(|summary| (start, end, summary))
            }
        };
        match summarised {
            Ok((start, end, summary)) => self.state.summarised(start, end, &summary),
            Err(reason) => {
                self.events.emit(Event::warning(
                    ErrorCode::CompactionFailed,
                    format!("no summary ({reason}); dropping the oldest tool outputs instead"),
                ));
            }
        }
        // `before` may be the provider's count and the estimate four bytes a
        // token: what is shed is measured by the estimate, in both.
        let shed = before.saturating_sub(limit);
        drop_old_outputs(
            self.state.conversation.edit(),
            &self.specs,
            estimated_before.saturating_sub(shed),
        );
        let estimated_after = estimate_tokens(&self.state.conversation, &self.specs);
        self.events.emit(Event::Summarized {
            tokens_before: before,
            tokens_after: before.saturating_sub(estimated_before.saturating_sub(estimated_after)),
        });
        estimated_after < estimated_before
    }

    /// One model call, no tools, for the summary text; its usage counts.
    pub(super) async fn summarise(&mut self, transcript: String) -> Result<String, String> {
        let messages = [
            Message::System {
                text: SUMMARY_INSTRUCTIONS.to_owned(),
            },
            Message::User {
                text: transcript,
                images: Vec::new(),
            },
        ];
        let request = ModelRequest {
            model_id: &self.config.model.model,
            messages: &messages,
            tools: &ToolSet::default(),
            max_output_tokens: self.config.model.max_output_tokens.min(4_096),
            temperature: self.config.model.temperature,
            cache_key: Some(&self.config.session_id),
        };
        let events = self.events.clone();
        let mut sink = QuietTurn {
            builder: turn::TurnBuilder::new(self.state.iterations, &[]),
            events: &events,
        };
        self.state.progress.model_calls += 1;
        self.model
            .complete(&request, &mut sink)
            .await
            .map_err(|err| err.to_string())?;
        let (answer, usage) = sink.builder.finish();
        self.count_usage(usage);
        if answer.text.trim().is_empty() {
            return Err("the model returned an empty summary".to_owned());
        }
        Ok(answer.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AssistantTurn, ToolCall, ToolResultMessage};

    fn turn(id: &str) -> Vec<Message> {
        vec![
            Message::Assistant(AssistantTurn {
                tool_calls: vec![ToolCall {
                    id: id.into(),
                    name: "exec".into(),
                    arguments: "{}".into(),
                }],
                ..AssistantTurn::default()
            }),
            Message::Tool(ToolResultMessage {
                call_id: id.into(),
                name: "exec".into(),
                content: "x".repeat(400),
                is_error: false,
                image: None,
            }),
        ]
    }

    fn conversation() -> Vec<Message> {
        let mut messages = vec![
            Message::System { text: "sys".into() },
            Message::User {
                text: "task".into(),
                images: Vec::new(),
            },
        ];
        for id in ["a", "b", "c"] {
            messages.extend(turn(id));
        }
        messages
    }

    #[test]
    fn the_middle_leaves_task_and_recent_turns() {
        let messages = conversation();
        assert_eq!(middle(&messages, 1), Some((2, 6)));
        assert_eq!(middle(&messages, 3), None);
        assert_eq!(middle(&messages, 5), None);
    }

    #[test]
    fn dropping_spares_the_last_turn() {
        let mut messages = conversation();
        drop_old_outputs(&mut messages, &ToolSet::default(), 0);
        let contents: Vec<&str> = messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool(result) => Some(result.content.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(contents[0], DROPPED);
        assert_eq!(contents[1], DROPPED);
        assert_eq!(contents[2].len(), 400);
    }

    #[test]
    fn dropping_stops_once_the_estimate_fits() {
        let full = conversation();
        let before = estimate_tokens(&full, &ToolSet::default());
        // One output dropped is enough for this limit, two are not needed.
        let one_dropped = before - (400 - DROPPED.len() as u64).div_ceil(4);
        let mut messages = full.clone();
        drop_old_outputs(&mut messages, &ToolSet::default(), one_dropped + 1);
        let dropped = messages
            .iter()
            .filter(|m| matches!(m, Message::Tool(result) if result.content == DROPPED))
            .count();
        assert_eq!(dropped, 1);
        assert!(estimate_tokens(&messages, &ToolSet::default()) <= one_dropped + 1);
    }
}

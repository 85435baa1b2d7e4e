//! The session's state as one value: the conversation, and the progress
//! a checkpoint keeps whole (mode, plan, todos, usage, model calls). Its
//! transitions are plain functions that change the value and return the
//! events that tell of it, so they are tested without a model, a writer
//! or a disk, and the loop in `mod.rs` only drives them.

use serde::{Deserialize, Serialize};

use super::context::Instructions;
use super::conversation::Conversation;
use super::egress::Placeholders;
use super::todos::TodoList;
use crate::model::aliases::Prices;
use crate::model::{Message, Usage};
use crate::protocol::events::{Event, Mode};
use crate::tools::interactive::TodoItem;

/// What a checkpoint keeps of the session besides the conversation and
/// the files, stored as is (flattened) in its manifest: a field added
/// here is saved and restored without another line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub mode: Mode,
    pub plan: Option<String>,
    #[serde(flatten)]
    pub todos: TodoList,
    pub usage: Usage,
    /// Model calls made so far (a scripted model resumes its script there).
    pub model_calls: u32,
    /// The placeholders the model was given for secrets, with their values
    /// (why they are kept here: `egress.rs`).
    #[serde(default, skip_serializing_if = "Placeholders::is_empty")]
    pub secret_placeholders: Placeholders,
    /// The project instruction files the model was given (`context.rs`):
    /// each is given once, and a summary repeats those the first message
    /// does not hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<Instructions>,
    /// A flagged third-party result since the last user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taint: Option<super::untrusted::Taint>,
    /// The MCP tools a gated offer has held (`mcp.rs`): they stay offered.
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub mcp_offered: std::collections::BTreeSet<String>,
}

#[derive(Debug)]
pub struct SessionState {
    pub conversation: Conversation,
    pub progress: Progress,
    /// Iterations begun; a checkpoint is named by it.
    pub iterations: u32,
}

impl SessionState {
    pub fn new(mode: Mode) -> Self {
        SessionState {
            conversation: Conversation::default(),
            progress: Progress {
                mode,
                plan: None,
                todos: TodoList::default(),
                usage: Usage::default(),
                model_calls: 0,
                secret_placeholders: Placeholders::default(),
                instructions: Vec::new(),
                taint: None,
                mcp_offered: Default::default(),
            },
            iterations: 0,
        }
    }

    /// The state a checkpoint of `iteration` kept.
    pub fn restored(progress: Progress, messages: Vec<Message>, iteration: u32) -> Self {
        let mut conversation = Conversation::default();
        conversation.replace(messages);
        SessionState {
            conversation,
            progress,
            iterations: iteration,
        }
    }

    pub fn mode(&self) -> Mode {
        self.progress.mode
    }

    /// Adds one model call's usage to the totals; its cost too when the
    /// model has prices.
    pub fn count_usage(&mut self, usage: Usage, prices: &Prices) -> Event {
        let totals = &mut self.progress.usage;
        totals.input_tokens += usage.input_tokens;
        totals.output_tokens += usage.output_tokens;
        totals.cached_input_tokens += usage.cached_input_tokens;
        totals.reasoning_tokens += usage.reasoning_tokens;
        Event::UsageUpdate {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cached_input_tokens: usage.cached_input_tokens,
            reasoning_tokens: usage.reasoning_tokens,
            total_input_tokens: totals.input_tokens,
            total_output_tokens: totals.output_tokens,
            cost_usd: prices.cost(&usage),
            total_cost_usd: prices.cost(totals),
        }
    }

    /// `todo_write`: the new list, or why it is refused (the list stays).
    pub fn replace_todos(&mut self, items: Vec<TodoItem>) -> Result<Event, String> {
        let list = self.progress.todos.replace(items)?;
        Ok(Event::TodosUpdate {
            todos: list.to_vec(),
        })
    }

    /// The plan was approved: a fresh context (system prompt, the task
    /// with the approved plan and the todos) in implement mode.
    /// `system_prompt` is the prompt of a mode.
    pub fn approve_plan(
        &mut self,
        plan: String,
        system_prompt: impl Fn(Mode) -> String,
    ) -> Vec<Event> {
        // The task as first given: with its environment, instructions and
        // images.
        let (task, images) = self
            .conversation
            .iter()
            .find_map(|message| match message {
                Message::User { text, images } => Some((text.clone(), images.clone())),
                _ => None,
            })
            .unwrap_or_default();
        let from = self.progress.mode;
        self.progress.mode = Mode::Implement;
        self.progress.plan = Some(plan.clone());
        let mut task = format!("{task}\n\n## The approved plan\n\n{plan}");
        if !self.progress.todos.items().is_empty() {
            task.push_str("\n\n## Todo list\n\n");
            task.push_str(&self.progress.todos.render());
        }
        self.conversation.replace(vec![
            Message::System {
                text: system_prompt(Mode::Implement),
            },
            Message::User { text: task, images },
        ]);
        vec![
            Event::PlanConfirmed { plan },
            Event::ModeChanged {
                from,
                to: Mode::Implement,
            },
        ]
    }

    /// Compaction's summary takes the place of the messages `start..end`,
    /// with what must survive any summary: the plan and the todos.
    pub fn summarised(&mut self, start: usize, end: usize, summary: &str) {
        let mut note = format!("## Summary of the earlier work\n\n{}", summary.trim());
        if let Some(plan) = &self.progress.plan {
            note.push_str(&format!("\n\n## The approved plan\n\n{plan}"));
        }
        if !self.progress.todos.items().is_empty() {
            note.push_str(&format!(
                "\n\n## Todo list\n\n{}",
                self.progress.todos.render()
            ));
        }
        // Instructions met on the way (in tool results) would go with the
        // summarised middle; those of the first message stay with it.
        let first = self.conversation.iter().find_map(|message| match message {
            Message::User { text, .. } => Some(text.as_str()),
            _ => None,
        });
        for file in &self.progress.instructions {
            let block = file.block();
            if !first.is_some_and(|text| text.contains(&block)) {
                note.push_str("\n\n");
                note.push_str(&block);
            }
        }
        self.conversation.edit().splice(
            start..end,
            [Message::User {
                text: note,
                images: Vec::new(),
            }],
        );
    }
}

#[cfg(test)]
mod tests;

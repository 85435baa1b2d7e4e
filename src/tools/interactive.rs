//! The tools that talk to the session rather than the work dir:
//! `todo_write`, `ask_user`, `write_plan`. Their arguments and schemas live
//! here with the other tools; the session runs them, since they wait for a
//! person or change the session's own state.

use super::registry::{Offered, ToolDef};
use crate::protocol::events::ActivityKind;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::protocol::events::TodoStatus;

pub const TODO_DESCRIPTION: &str = "Keep a todo list for this task. Send the whole list each time; keep the id of an item you update. At most one item in_progress.";
pub const ASK_DESCRIPTION: &str =
    "Ask the user a question and wait for the answer. Offer options when the choices are known.";
pub const PLAN_DESCRIPTION: &str =
    "Submit your plan for approval. Only in plan mode. On approval you continue with all tools.";

/// A longer list is refused: a todo list is a plan, not a backlog.
pub const MAX_TODOS: usize = 100;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteArgs {
    pub todos: Vec<TodoItem>,
}

impl ToolDef for TodoWriteArgs {
    const NAME: &'static str = "todo_write";
    const DESCRIPTION: &'static str = TODO_DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::CreatingTodos;
    const IN_SESSION: bool = true;
    fn schema() -> Value {
        todo_schema()
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TodoItem {
    #[serde(default)]
    pub id: Option<String>,
    pub content: String,
    pub status: TodoStatus,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskUserArgs {
    pub question: String,
    #[serde(default)]
    pub options: Option<Vec<String>>,
}

impl ToolDef for AskUserArgs {
    const NAME: &'static str = "ask_user";
    const DESCRIPTION: &'static str = ASK_DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::AskingUser;
    const IN_SESSION: bool = true;
    fn schema() -> Value {
        ask_schema()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WritePlanArgs {
    pub plan: String,
}

impl ToolDef for WritePlanArgs {
    const NAME: &'static str = "write_plan";
    const DESCRIPTION: &'static str = PLAN_DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::Planning;
    const OFFERED: Offered = Offered::OnlyInPlan;
    const IN_SESSION: bool = true;
    fn schema() -> Value {
        plan_schema()
    }
}

pub fn todo_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "Keep the id of an existing item"},
                        "content": {"type": "string"},
                        "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                    },
                    "required": ["content", "status"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["todos"],
        "additionalProperties": false
    })
}

pub fn ask_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "question": {"type": "string"},
            "options": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["question"],
        "additionalProperties": false
    })
}

pub fn plan_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "plan": {"type": "string", "description": "The plan, as markdown"}
        },
        "required": ["plan"],
        "additionalProperties": false
    })
}

//! `tool_search`: finds MCP tools the session holds back. Above the
//! `[mcp] gate_above` count, a request offers only the server tools most
//! relevant to the conversation (`session/gating.rs`); this tool lets the
//! model look for the others by what they do. The tools it finds are
//! offered from then on. The session runs it: the offer is its state.

use serde::Deserialize;
use serde_json::{Value, json};

use super::registry::ToolDef;
use crate::protocol::events::ActivityKind;

pub const DESCRIPTION: &str = "Find more tools from the MCP servers. Only some of their tools are offered at a time; \
describe what you need (words of a tool's name or purpose) and the best matches are offered from your next call on.";

/// Tools found by one search at most, and by default.
pub const MAX_LIMIT: usize = 10;
pub const DEFAULT_LIMIT: usize = 5;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSearchArgs {
    pub query: String,
    #[serde(default)]
    pub limit: Option<usize>,
}

impl ToolSearchArgs {
    /// How many tools to find: the model's number, within 1 to the max.
    pub fn limit(&self) -> usize {
        self.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT)
    }
}

impl ToolDef for ToolSearchArgs {
    const NAME: &'static str = "tool_search";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::Searching;
    const IN_SESSION: bool = true;
    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What the tool should do, in a few words"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": "How many tools to find (default 5)"}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }
    fn action(&self) -> Option<String> {
        Some(format!("search the MCP tools for {:?}", self.query))
    }
}

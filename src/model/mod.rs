//! Talking to models: the provider-neutral conversation and stream types,
//! the two HTTP providers, the offline scripted model, retries, and the
//! alias table that maps `--model` to a provider and a model id.

pub mod aliases;
pub mod anthropic;
mod error;
pub mod http;
pub mod image;
pub mod openai;
pub mod retry;
pub mod scripted;
mod sent_body;
pub mod sse;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use aliases::{ModelSpec, ModelTable, WireFormat};
pub use error::ModelError;
pub use image::Image;

/// One message of the conversation, independent of the provider's format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    System {
        text: String,
    },
    User {
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<Image>,
    },
    Assistant(AssistantTurn),
    Tool(ToolResultMessage),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AssistantTurn {
    pub text: String,
    pub reasoning: String,
    /// Anthropic signs its thinking blocks; they must go back verbatim with
    /// the tool results or the next request is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_signature: Option<String>,
    pub tool_calls: Vec<ToolCall>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The raw JSON text the model produced; it may not parse.
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultMessage {
    pub call_id: String,
    pub name: String,
    pub content: String,
    pub is_error: bool,
    /// An image the tool returned (`read_file` on a picture).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<Image>,
}

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// The tools of a request, with what every request of the same offer
/// would compute again: their JSON in each wire format and their size.
/// The same offer is the same value from one iteration to the next, so a
/// request serialises its tools once, not every iteration (they are most
/// of a short session's request).
#[derive(Debug, Default)]
pub struct ToolSet {
    specs: Vec<ToolSpec>,
    openai: std::sync::OnceLock<String>,
    anthropic: std::sync::OnceLock<String>,
    bytes: std::sync::OnceLock<usize>,
}

impl ToolSet {
    pub fn new(specs: Vec<ToolSpec>) -> Self {
        ToolSet {
            specs,
            ..ToolSet::default()
        }
    }

    /// The `tools` array of a request in `format`.
    pub fn json(&self, format: WireFormat) -> &str {
        match format {
            WireFormat::OpenAi => self.openai.get_or_init(|| openai::tools_json(&self.specs)),
            WireFormat::Anthropic => self
                .anthropic
                .get_or_init(|| anthropic::tools_json(&self.specs)),
        }
    }

    /// Names, descriptions and schemas, in bytes (the token estimate's).
    pub fn bytes(&self) -> usize {
        *self.bytes.get_or_init(|| {
            self.specs
                .iter()
                .map(|tool| {
                    tool.name.len() + tool.description.len() + tool.parameters.to_string().len()
                })
                .sum()
        })
    }
}

/// The request's JSON in `format`: the body, and the tools serialised
/// once per offer (`ToolSet::json`) spliced in as its last member, the
/// bytes `serde_json` would write for the whole.
pub fn request_json(format: WireFormat, request: &ModelRequest<'_>) -> String {
    let body = match format {
        WireFormat::OpenAi => openai::request_body(request),
        WireFormat::Anthropic => anthropic::request_body(request),
    };
    with_tools(&body, request.tools.json(format))
}

/// `body` serialised, with `"tools":` `tools` as its last member when
/// there are tools (an empty list is left out, as the providers want).
fn with_tools(body: &Value, tools: &str) -> String {
    let mut json = body.to_string();
    if tools != "[]" && json.ends_with('}') {
        json.pop();
        if !json.ends_with('{') {
            json.push(',');
        }
        json.push_str("\"tools\":");
        json.push_str(tools);
        json.push('}');
    }
    json
}

impl std::ops::Deref for ToolSet {
    type Target = [ToolSpec];
    fn deref(&self) -> &[ToolSpec] {
        &self.specs
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// All input tokens, cached ones included.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    pub reasoning_tokens: u64,
}

/// What a streaming model call yields, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem {
    Text(String),
    Reasoning(String),
    ReasoningSignature(String),
    /// The model began a tool call; its name is known, its arguments follow.
    ToolCallStarted {
        index: usize,
        id: String,
        name: String,
    },
    ToolCallArguments {
        index: usize,
        delta: String,
    },
    Usage(Usage),
    /// The provider's final event arrived: the turn is complete.
    Finished,
}

pub struct ModelRequest<'a> {
    pub model_id: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a ToolSet,
    pub max_output_tokens: u32,
    pub temperature: Option<f32>,
    /// The same for every request of a session, so a provider that routes
    /// by it (OpenAI's `prompt_cache_key`) finds the cached prefix.
    pub cache_key: Option<&'a str>,
}

/// Receives a call's stream. `restart` is called before a retry so that what
/// a failed attempt streamed is not counted twice.
pub trait StreamSink {
    fn item(&mut self, item: StreamItem);
    fn retrying(&mut self, error: &ModelError, attempt: u32, delay: Duration);
    /// True once the sink takes no more of this call (an answer cut for
    /// repeating itself): the client stops reading, closes the stream so
    /// the provider stops generating, and returns `Ok`.
    fn stopped(&self) -> bool {
        false
    }
    /// The request has left (its last byte is with the connection), or
    /// an attempt failed and the next waits: from here until the answer,
    /// the thread is the model's to wait on, so what has to be done only
    /// before the answer is done now. Called at least once per attempt
    /// that reached the network, possibly more.
    fn sent(&mut self) {}
}

/// A model the session can call: one of the two HTTP wire formats or the
/// offline script.
pub enum ModelClient {
    Http(http::HttpModel),
    Scripted(scripted::ScriptedModel),
}

impl ModelClient {
    /// After a restore: the calls made before, so a scripted model plays
    /// on from the right turn.
    pub fn resume_after(&self, calls: u32) {
        match self {
            ModelClient::Http(_) => {}
            ModelClient::Scripted(model) => model.resume_after(calls as usize),
        }
    }

    /// Streams one completion into `sink`, retrying what is worth retrying.
    pub async fn complete(
        &self,
        request: &ModelRequest<'_>,
        sink: &mut dyn StreamSink,
    ) -> Result<(), ModelError> {
        match self {
            ModelClient::Http(model) => model.complete(request, sink).await,
            ModelClient::Scripted(model) => model.complete(request, sink).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The tools spliced into a body's JSON are the bytes `serde_json`
    /// writes for the body holding them as its last member, in both
    /// formats; no tools, no member.
    #[test]
    fn spliced_tools_are_the_bytes_of_the_whole() {
        let tools = ToolSet::new(vec![
            ToolSpec {
                name: "exec".into(),
                description: "run \"it\"\n".into(),
                parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}}),
            },
            ToolSpec {
                name: "mcp__x__y".into(),
                description: "ü".into(),
                parameters: json!({}),
            },
        ]);
        for format in [WireFormat::OpenAi, WireFormat::Anthropic] {
            for body in [json!({"model": "m", "messages": [{"a": "}"}]}), json!({})] {
                let mut whole = body.clone();
                whole["tools"] = serde_json::from_str(tools.json(format)).unwrap();
                assert_eq!(with_tools(&body, tools.json(format)), whole.to_string());
                assert_eq!(with_tools(&body, "[]"), body.to_string());
            }
        }
    }
}

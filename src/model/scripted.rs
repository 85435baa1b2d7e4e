//! The offline scripted model: a JSON file of model turns played back as if
//! a server streamed them. Used by the README demo, by integrators testing
//! their proxy at no model cost, and by tests and benchmarks.
//!
//! Turn N is played for the N-th model call of the process, whatever
//! happened to the conversation in between (a plan approval starts it
//! afresh, so it cannot be counted from there).

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::{Message, ModelError, ModelRequest, StreamItem, StreamSink, Usage};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub turns: Vec<ScriptTurn>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScriptTurn {
    pub reasoning: String,
    pub text: String,
    pub tool_calls: Vec<ScriptToolCall>,
    /// Pause before each streamed chunk, to make a slow model.
    pub chunk_delay_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptToolCall {
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    /// The arguments as a JSON value ...
    #[serde(default)]
    pub args: Option<Value>,
    /// ... or as raw text, to play a model that emits broken JSON.
    #[serde(default)]
    pub raw_args: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read the script {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("the script {path} is not valid: {source}")]
    Parse {
        path: String,
        source: serde_json::Error,
    },
    #[error("the script {path} has no turns")]
    Empty { path: String },
}

/// Size of the pieces text is streamed in, like a real model's tokens.
const TEXT_CHUNK_CHARS: usize = 12;
const ARGUMENT_CHUNK_CHARS: usize = 24;

pub struct ScriptedModel {
    script: Script,
    calls: std::sync::atomic::AtomicUsize,
}

impl ScriptedModel {
    pub fn load(path: &Path) -> Result<Self, ScriptError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Read {
            path: shown.clone(),
            source,
        })?;
        let script: Script = serde_json::from_str(&text).map_err(|source| ScriptError::Parse {
            path: shown.clone(),
            source,
        })?;
        if script.turns.is_empty() {
            return Err(ScriptError::Empty { path: shown });
        }
        Ok(ScriptedModel::from_script(script))
    }

    pub fn from_script(script: Script) -> Self {
        ScriptedModel {
            script,
            calls: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    pub fn resume_after(&self, calls: usize) {
        self.calls
            .store(calls, std::sync::atomic::Ordering::Relaxed);
    }

    pub async fn complete(
        &self,
        request: &ModelRequest<'_>,
        sink: &mut dyn StreamSink,
    ) -> Result<(), ModelError> {
        let played = self
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let turn = self.script.turns.get(played).ok_or_else(|| {
            ModelError::Script(format!(
                "the scripted model has {} turn(s) and the session asked for turn {}",
                self.script.turns.len(),
                played + 1
            ))
        })?;
        // The script's request is with it as soon as it is made.
        sink.sent();
        let pause = Duration::from_millis(turn.chunk_delay_ms);
        let items = turn_items(turn, played);
        let output_chars: usize = items
            .iter()
            .map(|item| match item {
                StreamItem::Reasoning(piece) | StreamItem::Text(piece) => piece.len(),
                StreamItem::ToolCallArguments { delta, .. } => delta.len(),
                StreamItem::ReasoningSignature(_)
                | StreamItem::ToolCallStarted { .. }
                | StreamItem::Usage(_)
                | StreamItem::Finished => 0,
            })
            .sum();
        for item in items {
            wait(pause).await;
            sink.item(item);
            if sink.stopped() {
                return Ok(());
            }
        }
        sink.item(StreamItem::Usage(Usage {
            input_tokens: estimate_tokens(request.messages),
            output_tokens: (output_chars as u64).div_ceil(4),
            cached_input_tokens: 0,
            reasoning_tokens: (turn.reasoning.len() as u64).div_ceil(4),
        }));
        sink.item(StreamItem::Finished);
        Ok(())
    }
}

/// What a turn streams before its usage, in order, in model-sized pieces.
fn turn_items(turn: &ScriptTurn, played: usize) -> Vec<StreamItem> {
    let mut items = Vec::new();
    for piece in chunks(&turn.reasoning, TEXT_CHUNK_CHARS) {
        items.push(StreamItem::Reasoning(piece.to_owned()));
    }
    for piece in chunks(&turn.text, TEXT_CHUNK_CHARS) {
        items.push(StreamItem::Text(piece.to_owned()));
    }
    for (index, call) in turn.tool_calls.iter().enumerate() {
        let id = call
            .id
            .clone()
            .unwrap_or_else(|| format!("call_{}_{}", played + 1, index + 1));
        items.push(StreamItem::ToolCallStarted {
            index,
            id,
            name: call.name.clone(),
        });
        let arguments = match (&call.raw_args, &call.args) {
            (Some(raw), _) => raw.clone(),
            (None, Some(args)) => args.to_string(),
            (None, None) => "{}".to_owned(),
        };
        for piece in chunks(&arguments, ARGUMENT_CHUNK_CHARS) {
            items.push(StreamItem::ToolCallArguments {
                index,
                delta: piece.to_owned(),
            });
        }
    }
    items
}

async fn wait(pause: Duration) {
    if !pause.is_zero() {
        tokio::time::sleep(pause).await;
    }
}

/// Splits on char boundaries into pieces of about `size` bytes.
fn chunks(text: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&text[start..end]);
        start = end;
    }
    pieces
}

/// Four bytes a token: the usual rule of thumb, good enough for a script.
fn estimate_tokens(messages: &[Message]) -> u64 {
    let bytes: usize = messages
        .iter()
        .map(|message| match message {
            Message::System { text } | Message::User { text, .. } => text.len(),
            Message::Assistant(turn) => {
                turn.text.len()
                    + turn
                        .tool_calls
                        .iter()
                        .map(|call| call.arguments.len() + call.name.len())
                        .sum::<usize>()
            }
            Message::Tool(result) => result.content.len(),
        })
        .sum();
    (bytes as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_respect_char_boundaries() {
        let text = "héllo wörld ünïcode";
        let pieces = chunks(text, 3);
        assert_eq!(pieces.concat(), text);
        assert!(pieces.iter().all(|piece| !piece.is_empty()));
    }

    /// Takes `limit` items, then asks for no more.
    struct Stopping {
        items: Vec<StreamItem>,
        limit: usize,
    }

    impl StreamSink for Stopping {
        fn item(&mut self, item: StreamItem) {
            self.items.push(item);
        }
        fn retrying(&mut self, _: &ModelError, _: u32, _: Duration) {}
        fn stopped(&self) -> bool {
            self.items.len() >= self.limit
        }
    }

    #[tokio::test]
    async fn a_sink_that_stops_gets_nothing_more() {
        let script: Script = serde_json::from_str(
            r#"{"turns":[{"text":"a long enough answer","tool_calls":[{"name":"exec","args":{"command":"ls"}}]}]}"#,
        )
        .unwrap();
        let model = ScriptedModel::from_script(script);
        let request = ModelRequest {
            model_id: "m",
            messages: &[],
            tools: &crate::model::ToolSet::default(),
            max_output_tokens: 100,
            temperature: None,
            cache_key: None,
        };
        let mut sink = Stopping {
            items: Vec::new(),
            limit: 1,
        };
        model.complete(&request, &mut sink).await.unwrap();
        assert_eq!(sink.items, [StreamItem::Text("a long enoug".into())]);
    }

    #[test]
    fn script_files_are_strict() {
        let bad: Result<Script, _> = serde_json::from_str(r#"{"turns":[{"txt":"typo"}]}"#);
        assert!(bad.is_err());
        let good: Script = serde_json::from_str(
            r#"{"turns":[{"text":"hi","tool_calls":[{"name":"exec","args":{"command":"ls"}}]}]}"#,
        )
        .unwrap();
        assert_eq!(good.turns[0].tool_calls[0].name, "exec");
    }
}

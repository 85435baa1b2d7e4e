//! The Anthropic Messages API: the request body and a parser for its SSE
//! events (`message_start` ... `message_stop`, with `ping` in between).

use serde_json::{Value, json};

use super::error::{error_message, excerpt, looks_like_context_overflow};
use super::{Image, Message, ModelError, ModelRequest, StreamItem, ToolSpec, Usage};

pub const API_VERSION: &str = "2023-06-01";

/// The `tools` array of a Messages request.
pub fn tools_json(tools: &[ToolSpec]) -> String {
    let tools: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({"name": tool.name, "description": tool.description, "input_schema": tool.parameters})
        })
        .collect();
    Value::from(tools).to_string()
}

/// The body but its tools (see [`super::request_json`]).
pub(super) fn request_body(request: &ModelRequest<'_>) -> Value {
    let mut system = Vec::new();
    let mut messages: Vec<Value> = Vec::new();
    for message in request.messages {
        match message {
            Message::System { text } => system.push(text.clone()),
            Message::User { text, images } => {
                for image in images {
                    push_block(&mut messages, "user", image_block(image));
                }
                push_block(&mut messages, "user", json!({"type": "text", "text": text}));
            }
            Message::Assistant(turn) => {
                let mut blocks = Vec::new();
                if let Some(signature) = &turn.reasoning_signature {
                    blocks.push(json!({"type": "thinking", "thinking": turn.reasoning, "signature": signature}));
                }
                if !turn.text.is_empty() {
                    blocks.push(json!({"type": "text", "text": turn.text}));
                }
                for call in &turn.tool_calls {
                    // The API wants an object; arguments the model botched
                    // were already answered with an error result.
                    let input = serde_json::from_str::<Value>(&call.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}));
                }
                if blocks.is_empty() {
                    blocks.push(json!({"type": "text", "text": "(no answer)"}));
                }
                for block in blocks {
                    push_block(&mut messages, "assistant", block);
                }
            }
            Message::Tool(result) => {
                let content = match &result.image {
                    None => Value::from(result.content.as_str()),
                    Some(image) => {
                        json!([{"type": "text", "text": result.content}, image_block(image)])
                    }
                };
                push_block(
                    &mut messages,
                    "user",
                    json!({
                        "type": "tool_result",
                        "tool_use_id": result.call_id,
                        "content": content,
                        "is_error": result.is_error,
                    }),
                );
            }
        }
    }
    let mut body = json!({
        "model": request.model_id,
        "max_tokens": request.max_output_tokens,
        "messages": messages,
        "stream": true,
    });
    if !system.is_empty() {
        body["system"] = json!([{"type": "text", "text": system.join("\n\n")}]);
    }
    if let Some(temperature) = request.temperature {
        body["temperature"] = Value::from(temperature);
    }
    mark_cache_breakpoints(&mut body);
    body
}

/// Where the provider may cache the request's prefix (at most four marks;
/// these are three): after the system prompt (tools come before it, so
/// they are cached with it), after the newest message, and after the
/// message that was newest in the previous request (the one before the
/// last assistant turn). Each request then reads every earlier turn from
/// the cache, even when one iteration adds more blocks than the provider
/// looks back over from a single mark.
fn mark_cache_breakpoints(body: &mut Value) {
    let ephemeral = || json!({"type": "ephemeral"});
    if let Some(block) = body["system"]
        .as_array_mut()
        .and_then(|blocks| blocks.last_mut())
    {
        block["cache_control"] = ephemeral();
    }
    let Some(messages) = body["messages"].as_array_mut() else {
        return;
    };
    let previous = messages
        .iter()
        .rposition(|message| message["role"] == "assistant")
        .and_then(|assistant| assistant.checked_sub(1));
    let newest = messages.len().checked_sub(1);
    for index in [previous, newest].into_iter().flatten() {
        if let Some(block) = messages[index]["content"]
            .as_array_mut()
            .and_then(|blocks| blocks.last_mut())
        {
            block["cache_control"] = ephemeral();
        }
    }
}

fn image_block(image: &Image) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": image.data}})
}

/// The API requires alternating roles: consecutive blocks of one role (tool
/// results followed by an injected user message) share one message.
fn push_block(messages: &mut Vec<Value>, role: &str, block: Value) {
    if let Some(last) = messages.last_mut()
        && last["role"] == role
        && let Some(content) = last["content"].as_array_mut()
    {
        content.push(block);
        return;
    }
    messages.push(json!({"role": role, "content": [block]}));
}

#[derive(Default)]
pub struct StreamParser {
    /// Content block index to the tool call index we announced for it.
    tool_blocks: Vec<(u64, usize)>,
    next_tool_index: usize,
    usage: Usage,
    done: bool,
}

impl StreamParser {
    pub fn feed(&mut self, data: &str) -> Result<Vec<StreamItem>, ModelError> {
        let event: Value = serde_json::from_str(data).map_err(|err| {
            ModelError::Malformed(format!("an event is not JSON ({err}): {}", excerpt(data)))
        })?;
        let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
        let mut items = Vec::new();
        match kind {
            "message_start" => {
                if let Some(usage) = event.pointer("/message/usage") {
                    self.read_usage(usage);
                }
            }
            "content_block_start" => items.extend(self.block_start(&event)),
            "content_block_delta" => items.extend(self.block_delta(&event)?),
            "message_delta" => {
                if let Some(usage) = event.get("usage") {
                    self.read_usage(usage);
                }
            }
            "message_stop" => {
                self.done = true;
                items.push(StreamItem::Usage(self.usage));
                items.push(StreamItem::Finished);
            }
            "error" => {
                let message = event
                    .get("error")
                    .map(error_message)
                    .unwrap_or_else(|| excerpt(data));
                if looks_like_context_overflow(&message) {
                    return Err(ModelError::ContextTooLong(message));
                }
                return Err(ModelError::Provider(message));
            }
            // ping, content_block_stop, and event types added later.
            _ => {}
        }
        Ok(items)
    }

    /// `content_block_start`: a tool call announced, or text that came
    /// with the block.
    fn block_start(&mut self, event: &Value) -> Option<StreamItem> {
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        let block = event.get("content_block").unwrap_or(&Value::Null);
        match block.get("type").and_then(Value::as_str) {
            Some("tool_use") => {
                let id = block.get("id").and_then(Value::as_str).unwrap_or("");
                let name = block.get("name").and_then(Value::as_str).unwrap_or("");
                let tool_index = self.next_tool_index;
                self.next_tool_index += 1;
                self.tool_blocks.push((index, tool_index));
                Some(StreamItem::ToolCallStarted {
                    index: tool_index,
                    id: id.to_owned(),
                    name: name.to_owned(),
                })
            }
            Some("text") => block
                .get("text")
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
                .map(|text| StreamItem::Text(text.to_owned())),
            _ => None,
        }
    }

    /// `content_block_delta`: a piece of text, of thinking, of its
    /// signature, or of a tool call's arguments. Empty pieces are dropped.
    fn block_delta(&self, event: &Value) -> Result<Option<StreamItem>, ModelError> {
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        let delta = event.get("delta").unwrap_or(&Value::Null);
        let text = |key: &str| {
            delta
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let item = match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => StreamItem::Text(text("text")),
            Some("thinking_delta") => StreamItem::Reasoning(text("thinking")),
            Some("signature_delta") => StreamItem::ReasoningSignature(text("signature")),
            Some("input_json_delta") => {
                let tool_index = self
                    .tool_blocks
                    .iter()
                    .find(|(block, _)| *block == index)
                    .map(|(_, tool)| *tool)
                    .ok_or_else(|| {
                        ModelError::Malformed(format!(
                            "input_json_delta for block {index}, which is not a tool_use"
                        ))
                    })?;
                let partial = text("partial_json");
                if partial.is_empty() {
                    return Ok(None);
                }
                StreamItem::ToolCallArguments {
                    index: tool_index,
                    delta: partial,
                }
            }
            _ => return Ok(None),
        };
        // An empty signature too: kept, it would be sent back as a
        // thinking block signed with "", which the API refuses.
        let empty = matches!(&item, StreamItem::Text(t) | StreamItem::Reasoning(t) | StreamItem::ReasoningSignature(t) if t.is_empty());
        Ok((!empty).then_some(item))
    }

    pub fn finish(&self) -> Result<(), ModelError> {
        if self.done {
            Ok(())
        } else {
            Err(ModelError::StreamCut("no message_stop".into()))
        }
    }

    fn read_usage(&mut self, usage: &Value) {
        let get = |key: &str| usage.get(key).and_then(Value::as_u64);
        let fresh = get("input_tokens");
        let cache_read = get("cache_read_input_tokens");
        let cache_write = get("cache_creation_input_tokens");
        if fresh.is_some() || cache_read.is_some() || cache_write.is_some() {
            self.usage.input_tokens =
                fresh.unwrap_or(0) + cache_read.unwrap_or(0) + cache_write.unwrap_or(0);
            self.usage.cached_input_tokens = cache_read.unwrap_or(0);
        }
        if let Some(output) = get("output_tokens") {
            self.usage.output_tokens = output;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AssistantTurn, ToolCall, ToolResultMessage};

    #[test]
    fn parses_a_documented_stream() {
        let mut parser = StreamParser::default();
        let events = [
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"usage":{"input_tokens":25,"cache_read_input_tokens":5,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"ping"}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"exec","input":{}}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"ls\"}"}}"#,
            r#"{"type":"content_block_stop","index":2}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":15}}"#,
            r#"{"type":"message_stop"}"#,
        ];
        let mut items = Vec::new();
        for event in events {
            items.extend(parser.feed(event).unwrap());
        }
        parser.finish().unwrap();
        assert_eq!(
            items,
            vec![
                StreamItem::Reasoning("Let me".into()),
                StreamItem::ReasoningSignature("sig".into()),
                StreamItem::Text("Hi".into()),
                StreamItem::ToolCallStarted {
                    index: 0,
                    id: "toolu_1".into(),
                    name: "exec".into()
                },
                StreamItem::ToolCallArguments {
                    index: 0,
                    delta: "{\"command\": \"ls\"}".into()
                },
                StreamItem::Usage(Usage {
                    input_tokens: 30,
                    output_tokens: 15,
                    cached_input_tokens: 5,
                    reasoning_tokens: 0
                }),
                StreamItem::Finished,
            ]
        );
    }

    #[test]
    fn error_event_and_cut_stream() {
        let mut parser = StreamParser::default();
        let err = parser
            .feed(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)
            .unwrap_err();
        assert_eq!(err, ModelError::Provider("Overloaded".into()));
        assert!(parser.finish().is_err());
    }

    #[test]
    fn tool_results_and_injected_text_share_one_user_message() {
        let messages = vec![
            Message::System { text: "sys".into() },
            Message::User {
                text: "task".into(),
                images: Vec::new(),
            },
            Message::Assistant(AssistantTurn {
                text: "ok".into(),
                tool_calls: vec![ToolCall {
                    id: "t1".into(),
                    name: "exec".into(),
                    arguments: "{\"command\":\"ls\"}".into(),
                }],
                ..AssistantTurn::default()
            }),
            Message::Tool(ToolResultMessage {
                call_id: "t1".into(),
                name: "exec".into(),
                content: "out".into(),
                is_error: false,
                image: None,
            }),
            Message::User {
                text: "also".into(),
                images: Vec::new(),
            },
        ];
        let json = crate::model::request_json(
            crate::model::WireFormat::Anthropic,
            &ModelRequest {
                model_id: "claude",
                messages: &messages,
                tools: &crate::model::ToolSet::default(),
                max_output_tokens: 64,
                temperature: None,
                cache_key: None,
            },
        );
        let body: Value = serde_json::from_str(&json).unwrap();
        assert!(body.get("tools").is_none(), "no tools, no member");
        assert_eq!(body["system"][0]["text"], "sys");
        let sent = body["messages"].as_array().unwrap();
        assert_eq!(sent.len(), 3);
        assert_eq!(sent[1]["content"][1]["input"], json!({"command": "ls"}));
        assert_eq!(sent[2]["content"][0]["type"], "tool_result");
        assert_eq!(sent[2]["content"][1]["text"], "also");

        // Three cache marks: the system prompt, the message before the
        // last assistant turn, the newest message's last block.
        let ephemeral = json!({"type": "ephemeral"});
        assert_eq!(body["system"][0]["cache_control"], ephemeral);
        assert_eq!(sent[0]["content"][0]["cache_control"], ephemeral);
        assert_eq!(sent[2]["content"][1]["cache_control"], ephemeral);
        let marks = body.to_string().matches("cache_control").count();
        assert_eq!(marks, 3);
    }
}

/// The parser behind the SSE decoder, over generated streams: cut into
/// chunks anywhere, cut short, mutated, or random bytes.
#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;
    use crate::model::sse::test_support::{
        Framing, Outcome, assert_bounded, cut_short, cuts, framing, mutate, mutations, run, split,
        text,
    };

    #[derive(Debug, Clone)]
    enum Block {
        Thinking(Vec<String>, String),
        Text(Vec<String>),
        ToolUse(String, Vec<String>),
    }

    fn block() -> impl Strategy<Value = Block> {
        prop_oneof![
            (prop::collection::vec(text(), 0..3), text())
                .prop_map(|(pieces, signature)| Block::Thinking(pieces, signature)),
            prop::collection::vec(text(), 0..4).prop_map(Block::Text),
            (
                prop::sample::select(vec!["read_file", "exec"]),
                prop::collection::vec(text(), 0..4)
            )
                .prop_map(|(name, pieces)| Block::ToolUse(name.to_owned(), pieces)),
        ]
    }

    fn blocks() -> impl Strategy<Value = (Vec<Block>, (u64, u64, u64))> {
        (
            prop::collection::vec(block(), 0..4),
            (0..100_000u64, 0..100_000u64, 0..100_000u64),
        )
    }

    fn stream(blocks: &[Block], usage: (u64, u64, u64), framing: &Framing) -> Vec<u8> {
        let mut events = vec![
            json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","usage":{"input_tokens":usage.0,"cache_read_input_tokens":usage.1,"output_tokens":1}}}),
        ];
        for (index, block) in blocks.iter().enumerate() {
            let (start, deltas): (Value, Vec<Value>) = match block {
                Block::Thinking(pieces, signature) => (
                    json!({"type":"thinking","thinking":""}),
                    pieces
                        .iter()
                        .map(|piece| json!({"type":"thinking_delta","thinking":piece}))
                        .chain([json!({"type":"signature_delta","signature":signature})])
                        .collect(),
                ),
                Block::Text(pieces) => (
                    json!({"type":"text","text":""}),
                    pieces
                        .iter()
                        .map(|piece| json!({"type":"text_delta","text":piece}))
                        .collect(),
                ),
                Block::ToolUse(name, pieces) => (
                    json!({"type":"tool_use","id":format!("toolu_{index}"),"name":name,"input":{}}),
                    pieces
                        .iter()
                        .map(|piece| json!({"type":"input_json_delta","partial_json":piece}))
                        .collect(),
                ),
            };
            events.push(json!({"type":"content_block_start","index":index,"content_block":start}));
            if index == 0 {
                events.push(json!({"type":"ping"}));
            }
            for delta in deltas {
                events.push(json!({"type":"content_block_delta","index":index,"delta":delta}));
            }
            events.push(json!({"type":"content_block_stop","index":index}));
        }
        events.push(json!({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":usage.2}}));
        events.push(json!({"type":"message_stop"}));
        let named: Vec<(Option<&str>, String)> = events
            .iter()
            .map(|event| (event["type"].as_str(), event.to_string()))
            .collect();
        framing.write(&named)
    }

    /// What the items must add up to.
    fn check(blocks: &[Block], usage: (u64, u64, u64), (items, end): &Outcome) {
        assert_eq!(end, &Ok(()));
        let mut expected = Vec::new();
        let mut tools = 0;
        for (position, block) in blocks.iter().enumerate() {
            match block {
                Block::Thinking(pieces, signature) => {
                    expected.extend(
                        pieces
                            .iter()
                            .filter(|p| !p.is_empty())
                            .cloned()
                            .map(StreamItem::Reasoning),
                    );
                    if !signature.is_empty() {
                        expected.push(StreamItem::ReasoningSignature(signature.clone()));
                    }
                }
                Block::Text(pieces) => {
                    expected.extend(
                        pieces
                            .iter()
                            .filter(|p| !p.is_empty())
                            .cloned()
                            .map(StreamItem::Text),
                    );
                }
                Block::ToolUse(name, pieces) => {
                    let index = tools;
                    tools += 1;
                    expected.push(StreamItem::ToolCallStarted {
                        index,
                        id: format!("toolu_{position}"),
                        name: name.clone(),
                    });
                    expected.extend(pieces.iter().filter(|p| !p.is_empty()).map(|piece| {
                        StreamItem::ToolCallArguments {
                            index,
                            delta: piece.clone(),
                        }
                    }));
                }
            }
        }
        expected.push(StreamItem::Usage(Usage {
            input_tokens: usage.0 + usage.1,
            output_tokens: usage.2,
            cached_input_tokens: usage.1,
            reasoning_tokens: 0,
        }));
        expected.push(StreamItem::Finished);
        assert_eq!(items, &expected);
    }

    fn parse<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
        run(
            chunks,
            StreamParser::default(),
            StreamParser::feed,
            StreamParser::finish,
        )
    }

    proptest! {
        #![proptest_config(crate::model::sse::test_support::config(32))]

        #[test]
        fn a_valid_stream_split_anywhere_gives_the_same_items(
            (blocks, usage) in blocks(), framing in framing(), cuts in cuts()
        ) {
            let bytes = stream(&blocks, usage, &framing);
            let whole = parse([&bytes[..]]);
            check(&blocks, usage, &whole);
            prop_assert_eq!(parse(split(&bytes, &cuts)), whole);
        }

        #[test]
        fn a_cut_stream_gives_a_prefix_of_the_items_and_is_reported_cut(
            (blocks, usage) in blocks(), framing in framing(),
            cut in any::<prop::sample::Index>(), cuts in cuts()
        ) {
            let bytes = stream(&blocks, usage, &framing);
            cut_short(&bytes, cut, &cuts, parse)?;
        }

        #[test]
        fn mutated_streams_never_panic_and_stay_bounded(
            (blocks, usage) in blocks(), framing in framing(),
            mutations in mutations(), cuts in cuts()
        ) {
            let bytes = mutate(stream(&blocks, usage, &framing), &mutations);
            assert_bounded(&bytes, &cuts, parse, usize::MAX);
        }

        #[test]
        fn random_bytes_never_panic(
            bytes in prop::collection::vec(any::<u8>(), 0..1024), cuts in cuts(), prefix in any::<bool>()
        ) {
            let mut bytes = bytes;
            if prefix {
                bytes.splice(0..0, b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",".iter().copied());
            }
            assert_bounded(&bytes, &cuts, parse, usize::MAX);
        }
    }
}

//! OpenAI-compatible Chat Completions: the request body and a parser that
//! turns the `data:` payloads of the SSE stream into [`StreamItem`]s.
//! Pure functions over JSON, so every provider quirk is a unit test.

use serde_json::{Value, json};

use super::error::{error_message, excerpt, looks_like_context_overflow};
use super::{Image, Message, ModelError, ModelRequest, StreamItem, ToolSpec, Usage};

/// The `tools` array of a Chat Completions request.
pub fn tools_json(tools: &[ToolSpec]) -> String {
    let tools: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                }
            })
        })
        .collect();
    Value::from(tools).to_string()
}

/// The body but its tools (see [`super::request_json`]).
pub(super) fn request_body(request: &ModelRequest<'_>) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    // Chat Completions takes images only from users, and tool messages must
    // follow their assistant message together: images returned by tools
    // go in one user message after the last of them.
    let mut tool_images: Vec<&Image> = Vec::new();
    for message in request.messages {
        if !matches!(message, Message::Tool(_)) && !tool_images.is_empty() {
            messages.push(tool_images_message(&std::mem::take(&mut tool_images)));
        }
        if let Message::Tool(result) = message
            && let Some(image) = &result.image
        {
            tool_images.push(image);
        }
        messages.push(message_json(message));
    }
    if !tool_images.is_empty() {
        messages.push(tool_images_message(&tool_images));
    }
    let mut body = json!({
        "model": request.model_id,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
        "max_tokens": request.max_output_tokens,
    });
    if let Some(temperature) = request.temperature {
        body["temperature"] = Value::from(temperature);
    }
    if let Some(key) = request.cache_key {
        body["prompt_cache_key"] = Value::from(key);
    }
    body
}

fn message_json(message: &Message) -> Value {
    match message {
        Message::System { text } => json!({"role": "system", "content": text}),
        Message::User { text, images } if images.is_empty() => {
            json!({"role": "user", "content": text})
        }
        Message::User { text, images } => {
            let mut parts = vec![json!({"type": "text", "text": text})];
            parts.extend(images.iter().map(image_part));
            json!({"role": "user", "content": parts})
        }
        Message::Assistant(turn) => {
            let mut value = json!({
                "role": "assistant",
                "content": if turn.text.is_empty() { Value::Null } else { Value::from(turn.text.as_str()) },
            });
            if !turn.tool_calls.is_empty() {
                value["tool_calls"] = turn
                    .tool_calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        })
                    })
                    .collect();
            }
            value
        }
        Message::Tool(result) => json!({
            "role": "tool",
            "tool_call_id": result.call_id,
            "content": result.content,
        }),
    }
}

fn image_part(image: &Image) -> Value {
    json!({"type": "image_url", "image_url": {"url": image.data_url()}})
}

fn tool_images_message(images: &[&Image]) -> Value {
    let mut parts =
        vec![json!({"type": "text", "text": "The image(s) returned by the tool calls above:"})];
    parts.extend(images.iter().map(|image| image_part(image)));
    json!({"role": "user", "content": parts})
}

/// State of one streamed completion.
#[derive(Default)]
pub struct StreamParser {
    calls: Vec<PendingCall>,
    done: bool,
}

#[derive(Default)]
struct PendingCall {
    id: String,
    name: String,
    /// Arguments that came before the name was complete.
    early_arguments: String,
    announced: bool,
}

impl StreamParser {
    /// Parses one SSE `data:` payload.
    pub fn feed(&mut self, data: &str) -> Result<Vec<StreamItem>, ModelError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            let mut items = self.announce_all();
            items.push(StreamItem::Finished);
            return Ok(items);
        }
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|err| {
            ModelError::Malformed(format!("a chunk is not JSON ({err}): {}", excerpt(data)))
        })?;
        if let Some(error) = chunk.get("error") {
            let message = error_message(error);
            if looks_like_context_overflow(&message) {
                return Err(ModelError::ContextTooLong(message));
            }
            return Err(ModelError::Provider(message));
        }
        let mut items = Vec::new();
        if let Some(choices) = chunk.get("choices").and_then(Value::as_array) {
            for choice in choices {
                if let Some(delta) = choice.get("delta") {
                    self.read_delta(delta, &mut items)?;
                }
                if choice
                    .get("finish_reason")
                    .is_some_and(|reason| !reason.is_null())
                {
                    items.extend(self.announce_all());
                }
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| !usage.is_null()) {
            items.push(StreamItem::Usage(parse_usage(usage)));
        }
        Ok(items)
    }

    /// Call when the byte stream ended: without `[DONE]` it was cut.
    pub fn finish(&self) -> Result<(), ModelError> {
        if self.done {
            Ok(())
        } else {
            Err(ModelError::StreamCut("no [DONE]".into()))
        }
    }

    fn read_delta(&mut self, delta: &Value, items: &mut Vec<StreamItem>) -> Result<(), ModelError> {
        for key in ["reasoning_content", "reasoning"] {
            if let Some(text) = delta.get(key).and_then(Value::as_str)
                && !text.is_empty()
            {
                items.push(StreamItem::Reasoning(text.to_owned()));
            }
        }
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            items.push(StreamItem::Text(text.to_owned()));
        }
        let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) else {
            return Ok(());
        };
        for (position, call) in calls.iter().enumerate() {
            let index = call
                .get("index")
                .and_then(Value::as_u64)
                .map(|index| index as usize)
                .unwrap_or(position);
            if index > 1024 {
                return Err(ModelError::Malformed(format!("tool call index {index}")));
            }
            // A new index means the earlier calls are complete by name.
            if index >= self.calls.len() {
                items.extend(self.announce_all());
                self.calls.resize_with(index + 1, PendingCall::default);
            }
            let pending = &mut self.calls[index];
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                merge_piece(&mut pending.id, id);
            }
            let function = call.get("function");
            if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str) {
                merge_piece(&mut pending.name, name);
            }
            let arguments = function
                .and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
                .unwrap_or("");
            if pending.announced {
                if !arguments.is_empty() {
                    items.push(StreamItem::ToolCallArguments {
                        index,
                        delta: arguments.to_owned(),
                    });
                }
            } else {
                pending.early_arguments.push_str(arguments);
                if !pending.early_arguments.is_empty() && !pending.name.is_empty() {
                    items.extend(announce(index, pending));
                }
            }
        }
        Ok(())
    }

    fn announce_all(&mut self) -> Vec<StreamItem> {
        let mut items = Vec::new();
        for (index, pending) in self.calls.iter_mut().enumerate() {
            // An index the server skipped (it numbered from 1, or sent
            // index 1000) left a placeholder that nothing filled: there is
            // no call to announce, and a thousand empty ones would be
            // noise made from one small chunk.
            let filled = !pending.id.is_empty()
                || !pending.name.is_empty()
                || !pending.early_arguments.is_empty();
            if !pending.announced && filled {
                items.extend(announce(index, pending));
            }
        }
        items
    }
}

fn announce(index: usize, pending: &mut PendingCall) -> Vec<StreamItem> {
    pending.announced = true;
    if pending.id.is_empty() {
        // Some local servers omit ids; the conversation needs one.
        pending.id = format!("call_{index}_{}", fastrand::u32(..));
    }
    let mut items = vec![StreamItem::ToolCallStarted {
        index,
        id: pending.id.clone(),
        name: pending.name.clone(),
    }];
    let early = std::mem::take(&mut pending.early_arguments);
    if !early.is_empty() {
        items.push(StreamItem::ToolCallArguments {
            index,
            delta: early,
        });
    }
    items
}

/// Ids and names normally come whole in the first chunk, but some servers
/// split them and others repeat them in every chunk: a repeat is ignored,
/// anything else is appended.
fn merge_piece(current: &mut String, piece: &str) {
    if piece.is_empty() || current == piece {
        return;
    }
    current.push_str(piece);
}

fn parse_usage(usage: &Value) -> Usage {
    let number = |path: &[&str]| -> u64 {
        let mut value = usage;
        for key in path {
            match value.get(key) {
                Some(inner) => value = inner,
                None => return 0,
            }
        }
        value.as_u64().unwrap_or(0)
    };
    Usage {
        input_tokens: number(&["prompt_tokens"]),
        output_tokens: number(&["completion_tokens"]),
        cached_input_tokens: number(&["prompt_tokens_details", "cached_tokens"]),
        reasoning_tokens: number(&["completion_tokens_details", "reasoning_tokens"]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AssistantTurn, ToolCall, ToolResultMessage, ToolSpec};

    fn feed_all(chunks: &[&str]) -> Vec<StreamItem> {
        let mut parser = StreamParser::default();
        let mut items = Vec::new();
        for chunk in chunks {
            items.extend(parser.feed(chunk).unwrap());
        }
        parser.finish().unwrap();
        items
    }

    #[test]
    fn text_reasoning_usage_and_done() {
        let items = feed_all(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":1}}}"#,
            "[DONE]",
        ]);
        assert_eq!(
            items,
            vec![
                StreamItem::Reasoning("hmm".into()),
                StreamItem::Text("Hel".into()),
                StreamItem::Text("lo".into()),
                StreamItem::Usage(Usage {
                    input_tokens: 10,
                    output_tokens: 3,
                    cached_input_tokens: 4,
                    reasoning_tokens: 1
                }),
                StreamItem::Finished,
            ]
        );
    }

    #[test]
    fn split_tool_calls_are_announced_once_and_streamed() {
        let items = feed_all(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a\"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"call_","function":{"name":"ex"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"ec","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ]);
        assert_eq!(
            items,
            vec![
                StreamItem::ToolCallStarted {
                    index: 0,
                    id: "call_a".into(),
                    name: "read_file".into()
                },
                StreamItem::ToolCallArguments {
                    index: 0,
                    delta: "{\"pa".into()
                },
                StreamItem::ToolCallArguments {
                    index: 0,
                    delta: "th\":\"a\"}".into()
                },
                StreamItem::ToolCallStarted {
                    index: 1,
                    id: "call_b".into(),
                    name: "exec".into()
                },
                StreamItem::ToolCallArguments {
                    index: 1,
                    delta: "{}".into()
                },
                StreamItem::Finished,
            ]
        );
    }

    #[test]
    fn missing_done_is_a_cut_stream_and_garbage_is_malformed() {
        let mut parser = StreamParser::default();
        parser
            .feed(r#"{"choices":[{"delta":{"content":"x"}}]}"#)
            .unwrap();
        assert!(matches!(parser.finish(), Err(ModelError::StreamCut(_))));
        assert!(matches!(
            parser.feed("{not json"),
            Err(ModelError::Malformed(_))
        ));
        assert!(matches!(
            parser.feed(
                r#"{"error":{"message":"This model's maximum context length is 8192 tokens"}}"#
            ),
            Err(ModelError::ContextTooLong(_))
        ));
    }

    #[test]
    fn request_carries_tools_and_results() {
        let messages = vec![
            Message::System { text: "sys".into() },
            Message::User {
                text: "hi".into(),
                images: Vec::new(),
            },
            Message::Assistant(AssistantTurn {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "exec".into(),
                    arguments: "{\"command\":\"ls\"}".into(),
                }],
                ..AssistantTurn::default()
            }),
            Message::Tool(ToolResultMessage {
                call_id: "c1".into(),
                name: "exec".into(),
                content: "a.txt".into(),
                is_error: false,
                image: None,
            }),
        ];
        let tools = crate::model::ToolSet::new(vec![ToolSpec {
            name: "exec".into(),
            description: "run".into(),
            parameters: json!({"type": "object"}),
        }]);
        let json = crate::model::request_json(
            crate::model::WireFormat::OpenAi,
            &ModelRequest {
                model_id: "m",
                messages: &messages,
                tools: &tools,
                max_output_tokens: 100,
                temperature: None,
                cache_key: None,
            },
        );
        let body: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(body["tools"][0]["function"]["name"], "exec");
        assert_eq!(body["messages"][2]["content"], Value::Null);
        assert_eq!(body["messages"][2]["tool_calls"][0]["id"], "c1");
        assert_eq!(
            body["messages"][3],
            json!({"role": "tool", "tool_call_id": "c1", "content": "a.txt"})
        );
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
    struct Turn {
        reasoning: Vec<String>,
        text: Vec<String>,
        /// Name and the argument text in the pieces it streams in.
        calls: Vec<(String, Vec<String>)>,
        usage: (u64, u64),
    }

    fn turn() -> impl Strategy<Value = Turn> {
        (
            prop::collection::vec(text(), 0..3),
            prop::collection::vec(text(), 0..6),
            prop::collection::vec(
                (
                    prop::sample::select(vec!["read_file", "exec", "write_file"]),
                    prop::collection::vec(text(), 0..4),
                ),
                0..3,
            ),
            (0..100_000u64, 0..100_000u64),
        )
            .prop_map(|(reasoning, text, calls, usage)| Turn {
                reasoning,
                text,
                calls: calls
                    .into_iter()
                    .map(|(name, pieces)| (name.to_owned(), pieces))
                    .collect(),
                usage,
            })
    }

    impl Turn {
        fn stream(&self, framing: &Framing) -> Vec<u8> {
            let mut payloads = Vec::new();
            for piece in &self.reasoning {
                payloads.push(json!({"choices":[{"index":0,"delta":{"reasoning_content":piece}}]}));
            }
            for piece in &self.text {
                payloads.push(json!({"choices":[{"index":0,"delta":{"content":piece}}]}));
            }
            for (index, (name, pieces)) in self.calls.iter().enumerate() {
                payloads.push(json!({"choices":[{"delta":{"tool_calls":[{"index":index,"id":format!("call_{index}"),"type":"function","function":{"name":name,"arguments":""}}]}}]}));
                for piece in pieces {
                    payloads.push(json!({"choices":[{"delta":{"tool_calls":[{"index":index,"function":{"arguments":piece}}]}}]}));
                }
            }
            payloads.push(json!({"choices":[{"delta":{},"finish_reason":"stop"}]}));
            payloads.push(json!({"choices":[],"usage":{"prompt_tokens":self.usage.0,"completion_tokens":self.usage.1}}));
            let mut events: Vec<(Option<&str>, String)> = payloads
                .iter()
                .map(|payload| (None, payload.to_string()))
                .collect();
            events.push((None, "[DONE]".to_owned()));
            framing.write(&events)
        }

        /// What the items must add up to.
        fn check(&self, (items, end): &Outcome) {
            assert_eq!(end, &Ok(()));
            let joined = |pick: fn(&StreamItem) -> Option<&str>| -> String {
                items.iter().filter_map(pick).collect()
            };
            assert_eq!(
                joined(|item| match item {
                    StreamItem::Text(text) => Some(text),
                    _ => None,
                }),
                self.text.concat()
            );
            assert_eq!(
                joined(|item| match item {
                    StreamItem::Reasoning(text) => Some(text),
                    _ => None,
                }),
                self.reasoning.concat()
            );
            for (index, (name, pieces)) in self.calls.iter().enumerate() {
                let started: Vec<_> = items
                    .iter()
                    .filter(|item| matches!(item, StreamItem::ToolCallStarted { index: i, .. } if *i == index))
                    .collect();
                assert_eq!(
                    started,
                    [&StreamItem::ToolCallStarted {
                        index,
                        id: format!("call_{index}"),
                        name: name.clone()
                    }]
                );
                let arguments: String = items
                    .iter()
                    .filter_map(|item| match item {
                        StreamItem::ToolCallArguments { index: i, delta } if *i == index => {
                            Some(delta.as_str())
                        }
                        _ => None,
                    })
                    .collect();
                assert_eq!(arguments, pieces.concat());
            }
            assert_eq!(
                items[items.len() - 2..],
                [
                    StreamItem::Usage(Usage {
                        input_tokens: self.usage.0,
                        output_tokens: self.usage.1,
                        ..Usage::default()
                    }),
                    StreamItem::Finished
                ]
            );
        }
    }

    fn parse<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
        run(
            chunks,
            StreamParser::default(),
            StreamParser::feed,
            StreamParser::finish,
        )
    }

    /// The ids made up for calls without one stay under this many bytes.
    const MADE_UP_ID: usize = 32;

    proptest! {
        #![proptest_config(crate::model::sse::test_support::config(32))]

        #[test]
        fn a_valid_stream_split_anywhere_gives_the_same_items(
            turn in turn(), framing in framing(), cuts in cuts()
        ) {
            let bytes = turn.stream(&framing);
            let whole = parse([&bytes[..]]);
            turn.check(&whole);
            prop_assert_eq!(parse(split(&bytes, &cuts)), whole);
        }

        #[test]
        fn a_cut_stream_gives_a_prefix_of_the_items_and_is_reported_cut(
            turn in turn(), framing in framing(), cut in any::<prop::sample::Index>(), cuts in cuts()
        ) {
            let bytes = turn.stream(&framing);
            cut_short(&bytes, cut, &cuts, parse)?;
        }

        #[test]
        fn mutated_streams_never_panic_and_stay_bounded(
            turn in turn(), framing in framing(), mutations in mutations(), cuts in cuts()
        ) {
            let bytes = mutate(turn.stream(&framing), &mutations);
            assert_bounded(&bytes, &cuts, parse, MADE_UP_ID);
        }

        #[test]
        fn random_bytes_never_panic(
            bytes in prop::collection::vec(any::<u8>(), 0..1024), cuts in cuts(), prefix in any::<bool>()
        ) {
            let mut bytes = bytes;
            if prefix {
                bytes.splice(0..0, b"data: {\"choices\":[{\"delta\":".iter().copied());
            }
            assert_bounded(&bytes, &cuts, parse, MADE_UP_ID);
        }

        /// Tool call indexes as a broken server might number them.
        #[test]
        fn skipped_tool_call_indexes_announce_no_empty_calls(
            indexes in prop::collection::vec(0..2000u64, 1..6)
        ) {
            let mut parser = StreamParser::default();
            let mut items = Vec::new();
            for index in &indexes {
                let chunk = json!({"choices":[{"delta":{"tool_calls":[{"index":index,"id":format!("c{index}"),"function":{"name":"exec","arguments":"{}"}}]}}]});
                match parser.feed(&chunk.to_string()) {
                    Ok(new) => items.extend(new),
                    Err(err) => {
                        prop_assert!(*index > 1024, "{err}");
                        break;
                    }
                }
            }
            items.extend(parser.feed("[DONE]").unwrap_or_default());
            for item in &items {
                if let StreamItem::ToolCallStarted { name, .. } = item {
                    prop_assert_eq!(name, "exec");
                }
            }
        }
    }
}

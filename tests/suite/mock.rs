//! A mock model server on 127.0.0.1 that answers each POST with the next
//! scripted reply, byte for byte: SSE streams as OpenAI and Anthropic
//! document them, error statuses with headers, streams cut midway. It
//! records every request and checks that every tool call the model made is
//! answered by a tool result in the next request.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

#[derive(Clone, Debug)]
pub enum Reply {
    /// A 200 SSE stream, written event by event with `pause` between them.
    Stream {
        events: Vec<String>,
        pause: Duration,
    },
    /// The stream's first `keep` bytes, then the connection is closed.
    Cut { events: Vec<String>, keep: usize },
    /// A stream that sends its first events and then nothing, forever.
    Stall { events: Vec<String> },
    /// Any bytes with a content type (pages, images).
    Bytes { content_type: String, body: Vec<u8> },
    /// `then`, after noting in `seen` whether `path` existed once the
    /// request was read: what the agent had written by the time its
    /// request arrived.
    Probe {
        path: std::path::PathBuf,
        seen: Arc<Mutex<Option<bool>>>,
        then: Box<Reply>,
    },
    /// A plain answer (errors).
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
}

impl Reply {
    pub fn stream(events: Vec<String>) -> Reply {
        Reply::Stream {
            events,
            pause: Duration::ZERO,
        }
    }

    pub fn status(status: u16, body: &str) -> Reply {
        Reply::Status {
            status,
            headers: Vec::new(),
            body: body.to_owned(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Recorded {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    /// The names of the tools an OpenAI-format request offered.
    pub fn offered_tools(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|tool| tool["function"]["name"].as_str().unwrap_or("").to_owned())
            .collect()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

pub struct MockServer {
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    violations: Arc<Mutex<Vec<String>>>,
}

impl MockServer {
    /// The server's address with `localhost` as its name (which tests
    /// allow through `[web_fetch] allow_hosts`) and `path` after it.
    pub fn localhost_url(&self, path: &str) -> String {
        let port = self.url.rsplit(':').next().unwrap().trim_end_matches("/v1");
        format!("http://localhost:{port}{path}")
    }

    pub fn start(replies: Vec<Reply>) -> MockServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let violations = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(replies.into_iter()));
        {
            let requests = requests.clone();
            let violations = violations.clone();
            thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { break };
                    let requests = requests.clone();
                    let violations = violations.clone();
                    let replies = replies.clone();
                    thread::spawn(move || {
                        let _ = serve(stream, &requests, &violations, &replies);
                    });
                }
            });
        }
        MockServer {
            url,
            requests,
            violations,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// Tool calls without a tool result in the request that followed.
    pub fn violations(&self) -> Vec<String> {
        self.violations.lock().unwrap().clone()
    }
}

type Replies = Arc<Mutex<std::vec::IntoIter<Reply>>>;

fn serve(
    stream: TcpStream,
    requests: &Mutex<Vec<Recorded>>,
    violations: &Mutex<Vec<String>>,
    replies: &Replies,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_owned();
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            let (name, value) = (name.trim().to_owned(), value.trim().to_owned());
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse().unwrap_or(0);
            }
            headers.push((name, value));
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if let Some(problem) = unanswered_tool_calls(&body) {
        violations.lock().unwrap().push(problem);
    }
    requests.lock().unwrap().push(Recorded {
        path,
        headers,
        body,
    });
    let mut reply =
        replies.lock().unwrap().next().unwrap_or_else(|| {
            Reply::status(500, r#"{"error":{"message":"mock: no reply left"}}"#)
        });
    while let Reply::Probe { path, seen, then } = reply {
        *seen.lock().unwrap() = Some(path.exists());
        reply = *then;
    }
    let mut out = stream;
    match reply {
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} Mock\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            out.write_all(head.as_bytes())?;
            out.write_all(body.as_bytes())?;
        }
        Reply::Bytes { content_type, body } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            out.write_all(head.as_bytes())?;
            out.write_all(&body)?;
        }
        Reply::Stream { events, pause } => {
            out.write_all(SSE_HEAD.as_bytes())?;
            for event in events {
                if !pause.is_zero() {
                    thread::sleep(pause);
                }
                out.write_all(event.as_bytes())?;
                out.flush()?;
            }
        }
        Reply::Cut { events, keep } => {
            out.write_all(SSE_HEAD.as_bytes())?;
            let all = events.concat();
            out.write_all(&all.as_bytes()[..keep.min(all.len())])?;
            out.flush()?;
        }
        Reply::Probe { .. } => unreachable!("probes are unwrapped above"),
        Reply::Stall { events } => {
            out.write_all(SSE_HEAD.as_bytes())?;
            out.write_all(events.concat().as_bytes())?;
            out.flush()?;
            thread::sleep(Duration::from_secs(60));
        }
    }
    out.flush()?;
    let _ = out.shutdown(std::net::Shutdown::Both);
    Ok(())
}

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";

/// Checks an OpenAI or Anthropic request body: every tool call of an
/// assistant message must be answered before the next assistant message.
fn unanswered_tool_calls(body: &Value) -> Option<String> {
    let messages = body.get("messages")?.as_array()?;
    let mut open: Vec<String> = Vec::new();
    for message in messages {
        let role = message["role"].as_str().unwrap_or("");
        if role == "assistant" {
            if !open.is_empty() {
                return Some(format!("tool calls {open:?} have no result"));
            }
            for call in message["tool_calls"].as_array().into_iter().flatten() {
                open.push(call["id"].as_str().unwrap_or("").to_owned());
            }
            for block in message["content"].as_array().into_iter().flatten() {
                if block["type"] == "tool_use" {
                    open.push(block["id"].as_str().unwrap_or("").to_owned());
                }
            }
        }
        if role == "tool" {
            let id = message["tool_call_id"].as_str().unwrap_or("");
            open.retain(|call| call != id);
        }
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                let id = block["tool_use_id"].as_str().unwrap_or("");
                open.retain(|call| call != id);
            }
        }
    }
    (!open.is_empty()).then(|| format!("tool calls {open:?} have no result"))
}

/// SSE as OpenAI's Chat Completions stream it.
pub mod openai {
    use super::*;

    fn chunk(delta: Value, finish: Option<&str>) -> String {
        let data = json!({
            "id": "chatcmpl-mock",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": "mock-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        });
        format!("data: {data}\n\n")
    }

    pub fn role() -> String {
        chunk(json!({"role": "assistant", "content": ""}), None)
    }

    pub fn text(piece: &str) -> String {
        chunk(json!({"content": piece}), None)
    }

    pub fn reasoning(piece: &str) -> String {
        chunk(json!({"reasoning_content": piece}), None)
    }

    pub fn tool_start(index: u32, id: &str, name: &str) -> String {
        chunk(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                                    "function": {"name": name, "arguments": ""}}]}),
            None,
        )
    }

    pub fn tool_args(index: u32, piece: &str) -> String {
        chunk(
            json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
            None,
        )
    }

    pub fn finish(reason: &str) -> String {
        chunk(json!({}), Some(reason))
    }

    pub fn usage(prompt: u64, completion: u64) -> String {
        let data = json!({
            "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 1_700_000_000,
            "model": "mock-model", "choices": [],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion,
                      "prompt_tokens_details": {"cached_tokens": 0},
                      "completion_tokens_details": {"reasoning_tokens": 0}},
        });
        format!("data: {data}\n\n")
    }

    pub fn done() -> String {
        "data: [DONE]\n\n".to_owned()
    }

    /// A whole answer in words, with usage and `[DONE]`.
    pub fn text_turn(answer: &str) -> Vec<String> {
        let mut events = vec![role()];
        for word in answer.split_inclusive(' ') {
            events.push(text(word));
        }
        events.extend([finish("stop"), usage(100, 10), done()]);
        events
    }

    /// One tool call whose arguments arrive in pieces of `piece` bytes.
    pub fn tool_turn(calls: &[(&str, &str, Value)]) -> Vec<String> {
        let mut events = vec![role()];
        for (index, (id, name, args)) in calls.iter().enumerate() {
            events.push(tool_start(index as u32, id, name));
            let raw = args.to_string();
            let bytes = raw.as_bytes();
            let mut start = 0;
            while start < bytes.len() {
                let mut end = (start + 7).min(bytes.len());
                while !raw.is_char_boundary(end) {
                    end += 1;
                }
                events.push(tool_args(index as u32, &raw[start..end]));
                start = end;
            }
        }
        events.extend([finish("tool_calls"), usage(120, 30), done()]);
        events
    }
}

/// SSE as Anthropic's Messages API streams it.
pub mod anthropic {
    use super::*;

    fn event(name: &str, data: Value) -> String {
        format!("event: {name}\ndata: {data}\n\n")
    }

    pub fn message_start(input_tokens: u64) -> String {
        event(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": "msg_mock", "type": "message", "role": "assistant", "content": [],
                "model": "claude-mock", "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": input_tokens, "output_tokens": 1}}}),
        )
    }

    pub fn ping() -> String {
        event("ping", json!({"type": "ping"}))
    }

    pub fn text_block(index: u32, pieces: &[&str]) -> Vec<String> {
        let mut events = vec![event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
                   "content_block": {"type": "text", "text": ""}}),
        )];
        for piece in pieces {
            events.push(event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                       "delta": {"type": "text_delta", "text": piece}}),
            ));
        }
        events.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        events
    }

    pub fn tool_block(index: u32, id: &str, name: &str, pieces: &[&str]) -> Vec<String> {
        let mut events = vec![event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
                   "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
        )];
        for piece in pieces {
            events.push(event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": piece}}),
            ));
        }
        events.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        events
    }

    pub fn message_end(stop_reason: &str, output_tokens: u64) -> Vec<String> {
        vec![
            event(
                "message_delta",
                json!({"type": "message_delta",
                       "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                       "usage": {"output_tokens": output_tokens}}),
            ),
            event("message_stop", json!({"type": "message_stop"})),
        ]
    }
}

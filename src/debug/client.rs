//! One debug adapter: its process, in a process group of its own (the
//! program it debugs is its child, in that group or below it); the DAP
//! over its pipes, requests answered by `seq`, events in order; what it
//! last wrote on stderr; how it ended. Every wait has a deadline, gives
//! way to a cancel and to the adapter's end, so an adapter that hangs or
//! dies never hangs the session. The process side is the one MCP servers
//! have ([`crate::tools::service`]).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::framing::{Decoder, encode};
use crate::tools::sandbox::Wait;
use crate::tools::service::{self, Pipes, Service, StderrTail};

/// How much of the adapter's stderr is kept, and quoted in the messages
/// about it.
const STDERR_TAIL: StderrTail = StderrTail {
    kept: 2 * 1024,
    quoted: 512,
};

#[derive(Debug, thiserror::Error)]
pub enum DapError {
    #[error("cannot start the debug adapter `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("the debug adapter did not answer {what} within {} s", .after.as_secs_f64())]
    Timeout { what: String, after: Duration },
    #[error("cancelled")]
    Cancelled,
    /// The adapter ended or closed its pipe: how, and its last words.
    #[error("the debug adapter {0}")]
    Ended(String),
    /// The adapter answered `success: false`.
    #[error("{command} failed: {message}")]
    Refused { command: String, message: String },
}

/// The process side of an adapter, shared with whoever may stop it.
pub type Process = Service;

/// How the adapter ended, after its pipe closed, and its last words.
async fn how_it_ended(process: &Process) -> String {
    let how = process.how_it_ended().await;
    let how = how.as_deref().unwrap_or("closed its pipe");
    format!("{how}{}", process.stderr_quote())
}

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>;

/// A started adapter: requests go out through a writer task, a reader task
/// routes responses to their requests and events to [`Adapter::events`].
pub struct Adapter {
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    seq: Arc<AtomicI64>,
    pending: Pending,
    events: mpsc::UnboundedReceiver<Value>,
    process: Process,
}

/// A request sent, its response not yet read.
pub struct Sent {
    command: String,
    answer: oneshot::Receiver<Value>,
    process: Process,
}

impl Sent {
    /// The body of the response, within `timeout`; a refusal is an error
    /// with the adapter's message.
    pub async fn answer(
        self,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Value, DapError> {
        let Sent {
            command,
            answer,
            process,
        } = self;
        let response = tokio::select! {
            biased;
            answer = answer => answer.ok(),
            () = cancel.cancelled() => return Err(DapError::Cancelled),
            _ = process.end() => None,
            () = tokio::time::sleep(timeout) => {
                return Err(DapError::Timeout { what: command, after: timeout });
            }
        };
        let Some(response) = response else {
            return Err(DapError::Ended(how_it_ended(&process).await));
        };
        if response["success"] == json!(true) {
            return Ok(response["body"].clone());
        }
        let message = response["body"]["error"]["format"]
            .as_str()
            .or_else(|| response["message"].as_str())
            .unwrap_or("no reason given");
        Err(DapError::Refused {
            command,
            message: message.to_owned(),
        })
    }
}

/// What an adapter process starts from.
pub struct Spawn<'a> {
    pub program: &'a str,
    pub args: &'a [&'a str],
    pub cwd: &'a Path,
    pub env: &'a [(OsString, OsString)],
    pub sandbox: &'a crate::tools::sandbox::Sandbox,
    pub policy: Option<&'a crate::tools::sandbox::Policy>,
}

impl Adapter {
    /// Starts the adapter through the session's sandbox, which also makes
    /// it the leader of its own process group.
    pub fn spawn(spec: &Spawn<'_>) -> Result<Adapter, DapError> {
        let mut command = spec
            .sandbox
            .command(spec.policy, Wait::Build, spec.program, spec.args);
        command
            .current_dir(spec.cwd)
            .env_clear()
            .envs(spec.env.iter().map(|(name, value)| (name, value)))
            .env("PWD", spec.cwd);
        let (pipes, process) =
            service::spawn(&mut command, STDERR_TAIL).map_err(|source| DapError::Spawn {
                command: format!("{} {}", spec.program, spec.args.join(" ")),
                source,
            })?;
        let Pipes { stdin, stdout } = pipes;
        let (outgoing, to_write) = mpsc::unbounded_channel();
        tokio::spawn(write_all(stdin, to_write));
        let (event_tx, events) = mpsc::unbounded_channel();
        let pending: Pending = Arc::default();
        let seq = Arc::new(AtomicI64::new(1));
        let reader = Reader {
            pending: pending.clone(),
            events: event_tx,
            outgoing: outgoing.clone(),
            seq: seq.clone(),
        };
        tokio::spawn(reader.run(stdout));
        Ok(Adapter {
            outgoing,
            seq,
            pending,
            events,
            process,
        })
    }

    pub fn process(&self) -> Process {
        self.process.clone()
    }

    /// Sends a request; its response is read with [`Sent::answer`], which
    /// borrows nothing, so events can be read while it is awaited.
    pub fn send(&self, command: &str, arguments: Value) -> Sent {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let (tx, answer) = oneshot::channel();
        lock(&self.pending).insert(seq, tx);
        let message =
            json!({"seq": seq, "type": "request", "command": command, "arguments": arguments});
        let _ = self.outgoing.send(encode(&message));
        Sent {
            command: command.to_owned(),
            answer,
            process: self.process.clone(),
        }
    }

    /// Sends a request and waits for its response's body.
    pub async fn request(
        &self,
        command: &str,
        arguments: Value,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Value, DapError> {
        self.send(command, arguments).answer(timeout, cancel).await
    }

    /// The next event, `Ok(None)` when `timeout` passed first. After the
    /// adapter ended, the events it sent before are still read.
    pub async fn next_event(
        &mut self,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Option<Value>, DapError> {
        if let Ok(event) = self.events.try_recv() {
            return Ok(Some(event));
        }
        tokio::select! {
            biased;
            event = self.events.recv() => match event {
                Some(event) => Ok(Some(event)),
                None => Err(DapError::Ended(how_it_ended(&self.process).await)),
            },
            () = tokio::time::sleep(timeout) => Ok(None),
            () = cancel.cancelled() => Err(DapError::Cancelled),
        }
    }

    /// An event already received, without waiting.
    pub fn event_now(&mut self) -> Option<Value> {
        self.events.try_recv().ok()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

async fn write_all(
    mut stdin: tokio::process::ChildStdin,
    mut messages: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(bytes) = messages.recv().await {
        if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
            break;
        }
    }
}

/// Reads the adapter's stdout and routes each message.
struct Reader {
    pending: Pending,
    events: mpsc::UnboundedSender<Value>,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    seq: Arc<AtomicI64>,
}

impl Reader {
    async fn run(self, mut stdout: tokio::process::ChildStdout) {
        let mut decoder = Decoder::default();
        let mut buffer = vec![0u8; 64 * 1024];
        'reading: while let Ok(read @ 1..) = stdout.read(&mut buffer).await {
            decoder.push(&buffer[..read]);
            loop {
                match decoder.next_message() {
                    Ok(Some(message)) => self.route(message),
                    Ok(None) => break,
                    // A stream out of step cannot be read on: the adapter
                    // counts as gone (the pending requests see it).
                    Err(_) => break 'reading,
                }
            }
        }
        // Nobody will answer what is still pending: its waits end now.
        lock(&self.pending).clear();
    }

    fn route(&self, message: Value) {
        match message["type"].as_str() {
            Some("response") => {
                let waiting = message["request_seq"]
                    .as_i64()
                    .and_then(|seq| lock(&self.pending).remove(&seq));
                if let Some(waiting) = waiting {
                    let _ = waiting.send(message);
                }
            }
            Some("event") => {
                let _ = self.events.send(message);
            }
            // A reverse request (`runInTerminal`, `startDebugging`): the
            // agent offers none of them, so each is refused.
            Some("request") => {
                let seq = self.seq.fetch_add(1, Ordering::Relaxed);
                let refusal = json!({
                    "seq": seq,
                    "type": "response",
                    "request_seq": message["seq"],
                    "command": message["command"],
                    "success": false,
                    "message": "not supported by this client",
                });
                let _ = self.outgoing.send(encode(&refusal));
            }
            _ => {}
        }
    }
}

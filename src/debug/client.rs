//! One debug adapter: its process, in a process group of its own (the
//! program it debugs is its child, in that group or below it); the DAP
//! over its pipes, requests answered by `seq`, events in order; what it
//! last wrote on stderr; how it ended. Every wait has a deadline, gives
//! way to a cancel and to the adapter's end, so an adapter that hangs or
//! dies never hangs the session. Modelled on `mcp::client`.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::framing::{Decoder, encode};
use crate::tools::procs;
use crate::tools::sandbox::Wait;

/// How much of the adapter's stderr is kept for the messages about it.
const STDERR_TAIL: usize = 2 * 1024;
/// After the pipe closes, how long the exit status is waited for.
const EXIT_GRACE: Duration = Duration::from_millis(500);

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
#[derive(Clone)]
pub struct Process {
    pid: i32,
    ended: watch::Receiver<Option<String>>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Process {
    pub fn ended(&self) -> Option<String> {
        self.ended.borrow().clone()
    }

    /// Kills the adapter's process group and everything below it (the
    /// debuggee included), while it has not been waited for: its pid
    /// cannot have been reused.
    pub fn kill(&self) {
        if self.ended().is_none()
            && let Some(pid) = rustix::process::Pid::from_raw(self.pid)
        {
            procs::kill_tree(pid);
        }
    }

    /// How it ended, waiting a moment for the status after a closed pipe.
    async fn how_it_ended(&self) -> String {
        let mut ended = self.ended.clone();
        let waited = tokio::time::timeout(EXIT_GRACE, ended.wait_for(Option::is_some)).await;
        let how = match waited {
            Ok(Ok(how)) => how.clone().unwrap_or_default(),
            _ => "closed its pipe".to_owned(),
        };
        format!("{how}{}", self.stderr_quote())
    }

    fn stderr_quote(&self) -> String {
        let tail = self
            .stderr
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        let text = String::from_utf8_lossy(&tail);
        let text = text.trim();
        if text.is_empty() {
            return String::new();
        }
        let start = crate::tools::truncate::floor_boundary(
            text,
            text.len().saturating_sub(STDERR_TAIL / 4),
        );
        let start = text[start..]
            .char_indices()
            .next()
            .map_or(start, |(offset, _)| start + offset);
        format!("; its stderr ends: {}", text[start..].replace('\n', " | "))
    }
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
        let mut ended = process.ended.clone();
        // No await in the arms: a `watch::Ref` held across one would make
        // the future unsendable.
        let response = tokio::select! {
            biased;
            answer = answer => answer.ok(),
            () = cancel.cancelled() => return Err(DapError::Cancelled),
            _ = ended.wait_for(Option::is_some) => None,
            () = tokio::time::sleep(timeout) => {
                return Err(DapError::Timeout { what: command, after: timeout });
            }
        };
        let Some(response) = response else {
            return Err(DapError::Ended(process.how_it_ended().await));
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
            .env("PWD", spec.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let spawn_error = |source| DapError::Spawn {
            command: format!("{} {}", spec.program, spec.args.join(" ")),
            source,
        };
        let mut child = command.spawn().map_err(spawn_error)?;
        let pipes = (child.stdout.take(), child.stdin.take(), child.stderr.take());
        let (Some(stdout), Some(stdin), Some(stderr)) = pipes else {
            return Err(spawn_error(std::io::Error::other(
                "no pipes to the process",
            )));
        };
        let Some(pid) = child.id().and_then(|pid| i32::try_from(pid).ok()) else {
            return Err(spawn_error(std::io::Error::other("the process has no id")));
        };
        // Its owner waits for it: the reaper between commands must not.
        procs::add_service(pid);
        let (ended_tx, ended) = watch::channel(None);
        tokio::spawn(async move {
            let how = match child.wait().await {
                Ok(status) => describe(status),
                Err(err) => format!("was lost track of ({err})"),
            };
            procs::remove_service(pid);
            let _ = ended_tx.send(Some(how));
        });
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        tokio::spawn(keep_tail(stderr, stderr_tail.clone()));
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
            process: Process {
                pid,
                ended,
                stderr: stderr_tail,
            },
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
                None => Err(DapError::Ended(self.process.how_it_ended().await)),
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

fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "ended".to_owned(),
    }
}

async fn keep_tail(mut pipe: tokio::process::ChildStderr, kept: Arc<Mutex<Vec<u8>>>) {
    let mut buffer = [0u8; 4096];
    while let Ok(read @ 1..) = pipe.read(&mut buffer).await {
        let mut tail = lock(&kept);
        tail.extend_from_slice(&buffer[..read]);
        let excess = tail.len().saturating_sub(STDERR_TAIL);
        tail.drain(..excess);
    }
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

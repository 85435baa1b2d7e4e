//! One launched program under its adapter: the start-up handshake (with
//! debugpy's order: `launch` is answered only after `configurationDone`),
//! running on and waiting for the next stop or the end, and what the
//! adapter's events say about the program (where it stopped, its output,
//! its exit code). Reading its stack and variables is `inspect.rs`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::client::{Adapter, DapError};
use super::launch::{AdapterKind, Plan};
use super::{Answer, Trouble};
use crate::tools::truncate::HeadTail;

/// Each request but the start-up's is answered within this.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The adapter starts, launches the program and stops it at its start
/// within this (debugpy takes about a second, more on a loaded machine).
pub const START_TIMEOUT: Duration = Duration::from_secs(30);
/// Program output kept between two answers: its head and tail.
const OUTPUT_KEEP: usize = 8 * 1024;

/// Where and why the program stopped.
#[derive(Debug, Clone)]
pub struct Stop {
    pub reason: String,
    pub thread: Option<i64>,
    /// The adapter's words (an exception's message).
    pub text: Option<String>,
}

/// A program under a debug adapter.
pub struct DapSession {
    pub(super) adapter: Adapter,
    pub(super) kind: AdapterKind,
    pub(super) work_dir: PathBuf,
    /// The program as the model named it.
    pub(super) program: String,
    pub(super) stopped: Option<Stop>,
    /// The thread that stopped last: where the next step goes.
    pub(super) thread: Option<i64>,
    exit_code: Option<i64>,
    pub(super) ended: bool,
    output: HeadTail,
    has_output: bool,
}

/// How a wait for the program ended.
pub enum Waited {
    Stopped,
    Ended,
    StillRunning,
}

impl DapSession {
    /// The handshake: `initialize`, `launch` (paused at its start),
    /// `initialized`, `configurationDone`, the launch's answer, the stop
    /// at the start. On an error the caller kills the adapter.
    pub async fn start(
        adapter: Adapter,
        plan: &Plan,
        work_dir: &Path,
        cancel: &CancellationToken,
    ) -> Result<DapSession, DapError> {
        let mut session = DapSession {
            adapter,
            kind: plan.adapter,
            work_dir: work_dir.to_path_buf(),
            program: plan.command_line.clone(),
            stopped: None,
            thread: None,
            exit_code: None,
            ended: false,
            output: HeadTail::new(OUTPUT_KEEP),
            has_output: false,
        };
        let initialize = json!({
            "clientID": "agent",
            "clientName": "agent",
            "adapterID": plan.adapter.name(),
            "pathFormat": "path",
            "linesStartAt1": true,
            "columnsStartAt1": true,
            "supportsRunInTerminalRequest": false,
            "locale": "en",
        });
        session
            .adapter
            .request("initialize", initialize, START_TIMEOUT, cancel)
            .await?;
        let launch = session
            .adapter
            .send("launch", launch_arguments(plan))
            .answer(START_TIMEOUT, cancel);
        let mut launch = Box::pin(launch);
        let mut launched = false;
        // debugpy sends `initialized` before it answers `launch`, lldb-dap
        // after: wait for both in either order.
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            tokio::select! {
                answer = &mut launch, if !launched => {
                    answer?;
                    launched = true;
                }
                event = session.adapter.next_event(left, cancel) => match event? {
                    Some(event) if event["event"] == "initialized" => break,
                    Some(event) => session.absorb(&event),
                    None => return Err(timeout("the initialized event", START_TIMEOUT)),
                },
            }
        }
        let filters = json!({"filters": []});
        session
            .adapter
            .request("setExceptionBreakpoints", filters, START_TIMEOUT, cancel)
            .await?;
        let done = session.adapter.send("configurationDone", json!({}));
        done.answer(START_TIMEOUT, cancel).await?;
        if !launched {
            launch.await?;
        }
        Ok(session)
    }

    /// Takes in what an event says about the program.
    pub(super) fn absorb(&mut self, event: &Value) {
        let body = &event["body"];
        match event["event"].as_str().unwrap_or("") {
            "stopped" => {
                let thread = body["threadId"].as_i64();
                self.thread = thread.or(self.thread);
                let text = body["text"]
                    .as_str()
                    .or_else(|| body["description"].as_str())
                    .map(str::to_owned);
                self.stopped = Some(Stop {
                    reason: body["reason"].as_str().unwrap_or("paused").to_owned(),
                    thread,
                    text,
                });
            }
            "continued" => self.stopped = None,
            "output" => {
                let category = body["category"].as_str().unwrap_or("console");
                if let ("stdout" | "stderr", Some(text)) = (category, body["output"].as_str()) {
                    self.output.push(text.as_bytes());
                    self.has_output = true;
                }
            }
            "exited" => self.exit_code = body["exitCode"].as_i64(),
            "terminated" => {
                self.ended = true;
                self.stopped = None;
            }
            _ => {}
        }
    }

    /// Takes in the events that came since the last look.
    pub(super) fn absorb_pending(&mut self) {
        while let Some(event) = self.adapter.event_now() {
            self.absorb(&event);
        }
    }

    /// The program's output since the last time it was taken.
    pub(super) fn take_output(&mut self) -> String {
        if !self.has_output {
            return String::new();
        }
        self.has_output = false;
        std::mem::replace(&mut self.output, HeadTail::new(OUTPUT_KEEP)).finish()
    }

    /// Waits until the program stops or ends, up to `timeout`.
    pub async fn wait(
        &mut self,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Waited, DapError> {
        let deadline = Instant::now() + timeout;
        loop {
            self.absorb_pending();
            if self.ended {
                return Ok(Waited::Ended);
            }
            if self.stopped.is_some() {
                return Ok(Waited::Stopped);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(Waited::StillRunning);
            }
            match self.adapter.next_event(left, cancel).await {
                Ok(Some(event)) => self.absorb(&event),
                Ok(None) => return Ok(Waited::StillRunning),
                // An adapter that exits after its program did: the end.
                Err(DapError::Ended(_)) if self.exit_code.is_some() => {
                    self.ended = true;
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// `continue`, or a step of `command` (`next`, `stepIn`, `stepOut`).
    pub async fn resume(
        &mut self,
        command: &str,
        cancel: &CancellationToken,
    ) -> Result<(), DapError> {
        self.absorb_pending();
        let thread = self.thread_id(cancel).await?;
        self.adapter
            .request(
                command,
                json!({"threadId": thread}),
                REQUEST_TIMEOUT,
                cancel,
            )
            .await?;
        self.stopped = None;
        Ok(())
    }

    /// The stopped thread, else the first the adapter lists.
    pub(super) async fn thread_id(&mut self, cancel: &CancellationToken) -> Result<i64, DapError> {
        if let Some(thread) = self.stopped.as_ref().and_then(|stop| stop.thread) {
            return Ok(thread);
        }
        if let Some(thread) = self.thread {
            return Ok(thread);
        }
        let threads = self
            .adapter
            .request("threads", json!({}), REQUEST_TIMEOUT, cancel)
            .await?;
        threads["threads"][0]["id"]
            .as_i64()
            .ok_or_else(|| DapError::Refused {
                command: "threads".to_owned(),
                message: "the program has no threads".to_owned(),
            })
    }

    /// Ends the program and the adapter's session with it: `disconnect`,
    /// briefly (the caller kills the process group after).
    pub async fn disconnect(&mut self, cancel: &CancellationToken) {
        let arguments = json!({"terminateDebuggee": true});
        let _ = self
            .adapter
            .request("disconnect", arguments, Duration::from_secs(2), cancel)
            .await;
    }

    /// The answer after a wait: the program's output (third-party), then
    /// where it stopped or how it ended.
    pub async fn after_wait(
        &mut self,
        waited: Waited,
        waited_for: Duration,
        cancel: &CancellationToken,
    ) -> Answer {
        let note = match waited {
            Waited::Stopped => self.where_stopped(cancel).await,
            Waited::Ended => match self.exit_code {
                Some(code) => format!("the program ended with exit code {code}"),
                None => "the program ended".to_owned(),
            },
            Waited::StillRunning => format!(
                "still running after {} ms; call wait, or terminate",
                waited_for.as_millis()
            ),
        };
        Answer::framed(self.take_output(), note)
    }

    /// `stopped (breakpoint) at prog.py:7 in average`, and the line.
    pub async fn where_stopped(&mut self, cancel: &CancellationToken) -> String {
        let Some(stop) = self.stopped.clone() else {
            return "running".to_owned();
        };
        let mut line = format!("stopped ({})", stop.reason);
        if let Some(text) = stop.text.as_deref().filter(|text| !text.is_empty()) {
            line.push_str(&format!(": {}", super::inspect::clip(text, 200)));
        }
        let top = match self.frames(0, 1, cancel).await {
            Ok(frames) => frames.into_iter().next(),
            Err(_) => None,
        };
        if let Some(frame) = top {
            line.push_str(&format!(" at {}", frame.place(&self.work_dir)));
            if let Some(source) = frame.source_line() {
                line.push_str(&format!("\n  {} | {}", frame.line, source));
            }
        }
        line
    }
}

fn timeout(what: &str, after: Duration) -> DapError {
    DapError::Timeout {
        what: what.to_owned(),
        after,
    }
}

/// The `launch` request's arguments for the adapter: the program paused
/// at its start (`stopOnEntry`), its output sent as events.
fn launch_arguments(plan: &Plan) -> Value {
    let mut arguments = json!({
        "name": "agent",
        "type": plan.adapter.name(),
        "request": "launch",
        "program": plan.program,
        "args": plan.args,
        "cwd": plan.cwd,
        "stopOnEntry": true,
    });
    if plan.adapter == AdapterKind::Debugpy {
        arguments["console"] = json!("internalConsole");
        arguments["redirectOutput"] = json!(true);
        arguments["justMyCode"] = json!(true);
    }
    arguments
}

impl From<DapError> for Trouble {
    fn from(err: DapError) -> Self {
        match err {
            DapError::Cancelled => Trouble::Cancelled,
            DapError::Ended(how) => Trouble::Gone(format!("the debug adapter {how}")),
            other => Trouble::Failed(other.to_string()),
        }
    }
}

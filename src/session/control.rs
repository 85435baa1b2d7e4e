//! What reaches a running session from outside: stdin commands and signals.
//! Every command line is acknowledged at once, before its effect.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use super::hitl::{Answer, HitlDesk};
use crate::protocol::commands::Decision;
use crate::protocol::events::ErrorCode;
use crate::protocol::events::ResolvedBy;
use crate::protocol::reader::{MAX_COMMAND_LINE_BYTES, StdinLine};
use crate::protocol::{Command, Event, EventWriter, parse_command};

/// State the command dispatcher shares with the loop.
pub struct Control {
    pub cancel: CancellationToken,
    pub hitl: HitlDesk,
    injected: Mutex<VecDeque<String>>,
    /// The iteration a `rollback` asked for; the loop acts on it when the
    /// cancel it also triggered has stopped the work in flight.
    rollback: Mutex<Option<u32>>,
    /// The highest iteration with a saved checkpoint (-1: none yet).
    last_checkpoint: AtomicI64,
    /// Cancelled (a one-shot latch) once `session-start` is out: nothing
    /// the dispatcher writes may come before it, and the session may wait
    /// (for its MCP servers) before it.
    started: CancellationToken,
}

impl Default for Control {
    fn default() -> Self {
        Control {
            cancel: CancellationToken::new(),
            hitl: HitlDesk::default(),
            injected: Mutex::new(VecDeque::new()),
            rollback: Mutex::new(None),
            last_checkpoint: AtomicI64::new(-1),
            started: CancellationToken::new(),
        }
    }
}

impl Control {
    /// `session-start` has been written.
    pub fn session_started(&self) {
        self.started.cancel();
    }

    pub fn checkpoint_saved(&self, iteration: u32) {
        self.last_checkpoint
            .fetch_max(i64::from(iteration), Ordering::SeqCst);
    }

    pub fn check_rollback(&self, iteration: u32) -> Result<(), String> {
        let last = self.last_checkpoint.load(Ordering::SeqCst);
        if i64::from(iteration) <= last {
            Ok(())
        } else if last < 0 {
            Err("no checkpoint has been saved yet".to_owned())
        } else {
            Err(format!(
                "no checkpoint for iteration {iteration}; the last one is {last}"
            ))
        }
    }

    pub fn request_rollback(&self, iteration: u32) {
        match self.rollback.lock() {
            Ok(mut guard) => *guard = Some(iteration),
            Err(poisoned) => *poisoned.into_inner() = Some(iteration),
        }
        self.cancel.cancel();
    }

    pub fn take_rollback(&self) -> Option<u32> {
        match self.rollback.lock() {
            Ok(mut guard) => guard.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        }
    }

    pub fn push_inject(&self, text: String) {
        self.lock_injected().push_back(text);
    }

    pub fn take_injects(&self) -> Vec<String> {
        self.lock_injected().drain(..).collect()
    }

    pub fn has_injects(&self) -> bool {
        !self.lock_injected().is_empty()
    }

    fn lock_injected(&self) -> std::sync::MutexGuard<'_, VecDeque<String>> {
        match self.injected.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

/// Reads stdin lines until end of input, acknowledging and applying each.
pub async fn dispatch_commands(
    mut lines: UnboundedReceiver<StdinLine>,
    control: Arc<Control>,
    events: Arc<EventWriter>,
) {
    while let Some(line) = lines.recv().await {
        if !control.started.is_cancelled() {
            // A cancel takes effect at once, also while the session waits
            // before `session-start` (for its MCP servers); its
            // acknowledgement, like everything the dispatcher writes,
            // waits for `session-start` to be out.
            if let StdinLine::Line(bytes) = &line
                && matches!(parse_command(bytes), Ok(Command::Cancel))
            {
                control.cancel.cancel();
            }
            control.started.cancelled().await;
        }
        let command = match line {
            StdinLine::TooLong { bytes } => {
                refuse(
                    &events,
                    "unknown",
                    format!(
                        "command line of {bytes} bytes is over the {MAX_COMMAND_LINE_BYTES}-byte limit; ignored"
                    ),
                );
                continue;
            }
            StdinLine::Line(bytes) => match parse_command(&bytes) {
                Ok(command) => command,
                Err(bad) => {
                    refuse(
                        &events,
                        bad.command.as_deref().unwrap_or("unknown"),
                        bad.message,
                    );
                    continue;
                }
            },
        };
        apply(command, &control, &events);
    }
}

fn apply(command: Command, control: &Control, events: &EventWriter) {
    let kind = command.kind().to_string();
    let kind = kind.as_str();
    match command {
        Command::Cancel => {
            accept(events, kind);
            control.cancel.cancel();
        }
        Command::Inject { text } => {
            if text.trim().is_empty() {
                refuse(events, kind, "inject text is empty".to_owned());
                return;
            }
            accept(events, kind);
            control.push_inject(text);
        }
        Command::HitlResponse { id, decision, data } => {
            if let Err(reason) = control.hitl.check_answer(&id) {
                refuse(events, kind, reason);
                return;
            }
            accept(events, kind);
            let answer = Answer {
                decision,
                data,
                by: ResolvedBy::Stdin,
            };
            if !control.hitl.answer(&id, answer) {
                events.emit(Event::warning(
                    ErrorCode::BadCommand,
                    format!(
                        "request {id:?} was resolved just before this answer arrived; it is ignored"
                    ),
                ));
            }
        }
        Command::ConfirmPlan => {
            let Some(id) = control.hitl.waiting_plan() else {
                refuse(
                    events,
                    kind,
                    "no plan is waiting for confirmation".to_owned(),
                );
                return;
            };
            accept(events, kind);
            let answer = Answer {
                decision: Decision::Approve,
                data: serde_json::Value::Null,
                by: ResolvedBy::Stdin,
            };
            if !control.hitl.answer(&id, answer) {
                events.emit(Event::warning(
                    ErrorCode::BadCommand,
                    "the plan was resolved just before this confirmation arrived; it is ignored",
                ));
            }
        }
        Command::Rollback { iteration } => {
            if let Err(reason) = control.check_rollback(iteration) {
                refuse(events, kind, reason);
                return;
            }
            accept(events, kind);
            control.request_rollback(iteration);
        }
    }
}

fn accept(events: &EventWriter, kind: &str) {
    events.emit(Event::CommandAck {
        command: kind.to_owned(),
        ok: true,
        reason: None,
    });
}

/// A refused line gets its ack and a non-fatal error; the session goes on.
fn refuse(events: &EventWriter, kind: &str, reason: String) {
    events.emit(Event::CommandAck {
        command: kind.to_owned(),
        ok: false,
        reason: Some(reason.clone()),
    });
    events.emit(Event::warning(ErrorCode::BadCommand, reason));
}

/// Turns SIGINT, SIGTERM and SIGHUP into a cancel.
pub fn cancel_on_signals(control: Arc<Control>) {
    use tokio::signal::unix::{SignalKind, signal};
    for kind in [
        SignalKind::interrupt(),
        SignalKind::terminate(),
        SignalKind::hangup(),
    ] {
        let Ok(mut stream) = signal(kind) else {
            continue;
        };
        let control = control.clone();
        tokio::spawn(async move {
            if stream.recv().await.is_some() {
                control.cancel.cancel();
            }
        });
    }
}

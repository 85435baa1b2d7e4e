//! The loop breaker in the session: a few lines in `run_tool_call` and
//! `iterate` call these.

use serde_json::Value;

use super::{Tier, Verdict};
use crate::protocol::events::{ErrorCode, Event, ExitReason};
use crate::session::Session;
use crate::tools::BadCall;

/// What the breaker compares: the parsed arguments, or the raw text when
/// they do not parse (a string is never equal to an object).
pub(in crate::session) fn loop_args(parsed: &Result<Value, String>, raw: &str) -> Value {
    match parsed {
        Ok(arguments) => arguments.clone(),
        Err(_) => Value::String(raw.to_owned()),
    }
}

impl Session {
    /// The breaker's say on a call: `Err` with the model's answer when it
    /// is not run, after an `error` event that shows why. A stuck session
    /// is marked to end after this turn's calls get their results.
    pub(in crate::session) fn loop_check(
        &mut self,
        name: &str,
        args: &Value,
    ) -> Result<(), BadCall> {
        match self.loops.before(name, args) {
            Verdict::Run => Ok(()),
            Verdict::Block {
                tier: Tier::Stuck,
                message,
            } => {
                self.stuck = Some(message.clone());
                Err(BadCall(format!("not run: {message}")))
            }
            Verdict::Block { tier, message } => {
                self.events
                    .emit(Event::warning(tier.code(), format!("{name}: {message}")));
                Err(BadCall(message))
            }
        }
    }

    /// Why the rest of a turn's calls are not run, if they are not.
    pub(in crate::session) fn not_running(&self) -> Option<&'static str> {
        if self.control.cancel.is_cancelled() {
            Some("not run: the session was cancelled")
        } else if self.stuck.is_some() {
            Some("not run: the session stops, a tool kept failing")
        } else {
            None
        }
    }

    /// Ends a stuck session: its checkpoint, then the fatal `error` that
    /// says what kept failing, right before `session-end`.
    pub(in crate::session) fn end_stuck(&mut self) -> Option<ExitReason> {
        let message = self.stuck.take()?;
        self.save_checkpoint();
        self.events.emit(Event::Error {
            code: ErrorCode::LoopStuck,
            message,
            fatal: true,
            attempt: None,
        });
        Some(ExitReason::Stuck)
    }
}

//! Translates what a running tool reports into wire events: the one place
//! that knows which event each report becomes, and that a secret joins
//! the mask before anything after it is written.

use std::sync::Arc;

use crate::protocol::EventWriter;
use crate::protocol::events::Event;
use crate::tools::{Report, Reporter};

/// The reporter of one tool call.
pub struct CallEvents {
    pub events: Arc<EventWriter>,
    pub call_id: String,
}

impl Reporter for CallEvents {
    fn report(&self, report: Report<'_>) {
        let mask = self.events.redactor();
        match report {
            Report::Output { stream, text, now } => {
                let event = Event::ExecLog {
                    id: self.call_id.clone(),
                    stream,
                    data: text,
                };
                match now {
                    true => self.events.emit_now(event),
                    false => self.events.emit(event),
                };
            }
            Report::FileChanged {
                path,
                op,
                bytes,
                diff,
            } => {
                self.events.emit(Event::FileComplete {
                    id: self.call_id.clone(),
                    path,
                    op,
                    bytes,
                    diff,
                });
            }
            Report::Warning { code, message } => {
                self.events.emit(Event::warning(code, message));
            }
            Report::SecretValue(value) => mask.add_exact(value),
            Report::MayHoldKeys(text) => mask.learn_private_keys(text),
            Report::FileMayHoldKeys(path) => mask.learn_private_keys_in_file(path),
        }
    }
}

//! Untrusted content: what a third party wrote (a web page, what a command
//! downloaded, later an MCP server's answer) reaches the model in one
//! frame that says it is data, with its hidden characters shown; a
//! versioned rule table flags text in it that reads like instructions to
//! the model (`flags` on `tool-result`); and after a flag, until the next
//! user message, the calls an injection would want ask a person.
//!
//! A tool marks its output as third-party with an [`Origin`]
//! (`ToolOutput::untrusted`); [`screen`] does the rest, once, when the
//! session reports the result.

pub mod approve;
pub mod confusables;
pub mod detect;
pub mod encoded;
pub mod frame;
pub mod lexicon;
pub mod margin;
pub mod overrides;
pub mod rules;
pub mod score;
pub mod unescape;

use serde::{Deserialize, Serialize};

use super::{Session, Step};
use crate::protocol::events::Flag;
use crate::tools::MODEL_OUTPUT_LIMIT;
use crate::tools::registry::Call;
use crate::tools::truncate::head_tail;
use crate::tools::untrusted::Origin;
pub use approve::{UntrustedChecks, UntrustedConfig};
pub use detect::detect;
pub use rules::RULES_VERSION;

/// A third-party result was flagged since the last user message; kept in
/// the checkpoint with the rest of the session's progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Taint {
    pub source: String,
    pub origin: String,
    /// The rules that flagged it; empty when `taint = "framed"` made an
    /// unflagged result taint.
    pub rules: Vec<String>,
}

/// A third-party output made ready for the model.
#[derive(Debug)]
pub struct Screened {
    /// The frame, then the tool's own note; within the limit given.
    pub content: String,
    pub flags: Vec<Flag>,
}

/// A tool's note longer than this is framed with the content: no tool
/// writes one, so it was not meant as one.
const MAX_NOTE: usize = 1024;

/// Frames `output` for the model within `limit` bytes and runs the rules
/// over what the model will see of it. Content is never dropped: only cut
/// to head and tail like every output, after its hidden characters are
/// shown.
pub fn screen(output: &str, origin: &Origin, limit: usize) -> Screened {
    let mut split = output.len().saturating_sub(origin.note_len);
    while !output.is_char_boundary(split) {
        split += 1;
    }
    let (body, note) = match output.split_at(split) {
        (_, note) if note.len() > MAX_NOTE => (output, ""),
        parts => parts,
    };
    let flags = detect(&head_tail(body, limit));
    let room = limit.saturating_sub(frame::FRAME_ROOM + note.len());
    let shown = head_tail(&frame::reveal(body), room);
    let mut content = frame::wrap(&shown, &origin.source, &origin.origin, &frame::boundary());
    let note = note.trim_start_matches('\n');
    if !note.is_empty() {
        content.push('\n');
        content.push_str(note);
    }
    Screened { content, flags }
}

/// Before a call runs: where its result will be screened (what a third
/// party wrote), the rule table starts compiling while it runs.
pub(super) fn prepare_for(call: &Call) {
    if will_be_screened(call) {
        detect::prepare();
    }
}

/// Whether the call's result may be a third party's: the tools that
/// fetch, the MCP tools, the transcript search, the debugger, and a
/// command that reaches the network (as `exec` itself decides).
fn will_be_screened(call: &Call) -> bool {
    match call {
        Call::WebFetch(_) | Call::Runtime(_) | Call::SessionSearch(_) | Call::Debug(_) => true,
        Call::Exec(args) => crate::tools::network::reaches_network(&args.command).is_some(),
        _ => false,
    }
}

impl Session {
    /// A third-party result is framed for the model (the `tool-result`
    /// shows the frame too), and its flags, returned for the event, may
    /// taint the session.
    pub(super) async fn screen_untrusted(&mut self, step: &mut Step) -> Vec<Flag> {
        let Step::Done(result) = step else {
            return Vec::new();
        };
        let Some(origin) = result.untrusted.clone() else {
            return Vec::new();
        };
        // Off the async thread: the first call compiles the rule table
        // (a few hundred milliseconds), and stdin must still be read.
        let output = std::mem::take(&mut result.output);
        let job_origin = origin.clone();
        let screened =
            tokio::task::spawn_blocking(move || screen(&output, &job_origin, MODEL_OUTPUT_LIMIT))
                .await
                .unwrap_or_else(|err| Screened {
                    content: format!("[the third-party output could not be framed: {err}]"),
                    flags: Vec::new(),
                });
        if self.config.checks.untrusted().taints(&screened.flags) {
            self.state.progress.taint = Some(Taint {
                source: origin.source.clone(),
                origin: origin.origin.clone(),
                rules: screened
                    .flags
                    .iter()
                    .map(|flag| flag.rule.clone())
                    .collect(),
            });
        }
        result.output = screened.content;
        screened.flags
    }
}

#[cfg(test)]
mod tests;

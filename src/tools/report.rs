//! What a tool shows while it runs. Tools report; the session turns each
//! report into wire events (the "translate, then emit" rule the model
//! stream follows too), so no tool knows the event writer, its order or
//! its mask, and a new tool cannot write an event the contract lacks.

use crate::protocol::events::{ErrorCode, FileOp, OutputStream};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Report<'a> {
    /// Output of a command as it comes. `now`: a partial line that waited
    /// long enough, to be shown at once rather than batched.
    Output {
        stream: OutputStream,
        text: String,
        now: bool,
    },
    /// A file the tool created, changed or deleted.
    FileChanged {
        path: String,
        op: FileOp,
        bytes: u64,
        diff: String,
    },
    /// Something went wrong beside the tool's answer; the session goes on.
    Warning { code: ErrorCode, message: String },
    /// A value that must never be shown (a secret variable of the login
    /// environment): it joins the mask before anything else is reported.
    SecretValue(&'a str),
    /// Text the model is about to see in full (a file read whole) that may
    /// hold private keys: their bodies join the mask.
    MayHoldKeys(&'a str),
    /// A file whose lines the model sees in part (grep matches) that may
    /// hold private keys: read whole, so a key shown line by line is
    /// masked too.
    FileMayHoldKeys(&'a std::path::Path),
}

/// The session's side of a running call.
pub trait Reporter: Send + Sync {
    fn report(&self, report: Report<'_>);
}

//! The wire: event and command types, the stdout writer, the stdin reader,
//! the text rendering, and the redaction every event passes through.

/// `Display` for unit enums as their serde name: the wire spelling is
/// written once, in the `rename_all`, and text output and messages reuse it.
macro_rules! display_as_serde {
    ($($name:ty),+ $(,)?) => {$(
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                serde::Serialize::serialize(self, f)
            }
        }
    )+};
}

pub mod commands;
pub mod events;
pub mod reader;
pub mod redact;
#[cfg(test)]
mod schema;
pub mod text;
pub mod tty;
pub mod writer;

pub use commands::{Command, Decision, parse_command};
pub use events::{Event, ExitReason, Mode};
pub use writer::{EventWriter, OutputFormat};

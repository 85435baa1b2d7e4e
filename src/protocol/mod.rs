//! The wire: event and command types, the stdout writer, the stdin reader,
//! the text rendering, and the redaction every event passes through.

pub mod commands;
pub mod events;
pub mod reader;
pub mod redact;
pub mod text;
pub mod tty;
pub mod writer;

pub use commands::{Command, Decision, parse_command};
pub use events::{Event, ExitReason, Mode};
pub use writer::{EventWriter, OutputFormat};

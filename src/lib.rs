//! `agent`: a coding agent that runs its whole tool loop inside the sandbox
//! and speaks JSON lines (events out on stdout, commands in on stdin).
//!
//! Dependencies point one way: `cli` -> `session` -> `tools`, `model`,
//! `protocol`. Only `protocol::writer` writes to stdout.

#![deny(clippy::print_stdout, clippy::print_stderr)]

/// `eprintln!` that does not panic when stderr is gone (the PTY a
/// detached agent was started on closed): a diagnostic must never take the
/// session down.
#[macro_export]
macro_rules! diag {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod cli;
pub mod config;
pub mod debug;
pub mod mcp;
pub mod model;
pub mod protocol;
pub mod session;
pub mod skills;
pub mod state;
pub mod tools;

/// `0.1.0+<git revision>`, as printed by `--version` and `session-start`.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("AGENT_GIT_REV"));

//! Command line: flags and environment become a [`SessionConfig`], the
//! session runs, and its end becomes the exit status.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, ValueEnum};

mod attach;
pub mod hidden_env;
mod images;
mod offline;
mod sessions;
mod skills;
mod start;

use crate::config::Config;
use crate::protocol::redact::Redactor;
use crate::protocol::{EventWriter, reader, tty};
use crate::session::{Control, Session, control};
use crate::state;
use crate::tools;
use crate::tools::sandbox;

pub use start::{MACHINE_EXIT, USAGE_EXIT};

const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+",
    env!("AGENT_GIT_REV"),
    " (wire protocol 1)"
);

#[derive(Debug, Parser)]
#[command(
    name = "agent",
    version = LONG_VERSION,
    about = "A coding agent that runs its tool loop in this sandbox and speaks JSON lines.",
    long_about = "A coding agent that runs its tool loop in this sandbox.\n\n\
        It writes one JSON event per line on stdout (or readable text with --format text) \
        and reads JSON commands (inject, cancel, ...) one per line on stdin. \
        See docs/protocol.md for every event and command.\n\n\
        Model access: AGENT_API_URL (base URL, e.g. https://proxy.example/v1) and \
        AGENT_API_KEY (bearer token); STRAYL_API_URL and STRAYL_SESSION_TOKEN are fallbacks. \
        With --script FILE the agent plays a scripted model offline instead.",
    after_help = "Example, offline:\n  agent --script examples/demo/script.json --work-dir examples/demo/project \\\n        --prompt 'Summarise the notes' --format text"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Subcommand>,

    /// The task for the agent (may start with `-`).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub prompt: Option<String>,

    /// Model alias (pro, fast, opus, sonnet, haiku, or one from the config
    /// file); an unknown alias is sent as the literal model id.
    #[arg(long, value_name = "ALIAS")]
    pub model: Option<String>,

    /// normal: all tools. plan: read-only tools and write_plan until a
    /// person approves the plan. implement: all tools, told a plan was approved.
    #[arg(long, value_enum, default_value_t = CliMode::Normal)]
    pub mode: CliMode,

    /// Names this session (letters, digits, `.`, `_`, `-`); generated when absent.
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,

    /// The folder the agent works in; tools cannot reach outside it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub work_dir: PathBuf,

    /// Tools not offered to the model, comma separated (e.g. exec,write_file).
    #[arg(long, value_name = "a,b,c", value_delimiter = ',')]
    pub blocked_tools: Vec<String>,

    /// Stop after this many iterations (model call plus its tools).
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub max_iterations: u32,

    /// A summary of earlier work, given to the model as context.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub previous_summary: Option<String>,

    /// Output format: json lines (default, also on a terminal) or text for people.
    #[arg(long, value_enum, default_value_t = CliFormat::Json)]
    pub format: CliFormat,

    /// Play this scripted-model file instead of calling a model server.
    #[arg(long, value_name = "FILE", env = "AGENT_SCRIPT")]
    pub script: Option<PathBuf>,

    /// Config file (TOML); default: $XDG_CONFIG_HOME/agent/config.toml if present.
    #[arg(long, value_name = "FILE", env = "AGENT_CONFIG", global = true)]
    pub config: Option<PathBuf>,

    /// Also write person-in-the-loop requests as DIR/ID.request.json and
    /// take answers from DIR/ID.response.json; the first answer wins.
    #[arg(long, value_name = "DIR")]
    pub hitl_dir: Option<PathBuf>,

    /// Nobody is watching: whatever the approval policy would ask a person
    /// is refused instead.
    #[arg(long)]
    pub unattended: bool,

    /// Continue a session from a checkpoint (the path a checkpoint-saved
    /// event gave): files, conversation, todos and mode as they were, with
    /// --prompt as the next user message.
    #[arg(long, value_name = "PATH")]
    pub restore_checkpoint: Option<PathBuf>,

    /// Where sessions keep their journal and checkpoints
    /// (default: $XDG_STATE_HOME/agent or ~/.local/state/agent).
    #[arg(long, value_name = "DIR", env = "AGENT_STATE_DIR", global = true)]
    pub state_dir: Option<PathBuf>,

    /// Give the model an image with the prompt: a file or an http(s) URL
    /// (PNG, JPEG, GIF or WebP, at most 5 MiB). Repeatable.
    #[arg(long, value_name = "URL_OR_PATH")]
    pub image: Vec<String>,

    /// MCP servers from a JSON file in Claude Code's format
    /// ({"mcpServers": {NAME: {command, args, env}}}, ${VAR} expanded),
    /// added to the config's [mcp_servers]. Repeatable.
    #[arg(long, value_name = "FILE")]
    pub mcp_config: Vec<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
pub enum Subcommand {
    /// Print a session's events after --from-seq from its journal, then
    /// follow it live until session-end; lines written to this command's
    /// stdin are sent to the running agent as commands.
    Attach {
        #[arg(long, value_name = "ID")]
        session_id: String,
        /// Print only events with a greater _seq.
        #[arg(long, value_name = "N", default_value_t = 0)]
        from_seq: u64,
    },
    /// List the checkpoints of a session.
    Checkpoints {
        #[arg(long, value_name = "ID")]
        session_id: String,
    },
    /// Put a finished session's work dir back as it was after an iteration.
    Rollback {
        #[arg(long, value_name = "ID")]
        session_id: String,
        #[arg(long, value_name = "N")]
        iteration: u32,
        /// The work dir to restore (default: the session's own).
        #[arg(long, value_name = "DIR")]
        work_dir: Option<PathBuf>,
        /// Print what would change, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Install skills into the user's skills folder, or list the skills a
    /// session would find.
    Skills {
        #[command(subcommand)]
        command: SkillsCommand,
    },
    /// Search the journals of every session in the state folder, or list
    /// the sessions; one JSON object per line.
    Sessions {
        #[command(subcommand)]
        command: SessionsCommand,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum SessionsCommand {
    /// Print the best matches for the words of QUERY, one JSON object per
    /// line (session_id, seq, ts, type, snippet, ranges, score); a last
    /// line {"partial": true, ...} when the index's size cap left
    /// sessions out. Any text is a valid query; every word must match.
    Search {
        /// The words to find (several arguments are joined by spaces).
        #[arg(required = true, num_args = 1.., allow_hyphen_values = true)]
        query: Vec<String>,
        /// Matches to print at most.
        #[arg(long, value_name = "N", default_value_t = 20,
              value_parser = clap::value_parser!(u16).range(1..=1000))]
        limit: u16,
        /// Search this session only.
        #[arg(long, value_name = "ID")]
        session_id: Option<String>,
    },
    /// List the sessions of the state folder, the most recent first, one
    /// JSON object per line.
    List,
}

#[derive(Debug, clap::Subcommand)]
pub enum SkillsCommand {
    /// Fetch a skill and put it in the user's skills folder
    /// ($XDG_CONFIG_HOME/agent/skills): SOURCE is an http(s) URL of a
    /// SKILL.md, a .zip URL (URL#FOLDER picks a skill in it), or a GitHub
    /// owner/repo[#path] (its raw SKILL.md on main, else master).
    Install {
        source: String,
        /// The SHA-256 the downloaded bytes must have, in hex; nothing is
        /// installed when they do not.
        #[arg(long, value_name = "HEX")]
        sha256: Option<String>,
        /// Install under this name (the SKILL.md's name is changed to it).
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// Replace a skill of the same name.
        #[arg(long)]
        force: bool,
    },
    /// List the skills a session in --work-dir would find, in order of
    /// precedence.
    List {
        #[arg(long, value_name = "DIR", default_value = ".")]
        work_dir: PathBuf,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliMode {
    Normal,
    Plan,
    Implement,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliFormat {
    Json,
    Text,
}

/// The whole program: parse, run, exit status.
pub fn main() -> ExitCode {
    if std::env::args_os().nth(1).as_deref() == Some(std::ffi::OsStr::new(sandbox::TRAMPOLINE_ARG))
    {
        sandbox::trampoline_main(std::env::args_os().collect());
    }
    // First, before anything opens a descriptor (see `take_inherited`).
    hidden_env::take_inherited();
    let session = std::env::args_os().nth(1).is_some_and(|first| {
        !matches!(
            first.to_str(),
            Some("attach" | "checkpoints" | "rollback" | "skills" | "sessions")
        )
    });
    if session && let Err(reason) = hidden_env::hide_builtin_secrets() {
        crate::diag!("agent: warning: the token stays in the agent's environment block: {reason}");
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // --help and --version are "errors" that print to stdout and
            // exit 0; real errors print to stderr and exit 2.
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { USAGE_EXIT } else { 0 });
        }
    };
    if let Some(Subcommand::Skills { command }) = cli.command {
        return skills::run(command, cli.config.as_deref());
    }
    if let Some(command) = cli.command {
        let state_dir = cli.state_dir.clone().or_else(state::default_state_dir);
        if let Subcommand::Sessions { command } = command {
            return sessions::run(command, state_dir, cli.config.as_deref());
        }
        return offline::run(command, state_dir);
    }
    let file_config = match Config::load(cli.config.as_deref()) {
        Ok((config, _)) => config,
        Err(err) => {
            crate::diag!("agent: error: {err}");
            return ExitCode::from(USAGE_EXIT);
        }
    };
    let secret_names = file_config.secret_matcher();
    // Returns only where it cannot be done; then the token stays readable
    // in /proc/<agent>/environ and session-start says so.
    if let Err(reason) = hidden_env::hide_secrets(&secret_names) {
        crate::diag!("agent: warning: the token stays in the agent's environment block: {reason}");
    }
    let guards = start::Guards {
        token_hidden: hidden_env::environ_is_clean(&secret_names) && hidden_env::forbid_dumps(),
        subreaper: tools::procs::become_subreaper(),
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let prepared = match start::resolve(cli, file_config, &runtime)
        .and_then(|resolved| start::open(resolved, guards))
    {
        Ok(prepared) => prepared,
        Err(err) => {
            crate::diag!("agent: error: {err}");
            if matches!(err, start::StartError::Usage(_)) {
                crate::diag!("Try 'agent --help' for more information.");
            }
            return ExitCode::from(err.exit_code());
        }
    };
    let (code, _session) = runtime.block_on(run(prepared));
    // `session-end` is out, every checkpoint it announced is on the disk,
    // the journal and stdout are written without a buffer, every process
    // the session started is gone, and the terminal is restored: what the
    // session and the runtime still hold is memory, descriptors and
    // threads, which the kernel takes back faster than their destructors
    // (freeing the heap piece by piece, closing inotify instances,
    // waking the stdin reader that may sit in a read forever). The wall
    // time of a process per turn is what a conversation waits for.
    // `exit` runs no destructor of this stack: `_session` and `runtime`
    // are left to the kernel.
    std::process::exit(i32::from(code))
}

async fn run(prepared: start::Prepared) -> (u8, Session) {
    // Restored when dropped, on every way out of this function.
    let _raw_input = tty::RawInputGuard::engage();
    let _exclusive = tty::ExclusiveTerminal::engage();
    let journal_path = prepared.session_dir.journal();
    // A restored session goes on numbering after everything it wrote,
    // including the iteration a crash cut short.
    let first_seq = state::journal::last_seq(&journal_path) + 1;
    let events = Arc::new(EventWriter::stdout(
        prepared.format,
        Redactor::new(prepared.secrets),
        first_seq,
    ));
    match state::journal::open(&journal_path) {
        Ok(journal) => events.journal_to(Box::new(journal)),
        Err(err) => crate::diag!("agent: warning: no journal, attach will not work: {err}"),
    }
    let keep = prepared.config.session_id.clone();
    let (state_dir, retention) = (prepared.state_dir.clone(), prepared.retention);
    // Spawned, not run: on this one-thread runtime it starts at the
    // session's first wait, after `session-start` is out (or while MCP
    // servers start, on a thread of its own).
    tokio::spawn(async move {
        let _ = tokio::task::spawn_blocking(move || {
            let removed = state::retention::prune(&state_dir, &keep, retention);
            state::search::forget_removed(&state_dir, &removed);
        })
        .await;
    });
    let control = Arc::new(Control::default());
    control::cancel_on_signals(control.clone());
    let (line_sender, lines) = tokio::sync::mpsc::unbounded_channel();
    reader::spawn_stdin_reader(line_sender.clone());
    let socket = prepared.session_dir.control_socket();
    let admit = |stream: &std::os::unix::net::UnixStream| {
        let peer = rustix::net::sockopt::socket_peercred(stream);
        let admitted = peer
            .as_ref()
            .is_ok_and(|peer| tools::procs::outside_our_tree(peer.pid.as_raw_nonzero().get()));
        if !admitted {
            crate::diag!(
                "agent: refused a control-socket connection from a process this session started ({peer:?})"
            );
        }
        admitted
    };
    if let Err(err) = reader::spawn_socket_reader(&socket, line_sender, admit) {
        crate::diag!("agent: warning: no control socket, attach cannot send commands: {err}");
    }
    let dispatcher = tokio::spawn(control::dispatch_commands(
        lines,
        control.clone(),
        events.clone(),
    ));
    // Started before the session is made, so the servers boot while it
    // sets up; it waits for their tool lists before `session-start`.
    let mcp = crate::mcp::McpManager::start(prepared.mcp_servers, prepared.mcp_env);
    if prepared.config.state.restore.is_none() {
        let config = &prepared.config;
        tools::repo_map::prepare_context(config.repo_map.clone(), &config.work_dir).await;
    }
    let mut session = Session::new(prepared.config, prepared.model, events, control).with_mcp(
        mcp,
        Some(prepared.mcp_reload),
        prepared.mcp_gate,
    );
    let reason = session.run().await;
    dispatcher.abort();
    let _ = std::fs::remove_file(&socket);
    (reason.exit_code(), session)
}

/// The async runtime the agent and its subcommands run on: one thread.
fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| {
            crate::diag!("agent: error: cannot start the async runtime: {err}");
            ExitCode::from(start::MACHINE_EXIT)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

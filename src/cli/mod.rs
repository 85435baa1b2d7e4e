//! Command line: flags and environment become a [`SessionConfig`], the
//! session runs, and its end becomes the exit status.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, ValueEnum};

mod attach;
pub mod hidden_env;
mod images;
mod offline;

use crate::config::Config;
use crate::model::http::{HttpModel, HttpModelConfig};
use crate::model::scripted::ScriptedModel;
use crate::model::{ModelClient, aliases};
use crate::protocol::events::Mode;
use crate::protocol::events::{PlanExecGuard, SandboxReport, StateFolderAccess};
use crate::protocol::redact::Redactor;
use crate::protocol::{EventWriter, OutputFormat, reader, tty};
use crate::session::checks::Checks;
use crate::session::hitl::HitlSettings;
use crate::session::{Control, RestorePoint, Session, SessionConfig, StateSetup, control};
use crate::state::retention::Retention;
use crate::state::{self, SessionDir, checkpoint};
use crate::tools::sandbox::{self, Sandbox};
use crate::tools::{self, exec::ExecSettings};

/// Exit status for a usage error (bad flags, bad config).
pub const USAGE_EXIT: u8 = 2;

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
    #[arg(long, value_name = "FILE", env = "AGENT_CONFIG")]
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

/// A usage error: printed on stderr, exit status 2, nothing on stdout.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(String);

fn usage(message: impl Into<String>) -> UsageError {
    UsageError(message.into())
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
        !matches!(first.to_str(), Some("attach" | "checkpoints" | "rollback"))
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
    if let Some(command) = cli.command {
        let state_dir = cli.state_dir.clone().or_else(state::default_state_dir);
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
    let guards = Guards {
        token_hidden: hidden_env::environ_is_clean(&secret_names) && hidden_env::forbid_dumps(),
        subreaper: tools::procs::become_subreaper(),
    };
    let prepared = match prepare(cli, file_config, guards) {
        Ok(prepared) => prepared,
        Err(err) => {
            crate::diag!("agent: error: {err}");
            crate::diag!("Try 'agent --help' for more information.");
            return ExitCode::from(USAGE_EXIT);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            crate::diag!("agent: error: cannot start the async runtime: {err}");
            return ExitCode::from(1);
        }
    };
    let mut prepared = prepared;
    if !prepared.image_sources.is_empty() {
        if !prepared.config.model.images {
            crate::diag!(
                "agent: error: --image: the model {:?} does not take images (set images = true in its [models] entry)",
                prepared.config.model_alias
            );
            return ExitCode::from(USAGE_EXIT);
        }
        match runtime.block_on(images::load_all(&prepared.image_sources)) {
            Ok(images) => prepared.config.images = images,
            Err(err) => {
                crate::diag!("agent: error: --image {err}");
                return ExitCode::from(USAGE_EXIT);
            }
        }
    }
    let code = runtime.block_on(run(prepared));
    // The stdin reader thread may sit in a blocking read forever; do not
    // wait for it.
    runtime.shutdown_background();
    ExitCode::from(code)
}

struct Prepared {
    image_sources: Vec<String>,
    session_dir: SessionDir,
    state_dir: PathBuf,
    retention: Retention,
    /// Held until the process ends: the session is live while it is.
    _lock: std::fs::File,
    config: SessionConfig,
    model: ModelClient,
    format: OutputFormat,
    secrets: Vec<String>,
}

/// The process-wide protections in place before the session starts.
struct Guards {
    token_hidden: bool,
    subreaper: bool,
}

fn prepare(cli: Cli, file_config: Config, guards: Guards) -> Result<Prepared, UsageError> {
    let Some(prompt) = cli.prompt.filter(|p| !p.trim().is_empty()) else {
        return Err(usage("--prompt TEXT is required (and must not be empty)"));
    };
    let mode = match cli.mode {
        CliMode::Normal => Mode::Normal,
        CliMode::Implement => Mode::Implement,
        CliMode::Plan => Mode::Plan,
    };
    if cli.max_iterations == 0 {
        return Err(usage("--max-iterations must be at least 1"));
    }
    for name in &cli.blocked_tools {
        if !tools::CONTRACT_TOOLS.contains(&name.as_str()) {
            return Err(usage(format!(
                "--blocked-tools: unknown tool {name:?}; the tools are {}",
                tools::CONTRACT_TOOLS.join(", ")
            )));
        }
    }
    let restore = match &cli.restore_checkpoint {
        None => None,
        Some(path) => {
            let path = path
                .canonicalize()
                .map_err(|err| usage(format!("--restore-checkpoint {}: {err}", path.display())))?;
            let manifest = checkpoint::load_manifest(&path)
                .map_err(|err| usage(format!("--restore-checkpoint: {err}")))?;
            Some(RestorePoint { path, manifest })
        }
    };
    let session_id = match (cli.session_id, &restore) {
        (Some(id), Some(point)) if id != point.manifest.session_id => {
            return Err(usage(format!(
                "--session-id {id:?} does not match the checkpoint's session {:?}",
                point.manifest.session_id
            )));
        }
        (_, Some(point)) => point.manifest.session_id.clone(),
        (Some(id), None) if valid_session_id(&id) => id,
        (Some(id), None) => {
            return Err(usage(format!(
                "--session-id {id:?}: use 1 to 128 letters, digits, '.', '_' or '-'"
            )));
        }
        (None, None) => new_session_id(),
    };
    let work_dir = cli
        .work_dir
        .canonicalize()
        .map_err(|err| usage(format!("--work-dir {}: {err}", cli.work_dir.display())))?;
    if !work_dir.is_dir() {
        return Err(usage(format!(
            "--work-dir {} is not a folder",
            work_dir.display()
        )));
    }
    let hitl_dir = match cli.hitl_dir {
        None => None,
        Some(dir) => Some(hitl_folder(&dir)?),
    };
    let state_dir = match &restore {
        Some(point) => checkpoint::session_dir_of(&point.path)
            .ok()
            .and_then(|dir| dir.root.parent()?.parent().map(Path::to_path_buf))
            .ok_or_else(|| {
                usage("--restore-checkpoint: the checkpoint is not inside a state folder")
            })?,
        None => cli
            .state_dir
            .clone()
            .or_else(state::default_state_dir)
            .ok_or_else(|| {
                usage("no state folder: set --state-dir or AGENT_STATE_DIR (HOME is not set)")
            })?,
    };
    state::private_dir(&state_dir).map_err(|err| usage(format!("state folder: {err}")))?;
    let state_dir = state_dir
        .canonicalize()
        .map_err(|err| usage(format!("state folder {}: {err}", state_dir.display())))?;
    if state_dir.starts_with(&work_dir) {
        return Err(usage(format!(
            "the state folder {} is inside the work dir; checkpoints would capture themselves. Use --state-dir",
            state_dir.display()
        )));
    }
    let session_dir = SessionDir::new(&state_dir, &session_id);
    if restore.is_none() && session_dir.root.exists() {
        return Err(usage(format!(
            "session {session_id:?} exists already; continue it with --restore-checkpoint, or use a new --session-id"
        )));
    }
    session_dir
        .create()
        .map_err(|err| usage(format!("session folder: {err}")))?;
    let lock = state::lock_session(&session_dir).map_err(|err| usage(err.to_string()))?;
    let (retention, warnings) = file_config.state.retention();
    for warning in warnings {
        crate::diag!("agent: warning: {warning}");
    }
    let table = aliases::ModelTable::with_overrides(file_config.models.clone());
    let model_alias = cli
        .model
        .or_else(|| file_config.default_model.clone())
        .unwrap_or_else(|| aliases::DEFAULT_ALIAS.to_owned());
    let model_spec = table.resolve(&model_alias);

    let secret_names = file_config.secret_matcher();
    let secrets = hidden_env::secret_values(&secret_names);

    let model = match cli.script {
        Some(path) => {
            ModelClient::Scripted(ScriptedModel::load(&path).map_err(|err| usage(err.to_string()))?)
        }
        None => {
            let base_url = env_nonempty("AGENT_API_URL")
                .or_else(|| env_nonempty("STRAYL_API_URL"))
                .ok_or_else(|| {
                    usage("no model server: set AGENT_API_URL (or STRAYL_API_URL), or pass --script FILE to play a scripted model")
                })?;
            if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
                return Err(usage(format!(
                    "AGENT_API_URL must start with http:// or https://, got {base_url:?}"
                )));
            }
            let api_key = hidden_env::var("AGENT_API_KEY")
                .filter(|value| !value.trim().is_empty())
                .or_else(|| {
                    hidden_env::var("STRAYL_SESSION_TOKEN").filter(|value| !value.trim().is_empty())
                });
            ModelClient::Http(
                HttpModel::new(HttpModelConfig {
                    base_url,
                    api_key,
                    format: model_spec.format,
                    idle_timeout: Duration::from_secs(file_config.http.idle_timeout_secs),
                    connect_timeout: Duration::from_secs(file_config.http.connect_timeout_secs),
                    retry: file_config.retry,
                })
                .map_err(|err| usage(err.to_string()))?,
            )
        }
    };
    let sandbox = Sandbox::probe();
    // The hitl folder too: a command that could write a response file
    // could approve its own request.
    let protected = if file_config.exec.protect_state && sandbox.enforces() {
        std::iter::once(state_dir.clone())
            .chain(hitl_dir.clone())
            .collect()
    } else {
        Vec::new()
    };
    let report = SandboxReport {
        landlock_abi: sandbox.landlock_abi,
        plan_exec: if sandbox.enforces() {
            PlanExecGuard::Landlock
        } else {
            PlanExecGuard::Classifier
        },
        state_folder: if protected.is_empty() {
            StateFolderAccess::Writable
        } else {
            StateFolderAccess::ReadOnly
        },
        token_hidden: guards.token_hidden,
        subreaper: guards.subreaper,
    };
    let exec = ExecSettings::new(
        file_config.exec.shell.clone(),
        Duration::from_millis(file_config.exec.default_timeout_ms),
        Duration::from_millis(file_config.exec.max_timeout_ms),
        secret_names,
        file_config.exec.login_shell,
    )
    .confined(sandbox, protected);
    Ok(Prepared {
        config: SessionConfig {
            session_id,
            prompt,
            model_alias,
            model: model_spec,
            mode,
            work_dir,
            blocked_tools: cli.blocked_tools,
            max_iterations: cli.max_iterations,
            previous_summary: cli.previous_summary,
            exec: Arc::new(exec),
            web: Arc::new(tools::web::WebSettings::new(
                file_config.web_fetch.allow_hosts.clone(),
            )),
            version: crate::VERSION.to_owned(),
            images: Vec::new(),
            checks: Checks::new(file_config.approval.clone(), cli.unattended).map_err(usage)?,
            hitl: HitlSettings {
                timeout: Duration::from_secs(file_config.hitl.timeout_secs),
                dir: hitl_dir,
            },
            compaction: file_config.compaction.clone(),
            sandbox: report,
            state: StateSetup {
                dir: session_dir.clone(),
                max_file_bytes: file_config.state.max_file_mb * 1024 * 1024,
                restore,
            },
        },
        session_dir,
        state_dir,
        retention,
        _lock: lock,
        image_sources: cli.image,
        model,
        format: match cli.format {
            CliFormat::Json => OutputFormat::Json,
            CliFormat::Text => OutputFormat::Text,
        },
        secrets,
    })
}

/// The integration plan passes `--hitl-dir /tmp/hitl` and never makes it,
/// so a missing folder is created, private (0700, parents too). One that
/// exists is used as it is, also through a symlink; a symlink to nothing is
/// refused rather than followed into a folder made wherever it points.
fn hitl_folder(dir: &Path) -> Result<PathBuf, UsageError> {
    use std::os::unix::fs::DirBuilderExt;
    let failed = |err: std::io::Error| usage(format!("--hitl-dir {}: {err}", dir.display()));
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() && !dir.exists() => {
            return Err(usage(format!(
                "--hitl-dir {} is a symlink to nothing",
                dir.display()
            )));
        }
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(failed)?,
        Err(err) => return Err(failed(err)),
    }
    let canonical = dir.canonicalize().map_err(failed)?;
    if !canonical.is_dir() {
        return Err(usage(format!(
            "--hitl-dir {} exists and is not a folder",
            dir.display()
        )));
    }
    Ok(canonical)
}

async fn run(prepared: Prepared) -> u8 {
    // Restored when dropped, on every way out of this function.
    let _raw_input = tty::RawInputGuard::engage();
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
    // session's first wait, after `session-start` is out.
    tokio::spawn(async move {
        let _ = tokio::task::spawn_blocking(move || {
            state::retention::prune(&state_dir, &keep, retention)
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
    let session = Session::new(prepared.config, prepared.model, events, control);
    let reason = session.run().await;
    dispatcher.abort();
    let _ = std::fs::remove_file(&socket);
    reason.exit_code()
}

fn env_nonempty(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

fn valid_session_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && id != "."
        && id != ".."
}

fn new_session_id() -> String {
    format!(
        "s-{}-{:08x}",
        chrono::Utc::now().format("%Y%m%dT%H%M%S"),
        fastrand::u32(..)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_checked() {
        assert!(valid_session_id("abc-1.2_3"));
        assert!(!valid_session_id("../etc"));
        assert!(!valid_session_id(".."));
        assert!(!valid_session_id(""));
        assert!(valid_session_id(&new_session_id()));
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

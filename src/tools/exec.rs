//! `exec`: a bash command in the work dir, its output streamed as
//! `exec-log` while it runs, killed with its whole process group on timeout
//! or cancel.

use super::registry::ToolDef;
use crate::protocol::events::ActivityKind;
use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt};

use super::sandbox::{Policy, PrivateTmp, Sandbox, Wait};
use super::truncate::HeadTail;
use super::{Report, ToolContext, ToolOutput, elapsed_ms, procs};
use crate::protocol::events::{Mode, OutputStream};

mod login;
pub use login::{KEPT_FILE as LOGIN_ENV_FILE, LOGIN_ENV_TIMEOUT};

pub const DESCRIPTION: &str = "Run a bash command in the work dir. Returns its output and exit code. Use timeout_ms for long commands.";

/// Used when the model gives no `timeout_ms`.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// A larger `timeout_ms` is lowered to this.
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// After the command exits, how long its pipes are still read: a background
/// process it started may hold them open forever.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);
/// Output kept for the model: its head and tail within the model's limit,
/// with room for the footer, so the session never cuts it a second time.
pub const KEEP_BYTES: usize = super::MODEL_OUTPUT_LIMIT - 512;
/// `exec-log` stops after this many bytes per call (the rest still reaches
/// the model's head and tail), so stdout is never flooded.
pub const MAX_STREAMED_BYTES: usize = 1024 * 1024;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecArgs {
    pub command: String,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

impl ToolDef for ExecArgs {
    const NAME: &'static str = "exec";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::RunningCommand;
    fn schema() -> Value {
        schema()
    }
    fn action(&self) -> Option<String> {
        Some(format!("run: {}", self.command))
    }
}

pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The bash command line"},
            "timeout_ms": {"type": "integer", "minimum": 1, "description": "Kill the command after this many milliseconds (default 120000, at most 600000)"}
        },
        "required": ["command"],
        "additionalProperties": false
    })
}

/// A partial line is sent as `exec-log` after this long, or once it is
/// this big: a progress bar must show, a byte-at-a-time writer must not
/// make an event per byte.
pub const LINGER: Duration = Duration::from_millis(100);
pub const MAX_CHUNK_BYTES: usize = 8 * 1024;

pub struct ExecSettings {
    /// The shell commands run through: `bash` (the contract's), or another
    /// POSIX shell where there is no bash (a minimal image).
    pub shell: String,
    pub default_timeout: Duration,
    pub max_timeout: Duration,
    pub drain_timeout: Duration,
    /// The agent's environment, secrets already removed.
    pub base_env: Vec<(OsString, OsString)>,
    /// Variables never passed to a command (matched by name).
    pub secret_names: globset::GlobSet,
    /// Whether to run the login profile scripts (once) for the environment.
    pub login_shell: bool,
    login: login::LoginEnv,
    /// What the kernel can confine, and how commands start.
    pub sandbox: Sandbox,
    /// Folders no command may write in any mode (the state folder).
    pub protected: Vec<PathBuf>,
    /// A private temp folder for commands that may write nowhere else
    /// (plan mode, or when the system's temp folder is above a protected
    /// one); made on first use.
    private_tmp: std::sync::OnceLock<Option<PrivateTmp>>,
}

/// Variables the agent uses for itself that a command has no business
/// seeing.
const INTERNAL_VARS: [&str; 1] = [SECRETS_FD_VAR];

/// Names the descriptor through which the agent passes the token to its
/// own re-executed image (`cli::hidden_env`); defined here, where commands'
/// environments are made, so that no command ever sees it.
pub const SECRETS_FD_VAR: &str = "AGENT_INTERNAL_SECRETS_FD";

impl ExecSettings {
    pub fn new(
        shell: String,
        default_timeout: Duration,
        max_timeout: Duration,
        secret_names: globset::GlobSet,
        login_shell: bool,
    ) -> Self {
        let base_env = scrub(std::env::vars_os(), &secret_names);
        ExecSettings {
            shell,
            default_timeout,
            max_timeout,
            drain_timeout: DRAIN_TIMEOUT,
            base_env,
            secret_names,
            login_shell,
            login: login::LoginEnv::default(),
            sandbox: Sandbox::disabled(),
            protected: Vec::new(),
            private_tmp: std::sync::OnceLock::new(),
        }
    }

    /// Commands start through `sandbox`, and never write below `protected`.
    pub fn confined(mut self, sandbox: Sandbox, protected: Vec<PathBuf>) -> Self {
        self.sandbox = sandbox;
        self.protected = protected;
        self
    }

    /// What a command in `mode` may write; `None` runs it unconfined.
    pub fn policy(&self, mode: Mode) -> Option<Policy> {
        if !self.sandbox.enforces() {
            return None;
        }
        match mode {
            Mode::Plan => Some(Policy::ReadOnly {
                writable: self.private_tmp().into_iter().collect(),
            }),
            Mode::Normal | Mode::Implement if self.protected.is_empty() => None,
            Mode::Normal | Mode::Implement => Some(Policy::Protect {
                protected: self.protected.clone(),
            }),
        }
    }

    /// `TMPDIR` for commands in `mode`, when the usual one is not writable
    /// for them.
    fn tmpdir(&self, mode: Mode) -> Option<PathBuf> {
        if !self.sandbox.enforces() {
            return None;
        }
        let system = std::env::temp_dir();
        let blocked = self
            .protected
            .iter()
            .any(|path| path.starts_with(&system) && *path != system);
        (mode == Mode::Plan || blocked)
            .then(|| self.private_tmp())
            .flatten()
    }

    fn private_tmp(&self) -> Option<PathBuf> {
        self.private_tmp
            .get_or_init(|| PrivateTmp::make(&std::env::temp_dir()))
            .as_ref()
            .map(|made| made.path().to_path_buf())
    }

    /// Starts removing the private temp folder, at the end of the
    /// session, on a thread of its own: on a file system mounted with
    /// `discard` the removal waits for the disk (0.4 ms here), as the
    /// session's last sync does, and the two waits overlap. Join the
    /// handle before the process ends.
    pub fn clean_up(&self) -> Option<std::thread::JoinHandle<()>> {
        let path = self.private_tmp.get()?.as_ref()?.path().to_path_buf();
        let remove = move || {
            let _ = std::fs::remove_dir_all(&path);
        };
        match std::thread::Builder::new()
            .name("tmp-clean-up".to_owned())
            .spawn(remove.clone())
        {
            Ok(handle) => Some(handle),
            Err(_) => {
                remove();
                None
            }
        }
    }
}

fn scrub(
    vars: impl Iterator<Item = (OsString, OsString)>,
    secret_names: &globset::GlobSet,
) -> Vec<(OsString, OsString)> {
    vars.filter(|(name, _)| match name.to_str() {
        Some(name) => !secret_names.is_match(name) && !INTERNAL_VARS.contains(&name),
        // A name that is not UTF-8 cannot be matched; keep nothing odd.
        None => false,
    })
    .collect()
}

enum Ended {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

pub async fn run(args: ExecArgs, ctx: &ToolContext) -> ToolOutput {
    if args.command.trim().is_empty() {
        return ToolOutput::fail("command is empty");
    }
    let settings = &ctx.exec;
    let timeout = args
        .timeout_ms
        .map(Duration::from_millis)
        .unwrap_or(settings.default_timeout)
        .min(settings.max_timeout);
    let Some(env) = login::environment(ctx).await else {
        return ToolOutput::fail("[cancelled before the command started]");
    };
    let start = Instant::now();
    let mut child = match spawn(ctx, env, &args.command) {
        Ok(child) => child,
        Err(err) => return ToolOutput::fail(format!("cannot start {}: {err}", settings.shell)),
    };
    let watched = match watch(&mut child, ctx, timeout).await {
        Ok(watched) => watched,
        Err(err) => return ToolOutput::fail(format!("lost track of the command: {err}")),
    };
    // The command itself has been waited for: what ended below it and was
    // re-parented here would stay a zombie for the rest of the session.
    procs::reap_orphans();
    // What a download printed was written by someone else.
    let origin = super::network::reaches_network(&args.command)
        .map(|_| super::untrusted::Origin::new("exec", args.command.as_str()));
    answer(
        watched,
        elapsed_ms(start),
        timeout,
        settings.drain_timeout,
        origin,
    )
}

/// Starts the command in the sandbox the mode asks for.
fn spawn(
    ctx: &ToolContext,
    env: &[(OsString, OsString)],
    line: &str,
) -> std::io::Result<tokio::process::Child> {
    let settings = &ctx.exec;
    let policy = settings.policy(ctx.mode);
    let mut command =
        settings
            .sandbox
            .command(policy.as_ref(), Wait::Build, &settings.shell, &["-c", line]);
    command
        .current_dir(&ctx.work_dir)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(tmp) = settings.tmpdir(ctx.mode) {
        command.env("TMPDIR", tmp);
    }
    if ctx.mode == Mode::Plan {
        // `git status` refreshes the index when it can; in plan mode it
        // must not even try.
        command.env("GIT_OPTIONAL_LOCKS", "0");
    }
    command.spawn()
}

/// What watching a command to its end found.
struct Watched {
    kept: HeadTail,
    ended: Ended,
    /// A background process held the pipes open past the drain timeout.
    abandoned_pipes: bool,
}

/// Reads the command's output (kept for the model, reported live) until
/// it exits and its pipes close, killing its tree on timeout or cancel.
async fn watch(
    child: &mut tokio::process::Child,
    ctx: &ToolContext,
    timeout: Duration,
) -> std::io::Result<Watched> {
    // The command leads its own process group (the trampoline's `setsid`,
    // or `process_group(0)` without it).
    let group = child
        .id()
        .and_then(|id| rustix::process::Pid::from_raw(id as i32));
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let mut kept = HeadTail::new(KEEP_BYTES);
    let mut streams = [
        StreamState::new(OutputStream::Stdout),
        StreamState::new(OutputStream::Stderr),
    ];
    let mut streamed = 0usize;
    let mut out_buf = vec![0u8; 8192];
    let mut err_buf = vec![0u8; 8192];
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let mut ended: Option<Ended> = None;
    let mut exit: Option<ExitStatus> = None;
    let mut drain_until: Option<tokio::time::Instant> = None;
    let mut abandoned_pipes = false;

    while stdout.is_some() || stderr.is_some() || exit.is_none() {
        let linger_until = streams.iter().filter_map(|stream| stream.due).min();
        tokio::select! {
            read = read_some(&mut stdout, &mut out_buf), if stdout.is_some() => match read {
                Some(n) => {
                    kept.push(&out_buf[..n]);
                    streams[0].emit(ctx, &out_buf[..n], &mut streamed);
                }
                None => stdout = None,
            },
            read = read_some(&mut stderr, &mut err_buf), if stderr.is_some() => match read {
                Some(n) => {
                    kept.push(&err_buf[..n]);
                    streams[1].emit(ctx, &err_buf[..n], &mut streamed);
                }
                None => stderr = None,
            },
            status = child.wait(), if exit.is_none() => {
                exit = Some(status?);
                drain_until = Some(tokio::time::Instant::now() + ctx.exec.drain_timeout);
            }
            () = &mut deadline, if ended.is_none() && exit.is_none() => {
                ended = Some(Ended::TimedOut);
                kill_tree(group);
            }
            () = ctx.cancel.cancelled(), if ended.is_none() && exit.is_none() => {
                ended = Some(Ended::Cancelled);
                kill_tree(group);
            }
            () = sleep_until(drain_until), if drain_until.is_some() => {
                abandoned_pipes = true;
                break;
            }
            () = sleep_until(linger_until), if linger_until.is_some() => {
                let now = tokio::time::Instant::now();
                for stream in &mut streams {
                    if stream.due.is_some_and(|due| due <= now) {
                        stream.flush(ctx, &mut streamed, false);
                    }
                }
            }
        }
    }
    for stream in &mut streams {
        stream.flush(ctx, &mut streamed, true);
    }
    let ended = match (ended, exit) {
        (Some(reason), _) => reason,
        (None, Some(status)) => Ended::Exited(status),
        (None, None) => Ended::Cancelled,
    };
    Ok(Watched {
        kept,
        ended,
        abandoned_pipes,
    })
}

/// The output the model reads, with a footer saying how the command ended.
/// `origin`: the command's output is third-party; the footer is not.
fn answer(
    watched: Watched,
    duration: u64,
    timeout: Duration,
    drain: Duration,
    origin: Option<super::untrusted::Origin>,
) -> ToolOutput {
    let mut output = watched.kept.finish();
    if !output.is_empty() && !output.ends_with('\n') {
        output.push('\n');
    }
    let printed = output.len();
    let (ok, footer) = match watched.ended {
        Ended::Exited(status) => match (status.code(), status.signal()) {
            (Some(0), _) => (true, format!("[exit code 0, {duration} ms]")),
            (Some(code), _) => (false, format!("[exit code {code}, {duration} ms]")),
            (None, Some(signal)) => (false, format!("[killed by signal {signal}, {duration} ms]")),
            (None, None) => (false, format!("[ended, {duration} ms]")),
        },
        Ended::TimedOut => (
            false,
            format!(
                "[timed out after {} ms; the command and its children were killed]",
                timeout.as_millis()
            ),
        ),
        Ended::Cancelled => (
            false,
            "[cancelled; the command and its children were killed]".to_owned(),
        ),
    };
    output.push_str(&footer);
    if watched.abandoned_pipes {
        output.push_str(&format!(
            "\n[a background process still holds the output open; stopped reading {} ms after the command exited]",
            drain.as_millis()
        ));
    }
    let note_len = output.len() - printed;
    ToolOutput {
        ok,
        output,
        image: None,
        untrusted: origin.map(|origin| Box::new(origin.with_note(note_len))),
    }
}

async fn read_some<R: AsyncRead + Unpin>(pipe: &mut Option<R>, buf: &mut [u8]) -> Option<usize> {
    let reader = pipe.as_mut()?;
    match reader.read(buf).await {
        Ok(0) | Err(_) => None,
        Ok(n) => Some(n),
    }
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

fn kill_tree(root: Option<rustix::process::Pid>) {
    if let Some(root) = root {
        procs::kill_tree(root);
    }
}

/// Kills a process tree when dropped, unless disarmed.
struct TreeGuard(Option<rustix::process::Pid>);

impl Drop for TreeGuard {
    fn drop(&mut self) {
        kill_tree(self.0.take());
    }
}

/// One output stream of the command: decoded text waiting to be sent as
/// whole lines, or as a partial line once it lingered or grew too big.
struct StreamState {
    stream: OutputStream,
    decoder: Utf8Carry,
    pending: String,
    due: Option<tokio::time::Instant>,
}

impl StreamState {
    fn new(stream: OutputStream) -> Self {
        StreamState {
            stream,
            decoder: Utf8Carry::default(),
            pending: String::new(),
            due: None,
        }
    }

    fn emit(&mut self, ctx: &ToolContext, bytes: &[u8], streamed: &mut usize) {
        self.pending.push_str(&self.decoder.decode(bytes));
        if self.pending.len() >= MAX_CHUNK_BYTES {
            self.flush(ctx, streamed, false);
            return;
        }
        if let Some(end) = self.pending.rfind('\n') {
            let rest = self.pending.split_off(end + 1);
            let lines = std::mem::replace(&mut self.pending, rest);
            self.send(ctx, lines, streamed, false);
        }
        self.due = match (self.pending.is_empty(), self.due) {
            (true, _) => None,
            (false, Some(due)) => Some(due),
            (false, None) => Some(tokio::time::Instant::now() + LINGER),
        };
    }

    /// Sends what is pending. At the end of the stream also the bytes of
    /// an incomplete character; before that they wait for the rest.
    fn flush(&mut self, ctx: &ToolContext, streamed: &mut usize, at_end: bool) {
        let mut text = std::mem::take(&mut self.pending);
        if at_end {
            text.push_str(&self.decoder.finish());
        }
        self.due = None;
        self.send(ctx, text, streamed, true);
    }

    /// `now`: a partial line that waited long enough, shown at once
    /// rather than held for the end of its last word.
    fn send(&mut self, ctx: &ToolContext, text: String, streamed: &mut usize, now: bool) {
        if text.is_empty() || *streamed >= MAX_STREAMED_BYTES {
            return;
        }
        *streamed += text.len();
        let text = if *streamed >= MAX_STREAMED_BYTES {
            format!("{text}\n[... live output stops here; the tool result has the end]\n")
        } else {
            text
        };
        ctx.report.report(Report::Output {
            stream: self.stream,
            text,
            now,
        });
    }
}

/// Decodes a byte stream as UTF-8 across read boundaries: a character split
/// between two reads comes out whole; invalid bytes become U+FFFD.
#[derive(Default)]
pub struct Utf8Carry {
    pending: Vec<u8>,
}

impl Utf8Carry {
    pub fn decode(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        let mut start = 0;
        loop {
            match std::str::from_utf8(&self.pending[start..]) {
                Ok(text) => {
                    out.push_str(text);
                    start = self.pending.len();
                    break;
                }
                Err(err) => {
                    let valid = start + err.valid_up_to();
                    out.push_str(std::str::from_utf8(&self.pending[start..valid]).unwrap_or(""));
                    match err.error_len() {
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            start = valid + bad;
                        }
                        None => {
                            start = valid;
                            break;
                        }
                    }
                }
            }
        }
        self.pending.drain(..start);
        out
    }

    /// What is left at the end of the stream: an incomplete character.
    pub fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.pending);
        String::from_utf8_lossy(&rest).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_split_across_reads_comes_out_whole() {
        let mut carry = Utf8Carry::default();
        let bytes = "aé€😀".as_bytes();
        let mut out = String::new();
        for byte in bytes {
            out.push_str(&carry.decode(&[*byte]));
        }
        out.push_str(&carry.finish());
        assert_eq!(out, "aé€😀");
        assert_eq!(carry.decode(b"x\xffy"), "x\u{FFFD}y");
    }
}

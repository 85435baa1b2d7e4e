//! The debugger the model drives through the `debug` tool: a client of the
//! Debug Adapter Protocol (`framing`, `client`) for two adapters, debugpy
//! and lldb-dap (`launch` picks one and says what command line a launch
//! is judged as), one launched program (`session`, `inspect`), and here
//! its owner: one debug session at a time, ended after an idle timeout,
//! on a second launch, on cancel and with the agent's session. The
//! session (`session/debug.rs`) judges the calls; nothing here knows it.

pub mod client;
pub mod framing;
mod inspect;
pub mod launch;
mod session;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::protocol::events::Mode;
use crate::tools::ToolOutput;
use crate::tools::debug::{Action, DebugArgs, StepKind};
use crate::tools::exec::ExecSettings;
use crate::tools::untrusted::Origin;
use client::{Adapter, Process};
use launch::{AdapterKind, Plan};
use session::{DapSession, Waited};

/// `continue` and `step` wait this long for the next stop by default.
const RESUME_WAIT: Duration = Duration::from_millis(10_000);
/// `wait` waits this long by default.
const WAIT_DEFAULT: Duration = Duration::from_millis(30_000);
/// A longer `timeout_ms` is lowered to this.
const WAIT_MAX: Duration = Duration::from_millis(600_000);

/// `[debugger]` in the config file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DebuggerConfig {
    /// Offers the `debug` tool (experimental).
    pub enabled: bool,
    /// A debug session without a `debug` call for this long is ended.
    pub idle_timeout_secs: u64,
}

impl Default for DebuggerConfig {
    fn default() -> Self {
        DebuggerConfig {
            enabled: false,
            idle_timeout_secs: 600,
        }
    }
}

/// An answer for the model: the program's words (output, values), framed
/// as third-party content, then the tool's own.
pub struct Answer {
    pub third_party: String,
    pub note: String,
}

impl Answer {
    pub fn framed(third_party: String, note: String) -> Answer {
        Answer { third_party, note }
    }

    pub fn own(note: String) -> Answer {
        Answer {
            third_party: String::new(),
            note,
        }
    }

    fn output(self, program: &str) -> ToolOutput {
        if self.third_party.trim().is_empty() {
            return ToolOutput::ok(self.note);
        }
        let note = format!("\n{}", self.note);
        let origin = Origin::new("debug", program).with_note(note.len());
        ToolOutput::ok(format!("{}{note}", self.third_party.trim_end())).from_third_party(origin)
    }
}

/// Why an action did not answer.
#[derive(Debug)]
pub enum Trouble {
    /// The call was wrong, or the adapter refused it: the session goes on.
    Failed(String),
    /// The adapter is gone: the debug session is over.
    Gone(String),
    Cancelled,
}

/// What a debug call needs from the agent's session.
pub struct Context<'a> {
    pub work_dir: &'a Path,
    pub cancel: &'a CancellationToken,
    pub exec: &'a ExecSettings,
    pub mode: Mode,
}

/// The agent session's debugger: at most one debug session.
pub struct Debugger {
    config: DebuggerConfig,
    current: Option<Owned>,
}

/// A debug session and what ends it when nobody uses it.
struct Owned {
    session: DapSession,
    process: Process,
    /// When the idle timeout strikes; `None` while a call runs.
    idle_deadline: watch::Sender<Option<Instant>>,
    idled_out: Arc<AtomicBool>,
}

impl Debugger {
    pub fn new(config: DebuggerConfig) -> Debugger {
        Debugger {
            config,
            current: None,
        }
    }

    pub fn enabled(&self) -> bool {
        self.config.enabled
    }

    /// Kills the adapter and the program, with their process groups and
    /// every process below them; does not wait (the session's end).
    pub fn stop(&self) {
        if let Some(owned) = &self.current {
            owned.process.kill();
        }
    }

    /// Starts a debug session of `plan`, ending the one before if any.
    pub async fn launch(&mut self, plan: Plan, ctx: &Context<'_>) -> ToolOutput {
        let mut ended = String::new();
        if let Some(mut previous) = self.current.take() {
            previous.session.disconnect(ctx.cancel).await;
            previous.process.kill();
            ended = format!(
                "\n(the previous debug session, {}, was ended)",
                previous.session.program
            );
        }
        let program = plan.command_line.clone();
        let answer = match self.start(&plan, ctx).await {
            Ok(answer) => answer,
            Err(Trouble::Cancelled) => return ToolOutput::fail("cancelled"),
            Err(Trouble::Failed(why) | Trouble::Gone(why)) => {
                return ToolOutput::fail(format!(
                    "cannot debug {program}: {why}{}{ended}",
                    hint(plan.adapter, &why)
                ));
            }
        };
        let mut answer = answer;
        answer.note.push_str(&ended);
        answer.output(&program)
    }

    async fn start(&mut self, plan: &Plan, ctx: &Context<'_>) -> Result<Answer, Trouble> {
        let (program, args) = adapter_command(plan.adapter, &ctx.exec.base_env)?;
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let policy = ctx.exec.policy(ctx.mode);
        let spec = client::Spawn {
            program: &program,
            args: &args,
            cwd: &plan.cwd,
            env: &ctx.exec.base_env,
            sandbox: &ctx.exec.sandbox,
            policy: policy.as_ref(),
        };
        let adapter = Adapter::spawn(&spec).map_err(|err| Trouble::Failed(err.to_string()))?;
        let process = adapter.process();
        let started = DapSession::start(adapter, plan, ctx.work_dir, ctx.cancel).await;
        let mut session = match started {
            Ok(session) => session,
            Err(err) => {
                process.kill();
                return Err(err.into());
            }
        };
        let waited = session.wait(session::START_TIMEOUT, ctx.cancel).await;
        let waited = match waited {
            Ok(waited) => waited,
            Err(err) => {
                process.kill();
                return Err(err.into());
            }
        };
        let mut answer = session
            .after_wait(waited, session::START_TIMEOUT, ctx.cancel)
            .await;
        answer.note = format!(
            "launched {} under {}; {}",
            plan.command_line,
            plan.adapter.name(),
            answer.note
        );
        self.own(session, process);
        if self
            .current
            .as_ref()
            .is_some_and(|owned| owned.session.ended)
        {
            self.end();
        } else {
            answer.note.push_str(
                "\nset breakpoints now, then continue (the program is paused at its start)",
            );
        }
        Ok(answer)
    }

    /// Takes `session` on, with its idle timer.
    fn own(&mut self, session: DapSession, process: Process) {
        let idle = Duration::from_secs(self.config.idle_timeout_secs.max(1));
        let (idle_deadline, mut deadline) = watch::channel(Some(Instant::now() + idle));
        let idled_out = Arc::new(AtomicBool::new(false));
        let flag = idled_out.clone();
        let killer = process.clone();
        tokio::spawn(async move {
            loop {
                let at = *deadline.borrow_and_update();
                let changed = match at {
                    None => deadline.changed().await,
                    Some(at) => tokio::select! {
                        () = tokio::time::sleep_until(at.into()) => {
                            flag.store(true, Ordering::SeqCst);
                            killer.kill();
                            return;
                        }
                        changed = deadline.changed() => changed,
                    },
                };
                // The owner is gone: so is the session.
                if changed.is_err() {
                    return;
                }
            }
        });
        self.current = Some(Owned {
            session,
            process,
            idle_deadline,
            idled_out,
        });
    }

    /// Ends the debug session now.
    fn end(&mut self) {
        if let Some(owned) = self.current.take() {
            owned.process.kill();
        }
    }

    /// Runs an action on the current debug session.
    pub async fn act(&mut self, args: &DebugArgs, ctx: &Context<'_>) -> ToolOutput {
        let idle = self.config.idle_timeout_secs;
        let Some(owned) = self.current.as_mut() else {
            return ToolOutput::fail("no debug session: launch a program first");
        };
        if owned.idled_out.load(Ordering::SeqCst) {
            self.end();
            return ToolOutput::fail(format!(
                "the debug session was ended after {idle} s without a debug call; launch again"
            ));
        }
        owned.idle_deadline.send_replace(None);
        let program = owned.session.program.clone();
        let result = run_action(&mut owned.session, args, ctx).await;
        let over = owned.session.ended || args.action == Action::Terminate;
        let idle = Duration::from_secs(idle.max(1));
        owned
            .idle_deadline
            .send_replace(Some(Instant::now() + idle));
        match result {
            Ok(mut answer) => {
                if over {
                    self.end();
                    answer.note.push_str("; the debug session is over");
                }
                answer.output(&program)
            }
            Err(Trouble::Failed(why)) => ToolOutput::fail(why),
            Err(Trouble::Gone(why)) => {
                self.end();
                ToolOutput::fail(format!("{why}; the debug session is over"))
            }
            Err(Trouble::Cancelled) => ToolOutput::fail("cancelled"),
        }
    }
}

async fn run_action(
    session: &mut DapSession,
    args: &DebugArgs,
    ctx: &Context<'_>,
) -> Result<Answer, Trouble> {
    let cancel = ctx.cancel;
    let wait_for = |default: Duration| {
        args.timeout_ms
            .map_or(default, Duration::from_millis)
            .min(WAIT_MAX)
    };
    match args.action {
        Action::Launch => Err(Trouble::Failed(
            "internal error: launch is not an action on a session".to_owned(),
        )),
        Action::Breakpoints => breakpoints(session, args, ctx).await,
        Action::Continue | Action::Step => {
            session.must_be_stopped()?;
            let command = match (args.action, args.kind.unwrap_or(StepKind::Over)) {
                (Action::Continue, _) => "continue",
                (_, StepKind::Over) => "next",
                (_, StepKind::In) => "stepIn",
                (_, StepKind::Out) => "stepOut",
            };
            session.resume(command, cancel).await?;
            let timeout = wait_for(RESUME_WAIT);
            let waited = session.wait(timeout, cancel).await?;
            Ok(session.after_wait(waited, timeout, cancel).await)
        }
        Action::Wait => {
            let timeout = wait_for(WAIT_DEFAULT);
            let waited = session.wait(timeout, cancel).await?;
            Ok(session.after_wait(waited, timeout, cancel).await)
        }
        Action::Stack => session.stack(cancel).await,
        Action::Variables => {
            let depth = args.depth.unwrap_or(1);
            session
                .variables(args.frame.unwrap_or(0), depth, cancel)
                .await
        }
        Action::Evaluate => {
            let Some(expression) = args.expression.as_deref() else {
                return Err(Trouble::Failed("evaluate needs expression".to_owned()));
            };
            session
                .evaluate(expression, args.frame.unwrap_or(0), cancel)
                .await
        }
        Action::Terminate => {
            session.disconnect(cancel).await;
            let _ = session.wait(Duration::from_millis(500), cancel).await;
            let answer = session
                .after_wait(Waited::Ended, Duration::ZERO, cancel)
                .await;
            Ok(Answer::framed(
                answer.third_party,
                format!("terminated ({})", answer.note),
            ))
        }
    }
}

async fn breakpoints(
    session: &mut DapSession,
    args: &DebugArgs,
    ctx: &Context<'_>,
) -> Result<Answer, Trouble> {
    let (Some(path), Some(lines)) = (&args.path, &args.lines) else {
        return Err(Trouble::Failed(
            "breakpoints needs path and lines".to_owned(),
        ));
    };
    let conditions = args.conditions.clone().unwrap_or_default();
    let log_messages = args.log_messages.clone().unwrap_or_default();
    if conditions.len() > lines.len() || log_messages.len() > lines.len() {
        return Err(Trouble::Failed(
            "conditions and log_messages go one per line, in the order of lines".to_owned(),
        ));
    }
    let full: PathBuf = ctx.work_dir.join(path);
    let full = full
        .canonicalize()
        .map_err(|err| Trouble::Failed(format!("{path}: {err}")))?;
    session
        .breakpoints(&full, lines, &conditions, &log_messages, ctx.cancel)
        .await
}

/// The adapter's command line: `python3 -m debugpy.adapter`, or the first
/// `lldb-dap` found on the `PATH` of `env`.
fn adapter_command(
    kind: AdapterKind,
    env: &[(OsString, OsString)],
) -> Result<(String, Vec<String>), Trouble> {
    match kind {
        AdapterKind::Debugpy => Ok((
            "python3".to_owned(),
            vec!["-m".to_owned(), "debugpy.adapter".to_owned()],
        )),
        AdapterKind::LldbDap => {
            let path = env
                .iter()
                .find(|(name, _)| name == "PATH")
                .map(|(_, value)| value.clone())
                .unwrap_or_default();
            let names = [
                "lldb-dap",
                "lldb-dap-21",
                "lldb-dap-20",
                "lldb-dap-19",
                "lldb-dap-18",
            ];
            names
                .iter()
                .find_map(|name| {
                    std::env::split_paths(&path)
                        .map(|folder| folder.join(name))
                        .find(|candidate| candidate.is_file())
                })
                .map(|found| (found.display().to_string(), Vec::new()))
                .ok_or_else(|| {
                    Trouble::Failed(
                        "no lldb-dap on the PATH (Debian: apt-get install lldb-19)".to_owned(),
                    )
                })
        }
    }
}

/// What to do about an adapter that would not start.
fn hint(kind: AdapterKind, why: &str) -> &'static str {
    match kind {
        AdapterKind::Debugpy if why.contains("No module named") => {
            " (debugpy is not installed: pip install debugpy)"
        }
        _ => "",
    }
}

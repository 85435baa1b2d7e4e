//! Black-box tests: the built `agent` binary, spawned as a process, against
//! the mock model server or the scripted model.

mod caching;
mod cli;
mod commands;
mod compaction;
mod context;
mod debugger;
mod dist;
mod egress;
mod hitl;
mod images;
mod launch;
mod layout;
mod login_env;
mod loops;
mod mcp;
mod mcp_npm;
mod mcp_reload;
mod model_errors;
mod pty;
mod ptyutil;
mod real_llm;
mod repo_map;
mod runner;
mod sandbox;
mod scans;
mod schema;
mod search;
mod secrets;
mod session_search;
mod skills;
mod skills_install;
mod snap;
mod state;
mod streaming;
mod tool_loop;
mod tools;
mod untrusted;
mod untrusted_corpus;
mod web;

pub mod mock;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long any single wait in a test may take before it fails.
pub const WAIT: Duration = Duration::from_secs(30);

pub const TOKEN: &str = "proxy-session-token-0123456789abcdef";

/// A temp home, config and work dir, and the command for the binary.
pub struct TestEnv {
    pub root: tempfile::TempDir,
    pub work: PathBuf,
    pub config: PathBuf,
    pub api_url: String,
}

impl TestEnv {
    pub fn new(api_url: &str) -> TestEnv {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(root.path().join("home")).unwrap();
        let config = root.path().join("config.toml");
        // Fast retries so error tests take milliseconds, not minutes.
        std::fs::write(
            &config,
            "[retry]\nmax_attempts = 3\nbase_delay_ms = 10\nmax_delay_ms = 50\n\
             [http]\nidle_timeout_secs = 3\nconnect_timeout_secs = 2\n\
             [secrets]\nenv = [\"MY_DB_PASSWORD\"]\n\
             [models.claude]\nformat = \"anthropic\"\nmodel = \"claude-mock\"\nimages = true\n",
        )
        .unwrap();
        TestEnv {
            root,
            work: work.canonicalize().unwrap(),
            config,
            api_url: api_url.to_owned(),
        }
    }

    pub fn for_server(server: &mock::MockServer) -> TestEnv {
        TestEnv::new(&server.url)
    }

    /// A script file for the scripted model.
    pub fn script(&self, script: Value) -> PathBuf {
        let path = self.root.path().join("script.json");
        std::fs::write(&path, script.to_string()).unwrap();
        path
    }

    /// The state folder the agent uses in this environment.
    pub fn state_dir(&self) -> PathBuf {
        self.root.path().join("home/.local/state/agent")
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = self.plain_command(args);
        command
            .arg("--work-dir")
            .arg(&self.work)
            .arg("--config")
            .arg(&self.config);
        command
    }

    /// [`TestEnv::command`] for the scripted model's `script` on `prompt`,
    /// then the flags `more`.
    pub fn script_command(&self, script: &Path, prompt: &str, more: &[&str]) -> Command {
        let mut args = vec!["--script", script.to_str().unwrap(), "--prompt", prompt];
        args.extend_from_slice(more);
        self.command(&args)
    }

    /// The binary with this environment's variables and no added flags
    /// (for the subcommands).
    pub fn plain_command(&self, args: &[&str]) -> Command {
        let mut command = self.program(env!("CARGO_BIN_EXE_agent"));
        command.args(args);
        command
    }

    /// Any program with this environment's variables.
    pub fn program(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new(program);
        command
            .env_remove("AGENT_SCRIPT")
            .env_remove("AGENT_STATE_DIR")
            .env_remove("STRAYL_API_URL")
            .env_remove("STRAYL_SESSION_TOKEN")
            .env("HOME", self.root.path().join("home"))
            .env("XDG_CONFIG_HOME", self.root.path().join("home/.config"))
            .env("AGENT_API_URL", &self.api_url)
            .env("AGENT_API_KEY", TOKEN);
        command
    }

    /// Runs to the end with `stdin` closed at once.
    pub fn run(&self, args: &[&str]) -> Finished {
        self.spawn(args).finish()
    }

    pub fn spawn(&self, args: &[&str]) -> Running {
        Running::spawn(self.command(args))
    }

    /// [`TestEnv::script_command`] run to the end with `stdin` closed at once.
    pub fn run_script(&self, script: &Path, prompt: &str, more: &[&str]) -> Finished {
        self.spawn_script(script, prompt, more).finish()
    }

    pub fn spawn_script(&self, script: &Path, prompt: &str, more: &[&str]) -> Running {
        Running::spawn(self.script_command(script, prompt, more))
    }

    pub fn spawn_with_env(&self, args: &[&str], vars: &[(&str, &str)]) -> Running {
        let mut command = self.command(args);
        for (name, value) in vars {
            command.env(name, value);
        }
        Running::spawn(command)
    }
}

/// A running agent whose stdout lines arrive on a channel.
pub struct Running {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    pub seen: Vec<String>,
    stderr: mpsc::Receiver<String>,
}

impl Running {
    pub fn spawn(mut command: Command) -> Running {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr_pipe = child.stderr.take().unwrap();
        let (err_sender, stderr) = mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr_pipe, &mut text);
            let _ = err_sender.send(text);
        });
        Running {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
            stderr,
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Reads events until one matches, returning it. Fails after [`WAIT`].
    pub fn wait_for(&mut self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let event: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|err| panic!("stdout line is not JSON ({err}): {line}"));
                    schema::check_event(&line, &event);
                    self.seen.push(line);
                    if matches(&event) {
                        return event;
                    }
                }
                Err(_) => panic!(
                    "timed out waiting for {what}; events so far:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Waits for the process to exit, with the lines it wrote seen so far.
    pub fn exit_code(&mut self) -> Option<i32> {
        self.close_stdin();
        wait_with_deadline(&mut self.child, Instant::now() + WAIT)
    }

    pub fn wait_for_type(&mut self, kind: &str) -> Value {
        self.wait_for(kind, |event| event["type"] == kind)
    }

    /// Closes stdin, reads every remaining line and waits for the exit.
    pub fn finish(self) -> Finished {
        self.finish_within(WAIT)
    }

    pub fn finish_within(mut self, wait: Duration) -> Finished {
        self.close_stdin();
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("agent did not finish; events:\n{}", self.seen.join("\n"));
                }
            }
        }
        let status = wait_with_deadline(&mut self.child, deadline);
        let stderr = self.stderr.recv_timeout(WAIT).unwrap_or_default();
        let events = check_stream(&self.seen);
        Finished {
            events,
            lines: self.seen,
            code: status,
            stderr,
        }
    }
}

pub fn wait_with_deadline(child: &mut Child, deadline: Instant) -> Option<i32> {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("agent did not exit in time");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

pub struct Finished {
    pub events: Vec<Value>,
    pub lines: Vec<String>,
    pub code: Option<i32>,
    pub stderr: String,
}

impl Finished {
    pub fn of_type(&self, kind: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|event| event["type"] == kind)
            .collect()
    }

    pub fn one(&self, kind: &str) -> &Value {
        let found = self.of_type(kind);
        assert_eq!(found.len(), 1, "expected one {kind}, got {found:?}");
        found[0]
    }

    pub fn end(&self) -> &Value {
        self.events.last().expect("no events")
    }

    pub fn exit_reason(&self) -> &str {
        self.end()["exit_reason"].as_str().unwrap_or("")
    }

    pub fn tool_results(&self) -> Vec<&Value> {
        self.of_type("tool-result")
    }
}

/// Every line is one JSON object that matches docs/protocol.schema.json
/// and re-reads into the library's event type (which denies unknown
/// fields); `_seq` counts up by one from 1; `ts` is RFC 3339 UTC with
/// milliseconds; the stream opens with `session-start` and closes with
/// `session-end`.
pub fn check_stream(lines: &[String]) -> Vec<Value> {
    let mut events: Vec<Value> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let mut value: Value = serde_json::from_str(line)
            .unwrap_or_else(|err| panic!("line {index} is not JSON ({err}): {line}"));
        schema::check_event(line, &value);
        // A restored session goes on numbering; within a process the
        // numbers count up by one.
        let first = lines
            .first()
            .and_then(|line| serde_json::from_str::<Value>(line).ok())
            .and_then(|value| value["_seq"].as_u64())
            .unwrap_or(1);
        assert_eq!(
            value["_seq"].as_u64(),
            Some(first + index as u64),
            "bad _seq on line {line}"
        );
        let ts = value["ts"].as_str().expect("ts").to_owned();
        assert!(
            ts.len() == 24 && ts.ends_with('Z') && ts.as_bytes()[19] == b'.',
            "bad ts {ts}"
        );
        assert!(chrono_like(&ts), "bad ts {ts}");
        let object = value.as_object_mut().unwrap();
        object.remove("_seq");
        object.remove("ts");
        let typed: agent::protocol::Event = serde_json::from_value(value.clone())
            .unwrap_or_else(|err| panic!("line does not match the event schema ({err}): {line}"));
        let back = serde_json::to_value(&typed).unwrap();
        assert_eq!(back, value, "event does not round-trip: {line}");
        events.push(serde_json::from_str(line).unwrap());
    }
    if let Some(first) = events.first() {
        assert_eq!(first["type"], "session-start", "first event");
        assert_eq!(events.last().unwrap()["type"], "session-end", "last event");
        let ends = events.iter().filter(|e| e["type"] == "session-end").count();
        assert_eq!(ends, 1, "exactly one session-end");
    }
    events
}

fn chrono_like(ts: &str) -> bool {
    // 2026-11-30T12:00:00.000Z
    let bytes = ts.as_bytes();
    bytes.len() == 24
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes[10] == b'T'
        && bytes[13] == b':'
        && bytes[16] == b':'
        && ts[..4].parse::<u32>().is_ok()
}

/// Reads a file of the work dir.
pub fn read(work: &Path, name: &str) -> String {
    std::fs::read_to_string(work.join(name)).unwrap_or_else(|err| panic!("read {name}: {err}"))
}

/// The messages of a recorded OpenAI request.
/// Whether `content` is the first user message of a session with this
/// task: the environment and the project's instructions first, the task
/// last.
pub fn is_task(content: &Value, task: &str) -> bool {
    content.as_str().is_some_and(|text| {
        text.starts_with("<environment>\n") && text.ends_with(&format!("\n\n{task}"))
    })
}

pub fn messages(request: &mock::Recorded) -> Vec<Value> {
    request.body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The scripted model's commonest session: one turn of these tool calls,
/// then the answer "done".
pub fn one_turn(calls: Value) -> Value {
    serde_json::json!({"turns": [{"tool_calls": calls}, {"text": "done"}]})
}

/// An `exec` call for each command.
pub fn exec_calls(commands: &[&str]) -> Value {
    commands
        .iter()
        .map(|command| serde_json::json!({"name": "exec", "args": {"command": command}}))
        .collect()
}

impl TestEnv {
    /// An environment for the scripted model: no server, and a model call
    /// would find nobody listening (port 9).
    pub fn offline() -> TestEnv {
        TestEnv::new("http://127.0.0.1:9/unused")
    }

    /// Appends TOML to the config file.
    pub fn add_config(&self, toml: &str) {
        let mut config = std::fs::read_to_string(&self.config).unwrap();
        config.push_str(toml);
        std::fs::write(&self.config, config).unwrap();
    }

    /// The scripted model makes `calls` in one turn, then answers "done";
    /// the flags `more`; run to the end with `stdin` closed.
    pub fn run_calls(&self, calls: Value, more: &[&str]) -> Finished {
        let script = self.script(one_turn(calls));
        self.run_script(&script, "go", more)
    }

    /// [`TestEnv::run_calls`] with an `exec` call for each command.
    pub fn run_commands(&self, commands: &[&str], more: &[&str]) -> Finished {
        self.run_calls(exec_calls(commands), more)
    }
}

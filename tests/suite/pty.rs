//! Driven through a real PTY, as the proxy does: no echo of our commands,
//! a command line far over the 4 KiB canonical-mode limit arrives whole, and
//! the launch of INTEGRATION-PLAN.md (a line typed into an interactive shell)
//! loses no event.

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::Instant;

use portable_pty::{CommandBuilder, MasterPty, PtyPair, PtySize, native_pty_system};
use serde_json::{Value, json};

use super::{TestEnv, WAIT};

const GATED: &str = "echo waiting; for i in $(seq 600); do [ -f go ] && break; sleep 0.05; done";

fn open_pty() -> PtyPair {
    native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap()
}

/// The PTY's output cut at each `\n` (which is not part of the line); the
/// channel closes when the last holder of the PTY's other side is gone.
fn lines_of(master: &dyn MasterPty) -> mpsc::Receiver<String> {
    let mut reader = master.try_clone_reader().unwrap();
    let (sender, lines) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut pending = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            pending.extend_from_slice(&buf[..n]);
            while let Some(end) = pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                let text = String::from_utf8_lossy(&line[..line.len() - 1]).into_owned();
                if sender.send(text).is_err() {
                    return;
                }
            }
        }
    });
    lines
}

#[test]
fn sixteen_kib_command_through_a_pty_is_read_whole_and_not_echoed() {
    let env = TestEnv::new("http://127.0.0.1:9/unused");
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": GATED}}]},
        {"text": "got it"}
    ]}));
    let pair = open_pty();
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_agent"));
    for arg in [
        "--script",
        script.to_str().unwrap(),
        "--prompt",
        "pty",
        "--work-dir",
        env.work.to_str().unwrap(),
        "--config",
        env.config.to_str().unwrap(),
    ] {
        command.arg(arg);
    }
    command.env("HOME", env.root.path().join("home"));
    command.env("AGENT_API_KEY", super::TOKEN);
    let mut child = pair.slave.spawn_command(command).unwrap();
    drop(pair.slave);
    let lines = lines_of(&*pair.master);
    let mut writer = pair.master.take_writer().unwrap();

    let mut seen: Vec<String> = Vec::new();
    let wait_for = |what: &str, pred: &dyn Fn(&Value) -> bool, seen: &mut Vec<String>| -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let line = lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("timed out waiting for {what}:\n{}", seen.join("\n")))
                .trim_end_matches('\r')
                .to_owned();
            seen.push(line.clone());
            if line.is_empty() {
                continue;
            }
            let event: Value = serde_json::from_str(&line)
                .unwrap_or_else(|err| panic!("PTY line is not an event ({err}): {line:.200}"));
            if pred(&event) {
                return event;
            }
        }
    };
    wait_for("the gated command", &|e| e["type"] == "exec-log", &mut seen);

    let text = "0123456789abcdef".repeat(1024);
    let command = json!({"type": "inject", "text": text}).to_string();
    assert!(command.len() > 16 * 1024);
    writer.write_all(command.as_bytes()).unwrap();
    writer.write_all(b"\n").unwrap();
    writer.flush().unwrap();
    let ack = wait_for("the ack", &|e| e["type"] == "command-ack", &mut seen);
    assert_eq!(ack["ok"], true, "{ack}");
    assert_eq!(ack["command"], "inject");

    std::fs::write(env.work.join("go"), "").unwrap();
    let message = wait_for(
        "the injected message",
        &|e| e["type"] == "user-message" && e["source"] == "inject",
        &mut seen,
    );
    assert_eq!(message["text"].as_str().unwrap().len(), 16 * 1024);
    let end = wait_for("the end", &|e| e["type"] == "session-end", &mut seen);
    assert_eq!(end["exit_reason"], "completed");
    let status = child.wait().unwrap();
    assert!(status.success());
    // No line is our own command echoed back.
    assert!(
        seen.iter()
            .all(|line| !line.contains("\"type\":\"inject\""))
    );
    let events: Vec<String> = seen.into_iter().filter(|l| !l.is_empty()).collect();
    super::check_stream(&events);
}

/// An interactive bash on a PTY, as the sandbox provider opens one, with
/// this environment's variables; its output is read line by line.
struct Shell {
    /// Open while the test runs: the PTY closes with it.
    _master: Box<dyn MasterPty + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    lines: mpsc::Receiver<String>,
}

impl Shell {
    fn start(env: &TestEnv) -> Shell {
        let PtyPair { master, slave } = open_pty();
        let mut command = CommandBuilder::new("bash");
        command.args(["--norc", "--noprofile", "-i"]);
        for name in ["AGENT_SCRIPT", "AGENT_STATE_DIR", "AGENT_CONFIG"] {
            command.env_remove(name);
        }
        command.env("HOME", env.root.path().join("home"));
        command.env("XDG_CONFIG_HOME", env.root.path().join("home/.config"));
        command.env("AGENT_API_KEY", super::TOKEN);
        command.env("PS1", "$ ");
        let child = slave.spawn_command(command).unwrap();
        drop(slave);
        let lines = lines_of(&*master);
        let writer = master.take_writer().unwrap();
        Shell {
            _master: master,
            child,
            writer,
            lines,
        }
    }

    /// Types the plan's launch line: into the work dir, then `exec` the
    /// agent with `args`, so the PTY ends with the agent and carries its
    /// exit status (`|| exit` ends the shell if the launch fails).
    /// The line starts with what bash prints when it turns bracketed paste
    /// off (`\x1b[?2004l\r`: no newline), so the test does not depend on
    /// the bash build having that on. `more` is typed in the same write,
    /// ahead of the agent.
    fn launch(&mut self, env: &TestEnv, args: &[&str], more: &str) {
        let quote = |arg: &str| shlex::try_quote(arg).unwrap().into_owned();
        let mut line = format!(
            "printf '\\033[?2004l\\r'; cd {} && exec {}",
            quote(env.work.to_str().unwrap()),
            quote(env!("CARGO_BIN_EXE_agent")),
        );
        for arg in args {
            line.push(' ');
            line.push_str(&quote(arg));
        }
        line.push_str(" || exit\n");
        line.push_str(more);
        self.type_in(&line);
    }

    fn type_in(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }
}

/// What the plan's proxy does with each line: trim it and parse it as
/// JSON; what does not parse is noise (the shell's prompt, its echo of the
/// typed line, its escape sequences).
fn parse_as_the_plan_does(line: &str) -> Option<Value> {
    serde_json::from_str(line.trim()).ok()
}

/// Reads the PTY until `done` says so; returns every parsed line and the
/// raw output. Fails after [`WAIT`].
fn read_until(
    lines: &mpsc::Receiver<String>,
    parsed: &mut Vec<Value>,
    raw: &mut Vec<String>,
    done: impl Fn(&Value) -> bool,
) {
    let deadline = Instant::now() + WAIT;
    loop {
        let line = match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => line,
            Err(err) => panic!("{err} before the awaited event; output:\n{raw:#?}"),
        };
        raw.push(line.clone());
        if let Some(value) = parse_as_the_plan_does(&line) {
            let stop = done(&value);
            parsed.push(value);
            if stop {
                return;
            }
        }
    }
}

fn exit_code(shell: &mut Shell) -> u32 {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(status) = shell.child.try_wait().unwrap() {
            return status.exit_code();
        }
        assert!(Instant::now() < deadline, "the PTY's process did not exit");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn launched_through_a_shell_as_the_plan_does_session_start_is_the_first_event() {
    let env = TestEnv::new("http://127.0.0.1:9/unused");
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": "echo hi"}}]},
        {"text": "not reached: one iteration only"}
    ]}));
    let mut shell = Shell::start(&env);
    shell.launch(
        &env,
        &[
            "--config",
            env.config.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
            "--prompt",
            "through a shell",
            "--max-iterations",
            "1",
        ],
        "",
    );
    let (mut parsed, mut raw) = (Vec::new(), Vec::new());
    read_until(&shell.lines, &mut parsed, &mut raw, |e| {
        e["type"] == "session-end"
    });
    assert_eq!(
        parsed[0]["type"], "session-start",
        "the first event the plan's parser sees; output:\n{raw:#?}"
    );
    assert_eq!(parsed[0]["_seq"], 1);
    let lines: Vec<String> = parsed.iter().map(Value::to_string).collect();
    let events = super::check_stream(&lines);
    assert_eq!(events.last().unwrap()["exit_reason"], "max-iterations");
    // `exec`: the PTY's process is the agent, and its status (3 for
    // max-iterations) is what the proxy gets, not the shell's.
    assert_eq!(exit_code(&mut shell), 3);
}

#[test]
fn input_typed_ahead_of_the_agent_reaches_it_and_a_stray_line_is_not_fatal() {
    let env = TestEnv::new("http://127.0.0.1:9/unused");
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": GATED}}]},
        {"text": "done"}
    ]}));
    let mut shell = Shell::start(&env);
    // A proxy that does not wait for `session-start`: the old plan's
    // `exit $?` and a command, typed right behind the launch line. The
    // shell does not read them (it reads one line, then execs); the agent
    // gets them on its stdin.
    shell.launch(
        &env,
        &[
            "--config",
            env.config.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
            "--prompt",
            "wait",
        ],
        "exit $?\n{\"type\":\"inject\",\"text\":\"typed ahead\"}\n",
    );
    let (mut parsed, mut raw) = (Vec::new(), Vec::new());
    let acks = |parsed: &Vec<Value>| {
        parsed
            .iter()
            .filter(|e| e["type"] == "command-ack" && e["_seq"].is_u64())
            .count()
    };
    while acks(&parsed) < 2 {
        read_until(&shell.lines, &mut parsed, &mut raw, |e| {
            e["type"] == "command-ack"
        });
    }
    std::fs::write(env.work.join("go"), "").unwrap();
    read_until(&shell.lines, &mut parsed, &mut raw, |e| {
        e["type"] == "session-end"
    });
    // Before the agent turns echo off, the terminal may echo what was typed
    // ahead: JSON without `_seq`, not an event. Only lines with `_seq` are.
    let events: Vec<Value> = parsed.into_iter().filter(|e| e["_seq"].is_u64()).collect();
    assert_eq!(events[0]["type"], "session-start", "output:\n{raw:#?}");
    let lines: Vec<String> = events.iter().map(Value::to_string).collect();
    super::check_stream(&lines);
    let of = |kind: &str| -> Vec<&Value> { events.iter().filter(|e| e["type"] == kind).collect() };
    let acks: Vec<(&Value, &Value)> = of("command-ack")
        .iter()
        .map(|a| (&a["command"], &a["ok"]))
        .collect();
    assert_eq!(acks.len(), 2, "{events:#?}");
    assert_eq!(acks[1], (&json!("inject"), &json!(true)));
    assert_eq!(acks[0].1, &json!(false), "`exit $?` is refused");
    let errors = of("error");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["code"], "bad-command");
    assert_eq!(errors[0]["fatal"], false);
    assert!(
        of("user-message")
            .iter()
            .any(|m| m["source"] == "inject" && m["text"] == "typed ahead")
    );
    assert_eq!(events.last().unwrap()["exit_reason"], "completed");
    assert_eq!(exit_code(&mut shell), 0);
}

#[test]
fn attach_launched_through_a_shell_loses_no_line_either() {
    let env = TestEnv::new("http://127.0.0.1:9/unused");
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": GATED}}]},
        {"text": "done"}
    ]}));
    let mut agent = env.spawn(&[
        "--script",
        script.to_str().unwrap(),
        "--prompt",
        "wait",
        "--session-id",
        "through-a-shell",
    ]);
    agent.wait_for_type("exec-log");
    let mut shell = Shell::start(&env);
    shell.launch(
        &env,
        &[
            "attach",
            "--session-id",
            "through-a-shell",
            "--from-seq",
            "0",
        ],
        "",
    );
    let (mut parsed, mut raw) = (Vec::new(), Vec::new());
    read_until(&shell.lines, &mut parsed, &mut raw, |e| {
        e["type"] == "exec-log"
    });
    std::fs::write(env.work.join("go"), "").unwrap();
    read_until(&shell.lines, &mut parsed, &mut raw, |e| {
        e["type"] == "session-end"
    });
    assert_eq!(parsed[0]["_seq"], 1, "output:\n{raw:#?}");
    let lines: Vec<String> = parsed.iter().map(Value::to_string).collect();
    super::check_stream(&lines);
    assert_eq!(exit_code(&mut shell), 0);
    assert_eq!(agent.finish().code, Some(0));
}

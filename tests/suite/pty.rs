//! Driven through a real PTY, as the proxy does: no echo of our commands,
//! a command line far over the 4 KiB canonical-mode limit arrives whole, and
//! the launch of INTEGRATION-PLAN.md (a line typed into an interactive shell)
//! loses no event.

use std::path::Path;
use std::sync::mpsc;
use std::time::Instant;

use serde_json::{Value, json};

use super::ptyutil::Pty;
use super::{TestEnv, WAIT};

const GATED: &str = "echo waiting; for i in $(seq 600); do [ -f go ] && break; sleep 0.05; done";

#[test]
fn sixteen_kib_command_through_a_pty_is_read_whole_and_not_echoed() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": GATED}}]},
        {"text": "got it"}
    ]}));
    let mut pty = Pty::spawn(&env.script_command(&script, "pty", &[]));
    let lines = pty.lines();

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
    pty.type_in(&command);
    pty.type_in("\n");
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
    let status = pty.child.wait().unwrap();
    assert!(status.success());
    // No line is our own command echoed back.
    assert!(
        seen.iter()
            .all(|line| !line.contains("\"type\":\"inject\""))
    );
    let events: Vec<String> = seen.into_iter().filter(|l| !l.is_empty()).collect();
    super::check_stream(&events);
}

/// What the plan's proxy does with each line: trim it and parse it as
/// JSON; what does not parse is noise (the shell's prompt, its echo of the
/// typed line, its escape sequences).
fn parse_as_the_plan_does(line: &str) -> Option<Value> {
    serde_json::from_str(line.trim()).ok()
}

/// An interactive bash on a PTY, as the sandbox provider opens one, with
/// this environment's variables; its output is read line by line.
struct Shell {
    pty: Pty,
    lines: mpsc::Receiver<String>,
    /// The lines read so far that parse, as the plan's proxy parses them.
    parsed: Vec<Value>,
    /// Every line read so far, as it came.
    raw: Vec<String>,
}

impl Shell {
    fn start(env: &TestEnv) -> Shell {
        let mut bash = env.program("bash");
        bash.args(["--norc", "--noprofile", "-i"])
            .env_remove("AGENT_CONFIG")
            .env("PS1", "$ ");
        let pty = Pty::spawn(&bash);
        let lines = pty.lines();
        Shell {
            pty,
            lines,
            parsed: Vec::new(),
            raw: Vec::new(),
        }
    }

    /// Reads the PTY until `done` says so of a line that parses. Fails
    /// after [`WAIT`].
    fn read_until(&mut self, done: impl Fn(&Value) -> bool) {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(err) => panic!("{err} before the awaited event; output:\n{:#?}", self.raw),
            };
            self.raw.push(line.clone());
            if let Some(value) = parse_as_the_plan_does(&line) {
                let stop = done(&value);
                self.parsed.push(value);
                if stop {
                    return;
                }
            }
        }
    }

    /// [`Shell::launch`] of the scripted model's `script` on `prompt`, with
    /// this environment's config, then `flags`; `more` as there.
    fn launch_script(
        &mut self,
        env: &TestEnv,
        script: &Path,
        prompt: &str,
        flags: &[&str],
        more: &str,
    ) {
        let mut args = vec![
            "--config",
            env.config.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
            "--prompt",
            prompt,
        ];
        args.extend_from_slice(flags);
        self.launch(env, &args, more);
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
        self.pty.type_in(&line);
    }
}

/// [`super::check_stream`] of parsed events.
fn check_events(events: &[Value]) -> Vec<Value> {
    let lines: Vec<String> = events.iter().map(Value::to_string).collect();
    super::check_stream(&lines)
}

#[test]
fn launched_through_a_shell_as_the_plan_does_session_start_is_the_first_event() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": "echo hi"}}]},
        {"text": "not reached: one iteration only"}
    ]}));
    let mut shell = Shell::start(&env);
    shell.launch_script(
        &env,
        &script,
        "through a shell",
        &["--max-iterations", "1"],
        "",
    );
    shell.read_until(|e| e["type"] == "session-end");
    assert_eq!(
        shell.parsed[0]["type"], "session-start",
        "the first event the plan's parser sees; output:\n{:#?}",
        shell.raw
    );
    assert_eq!(shell.parsed[0]["_seq"], 1);
    let events = check_events(&shell.parsed);
    assert_eq!(events.last().unwrap()["exit_reason"], "max-iterations");
    // `exec`: the PTY's process is the agent, and its status (3 for
    // max-iterations) is what the proxy gets, not the shell's.
    assert_eq!(shell.pty.exit_code(), 3);
}

#[test]
fn input_typed_ahead_of_the_agent_reaches_it_and_a_stray_line_is_not_fatal() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": GATED}}]},
        {"text": "done"}
    ]}));
    let mut shell = Shell::start(&env);
    // A proxy that does not wait for `session-start`: the old plan's
    // `exit $?` and a command, typed right behind the launch line. The
    // shell does not read them (it reads one line, then execs); the agent
    // gets them on its stdin.
    let typed_ahead = "exit $?\n{\"type\":\"inject\",\"text\":\"typed ahead\"}\n";
    shell.launch_script(&env, &script, "wait", &[], typed_ahead);
    let acks = |parsed: &Vec<Value>| {
        parsed
            .iter()
            .filter(|e| e["type"] == "command-ack" && e["_seq"].is_u64())
            .count()
    };
    while acks(&shell.parsed) < 2 {
        shell.read_until(|e| e["type"] == "command-ack");
    }
    std::fs::write(env.work.join("go"), "").unwrap();
    shell.read_until(|e| e["type"] == "session-end");
    // Before the agent turns echo off, the terminal may echo what was typed
    // ahead: JSON without `_seq`, not an event. Only lines with `_seq` are.
    let events: Vec<Value> = shell
        .parsed
        .iter()
        .filter(|e| e["_seq"].is_u64())
        .cloned()
        .collect();
    assert_eq!(
        events[0]["type"], "session-start",
        "output:\n{:#?}",
        shell.raw
    );
    check_events(&events);
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
    assert_eq!(shell.pty.exit_code(), 0);
}

#[test]
fn attach_launched_through_a_shell_loses_no_line_either() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": GATED}}]},
        {"text": "done"}
    ]}));
    let mut agent = env.spawn_script(&script, "wait", &["--session-id", "through-a-shell"]);
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
    shell.read_until(|e| e["type"] == "exec-log");
    std::fs::write(env.work.join("go"), "").unwrap();
    shell.read_until(|e| e["type"] == "session-end");
    assert_eq!(shell.parsed[0]["_seq"], 1, "output:\n{:#?}", shell.raw);
    check_events(&shell.parsed);
    assert_eq!(shell.pty.exit_code(), 0);
    assert_eq!(agent.finish().code, Some(0));
}

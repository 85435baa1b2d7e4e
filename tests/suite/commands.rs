//! Commands on stdin: acks, bad lines, inject, cancel and signals.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::mock::{MockServer, Reply, openai};
use super::{TestEnv, messages};

/// A first turn whose command waits until the test creates `go` (bounded,
/// so a broken test cannot hang), then a closing turn.
fn gated_script(env: &TestEnv) -> std::path::PathBuf {
    env.script(json!({"turns": [
        {"text": "Waiting.", "tool_calls": [{"name": "exec", "args": {"command": "echo waiting; for i in $(seq 600); do [ -f go ] && break; sleep 0.05; done; echo released"}}]},
        {"text": "Done."}
    ]}))
}

#[test]
fn bad_stdin_lines_get_an_ack_and_an_error_and_the_session_goes_on() {
    let env = TestEnv::offline();
    let script = gated_script(&env);
    let mut agent = env.spawn_script(&script, "wait", &[]);
    agent.wait_for("the gated command", |e| e["type"] == "exec-log");

    agent.send("this is not json");
    agent.send_bytes(b"\x00\xff\xfe binary \x80 garbage\n");
    agent.send(r#"{"type":"dance"}"#);
    agent.send(r#"{"type":"inject"}"#);
    agent.send(r#"{"no_type":true}"#);
    agent.send(r#"{"type":"rollback","iteration":1}"#);
    agent.send(r#"{"type":"hitl-response","id":"nope","decision":"approve"}"#);
    let long = format!(
        r#"{{"type":"inject","text":"{}"}}"#,
        "x".repeat(1024 * 1024 + 10)
    );
    agent.send(&long);
    agent.send(r#"{"type":"inject","text":"still listening"}"#);
    let ok_ack = agent.wait_for("the good inject's ack", |e| {
        e["type"] == "command-ack" && e["ok"] == true
    });
    assert_eq!(ok_ack["command"], "inject");
    std::fs::write(env.work.join("go"), "").unwrap();
    let run = agent.finish();

    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let acks = run.of_type("command-ack");
    let refused: Vec<&str> = acks
        .iter()
        .filter(|a| a["ok"] == false)
        .map(|a| a["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        refused,
        [
            "unknown",
            "unknown",
            "dance",
            "inject",
            "unknown",
            "rollback",
            "hitl-response",
            "unknown"
        ]
    );
    let warnings: Vec<&Value> = run
        .of_type("error")
        .into_iter()
        .filter(|e| e["fatal"] == false && e["code"] == "bad-command")
        .collect();
    assert_eq!(warnings.len(), 8);
    assert!(
        warnings[0]["message"]
            .as_str()
            .unwrap()
            .contains("not JSON")
    );
    assert!(warnings[1]["message"].as_str().unwrap().contains("UTF-8"));
    assert!(warnings[7]["message"].as_str().unwrap().contains("limit"));
    // Each refused ack is followed by its error, in order.
    let ack_pos = run
        .events
        .iter()
        .position(|e| e["type"] == "command-ack")
        .unwrap();
    assert_eq!(run.events[ack_pos + 1]["type"], "error");
    assert_eq!(run.exit_reason(), "completed");
}

#[test]
fn inject_reaches_the_next_model_call() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "c1",
            "exec",
            json!({"command": "echo waiting; for i in $(seq 600); do [ -f go ] && break; sleep 0.05; done"}),
        )])),
        Reply::stream(openai::text_turn("noted")),
    ]);
    let env = TestEnv::for_server(&server);
    let mut agent = env.spawn(&["--prompt", "work"]);
    agent.wait_for("the command", |e| e["type"] == "exec-log");
    agent.send(r#"{"type":"inject","text":"Also update the README."}"#);
    let ack = agent.wait_for_type("command-ack");
    assert_eq!(ack["ok"], true);
    std::fs::write(env.work.join("go"), "").unwrap();
    let run = agent.finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let injected: Vec<_> = run
        .of_type("user-message")
        .into_iter()
        .filter(|e| e["source"] == "inject")
        .collect();
    assert_eq!(injected.len(), 1);
    assert_eq!(injected[0]["text"], "Also update the README.");
    let second = messages(&server.requests()[1]);
    let last = second.last().unwrap();
    assert_eq!(
        last,
        &json!({"role": "user", "content": "Also update the README."})
    );
    assert!(server.violations().is_empty());
}

#[test]
fn inject_after_a_final_answer_keeps_the_session_going() {
    // The model's answer arrives slowly; the inject lands during it, so the
    // session must not end on that answer.
    let server = MockServer::start(vec![
        Reply::Stream {
            events: openai::text_turn("one two three four five six"),
            pause: Duration::from_millis(150),
        },
        Reply::stream(openai::text_turn("handled")),
    ]);
    let env = TestEnv::for_server(&server);
    let mut agent = env.spawn(&["--prompt", "work"]);
    agent.wait_for("text", |e| e["type"] == "text-delta");
    agent.send(r#"{"type":"inject","text":"one more thing"}"#);
    let run = agent.finish();
    assert_eq!(run.code, Some(0));
    assert_eq!(server.requests().len(), 2);
    assert_eq!(run.end()["iterations"], 2);
}

/// Pids written by the command tree, alive or not.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // A zombie waits only for its reaper: it runs no more.
        Ok(stat) => !stat.split(") ").nth(1).unwrap_or("").starts_with('Z'),
        Err(_) => false,
    }
}

fn cancel_kills_the_tree(stop: impl FnOnce(&mut super::Running)) -> super::Finished {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command":
            "(sleep 300 & echo $! > grandchild.pid; wait) & echo $! > child.pid; sleep 300 & echo $! > sleeper.pid; echo started; wait"}}]},
        {"text": "never reached"}
    ]}));
    let mut agent = env.spawn_script(&script, "hang", &[]);
    agent.wait_for("started", |e| {
        e["type"] == "exec-log" && e["data"].as_str().unwrap_or("").contains("started")
    });
    let pids: Vec<i32> = ["child.pid", "grandchild.pid", "sleeper.pid"]
        .iter()
        .map(|name| {
            let deadline = Instant::now() + super::WAIT;
            loop {
                if let Ok(text) = std::fs::read_to_string(env.work.join(name))
                    && let Ok(pid) = text.trim().parse()
                {
                    break pid;
                }
                assert!(Instant::now() < deadline, "no {name}");
                std::thread::sleep(Duration::from_millis(10));
            }
        })
        .collect();
    assert!(pids.iter().all(|pid| alive(*pid)));
    let asked = Instant::now();
    stop(&mut agent);
    let run = agent.finish();
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "took {:?}",
        asked.elapsed()
    );
    let deadline = Instant::now() + Duration::from_secs(2);
    while pids.iter().any(|pid| alive(*pid)) {
        assert!(
            Instant::now() < deadline,
            "survivors: {:?}",
            pids.iter().filter(|p| alive(**p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(run.code, Some(130));
    assert_eq!(run.exit_reason(), "cancelled");
    let result = run.one("tool-result");
    assert_eq!(result["ok"], false);
    assert!(result["output"].as_str().unwrap().contains("cancelled"));
    run
}

#[test]
fn cancel_during_a_command_kills_its_whole_tree() {
    let run = cancel_kills_the_tree(|agent| agent.send(r#"{"type":"cancel"}"#));
    let ack = run.one("command-ack");
    assert_eq!(ack["command"], "cancel");
    assert_eq!(ack["ok"], true);
}

#[test]
fn sigterm_cancels_like_the_command() {
    cancel_kills_the_tree(|agent| {
        let pid = rustix::process::Pid::from_raw(agent.child.id() as i32).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    });
}

#[test]
fn cancel_during_the_model_stream() {
    let server = MockServer::start(vec![Reply::Stream {
        events: openai::text_turn(&"word ".repeat(200)),
        pause: Duration::from_millis(50),
    }]);
    let env = TestEnv::for_server(&server);
    let mut agent = env.spawn(&["--prompt", "talk"]);
    agent.wait_for("text", |e| e["type"] == "text-delta");
    let asked = Instant::now();
    agent.send(r#"{"type":"cancel"}"#);
    let run = agent.finish();
    assert!(asked.elapsed() < Duration::from_secs(2));
    assert_eq!(run.code, Some(130));
    assert_eq!(run.exit_reason(), "cancelled");
}

#[test]
fn end_of_stdin_is_not_a_cancel() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": "sleep 0.3"}}]},
        {"text": "done"}
    ]}));
    // `run` closes stdin at once.
    let run = env.run_script(&script, "x", &[]);
    assert_eq!(run.code, Some(0));
    assert_eq!(run.exit_reason(), "completed");
}

#[test]
fn broken_stdout_pipe_does_not_crash_the_agent() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": "sleep 0.2; echo more output"}},
                        {"name": "write_file", "args": {"path": "after.txt", "content": "written"}}]},
        {"text": "done"}
    ]}));
    let mut child = env
        .script_command(&script, "x", &[])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = super::wait_with_deadline(&mut child, Instant::now() + super::WAIT);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // The work still happened.
    assert_eq!(super::read(&env.work, "after.txt"), "written");
}

//! Driven through a real PTY, as the proxy does: no echo of our commands,
//! and a command line far over the 4 KiB canonical-mode limit arrives whole.

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::Instant;

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use serde_json::{Value, json};

use super::{TestEnv, WAIT};

#[test]
fn sixteen_kib_command_through_a_pty_is_read_whole_and_not_echoed() {
    let env = TestEnv::new("http://127.0.0.1:9/unused");
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": "echo waiting; for i in $(seq 600); do [ -f go ] && break; sleep 0.05; done"}}]},
        {"text": "got it"}
    ]}));
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
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
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut writer = pair.master.take_writer().unwrap();

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
                let text = String::from_utf8_lossy(&line)
                    .trim_end_matches(['\r', '\n'])
                    .to_owned();
                if sender.send(text).is_err() {
                    return;
                }
            }
        }
    });
    let mut seen: Vec<String> = Vec::new();
    let wait_for = |what: &str, pred: &dyn Fn(&Value) -> bool, seen: &mut Vec<String>| -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let line = lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("timed out waiting for {what}:\n{}", seen.join("\n")));
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

//! The reference runner (`examples/runner/`, JavaScript on Node with
//! node-pty) end to end against the scripted model: SSE mapping, HITL
//! answers, inject, cancel, and re-attach after the runner is killed.
//! `.ci/run` does `npm ci --prefix examples/runner` and sets
//! `AGENT_RUNNER_NODE_MODULES_READY`; without it the test is skipped.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The scenarios have 60 s each at most; together they take seconds.
const LIMIT: Duration = Duration::from_secs(600);

#[test]
fn reference_runner_end_to_end() {
    if std::env::var_os("AGENT_RUNNER_NODE_MODULES_READY").is_none() {
        eprintln!(
            "skipped: AGENT_RUNNER_NODE_MODULES_READY is not set (.ci/run sets it after npm ci --prefix examples/runner)"
        );
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let mut child = Command::new("node")
        .arg("examples/runner/test.mjs")
        .arg(env!("CARGO_BIN_EXE_agent"))
        .current_dir(root)
        .env_remove("AGENT_SCRIPT")
        .env_remove("AGENT_STATE_DIR")
        .env_remove("AGENT_API_URL")
        .env_remove("AGENT_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start node: {err}"));
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let status = status.unwrap_or_else(|| {
        panic!("test.mjs did not finish within {LIMIT:?}\nstdout:\n{stdout}\nstderr:\n{stderr}")
    });
    assert!(
        status.success(),
        "test.mjs failed ({status})\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("all scenarios passed"), "{stdout}");
}

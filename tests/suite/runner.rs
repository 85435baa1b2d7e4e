//! The reference runner (`examples/runner/`, JavaScript on Node with
//! node-pty) end to end against the scripted model: SSE mapping, HITL
//! answers, inject, cancel, and re-attach after the runner is killed.
//! It needs Node and `npm ci --prefix examples/runner` (node-pty builds
//! natively), so a plain `cargo test` lists it as ignored; `.ci/run` installs
//! node-pty and runs it with `--include-ignored`.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The scenarios have 60 s each at most; together they take seconds.
const LIMIT: Duration = Duration::from_secs(600);

#[test]
#[ignore = "needs Node and node-pty (npm ci --prefix examples/runner): run by .ci/run"]
fn reference_runner_end_to_end() {
    let root = env!("CARGO_MANIFEST_DIR");
    let node_pty = std::path::Path::new(root).join("examples/runner/node_modules/node-pty");
    assert!(
        node_pty.is_dir(),
        "no {}: run npm ci --prefix examples/runner (.ci/run does)",
        node_pty.display()
    );
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

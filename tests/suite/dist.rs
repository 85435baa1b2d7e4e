//! The shipped binary (`scripts/build-dist.sh` makes `dist/agent`) runs in an
//! empty root holding only itself, a static busybox and `/etc/hosts`: no
//! shared library, no CA folder, no `/proc`. It needs that build
//! (`AGENT_DIST_BINARY` names it), a static busybox and root for `chroot`,
//! so a plain `cargo test` lists it as ignored; `.ci/run` provides all three
//! and runs it with `--include-ignored`, where a missing piece fails it.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

#[test]
#[ignore = "needs dist/agent (AGENT_DIST_BINARY), busybox and root: run by .ci/run"]
fn static_binary_runs_in_an_empty_root() {
    let binary = std::env::var("AGENT_DIST_BINARY").expect(
        "AGENT_DIST_BINARY names the static binary: scripts/build-dist.sh builds dist/agent (.ci/run does both)",
    );
    let busybox = std::env::var("AGENT_TEST_BUSYBOX").unwrap_or_else(|_| "/bin/busybox".to_owned());
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for folder in ["bin", "etc", "work", "home", "dev", "tmp"] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
    }
    std::fs::copy(&binary, root.join("agent")).unwrap();
    std::fs::copy(&busybox, root.join("bin/busybox")).unwrap();
    for applet in ["sh", "cat", "env", "ls", "printf"] {
        std::os::unix::fs::symlink("busybox", root.join("bin").join(applet)).unwrap();
    }
    std::fs::write(root.join("etc/hosts"), "127.0.0.1 localhost\n").unwrap();
    // Commands get /dev/null as stdin.
    let made = Command::new("mknod")
        .arg(root.join("dev/null"))
        .args(["c", "1", "3"])
        .status()
        .unwrap();
    assert!(made.success(), "mknod needs root");
    std::fs::write(root.join("config.toml"), "[exec]\nshell = \"/bin/sh\"\n").unwrap();
    std::fs::write(
        root.join("script.json"),
        json!({"turns": [
            {"tool_calls": [{"name": "exec", "args": {"command": "echo hello-from-chroot > out.txt; cat out.txt"}}]},
            {"text": "done"}
        ]})
        .to_string(),
    )
    .unwrap();

    let version = chroot(root, &["/agent", "--version"]);
    assert!(
        version.status.success(),
        "{}",
        String::from_utf8_lossy(&version.stderr)
    );
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("agent "));

    let session = chroot(
        root,
        &[
            "/agent",
            "--script",
            "/script.json",
            "--config",
            "/config.toml",
            "--work-dir",
            "/work",
            "--prompt",
            "run a command",
        ],
    );
    let stdout = String::from_utf8_lossy(&session.stdout);
    assert_eq!(
        session.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&session.stderr)
    );
    let events: Vec<Value> = stdout
        .lines()
        .map(|line| {
            let event = serde_json::from_str(line).unwrap();
            super::schema::check_event(line, &event);
            event
        })
        .collect();
    let result = events.iter().find(|e| e["type"] == "tool-result").unwrap();
    assert_eq!(result["ok"], true, "{result}");
    assert!(
        result["output"]
            .as_str()
            .unwrap()
            .starts_with("hello-from-chroot\n")
    );
    assert_eq!(events.last().unwrap()["exit_reason"], "completed");
    assert_eq!(
        std::fs::read_to_string(root.join("work/out.txt")).unwrap(),
        "hello-from-chroot\n"
    );
}

fn chroot(root: &Path, args: &[&str]) -> std::process::Output {
    // The child's PATH is the chroot's; find chroot(8) on ours.
    let program = ["/usr/sbin/chroot", "/usr/bin/chroot", "/sbin/chroot"]
        .into_iter()
        .find(|path| Path::new(path).exists())
        .expect("chroot(8) is installed");
    Command::new(program)
        .arg(root)
        .args(args)
        .env_clear()
        .env("HOME", "/home")
        .env("PATH", "/bin")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

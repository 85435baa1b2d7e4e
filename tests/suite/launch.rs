//! The launch of INTEGRATION-PLAN.md, taken as the proxy writes it: a
//! `--hitl-dir` nobody made, and a stdout pipe that must carry nothing but
//! event lines. (The launch through a shell on a PTY is in `pty.rs`.)

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};

use super::TestEnv;

fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// One question, answered through the hitl folder: the folder is really
/// used, not only accepted.
fn answered_by_file(env: &TestEnv, hitl_dir: &Path, request_dir: &Path) {
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "ask_user", "id": "q1", "args": {"question": "Which database?"}}]},
        {"text": "Thanks."}
    ]}));
    let mut agent = env.spawn_script(
        &script,
        "set up",
        &["--hitl-dir", hitl_dir.to_str().unwrap()],
    );
    agent.wait_for_type("hitl-request");
    assert!(request_dir.join("q1.request.json").is_file());
    let temp = request_dir.join(".q1.tmp");
    std::fs::write(
        &temp,
        json!({"type": "hitl-response", "id": "q1", "decision": "approve", "data": {"answer": "sqlite"}})
            .to_string(),
    )
    .unwrap();
    std::fs::rename(&temp, request_dir.join("q1.response.json")).unwrap();
    let run = agent.finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.one("hitl-resolved")["by"], "file");
}

#[test]
fn a_missing_hitl_dir_is_made_private_with_its_parents() {
    let env = TestEnv::offline();
    // The plan passes `/tmp/hitl` without making it; here two levels are
    // missing.
    let parent = env.root.path().join("made");
    let dir = parent.join("hitl");
    answered_by_file(&env, &dir, &dir);
    assert_eq!(mode_of(&dir), 0o700);
    assert_eq!(mode_of(&parent), 0o700);
}

#[test]
fn an_existing_hitl_dir_is_used_as_it_is_also_through_a_symlink() {
    let env = TestEnv::offline();
    let target = env.root.path().join("shared-hitl");
    std::fs::create_dir(&target).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o750)).unwrap();
    let link = env.root.path().join("hitl-link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    answered_by_file(&env, &link, &target);
    assert_eq!(mode_of(&target), 0o750, "an existing folder keeps its mode");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

fn usage_error(env: &TestEnv, hitl_dir: &Path) -> String {
    let output = env
        .command(&["--prompt", "x", "--hitl-dir", hitl_dir.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "a usage error writes no event");
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn a_hitl_dir_that_is_a_file_or_a_dangling_symlink_is_a_usage_error() {
    let env = TestEnv::offline();
    let file = env.root.path().join("hitl-file");
    std::fs::write(&file, "not a folder").unwrap();
    let message = usage_error(&env, &file);
    assert!(
        message.contains("--hitl-dir") && message.contains("is not a folder"),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a folder");

    // A link to a place that does not exist is not followed to make a
    // folder there.
    let nowhere = env.root.path().join("nowhere/hitl");
    let link = env.root.path().join("hitl-dangling");
    std::os::unix::fs::symlink(&nowhere, &link).unwrap();
    let message = usage_error(&env, &link);
    assert!(message.contains("symlink to nothing"), "{message}");
    assert!(!env.root.path().join("nowhere").exists());

    // A path through a file cannot be made.
    let message = usage_error(&env, &file.join("hitl"));
    assert!(message.contains("--hitl-dir"), "{message}");
}

/// The fresh line a terminal gets (see `pty.rs`) never reaches a pipe: the
/// stream there is event lines from its first byte.
#[test]
fn a_pipe_gets_event_lines_from_the_first_byte() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [{"text": "hi"}]}));
    let output = env
        .script_command(&script, "x", &[])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.starts_with("{\"type\":\"session-start\","),
        "{stdout}"
    );
    assert!(stdout.ends_with("}\n"));
    for line in stdout.lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        super::schema::check_event(line, &event);
        assert!(event["_seq"].is_u64(), "{line}");
    }
}

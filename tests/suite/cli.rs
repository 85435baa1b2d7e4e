//! Flags: help, version, and usage errors (exit 2, nothing on stdout).

use super::TestEnv;

fn usage_error(args: &[&str]) -> String {
    let env = TestEnv::offline();
    let output = env
        .command(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}");
    assert!(
        output.stdout.is_empty(),
        "stdout must stay empty on a usage error"
    );
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn help_explains_the_flags() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agent"))
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let help = String::from_utf8(output.stdout).unwrap();
    for flag in [
        "--prompt",
        "--model",
        "--mode",
        "--session-id",
        "--work-dir",
        "--hitl-dir",
        "--blocked-tools",
        "--max-iterations",
        "--previous-summary",
        "--restore-checkpoint",
        "--image",
        "--format",
        "--script",
        "AGENT_API_URL",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}");
    }
}

#[test]
fn version_names_the_build() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agent"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.starts_with(&format!("agent {}+", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    assert_eq!(text.split_whitespace().nth(1), Some(agent::VERSION));
}

#[test]
fn session_start_carries_the_same_version() {
    let env = TestEnv::offline();
    let script = env.script(serde_json::json!({"turns": [{"text": "hi"}]}));
    let run = env.run_script(&script, "x", &["--session-id", "my-session.1"]);
    assert_eq!(run.one("session-start")["version"], agent::VERSION);
    assert_eq!(run.one("session-start")["session_id"], "my-session.1");
}

#[test]
fn usage_errors_exit_2_with_a_clear_message() {
    assert!(usage_error(&[]).contains("--prompt"));
    assert!(usage_error(&["--prompt", "x", "--frobnicate"]).contains("--frobnicate"));
    assert!(usage_error(&["--prompt", "x", "--mode", "later"]).contains("later"));
    assert!(usage_error(&["--prompt", "x", "--hitl-dir", "/dev/null"]).contains("--hitl-dir"));
    assert!(
        usage_error(&["--prompt", "x", "--restore-checkpoint", "/tmp/x"])
            .contains("--restore-checkpoint")
    );
    assert!(usage_error(&["--prompt", "x", "--image", "a.png"]).contains("--image"));
    assert!(
        usage_error(&["--prompt", "x", "--blocked-tools", "exec,teleport"]).contains("teleport")
    );
    assert!(usage_error(&["--prompt", "x", "--max-iterations", "0"]).contains("at least 1"));
    assert!(usage_error(&["--prompt", "x", "--session-id", "../../etc"]).contains("--session-id"));
    assert!(
        usage_error(&["--prompt", "x", "--script", "/nonexistent/script.json"])
            .contains("cannot read the script")
    );
    assert!(usage_error(&["--prompt", "x", "--max-iterations", "many"]).contains("many"));
}

#[test]
fn missing_model_server_is_a_usage_error() {
    let env = TestEnv::new("");
    let output = env
        .command(&["--prompt", "x"])
        .env_remove("AGENT_API_URL")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("AGENT_API_URL"));
}

#[test]
fn strayl_variables_are_fallbacks() {
    use super::mock::{MockServer, Reply, openai};
    let server = MockServer::start(vec![Reply::stream(openai::text_turn("ok"))]);
    let env = TestEnv::for_server(&server);
    let output = env
        .command(&["--prompt", "x"])
        .env_remove("AGENT_API_URL")
        .env_remove("AGENT_API_KEY")
        .env("STRAYL_API_URL", &server.url)
        .env("STRAYL_SESSION_TOKEN", "strayl-fallback-token-123")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer strayl-fallback-token-123")
    );
}

#[test]
fn bad_config_file_is_a_usage_error() {
    let env = TestEnv::offline();
    std::fs::write(&env.config, "[retry]\nmax_attempts = \"lots\"\n").unwrap();
    let output = env
        .command(&["--prompt", "x"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("max_attempts"));
}

#[test]
fn a_prompt_may_start_with_a_dash() {
    let env = TestEnv::offline();
    let script = env.script(serde_json::json!({"turns": [{"text": "ok"}]}));
    let run = env.run_script(
        &script,
        "- fix the list; --help is not a flag here",
        &["--previous-summary", "-x earlier work"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.one("user-message")["text"],
        "- fix the list; --help is not a flag here"
    );
}

#[test]
fn a_usage_error_leaves_nothing_on_disk() {
    let env = TestEnv::offline();
    let script = env.script(serde_json::json!({"turns": [{"text": "ok"}]}));
    let missing_image = env.root.path().join("missing.png");
    let hitl = env.root.path().join("hitl/new");
    let output = env
        .script_command(
            &script,
            "x",
            &[
                "--session-id",
                "left-behind",
                "--hitl-dir",
                hitl.to_str().unwrap(),
                "--model",
                "claude",
                "--image",
                missing_image.to_str().unwrap(),
            ],
        )
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--image"));
    assert!(
        !env.state_dir().join("sessions/left-behind").exists(),
        "a session folder was made for a start that failed"
    );
    assert!(
        !hitl.exists(),
        "the hitl folder was made for a start that failed"
    );
}

#[test]
fn a_session_live_in_another_process_is_a_machine_error() {
    let env = TestEnv::offline();
    let script = env.script(serde_json::json!({"turns": [
        {"tool_calls": [{"name": "ask_user", "args": {"question": "wait?"}}]},
        {"text": "done"}
    ]}));
    let mut first = env.spawn_script(&script, "x", &["--session-id", "live"]);
    let saved = first.wait_for_type("checkpoint-saved");
    first.wait_for_type("hitl-request");
    let checkpoint = saved["checkpoint"].as_str().unwrap().to_owned();
    let output = env
        .script_command(&script, "again", &["--restore-checkpoint", &checkpoint])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("already running"));
    first.send(r#"{"type":"cancel"}"#);
    let _ = first.finish();
}

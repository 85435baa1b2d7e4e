//! The login environment (issue 13): captured in the background from the
//! start of the session, kept in the session folder for the next turns
//! while the profile is unchanged.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::{Finished, TestEnv};

const SECRET: &str = "leaked-by-profile-123";

/// A HOME whose `.bash_profile` writes when it starts (nanoseconds since
/// the epoch, one line per run), sleeps `sleep`, and exports a marker and
/// a secret.
fn slow_profile(env: &TestEnv, sleep: &str) -> PathBuf {
    let home = env.root.path().join("home");
    // Made in advance: commands (the profile's capture among them) cannot
    // create entries right in HOME, which is above the state folder.
    std::fs::write(home.join("profile-runs"), "").unwrap();
    std::fs::write(
        home.join(".bash_profile"),
        format!(
            "date +%s%N >> \"$HOME/profile-runs\"\nsleep {sleep}\nexport LOGIN_MARKER=from-profile\nexport MY_DB_PASSWORD={SECRET}\n"
        ),
    )
    .unwrap();
    home
}

/// The nanosecond times at which the profile started, one per run.
fn profile_runs(home: &Path) -> Vec<u128> {
    std::fs::read_to_string(home.join("profile-runs"))
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect()
}

/// Turns for three processes of one conversation (the scripted model
/// goes on where the checkpoint left it): each runs one command, then
/// answers. The command prints the secret's value bare, where only the
/// mask can know it for one.
fn three_turns(env: &TestEnv) -> PathBuf {
    let command = json!({"name": "exec", "args": {"command": "echo marker=$LOGIN_MARKER db=${MY_DB_PASSWORD:-absent}; sed -n 's/.*PASSWORD=//p' \"$HOME/.bash_profile\""}});
    let turn = json!({"tool_calls": [command]});
    let answer = json!({"text": "done"});
    env.script(json!({"turns": [turn, answer, turn, answer, turn, answer]}))
}

fn last_checkpoint(run: &Finished) -> String {
    run.of_type("checkpoint-saved").last().unwrap()["checkpoint"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn only_output(run: &Finished) -> String {
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let results = run.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    results[0]["output"].as_str().unwrap().to_owned()
}

#[test]
fn the_next_turn_takes_the_kept_environment_until_the_profile_changes() {
    let env = TestEnv::offline();
    let home = slow_profile(&env, "0.05");
    let script = three_turns(&env);

    let first = env.run_script(&script, "one", &["--session-id", "kept"]);
    let output = only_output(&first);
    assert!(
        output.starts_with("marker=from-profile db=absent\n"),
        "{output}"
    );
    assert!(!output.contains(SECRET), "{output}");
    assert_eq!(profile_runs(&home).len(), 1);

    // The next user turn: the profile does not run again, the commands
    // see what it set, and the secret it set is still masked (its value
    // is kept with the capture, apart from the environment).
    let second = env.run_script(
        &script,
        "two",
        &["--restore-checkpoint", &last_checkpoint(&first)],
    );
    let output = only_output(&second);
    assert!(
        output.starts_with("marker=from-profile db=absent\n"),
        "{output}"
    );
    assert!(!output.contains(SECRET), "{output}");
    assert!(
        second.lines.iter().all(|line| !line.contains(SECRET)),
        "the secret reached an event"
    );
    assert_eq!(profile_runs(&home).len(), 1, "the profile ran again");
    let kept = env
        .state_dir()
        .join("sessions/kept")
        .join(agent::tools::exec::LOGIN_ENV_FILE);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // A touched profile is run again.
    let earlier = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(home.join(".bash_profile"))
        .unwrap()
        .set_modified(earlier)
        .unwrap();
    let third = env.run_script(
        &script,
        "three",
        &["--restore-checkpoint", &last_checkpoint(&second)],
    );
    let output = only_output(&third);
    assert!(
        output.starts_with("marker=from-profile db=absent\n"),
        "{output}"
    );
    assert_eq!(profile_runs(&home).len(), 2);
}

/// Milliseconds since the epoch of an event's `ts`
/// (`2026-11-30T12:00:00.000Z`).
fn ts_ms(event: &Value) -> u128 {
    let ts = event["ts"].as_str().unwrap();
    let parsed = chrono::DateTime::parse_from_rfc3339(ts).unwrap();
    u128::try_from(parsed.timestamp_millis()).unwrap()
}

#[test]
fn the_profile_runs_while_the_model_thinks() {
    let env = TestEnv::offline();
    let home = slow_profile(&env, "0.3");
    // Four streamed pieces (text, the call, two of arguments) 200 ms
    // apart: the model takes 800 ms before the command.
    let script = env.script(json!({"turns": [
        {"text": "let me look", "chunk_delay_ms": 200, "tool_calls": [
            {"name": "exec", "args": {"command": "echo marker=$LOGIN_MARKER"}}
        ]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "go", &[]);
    let output = only_output(&run);
    assert!(output.starts_with("marker=from-profile\n"), "{output}");
    let runs = profile_runs(&home);
    assert_eq!(runs.len(), 1);
    let profile_started_ms = runs[0] / 1_000_000;
    // Before the model had even finished its answer, by far: without the
    // background capture the profile starts after the call does.
    let call_ms = ts_ms(run.one("tool-call-start"));
    assert!(
        profile_started_ms + 300 < call_ms,
        "the profile started at {profile_started_ms}, the call at {call_ms}"
    );
    // So the command did not wait out the profile's 300 ms.
    let waited = run.tool_results()[0]["duration_ms"].as_u64().unwrap();
    assert!(waited < 300, "the command took {waited} ms");
}

#[test]
fn a_failed_capture_warns_at_the_first_command_and_is_not_kept() {
    let env = TestEnv::offline();
    let home = env.root.path().join("home");
    std::fs::write(home.join("profile-runs"), "").unwrap();
    std::fs::write(
        home.join(".bash_profile"),
        "date +%s%N >> \"$HOME/profile-runs\"\nexport LOGIN_MARKER=from-profile\nexit 3\n",
    )
    .unwrap();
    let script = three_turns(&env);
    let first = env.run_script(&script, "one", &["--session-id", "failed"]);
    let output = only_output(&first);
    assert!(output.starts_with("marker= db=absent\n"), "{output}");
    let warnings: Vec<&Value> = first
        .of_type("error")
        .into_iter()
        .filter(|event| event["code"] == "login-env")
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0]["fatal"], false);
    // Announced with the command that runs without it, not before.
    let position = |wanted: &Value| first.events.iter().position(|event| event == wanted);
    assert!(
        position(first.one("tool-call-start")) < position(warnings[0]),
        "{:?}",
        first.events
    );

    let second = env.run_script(
        &script,
        "two",
        &["--restore-checkpoint", &last_checkpoint(&first)],
    );
    only_output(&second);
    assert_eq!(profile_runs(&home).len(), 2, "a failure is not kept");
    assert!(
        second
            .of_type("error")
            .iter()
            .any(|event| event["code"] == "login-env")
    );
}

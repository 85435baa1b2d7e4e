//! No secret in the event stream, none in a child's environment, and the
//! files the tools write left exactly as asked.

use serde_json::json;

use super::{TOKEN, TestEnv, read};

const FAKE_AWS_KEY: &str = "AKIAIOSFODNN7EXAMPLE";
const FAKE_AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const DB_PASSWORD: &str = "correct-horse-battery-staple";

#[test]
fn token_and_secret_vars_never_reach_children_or_stdout() {
    let env = TestEnv::new("http://127.0.0.1:9/unused");
    let script = env.script(json!({"turns": [
        {"tool_calls": [
            {"name": "exec", "args": {"command": "env > env.txt; env; echo \"token=$AGENT_API_KEY db=$MY_DB_PASSWORD\""}},
            {"name": "exec", "args": {"command": "echo leaked: $(cat token-copy.txt)"}},
            {"name": "read_file", "args": {"path": "token-copy.txt"}}
        ]},
        {"text": format!("The token is {TOKEN} and the password {DB_PASSWORD}.")}
    ]}));
    std::fs::write(env.work.join("token-copy.txt"), TOKEN).unwrap();
    let run = env
        .spawn_with_env(
            &["--script", script.to_str().unwrap(), "--prompt", "show env"],
            &[
                ("MY_DB_PASSWORD", DB_PASSWORD),
                ("STRAYL_SESSION_TOKEN", "strayl-token-abcdefgh12345"),
                ("HARMLESS_SETTING", "visible-value"),
            ],
        )
        .finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let child_env = read(&env.work, "env.txt");
    for name in ["AGENT_API_KEY", "STRAYL_SESSION_TOKEN", "MY_DB_PASSWORD"] {
        assert!(
            !child_env.contains(&format!("{name}=")),
            "{name} reached the child"
        );
    }
    assert!(child_env.contains("HARMLESS_SETTING=visible-value"));
    for line in &run.lines {
        for secret in [TOKEN, DB_PASSWORD, "strayl-token-abcdefgh12345"] {
            assert!(!line.contains(secret), "secret in stdout: {line}");
        }
    }
    // Streamed pieces joined up hide nothing either.
    for kind in ["text-delta", "exec-log"] {
        let joined: String = run
            .of_type(kind)
            .iter()
            .map(|e| e["delta"].as_str().or(e["data"].as_str()).unwrap())
            .collect();
        for secret in [TOKEN, DB_PASSWORD] {
            assert!(
                !joined.contains(secret),
                "{kind} pieces spell a secret: {joined}"
            );
        }
    }
    // The model did get to see and say it; the events show it masked.
    let said: String = run
        .of_type("text-delta")
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert!(said.contains("[REDACTED:secret-value]"), "{said}");
    assert!(
        run.lines
            .iter()
            .any(|l| l.contains("leaked: [REDACTED:secret-value]"))
    );
}

#[test]
fn planted_cloud_keys_are_masked_in_events_but_written_to_disk_unchanged() {
    let env = TestEnv::new("http://127.0.0.1:9/unused");
    let credentials = format!(
        "[default]\naws_access_key_id = {FAKE_AWS_KEY}\naws_secret_access_key = {FAKE_AWS_SECRET}\n"
    );
    std::fs::write(env.work.join("credentials"), &credentials).unwrap();
    let private_key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----\n";
    let script = env.script(json!({"turns": [
        {"tool_calls": [
            {"name": "read_file", "args": {"path": "credentials"}},
            {"name": "exec", "args": {"command": "cat credentials"}},
            {"name": "write_file", "args": {"path": "copy/id_rsa", "content": private_key}},
            {"name": "write_file", "args": {"path": "settings.env", "content": "GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\npassword = hunter2hunter2\n"}}
        ]},
        {"text": "done"}
    ]}));
    let run = env.run(&["--script", script.to_str().unwrap(), "--prompt", "look"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for line in &run.lines {
        for secret in [
            FAKE_AWS_KEY,
            FAKE_AWS_SECRET,
            "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo",
            "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
            "hunter2hunter2",
        ] {
            assert!(!line.contains(secret), "secret in stdout: {line}");
        }
    }
    let read_result = run.tool_results()[0]["output"].as_str().unwrap().to_owned();
    assert!(
        read_result.contains("[REDACTED:aws-access-key-id]"),
        "{read_result}"
    );
    assert!(
        read_result.contains("aws_secret_access_key = [REDACTED:aws-secret-access-key]"),
        "{read_result}"
    );
    // What the tools wrote is exactly what the model asked for.
    assert_eq!(read(&env.work, "copy/id_rsa"), private_key);
    assert!(read(&env.work, "settings.env").contains("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"));
    assert_eq!(read(&env.work, "credentials"), credentials);
}

const GITHUB_TOKEN: &str = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";

/// Fails when any event line holds `min` or more consecutive bytes of a
/// secret: a half secret is as bad as a whole one.
fn assert_no_fragment(lines: &[String], secrets: &[&str], min: usize) {
    for secret in secrets {
        for start in 0..=secret.len().saturating_sub(min) {
            let fragment = &secret[start..start + min];
            for line in lines {
                if let Some(at) = line.find(fragment) {
                    let from = line.floor_char_boundary(at.saturating_sub(120));
                    let to = line.ceil_char_boundary(at + 120);
                    panic!(
                        "{fragment:?} (from a secret) in stdout: ...{}...",
                        &line[from..to.min(line.len())]
                    );
                }
            }
        }
    }
}

#[test]
fn hitl_request_files_are_masked_like_events() {
    let env = TestEnv::new("http://127.0.0.1:9/unused");
    let mut config = std::fs::read_to_string(&env.config).unwrap();
    config.push_str("[approval]\ndefault = \"allow\"\n[[approval.exec]]\npattern = \"touch *\"\ndecision = \"ask\"\n");
    std::fs::write(&env.config, config).unwrap();
    let dir = env.root.path().join("hitl");
    std::fs::create_dir(&dir).unwrap();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "ask_user", "id": "q1",
                         "args": {"question": format!("Is {GITHUB_TOKEN} the token to use?")}}]},
        {"tool_calls": [{"name": "exec", "id": "k1",
                         "args": {"command": format!("touch ok.txt # {DB_PASSWORD}")}}]},
        {"text": "done"}
    ]}));
    let mut agent = env.spawn_with_env(
        &[
            "--script",
            script.to_str().unwrap(),
            "--prompt",
            "ask",
            "--hitl-dir",
            dir.to_str().unwrap(),
        ],
        &[("MY_DB_PASSWORD", DB_PASSWORD)],
    );
    for (id, secret) in [("q1", GITHUB_TOKEN), ("k1", DB_PASSWORD)] {
        agent.wait_for("the request", |e| {
            e["type"] == "hitl-request" && e["id"] == id
        });
        let written = std::fs::read_to_string(dir.join(format!("{id}.request.json"))).unwrap();
        assert!(!written.contains(secret), "{written}");
        assert!(written.contains("[REDACTED:"), "{written}");
        agent.send(&format!(
            r#"{{"type":"hitl-response","id":"{id}","decision":"approve","data":{{"answer":"yes"}}}}"#
        ));
    }
    let run = agent.finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_no_fragment(&run.lines, &[GITHUB_TOKEN, DB_PASSWORD], 12);
}

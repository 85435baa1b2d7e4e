//! No secret in the event stream, none in a child's environment, and the
//! files the tools write left exactly as asked.

use serde_json::json;

use super::{TOKEN, TestEnv, read};

const FAKE_AWS_KEY: &str = "AKIAIOSFODNN7EXAMPLE";
const FAKE_AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const DB_PASSWORD: &str = "correct-horse-battery-staple";

#[test]
fn token_and_secret_vars_never_reach_children_or_stdout() {
    let env = TestEnv::offline();
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
    let env = TestEnv::offline();
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
    let run = env.run_script(&script, "look", &[]);
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

/// The pieces of a stream joined up, per tool call id.
fn joined_exec_log(run: &super::Finished, id: &str) -> String {
    run.of_type("exec-log")
        .iter()
        .filter(|e| e["id"] == id)
        .map(|e| e["data"].as_str().unwrap())
        .collect()
}

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
fn a_secret_cut_by_a_forced_flush_is_still_masked() {
    let env = TestEnv::offline();
    std::fs::write(env.work.join("tok.txt"), GITHUB_TOKEN).unwrap();
    std::fs::write(env.work.join("pw.txt"), DB_PASSWORD).unwrap();
    // Secrets straddling the 8 KiB flushes of a partial line: output that
    // arrives faster than it is read comes in reads of a page or 8 KiB,
    // so pieces end at multiples of 8 KiB whichever the read size is.
    let mut big = String::new();
    let mut expected = String::new();
    for (k, (secret, before, masked)) in [
        (GITHUB_TOKEN, 6, "[REDACTED:github-token]"),
        (DB_PASSWORD, 12, "[REDACTED:secret-value]"),
        (GITHUB_TOKEN, 25, "[REDACTED:github-token]"),
        (DB_PASSWORD, 3, "[REDACTED:secret-value]"),
    ]
    .into_iter()
    .enumerate()
    {
        let filler = (k + 1) * 8192 - before - 1 - big.len();
        let pad = "x".repeat(filler);
        big.push_str(&format!("{pad} {secret} "));
        expected.push_str(&format!("{pad} {masked} "));
    }
    big.push('\n');
    expected.push('\n');
    std::fs::write(env.work.join("big.txt"), &big).unwrap();
    let script = env.script(json!({"turns": [
        {"tool_calls": [
            {"name": "exec", "id": "big", "args": {"command": "cat big.txt"}},
            {"name": "exec", "id": "tok", "args": {"command": "head -c 20 tok.txt; sleep 0.3; tail -c +21 tok.txt; echo"}},
            {"name": "exec", "id": "pw", "args": {"command": "printf 'db: '; head -c 12 pw.txt; sleep 0.3; tail -c +13 pw.txt; echo"}},
            {"name": "exec", "id": "progress", "args": {"command": "printf '45%%'; sleep 0.3; echo ' done'"}}
        ]},
        {"text": "done"}
    ]}));
    let run = env
        .spawn_with_env(
            &["--script", script.to_str().unwrap(), "--prompt", "print"],
            &[("MY_DB_PASSWORD", DB_PASSWORD)],
        )
        .finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_no_fragment(&run.lines, &[GITHUB_TOKEN, DB_PASSWORD], 6);
    assert_eq!(joined_exec_log(&run, "big"), expected);
    assert_eq!(joined_exec_log(&run, "tok"), "[REDACTED:github-token]\n");
    assert_eq!(joined_exec_log(&run, "pw"), "db: [REDACTED:secret-value]\n");
    // A progress line that cannot start a secret still shows at once.
    assert!(
        run.of_type("exec-log")
            .iter()
            .any(|e| e["id"] == "progress" && e["data"] == "45%"),
        "{:?}",
        run.of_type("exec-log")
    );
}

#[test]
fn a_secret_across_the_cut_of_a_long_minified_line_is_masked() {
    let env = TestEnv::offline();
    // One minified JSON line: its URL holds the whole run, so past 4 KiB
    // it is cut 512 bytes before the end of each 8 KiB piece, at 8192k -
    // 512. A secret sits across each of those cuts, at a different offset.
    let mut line = String::from("{\"url\":\"https://example.org/\",\"blob\":\"");
    let mut expected = line.clone();
    for k in 1..=24 {
        let (secret, masked) = match k % 2 {
            0 => (TOKEN, "[REDACTED:secret-value]"),
            _ => (GITHUB_TOKEN, "[REDACTED:github-token]"),
        };
        let cut = k * 8192 - 512;
        let start = cut - 1 - (k * 5) % (secret.len() - 1);
        let pad = ",".repeat(start - line.len());
        line.push_str(&pad);
        line.push_str(secret);
        expected.push_str(&pad);
        expected.push_str(masked);
    }
    line.push_str("\"}\n");
    expected.push_str("\"}\n");
    std::fs::write(env.work.join("min.json"), &line).unwrap();
    let script = env.script(json!({"turns": [
        {"tool_calls": [
            {"name": "exec", "id": "min", "args": {"command": "cat min.json"}}
        ]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "print", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_no_fragment(&run.lines, &[GITHUB_TOKEN], 6);
    // Ten: `session` alone is in every `session-start`.
    assert_no_fragment(&run.lines, &[TOKEN], 10);
    assert_eq!(joined_exec_log(&run, "min"), expected);
}

/// Body lines of a made-up RSA key: 64 base64 characters each.
fn fake_key_lines() -> Vec<String> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..8)
        .map(|_| {
            (0..64)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    ALPHABET[(state % 64) as usize] as char
                })
                .collect()
        })
        .collect()
}

fn fake_key(lines: &[String]) -> String {
    format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
        lines.join("\n")
    )
}

#[test]
fn private_key_lines_are_masked_however_they_are_read() {
    let env = TestEnv::offline();
    let lines = fake_key_lines();
    std::fs::create_dir_all(env.work.join("deploy")).unwrap();
    std::fs::write(env.work.join("deploy/id_rsa"), fake_key(&lines)).unwrap();
    // A second key that only the model's own write brings in.
    let other: Vec<String> = lines
        .iter()
        .map(|line| line.chars().rev().collect())
        .collect();
    let script = env.script(json!({"turns": [
        {"tool_calls": [
            // Commands first: only the start-up scan knows the key then.
            {"name": "exec", "id": "sed", "args": {"command": "sed -n 3,5p deploy/id_rsa"}},
            {"name": "exec", "id": "grep", "args": {"command": "grep -v PRIVATE deploy/id_rsa"}},
            {"name": "grep", "id": "g", "args": {"pattern": "^[A-Za-z0-9+/]{40,}$"}},
            {"name": "read_file", "id": "r", "args": {"path": "deploy/id_rsa", "offset": 3, "limit": 3}},
            {"name": "write_file", "id": "w", "args": {"path": "other.pem", "content": fake_key(&other)}},
            {"name": "exec", "id": "sed2", "args": {"command": "sed -n 2,4p other.pem"}}
        ]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "look", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let all: Vec<&str> = lines.iter().chain(&other).map(String::as_str).collect();
    assert_no_fragment(&run.lines, &all, 24);
    // The tools did run and found the lines; they show masked.
    for id in ["g", "r", "sed", "grep", "sed2"] {
        let output = run
            .tool_results()
            .into_iter()
            .find(|e| e["id"] == id)
            .unwrap()["output"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(output.contains("[REDACTED:private-key]"), "{id}: {output}");
    }
    assert_eq!(read(&env.work, "other.pem"), fake_key(&other));
}

/// A secret whose URL encoding differs from itself.
const ODD_PASSWORD: &str = "Tr0ub4dor&3 horse/staple?";

fn percent_encoded(value: &str, lower: bool, plus_for_space: bool) -> String {
    let mut out = String::new();
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            b' ' if plus_for_space => out.push('+'),
            _ if lower => out.push_str(&format!("%{byte:02x}")),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[test]
fn encoded_forms_of_a_secret_value_are_masked() {
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
    let env = TestEnv::offline();
    std::fs::write(env.work.join("pw.txt"), ODD_PASSWORD).unwrap();
    let url_forms = [
        percent_encoded(ODD_PASSWORD, false, false),
        percent_encoded(ODD_PASSWORD, true, false),
        percent_encoded(ODD_PASSWORD, false, true),
    ];
    std::fs::write(env.work.join("url.txt"), url_forms.join("\n")).unwrap();
    let script = env.script(json!({"turns": [
        {"tool_calls": [
            {"name": "exec", "id": "b64", "args": {"command": "base64 pw.txt; (cat pw.txt; echo) | base64"}},
            {"name": "exec", "id": "url64", "args": {"command": "base64 -w0 pw.txt | tr '+/' '-_' | tr -d =; echo"}},
            {"name": "exec", "id": "aligned", "args": {"command": "(printf x; cat pw.txt) | base64; (printf xy; cat pw.txt) | base64 -w0; echo"}},
            {"name": "exec", "id": "hex", "args": {"command": "od -An -v -tx1 pw.txt | tr -d ' \\n'; echo; od -An -v -tx1 pw.txt | tr -d ' \\n' | tr a-f A-F; echo"}},
            {"name": "exec", "id": "url", "args": {"command": "cat url.txt"}}
        ]},
        {"text": "done"}
    ]}));
    let run = env
        .spawn_with_env(
            &["--script", script.to_str().unwrap(), "--prompt", "encode"],
            &[("MY_DB_PASSWORD", ODD_PASSWORD)],
        )
        .finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let hex: String = ODD_PASSWORD.bytes().map(|b| format!("{b:02x}")).collect();
    let mut forms = vec![
        STANDARD.encode(ODD_PASSWORD),
        STANDARD.encode(format!("{ODD_PASSWORD}\n")),
        URL_SAFE_NO_PAD.encode(ODD_PASSWORD),
        hex.to_uppercase(),
        hex,
    ];
    forms.extend(url_forms);
    // Inside a longer stream only the characters that depend on the
    // secret alone are fixed; the middle of them must not show.
    for prefix in ["x", "xy"] {
        let encoded = STANDARD.encode(format!("{prefix}{ODD_PASSWORD}"));
        forms.push(encoded[3..encoded.len() - 4].to_owned());
    }
    for form in &forms {
        for line in &run.lines {
            assert!(!line.contains(form.as_str()), "{form} in stdout: {line}");
        }
    }
    assert_no_fragment(&run.lines, &[ODD_PASSWORD], 8);
    for id in ["b64", "url64", "aligned", "hex", "url"] {
        assert!(
            joined_exec_log(&run, id).contains("[REDACTED:secret-value]"),
            "{id}: {}",
            joined_exec_log(&run, id)
        );
    }
}

#[test]
fn hitl_request_files_are_masked_like_events() {
    let env = TestEnv::offline();
    env.add_config("[approval]\ndefault = \"allow\"\n[[approval.exec]]\npattern = \"touch *\"\ndecision = \"ask\"\n");
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

#[test]
fn look_alikes_are_shown_and_literal_secrets_masked() {
    let env = TestEnv::offline();
    let look_alikes = [
        "AGENT_API_KEY=unset",
        "OLDPWD=/home/agent/src",
        "password = os.environ[\"DB_PASSWORD\"]",
        "api_key: ${OPENAI_API_KEY}",
        "export SECRET_KEY=$SECRET_KEY",
        "client_secret: <your-client-secret-here>",
    ];
    let literals = ["hunter2hunter2", "Tr0ub4dor&3xyz", "9f8e7d6c5b4a39281706"];
    std::fs::write(env.work.join("settings.txt"), look_alikes.join("\n") + "\n").unwrap();
    std::fs::write(
        env.work.join("real.txt"),
        format!(
            "password = {}\nDB_PASSWORD={}\napi_key: \"{}\"\n",
            literals[0], literals[1], literals[2]
        ),
    )
    .unwrap();
    let script = env.script(json!({"turns": [
        {"tool_calls": [
            {"name": "exec", "id": "cat", "args": {"command": "cat settings.txt real.txt"}},
            {"name": "read_file", "id": "read", "args": {"path": "settings.txt"}}
        ]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "look", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let output = |id: &str| {
        run.tool_results()
            .into_iter()
            .find(|e| e["id"] == id)
            .unwrap()["output"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    for shown in [output("cat"), output("read"), joined_exec_log(&run, "cat")] {
        for line in look_alikes {
            assert!(shown.contains(line), "{line:?} is masked: {shown}");
        }
    }
    assert_eq!(
        output("cat")
            .matches("[REDACTED:secret-assignment]")
            .count(),
        3,
        "{}",
        output("cat")
    );
    assert_no_fragment(&run.lines, &literals, 8);
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Corpus {
    exact: Vec<String>,
    masked: Vec<MustMask>,
    kept: Vec<MustKeep>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MustMask {
    text: String,
    hidden: String,
    rule: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MustKeep {
    text: String,
    #[allow(dead_code)]
    why: String,
}

#[test]
fn the_redaction_corpus_holds() {
    let corpus: Corpus = toml::from_str(include_str!("../data/redaction-corpus.toml")).unwrap();
    let redactor = agent::protocol::redact::Redactor::new(corpus.exact);
    let mut wrong = Vec::new();
    for case in &corpus.masked {
        let out = redactor.redact(&case.text);
        if out.contains(&case.hidden) || !out.contains(&format!("[REDACTED:{}]", case.rule)) {
            wrong.push(format!(
                "not masked as {}: {:?} -> {out:?}",
                case.rule, case.text
            ));
        }
    }
    for case in &corpus.kept {
        let out = redactor.redact(&case.text);
        if out != case.text {
            wrong.push(format!("masked: {:?} -> {out:?}", case.text));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(corpus.masked.len() >= 30 && corpus.kept.len() >= 30);
}

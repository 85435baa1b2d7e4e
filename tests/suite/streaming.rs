//! Work shown as it happens: `activity` before the arguments are complete,
//! `file-delta` while a file's content streams, `exec-log` line by line.

use serde_json::json;

use super::mock::{MockServer, Reply, openai};
use super::{TestEnv, read};

#[test]
fn write_file_content_streams_as_file_deltas_split_inside_escapes() {
    let content = "fn main() {\n\tprintln!(\"héllo 😀 \\\\ done\");\n}\n";
    let args = json!({"path": "src/main.rs", "content": content}).to_string();
    // Escape the non-ASCII too, so surrogate pairs travel as \ud83d\ude00.
    let args: String = args
        .chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                c.encode_utf16(&mut [0; 2])
                    .iter()
                    .map(|unit| format!("\\u{unit:04x}"))
                    .collect()
            }
        })
        .collect();
    assert!(args.contains("\\ud83d\\ude00"));
    // Two-byte pieces: every escape, \uXXXX and surrogate pair is cut.
    let mut events = vec![
        openai::role(),
        openai::tool_start(0, "call_w", "write_file"),
    ];
    let bytes = args.as_bytes();
    for piece in bytes.chunks(2) {
        events.push(openai::tool_args(0, std::str::from_utf8(piece).unwrap()));
    }
    events.extend([
        openai::finish("tool_calls"),
        openai::usage(10, 10),
        openai::done(),
    ]);
    let server = MockServer::start(vec![
        Reply::stream(events),
        Reply::stream(openai::text_turn("ok")),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "write"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(read(&env.work, "src/main.rs"), content);

    // The pieces joined are exactly the content, whatever the cuts.
    let joined: String = run
        .of_type("file-delta")
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(joined, content);
    // Every piece as the decoder cut it, after the activity and before
    // tool-call-start, then file-complete.
    insta::assert_snapshot!(env.snap().render(&run));
}

#[test]
fn activity_precedes_tool_call_start_for_every_call() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[
            ("a", "read_file", json!({"path": "x"})),
            ("b", "exec", json!({"command": "true"})),
            ("c", "list_dir", json!({})),
        ])),
        Reply::stream(openai::text_turn("ok")),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "go"]);
    // The three activities come as the stream names each tool, all before
    // the first tool-call-start.
    insta::assert_snapshot!(env.snap().render(&run));
}

fn exec_logs(run: &super::Finished) -> Vec<(String, String)> {
    run.of_type("exec-log")
        .iter()
        .map(|e| {
            (
                e["stream"].as_str().unwrap().to_owned(),
                e["data"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn exec_streams_lines_separately_and_partial_lines_after_a_pause() {
    let env = TestEnv::offline();
    let run = env.run_commands(
        &[
            // Pauses far above the 100 ms linger, so a loaded machine
            // (CI runs the suite's tests in parallel on 2 cores) reads each
            // piece apart.
            "for i in 1 2 3; do echo out$i; echo err$i >&2; sleep 0.4; done",
            "printf partial; sleep 1; echo ' rest'",
            "for c in a b c d e f g h; do printf $c; done; echo",
        ],
        &[],
    );
    let logs = exec_logs(&run);
    let of = |id: &str| -> Vec<(String, String)> {
        run.of_type("exec-log")
            .iter()
            .filter(|e| e["id"] == id)
            .map(|e| {
                (
                    e["stream"].as_str().unwrap().to_owned(),
                    e["data"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let first = of("call_1_1");
    let stdout: Vec<&str> = first
        .iter()
        .filter(|(s, _)| s == "stdout")
        .map(|(_, d)| d.as_str())
        .collect();
    let stderr: Vec<&str> = first
        .iter()
        .filter(|(s, _)| s == "stderr")
        .map(|(_, d)| d.as_str())
        .collect();
    assert_eq!(stdout, ["out1\n", "out2\n", "out3\n"], "{logs:?}");
    assert_eq!(stderr, ["err1\n", "err2\n", "err3\n"], "{logs:?}");
    // The partial line is not held back until the newline.
    assert_eq!(
        of("call_1_2"),
        [
            ("stdout".to_owned(), "partial".to_owned()),
            ("stdout".to_owned(), " rest\n".to_owned())
        ]
    );
    // Bytes written one at a time do not make an event each.
    assert_eq!(
        of("call_1_3"),
        [("stdout".to_owned(), "abcdefgh\n".to_owned())]
    );
}

#[test]
fn exec_reports_exit_codes_signals_and_survives_bad_utf8() {
    let env = TestEnv::offline();
    let run = env.run_commands(
        &[
            "printf 'x\\377y\\n'",
            "exit 7",
            "kill -9 $$",
            "cat; echo stdin-was-empty",
        ],
        &[],
    );
    let results = run.tool_results();
    assert_eq!(results[0]["ok"], true);
    assert!(
        results[0]["output"]
            .as_str()
            .unwrap()
            .starts_with("x\u{FFFD}y\n")
    );
    assert!(
        results[1]["output"]
            .as_str()
            .unwrap()
            .contains("[exit code 7,")
    );
    assert!(
        results[2]["output"]
            .as_str()
            .unwrap()
            .contains("killed by signal 9")
    );
    assert!(
        results[3]["output"]
            .as_str()
            .unwrap()
            .contains("stdin-was-empty")
    );
    assert!(results.iter().all(|r| r["duration_ms"].is_u64()));
}

#[test]
fn login_environment_is_captured_once_and_scrubbed() {
    let env = TestEnv::offline();
    let home = env.root.path().join("home");
    std::fs::create_dir_all(home.join("bin")).unwrap();
    std::fs::write(home.join("bin/mytool"), "#!/bin/sh\necho mytool-ran\n").unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(
        &mut std::fs::metadata(home.join("bin/mytool"))
            .unwrap()
            .permissions(),
        0o755,
    );
    std::fs::set_permissions(
        home.join("bin/mytool"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    // Made in advance: commands (the profile's capture among them) cannot
    // create entries right in HOME, which is above the state folder.
    std::fs::write(home.join("profile-runs"), "").unwrap();
    std::fs::write(
        home.join(".bash_profile"),
        "echo chatty profile\nexport FROM_PROFILE=yes\nexport PATH=\"$HOME/bin:$PATH\"\necho run >> \"$HOME/profile-runs\"\nexport MY_DB_PASSWORD=leaked-by-profile-123\n",
    )
    .unwrap();
    let run = env.run_commands(
        &[
            "echo from=$FROM_PROFILE",
            "mytool",
            "echo db-${MY_DB_PASSWORD:-absent} key-${AGENT_API_KEY:-absent}",
        ],
        &[],
    );
    let outputs: Vec<&str> = run
        .tool_results()
        .iter()
        .map(|r| r["output"].as_str().unwrap())
        .collect();
    assert!(outputs[0].starts_with("from=yes\n"), "{outputs:?}");
    assert!(outputs[1].starts_with("mytool-ran\n"), "{outputs:?}");
    assert!(
        outputs[2].starts_with("db-absent key-absent\n"),
        "{outputs:?}"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("profile-runs")).unwrap(),
        "run\n"
    );
}

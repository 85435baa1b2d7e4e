//! The full loop against the mock server, in both wire formats.

use serde_json::json;

use super::mock::{MockServer, Reply, anthropic, openai};
use super::{TOKEN, TestEnv, messages, read};

#[test]
fn openai_tool_loop_runs_tools_and_sends_results_back() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[
            (
                "call_w",
                "write_file",
                json!({"path": "src/hello.txt", "content": "héllo \"world\"\n"}),
            ),
            (
                "call_x",
                "exec",
                json!({"command": "cat src/hello.txt; echo done >&2"}),
            ),
        ])),
        Reply::stream({
            let mut events = vec![openai::role(), openai::reasoning("checking")];
            events.extend(openai::text_turn("All done.").into_iter().skip(1));
            events
        }),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "write hello"]);

    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(run.exit_reason(), "completed");
    assert_eq!(read(&env.work, "src/hello.txt"), "héllo \"world\"\n");
    // Each call: activity, (its file's content as it streams), then
    // tool-call-start, what it did, tool-result; usage after each model
    // call, totals at the end.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));

    // The second request carries the assistant's calls and both results.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert_eq!(requests[0].body["stream"], true);
    assert_eq!(requests[0].body["stream_options"]["include_usage"], true);
    assert_eq!(requests[0].body["model"], "gpt-5.1");
    let second = messages(&requests[1]);
    let assistant = &second[2];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(
        assistant["tool_calls"][0]["function"]["arguments"],
        json!({"path": "src/hello.txt", "content": "héllo \"world\"\n"}).to_string()
    );
    assert_eq!(second[3]["role"], "tool");
    assert_eq!(second[3]["tool_call_id"], "call_w");
    assert_eq!(second[4]["tool_call_id"], "call_x");
    let exec_result = second[4]["content"].as_str().unwrap();
    assert!(
        exec_result.contains("héllo \"world\"") && exec_result.contains("exit code 0"),
        "{exec_result}"
    );
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

#[test]
fn anthropic_format_streams_tool_use_and_sends_tool_results() {
    let mut first = vec![anthropic::message_start(50), anthropic::ping()];
    first.extend(anthropic::text_block(0, &["Let me ", "look."]));
    first.extend(anthropic::tool_block(
        1,
        "toolu_01",
        "exec",
        &["", "{\"comm", "and\": \"echo hi\"}"],
    ));
    first.extend(anthropic::message_end("tool_use", 20));
    let mut second = vec![anthropic::message_start(80)];
    second.extend(anthropic::text_block(0, &["Finished."]));
    second.extend(anthropic::message_end("end_turn", 5));
    let server = MockServer::start(vec![Reply::stream(first), Reply::stream(second)]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "say hi", "--model", "claude"]);

    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    // The arguments split over three deltas arrive whole; the totals add
    // up both calls.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));

    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(requests[0].header("x-api-key"), Some(TOKEN));
    assert_eq!(requests[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(requests[0].body["model"], "claude-mock");
    assert!(
        requests[0].body["system"][0]["text"]
            .as_str()
            .unwrap()
            .contains("coding agent")
    );
    assert_eq!(
        requests[0].body["tools"][0]["input_schema"]["type"],
        "object"
    );
    let sent = requests[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(sent[1]["content"][1]["type"], "tool_use");
    assert_eq!(sent[2]["content"][0]["type"], "tool_result");
    assert_eq!(sent[2]["content"][0]["tool_use_id"], "toolu_01");
    assert!(
        sent[2]["content"][0]["content"]
            .as_str()
            .unwrap()
            .contains("hi")
    );
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

#[test]
fn tool_call_with_id_and_name_split_over_chunks() {
    let events = vec![
        openai::role(),
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_\",\"type\":\"function\",\"function\":{\"name\":\"list\"}}]}}]}\n\n".to_owned(),
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"split\",\"function\":{\"name\":\"_dir\",\"arguments\":\"{\\\"pa\"}}]}}]}\n\n".to_owned(),
        openai::tool_args(0, "th\": \".\"}"),
        openai::finish("tool_calls"),
        openai::done(),
    ];
    let server = MockServer::start(vec![
        Reply::stream(events),
        Reply::stream(openai::text_turn("ok")),
    ]);
    let env = TestEnv::for_server(&server);
    std::fs::write(env.work.join("marker.txt"), "x").unwrap();
    let run = env.run(&["--prompt", "list"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // One call `call_split` to `list_dir`, its id, name and arguments
    // joined; a stream without usage still ends the call, with zero usage.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));
}

#[test]
fn scripted_demo_from_the_readme_runs_offline() {
    let env = TestEnv::offline();
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    for name in ["notes.md", "readings.csv"] {
        std::fs::copy(demo.join("project").join(name), env.work.join(name)).unwrap();
    }
    let script = demo.join("script.json");
    let run = env.run_script(&script, "Summarise", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(read(&env.work, "report.md").contains("1 of 5 readings"));
    // The README's demo, as its reader sees it: list_dir, read_file, exec
    // and write_file, each ok, with the model's text between them.
    insta::assert_snapshot!(env.snap().coalesce().estimated_input().render(&run));
}

#[test]
fn max_iterations_ends_the_session() {
    let env = TestEnv::offline();
    let turn = json!({"tool_calls": [{"name": "exec", "args": {"command": "true"}}]});
    let script = env.script(json!({"turns": [turn, turn, turn, turn]}));
    let run = env.run_script(&script, "loop", &["--max-iterations", "2"]);
    assert_eq!(run.exit_reason(), "max-iterations");
    assert_eq!(run.code, Some(3));
    assert_eq!(run.end()["iterations"], 2);
    assert_eq!(run.of_type("tool-result").len(), 2);
}

#[test]
fn previous_summary_reaches_the_model() {
    let server = MockServer::start(vec![Reply::stream(openai::text_turn("ok"))]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&[
        "--prompt",
        "continue",
        "--previous-summary",
        "We renamed foo to bar.",
    ]);
    assert_eq!(run.code, Some(0));
    let sent = messages(&server.requests()[0]);
    // With the task, not in the system prompt, which stays the same bytes
    // for every session (the provider caches it).
    assert!(
        !sent[0]["content"]
            .as_str()
            .unwrap()
            .contains("We renamed foo to bar.")
    );
    assert!(
        super::is_task(&sent[1]["content"], "continue"),
        "{}",
        sent[1]
    );
    let first = sent[1]["content"].as_str().unwrap();
    assert!(first.contains("<earlier_work>\nWe renamed foo to bar.\n</earlier_work>"));
}

#[test]
fn unknown_alias_is_sent_literally() {
    let server = MockServer::start(vec![Reply::stream(openai::text_turn("ok"))]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "hi", "--model", "vendor/some-model-7b"]);
    assert_eq!(run.code, Some(0));
    assert_eq!(run.one("session-start")["model"], "vendor/some-model-7b");
    assert_eq!(server.requests()[0].body["model"], "vendor/some-model-7b");
}

#[test]
fn text_format_is_readable() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"text": "Running it.", "tool_calls": [{"name": "exec", "args": {"command": "echo out-line"}}]},
        {"text": "Finished."}
    ]}));
    let output = env
        .script_command(&script, "go", &["--format", "text"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("== agent "), "{text}");
    assert!(text.contains("Running it.\n"), "{text}");
    assert!(
        text.contains("-> exec {\"command\":\"echo out-line\"}"),
        "{text}"
    );
    assert!(text.contains("   | out-line"), "{text}");
    assert!(text.contains("<- exec ok"), "{text}");
    assert!(text.contains("== completed after 2 iteration(s)"), "{text}");
    assert!(!text.contains("\"_seq\""), "{text}");
}

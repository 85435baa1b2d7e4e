//! Compaction: past the threshold of a small configured window, the middle
//! of the conversation becomes a summary; the task (with the skills'
//! listing) and the todos stay.

use serde_json::json;

use super::mock::{MockServer, Reply, openai};
use super::{TestEnv, messages};

fn small_window(env: &TestEnv) {
    env.add_config(
        "[models.small]\nformat = \"openai\"\nmodel = \"small-model\"\ncontext_window = 8000\n\
         [compaction]\nthreshold = 0.8\nkeep_recent_turns = 1\n",
    );
}

const BIG: &str = "head -c 40000 /dev/zero | tr '\\0' 'a'";

#[test]
fn a_summary_replaces_the_middle_and_task_and_todos_stay() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[
            (
                "t1",
                "todo_write",
                json!({"todos": [{"content": "Trim the logs", "status": "in_progress"}]}),
            ),
            ("e1", "exec", json!({"command": "echo first-output"})),
        ])),
        Reply::stream(openai::tool_turn(&[(
            "e2",
            "exec",
            json!({"command": BIG}),
        )])),
        Reply::stream(openai::text_turn(
            "SUMMARY-TEXT: listed the logs, started trimming.",
        )),
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    small_window(&env);
    // The skills' listing lives in the first message, which stays.
    super::skills::write_skill(
        &env.work.join(".agents/skills/logs"),
        "logs",
        "Trim log files.",
        "body",
    );
    let run = env.run(&["--prompt", "Trim the logs", "--model", "small"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // The checkpoint of the iteration before the summary holds the
    // conversation the summary then rewrites: it is written first.
    let saved: Vec<u64> = run
        .of_type("checkpoint-saved")
        .iter()
        .map(|e| e["iteration"].as_u64().unwrap())
        .collect();
    assert_eq!(saved, [0, 1, 2, 3]);
    let summarized_at = run.one("summarizing")["_seq"].as_u64().unwrap();
    let second = run
        .of_type("checkpoint-saved")
        .into_iter()
        .find(|e| e["iteration"] == 2)
        .unwrap();
    assert!(second["_seq"].as_u64().unwrap() < summarized_at);
    assert!(
        run.of_type("error")
            .iter()
            .all(|e| e["code"] != "checkpoint-failed"),
        "{:?}",
        run.of_type("error")
    );
    let summarizing = run.one("summarizing");
    let summarized = run.one("summarized");
    let before = summarizing["tokens_before"].as_u64().unwrap();
    assert!(before > 6_400, "{before}");
    assert_eq!(summarized["tokens_before"], before);
    assert!(summarized["tokens_after"].as_u64().unwrap() < before);
    assert!(
        run.of_type("activity")
            .iter()
            .any(|e| e["activity"] == "summarizing")
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let summary_request = &requests[2].body;
    assert!(
        summary_request.get("tools").is_none(),
        "the summary call offers no tools"
    );
    let summary_messages = summary_request["messages"].as_array().unwrap();
    assert!(
        summary_messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("summarise")
    );
    assert!(
        summary_messages[1]["content"]
            .as_str()
            .unwrap()
            .contains("first-output")
    );

    let after = messages(&requests[3]);
    let roles: Vec<&str> = after.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "user", "assistant", "tool"]);
    assert!(
        super::is_task(&after[1]["content"], "Trim the logs"),
        "{}",
        after[1]
    );
    assert!(
        after[1]["content"]
            .as_str()
            .unwrap()
            .contains("\n- logs: Trim log files. (.agents/skills/logs/SKILL.md)\n"),
        "{}",
        after[1]
    );
    let note = after[2]["content"].as_str().unwrap();
    assert!(
        note.contains("SUMMARY-TEXT") && note.contains("[>] Trim the logs (id 1)"),
        "{note}"
    );
    assert_eq!(
        after[3]["tool_calls"][0]["id"], "e2",
        "the recent turn stays verbatim"
    );
    // The summary is not streamed as the assistant's answer.
    let said: String = run
        .of_type("text-delta")
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(said, "done");
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

/// A tool turn whose request the provider counted as `prompt` tokens.
fn counted_turn(id: &str, command: &str, prompt: u64) -> Reply {
    let mut events = openai::tool_turn(&[(id, "exec", json!({"command": command}))]);
    for event in &mut events {
        if *event == openai::usage(120, 30) {
            *event = openai::usage(prompt, 30);
        }
    }
    Reply::stream(events)
}

#[test]
fn a_failed_summary_degrades_to_dropping_old_outputs() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "e1",
            "exec",
            json!({"command": BIG}),
        )])),
        // The request that carried the big output, counted as such.
        counted_turn("e2", "echo small", 11_000),
        Reply::status(400, r#"{"error":{"message":"summaries are off today"}}"#),
        Reply::stream(openai::text_turn("still here")),
    ]);
    let env = TestEnv::for_server(&server);
    small_window(&env);
    let run = env.run(&["--prompt", "go", "--model", "small"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.exit_reason(), "completed");
    let failures: Vec<_> = run
        .of_type("error")
        .into_iter()
        .filter(|e| e["code"] == "compaction-failed")
        .collect();
    assert!(
        failures.iter().any(|e| e["message"]
            .as_str()
            .unwrap()
            .contains("summaries are off today")),
        "{failures:?}"
    );
    assert!(failures.iter().all(|e| e["fatal"] == false));
    let last = messages(server.requests().last().unwrap());
    assert!(super::is_task(&last[1]["content"], "go"), "{}", last[1]);
    let first_output = last.iter().find(|m| m["tool_call_id"] == "e1").unwrap();
    assert!(
        first_output["content"]
            .as_str()
            .unwrap()
            .starts_with("[output dropped")
    );
    let last_summarized = *run.of_type("summarized").last().unwrap();
    assert!(last_summarized["tokens_after"].as_u64().unwrap() < 6_400);
}

/// A window too big for the threshold to matter, one recent turn kept.
fn big_window(env: &TestEnv) {
    env.add_config(
        "[models.big]\nformat = \"openai\"\nmodel = \"big-model\"\ncontext_window = 1000000\n\
         [models.bigclaude]\nformat = \"anthropic\"\nmodel = \"claude-mock\"\ncontext_window = 1000000\n\
         [compaction]\nkeep_recent_turns = 1\n",
    );
}

fn two_tool_turns_then(refusal: Reply, summary: Reply, done: Reply) -> Vec<Reply> {
    vec![
        Reply::stream(openai::tool_turn(&[(
            "e1",
            "exec",
            json!({"command": "echo first-output"}),
        )])),
        Reply::stream(openai::tool_turn(&[(
            "e2",
            "exec",
            json!({"command": "echo second-output"}),
        )])),
        refusal,
        summary,
        done,
    ]
}

#[test]
fn a_prompt_the_provider_finds_too_long_is_compacted_and_sent_again() {
    let server = MockServer::start(two_tool_turns_then(
        Reply::status(
            400,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
        ),
        Reply::stream(openai::text_turn("SUMMARY-TEXT: ran the first command.")),
        Reply::stream(openai::text_turn("done")),
    ));
    let env = TestEnv::for_server(&server);
    big_window(&env);
    let run = env.run(&["--prompt", "go", "--model", "big"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.exit_reason(), "completed");
    let warning = run
        .of_type("error")
        .into_iter()
        .find(|e| e["code"] == "context-too-long")
        .expect("the refusal is told");
    assert_eq!(warning["fatal"], false);
    run.one("summarizing");
    run.one("summarized");

    let requests = server.requests();
    assert_eq!(
        requests.len(),
        5,
        "two turns, the refused one, the summary, the retry"
    );
    let retried = messages(&requests[4]);
    let texts: Vec<String> = retried.iter().map(|m| m["content"].to_string()).collect();
    assert!(
        texts.iter().any(|t| t.contains("SUMMARY-TEXT")),
        "{texts:?}"
    );
    assert!(
        !texts.iter().any(|t| t.contains("first-output")),
        "the old turn is summarised away: {texts:?}"
    );
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

#[test]
fn the_anthropic_shape_of_too_long_is_compacted_and_sent_again() {
    use super::mock::anthropic;
    let turn = |id: &str, command: &str| {
        let args = json!({"command": command}).to_string();
        let mut events = vec![anthropic::message_start(50)];
        events.extend(anthropic::tool_block(0, id, "exec", &[args.as_str()]));
        events.extend(anthropic::message_end("tool_use", 10));
        Reply::stream(events)
    };
    let text = |answer: &str| {
        let mut events = vec![anthropic::message_start(50)];
        events.extend(anthropic::text_block(0, &[answer]));
        events.extend(anthropic::message_end("end_turn", 5));
        Reply::stream(events)
    };
    let server = MockServer::start(vec![
        turn("toolu_1", "echo first-output"),
        turn("toolu_2", "echo second-output"),
        Reply::status(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
        ),
        text("SUMMARY-TEXT"),
        text("done"),
    ]);
    let env = TestEnv::for_server(&server);
    big_window(&env);
    let run = env.run(&["--prompt", "go", "--model", "bigclaude"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.of_type("error")
            .iter()
            .any(|e| e["code"] == "context-too-long")
    );
    assert_eq!(server.requests().len(), 5);
}

#[test]
fn the_provider_s_token_count_decides_when_to_compact() {
    // Small texts, but the provider counts 7,000 input tokens: over 80%
    // of the 8,000-token window, which four bytes a token would never see.
    let counted = counted_turn("e1", "echo hi", 7_000);
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "e0",
            "exec",
            json!({"command": "echo zero"}),
        )])),
        counted,
        Reply::stream(openai::text_turn("SUMMARY-TEXT")),
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    small_window(&env);
    let run = env.run(&["--prompt", "go", "--model", "small"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let before = run.one("summarizing")["tokens_before"].as_u64().unwrap();
    assert!(
        before >= 7_000,
        "{before}: the provider's count, not bytes/4"
    );
    assert_eq!(server.requests().len(), 4);
}

//! Compaction: past the threshold of a small configured window, the middle
//! of the conversation becomes a summary; the task and the todos stay.

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
    let run = env.run(&["--prompt", "Trim the logs", "--model", "small"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
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
    assert_eq!(after[1]["content"], "Trim the logs");
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

#[test]
fn a_failed_summary_degrades_to_dropping_old_outputs() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "e1",
            "exec",
            json!({"command": BIG}),
        )])),
        Reply::stream(openai::tool_turn(&[(
            "e2",
            "exec",
            json!({"command": "echo small"}),
        )])),
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
    assert_eq!(last[1]["content"], "go");
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

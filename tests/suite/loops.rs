//! The loop breaker, tier by tier, against the mock model: each command
//! counts its own runs in a file, so what the agent ran is not taken on
//! its word.

use serde_json::{Value, json};

use super::mock::{MockServer, Reply, openai};
use super::{Finished, TestEnv, messages};

/// The model makes each call in a turn of its own, then answers "done".
fn one_call_per_turn(calls: &[(&str, Value)]) -> Vec<Reply> {
    let mut replies: Vec<Reply> = calls
        .iter()
        .enumerate()
        .map(|(index, (name, args))| {
            Reply::stream(openai::tool_turn(&[(
                &format!("call_{}", index + 1),
                name,
                args.clone(),
            )]))
        })
        .collect();
    replies.push(Reply::stream(openai::text_turn("done")));
    replies
}

/// How many times the commands appended to `runs` in the work dir.
fn runs(env: &TestEnv) -> usize {
    std::fs::read_to_string(env.work.join("runs"))
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

/// The `error` events' codes and whether each was fatal.
fn errors(run: &Finished) -> Vec<(String, bool)> {
    run.of_type("error")
        .iter()
        .map(|event| {
            (
                event["code"].as_str().unwrap_or("").to_owned(),
                event["fatal"].as_bool().unwrap_or(true),
            )
        })
        .collect()
}

/// What the last recorded request told the model about the last call.
fn last_tool_message(server: &MockServer) -> String {
    let requests = server.requests();
    let last = messages(requests.last().expect("a request"));
    let tool = last
        .iter()
        .rev()
        .find(|message| message["role"] == "tool")
        .expect("a tool message");
    tool["content"].as_str().unwrap_or("").to_owned()
}

#[test]
fn the_third_identical_call_after_two_identical_failures_is_not_run() {
    // The same arguments in another key order are the same call.
    let command = "echo run >> runs; exit 1";
    let server = MockServer::start(one_call_per_turn(&[
        ("exec", json!({"command": command, "timeout_ms": 5000})),
        ("exec", json!({"timeout_ms": 5000, "command": command})),
        ("exec", json!({"command": command, "timeout_ms": 5000})),
    ]));
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "go"]);

    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(runs(&env), 2);
    assert_eq!(errors(&run), [("loop-identical-failures".into(), false)]);
    let results = run.tool_results();
    assert_eq!(results.len(), 3);
    assert_eq!(results[2]["ok"], false);
    let told = last_tool_message(&server);
    assert!(told.contains("failed 2 times in a row"), "{told}");
    assert!(told.contains("Change your approach"), "{told}");
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

#[test]
fn the_fifth_identical_call_is_not_run_and_the_model_gets_its_result() {
    let call = (
        "exec",
        json!({"command": "echo run >> runs; echo the answer is 42"}),
    );
    let server = MockServer::start(one_call_per_turn(&vec![call; 5]));
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "go"]);

    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(runs(&env), 4);
    assert_eq!(errors(&run), [("loop-identical-calls".into(), false)]);
    let told = last_tool_message(&server);
    assert!(told.contains("already made 4 times"), "{told}");
    assert!(told.contains("the answer is 42"), "{told}");
    assert!(told.contains("Do something different"), "{told}");
}

#[test]
fn the_sixth_failing_call_of_a_tool_is_not_run() {
    let calls: Vec<(&str, Value)> = (1..=6)
        .map(|n| {
            (
                "exec",
                json!({"command": format!("echo {n} >> runs; exit 3")}),
            )
        })
        .collect();
    let server = MockServer::start(one_call_per_turn(&calls));
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "go"]);

    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(runs(&env), 5);
    assert_eq!(errors(&run), [("loop-tool-failures".into(), false)]);
    let told = last_tool_message(&server);
    assert!(told.contains("this tool failed 5 times in a row"), "{told}");
    // What failed last, so the model sees its own mistake.
    assert!(told.contains("echo 5 >> runs"), "{told}");
}

#[test]
fn a_tool_that_keeps_failing_ends_the_session_as_stuck() {
    // Calls 6 and 7 are not run (and count as failures); the eighth ends
    // the session: no ninth model call.
    let calls: Vec<(&str, Value)> = (1..=10)
        .map(|n| {
            (
                "exec",
                json!({"command": format!("echo {n} >> runs; exit 3")}),
            )
        })
        .collect();
    let server = MockServer::start(one_call_per_turn(&calls));
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "go"]);

    assert_eq!(run.code, Some(5), "stderr: {}", run.stderr);
    assert_eq!(run.exit_reason(), "stuck");
    assert_eq!(runs(&env), 5);
    assert_eq!(server.requests().len(), 8);
    assert_eq!(
        errors(&run),
        [
            ("loop-tool-failures".into(), false),
            ("loop-tool-failures".into(), false),
            ("loop-stuck".into(), true)
        ]
    );
    // The fatal error says what kept failing, right before the end.
    let last_two = &run.events[run.events.len() - 2..];
    assert_eq!(last_two[0]["code"], "loop-stuck");
    let message = last_two[0]["message"].as_str().unwrap();
    assert!(
        message.contains("exec failed 7 times in a row"),
        "{message}"
    );
    assert!(message.contains("echo 5 >> runs"), "{message}");
    // Every call got its result.
    assert_eq!(run.tool_results().len(), 8);
}

#[test]
fn an_inject_starts_the_count_over() {
    // The second run waits for the test's inject to be read, so it is
    // taken before the third call.
    let command = "echo run >> runs; if [ $(wc -l < runs) -eq 2 ]; then \
                   for i in $(seq 400); do [ -f go ] && break; sleep 0.025; done; fi; exit 1";
    let call = ("exec", json!({"command": command}));
    let server = MockServer::start(one_call_per_turn(&[call.clone(), call.clone(), call]));
    let env = TestEnv::for_server(&server);
    let mut agent = env.spawn(&["--prompt", "go"]);
    agent.wait_for("the second call", |event| {
        event["type"] == "tool-call-start" && event["id"] == "call_2"
    });
    agent.send(r#"{"type":"inject","text":"I fixed the machine, try again."}"#);
    agent.wait_for_type("command-ack");
    std::fs::write(env.work.join("go"), "").unwrap();
    let run = agent.finish();

    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(runs(&env), 3, "the third identical call ran");
    assert_eq!(errors(&run), []);
    assert_eq!(run.of_type("user-message").len(), 2);
}

#[test]
fn an_answer_that_repeats_itself_is_cut_and_the_model_goes_on() {
    // The stream then stalls: an agent that kept reading would wait for
    // the idle timeout and retry (a `model-idle-timeout` error, a third
    // request). A tool call after the repetition is never run.
    let mut events = vec![openai::role(), openai::text("Let me check: ")];
    for _ in 0..40 {
        events.push(openai::text("I am checking the build again now.\n"));
    }
    events.push(openai::tool_start(0, "call_x", "exec"));
    events.push(openai::tool_args(0, r#"{"command":"echo run >> runs"}"#));
    let server = MockServer::start(vec![
        Reply::Stall { events },
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "go"]);

    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(runs(&env), 0);
    assert_eq!(errors(&run), [("loop-repeated-text".into(), false)]);
    let streamed: String = run
        .of_type("text-delta")
        .iter()
        .map(|event| event["delta"].as_str().unwrap())
        .collect();
    // Ten copies seen, then no more (the last answer is "done").
    assert_eq!(
        streamed,
        format!(
            "Let me check: {}done",
            "I am checking the build again now.\n".repeat(10)
        )
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let sent = messages(&requests[1]);
    let assistant = &sent[sent.len() - 2];
    assert_eq!(
        assistant["content"],
        "Let me check: I am checking the build again now.\n\n[cut by the agent: this answer repeated the text above 10 times in a row]"
    );
    assert!(assistant.get("tool_calls").is_none(), "{assistant}");
    let told = &sent[sent.len() - 1];
    assert_eq!(told["role"], "user");
    let text = told["content"].as_str().unwrap();
    assert!(text.contains("repeated the same text 10 times"), "{text}");
}

#[test]
fn the_breaker_can_be_switched_off() {
    let command = "echo run >> runs; exit 1";
    let server = MockServer::start(one_call_per_turn(&vec![
        (
            "exec",
            json!({"command": command})
        );
        4
    ]));
    let env = TestEnv::for_server(&server);
    env.add_config("[loop_breaker]\nenabled = false\n");
    let run = env.run(&["--prompt", "go"]);

    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(runs(&env), 4);
    assert_eq!(errors(&run), []);
}

#[test]
fn thresholds_come_from_the_config_and_bad_ones_are_refused() {
    let command = "echo run >> runs; exit 1";
    let server = MockServer::start(one_call_per_turn(&vec![
        (
            "exec",
            json!({"command": command})
        );
        4
    ]));
    let env = TestEnv::for_server(&server);
    env.add_config("[loop_breaker]\nidentical_failures = 4\n");
    let run = env.run(&["--prompt", "go"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(runs(&env), 3);
    assert_eq!(errors(&run), [("loop-identical-failures".into(), false)]);

    let env = TestEnv::offline();
    env.add_config("[loop_breaker]\nstuck_after = 1\n");
    let run = env.run(&["--prompt", "go"]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains("loop_breaker.stuck_after must be between 2 and 100"),
        "{}",
        run.stderr
    );
}

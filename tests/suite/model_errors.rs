//! Model failures: what is retried (visibly), what ends the session.

use std::time::{Duration, Instant};

use serde_json::json;

use super::mock::{MockServer, Reply, openai};
use super::{TestEnv, messages};

fn retry_errors(run: &super::Finished) -> Vec<&serde_json::Value> {
    run.of_type("error")
        .into_iter()
        .filter(|e| e["fatal"] == false)
        .collect()
}

#[test]
fn server_error_is_retried_with_a_visible_event() {
    let server = MockServer::start(vec![
        Reply::status(500, r#"{"error":{"message":"upstream exploded"}}"#),
        Reply::stream(openai::text_turn("recovered")),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "hi"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // One non-fatal error quoting the server, attempt 1, then the answer.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn rate_limit_waits_for_retry_after() {
    let server = MockServer::start(vec![
        Reply::Status {
            status: 429,
            headers: vec![("Retry-After".into(), "1".into())],
            body: r#"{"error":{"message":"slow down"}}"#.into(),
        },
        Reply::stream(openai::text_turn("ok")),
    ]);
    let env = TestEnv::for_server(&server);
    let started = Instant::now();
    let run = env.run(&["--prompt", "hi"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // The config's backoff is 10-50 ms; only Retry-After explains a second.
    assert!(started.elapsed() >= Duration::from_millis(1000));
    let errors = retry_errors(&run);
    assert_eq!(errors[0]["code"], "model-rate-limited");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("retrying in 1.0 s"),
        "{errors:?}"
    );
}

#[test]
fn stream_cut_midway_is_retried_without_double_counting_text() {
    let full = openai::text_turn("first words and more words");
    let cut_at = full[..3].concat().len() + 10; // inside the fourth event
    let server = MockServer::start(vec![
        Reply::Cut {
            events: full.clone(),
            keep: cut_at,
        },
        Reply::stream(openai::tool_turn(&[(
            "c1",
            "exec",
            json!({"command": "true"}),
        )])),
        Reply::stream(openai::text_turn("bye")),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "hi"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // The partial text streams live, then the model-stream-cut error; the
    // retry streams its own turn.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));
    // The conversation holds only the turn that completed.
    let second_request = messages(&server.requests()[2]);
    let assistant: Vec<_> = second_request
        .iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    assert_eq!(assistant.len(), 1);
    assert_eq!(assistant[0]["content"], serde_json::Value::Null);
    assert!(
        !second_request
            .to_vec()
            .iter()
            .any(|m| m.to_string().contains("first words"))
    );
}

#[test]
fn malformed_stream_is_retried() {
    let server = MockServer::start(vec![
        Reply::stream(vec![
            openai::role(),
            "data: {\"choices\": [oops\n\n".into(),
            openai::done(),
        ]),
        Reply::stream(openai::text_turn("fine")),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "hi"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(retry_errors(&run)[0]["code"], "model-stream-malformed");
}

#[test]
fn silent_stream_hits_the_idle_timeout_and_is_retried() {
    let server = MockServer::start(vec![
        Reply::Stall {
            events: vec![openai::role(), openai::text("wait")],
        },
        Reply::stream(openai::text_turn("awake")),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "hi"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(retry_errors(&run)[0]["code"], "model-idle-timeout");
}

#[test]
fn persistent_failure_ends_with_error_after_the_attempts() {
    let server = MockServer::start(vec![
        Reply::status(503, "overloaded"),
        Reply::status(503, "overloaded"),
        Reply::status(503, "still overloaded"),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "hi"]);
    assert_eq!(run.code, Some(1));
    // Two retried errors, then a fatal one quoting the last answer.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn dead_server_ends_in_error_with_exit_1() {
    // Bind and drop to get a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let env = TestEnv::new(&format!("http://127.0.0.1:{port}/v1"));
    let run = env.run(&["--prompt", "hi"]);
    assert_eq!(run.code, Some(1));
    assert_eq!(run.exit_reason(), "error");
    let fatal = run
        .of_type("error")
        .into_iter()
        .find(|e| e["fatal"] == true)
        .unwrap()
        .clone();
    assert_eq!(fatal["code"], "model-unreachable");
    assert!(
        fatal["message"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("connect"),
        "{fatal}"
    );
}

#[test]
fn unauthorized_is_not_retried_and_quotes_the_provider() {
    let server = MockServer::start(vec![Reply::status(
        401,
        r#"{"error":{"message":"Invalid session token","type":"invalid_request_error"}}"#,
    )]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "hi"]);
    assert_eq!(run.code, Some(1));
    // No retry: one fatal model-auth error quoting the provider.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn context_too_long_is_not_retried() {
    let server = MockServer::start(vec![Reply::status(
        400,
        r#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#,
    )]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "hi"]);
    assert_eq!(run.code, Some(1));
    insta::assert_snapshot!(env.snap().coalesce().render(&run));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_model_that_keeps_failing_hands_over_to_its_fallback() {
    let overloaded = || {
        Reply::status(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )
    };
    // The suite's config allows 3 attempts.
    let server = MockServer::start(vec![
        overloaded(),
        overloaded(),
        overloaded(),
        Reply::stream(openai::text_turn("ok from the backup")),
    ]);
    let env = TestEnv::for_server(&server);
    env.add_config(
        "[models.primary]\nformat = \"openai\"\nmodel = \"primary-model\"\nfallback = \"backup\"\n\
         [models.backup]\nformat = \"openai\"\nmodel = \"backup-model\"\n",
    );
    let run = env.run(&["--prompt", "hi", "--model", "primary"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let models: Vec<_> = server
        .requests()
        .iter()
        .map(|request| request.body["model"].clone())
        .collect();
    assert_eq!(
        models,
        [
            "primary-model",
            "primary-model",
            "primary-model",
            "backup-model"
        ]
    );
    let handed = run
        .of_type("error")
        .into_iter()
        .find(|e| e["code"] == "model-fallback")
        .expect("the hand-over is told");
    assert_eq!(handed["fatal"], false);
    let message = handed["message"].as_str().unwrap();
    assert!(
        message.contains("primary") && message.contains("backup"),
        "{message}"
    );

    // A fallback naming the model itself is a mistake in the table.
    let env = TestEnv::for_server(&server);
    env.add_config("[models.loop]\nformat = \"openai\"\nmodel = \"m\"\nfallback = \"loop\"\n");
    let run = env.run(&["--prompt", "hi", "--model", "loop"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
}

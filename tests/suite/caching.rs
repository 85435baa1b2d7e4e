//! What a session costs: every request of a session starts with the bytes
//! of the one before it (the provider's cache holds that prefix), each
//! format carries its cache hints, a priced model table gives dollars, and
//! an iteration's checkpoint is written on the model's time.

use serde_json::{Value, json};

use super::mock::{MockServer, Recorded, Reply, anthropic, openai};
use super::{TestEnv, messages};

/// Six iterations of one tool call each, then the answer.
fn openai_session() -> Vec<Reply> {
    let mut replies: Vec<Reply> = (0..5)
        .map(|n| {
            let call = format!("call_{n}");
            Reply::stream(openai::tool_turn(&[(
                call.as_str(),
                "exec",
                json!({"command": format!("echo step {n}")}),
            )]))
        })
        .collect();
    replies.push(Reply::stream(openai::text_turn("done")));
    replies
}

fn anthropic_session() -> Vec<Reply> {
    let mut replies: Vec<Reply> = (0..5)
        .map(|n| {
            let id = format!("toolu_{n}");
            let args = format!("{{\"command\": \"echo step {n}\"}}");
            let mut events = vec![anthropic::message_start(50)];
            events.extend(anthropic::text_block(0, &["Next."]));
            events.extend(anthropic::tool_block(1, &id, "exec", &[args.as_str()]));
            events.extend(anthropic::message_end("tool_use", 10));
            Reply::stream(events)
        })
        .collect();
    let mut last = vec![anthropic::message_start(50)];
    last.extend(anthropic::text_block(0, &["done"]));
    last.extend(anthropic::message_end("end_turn", 5));
    replies.push(Reply::stream(last));
    replies
}

/// The body without the cache marks, which move to the newest message on
/// every request by design.
fn unmarked(mut value: Value) -> Value {
    match &mut value {
        Value::Object(map) => {
            map.remove("cache_control");
            for item in map.values_mut() {
                *item = unmarked(item.take());
            }
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                *item = unmarked(item.take());
            }
        }
        _ => {}
    }
    value
}

/// Request n+1's messages start with exactly request n's, byte for byte;
/// its tools and system prompt are the same bytes.
fn assert_prefixes(requests: &[Recorded]) {
    assert_eq!(requests.len(), 6, "six model calls");
    for pair in requests.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let old: Vec<String> = messages(before)
            .into_iter()
            .map(|message| unmarked(message).to_string())
            .collect();
        let new: Vec<String> = messages(after)
            .into_iter()
            .map(|message| unmarked(message).to_string())
            .collect();
        assert!(new.len() > old.len(), "the conversation grows");
        assert_eq!(new[..old.len()], old[..], "an earlier message changed");
        for field in ["tools", "system", "model"] {
            assert_eq!(
                unmarked(before.body[field].clone()).to_string(),
                unmarked(after.body[field].clone()).to_string(),
                "{field} changed between requests"
            );
        }
    }
}

#[test]
fn openai_requests_are_prefixes_of_each_other_and_share_a_cache_key() {
    let server = MockServer::start(openai_session());
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "step through", "--session-id", "cache-test"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = server.requests();
    assert_prefixes(&requests);
    for request in &requests {
        assert_eq!(request.body["prompt_cache_key"], "cache-test");
    }
}

#[test]
fn anthropic_requests_are_prefixes_of_each_other_and_carry_cache_breakpoints() {
    let server = MockServer::start(anthropic_session());
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "step through", "--model", "claude"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = server.requests();
    assert_prefixes(&requests);
    let ephemeral = json!({"type": "ephemeral"});
    for (n, request) in requests.iter().enumerate() {
        assert_eq!(request.body["system"][0]["cache_control"], ephemeral);
        let sent = messages(request);
        let last = sent
            .last()
            .and_then(|message| message["content"].as_array().cloned());
        let last_block = last.and_then(|blocks| blocks.last().cloned());
        assert_eq!(
            last_block.map(|block| block["cache_control"].clone()),
            Some(ephemeral.clone()),
            "request {n}: the newest message is marked"
        );
        // The provider allows four marks.
        let marks = request.body.to_string().matches("cache_control").count();
        assert!(
            marks <= 4 && marks >= 2 + usize::from(n > 0),
            "{marks} marks"
        );
    }
}

#[test]
fn a_priced_model_table_puts_dollars_on_usage_and_session_end() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "call_1",
            "exec",
            json!({"command": "true"}),
        )])),
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    env.add_config(
        "[models.priced]\nformat = \"openai\"\nmodel = \"priced-model\"\n\
         input_price = 2.0\ncached_input_price = 0.5\noutput_price = 10.0\n",
    );
    let run = env.run(&["--prompt", "x", "--model", "priced"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let usage = run.of_type("usage-update");
    let dollars = |event: &Value, field: &str| event[field].as_f64().expect(field);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    // The mock's turns: 120 in / 30 out, then 100 in / 10 out, none cached.
    assert!(close(
        dollars(usage[0], "cost_usd"),
        (120.0 * 2.0 + 30.0 * 10.0) / 1e6
    ));
    assert!(close(
        dollars(usage[1], "cost_usd"),
        (100.0 * 2.0 + 10.0 * 10.0) / 1e6
    ));
    let total = (220.0 * 2.0 + 40.0 * 10.0) / 1e6;
    assert!(close(dollars(usage[1], "total_cost_usd"), total));
    assert!(close(dollars(run.one("session-end"), "cost_usd"), total));

    // Without prices there is no number to give.
    let server = MockServer::start(vec![Reply::stream(openai::text_turn("done"))]);
    let plain = TestEnv::for_server(&server);
    let run = plain.run(&["--prompt", "x"]);
    assert!(run.one("usage-update").get("cost_usd").is_none());
    assert!(run.one("session-end").get("cost_usd").is_none());
}

/// The checkpoint of an iteration is written while the next request is
/// with the model, not before it leaves: a command that makes 30,000
/// files gives the checkpoint after it tens of milliseconds of work, and
/// the next request must reach the server before that checkpoint's
/// manifest exists. Then the checkpoint is there, announced before the
/// answer it overlapped, and complete.
#[test]
fn the_checkpoint_of_an_iteration_is_written_while_the_next_request_is_out() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let manifest = state.join("sessions/overlap/checkpoints/000001.json");
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "call_1",
            "exec",
            json!({"command": "mkdir many && cd many && seq 1 30000 | xargs touch"}),
        )])),
        Reply::Probe {
            path: manifest.clone(),
            seen: seen.clone(),
            then: Box::new(Reply::stream(openai::text_turn("done"))),
        },
    ]);
    let env = TestEnv::for_server(&server);
    let state_arg = state.display().to_string();
    let run = env.run(&[
        "--prompt",
        "make files",
        "--session-id",
        "overlap",
        "--state-dir",
        &state_arg,
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        *seen.lock().unwrap(),
        Some(false),
        "the checkpoint of iteration 1 was written before the next request left"
    );
    assert!(manifest.exists());
    let order: Vec<String> = run
        .events
        .iter()
        .filter_map(|event| match event["type"].as_str() {
            Some("checkpoint-saved") => Some(format!("checkpoint {}", event["iteration"])),
            Some("text-delta") => Some(format!("text {}", event["iteration"])),
            _ => None,
        })
        .collect();
    assert_eq!(
        order,
        ["checkpoint 0", "checkpoint 1", "text 2", "checkpoint 2"],
        "each checkpoint comes before the answer it overlapped"
    );
    let saved = run
        .of_type("checkpoint-saved")
        .into_iter()
        .find(|event| event["iteration"] == 1)
        .cloned()
        .unwrap();
    assert!(
        saved["files_changed"].as_u64().unwrap() >= 30_000,
        "{saved}"
    );
}

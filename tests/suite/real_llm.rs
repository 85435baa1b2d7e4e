//! A whole session against a real model server: llama.cpp's own
//! OpenAI-compatible server with a small instruct model (see
//! `../shared/real-llm/` and `.ci/run`, which starts it and sets
//! `AGENT_REAL_LLM_URL`). The model is weak, so this checks the protocol
//! over a real server's byte stream, not the quality of the work. Without
//! the server a plain `cargo test` lists it as ignored; `.ci/run` runs it
//! with `--include-ignored`, where a missing URL fails it.

use serde_json::Value;

use super::TestEnv;

#[test]
#[ignore = "needs a real model server (AGENT_REAL_LLM_URL): run by .ci/run"]
fn session_against_a_real_model_server_is_well_formed() {
    let url = std::env::var("AGENT_REAL_LLM_URL").expect(
        "AGENT_REAL_LLM_URL is the /v1 URL of a running model server (.ci/run starts one from ../shared/real-llm)",
    );
    let env = TestEnv::new(&url);
    // A small CPU model needs seconds before its first token.
    std::fs::write(
        &env.config,
        "[http]\nidle_timeout_secs = 180\n[retry]\nmax_attempts = 2\nbase_delay_ms = 100\nmax_delay_ms = 200\n\
         # Greedy decoding, so the small model answers the same way every run.\n\
         [models.smollm2]\nformat = \"openai\"\nmodel = \"smollm2\"\ncontext_window = 8192\nmax_output_tokens = 256\ntemperature = 0.0\nprompt = \"compact\"\n",
    )
    .unwrap();
    std::fs::write(env.work.join("hello.txt"), "hello from a file\n").unwrap();
    let run = env
        .spawn(&[
            "--prompt",
            "Run the command ls to list the files.",
            "--model",
            "smollm2",
            "--max-iterations",
            "3",
        ])
        // Three calls on two CPU cores, at 30 to 60 tokens a second.
        .finish_within(std::time::Duration::from_secs(300));
    // check_stream (inside run) already re-read every line into the schema.
    assert!(
        matches!(run.exit_reason(), "completed" | "max-iterations"),
        "{}\n{}",
        run.lines.join("\n"),
        run.stderr
    );
    assert!(run.of_type("error").iter().all(|e| e["fatal"] == false));
    let usage = run.of_type("usage-update");
    assert!(!usage.is_empty());
    assert!(usage[0]["input_tokens"].as_u64().unwrap() > 0);
    let results = run.tool_results();
    assert!(
        !results.is_empty(),
        "the model called no tool:\n{}",
        run.lines.join("\n")
    );
    let started: Vec<&Value> = run.of_type("tool-call-start");
    assert_eq!(started.len(), results.len());
}

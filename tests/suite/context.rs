//! What the model is told besides the task: the environment and the
//! project's instruction files, in the first user message; the system
//! prompt the same bytes for every session.

use serde_json::json;

use super::mock::{MockServer, Reply, openai};
use super::{TestEnv, messages};

fn session(env: &TestEnv, server: &MockServer, more: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["--prompt", "fix it"];
    args.extend(more);
    let run = env.run(&args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.one("user-message")["text"],
        "fix it",
        "the event shows the prompt only"
    );
    server.requests().iter().map(|r| r.body.clone()).collect()
}

fn replies() -> Vec<Reply> {
    vec![
        Reply::stream(openai::tool_turn(&[
            ("r1", "read_file", json!({"path": "api/v1/main.rs"})),
            ("r2", "read_file", json!({"path": "api/other.rs"})),
        ])),
        Reply::stream(openai::text_turn("done")),
    ]
}

#[test]
fn agents_md_reaches_the_first_request_and_nested_ones_come_with_the_folder() {
    let server = MockServer::start(replies());
    let env = TestEnv::for_server(&server);
    std::fs::write(env.work.join("AGENTS.md"), "ROOT-MARKER: run cargo fmt\n").unwrap();
    std::fs::create_dir_all(env.work.join("api/v1")).unwrap();
    std::fs::write(env.work.join("api/CLAUDE.md"), "API-MARKER\n").unwrap();
    std::fs::write(env.work.join("api/v1/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(env.work.join("api/other.rs"), "\n").unwrap();
    let bodies = session(&env, &server, &[]);

    let first = messages_of(&bodies[0]);
    let task = first[1]["content"].as_str().unwrap();
    assert!(
        task.contains("<project_instructions path=\"AGENTS.md\">\nROOT-MARKER: run cargo fmt\n</project_instructions>"),
        "{task}"
    );
    assert!(task.contains("<environment>") && task.ends_with("\n\nfix it"));
    assert!(
        !task.contains("API-MARKER"),
        "a folder's file waits for the folder"
    );

    // The first read in api/ brings api/CLAUDE.md, the second does not
    // bring it again.
    let second = messages_of(&bodies[1]);
    let results: Vec<&str> = second
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].contains("<project_instructions path=\"api/CLAUDE.md\">\nAPI-MARKER"));
    assert!(!results[1].contains("API-MARKER"));
}

#[test]
fn project_instructions_can_be_turned_off_and_the_system_prompt_never_changes() {
    let server = MockServer::start(replies());
    let env = TestEnv::for_server(&server);
    env.add_config("[context]\nproject_instructions = false\n");
    std::fs::write(env.work.join("AGENTS.md"), "ROOT-MARKER\n").unwrap();
    let bodies = session(&env, &server, &[]);
    assert!(!bodies[0].to_string().contains("ROOT-MARKER"));
    let system = messages_of(&bodies[0])[0]["content"].clone();

    // Another session, elsewhere, with another task: the same system
    // prompt, byte for byte (the provider's cache serves every session).
    let server = MockServer::start(vec![Reply::stream(openai::text_turn("ok"))]);
    let other = TestEnv::for_server(&server);
    let run = other.run(&["--prompt", "something else", "--previous-summary", "x"]);
    assert_eq!(run.code, Some(0));
    assert_eq!(messages(&server.requests()[0])[0]["content"], system);
}

fn messages_of(body: &serde_json::Value) -> Vec<serde_json::Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

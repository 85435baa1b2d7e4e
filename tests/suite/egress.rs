//! The model boundary for secrets: a key the tools read reaches the model
//! as a placeholder, and the tools get the key back where the model wrote
//! the placeholder.

use serde_json::{Value, json};

use super::mock::{MockServer, Reply, openai};
use super::{Finished, TestEnv, read};

const KEY: &str = "sk-proj-Q7vX2mLp9RtY4wZk8NcB3hJd6FsG1aEu";
const PLACEHOLDER: &str = "«secret:openai-key:1»";
/// Found only by its key (`DB_PASSWORD=`): no shape of its own.
const PASSWORD: &str = "Tr0ub4dor-3xyz-Q";

fn dotenv() -> String {
    format!("OPENAI_API_KEY={KEY}\nDB_PASSWORD={PASSWORD}\nDEBUG=false\n")
}

/// Every request body the model server received, as sent.
fn bodies(server: &MockServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|request| request.body.to_string())
        .collect()
}

/// The content of the tool messages of one recorded request.
fn tool_messages(server: &MockServer, request: usize) -> Vec<String> {
    super::messages(&server.requests()[request])
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| message["content"].as_str().unwrap().to_owned())
        .collect()
}

fn assert_nowhere(run: &Finished, server: &MockServer, secrets: &[&str]) {
    for secret in secrets {
        for body in bodies(server) {
            assert!(!body.contains(secret), "{secret} sent to the model: {body}");
        }
        for line in &run.lines {
            assert!(!line.contains(secret), "{secret} in an event: {line}");
        }
    }
}

fn tool_result(run: &Finished, id: &str) -> Value {
    run.tool_results()
        .into_iter()
        .find(|result| result["id"] == id)
        .unwrap_or_else(|| panic!("no tool-result {id}"))
        .clone()
}

#[test]
fn a_dotenv_key_is_read_edited_and_used_but_never_sent_to_the_model() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "read",
            "read_file",
            json!({"path": ".env"}),
        )])),
        Reply::stream(openai::tool_turn(&[
            (
                "edit",
                "edit_file",
                json!({
                    "path": ".env",
                    "old_string": format!("OPENAI_API_KEY={PLACEHOLDER}\nDB_PASSWORD=«secret:secret-assignment:1»\nDEBUG=false"),
                    "new_string": format!("OPENAI_API_KEY={PLACEHOLDER}\nDB_PASSWORD=«secret:secret-assignment:1»\nDEBUG=true"),
                }),
            ),
            (
                "use",
                "exec",
                json!({"command": format!(
                    "set -a; . ./.env; test \"$OPENAI_API_KEY\" = {PLACEHOLDER} && echo same key; \
                     echo \"password: $DB_PASSWORD; unknown: «secret:openai-key:9»\"; cat .env"
                )}),
            ),
        ])),
        Reply::stream(openai::text_turn("Done.")),
    ]);
    let env = TestEnv::for_server(&server);
    std::fs::write(env.work.join(".env"), dotenv()).unwrap();
    let run = env.run(&["--prompt", "turn DEBUG on and check the key"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(server.violations().is_empty(), "{:?}", server.violations());
    // Not one request to the model, not one event holds the secrets.
    assert_nowhere(&run, &server, &[KEY, PASSWORD]);

    // The file holds the key still, and the edit.
    assert_eq!(
        read(&env.work, ".env"),
        dotenv().replace("DEBUG=false", "DEBUG=true")
    );
    assert_eq!(tool_result(&run, "edit")["ok"], true);
    // The command got the key where the model wrote the placeholder, and
    // an unknown placeholder as it was written.
    let used = tool_result(&run, "use");
    assert_eq!(used["ok"], true, "{used}");
    assert!(
        used["output"].as_str().unwrap().contains("same key"),
        "{used}"
    );
    // The model read the file with placeholders, and the command's output
    // (the password alone, without its key, too) the same way.
    let read_back = &tool_messages(&server, 1)[0];
    assert!(
        read_back.contains(&format!("OPENAI_API_KEY={PLACEHOLDER}"))
            && read_back.contains("DB_PASSWORD=«secret:secret-assignment:1»"),
        "{read_back}"
    );
    let output = tool_messages(&server, 2).pop().unwrap();
    assert!(output.contains("same key"), "{output}");
    assert!(
        output.contains("password: «secret:secret-assignment:1»; unknown: «secret:openai-key:9»"),
        "{output}"
    );
    assert!(
        output.contains(&format!("OPENAI_API_KEY={PLACEHOLDER}")),
        "{output}"
    );
    // The events show the model's placeholders as it wrote them.
    let start = run
        .of_type("tool-call-start")
        .into_iter()
        .find(|e| e["id"] == "edit")
        .unwrap()
        .clone();
    assert!(
        start["args"]["old_string"]
            .as_str()
            .unwrap()
            .contains(PLACEHOLDER),
        "{start}"
    );
}

#[test]
fn a_restored_session_still_puts_the_values_back() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "read",
            "read_file",
            json!({"path": ".env"}),
        )])),
        Reply::stream(openai::text_turn("Read it.")),
        Reply::stream(openai::tool_turn(&[(
            "use",
            "exec",
            json!({"command": format!(
                "set -a; . ./.env; test \"$OPENAI_API_KEY\" = {PLACEHOLDER} && echo same key; echo \"pw $DB_PASSWORD\""
            )}),
        )])),
        Reply::stream(openai::text_turn("Done.")),
    ]);
    let env = TestEnv::for_server(&server);
    std::fs::write(env.work.join(".env"), dotenv()).unwrap();
    let first = env.run(&["--prompt", "read .env", "--session-id", "egress"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let checkpoint = first.of_type("checkpoint-saved").last().unwrap()["checkpoint"]
        .as_str()
        .unwrap()
        .to_owned();

    let second = env.run(&["--prompt", "use it", "--restore-checkpoint", &checkpoint]);
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    let used = tool_result(&second, "use");
    assert!(
        used["output"].as_str().unwrap().contains("same key"),
        "{used}"
    );
    // The new process knows the password alone, as the first had learned.
    let output = tool_messages(&server, 3).pop().unwrap();
    assert!(
        output.contains("pw «secret:secret-assignment:1»"),
        "{output}"
    );
    assert_nowhere(&second, &server, &[KEY, PASSWORD]);
}

#[test]
fn model_egress_clear_sends_the_key_to_the_model() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "read",
            "read_file",
            json!({"path": ".env"}),
        )])),
        Reply::stream(openai::text_turn("Read it.")),
    ]);
    let env = TestEnv::for_server(&server);
    let config = std::fs::read_to_string(&env.config).unwrap();
    std::fs::write(
        &env.config,
        config.replace("[secrets]\n", "[secrets]\nmodel_egress = \"clear\"\n"),
    )
    .unwrap();
    std::fs::write(env.work.join(".env"), dotenv()).unwrap();
    let run = env.run(&["--prompt", "read .env"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let read_back = &tool_messages(&server, 1)[0];
    assert!(read_back.contains(KEY), "{read_back}");
    assert!(!read_back.contains("«secret:"), "{read_back}");
    // The events are masked all the same.
    for line in &run.lines {
        assert!(!line.contains(KEY), "{line}");
    }
}

#[test]
fn a_bad_model_egress_value_is_a_usage_error() {
    let env = TestEnv::offline();
    let config = std::fs::read_to_string(&env.config).unwrap();
    std::fs::write(
        &env.config,
        config.replace("[secrets]\n", "[secrets]\nmodel_egress = \"none\"\n"),
    )
    .unwrap();
    let run = env.run(&["--prompt", "x"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("model_egress") && run.stderr.contains("`placeholders` or `clear`"),
        "{}",
        run.stderr
    );
}

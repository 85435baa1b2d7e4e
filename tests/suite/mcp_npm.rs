//! MCP with the real servers from npm (`@modelcontextprotocol/server-*`,
//! installed by `npm ci --prefix tests/mcp-servers`, as `.ci/run` does):
//! their tools listed in `session-start` and in the first model request,
//! called, their answers framed, and nothing left running afterwards.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::TestEnv;
use super::mcp::assert_nothing_left;
use super::mock::{MockServer, Reply, openai};

const NEEDS_NPM: &str = "needs the MCP servers from npm (npm ci --prefix tests/mcp-servers)";

/// The installed server `mcp-server-NAME`.
fn npm_server(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp-servers/node_modules/.bin")
        .join(format!("mcp-server-{name}"));
    assert!(path.exists(), "{NEEDS_NPM}: no {}", path.display());
    path
}

fn server_table(name: &str, args: &[&str], extra: &str) -> String {
    format!(
        "[mcp_servers.{name}]\ncommand = {}\nargs = {}\n{extra}\n",
        json!(npm_server(name)),
        json!(args)
    )
}

fn output(result: &Value) -> &str {
    result["output"].as_str().unwrap_or("")
}

#[test]
#[ignore = "needs the MCP servers from npm (npm ci --prefix tests/mcp-servers): run by .ci/run"]
fn everything_echo_is_offered_and_returns_its_input_framed() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "c1",
            "mcp__everything__echo",
            json!({"message": "ping from the agent"}),
        )])),
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    env.add_config(&server_table("everything", &[], ""));
    let run = env.run(&["--prompt", "echo something"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let listed = &run.one("session-start")["tools"];
    assert!(
        listed
            .as_array()
            .unwrap()
            .contains(&json!("mcp__everything__echo")),
        "{listed}"
    );
    let offered = server.requests()[0].offered_tools();
    assert!(offered.contains(&"mcp__everything__echo".to_owned()));
    assert!(offered.contains(&"mcp__everything__get-sum".to_owned()));
    let result = run.one("tool-result");
    assert_eq!(result["ok"], true);
    let text = output(result);
    assert!(
        text.starts_with("<untrusted_content source=\"mcp\" origin=\"everything/echo\""),
        "{text}"
    );
    assert!(text.contains("Echo: ping from the agent"), "{text}");
    assert!(
        run.of_type("error").is_empty(),
        "{:?}",
        run.of_type("error")
    );
    assert_nothing_left(env.root.path());
}

#[test]
#[ignore = "needs the MCP servers from npm (npm ci --prefix tests/mcp-servers): run by .ci/run"]
fn three_servers_side_by_side_and_a_write_reaches_the_checkpoint() {
    let env = TestEnv::offline();
    std::fs::write(env.work.join("notes.txt"), "the notes of the project\n").unwrap();
    let work = env.work.display().to_string();
    let memory = env.root.path().join("memory.jsonl").display().to_string();
    env.add_config(&server_table("everything", &[], ""));
    env.add_config(&server_table("filesystem", &[&work], ""));
    env.add_config(&server_table(
        "memory",
        &[],
        &format!("env = {{ MEMORY_FILE_PATH = {} }}", json!(memory)),
    ));
    let call = |name: &str, args: Value| json!({"name": name, "args": args});
    let script = env.script(json!({"turns": [
        {"tool_calls": [
            call("mcp__filesystem__read_text_file", json!({"path": format!("{work}/notes.txt")})),
            call("mcp__memory__create_entities", json!({"entities": [
                {"name": "agent", "entityType": "program", "observations": ["speaks MCP"]}
            ]})),
            call("mcp__everything__get-sum", json!({"a": 2, "b": 40})),
        ]},
        {"tool_calls": [
            call("mcp__memory__read_graph", json!({})),
            call("mcp__filesystem__write_file", json!({"path": format!("{work}/made.txt"), "content": "by mcp"})),
        ]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "go", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.of_type("error").is_empty(),
        "{:?}",
        run.of_type("error")
    );
    let results = run.tool_results();
    assert!(
        results.iter().all(|result| result["ok"] == true),
        "{results:?}"
    );
    assert!(output(results[0]).contains("the notes of the project"));
    assert!(output(results[2]).contains("42"), "{}", output(results[2]));
    assert!(
        output(results[3]).contains("speaks MCP"),
        "{}",
        output(results[3])
    );
    assert_eq!(super::read(&env.work, "made.txt"), "by mcp");
    // A server's tool may change the work dir: the checkpoint after it
    // looks, and finds the new file.
    let checkpoints = run.of_type("checkpoint-saved");
    assert_eq!(checkpoints[2]["iteration"], 2);
    assert_eq!(checkpoints[2]["files_changed"], 1, "{checkpoints:?}");
    assert_nothing_left(env.root.path());
}

#[test]
#[ignore = "needs the MCP servers from npm (npm ci --prefix tests/mcp-servers): run by .ci/run"]
fn servers_added_mid_session_cross_the_gate_and_their_relevant_tools_come() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "q1",
            "ask_user",
            json!({"question": "two more servers are coming; go on?"}),
        )])),
        Reply::stream(openai::tool_turn(&[(
            "c1",
            "mcp__memory__create_entities",
            json!({"entities": [{"name": "agent", "entityType": "program", "observations": ["speaks MCP"]}]}),
        )])),
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    env.add_config(&server_table("everything", &[], ""));
    let work = env.work.display().to_string();
    let memory = env.root.path().join("memory.jsonl").display().to_string();
    let mut agent = env.spawn(&[
        "--prompt",
        "Remember in the knowledge graph that the agent speaks MCP: create an entity",
    ]);
    agent.wait_for_type("hitl-request");
    env.add_config(&server_table("filesystem", &[&work], ""));
    env.add_config(&server_table(
        "memory",
        &[],
        &format!("env = {{ MEMORY_FILE_PATH = {} }}", json!(memory)),
    ));
    agent
        .send(r#"{"type":"hitl-response","id":"q1","decision":"approve","data":{"answer":"yes"}}"#);
    let changed = agent.wait_for_type("tools-changed");
    let run = agent.finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let mcp = |tools: Vec<String>| -> Vec<String> {
        tools
            .into_iter()
            .filter(|name| name.starts_with("mcp__"))
            .collect()
    };
    let requests = server.requests();
    let before = mcp(requests[0].offered_tools());
    let after = mcp(requests[1].offered_tools());
    // More than 20 tools now: the everything server's stay (the model saw
    // them), the new servers' come only where they fit the talk.
    for name in &before {
        assert!(after.contains(name), "{name} stays offered");
    }
    assert!(
        after.contains(&"mcp__memory__create_entities".to_owned()),
        "{after:?}"
    );
    assert!(
        !after.contains(&"mcp__filesystem__move_file".to_owned()),
        "not relevant, held back: {after:?}"
    );
    assert!(after.len() <= before.len() + 10, "{after:?}");
    let added: Vec<&str> = changed["added"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(added.contains(&"tool_search"), "{changed}");
    assert!(added.contains(&"mcp__memory__create_entities"), "{changed}");
    let result = run.tool_results()[1];
    assert_eq!(result["ok"], true, "{result}");
    assert!(output(result).contains("speaks MCP"), "{}", output(result));
    assert_nothing_left(env.root.path());
}

/// `mcp-server-everything streamableHttp` on a free port of 127.0.0.1,
/// killed when dropped.
struct HttpEverything {
    child: std::process::Child,
    url: String,
}

impl HttpEverything {
    fn start() -> HttpEverything {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new(npm_server("everything"))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the server did not listen"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        HttpEverything {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[ignore = "needs the MCP servers from npm (npm ci --prefix tests/mcp-servers): run by .ci/run"]
fn a_server_over_streamable_http_is_called_and_one_that_is_down_is_reported() {
    let web = HttpEverything::start();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let down = format!("http://{}/mcp", closed.local_addr().unwrap());
    drop(closed);
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "c1",
            "mcp__web__echo",
            json!({"message": "over http"}),
        )])),
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    env.add_config(&format!(
        "[mcp_servers.web]\nurl = {}\nhttp_headers = {{ X-Test = \"${{HOME}}\" }}\n\
         [mcp_servers.down]\nurl = {}\nstartup_timeout_sec = 5\n",
        json!(web.url),
        json!(down)
    ));
    let run = env.run(&["--prompt", "echo over http"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let offered = server.requests()[0].offered_tools();
    assert!(
        offered.contains(&"mcp__web__echo".to_owned()),
        "{offered:?}"
    );
    let result = run.one("tool-result");
    assert_eq!(result["ok"], true, "{result}");
    let text = output(result);
    assert!(
        text.starts_with("<untrusted_content source=\"mcp\" origin=\"web/echo\""),
        "{text}"
    );
    assert!(text.contains("Echo: over http"), "{text}");
    let failed: Vec<&Value> = run
        .of_type("error")
        .into_iter()
        .filter(|event| event["code"] == "mcp-server-failed")
        .collect();
    assert_eq!(failed.len(), 1, "{:?}", run.of_type("error"));
    assert_eq!(failed[0]["fatal"], false);
    assert!(
        failed[0]["message"]
            .as_str()
            .unwrap()
            .contains("MCP server down")
    );
}

//! MCP servers with a fake server (tests/data/mcp_fake_server.py) that
//! hangs, fails and dies on request: tools offered and called, the
//! startup and call timeouts, a server killed mid-session, a cancel that
//! leaves no process behind, plan mode, blocking and the approval policy,
//! the environment a server gets, and config errors. The real servers
//! from npm are in `mcp_npm.rs`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::mock::{MockServer, Reply, openai};
use super::{Finished, TestEnv};

pub fn fake_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp_fake_server.py")
}

/// `[mcp_servers.NAME]` running the fake server with `flags`, and `extra`
/// lines.
pub fn fake(name: &str, flags: &[&str], extra: &str) -> String {
    let mut args = vec![fake_server().display().to_string()];
    args.extend(flags.iter().map(|flag| flag.to_string()));
    format!(
        "[mcp_servers.{name}]\ncommand = \"python3\"\nargs = {}\n{extra}\n",
        json!(args)
    )
}

/// The scripted model makes each turn's calls in turn, then says "done".
fn turns(env: &TestEnv, calls: &[Value], more: &[&str]) -> Finished {
    let mut turns: Vec<Value> = calls
        .iter()
        .map(|calls| json!({"tool_calls": calls}))
        .collect();
    turns.push(json!({"text": "done"}));
    let script = env.script(json!({ "turns": turns }));
    env.run_script(&script, "go", more)
}

fn call(name: &str, args: Value) -> Value {
    json!({"name": name, "args": args})
}

fn output(result: &Value) -> &str {
    result["output"].as_str().unwrap_or("")
}

fn errors<'a>(run: &'a Finished, code: &str) -> Vec<&'a Value> {
    run.of_type("error")
        .into_iter()
        .filter(|event| event["code"] == code)
        .collect()
}

fn tools(run: &Finished) -> Vec<String> {
    run.one("session-start")["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap().to_owned())
        .collect()
}

/// Live processes (not zombies) whose working folder is inside `root`:
/// every server and what it started runs in the work dir.
pub fn processes_in(root: &Path) -> Vec<String> {
    let root = root.canonicalize().unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|entry| {
            std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(&root))
        })
        .filter(|entry| {
            std::fs::read_to_string(entry.path().join("stat"))
                .is_ok_and(|stat| !stat.split(") ").nth(1).unwrap_or("").starts_with('Z'))
        })
        .map(|entry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).replace('\0', " ")
        })
        .collect()
}

/// Waits (a little: the kill was sent before `session-end`) until no
/// process runs in `root`.
pub fn assert_nothing_left(root: &Path) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = processes_in(root);
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "left running: {left:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn tools_are_offered_called_and_framed_and_the_servers_stop_at_the_end() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[
            ("c1", "mcp__fake__echo", json!({"text": "hi there"})),
            ("c2", "mcp__fake__fail", json!({})),
        ])),
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    let marker = env.root.path().join("grandchild").display().to_string();
    env.add_config(&fake("fake", &["--child", &marker], ""));
    let run = env.run(&["--prompt", "go"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let offered = tools(&run);
    for name in [
        "exec",
        "mcp__fake__echo",
        "mcp__fake__write",
        "mcp__fake__slow",
    ] {
        assert!(offered.contains(&name.to_owned()), "{offered:?}");
    }
    let requests = server.requests();
    let first = requests[0].offered_tools();
    assert!(first.contains(&"mcp__fake__echo".to_owned()), "{first:?}");
    let echo = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["function"]["name"] == "mcp__fake__echo")
        .unwrap();
    assert_eq!(
        echo["function"]["description"],
        "(MCP server fake) Returns its text"
    );
    assert_eq!(echo["function"]["parameters"]["required"], json!(["text"]));

    let results = run.tool_results();
    assert_eq!(results[0]["ok"], true);
    let text = output(results[0]);
    assert!(
        text.starts_with("<untrusted_content source=\"mcp\" origin=\"fake/echo\""),
        "{text}"
    );
    assert!(text.contains("\necho: hi there\n"), "{text}");
    assert_eq!(results[1]["ok"], false, "isError is a failure");
    assert!(output(results[1]).contains("it went wrong"));
    // The model reads the same frame.
    let tool_message = &requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "tool")
        .unwrap()["content"];
    assert!(tool_message.as_str().unwrap().contains("echo: hi there"));
    assert!(
        run.of_type("error").is_empty(),
        "{:?}",
        run.of_type("error")
    );
    assert_nothing_left(env.root.path());
}

#[test]
fn a_server_that_never_answers_times_out_and_the_session_goes_on() {
    let env = TestEnv::offline();
    env.add_config(&fake("silent", &["--silent"], "startup_timeout_sec = 1"));
    env.add_config(&fake("good", &[], ""));
    env.add_config("[mcp_servers.missing]\ncommand = \"/nonexistent/mcp-server\"\n");
    env.add_config("[mcp_servers.quits]\ncommand = \"false\"\n");
    let started = Instant::now();
    let run = turns(
        &env,
        &[json!([call(
            "mcp__good__echo",
            json!({"text": "still here"})
        )])],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(started.elapsed() < Duration::from_secs(20));
    let offered = tools(&run);
    assert!(offered.contains(&"mcp__good__echo".to_owned()));
    assert!(!offered.iter().any(|name| name.starts_with("mcp__silent")));
    let timeout = errors(&run, "mcp-server-timeout");
    assert_eq!(timeout.len(), 1, "{:?}", run.of_type("error"));
    assert_eq!(timeout[0]["fatal"], false);
    let message = timeout[0]["message"].as_str().unwrap();
    assert!(
        message.contains("MCP server silent") && message.contains("within 1 s"),
        "{message}"
    );
    let failed = errors(&run, "mcp-server-failed");
    let messages: Vec<&str> = failed
        .iter()
        .map(|event| event["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages
            .iter()
            .any(|m| m.contains("missing") && m.contains("cannot start"))
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("quits") && m.contains("exited with status 1"))
    );
    // Reported right after session-start, before the first model call.
    assert_eq!(run.events[1]["type"], "error");
    assert!(output(run.one("tool-result")).contains("echo: still here"));
    assert_nothing_left(env.root.path());
}

#[test]
fn a_call_past_its_timeout_fails_and_the_server_goes_on() {
    let env = TestEnv::offline();
    env.add_config(&fake("fake", &[], "tool_timeout_sec = 1"));
    let run = turns(
        &env,
        &[json!([
            call("mcp__fake__slow", json!({})),
            call("mcp__fake__echo", json!({"text": "after"}))
        ])],
        &[],
    );
    assert_eq!(run.code, Some(0));
    let results = run.tool_results();
    assert_eq!(results[0]["ok"], false);
    assert!(
        output(results[0]).contains("did not answer slow within 1 s (tool_timeout_sec)"),
        "{}",
        output(results[0])
    );
    let duration = results[0]["duration_ms"].as_u64().unwrap();
    assert!((1000..10_000).contains(&duration), "{duration}");
    assert_eq!(errors(&run, "mcp-call-timeout").len(), 1);
    assert_eq!(results[1]["ok"], true);
    assert!(output(results[1]).contains("echo: after"));
}

#[test]
fn a_server_killed_mid_session_fails_its_calls_naming_the_crash() {
    let env = TestEnv::offline();
    let pid_file = env.root.path().join("fake.pid");
    let pid_flag = pid_file.display().to_string();
    env.add_config(&fake("fake", &["--pid-file", &pid_flag], ""));
    env.add_config(&fake("other", &[], ""));
    let echo = |text: &str| call("mcp__fake__echo", json!({ "text": text }));
    let kill = format!("kill -9 $(cat {pid_flag})");
    let run = turns(
        &env,
        &[
            json!([call("mcp__fake__echo", json!({"text": "before"}))]),
            json!([call("exec", json!({ "command": kill }))]),
            json!([echo("after")]),
            json!([
                echo("again"),
                call("mcp__other__echo", json!({"text": "fine"}))
            ]),
        ],
        &[],
    );
    assert_eq!(run.code, Some(0));
    let results = run.tool_results();
    assert_eq!(results[0]["ok"], true);
    assert_eq!(results[1]["ok"], true, "{}", output(results[1]));
    for result in &results[2..4] {
        assert_eq!(result["ok"], false);
        assert!(
            output(result).contains("the MCP server fake was killed by signal 9"),
            "{}",
            output(result)
        );
    }
    assert!(output(results[3]).contains("earlier in this session"));
    assert_eq!(results[4]["ok"], true, "the other server goes on");
    let crashed = errors(&run, "mcp-server-crashed");
    assert_eq!(crashed.len(), 1, "{:?}", run.of_type("error"));
    assert!(
        crashed[0]["message"]
            .as_str()
            .unwrap()
            .contains("MCP server fake was killed by signal 9")
    );
    assert_eq!(crashed[0]["fatal"], false);
}

#[test]
fn a_server_that_dies_during_a_call_answers_it_with_the_crash() {
    let env = TestEnv::offline();
    env.add_config(&fake("fake", &[], ""));
    let run = turns(&env, &[json!([call("mcp__fake__die", json!({}))])], &[]);
    assert_eq!(run.code, Some(0));
    let result = run.one("tool-result");
    assert_eq!(result["ok"], false);
    assert!(
        output(result).contains("the MCP server fake exited with status 3 during the call"),
        "{}",
        output(result)
    );
    let crashed = errors(&run, "mcp-server-crashed");
    assert_eq!(crashed.len(), 1);
    assert!(
        crashed[0]["message"]
            .as_str()
            .unwrap()
            .contains("dying as asked"),
        "the crash quotes the server's stderr: {}",
        crashed[0]["message"]
    );
}

#[test]
fn cancel_during_a_call_stops_every_server_and_leaves_no_process() {
    let env = TestEnv::offline();
    let marker = env.root.path().join("grandchild").display().to_string();
    env.add_config(&fake("fake", &["--child", &marker], ""));
    env.add_config(&fake("other", &[], ""));
    let script = env.script(json!({"turns": [
        {"tool_calls": [call("mcp__fake__slow", json!({}))]},
        {"text": "never reached"}
    ]}));
    let mut agent = env.spawn_script(&script, "go", &[]);
    agent.wait_for("the call", |e| e["type"] == "tool-call-start");
    assert!(
        processes_in(env.root.path()).len() >= 3,
        "{:?}",
        processes_in(env.root.path())
    );
    let asked = Instant::now();
    agent.send(r#"{"type":"cancel"}"#);
    let run = agent.finish();
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(run.code, Some(130));
    let result = run.one("tool-result");
    assert_eq!(result["ok"], false);
    assert!(output(result).contains("cancelled"));
    assert_nothing_left(env.root.path());
}

#[test]
fn cancel_while_a_server_starts_ends_at_once() {
    let env = TestEnv::offline();
    env.add_config(&fake("silent", &["--silent"], "startup_timeout_sec = 60"));
    let script = env.script(json!({"turns": [{"text": "never reached"}]}));
    let mut agent = env.spawn_script(&script, "go", &[]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while processes_in(env.root.path()).is_empty() {
        assert!(Instant::now() < deadline, "the server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let asked = Instant::now();
    agent.send(r#"{"type":"cancel"}"#);
    let run = agent.finish();
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(run.code, Some(130));
    // The stream still opens with session-start (`check_stream`); the
    // acknowledgement waited for it.
    assert_eq!(run.one("command-ack")["command"], "cancel");
    assert_nothing_left(env.root.path());
}

#[test]
fn plan_mode_offers_only_the_tools_a_server_marks_read_only() {
    let env = TestEnv::offline();
    env.add_config(&fake("fake", &[], ""));
    let run = turns(
        &env,
        &[json!([
            call("mcp__fake__echo", json!({"text": "reading"})),
            call("mcp__fake__write", json!({}))
        ])],
        &["--mode", "plan"],
    );
    let offered = tools(&run);
    assert!(
        offered.contains(&"mcp__fake__echo".to_owned()),
        "{offered:?}"
    );
    assert!(
        !offered.contains(&"mcp__fake__write".to_owned()),
        "{offered:?}"
    );
    let results = run.tool_results();
    assert_eq!(results[0]["ok"], true);
    assert_eq!(results[1]["ok"], false);
    assert!(
        output(results[1]).contains("unknown tool"),
        "{}",
        output(results[1])
    );
}

#[test]
fn mcp_tools_can_be_blocked_and_named_by_the_approval_policy() {
    let env = TestEnv::offline();
    env.add_config(&fake("fake", &[], ""));
    env.add_config("[approval]\ntools = { mcp__fake__write = \"deny\" }\n");
    let run = turns(
        &env,
        &[json!([
            call("mcp__fake__echo", json!({"text": "x"})),
            call("mcp__fake__write", json!({}))
        ])],
        &["--blocked-tools", "mcp__fake__echo,mcp__absent__tool"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!tools(&run).contains(&"mcp__fake__echo".to_owned()));
    let results = run.tool_results();
    assert!(
        output(results[0]).contains("blocked"),
        "{}",
        output(results[0])
    );
    assert_eq!(results[1]["ok"], false);
    assert!(
        output(results[1]).contains("refused by the approval policy (tools.mcp__fake__write)"),
        "{}",
        output(results[1])
    );
}

#[test]
fn a_server_gets_the_environment_less_secrets_unless_its_env_names_them() {
    let env = TestEnv::offline();
    env.add_config(&fake(
        "fake",
        &[],
        "env = { PASSED_SECRET = \"${MY_DB_PASSWORD}\", GREETING = \"${UNSET_GREETING:-hello}\" }",
    ));
    let script = env.script(json!({"turns": [
        {"tool_calls": [call("mcp__fake__env", json!({}))]},
        {"text": "done"}
    ]}));
    let mut command = env.script_command(&script, "go", &[]);
    command
        .env("MY_DB_PASSWORD", "db-password-value-123")
        .env("OPENAI_API_KEY", "sk-provider-key-456")
        .env("PLAIN_SETTING", "visible");
    let run = super::Running::spawn(command).finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let text = output(run.one("tool-result"));
    assert!(text.contains("PLAIN_SETTING=visible"), "{text}");
    assert!(text.contains("GREETING=hello"), "{text}");
    assert!(text.contains("PASSED_SECRET="), "named in env: passed");
    for absent in ["AGENT_API_KEY", "OPENAI_API_KEY", "MY_DB_PASSWORD="] {
        assert!(!text.contains(absent), "{absent} leaked: {text}");
    }
    assert!(!text.contains("db-password-value-123"), "masked in events");
}

#[test]
fn claude_format_files_and_the_project_file_add_servers() {
    let env = TestEnv::offline();
    let file = env.root.path().join("servers.json");
    let servers = json!({"mcpServers": {"flagged": {
        "command": "python3",
        "args": ["${FAKE_MCP_SERVER}", "${NO_SUCH_VARIABLE:-}"]
    }}});
    std::fs::write(&file, servers.to_string()).unwrap();
    let project = json!({"mcpServers": {"project": {
        "command": "python3", "args": [fake_server()]
    }}});
    std::fs::write(env.work.join(".mcp.json"), project.to_string()).unwrap();
    let script = env.script(json!({"turns": [{"text": "done"}]}));
    let run_with = |more: &[&str]| {
        let mut args = vec!["--mcp-config", file.to_str().unwrap()];
        args.extend_from_slice(more);
        let mut command = env.script_command(&script, "go", &args);
        command.env("FAKE_MCP_SERVER", fake_server());
        super::Running::spawn(command).finish()
    };
    let run = run_with(&[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let offered = tools(&run);
    assert!(
        offered.contains(&"mcp__flagged__echo".to_owned()),
        "{offered:?}"
    );
    assert!(
        !offered.iter().any(|name| name.starts_with("mcp__project")),
        "the work dir's file is read only when the config says so"
    );
    env.add_config("[mcp]\nload_project_file = true\n");
    let run = run_with(&["--session-id", "second"]);
    assert!(tools(&run).contains(&"mcp__project__echo".to_owned()));
}

#[test]
fn bad_mcp_settings_are_usage_errors_that_name_them() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [{"text": "done"}]}));
    let sse = env.root.path().join("sse.json");
    std::fs::write(
        &sse,
        r#"{"mcpServers": {"web": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}}"#,
    )
    .unwrap();
    let run = env.run_script(&script, "go", &["--mcp-config", sse.to_str().unwrap()]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("legacy SSE transport"),
        "{}",
        run.stderr
    );
    assert!(run.lines.is_empty(), "nothing started, nothing written");

    let unset = env.root.path().join("unset.json");
    std::fs::write(
        &unset,
        r#"{"mcpServers": {"x": {"command": "srv", "args": ["${SURELY_UNSET_VAR}"]}}}"#,
    )
    .unwrap();
    let run = env.run_script(&script, "go", &["--mcp-config", unset.to_str().unwrap()]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("${SURELY_UNSET_VAR} is not set"),
        "{}",
        run.stderr
    );

    let missing = env.run_script(&script, "go", &["--mcp-config", "/nonexistent/mcp.json"]);
    assert_eq!(missing.code, Some(2));
    assert!(
        missing.stderr.contains("cannot read the MCP config"),
        "{}",
        missing.stderr
    );

    env.add_config("[mcp_servers.typo]\ncomand = \"srv\"\n");
    let run = env.run_script(&script, "go", &[]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("comand"), "{}", run.stderr);
}

//! People in the loop: questions, approvals, plans and todos, answered on
//! stdin or through `--hitl-dir` files.

use std::path::Path;

use serde_json::{Value, json};

use super::mock::{MockServer, Reply, openai};
use super::{Running, TestEnv, messages};

fn ask_script(env: &TestEnv) -> std::path::PathBuf {
    env.script(json!({"turns": [
        {"tool_calls": [{"name": "ask_user", "id": "q1",
                         "args": {"question": "Which database?", "options": ["sqlite", "postgres"]}}]},
        {"text": "Thanks."}
    ]}))
}

/// As a proxy does it: a temp file, then a rename.
fn write_response(dir: &Path, id: &str, response: &Value) {
    let temp = dir.join(format!(".{id}.tmp"));
    std::fs::write(&temp, response.to_string()).unwrap();
    std::fs::rename(&temp, dir.join(format!("{id}.response.json"))).unwrap();
}

fn result_of<'a>(run: &'a super::Finished, id: &str) -> &'a Value {
    run.tool_results()
        .into_iter()
        .find(|r| r["id"] == id)
        .unwrap()
}

#[test]
fn ask_user_answered_on_stdin() {
    let env = TestEnv::offline();
    let script = ask_script(&env);
    let mut agent = env.spawn_script(&script, "set up", &[]);
    agent.wait_for_type("hitl-request");
    agent.send(
        r#"{"type":"hitl-response","id":"q1","decision":"approve","data":{"answer":"postgres"}}"#,
    );
    let run = agent.finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // asking-user; the request with its question, options, default and
    // deadline; the ack before the resolution by stdin; the answer as the
    // tool's result.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));
}

#[test]
fn ask_user_answered_by_file_and_a_later_answer_is_refused() {
    let env = TestEnv::offline();
    let dir = env.root.path().join("hitl");
    std::fs::create_dir(&dir).unwrap();
    // A second question keeps the session waiting while the late answer
    // to the first arrives.
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "ask_user", "id": "q1",
                         "args": {"question": "Which database?", "options": ["sqlite", "postgres"]}}]},
        {"tool_calls": [{"name": "ask_user", "id": "q2", "args": {"question": "Anything else?"}}]},
        {"text": "Thanks."}
    ]}));
    let mut agent = env.spawn_script(&script, "set up", &["--hitl-dir", dir.to_str().unwrap()]);
    let request = agent.wait_for_type("hitl-request");
    let file = dir.join("q1.request.json");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(written["kind"], "ask-user");
    assert_eq!(written["deadline"], request["deadline"]);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );

    write_response(
        &dir,
        "q1",
        &json!({"type": "hitl-response", "id": "q1", "decision": "approve", "data": {"answer": "sqlite"}}),
    );
    let resolved = agent.wait_for_type("hitl-resolved");
    assert_eq!(resolved["by"], "file");
    agent.wait_for("the second question", |e| {
        e["type"] == "hitl-request" && e["id"] == "q2"
    });
    agent.send(
        r#"{"type":"hitl-response","id":"q1","decision":"approve","data":{"answer":"postgres"}}"#,
    );
    let ack = agent.wait_for_type("command-ack");
    assert_eq!(ack["ok"], false);
    assert!(ack["reason"].as_str().unwrap().contains("already answered"));
    // A broken file is set aside with a warning; the request keeps waiting.
    std::fs::write(dir.join("q2.response.json"), "{not json").unwrap();
    let warning = agent.wait_for("the broken file warning", |e| {
        e["type"] == "error" && e["code"] == "hitl-dir"
    });
    assert_eq!(warning["fatal"], false);
    assert!(dir.join("q2.response.json.invalid").exists());
    write_response(
        &dir,
        "q2",
        &json!({"type": "hitl-response", "id": "q2", "decision": "reject"}),
    );
    let run = agent.finish();
    assert_eq!(result_of(&run, "q1")["output"], "The user answered: sqlite");
    assert_eq!(
        result_of(&run, "q2")["output"],
        "The user declined to answer."
    );
    assert!(!file.exists(), "the request file is removed once answered");
}

#[test]
fn double_answer_on_stdin_first_wins() {
    let env = TestEnv::offline();
    // A step after the answer keeps the session alive until the second
    // answer is surely read: a line read after `session-end` gets no ack,
    // and on a loaded machine a session with nothing left to do can end
    // between the two lines.
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "ask_user", "id": "q1",
                         "args": {"question": "Which database?", "options": ["sqlite", "postgres"]}}]},
        {"tool_calls": [{"name": "exec", "id": "w", "args": {"command": "sleep 1"}}]},
        {"text": "Thanks."}
    ]}));
    let mut agent = env.spawn_script(&script, "x", &[]);
    agent.wait_for_type("hitl-request");
    agent.send(
        r#"{"type":"hitl-response","id":"q1","decision":"approve","data":{"answer":"first"}}"#,
    );
    agent.send(
        r#"{"type":"hitl-response","id":"q1","decision":"approve","data":{"answer":"second"}}"#,
    );
    let run = agent.finish();
    let acks: Vec<bool> = run
        .of_type("command-ack")
        .iter()
        .map(|a| a["ok"].as_bool().unwrap())
        .collect();
    assert_eq!(acks, [true, false]);
    assert_eq!(run.of_type("hitl-resolved").len(), 1);
    assert_eq!(result_of(&run, "q1")["output"], "The user answered: first");
    assert!(run.of_type("error").iter().any(
        |e| e["fatal"] == false && e["message"].as_str().unwrap().contains("already answered")
    ));
}

#[test]
fn deadline_applies_the_default_decision() {
    let env = TestEnv::offline();
    env.add_config("[hitl]\ntimeout_secs = 1\n");
    let script = ask_script(&env);
    let run = env.run_script(&script, "x", &[]);
    assert_eq!(run.code, Some(0));
    // Resolved by timeout with the default decision, and the model is told.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));
}

#[test]
fn cancel_while_waiting_ends_the_session() {
    let env = TestEnv::offline();
    let script = ask_script(&env);
    let mut agent = env.spawn_script(&script, "x", &[]);
    agent.wait_for_type("hitl-request");
    agent.send(r#"{"type":"cancel"}"#);
    let run = agent.finish();
    assert_eq!(run.code, Some(130));
    assert_eq!(run.exit_reason(), "cancelled");
    assert_eq!(run.one("hitl-resolved")["by"], "cancel");
}

fn plan_server() -> MockServer {
    MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[
            ("r1", "list_dir", json!({})),
            (
                "w1",
                "write_file",
                json!({"path": "sneaky.txt", "content": "x"}),
            ),
            ("x1", "exec", json!({"command": "touch also-sneaky.txt"})),
            ("x2", "exec", json!({"command": "ls -a"})),
            (
                "t1",
                "todo_write",
                json!({"todos": [{"content": "Add the flag", "status": "pending"}]}),
            ),
        ])),
        Reply::stream(openai::tool_turn(&[(
            "p1",
            "write_plan",
            json!({"plan": "1. Add the flag"}),
        )])),
        Reply::stream(openai::tool_turn(&[(
            "w2",
            "write_file",
            json!({"path": "flag.txt", "content": "on"}),
        )])),
        Reply::stream(openai::text_turn("Implemented.")),
    ])
}

fn run_plan(
    answer: impl FnOnce(&mut Running, &Path),
    hitl_dir: bool,
) -> (super::Finished, MockServer, TestEnv) {
    let server = plan_server();
    let env = TestEnv::for_server(&server);
    let dir = env.root.path().join("hitl");
    std::fs::create_dir(&dir).unwrap();
    let mut args = vec!["--prompt", "Add a flag", "--mode", "plan"];
    if hitl_dir {
        args.extend(["--hitl-dir", dir.to_str().unwrap()]);
    }
    let mut agent = env.spawn(&args);
    let request = agent.wait_for("the plan", |e: &Value| {
        e["type"] == "hitl-request" && e["kind"] == "plan"
    });
    assert_eq!(request["content"], "1. Add the flag");
    assert_eq!(request["id"], "p1");
    answer(&mut agent, &dir);
    (agent.finish(), server, env)
}

#[test]
fn plan_confirmed_resets_the_context_and_switches_to_implement() {
    let (run, server, env) = run_plan(|agent, _| agent.send(r#"{"type":"confirm-plan"}"#), false);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // Plan mode offers write_plan and no write tool; the write and the
    // writing command are refused, `ls -a` runs; then the plan request,
    // the ack, plan-confirmed before mode-changed, and the write.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));
    let offered = server.requests()[0].offered_tools();
    assert!(!offered.contains(&"write_file".to_owned()));
    assert!(!env.work.join("sneaky.txt").exists() && !env.work.join("also-sneaky.txt").exists());
    assert_eq!(super::read(&env.work, "flag.txt"), "on");

    // The call after the approval starts from the task, the plan and the todos.
    let third = messages(&server.requests()[2]);
    assert_eq!(third.len(), 2, "{third:?}");
    assert_eq!(third[0]["role"], "system");
    assert!(
        third[0]["content"]
            .as_str()
            .unwrap()
            .contains("A plan for this task was approved")
    );
    let task = third[1]["content"].as_str().unwrap();
    assert!(
        task.starts_with("<environment>")
            && task.contains("\n\nAdd a flag\n\n## The approved plan\n\n1. Add the flag")
            && task.contains("[ ] Add the flag (id 1)"),
        "{task}"
    );
    let offered = server.requests()[2].offered_tools();
    assert!(
        offered.contains(&"write_file".to_owned()) && !offered.contains(&"write_plan".to_owned())
    );
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

#[test]
fn plan_edited_through_the_file_transport() {
    let (run, _server, env) = run_plan(
        |_, dir| {
            write_response(
                dir,
                "p1",
                &json!({"type": "hitl-response", "id": "p1", "decision": "edit", "data": {"plan": "1. Add the flag\n2. Document it"}}),
            )
        },
        true,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.one("hitl-resolved")["by"], "file");
    assert_eq!(
        run.one("plan-confirmed")["plan"],
        "1. Add the flag\n2. Document it"
    );
    assert_eq!(super::read(&env.work, "flag.txt"), "on");
}

#[test]
fn plan_rejected_with_feedback_stays_in_plan_mode() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "p1",
            "write_plan",
            json!({"plan": "Rewrite everything"}),
        )])),
        Reply::stream(openai::text_turn("I will revise.")),
    ]);
    let env = TestEnv::for_server(&server);
    let mut agent = env.spawn(&["--prompt", "x", "--mode", "plan"]);
    agent.wait_for_type("hitl-request");
    agent.send(r#"{"type":"hitl-response","id":"p1","decision":"reject","data":{"feedback":"Too big; keep the API."}}"#);
    let run = agent.finish();
    assert!(run.of_type("plan-confirmed").is_empty() && run.of_type("mode-changed").is_empty());
    let result = result_of(&run, "p1");
    assert_eq!(result["ok"], false);
    assert!(
        result["output"]
            .as_str()
            .unwrap()
            .contains("Too big; keep the API.")
    );
    let second = messages(&server.requests()[1]);
    assert!(
        second.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .contains("Too big; keep the API.")
    );
    let offered = server.requests()[1].offered_tools();
    assert!(
        offered.contains(&"write_plan".to_owned()) && !offered.contains(&"write_file".to_owned())
    );
}

#[test]
fn confirm_plan_without_a_plan_is_refused() {
    let env = TestEnv::offline();
    let script = ask_script(&env);
    let mut agent = env.spawn_script(&script, "x", &[]);
    agent.wait_for_type("hitl-request");
    agent.send(r#"{"type":"confirm-plan"}"#);
    let ack = agent.wait_for_type("command-ack");
    assert_eq!(ack["ok"], false);
    agent.send(r#"{"type":"hitl-response","id":"q1","decision":"reject"}"#);
    let run = agent.finish();
    assert_eq!(
        result_of(&run, "q1")["output"],
        "The user declined to answer."
    );
}

fn approval_script(env: &TestEnv) -> std::path::PathBuf {
    env.script(json!({"turns": [
        {"tool_calls": [
            {"name": "exec", "id": "a", "args": {"command": "echo allowed > a.txt"}},
            {"name": "exec", "id": "d", "args": {"command": "rm -rf a.txt"}},
            {"name": "exec", "id": "k1", "args": {"command": "touch asked1.txt"}},
            {"name": "exec", "id": "k2", "args": {"command": "touch asked2.txt"}}
        ]},
        {"text": "done"}
    ]}))
}

const POLICY: &str = "[approval]\ndefault = \"allow\"\n[[approval.exec]]\npattern = \"rm *\"\ndecision = \"deny\"\n[[approval.exec]]\npattern = \"touch *\"\ndecision = \"ask\"\n";

#[test]
fn approval_policy_allows_denies_and_asks() {
    let env = TestEnv::offline();
    env.add_config(POLICY);
    let script = approval_script(&env);
    let mut agent = env.spawn_script(&script, "x", &[]);
    let first = agent.wait_for_type("hitl-request");
    assert_eq!(first["kind"], "approval");
    assert_eq!(first["id"], "k1");
    assert_eq!(first["action"], "run: touch asked1.txt");
    assert!(first["reason"].as_str().unwrap().contains("touch *"));
    agent.send(r#"{"type":"hitl-response","id":"k1","decision":"approve"}"#);
    let second = agent.wait_for_type("hitl-request");
    assert_eq!(second["id"], "k2");
    agent.send(
        r#"{"type":"hitl-response","id":"k2","decision":"reject","data":{"reason":"not now"}}"#,
    );
    let run = agent.finish();
    assert_eq!(run.code, Some(0));
    // `a` runs, `d` is refused by the policy, k1 and k2 are asked in turn.
    insta::assert_snapshot!(env.snap().coalesce().render(&run));
    assert!(env.work.join("a.txt").exists(), "the denied rm did not run");
    assert!(env.work.join("asked1.txt").exists());
    assert!(!env.work.join("asked2.txt").exists());
}

#[test]
fn unattended_run_denies_instead_of_asking() {
    let env = TestEnv::offline();
    env.add_config(POLICY);
    let script = approval_script(&env);
    let run = env.run_script(&script, "x", &["--unattended"]);
    assert_eq!(run.code, Some(0));
    assert!(run.of_type("hitl-request").is_empty());
    assert!(
        result_of(&run, "k1")["output"]
            .as_str()
            .unwrap()
            .contains("unattended")
    );
    assert!(!env.work.join("asked1.txt").exists());
    assert_eq!(result_of(&run, "a")["ok"], true);
}

#[test]
fn todos_keep_their_ids_across_updates() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "todo_write", "args": {"todos": [
            {"content": "Read the code", "status": "in_progress"},
            {"content": "Write the fix", "status": "pending"}]}}]},
        {"tool_calls": [{"name": "todo_write", "args": {"todos": [
            {"content": "Read the code", "status": "completed"},
            {"id": "2", "content": "Write the fix and a test", "status": "in_progress"},
            {"content": "Run the tests", "status": "pending"}]}}]},
        {"tool_calls": [{"name": "todo_write", "args": {"todos": [
            {"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]}}]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "x", &[]);
    // Ids 1, 2 are kept and 3 is new in the second list; the invalid third
    // list (two in progress) emits no todos-update, only a failed result.
    let snap = env.snap().skip(&["usage-update", "checkpoint-saved"]);
    insta::assert_snapshot!(snap.coalesce().render(&run));
}

//! The `debug` tool against the real adapters: a Python program with a
//! bug through debugpy and a C program built with `gcc -g` here through
//! lldb-dap (breakpoint, stack, a local's value, a step, the exit code);
//! a cancel during `wait`; the idle timeout; `evaluate` asking a person;
//! the tool absent unless the config enables it, and a launch judged as
//! the `exec` of its command line. The adapters are installed by
//! `.ci/run`; without them these tests fail, they do not pass unrun.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::mcp::{assert_nothing_left, processes_in};
use super::{Finished, TestEnv};

const NEEDS: &str = "needs debugpy and lldb-19 (installed by .ci/run)";

const BUGGY_PY: &str = "\
import sys


def average(values):
    total = 0
    for value in values:
        total += value
    count = len(values) - 1
    return total / count


def main():
    numbers = [4, 8, 15, 16, 23, 42]
    result = average(numbers)
    print(\"average:\", result)
    sys.exit(0 if result == 18 else 3)


main()
";

const SUM_C: &str = "\
#include <stdio.h>

static int sum(const int *values, int count) {
    int total = 0;
    for (int i = 0; i <= count; i++) {
        total += values[i];
    }
    return total;
}

int main(void) {
    int values[5] = {1, 2, 3, 4, 100};
    int total = sum(values, 4);
    printf(\"sum: %d\\n\", total);
    return total == 10 ? 0 : 4;
}
";

/// A program that runs until it is stopped.
const FOREVER_PY: &str = "import time\n\nwhile True:\n    time.sleep(0.05)\n";

fn needs_debugpy() {
    let found = Command::new("python3")
        .args(["-c", "import debugpy"])
        .status()
        .is_ok_and(|status| status.success());
    assert!(found, "{NEEDS}: python3 cannot import debugpy");
}

fn debug_env(idle_secs: u64) -> TestEnv {
    let env = TestEnv::offline();
    env.add_config(&format!(
        "[debugger]\nenabled = true\nidle_timeout_secs = {idle_secs}\n"
    ));
    env
}

fn debug(id: &str, args: Value) -> Value {
    json!({"name": "debug", "id": id, "args": args})
}

/// One call per turn, then "done".
fn script(env: &TestEnv, calls: &[Value]) -> std::path::PathBuf {
    let mut turns: Vec<Value> = calls
        .iter()
        .map(|call| json!({"tool_calls": [call]}))
        .collect();
    turns.push(json!({"text": "done"}));
    env.script(json!({ "turns": turns }))
}

/// Runs to the end, with more time than [`super::WAIT`]: each session
/// starts real adapters, and its first framed answer builds the rule
/// table, seconds in a debug build on a busy machine.
fn run_to_end(env: &TestEnv, script: &Path, prompt: &str, more: &[&str]) -> Finished {
    env.spawn_script(script, prompt, more)
        .finish_within(Duration::from_secs(180))
}

fn result<'a>(run: &'a Finished, id: &str) -> &'a Value {
    run.of_type("tool-result")
        .into_iter()
        .find(|result| result["id"] == id)
        .unwrap_or_else(|| panic!("no result for {id}: {:?}", run.lines))
}

fn output<'a>(run: &'a Finished, id: &str) -> &'a str {
    result(run, id)["output"].as_str().unwrap_or("")
}

fn tools(run: &Finished) -> Vec<String> {
    run.one("session-start")["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap().to_owned())
        .collect()
}

#[test]
#[ignore = "needs debugpy and lldb-19 (installed by .ci/run)"]
fn a_python_bug_is_found_with_a_breakpoint_the_stack_a_local_and_a_step() {
    needs_debugpy();
    let env = debug_env(600);
    std::fs::write(env.work.join("buggy.py"), BUGGY_PY).unwrap();
    let calls = [
        debug("l", json!({"action": "launch", "program": "buggy.py"})),
        debug(
            "b",
            json!({"action": "breakpoints", "path": "buggy.py", "lines": [9]}),
        ),
        debug("c1", json!({"action": "continue"})),
        debug("s", json!({"action": "stack"})),
        debug("v", json!({"action": "variables"})),
        debug("st", json!({"action": "step", "kind": "out"})),
        debug("c2", json!({"action": "continue"})),
        debug("after", json!({"action": "stack"})),
    ];
    let run = run_to_end(&env, &script(&env, &calls), "find the bug", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for id in ["l", "b", "c1", "s", "v", "st", "c2"] {
        assert_eq!(result(&run, id)["ok"], true, "{id}: {}", output(&run, id));
    }
    assert!(output(&run, "l").contains("launched python3 ./buggy.py under debugpy"));
    assert!(
        output(&run, "b").contains("buggy.py:9 set"),
        "{}",
        output(&run, "b")
    );
    assert!(
        output(&run, "c1").contains("stopped (breakpoint) at buggy.py:9 in average"),
        "{}",
        output(&run, "c1")
    );
    let stack = output(&run, "s");
    assert!(stack.contains("#0 buggy.py:9 in average"), "{stack}");
    assert!(stack.contains("#1 buggy.py:14 in main"), "{stack}");
    assert!(
        stack.contains("<untrusted_content source=\"debug\""),
        "{stack}"
    );
    let locals = output(&run, "v");
    assert!(
        locals.contains("count = 5 (int)"),
        "the bug's value: {locals}"
    );
    assert!(locals.contains("total = 108 (int)"), "{locals}");
    assert!(
        output(&run, "st").contains("at buggy.py:14 in main"),
        "{}",
        output(&run, "st")
    );
    let end = output(&run, "c2");
    assert!(end.contains("average: 21.6"), "the program's output: {end}");
    assert!(end.contains("the program ended with exit code 3"), "{end}");
    assert!(output(&run, "after").contains("no debug session"));
    assert_nothing_left(env.root.path());
}

#[test]
#[ignore = "needs debugpy and lldb-19 (installed by .ci/run)"]
fn a_c_program_built_with_gcc_is_debugged_through_lldb_dap() {
    let env = debug_env(600);
    std::fs::write(env.work.join("sum.c"), SUM_C).unwrap();
    let built = Command::new("gcc")
        .args(["-g", "-O0", "-o", "sum", "sum.c"])
        .current_dir(&env.work)
        .status()
        .unwrap();
    assert!(built.success());
    let calls = [
        debug("l", json!({"action": "launch", "program": "sum"})),
        debug(
            "b",
            json!({"action": "breakpoints", "path": "sum.c", "lines": [6], "conditions": ["i == 4"]}),
        ),
        debug("c1", json!({"action": "continue"})),
        debug("s", json!({"action": "stack"})),
        debug("v", json!({"action": "variables", "depth": 2})),
        debug("st", json!({"action": "step"})),
        debug("c2", json!({"action": "continue"})),
    ];
    let config = "[approval.tools]\ndebug = \"allow\"\n";
    env.add_config(config);
    let run = run_to_end(&env, &script(&env, &calls), "find the bug", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let launch = output(&run, "l");
    assert!(launch.contains("launched ./sum under lldb-dap"), "{launch}");
    assert!(
        output(&run, "c1").contains("at sum.c:6 in sum"),
        "{}",
        output(&run, "c1")
    );
    let stack = output(&run, "s");
    assert!(stack.contains("#0 sum.c:6 in sum"), "{stack}");
    assert!(stack.contains("#1 sum.c:13 in main"), "{stack}");
    let locals = output(&run, "v");
    assert!(
        locals.contains("i = 4 (int)"),
        "the condition held: {locals}"
    );
    assert!(locals.contains("total = 10 (int)"), "{locals}");
    assert!(
        output(&run, "st").contains("at sum.c:5 in sum"),
        "{}",
        output(&run, "st")
    );
    let end = output(&run, "c2");
    assert!(end.contains("sum: 110"), "{end}");
    assert!(end.contains("the program ended with exit code 4"), "{end}");
    assert_nothing_left(env.root.path());
}

#[test]
#[ignore = "needs debugpy and lldb-19 (installed by .ci/run)"]
fn a_second_launch_ends_the_first_and_cancel_during_wait_leaves_nothing() {
    needs_debugpy();
    let env = debug_env(600);
    std::fs::write(env.work.join("forever.py"), FOREVER_PY).unwrap();
    let calls = [
        debug(
            "first",
            json!({"action": "launch", "program": "forever.py"}),
        ),
        debug(
            "l",
            json!({"action": "launch", "program": "forever.py", "args": ["again"]}),
        ),
        debug("c", json!({"action": "continue", "timeout_ms": 100})),
        debug("w", json!({"action": "wait", "timeout_ms": 120000})),
    ];
    let mut agent = env.spawn_script(&script(&env, &calls), "go", &[]);
    agent.wait_for("the wait", |e| {
        e["type"] == "tool-call-start" && e["id"] == "w"
    });
    // One adapter, its launcher and the program: the first launch's are
    // gone.
    let running = processes_in(env.root.path());
    let programs = running
        .iter()
        .filter(|line| line.contains("forever.py") && !line.contains("debugpy/launcher "))
        .count();
    assert_eq!(programs, 1, "{running:?}");
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    agent.send(r#"{"type":"cancel"}"#);
    let run = agent.finish_within(Duration::from_secs(180));
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(run.code, Some(130));
    let second = output(&run, "l");
    assert!(
        second.contains("launched python3 ./forever.py again under debugpy")
            && second.contains("(the previous debug session, python3 ./forever.py, was ended)"),
        "{second}"
    );
    assert!(
        output(&run, "c").contains("still running"),
        "{}",
        output(&run, "c")
    );
    assert_eq!(result(&run, "w")["ok"], false);
    assert!(output(&run, "w").contains("cancelled"));
    assert_nothing_left(env.root.path());
}

#[test]
#[ignore = "needs debugpy and lldb-19 (installed by .ci/run)"]
fn the_idle_timeout_ends_the_debug_session_and_its_processes() {
    needs_debugpy();
    let env = debug_env(1);
    std::fs::write(env.work.join("idle_target.py"), FOREVER_PY).unwrap();
    let calls = [
        debug(
            "l",
            json!({"action": "launch", "program": "idle_target.py"}),
        ),
        // The live processes whose command line names the program (its
        // path is this test's own); a zombie has no command line.
        json!({"name": "exec", "id": "look", "args": {"command":
            "sleep 2.5; ps -eo pid=,stat=,args= | grep -F \"$PWD/idle_target.py\" | grep -v -e ' Z' -e grep; echo left: $?"}}),
        debug("s", json!({"action": "stack"})),
    ];
    let run = run_to_end(&env, &script(&env, &calls), "go", &[]);
    assert_eq!(result(&run, "l")["ok"], true, "{}", output(&run, "l"));
    assert!(
        output(&run, "look").contains("left: 1"),
        "the program is gone: {}",
        output(&run, "look")
    );
    assert_eq!(result(&run, "s")["ok"], false);
    assert!(
        output(&run, "s").contains("ended after 1 s without a debug call"),
        "{}",
        output(&run, "s")
    );
}

fn evaluate_calls() -> Vec<Value> {
    vec![
        debug("l", json!({"action": "launch", "program": "buggy.py"})),
        debug(
            "b",
            json!({"action": "breakpoints", "path": "buggy.py", "lines": [9]}),
        ),
        debug("c", json!({"action": "continue"})),
        debug(
            "e1",
            json!({"action": "evaluate", "expression": "total / len(values)"}),
        ),
        debug(
            "e2",
            json!({"action": "evaluate", "expression": "__import__('os').getpid()"}),
        ),
        debug("t", json!({"action": "terminate"})),
    ]
}

#[test]
#[ignore = "needs debugpy and lldb-19 (installed by .ci/run)"]
fn evaluate_asks_a_person_and_unattended_runs_refuse_it() {
    needs_debugpy();
    let env = debug_env(600);
    std::fs::write(env.work.join("buggy.py"), BUGGY_PY).unwrap();
    let script = script(&env, &evaluate_calls());
    let mut agent = env.spawn_script(&script, "go", &[]);
    let asked = agent.wait_for_type("hitl-request");
    assert_eq!(asked["id"], "e1");
    assert_eq!(asked["kind"], "approval");
    assert_eq!(
        asked["action"],
        "evaluate in the debugged program: total / len(values)"
    );
    agent.send(r#"{"type":"hitl-response","id":"e1","decision":"approve"}"#);
    let second = agent.wait_for_type("hitl-request");
    assert_eq!(second["id"], "e2");
    agent.send(r#"{"type":"hitl-response","id":"e2","decision":"reject","data":{"reason":"no"}}"#);
    let run = agent.finish_within(Duration::from_secs(180));
    assert_eq!(run.code, Some(0));
    assert!(
        output(&run, "e1").contains("18.0 (float)"),
        "{}",
        output(&run, "e1")
    );
    assert_eq!(result(&run, "e2")["ok"], false);
    assert!(output(&run, "e2").contains("the person refused: no"));
    assert!(
        output(&run, "t").contains("terminated"),
        "{}",
        output(&run, "t")
    );
    assert_nothing_left(env.root.path());

    let run = run_to_end(&env, &script, "go", &["--unattended"]);
    assert!(run.of_type("hitl-request").is_empty());
    assert_eq!(result(&run, "e1")["ok"], false);
    assert!(
        output(&run, "e1").contains("unattended"),
        "{}",
        output(&run, "e1")
    );
    assert!(output(&run, "c").contains("stopped (breakpoint)"));
}

#[test]
fn the_tool_is_offered_only_when_the_config_enables_it() {
    let env = TestEnv::offline();
    let call = [debug("d", json!({"action": "stack"}))];
    let run = run_to_end(&env, &script(&env, &call), "go", &[]);
    assert!(!tools(&run).contains(&"debug".to_owned()));
    assert!(
        output(&run, "d").contains("unknown tool"),
        "{}",
        output(&run, "d")
    );

    let env = debug_env(600);
    let run = run_to_end(&env, &script(&env, &call), "go", &[]);
    assert!(tools(&run).contains(&"debug".to_owned()));
    assert_eq!(
        output(&run, "d"),
        "no debug session: launch a program first"
    );
}

#[test]
fn a_launch_is_judged_as_the_exec_of_its_command_line() {
    let env = debug_env(600);
    env.add_config(
        "[approval]\n[[approval.exec]]\npattern = \"python3 ./secret*\"\ndecision = \"deny\"\n",
    );
    std::fs::write(env.work.join("secret.py"), "print(1)\n").unwrap();
    std::fs::write(env.work.join("notes.txt"), "hello\n").unwrap();
    let calls = [
        debug(
            "denied",
            json!({"action": "launch", "program": "secret.py", "args": ["--all"]}),
        ),
        debug(
            "unknown",
            json!({"action": "launch", "program": "notes.txt"}),
        ),
    ];
    let run = run_to_end(&env, &script(&env, &calls), "go", &[]);
    let denied = output(&run, "denied");
    assert!(
        denied.contains("refused by the approval policy") && denied.contains("python3 ./secret*"),
        "{denied}"
    );
    assert!(output(&run, "unknown").contains("name the adapter"));
    assert!(processes_in(Path::new(env.root.path())).is_empty());

    let run = run_to_end(
        &env,
        &script(
            &env,
            &[debug(
                "plan",
                json!({"action": "launch", "program": "notes.txt", "adapter": "debugpy"}),
            )],
        ),
        "go",
        &["--mode", "plan"],
    );
    assert!(
        output(&run, "plan").contains("plan mode"),
        "{}",
        output(&run, "plan")
    );
}

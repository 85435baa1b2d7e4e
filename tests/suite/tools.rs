//! Tool behaviour seen from outside: confinement, blocking, bad arguments,
//! edits, output caps.

use serde_json::json;

use super::mock::{MockServer, Reply, openai};
use super::{TestEnv, read};

#[test]
fn paths_outside_the_work_dir_are_refused() {
    let env = TestEnv::offline();
    let outside = env.root.path().join("outside.txt");
    std::fs::write(&outside, "secret outside").unwrap();
    std::os::unix::fs::symlink(env.root.path(), env.work.join("escape")).unwrap();
    let run = env.run_calls(
        json!([
            {"name": "read_file", "args": {"path": "../outside.txt"}},
            {"name": "read_file", "args": {"path": outside.to_str().unwrap()}},
            {"name": "read_file", "args": {"path": "escape/outside.txt"}},
            {"name": "write_file", "args": {"path": "escape/planted.txt", "content": "x"}},
            {"name": "write_file", "args": {"path": "../../planted.txt", "content": "x"}},
            {"name": "edit_file", "args": {"path": "escape/outside.txt", "old_string": "secret", "new_string": "public"}},
            {"name": "list_dir", "args": {"path": "escape"}}
        ]),
        &[],
    );
    assert_eq!(run.code, Some(0));
    let results = run.tool_results();
    assert_eq!(results.len(), 7);
    for result in &results {
        assert_eq!(result["ok"], false, "{result}");
        assert!(
            result["output"]
                .as_str()
                .unwrap()
                .contains("outside the work dir"),
            "{result}"
        );
    }
    assert!(!env.root.path().join("planted.txt").exists());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret outside");
    assert!(!run.lines.iter().any(|line| line.contains("secret outside")));
}

#[test]
fn blocked_tools_are_not_offered_and_refused_when_called() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "c1",
            "exec",
            json!({"command": "touch ran"}),
        )])),
        Reply::stream(openai::text_turn("ok")),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "x", "--blocked-tools", "exec,web_fetch"]);
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.one("session-start")["tools"],
        json!([
            "read_file",
            "write_file",
            "edit_file",
            "list_dir",
            "glob",
            "grep",
            "repo_map",
            "todo_write",
            "ask_user"
        ])
    );
    let requests = server.requests();
    let offered = requests[0].offered_tools();
    assert!(!offered.contains(&"exec".to_owned()));
    let result = run.one("tool-result");
    assert_eq!(result["ok"], false);
    assert!(result["output"].as_str().unwrap().contains("blocked"));
    assert!(!env.work.join("ran").exists());
}

#[test]
fn bad_arguments_and_unknown_tools_are_answers_for_the_model() {
    let env = TestEnv::offline();
    let run = env.run_calls(
        json!([
            {"name": "read_file", "raw_args": "{\"path\": \"a.txt\""},
            {"name": "read_file", "args": {"file": "a.txt"}},
            {"name": "teleport", "args": {}},
            {"name": "exec", "raw_args": "[1]"}
        ]),
        &[],
    );
    assert_eq!(run.code, Some(0));
    let outputs: Vec<&str> = run
        .tool_results()
        .iter()
        .map(|r| r["output"].as_str().unwrap())
        .collect();
    assert!(outputs[0].contains("not valid JSON"), "{}", outputs[0]);
    assert!(
        outputs[1].contains("unknown field `file`"),
        "{}",
        outputs[1]
    );
    assert!(outputs[2].contains("unknown tool"), "{}", outputs[2]);
    assert!(
        outputs[3].contains("must be a JSON object"),
        "{}",
        outputs[3]
    );
    assert!(run.tool_results().iter().all(|r| r["ok"] == false));
    // A broken call still shows an args object.
    assert_eq!(run.of_type("tool-call-start")[0]["args"], json!({}));
}

#[test]
fn edit_file_needs_a_unique_match_unless_replace_all() {
    let env = TestEnv::offline();
    std::fs::write(env.work.join("f.txt"), "a = 1\nb = 1\n").unwrap();
    let run = env.run_calls(
        json!([
            {"name": "edit_file", "args": {"path": "f.txt", "old_string": "= 1", "new_string": "= 2"}},
            {"name": "edit_file", "args": {"path": "f.txt", "old_string": "zzz", "new_string": "y"}},
            {"name": "edit_file", "args": {"path": "f.txt", "old_string": "b = 1", "new_string": "b = 3"}},
            {"name": "edit_file", "args": {"path": "f.txt", "old_string": "= ", "new_string": ": ", "replace_all": true}}
        ]),
        &[],
    );
    let results = run.tool_results();
    assert_eq!(results[0]["ok"], false);
    assert!(
        results[0]["output"]
            .as_str()
            .unwrap()
            .contains("occurs 2 times")
    );
    assert_eq!(results[1]["ok"], false);
    assert!(results[1]["output"].as_str().unwrap().contains("not found"));
    assert_eq!(results[2]["ok"], true);
    assert_eq!(results[3]["ok"], true);
    assert_eq!(read(&env.work, "f.txt"), "a : 1\nb : 3\n");
    let completes = run.of_type("file-complete");
    assert_eq!(completes.len(), 2);
    assert_eq!(completes[0]["op"], "update");
    assert!(
        completes[0]["diff"]
            .as_str()
            .unwrap()
            .contains("-b = 1\n+b = 3")
    );
}

#[test]
fn read_file_numbers_lines_and_pages() {
    let env = TestEnv::offline();
    let body: String = (1..=30).map(|n| format!("line {n}\n")).collect();
    std::fs::write(env.work.join("long.txt"), body).unwrap();
    std::fs::write(env.work.join("bin.dat"), [0u8, 1, 2, 3]).unwrap();
    std::fs::create_dir(env.work.join("folder")).unwrap();
    // Opening a pipe with no writer blocks forever: it must be refused.
    let made = std::process::Command::new("mkfifo")
        .arg(env.work.join("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    let run = env.run_calls(
        json!([
            {"name": "read_file", "args": {"path": "long.txt", "offset": 10, "limit": 2}},
            {"name": "read_file", "args": {"path": "bin.dat"}},
            {"name": "read_file", "args": {"path": "missing.txt"}},
            {"name": "read_file", "args": {"path": "folder"}},
            {"name": "read_file", "args": {"path": "pipe"}}
        ]),
        &[],
    );
    let results = run.tool_results();
    assert_eq!(
        results[0]["output"],
        "    10\tline 10\n    11\tline 11\n(lines 10-11 of 30)\n"
    );
    assert!(
        results[1]["output"]
            .as_str()
            .unwrap()
            .contains("binary file of 4 bytes")
    );
    assert_eq!(results[2]["ok"], false);
    assert_eq!(results[3]["ok"], false);
    assert!(
        results[3]["output"]
            .as_str()
            .unwrap()
            .contains("is a folder")
    );
    assert_eq!(results[4]["ok"], false);
    assert!(
        results[4]["output"]
            .as_str()
            .unwrap()
            .contains("not a regular file"),
        "{}",
        results[4]["output"]
    );
}

#[test]
fn exec_output_is_capped_in_events_and_kept_head_and_tail_for_the_model() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "c1",
            "exec",
            json!({"command": "echo FIRST; head -c 3000000 /dev/zero | tr '\\0' 'x'; echo; echo LAST; exit 3"}),
        )])),
        Reply::stream(openai::text_turn("ok")),
    ]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "x"]);
    assert_eq!(run.code, Some(0));
    let result = run.one("tool-result");
    assert_eq!(result["ok"], false);
    assert_eq!(result["truncated"], true);
    assert!(result["output"].as_str().unwrap().len() <= 16 * 1024);
    let streamed: usize = run
        .of_type("exec-log")
        .iter()
        .map(|e| e["data"].as_str().unwrap().len())
        .sum();
    assert!(streamed < 1024 * 1024 + 16 * 1024, "{streamed}");
    assert!(run.lines.iter().all(|line| line.len() < 64 * 1024));
    let sent = super::messages(&server.requests()[1]);
    let content = sent[3]["content"].as_str().unwrap();
    assert!(content.starts_with("FIRST"));
    assert!(
        content.contains("LAST\n[exit code 3"),
        "{}",
        &content[content.len() - 200..]
    );
    // Cut once, with the true count: "FIRST\n", 3,000,000 x, "\nLAST\n".
    assert_eq!(content.matches("bytes left out").count(), 1, "cut twice");
    assert!(
        content.contains(" bytes left out of 3000012 ...]"),
        "the count is not true"
    );
    assert!(content.len() <= 32 * 1024);
}

#[test]
fn exec_times_out_and_kills_the_command() {
    let env = TestEnv::offline();
    let run = env.run_calls(
        json!([{"name": "exec", "args": {"command": "sleep 30", "timeout_ms": 300}}]),
        &[],
    );
    let result = run.one("tool-result");
    assert_eq!(result["ok"], false);
    assert!(
        result["output"]
            .as_str()
            .unwrap()
            .contains("timed out after 300 ms")
    );
    assert!(result["duration_ms"].as_u64().unwrap() < 5_000);
}

#[test]
fn exec_does_not_hang_on_a_grandchild_holding_the_pipe() {
    let env = TestEnv::offline();
    let run = env.run_calls(
        json!([{"name": "exec", "args": {"command": "setsid sleep 20 & echo parent done"}}]),
        &[],
    );
    let result = run.one("tool-result");
    assert!(result["output"].as_str().unwrap().contains("parent done"));
    assert!(
        result["output"]
            .as_str()
            .unwrap()
            .contains("stopped reading")
    );
    assert!(result["duration_ms"].as_u64().unwrap() < 10_000);
}

#[test]
fn edit_file_keeps_crlf_and_explains_a_miss() {
    let env = TestEnv::offline();
    std::fs::write(env.work.join("win.txt"), "first\r\nsecond\r\nthird\r\n").unwrap();
    std::fs::write(
        env.work.join("code.rs"),
        "fn main() {\n    let total = add(1, 2);\n}\n",
    )
    .unwrap();
    let run = env.run_calls(
        json!([
            {"name": "edit_file", "args": {"path": "win.txt", "old_string": "second\nthird", "new_string": "2nd\n3rd"}},
            {"name": "edit_file", "args": {"path": "code.rs", "old_string": "let totl = add(1, 3);", "new_string": "x"}},
            {"name": "edit_file", "args": {"path": "code.rs", "old_string": "let total = add(1, 2);\n  }", "new_string": "x"}}
        ]),
        &[],
    );
    let results = run.tool_results();
    assert_eq!(results[0]["ok"], true, "{}", results[0]);
    assert_eq!(read(&env.work, "win.txt"), "first\r\n2nd\r\n3rd\r\n");
    let miss = results[1]["output"].as_str().unwrap();
    assert!(
        miss.contains("closest lines") && miss.contains("     2\t    let total = add(1, 2);"),
        "{miss}"
    );
    let indented = results[2]["output"].as_str().unwrap();
    assert!(
        indented.contains("lines 2-3 if leading and trailing white space is ignored"),
        "{indented}"
    );
}

#[test]
fn write_file_keeps_the_mode_of_an_existing_file() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::offline();
    let script_path = env.work.join("run.sh");
    std::fs::write(&script_path, "#!/bin/sh\necho old\n").unwrap();
    std::fs::set_permissions(&script_path, std::fs::Permissions::from_mode(0o750)).unwrap();
    let run = env.run_calls(
        json!([
            {"name": "write_file", "args": {"path": "run.sh", "content": "#!/bin/sh\necho new\n"}},
            {"name": "write_file", "args": {"path": "deep/new/dir/file.txt", "content": "x"}}
        ]),
        &[],
    );
    assert!(run.tool_results().iter().all(|r| r["ok"] == true));
    let mode = std::fs::metadata(&script_path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o750);
    assert_eq!(read(&env.work, "run.sh"), "#!/bin/sh\necho new\n");
    assert_eq!(read(&env.work, "deep/new/dir/file.txt"), "x");
    // No temp file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&env.work)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn list_dir_is_a_bounded_tree_that_honours_ignore_rules() {
    let env = TestEnv::offline();
    for dir in ["src/deep/deeper", "target/debug", ".git/objects"] {
        std::fs::create_dir_all(env.work.join(dir)).unwrap();
    }
    std::fs::write(env.work.join(".gitignore"), "target/\n*.log\n").unwrap();
    std::fs::write(env.work.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(env.work.join("src/deep/deeper/x.rs"), "").unwrap();
    std::fs::write(env.work.join("debug.log"), "noise").unwrap();
    std::fs::write(env.work.join("big.bin"), vec![0u8; 3 * 1024 * 1024]).unwrap();
    let run = env.run_calls(
        json!([{"name": "list_dir", "args": {}}, {"name": "list_dir", "args": {"path": "src", "depth": 5}}]),
        &[],
    );
    let top = run.tool_results()[0]["output"].as_str().unwrap().to_owned();
    assert_eq!(
        top,
        "./\n.gitignore  (14 B)\nbig.bin  (3.0 MiB)\nsrc/\n  deep/\n  main.rs  (13 B)\n"
    );
    let deep = run.tool_results()[1]["output"].as_str().unwrap().to_owned();
    assert_eq!(
        deep,
        "src/\ndeep/\n  deeper/\n    x.rs  (0 B)\nmain.rs  (13 B)\n"
    );
}

//! `glob` and `grep` seen from outside: what they skip, how they order and
//! cap, and what the model is told when it asks for something wrong.

use serde_json::{Value, json};

use super::TestEnv;

/// [`TestEnv::run_calls`], which must complete.
fn run_calls(env: &TestEnv, calls: Value) -> super::Finished {
    let run = env.run_calls(calls, &[]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    run
}

fn write(env: &TestEnv, name: &str, content: &[u8]) {
    let path = env.work.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn outputs(run: &super::Finished) -> Vec<(bool, String)> {
    run.tool_results()
        .iter()
        .map(|r| {
            (
                r["ok"].as_bool().unwrap(),
                r["output"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn grep_skips_ignored_hidden_and_binary_files_in_path_order() {
    let env = TestEnv::offline();
    write(&env, ".gitignore", b"target/\n*.log\n");
    write(
        &env,
        "src/main.rs",
        b"fn main() {\n    todo!(\"TODO: main\")\n}\n",
    );
    write(&env, "src/a/lib.rs", b"// TODO: lib\n");
    write(&env, "README.md", b"TODO: docs\n");
    write(&env, "target/debug/gen.rs", b"// TODO: generated\n");
    write(&env, "build.log", b"TODO: log\n");
    write(&env, ".cache/x.txt", b"TODO: hidden\n");
    write(&env, "image.bin", b"TODO: \0\x01binary\n");
    let run = run_calls(
        &env,
        json!([
            {"name": "grep", "args": {"pattern": "TODO"}},
            {"name": "grep", "args": {"pattern": "TODO", "path": "src"}},
            {"name": "glob", "args": {"pattern": "**/*.rs"}}
        ]),
    );
    let outputs = outputs(&run);
    assert_eq!(
        outputs[0],
        (
            true,
            "README.md:1:TODO: docs\nsrc/a/lib.rs:1:// TODO: lib\nsrc/main.rs:2:    todo!(\"TODO: main\")\n"
                .to_owned()
        )
    );
    assert_eq!(
        outputs[1].1,
        "src/a/lib.rs:1:// TODO: lib\nsrc/main.rs:2:    todo!(\"TODO: main\")\n"
    );
    assert_eq!(outputs[2], (true, "src/a/lib.rs\nsrc/main.rs\n".to_owned()));
    let activities: Vec<&str> = run
        .of_type("activity")
        .iter()
        .filter(|a| a["tool_call_id"].is_string())
        .map(|a| a["activity"].as_str().unwrap())
        .collect();
    assert_eq!(activities, ["searching", "searching", "searching"]);
    let offered = run.one("session-start")["tools"].clone();
    assert!(offered.as_array().unwrap().contains(&json!("grep")));
    assert!(offered.as_array().unwrap().contains(&json!("glob")));
}

#[test]
fn grep_options_case_literal_context_type_and_glob() {
    let env = TestEnv::offline();
    write(
        &env,
        "src/lib.rs",
        b"use std::io;\n\nfn Parse(x: &[u8]) -> usize {\n    x.len()\n}\n",
    );
    write(&env, "tool.py", b"def parse(x):\n    return x.len()\n");
    write(&env, "notes.md", b"call parse() first\n");
    let run = run_calls(
        &env,
        json!([
            {"name": "grep", "args": {"pattern": "fn parse", "case_insensitive": true}},
            {"name": "grep", "args": {"pattern": "x.len()", "fixed_strings": true}},
            {"name": "grep", "args": {"pattern": "x.len()"}},
            {"name": "grep", "args": {"pattern": "len", "context": 1, "path": "src/lib.rs"}},
            {"name": "grep", "args": {"pattern": "parse", "type": "py"}},
            {"name": "grep", "args": {"pattern": "parse", "glob": "*.md"}},
            {"name": "grep", "args": {"pattern": "parse", "type": "rs"}}
        ]),
    );
    let outputs = outputs(&run);
    assert_eq!(outputs[0].1, "src/lib.rs:3:fn Parse(x: &[u8]) -> usize {\n");
    assert_eq!(
        outputs[1].1,
        "src/lib.rs:4:    x.len()\ntool.py:2:    return x.len()\n"
    );
    // As a regex `()` matches the empty string, so the same lines match.
    assert_eq!(outputs[2].1, outputs[1].1);
    assert_eq!(
        outputs[3].1,
        "src/lib.rs-3-fn Parse(x: &[u8]) -> usize {\nsrc/lib.rs:4:    x.len()\nsrc/lib.rs-5-}\n"
    );
    assert_eq!(outputs[4].1, "tool.py:1:def parse(x):\n");
    assert_eq!(outputs[5].1, "notes.md:1:call parse() first\n");
    assert!(!outputs[6].0);
    assert!(
        outputs[6]
            .1
            .contains("unknown file type \"rs\"; did you mean rust?"),
        "{}",
        outputs[6].1
    );
}

#[test]
fn a_fixed_string_with_regex_metacharacters_is_found_literally() {
    let env = TestEnv::offline();
    write(&env, "a.txt", b"price: $5.00 (net)\nprice: 5500 net\n");
    let run = run_calls(
        &env,
        json!([
            {"name": "grep", "args": {"pattern": "$5.00 (net)", "fixed_strings": true}},
            {"name": "grep", "args": {"pattern": "[a-z"}},
            {"name": "grep", "args": {"pattern": "x", "glob": "{a,b"}}
        ]),
    );
    let outputs = outputs(&run);
    assert_eq!(
        outputs[0],
        (true, "a.txt:1:price: $5.00 (net)\n".to_owned())
    );
    assert!(!outputs[1].0);
    assert!(
        outputs[1].1.starts_with("invalid regex: "),
        "{}",
        outputs[1].1
    );
    assert!(
        outputs[1].1.contains("unclosed character class"),
        "{}",
        outputs[1].1
    );
    assert!(outputs[1].1.contains("fixed_strings"), "{}", outputs[1].1);
    assert!(!outputs[2].0);
    assert!(
        outputs[2].1.starts_with("invalid glob \"{a,b\""),
        "{}",
        outputs[2].1
    );
}

#[test]
fn a_capped_search_says_how_much_there_was_and_is_the_same_every_time() {
    let env = TestEnv::offline();
    for n in 0..60 {
        write(
            &env,
            &format!("dir{}/file{n:02}.txt", n % 4),
            b"match one\nno\nmatch two\n",
        );
    }
    let run = run_calls(
        &env,
        json!([
            {"name": "grep", "args": {"pattern": "match", "max_results": 3}},
            {"name": "grep", "args": {"pattern": "match", "max_results": 3}},
            {"name": "grep", "args": {"pattern": "match"}},
            {"name": "glob", "args": {"pattern": "*.txt"}}
        ]),
    );
    let outputs = outputs(&run);
    assert_eq!(
        outputs[0],
        (
            true,
            "dir0/file00.txt:1:match one\ndir0/file00.txt:3:match two\ndir0/file04.txt:1:match one\n\
             [capped: showing the first 3 of 120 matching lines, which are in 60 files; narrow the \
             search with path, glob or type, or raise max_results (at most 2000)]\n"
                .to_owned()
        )
    );
    assert_eq!(outputs[1], outputs[0]);
    assert_eq!(outputs[2].1.lines().count(), 120);
    assert!(!outputs[2].1.contains("capped"));
    let listed: Vec<&str> = outputs[3].1.lines().collect();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed.len(), 60);
    assert_eq!(listed, sorted);
}

#[test]
fn search_paths_outside_the_work_dir_are_refused() {
    let env = TestEnv::offline();
    std::fs::write(env.root.path().join("outside.txt"), "secret outside\n").unwrap();
    std::os::unix::fs::symlink(env.root.path(), env.work.join("escape")).unwrap();
    write(&env, "inside.txt", b"secret inside\n");
    let run = run_calls(
        &env,
        json!([
            {"name": "grep", "args": {"pattern": "secret", "path": ".."}},
            {"name": "grep", "args": {"pattern": "secret", "path": "/etc"}},
            {"name": "grep", "args": {"pattern": "secret", "path": "escape"}},
            {"name": "glob", "args": {"pattern": "*", "path": "../"}},
            {"name": "glob", "args": {"pattern": "*", "path": "escape/outside.txt"}},
            {"name": "grep", "args": {"pattern": "secret"}},
            {"name": "grep", "args": {"pattern": "secret", "path": "missing"}}
        ]),
    );
    let outputs = outputs(&run);
    for (ok, output) in &outputs[..5] {
        assert!(!ok);
        assert!(output.contains("outside the work dir"), "{output}");
    }
    // The symlink out is not followed by the walk either.
    assert_eq!(
        outputs[5],
        (true, "inside.txt:1:secret inside\n".to_owned())
    );
    assert!(!outputs[6].0);
    assert!(
        outputs[6].1.starts_with("cannot search missing"),
        "{}",
        outputs[6].1
    );
    assert!(!run.lines.iter().any(|line| line.contains("secret outside")));
}

#[test]
fn unknown_search_arguments_are_refused() {
    let env = TestEnv::offline();
    let run = run_calls(
        &env,
        json!([
            {"name": "grep", "args": {"pattern": "x", "regex": true}},
            {"name": "glob", "args": {}}
        ]),
    );
    let outputs = outputs(&run);
    assert!(
        outputs[0].1.contains("unknown field `regex`"),
        "{}",
        outputs[0].1
    );
    assert!(
        outputs[1].1.contains("missing field `pattern`"),
        "{}",
        outputs[1].1
    );
}

/// git's global excludes file, wherever git would find it, hides files
/// from the search and the listing as git hides them; with none, nothing
/// is hidden. (The agent finds the file without `ignore`'s regex and
/// tells the walk when there is none: the answers must stay git's.)
#[test]
fn the_global_excludes_file_is_honoured_wherever_git_finds_it() {
    let home_config = |env: &TestEnv| {
        let home = env.root.path().join("home");
        std::fs::write(
            home.join(".gitconfig"),
            "[user]\n\tname = x\n[core]\n\texcludesFile = \"~/global.ignore\"\n",
        )
        .unwrap();
        std::fs::write(home.join("global.ignore"), "*.secretlog\n").unwrap();
    };
    let default_path = |env: &TestEnv| {
        let git = env.root.path().join("home/.config/git");
        std::fs::create_dir_all(&git).unwrap();
        std::fs::write(git.join("ignore"), "*.secretlog\n").unwrap();
    };
    let none = |_: &TestEnv| {};
    type Prepare<'a> = &'a dyn Fn(&TestEnv);
    let setups: [(&str, Prepare, bool); 3] = [
        ("core.excludesFile in ~/.gitconfig", &home_config, true),
        ("$XDG_CONFIG_HOME/git/ignore", &default_path, true),
        ("no global excludes file", &none, false),
    ];
    for (setup, prepare, hidden) in setups {
        let env = TestEnv::offline();
        prepare(&env);
        write(&env, "kept.txt", b"needle\n");
        write(&env, "sub/run.secretlog", b"needle\n");
        let run = run_calls(
            &env,
            json!([
                {"name": "glob", "args": {"pattern": "**/*"}},
                {"name": "grep", "args": {"pattern": "needle"}},
                {"name": "list_dir", "args": {"path": ".", "depth": 3}}
            ]),
        );
        for (ok, output) in outputs(&run) {
            assert!(ok, "{setup}: {output}");
            assert!(output.contains("kept.txt"), "{setup}: {output}");
            assert_eq!(
                output.contains("run.secretlog"),
                !hidden,
                "{setup}: {output}"
            );
        }
    }
}

//! Transcript search: `agent sessions search` and `list` over every
//! session's journal, the index kept by the sessions themselves, rebuilt
//! when damaged, and the `session_search` tool's framed answers.

use std::path::Path;

use serde_json::{Value, json};

use super::{Finished, TestEnv};

/// `agent sessions ARGS...` in this environment (its default state folder).
fn sessions(env: &TestEnv, args: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let mut full = vec!["sessions", "--config", env.config.to_str().unwrap()];
    full.extend_from_slice(args);
    let output = env.plain_command(&full).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    (
        output.status.code(),
        lines,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The sessions the hits of `query` come from, sorted.
fn found_in(env: &TestEnv, query: &str) -> Vec<String> {
    let (code, lines, stderr) = sessions(env, &["search", "--", query]);
    assert_eq!(code, Some(0), "{stderr}");
    let mut ids: Vec<String> = lines
        .iter()
        .map(|hit| hit["session_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// A session that says `marker` in its prompt, its text and a command.
fn run_marked(env: &TestEnv, id: &str, marker: &str) -> Finished {
    let script = env.script(json!({"turns": [
        {"reasoning": format!("thinking-{marker}"), "text": format!("Looking for {marker}."),
         "tool_calls": [{"name": "exec", "args": {"command": format!("echo out-{marker}")}}]},
        {"text": "done"}
    ]}));
    let run = env.run_script(
        &script,
        &format!("find {marker} please"),
        &["--session-id", id],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run
}

fn age(folder: &Path, days: u64) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(days * 86_400);
    for name in ["journal.jsonl", "checkpoints", "lock"] {
        if let Ok(file) = std::fs::File::open(folder.join(name)) {
            file.set_modified(when).unwrap();
        }
    }
}

#[test]
fn three_sessions_are_found_by_their_markers_until_retention_removes_one() {
    let env = TestEnv::offline();
    for (id, marker) in [("one", "quokka"), ("two", "narwhal"), ("three", "axolotl")] {
        run_marked(&env, id, marker);
    }
    assert_eq!(found_in(&env, "quokka"), ["one"]);
    assert_eq!(found_in(&env, "narwhal"), ["two"]);
    assert_eq!(found_in(&env, "axolotl"), ["three"]);
    assert_eq!(found_in(&env, "out-narwhal"), ["two"], "a command's output");
    assert!(
        found_in(&env, "thinking").is_empty(),
        "reasoning is never indexed"
    );
    let (_, hits, _) = sessions(&env, &["search", "--limit", "10", "quokka"]);
    for hit in &hits {
        for field in [
            "session_id",
            "seq",
            "ts",
            "type",
            "snippet",
            "ranges",
            "score",
        ] {
            assert!(!hit[field].is_null(), "{field} in {hit}");
        }
        let chars: Vec<char> = hit["snippet"].as_str().unwrap().chars().collect();
        let [start, end] =
            [&hit["ranges"][0][0], &hit["ranges"][0][1]].map(|n| n.as_u64().unwrap() as usize);
        let marked: String = chars[start..end].iter().collect();
        assert_eq!(marked.to_lowercase(), "quokka", "{hit}");
    }
    let kinds: Vec<&str> = hits
        .iter()
        .map(|hit| hit["type"].as_str().unwrap())
        .collect();
    for kind in ["user-message", "assistant-text", "tool-call", "tool-result"] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    let (_, only, _) = sessions(&env, &["search", "--session-id", "two", "quokka"]);
    assert!(only.is_empty());

    let (code, listed, _) = sessions(&env, &["list"]);
    assert_eq!(code, Some(0));
    let mut ids: Vec<&str> = listed
        .iter()
        .map(|s| s["session_id"].as_str().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, ["one", "three", "two"]);
    assert!(
        listed
            .iter()
            .all(|s| s["events"].as_u64().unwrap() > 5 && s["live"] == false)
    );

    age(&env.state_dir().join("sessions/two"), 40);
    env.add_config("[state]\nretention_days = 30\n");
    let run = env.run_commands(&["sleep 1"], &["--session-id", "four"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!env.state_dir().join("sessions/two").exists());
    assert!(
        found_in(&env, "narwhal").is_empty(),
        "removed with its session"
    );
    assert_eq!(found_in(&env, "quokka"), ["one"]);
}

#[test]
fn the_running_session_keeps_the_index_after_its_checkpoints() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": "echo first-iteration-okapi"}}]},
        // No catch-up in the first 3 s of a process: the checkpoint after
        // this one starts it, and the next command gives it time to end
        // (the session does not wait for it).
        {"tool_calls": [{"name": "exec", "args": {"command": "sleep 3.2"}}]},
        {"tool_calls": [{"name": "exec", "args": {"command": "sleep 1"}}]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "look for okapi", &["--session-id", "kept"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // Read directly: `agent sessions` would catch up first.
    let index = rusqlite::Connection::open(env.state_dir().join("search.sqlite")).unwrap();
    let docs: i64 = index
        .query_row(
            "SELECT count(*) FROM fts WHERE fts MATCH 'okapi'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert!(docs >= 2, "the prompt and the command's output: {docs}");
}

#[test]
fn hostile_queries_are_answered_and_an_empty_one_is_a_usage_error() {
    let env = TestEnv::offline();
    run_marked(&env, "only", "foo.rs");
    for query in [
        "foo.rs",
        "NEAR(",
        "NEAR(foo rs, 2)",
        "col:x",
        "\"x",
        "x*",
        "a AND",
        "AND OR NOT",
        "-x",
        "--limit",
        "body:foo",
        "\u{1}\u{7}foo\u{1b}[0m",
        "(((foo",
        "foo)",
        "^foo",
        "'; DROP TABLE docs; --",
        "😀 foo",
        "ǅ ﬁ ß",
        "\u{E000}foo\u{E001}",
    ] {
        let (code, lines, stderr) = sessions(&env, &["search", "--", query]);
        assert_eq!(code, Some(0), "{query:?}: {stderr}");
        assert!(
            lines.iter().all(|hit| hit["session_id"] == "only"),
            "{query:?}"
        );
    }
    assert_eq!(found_in(&env, "foo.rs"), ["only"]);
    for empty in ["", "   ", "*", "\"", "( ) -", "😀"] {
        let (code, lines, stderr) = sessions(&env, &["search", "--", empty]);
        assert_eq!(code, Some(2), "{empty:?}: {stderr}");
        assert!(lines.is_empty() && stderr.contains("no word"), "{stderr}");
    }
}

#[test]
fn a_deleted_or_damaged_index_is_rebuilt_from_the_journals() {
    let env = TestEnv::offline();
    run_marked(&env, "first", "pangolin");
    let index = env.state_dir().join("search.sqlite");
    assert_eq!(found_in(&env, "pangolin"), ["first"]);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
    }
    std::fs::write(
        &index,
        b"this is not an SQLite database at all, just garbage bytes".repeat(100),
    )
    .unwrap();
    let (code, hits, stderr) = sessions(&env, &["search", "pangolin"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(hits.len(), 4, "{hits:?}");
    assert!(stderr.contains("rebuilt"), "{stderr}");
    std::fs::remove_file(&index).unwrap();
    assert_eq!(found_in(&env, "pangolin"), ["first"]);
    // A session run on a damaged index goes on, and leaves it working.
    std::fs::write(&index, vec![0xff; 4096]).unwrap();
    run_marked(&env, "second", "wombat");
    assert_eq!(found_in(&env, "wombat"), ["second"]);
}

#[test]
fn the_tool_is_offered_when_configured_and_its_hits_are_framed() {
    let env = TestEnv::offline();
    let first = run_marked(&env, "earlier", "capybara");
    let tools = |run: &Finished| run.one("session-start")["tools"].to_string();
    assert!(!tools(&first).contains("session_search"), "off by default");
    env.add_config("[session_search]\ntool = true\n");
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "session_search", "args": {"query": "capybara", "limit": 3}}]},
        {"text": "done"}
    ]}));
    let run = env.run_script(
        &script,
        "what did we do",
        &["--mode", "plan", "--session-id", "later"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        tools(&run).contains("session_search"),
        "offered, in plan mode too"
    );
    let result = run.tool_results()[0];
    assert_eq!(result["ok"], true, "{result}");
    let output = result["output"].as_str().unwrap();
    assert!(
        output.starts_with("<untrusted_content source=\"session_search\""),
        "{output}"
    );
    assert_eq!(
        output.matches("\"session_id\":\"earlier\"").count(),
        3,
        "{output}"
    );
    // Its answer is not indexed again.
    assert_eq!(found_in(&env, "capybara"), ["earlier", "later"]);
    let (_, hits, _) = sessions(&env, &["search", "--session-id", "later", "capybara"]);
    assert_eq!(hits.len(), 1, "only the call: {hits:?}");
    assert_eq!(hits[0]["type"], "tool-call");
}

#[test]
fn a_bad_cap_is_a_config_error() {
    let env = TestEnv::offline();
    env.add_config("[session_search]\nmax_index_mb = 0\n");
    let (code, _, stderr) = sessions(&env, &["list"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("max_index_mb"), "{stderr}");
}

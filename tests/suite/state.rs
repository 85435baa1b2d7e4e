//! Nothing lost: checkpoints, rollback, restore after a clean end or a
//! SIGKILL, the state folder's permissions and retention.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use super::mock::{MockServer, Reply, openai};
use super::{Finished, TestEnv, messages, read};

/// Every file of the work dir (but .git) with its content.
fn files(work: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut stack = vec![work.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(work).unwrap().display().to_string();
                found.insert(relative, std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    found
}

const GATE: &str = "for i in $(seq 600); do [ -f go ] && break; sleep 0.05; done";

fn seed(work: &Path) {
    std::fs::write(work.join("existing.txt"), "original\n").unwrap();
    std::fs::write(work.join("gone.txt"), "to be deleted\n").unwrap();
    std::fs::create_dir_all(work.join("src")).unwrap();
    std::fs::write(work.join("src/lib.rs"), "pub fn a() {}\n").unwrap();
}

/// The work dir after the first iteration of `changing_script`.
fn after_first_iteration() -> BTreeMap<String, String> {
    [
        ("created.txt", "new file\n"),
        ("existing.txt", "original\nmore\n"),
        ("out/by-exec.txt", "x\n"),
        ("src/lib.rs", "pub fn a() {}\n"),
    ]
    .into_iter()
    .map(|(path, text)| (path.to_owned(), text.to_owned()))
    .collect()
}

fn changing_script(env: &TestEnv) -> std::path::PathBuf {
    env.script(json!({"turns": [
        {"tool_calls": [
            {"name": "write_file", "args": {"path": "created.txt", "content": "new file\n"}},
            {"name": "exec", "args": {"command": "echo more >> existing.txt; rm gone.txt; mkdir -p out && echo x > out/by-exec.txt; chmod 755 created.txt"}}
        ]},
        {"tool_calls": [
            {"name": "edit_file", "args": {"path": "src/lib.rs", "old_string": "a()", "new_string": "b()"}},
            {"name": "exec", "args": {"command": format!("rm existing.txt; echo late > late.txt; echo waiting; {GATE}")}}
        ]},
        {"text": "done"}
    ]}))
}

/// What the model said in a run, its text deltas together.
fn said(run: &Finished) -> String {
    run.of_type("text-delta")
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect()
}

fn checkpoint_path(run_events: &[Value], iteration: u64) -> String {
    run_events
        .iter()
        .find(|e| e["type"] == "checkpoint-saved" && e["iteration"] == iteration)
        .unwrap_or_else(|| panic!("no checkpoint {iteration}"))["checkpoint"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn rollback_puts_files_back_exactly() {
    for target in [1u64, 0] {
        let env = TestEnv::offline();
        seed(&env.work);
        let before = files(&env.work);
        let script = changing_script(&env);
        let mut agent = env.spawn_script(&script, "change things", &[]);
        agent.wait_for("checkpoint 1", |e| {
            e["type"] == "checkpoint-saved" && e["iteration"] == 1
        });
        agent.wait_for("the gated command", |e| {
            e["type"] == "exec-log" && e["data"] == "waiting\n"
        });
        assert!(env.work.join("late.txt").exists());
        let asked = Instant::now();
        agent.send(&format!(r#"{{"type":"rollback","iteration":{target}}}"#));
        let run = agent.finish();
        assert!(asked.elapsed().as_secs() < 3);
        assert_eq!(run.code, Some(4), "{}", run.stderr);
        assert_eq!(run.exit_reason(), "rolled-back");
        let restored = run.one("checkpoint-restored");
        assert_eq!(restored["iteration"], target);
        let expected = if target == 1 {
            after_first_iteration()
        } else {
            before
        };
        assert_eq!(files(&env.work), expected, "rollback to {target}");
        if target == 1 {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(env.work.join("created.txt"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o755);
            assert!(env.work.join("out/by-exec.txt").exists());
        } else {
            assert!(
                !env.work.join("out").exists(),
                "a folder the agent made goes too"
            );
        }
    }
}

#[test]
fn checkpoints_are_saved_after_every_iteration_with_what_changed() {
    let env = TestEnv::offline();
    seed(&env.work);
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "write_file", "args": {"path": "a.txt", "content": "a"}}]},
        {"tool_calls": [{"name": "exec", "args": {"command": "echo b > b.txt; echo c > c.txt; rm gone.txt"}}]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "x", &[]);
    let saved: Vec<(u64, u64)> = run
        .of_type("checkpoint-saved")
        .iter()
        .map(|e| {
            (
                e["iteration"].as_u64().unwrap(),
                e["files_changed"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(saved, [(0, 0), (1, 1), (2, 3), (3, 0)]);
    for (iteration, _) in &saved {
        assert!(Path::new(&checkpoint_path(&run.events, *iteration)).is_file());
    }
}

#[test]
fn restore_continues_the_conversation_in_a_new_process() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[(
            "c1",
            "write_file",
            json!({"path": "notes.txt", "content": "first\n"}),
        )])),
        Reply::stream(openai::text_turn("Wrote notes.txt.")),
        Reply::stream(openai::text_turn("Second answer.")),
    ]);
    let env = TestEnv::for_server(&server);
    let first = env.run(&["--prompt", "write notes", "--session-id", "resume-me"]);
    assert_eq!(first.code, Some(0));
    let last_seq = first.end()["_seq"].as_u64().unwrap();
    let checkpoint = checkpoint_path(&first.events, 2);
    std::fs::write(env.work.join("notes.txt"), "changed by someone else\n").unwrap();

    let second = env.run(&[
        "--prompt",
        "now summarise",
        "--restore-checkpoint",
        &checkpoint,
    ]);
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    let start = second.one("session-start");
    assert_eq!(start["resumed"], true);
    assert_eq!(start["session_id"], "resume-me");
    assert_eq!(start["_seq"].as_u64(), Some(last_seq + 1));
    assert_eq!(second.one("checkpoint-restored")["iteration"], 2);
    assert_eq!(read(&env.work, "notes.txt"), "first\n");
    // The model sees the whole earlier conversation, then the new prompt.
    let sent = messages(&server.requests()[2]);
    let roles: Vec<&str> = sent.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "user"]
    );
    assert!(
        super::is_task(&sent[1]["content"], "write notes"),
        "{}",
        sent[1]
    );
    assert_eq!(sent[5]["content"], "now summarise");
    assert_eq!(second.end()["iterations"], 3);
    // Iteration numbers go on too.
    assert_eq!(second.of_type("checkpoint-saved")[0]["iteration"], 3);
}

#[test]
fn sigkill_mid_iteration_loses_only_that_iteration() {
    let env = TestEnv::offline();
    seed(&env.work);
    let script = changing_script(&env);
    let mut agent = env.spawn_script(&script, "x", &["--session-id", "killed"]);
    let saved = agent.wait_for("checkpoint 1", |e| {
        e["type"] == "checkpoint-saved" && e["iteration"] == 1
    });
    agent.wait_for("the gated command", |e| {
        e["type"] == "exec-log" && e["data"] == "waiting\n"
    });
    agent.child.kill().unwrap();
    agent.child.wait().unwrap();
    let last_seq = agent
        .seen
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok()?["_seq"].as_u64())
        .max()
        .unwrap();

    let checkpoint = saved["checkpoint"].as_str().unwrap();
    let script =
        env.script(json!({"turns": [{"text": "one"}, {"text": "two"}, {"text": "resumed fine"}]}));
    let resumed = env.run_script(&script, "go on", &["--restore-checkpoint", checkpoint]);
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    assert!(resumed.one("session-start")["_seq"].as_u64().unwrap() > last_seq);
    let mut now = files(&env.work);
    now.remove("go");
    assert_eq!(now, after_first_iteration());
    // The scripted model goes on where the checkpoint left it.
    assert_eq!(said(&resumed), "two");
}

/// The last iteration's checkpoint is taken as it ends and written under
/// the next model request; a session that ends with no next request (the
/// iteration limit reached) must still write it, and a later turn must
/// resume from it: the files as that iteration left them, the script
/// where it stopped.
#[test]
fn the_checkpoint_of_the_last_iteration_is_kept_when_no_request_follows() {
    let env = TestEnv::offline();
    seed(&env.work);
    let script = changing_script(&env);
    let run = env.run_script(&script, "x", &["--max-iterations", "1"]);
    assert_eq!(run.exit_reason(), "max-iterations", "{}", run.stderr);
    let checkpoint = checkpoint_path(&run.events, 1);
    assert!(Path::new(&checkpoint).exists());
    let script = env.script(json!({"turns": [{"text": "one"}, {"text": "resumed fine"}]}));
    let resumed = env.run_script(&script, "go on", &["--restore-checkpoint", &checkpoint]);
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    assert_eq!(files(&env.work), after_first_iteration());
    assert_eq!(said(&resumed), "resumed fine");
}

#[test]
fn state_folder_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::offline();
    seed(&env.work);
    env.run_calls(
        json!([{"name": "write_file", "args": {"path": "a.txt", "content": "a"}}]),
        &["--session-id", "private"],
    );
    let mut stack = vec![env.state_dir()];
    let mut checked = 0;
    while let Some(dir) = stack.pop() {
        assert_eq!(
            std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700,
            "{}",
            dir.display()
        );
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else {
                assert_eq!(
                    meta.permissions().mode() & 0o777,
                    0o600,
                    "{}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 6,
        "journal, lock, checkpoints and objects: {checked}"
    );
    assert!(
        env.state_dir()
            .join("sessions/private/journal.jsonl")
            .is_file()
    );
}

#[test]
fn retention_removes_old_and_oversized_sessions_but_not_live_ones() {
    let env = TestEnv::offline();
    let sessions = env.state_dir().join("sessions");
    let old = sessions.join("old-one");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("journal.jsonl"), "{}\n").unwrap();
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(40 * 86_400);
    std::fs::File::options()
        .write(true)
        .open(old.join("journal.jsonl"))
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let big_old = sessions.join("big-older");
    let big_new = sessions.join("big-newer");
    for (dir, age) in [(&big_old, 3 * 86_400), (&big_new, 86_400)] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("journal.jsonl"), vec![b'x'; 12 * 1024 * 1024]).unwrap();
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(age);
        std::fs::File::options()
            .write(true)
            .open(dir.join("journal.jsonl"))
            .unwrap()
            .set_modified(when)
            .unwrap();
    }
    env.add_config("[state]\nretention_days = 30\nmax_total_mb = 20\n");
    let run = env.run_commands(&["sleep 1"], &["--session-id", "current"]);
    assert_eq!(run.code, Some(0));
    assert!(!old.exists(), "older than the retention");
    assert!(
        !big_old.exists(),
        "the oldest goes first when over the ceiling"
    );
    assert!(big_new.exists(), "under the ceiling once the oldest went");
    assert!(sessions.join("current").exists());
}

#[test]
fn bad_retention_values_fall_back_to_defaults() {
    let env = TestEnv::offline();
    env.add_config("[state]\nretention_days = 0\nmax_total_mb = -1\n");
    let script = env.script(json!({"turns": [{"text": "done"}]}));
    let run = env.run_script(&script, "x", &[]);
    assert_eq!(run.code, Some(0));
    assert!(
        run.stderr.contains("state.retention_days = 0 is outside"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("using 2048"), "{}", run.stderr);
}

#[test]
fn reusing_a_session_id_without_restore_is_refused() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [{"text": "done"}]}));
    env.run_script(&script, "x", &["--session-id", "same"]);
    let output = env
        .script_command(&script, "x", &["--session-id", "same"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("exists already"));
}

fn attach(env: &TestEnv, session: &str, from: u64) -> super::Running {
    super::Running::spawn(env.plain_command(&[
        "attach",
        "--session-id",
        session,
        "--from-seq",
        &from.to_string(),
    ]))
}

/// The event lines with a `_seq` over `from`.
fn after<'a>(lines: impl IntoIterator<Item = &'a String>, from: u64) -> Vec<&'a String> {
    lines
        .into_iter()
        .filter(|line| {
            serde_json::from_str::<Value>(line).unwrap()["_seq"]
                .as_u64()
                .unwrap()
                > from
        })
        .collect()
}

/// A subcommand (`attach`, `checkpoints`, `rollback`) run to the end: its
/// standard output, once it exited with `code`.
fn subcommand(env: &TestEnv, args: &[&str], code: i32) -> String {
    let output = env.plain_command(args).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// `agent rollback` of `session` to `iteration`, with `more` flags.
fn rollback(env: &TestEnv, session: &str, iteration: &str, more: &[&str], code: i32) -> String {
    let mut args = vec![
        "rollback",
        "--session-id",
        session,
        "--iteration",
        iteration,
    ];
    args.extend_from_slice(more);
    subcommand(env, &args, code)
}

#[test]
fn attach_follows_a_live_session_and_forwards_commands() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": format!("echo waiting; {GATE}")}}]},
        {"text": "done"}
    ]}));
    let mut agent = env.spawn_script(&script, "x", &["--session-id", "live"]);
    agent.wait_for("the gated command", |e| e["type"] == "exec-log");
    let mut late = attach(&env, "live", 3);
    let mut full = attach(&env, "live", 0);
    let first = late.wait_for("the replay", |_| true);
    assert_eq!(first["_seq"], 4);
    full.wait_for("the exec log", |e| e["type"] == "exec-log");
    // A command written to attach reaches the agent.
    late.send(r#"{"type":"inject","text":"sent through attach"}"#);
    for running in [&mut agent, &mut late, &mut full] {
        let ack = running.wait_for("the ack", |e| e["type"] == "command-ack");
        assert_eq!(ack["command"], "inject");
        assert_eq!(ack["ok"], true);
    }
    std::fs::write(env.work.join("go"), "").unwrap();
    let run = agent.finish();
    assert_eq!(run.code, Some(0));
    assert!(
        run.of_type("user-message")
            .iter()
            .any(|e| e["text"] == "sent through attach")
    );
    for (attached, from) in [(&mut late, 3u64), (&mut full, 0)] {
        attached.wait_for("the end", |e| e["type"] == "session-end");
        assert_eq!(attached.exit_code(), Some(0));
        let expected = after(&run.lines, from);
        assert_eq!(
            attached.seen.iter().collect::<Vec<_>>(),
            expected,
            "from {from}"
        );
    }
}

#[test]
fn attach_after_the_end_replays_and_exits() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [{"text": "done"}]}));
    let run = env.run_script(&script, "x", &["--session-id", "ended"]);
    let mut attached = attach(&env, "ended", 2);
    attached.wait_for("the end", |e| e["type"] == "session-end");
    assert_eq!(attached.exit_code(), Some(0));
    assert_eq!(attached.seen, run.lines[2..].to_vec());
    subcommand(&env, &["attach", "--session-id", "nope"], 2);
}

#[test]
fn offline_checkpoints_list_and_rollback_with_dry_run() {
    let env = TestEnv::offline();
    seed(&env.work);
    let before = files(&env.work);
    let run = env.run_commands(
        &["echo more >> existing.txt; rm gone.txt; echo n > new.txt"],
        &["--session-id", "offline"],
    );
    assert_eq!(run.code, Some(0));
    let after = files(&env.work);

    let listing = subcommand(&env, &["checkpoints", "--session-id", "offline"], 0);
    assert_eq!(listing.lines().count(), 1 + 3, "{listing}");
    assert!(
        listing.lines().nth(2).unwrap().starts_with("1 "),
        "{listing}"
    );

    let said = rollback(&env, "offline", "0", &["--dry-run"], 0);
    assert_eq!(
        said,
        format!(
            "create gone.txt\nmodify existing.txt\ndelete new.txt\n3 path(s) would change in {} to match iteration 0\n",
            env.work.display()
        )
    );
    assert_eq!(files(&env.work), after, "a dry run changes nothing");

    rollback(&env, "offline", "0", &[], 0);
    assert_eq!(files(&env.work), before);
    rollback(&env, "offline", "9", &[], 2);
}

/// Every folder of the work dir (but .git) with its mode.
fn folders(work: &Path) -> BTreeMap<String, u32> {
    use std::os::unix::fs::PermissionsExt;
    let mut found = BTreeMap::new();
    let mut stack = vec![work.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() && entry.file_name() != ".git" {
                let relative = path.strip_prefix(work).unwrap().display().to_string();
                found.insert(relative, meta.permissions().mode() & 0o7777);
                stack.push(path);
            }
        }
    }
    found
}

fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// An empty folder, a private one, an open one, a nested one.
fn seed_folders(work: &Path) {
    std::fs::create_dir_all(work.join("empty")).unwrap();
    std::fs::create_dir_all(work.join("private")).unwrap();
    std::fs::write(work.join("private/a.txt"), "a\n").unwrap();
    chmod(&work.join("private"), 0o700);
    std::fs::create_dir_all(work.join("open/inner")).unwrap();
    std::fs::write(work.join("open/inner/b.txt"), "b\n").unwrap();
    chmod(&work.join("open"), 0o755);
}

#[test]
fn rollback_puts_the_folder_tree_back() {
    for target in [1u64, 0] {
        let env = TestEnv::offline();
        seed_folders(&env.work);
        let (files_before, folders_before) = (files(&env.work), folders(&env.work));
        let script = env.script(json!({"turns": [
            {"tool_calls": [{"name": "exec", "args": {"command":
                "rmdir empty && mkdir newdir && chmod 0755 private && chmod 0700 open"}}]},
            {"tool_calls": [{"name": "exec", "args": {"command": format!(
                "rmdir newdir && mkdir later && mkdir -p made/deep && echo x > made/deep/f && chmod 0750 private && echo waiting; {GATE}")}}]},
            {"text": "done"}
        ]}));
        let mut agent = env.spawn_script(&script, "reshape folders", &[]);
        agent.wait_for("checkpoint 1", |e| {
            e["type"] == "checkpoint-saved" && e["iteration"] == 1
        });
        let after_first = folders(&env.work);
        agent.wait_for("the gated command", |e| {
            e["type"] == "exec-log" && e["data"] == "waiting\n"
        });
        agent.send(&format!(r#"{{"type":"rollback","iteration":{target}}}"#));
        let run = agent.finish();
        assert_eq!(run.exit_reason(), "rolled-back", "{}", run.stderr);
        let expected = if target == 1 {
            after_first
        } else {
            folders_before
        };
        assert_eq!(folders(&env.work), expected, "folders at {target}");
        assert_eq!(files(&env.work), files_before, "files at {target}");
    }
}

#[test]
fn offline_rollback_puts_the_folder_tree_back() {
    let env = TestEnv::offline();
    seed_folders(&env.work);
    let (files_before, folders_before) = (files(&env.work), folders(&env.work));
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command":
            "rmdir empty && mkdir -p newdir/deeper && chmod 0755 private && rm -rf open/inner"}}]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "x", &["--session-id", "folders"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        rollback(&env, "folders", "0", &["--dry-run"], 0),
        format!(
            "create empty/\ncreate open/inner/\ncreate open/inner/b.txt\nmodify private/\n\
             delete newdir/deeper/\ndelete newdir/\n6 path(s) would change in {} to match iteration 0\n",
            env.work.display()
        )
    );
    rollback(&env, "folders", "0", &[], 0);
    assert_eq!(folders(&env.work), folders_before);
    assert_eq!(files(&env.work), files_before);
}

#[test]
fn rollback_never_writes_through_a_link_put_where_a_folder_was() {
    // The second command also hides the link from the scan: a dir-only
    // pattern re-includes `sub` as a folder but ignores it as a link.
    for hide in ["", " && printf 'sub\\n!sub/\\n' > .gitignore"] {
        let env = TestEnv::offline();
        let outside = env.root.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(env.work.join("sub/deeper")).unwrap();
        std::fs::write(env.work.join("sub/file"), "inside\n").unwrap();
        std::fs::write(env.work.join("sub/deeper/more"), "more\n").unwrap();
        let (files_before, folders_before) = (files(&env.work), folders(&env.work));
        let script = env.script(json!({"turns": [
            {"tool_calls": [{"name": "exec", "args": {"command": format!(
                "rm -rf sub && ln -s {} sub{hide} && echo waiting; {GATE}", outside.display())}}]},
            {"text": "done"}
        ]}));
        let mut agent = env.spawn_script(&script, "x", &[]);
        agent.wait_for("the gated command", |e| {
            e["type"] == "exec-log" && e["data"] == "waiting\n"
        });
        assert!(env.work.join("sub").is_symlink());
        agent.send(r#"{"type":"rollback","iteration":0}"#);
        let run = agent.finish();
        assert_eq!(run.exit_reason(), "rolled-back", "{hide}: {}", run.stderr);
        assert_eq!(
            std::fs::read_dir(&outside).unwrap().count(),
            0,
            "{hide}: nothing written outside the work dir"
        );
        let sub = std::fs::symlink_metadata(env.work.join("sub")).unwrap();
        assert!(sub.is_dir(), "{hide}: a real folder again");
        let mut now = files(&env.work);
        now.remove("go");
        assert_eq!(now, files_before, "{hide}");
        assert_eq!(folders(&env.work), folders_before, "{hide}");
    }
}

#[test]
fn attach_follows_the_live_turn_after_earlier_turns_ended() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [
        {"text": "turn one done"},
        {"tool_calls": [{"name": "ask_user", "id": "q1", "args": {"question": "Go on?"}}]},
        {"text": "turn two done"}
    ]}));
    let first = env.run_script(&script, "one", &["--session-id", "turns"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let end_of_first = first.end()["_seq"].as_u64().unwrap();
    let checkpoint = first.of_type("checkpoint-saved").last().unwrap()["checkpoint"]
        .as_str()
        .unwrap()
        .to_owned();

    // Between turns nothing is live: attach prints what is left and exits.
    let idle = attach(&env, "turns", end_of_first).finish();
    assert_eq!(idle.code, Some(0), "{}", idle.stderr);
    assert!(idle.lines.is_empty(), "{:?}", idle.lines);

    let mut second = env.spawn_script(&script, "two", &["--restore-checkpoint", &checkpoint]);
    second.wait_for_type("hitl-request");
    let mut late = attach(&env, "turns", end_of_first);
    let mut full = attach(&env, "turns", 0);
    let start = late.wait_for("the second turn's start", |_| true);
    assert_eq!(start["type"], "session-start");
    assert_eq!(start["_seq"].as_u64(), Some(end_of_first + 1));
    late.wait_for_type("hitl-request");
    full.wait_for_type("hitl-request");
    late.send(r#"{"type":"hitl-response","id":"q1","decision":"approve","data":{"answer":"yes"}}"#);
    let run = second.finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for (attached, from) in [(&mut late, end_of_first), (&mut full, 0)] {
        attached.wait_for("the second turn's end", |e| {
            e["type"] == "session-end" && e["_seq"] == run.end()["_seq"]
        });
        assert_eq!(attached.exit_code(), Some(0), "from {from}");
        let expected = after(first.lines.iter().chain(&run.lines), from);
        assert_eq!(
            attached.seen.iter().collect::<Vec<_>>(),
            expected,
            "from {from}"
        );
    }

    // Both turns over: from the start, everything to the last end.
    let mut replay = attach(&env, "turns", 0);
    replay.wait_for("the last end", |e| e["_seq"] == run.end()["_seq"]);
    assert_eq!(replay.exit_code(), Some(0));
    assert_eq!(replay.seen.len(), first.lines.len() + run.lines.len());
}

/// Takes a session's lock, waiting a moment for it: a process another test
/// forks while this one holds the lock keeps a copy of it until it execs.
fn lock_soon(dir: &agent::state::SessionDir) -> std::fs::File {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match agent::state::lock_session(dir) {
            Ok(lock) => return lock,
            Err(err) if std::time::Instant::now() > deadline => panic!("{err}"),
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
}

/// Between turns the lock may be held by the turn that just ended (still
/// exiting) or by the next one (not written yet): attach stops for the
/// first and waits for the second. Both are played here by this test
/// holding the lock itself.
#[test]
fn attach_tells_a_turn_that_is_ending_from_one_that_is_starting() {
    use std::io::Write;
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [{"text": "done"}]}));
    let first = env.run_script(&script, "x", &["--session-id", "between"]);
    let end = first.end()["_seq"].as_u64().unwrap();
    let dir = agent::state::SessionDir::new(&env.state_dir(), "between");

    // The ending turn: it took the lock before its session-end.
    let lock = lock_soon(&dir);
    std::fs::write(dir.lock_file(), "0\n").unwrap();
    let ending = attach(&env, "between", end).finish();
    assert_eq!(ending.code, Some(0), "{}", ending.stderr);
    assert!(ending.lines.is_empty());
    drop(lock);

    // The next turn: it took the lock after, and writes a moment later.
    let lock = lock_soon(&dir);
    let mut waiting = attach(&env, "between", end);
    let mut journal = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.journal())
        .unwrap();
    // The first turn's start and end again: real event lines, as the
    // suite's schema check wants every line it reads to be.
    let (start_line, end_line) = (&first.lines[0], first.lines.last().unwrap());
    for (seq, line) in [(end + 1, start_line), (end + 2, end_line)] {
        let mut event: Value = serde_json::from_str(line).unwrap();
        event["_seq"] = json!(seq);
        writeln!(journal, "{event}").unwrap();
    }
    let last = waiting.wait_for("the next turn's end", |e| e["type"] == "session-end");
    assert_eq!(last["_seq"], end + 2);
    assert_eq!(waiting.seen.len(), 2);
    drop(lock);
    assert_eq!(waiting.exit_code(), Some(0));
}

/// A long journal replays in time linear in its length: 200k lines (about
/// 5 MB) are a moment's work, where moving what was left after every line
/// took minutes.
#[test]
fn attach_replays_a_long_journal() {
    const LINES: u64 = 200_000;
    let env = TestEnv::offline();
    let dir = agent::state::SessionDir::new(&env.state_dir(), "long");
    dir.create().unwrap();
    let mut journal = String::new();
    for seq in 1..LINES {
        journal.push_str(&format!("{{\"type\":\"text-delta\",\"_seq\":{seq}}}\n"));
    }
    journal.push_str(&format!("{{\"type\":\"session-end\",\"_seq\":{LINES}}}\n"));
    std::fs::write(dir.journal(), &journal).unwrap();
    let out = env.root.path().join("attach.out");
    let mut child = env
        .plain_command(&["attach", "--session-id", "long", "--from-seq", "0"])
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .spawn()
        .unwrap();
    let code = super::wait_with_deadline(&mut child, Instant::now() + super::WAIT);
    assert_eq!(code, Some(0));
    assert!(
        std::fs::read_to_string(&out).unwrap() == journal,
        "every line, once"
    );
}

/// A turn killed in the middle of a journal line (or stopped by a full
/// disk) leaves it without its newline: the next turn's first line must
/// not be glued to it, or attach skips the next turn's `session-start`.
#[test]
fn a_line_cut_short_does_not_swallow_the_next_turns_start() {
    let env = TestEnv::offline();
    let script = env.script(json!({"turns": [{"text": "one"}, {"text": "two"}]}));
    let first = env.run_script(&script, "one", &["--session-id", "torn"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let end_of_first = first.end()["_seq"].as_u64().unwrap();
    let checkpoint = first.of_type("checkpoint-saved").last().unwrap()["checkpoint"]
        .as_str()
        .unwrap()
        .to_owned();
    let dir = agent::state::SessionDir::new(&env.state_dir(), "torn");
    let mut journal = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.journal())
        .unwrap();
    std::io::Write::write_all(&mut journal, br#"{"type":"text-delta","del"#).unwrap();
    drop(journal);

    let second = env.run_script(&script, "two", &["--restore-checkpoint", &checkpoint]);
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    let attached = attach(&env, "torn", end_of_first).finish();
    assert_eq!(attached.code, Some(0), "{}", attached.stderr);
    assert_eq!(attached.events[0]["type"], "session-start");
    assert_eq!(attached.lines, second.lines);
}

/// A manifest edited to name something that is not a hash (a path out of
/// the store, or not ASCII) is a damaged checkpoint: a clear error, no
/// panic, nothing read outside the store.
#[test]
fn a_manifest_with_a_forged_hash_is_a_damaged_checkpoint() {
    let env = TestEnv::offline();
    std::fs::write(env.work.join("kept.txt"), "kept\n").unwrap();
    let script = env.script(json!({"turns": [{"text": "done"}]}));
    let run = env.run_script(&script, "x", &["--session-id", "forged"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let manifest = env
        .state_dir()
        .join("sessions/forged/checkpoints/000000.json");
    let original: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let forged_hashes = [
        format!("a\u{e9}{}", "0".repeat(61)),
        "../../../../../../../../../../dev/zero".to_owned(),
    ];
    for hash in forged_hashes {
        let mut forged = original.clone();
        forged["tree"] = json!(hash);
        std::fs::write(&manifest, forged.to_string()).unwrap();
        let output = env
            .plain_command(&["rollback", "--session-id", "forged", "--iteration", "0"])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{hash:?}: {stderr}");
        assert!(stderr.contains("damaged checkpoint"), "{hash:?}: {stderr}");
    }
    assert_eq!(read(&env.work, "kept.txt"), "kept\n");
}

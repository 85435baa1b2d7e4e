//! Checkpoints that look only where something can have changed: an
//! iteration whose tools only read takes the previous tree as it is, and
//! one that a process of the session may have written in looks again,
//! where the kernel saw a change.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Finished, TestEnv};

/// Each `checkpoint-saved` as (iteration, files_changed).
fn saved(run: &Finished) -> Vec<(u64, u64)> {
    run.of_type("checkpoint-saved")
        .iter()
        .map(|event| {
            (
                event["iteration"].as_u64().unwrap(),
                event["files_changed"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The tree hash each checkpoint names.
fn trees(run: &Finished) -> Vec<String> {
    run.of_type("checkpoint-saved")
        .iter()
        .map(|event| {
            let text = std::fs::read_to_string(event["checkpoint"].as_str().unwrap()).unwrap();
            let manifest: Value = serde_json::from_str(&text).unwrap();
            manifest["tree"].as_str().unwrap().to_owned()
        })
        .collect()
}

const ANSWER: &str =
    r#"{"type":"hitl-response","id":"q1","decision":"approve","data":{"answer":"yes"}}"#;

/// The limit of the design, shown: a change made by someone outside the
/// session while only reading tools run is not in the checkpoints of
/// those iterations (a rollback to one of them would not undo it), nor
/// in that of an iteration that only writes files elsewhere (it looks
/// only in the folders on their way); the next iteration that runs a
/// command sees it.
#[test]
fn an_iteration_that_only_reads_takes_the_previous_tree_without_a_scan() {
    let env = TestEnv::offline();
    // The login shell's capture runs from the start of the session: while
    // it lives, every checkpoint looks where anything changed, the
    // person's edit included (a process of the session could write),
    // which this test is not about.
    env.add_config("[exec]\nlogin_shell = false\n");
    std::fs::create_dir(env.work.join("docs")).unwrap();
    std::fs::write(env.work.join("docs/notes.txt"), "original\n").unwrap();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "ask_user", "id": "q1", "args": {"question": "Go on?"}}]},
        {"tool_calls": [{"name": "read_file", "args": {"path": "docs/notes.txt"}},
                        {"name": "grep", "args": {"pattern": "person"}}]},
        {"tool_calls": [{"name": "write_file", "args": {"path": "sub/other.txt", "content": "o"}}]},
        {"tool_calls": [{"name": "exec", "args": {"command": "true"}}]},
        {"text": "done"}
    ]}));
    let mut agent = env.spawn_script(&script, "look", &[]);
    agent.wait_for_type("hitl-request");
    // A person edits the file while the session waits for them.
    std::fs::write(env.work.join("docs/notes.txt"), "changed by a person\n").unwrap();
    agent.send(ANSWER);
    let run = agent.finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // The write: sub/ and sub/other.txt; then the command, after which
    // the checkpoint looks in docs/ too.
    assert_eq!(
        saved(&run),
        [(0, 0), (1, 0), (2, 0), (3, 2), (4, 1), (5, 0)]
    );
    let trees = trees(&run);
    assert!(trees[1] == trees[0] && trees[2] == trees[0], "{trees:?}");
}

/// A process a command left running may write at any time, also after
/// the checkpoint of its iteration looked and before the next, in which
/// only reading tools run: that one looks again.
#[test]
fn a_process_the_session_left_running_makes_the_next_checkpoint_look() {
    let env = TestEnv::offline();
    // What the process and the test say to each other stays out of the
    // checkpoints.
    std::fs::write(env.work.join(".gitignore"), "ctl/\n").unwrap();
    std::fs::create_dir(env.work.join("ctl")).unwrap();
    let background = "sh -c 'echo $$ > ctl/pid; \
         while [ ! -f ctl/go ]; do sleep 0.05; done; \
         echo late > late.txt' >/dev/null 2>&1 &";
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "exec", "args": {"command": background}}]},
        {"tool_calls": [{"name": "ask_user", "id": "q1", "args": {"question": "Go on?"}}]},
        {"text": "done"}
    ]}));
    let mut agent = env.spawn_script(&script, "start it", &[]);
    agent.wait_for_type("hitl-request");
    std::fs::write(env.work.join("ctl/go"), "").unwrap();
    // The process wrote and ended before the checkpoint of the question's
    // iteration: no process of the session is alive then.
    // The shell creates the file before it writes the number, and an
    // empty pid would read /proc/stat, which never ends: wait for a whole
    // line.
    let pid = wait_for(|| {
        std::fs::read_to_string(env.work.join("ctl/pid"))
            .ok()
            .filter(|text| text.ends_with('\n'))
            .and_then(|text| text.trim().parse::<u32>().ok())
    });
    wait_for(|| env.work.join("late.txt").is_file().then_some(()));
    wait_for(|| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"));
        // Gone, or ended and not yet waited for by the agent.
        let ended = stat.map_or(true, |stat| {
            stat.rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X'))
        });
        ended.then_some(())
    });
    agent.send(ANSWER);
    let run = agent.finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(saved(&run), [(0, 0), (1, 0), (2, 1), (3, 0)]);
}

/// After a command that changed one file of 2,000 in 40 folders, the
/// checkpoint lists only the folder the kernel saw a change in (and the
/// work dir on the way), not every file. Shown by a change the kernel
/// does not report: a file written through a hard link made outside the
/// work dir, in another folder, which a scan of every file would count
/// (the documented limit of the watcher). A rollback to before the
/// command scans everything and puts both back.
#[test]
fn after_a_command_the_checkpoint_looks_only_where_the_kernel_saw_a_change() {
    let env = TestEnv::offline();
    env.add_config("[exec]\nlogin_shell = false\n");
    let file = |index: usize| format!("d{:02}/f{index:04}.txt", index % 40);
    for index in 0..2000 {
        let path = env.work.join(file(index));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("original {index}\n")).unwrap();
    }
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "ask_user", "id": "q1", "args": {"question": "Go on?"}}]},
        {"tool_calls": [{"name": "exec", "args": {"command": format!("echo changed >> {}", file(7))}}]},
        {"tool_calls": [{"name": "ask_user", "id": "q2", "args": {"question": "Roll back?"}}]},
        {"text": "done"}
    ]}));
    let mut agent = env.spawn_script(&script, "change one", &[]);
    agent.wait_for_type("hitl-request");
    let outside = env.root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::hard_link(env.work.join(file(31)), outside.join("link")).unwrap();
    let mut link = std::fs::OpenOptions::new()
        .append(true)
        .open(outside.join("link"))
        .unwrap();
    std::io::Write::write_all(&mut link, b"behind its back\n").unwrap();
    drop(link);
    agent.send(ANSWER);
    agent.wait_for("the second question", |event| {
        event["type"] == "hitl-request" && event["id"] == "q2"
    });
    agent.send(r#"{"type":"rollback","iteration":1}"#);
    let run = agent.finish();
    assert_eq!(run.code, Some(4), "{}", run.stderr);
    assert_eq!(run.exit_reason(), "rolled-back");
    // The command's change, and not the one in d31/.
    assert_eq!(saved(&run), [(0, 0), (1, 0), (2, 1)]);
    for index in [7, 31] {
        assert_eq!(
            std::fs::read_to_string(env.work.join(file(index))).unwrap(),
            format!("original {index}\n")
        );
    }
}

fn wait_for<T>(found: impl Fn() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(value) = found() {
            return value;
        }
        assert!(Instant::now() < deadline, "waited 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

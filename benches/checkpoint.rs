//! Checkpoint and rollback cost on a work dir of 10,000 files / 200 MB:
//! one file changed per iteration against every file changed. The first
//! must cost a small fraction of the second (a checkpoint costs what
//! changed, not the size of the work dir). One changed file is measured
//! as the session sees it: written by `write_file` or `edit_file` (the
//! checkpoint is told where), and changed by a command (it lists the
//! folders where the kernel saw a change; and, for comparison, without
//! the watcher: it scans everything); and an iteration that ran nothing
//! that writes, and one that ran a command that changed nothing.
//!
//! `cargo bench --bench checkpoint` (env: BENCH_FILES, BENCH_FILE_KB).

// A benchmark stops at its first failure, and its report is its output.
#![allow(clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use agent::model::Message;
use agent::protocol::events::Mode;
use agent::session::state::{Progress, SessionState};
use agent::state::SessionDir;
use agent::state::checkpoint::{Checkpoint, Checkpointer, Touched};

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn write_files(work: &Path, files: usize, size: usize, generation: u8) {
    for index in 0..files {
        let dir = work.join(format!("d{:03}", index % 100));
        std::fs::create_dir_all(&dir).expect("create dir");
        let mut content = vec![b'a' + (index % 26) as u8; size];
        content[0] = generation;
        content[1..9].copy_from_slice(&(index as u64).to_le_bytes());
        std::fs::write(dir.join(format!("f{index:05}.txt")), content).expect("write file");
    }
}

/// Files written long ago are not "racy": an unchanged one is only stat'ed.
fn backdate(work: &Path) {
    let past = SystemTime::now() - Duration::from_secs(3600);
    for dir in std::fs::read_dir(work).expect("read work").flatten() {
        for file in std::fs::read_dir(dir.path()).expect("read dir").flatten() {
            let handle = std::fs::File::options()
                .write(true)
                .open(file.path())
                .expect("open");
            handle.set_modified(past).expect("set mtime");
        }
    }
}

/// The time the session waits for a checkpoint, the time until it is on
/// the disk (the sync runs in the background), and the files changed.
fn save(checkpointer: &mut Checkpointer, work: &Path, iteration: u32) -> (Duration, Duration, u64) {
    let conversation = vec![Message::System {
        text: "bench".into(),
    }];
    let mut session = SessionState::new(Mode::Normal).progress;
    session.model_calls = iteration;
    let state = Checkpoint {
        session_id: "bench",
        iteration,
        work_dir: work,
        model_alias: "bench",
        session: &session,
        last_seq: 0,
        conversation: &conversation,
        unchanged_messages: 0,
    };
    let started = Instant::now();
    let (_, changed) = checkpointer.save(&state).expect("checkpoint");
    let saved = started.elapsed();
    assert!(checkpointer.wait_durable(Duration::from_secs(120)));
    (saved, started.elapsed(), changed)
}

fn rollback(
    checkpointer: &mut Checkpointer,
    dir: &SessionDir,
    iteration: u32,
) -> (Duration, usize) {
    let path = agent::state::checkpoint::manifest_path(dir, iteration);
    let manifest = agent::state::checkpoint::load_manifest::<Progress>(&path).expect("manifest");
    let started = Instant::now();
    let changes = checkpointer.restore_files(&manifest).expect("rollback");
    (started.elapsed(), changes.count())
}

/// A file changed as a tool the session ran would: `touched` is what the
/// session tells the checkpointer.
fn change(checkpointer: &mut Checkpointer, work: &Path, file: &str, touched: Touched) {
    std::fs::write(work.join(file), b"changed").expect("change one");
    checkpointer.touched(touched);
}

fn main() {
    let files = env_number("BENCH_FILES", 10_000);
    let file_kb = env_number("BENCH_FILE_KB", 20);
    let root = tempfile::tempdir().expect("temp dir");
    let work = root.path().join("work");
    let dir = SessionDir::new(&root.path().join("state"), "bench");
    dir.create().expect("session dir");
    println!(
        "work dir: {files} files of {file_kb} KiB = {} MB",
        files * file_kb / 1024
    );
    write_files(&work, files, file_kb * 1024, 0);
    backdate(&work);
    let mut checkpointer = Checkpointer::new(dir.clone(), &work, 16 * 1024 * 1024);
    let (first, _, _) = save(&mut checkpointer, &work, 0);
    println!(
        "first checkpoint (everything stored):        {:>9.1} ms",
        ms(first)
    );

    // An iteration that ran nothing that writes.
    let (nothing, _, changed) = save(&mut checkpointer, &work, 1);
    assert_eq!(changed, 0);

    // One file written by write_file or edit_file.
    let written = "d000/f00000.txt";
    let touched = Touched::Files([written.to_owned()].into());
    change(&mut checkpointer, &work, written, touched);
    let (one_save, one_durable, changed) = save(&mut checkpointer, &work, 2);
    assert_eq!(changed, 1);

    // One file changed by a command: the checkpoint lists the folders
    // where the kernel saw a change.
    change(
        &mut checkpointer,
        &work,
        "d001/f00001.txt",
        Touched::Anything,
    );
    let (command_save, _, changed) = save(&mut checkpointer, &work, 3);
    assert_eq!(changed, 1);
    // A command that changed nothing the checkpoint keeps.
    checkpointer.touched(Touched::Anything);
    let (command_nothing, _, changed) = save(&mut checkpointer, &work, 4);
    assert_eq!(changed, 0);
    // The same without the watcher, as before it: a scan of every file.
    checkpointer.snapshotter().set_watching(false);
    change(
        &mut checkpointer,
        &work,
        "d002/f00002.txt",
        Touched::Anything,
    );
    let (command_full, _, changed) = save(&mut checkpointer, &work, 5);
    assert_eq!(changed, 1);
    checkpointer.snapshotter().set_watching(true);

    let (one_back, restored) = rollback(&mut checkpointer, &dir, 4);
    assert_eq!(restored, 1);
    backdate(&work);
    // The first checkpoint after a rollback scans: the rolled-back file
    // is known again, and every folder watched again.
    let _ = save(&mut checkpointer, &work, 6);

    // Every file changed.
    write_files(&work, files, file_kb * 1024, 1);
    checkpointer.touched(Touched::Anything);
    let (all_save, all_durable, changed) = save(&mut checkpointer, &work, 7);
    assert_eq!(changed as usize, files);
    let (all_back, restored) = rollback(&mut checkpointer, &dir, 6);
    assert_eq!(restored, files);

    // A new process (a restore, an offline rollback) first indexes the
    // store: one pass over the pack's record headers.
    let mut fresh = Checkpointer::new(dir.clone(), &work, 16 * 1024 * 1024);
    let manifest = agent::state::checkpoint::load_manifest::<Progress>(
        &agent::state::checkpoint::manifest_path(&dir, 7),
    )
    .expect("manifest");
    let started = Instant::now();
    let tree = agent::state::checkpoint::load_tree(fresh.snapshotter(), &manifest).expect("tree");
    let first_read = started.elapsed();
    let stored_files = tree
        .entries
        .values()
        .filter(|entry| matches!(entry, agent::state::snapshot::Entry::File { .. }))
        .count();
    assert_eq!(stored_files, files);

    println!(
        "checkpoint, nothing that writes ran:         {:>9.1} ms",
        ms(nothing)
    );
    println!(
        "checkpoint, one file written (told where):   {:>9.1} ms",
        ms(one_save)
    );
    println!(
        "checkpoint, one file changed by a command:   {:>9.1} ms",
        ms(command_save)
    );
    println!(
        "  ...without the watcher (a full scan):      {:>9.1} ms",
        ms(command_full)
    );
    println!(
        "checkpoint, a command that changed nothing:  {:>9.1} ms",
        ms(command_nothing)
    );
    println!(
        "checkpoint, every file changed:              {:>9.1} ms",
        ms(all_save)
    );
    println!(
        "  ...on the disk, one file changed:          {:>9.1} ms",
        ms(one_durable)
    );
    println!(
        "  ...on the disk, every file changed:        {:>9.1} ms",
        ms(all_durable)
    );
    println!(
        "rollback,   one file changed:                {:>9.1} ms",
        ms(one_back)
    );
    println!(
        "rollback,   every file changed:              {:>9.1} ms",
        ms(all_back)
    );
    println!(
        "new process: index the store, read the tree:  {:>9.1} ms",
        ms(first_read)
    );
    println!(
        "ratio one/all: checkpoint {:.3} (written) {:.3} (command) {:.3} (command, full scan), on the disk {:.3}, rollback {:.3}",
        ms(one_save) / ms(all_save),
        ms(command_save) / ms(all_save),
        ms(command_full) / ms(all_save),
        ms(one_durable) / ms(all_durable),
        ms(one_back) / ms(all_back)
    );
    println!(
        "ratio command watched/full scan: {:.3}",
        ms(command_save) / ms(command_full)
    );
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

//! The subcommands that work on a session's state folder without running
//! a session: `attach`, `checkpoints`, `rollback`. They talk to a person,
//! not the proxy: plain text, through [`print_text`].

use crate::session::state::Progress;
use std::path::PathBuf;
use std::process::ExitCode;

use super::{Subcommand, USAGE_EXIT, attach};
use crate::protocol::writer::print_text;
use crate::state::checkpoint;
use crate::state::snapshot::Snapshotter;
use crate::state::{self, SessionDir};

pub fn run(command: Subcommand, state_dir: Option<PathBuf>) -> ExitCode {
    let Some(state_dir) = state_dir else {
        crate::diag!("agent: error: no state folder: set --state-dir or AGENT_STATE_DIR");
        return ExitCode::from(USAGE_EXIT);
    };
    let session = |id: &str| -> Result<SessionDir, ExitCode> {
        let dir = SessionDir::new(&state_dir, id);
        if !super::start::valid_session_id(id) || !dir.root.is_dir() {
            crate::diag!(
                "agent: error: no session {id:?} in {}",
                state_dir.join("sessions").display()
            );
            return Err(ExitCode::from(USAGE_EXIT));
        }
        Ok(dir)
    };
    match command {
        Subcommand::Attach {
            session_id,
            from_seq,
        } => match session(&session_id) {
            Ok(dir) => attach::run(&dir, from_seq),
            Err(code) => code,
        },
        Subcommand::Checkpoints { session_id } => match session(&session_id) {
            Ok(dir) => list(&dir),
            Err(code) => code,
        },
        Subcommand::Rollback {
            session_id,
            iteration,
            work_dir,
            dry_run,
        } => match session(&session_id) {
            Ok(dir) => rollback(&dir, iteration, work_dir, dry_run),
            Err(code) => code,
        },
        // Run by `cli::main` before a state folder is looked for.
        Subcommand::Skills { command } => super::skills::run(command, None),
        // Run by `cli::main`: it needs the config too.
        Subcommand::Sessions { command } => {
            super::sessions::run(command, Some(state_dir.clone()), None)
        }
    }
}

fn list(dir: &SessionDir) -> ExitCode {
    let found = match checkpoint::list::<Progress>(dir) {
        Ok(found) => found,
        Err(err) => {
            crate::diag!("agent: error: {err}");
            return ExitCode::from(1);
        }
    };
    let mut out =
        String::from("iteration  saved                     changed  mode       checkpoint\n");
    for (path, manifest) in &found {
        out.push_str(&format!(
            "{:<10} {:<25} {:<8} {:<10} {}\n",
            manifest.iteration,
            manifest.created,
            manifest.files_changed,
            manifest.session.mode,
            path.display()
        ));
    }
    print_text(&out);
    ExitCode::SUCCESS
}

fn rollback(
    dir: &SessionDir,
    iteration: u32,
    work_dir: Option<PathBuf>,
    dry_run: bool,
) -> ExitCode {
    if state::is_live(dir) {
        crate::diag!(
            "agent: error: the session is running; send it {{\"type\":\"rollback\",\"iteration\":{iteration}}} instead"
        );
        return ExitCode::from(USAGE_EXIT);
    }
    let path = checkpoint::manifest_path(dir, iteration);
    let manifest = match checkpoint::load_manifest::<Progress>(&path) {
        Ok(manifest) => manifest,
        Err(err) => {
            crate::diag!("agent: error: no checkpoint for iteration {iteration}: {err}");
            return ExitCode::from(USAGE_EXIT);
        }
    };
    let work_dir = work_dir.unwrap_or_else(|| PathBuf::from(&manifest.work_dir));
    let mut snapshot = Snapshotter::new(&work_dir, &dir.objects(), u64::MAX);
    let result = checkpoint::load_tree(&mut snapshot, &manifest).and_then(|tree| {
        if dry_run {
            snapshot.diff(&tree)
        } else {
            snapshot.restore(&tree)
        }
    });
    let changes = match result {
        Ok(changes) => changes,
        Err(err) => {
            crate::diag!("agent: error: {err}");
            return ExitCode::from(1);
        }
    };
    let mut out = String::new();
    for (verb, paths) in [
        ("create", &changes.created),
        ("modify", &changes.modified),
        ("delete", &changes.deleted),
    ] {
        for path in paths {
            out.push_str(&format!("{verb} {path}\n"));
        }
    }
    out.push_str(&format!(
        "{} path(s) {} in {} to match iteration {iteration}\n",
        changes.count(),
        if dry_run { "would change" } else { "changed" },
        work_dir.display()
    ));
    print_text(&out);
    ExitCode::SUCCESS
}

//! The session's checkpoints: one after every iteration, resuming from
//! one (a restore), and going back to one (a rollback).

use super::Session;
use super::state::{Progress, SessionState};
use crate::protocol::events::ErrorCode;
use crate::protocol::events::{Event, ExitReason};
use crate::state::StateError;
use crate::state::checkpoint::{self, Checkpoint, Manifest, Touched};
use crate::tools::procs;
use crate::tools::registry::{Call, Offered, Tool};

impl Session {
    /// Saves the checkpoint of the current iteration and announces it. A
    /// failure is reported and the session goes on: losing undo is bad,
    /// losing the work in progress would be worse.
    pub(super) fn save_checkpoint(&mut self) {
        self.save_checkpoint_now();
        // The iteration's events into the search index, off the loop.
        self.config.search.catch_up_in_background();
        // A process the session started may write after this checkpoint
        // looked, even if it ends before the next: that one looks where
        // anything changed. (One alive now was started by a command, which
        // made this checkpoint look so, or was alive at the end of the
        // previous one.) Still needed with the watcher, which sees those
        // writes: a checkpoint told that nothing wrote takes the previous
        // tree without asking it; told anything, it asks, which costs what
        // changed (a full scan only where the watcher cannot vouch).
        if procs::any_descendant_alive() {
            self.checkpointer.touched(Touched::Anything);
        }
    }

    /// Tells the checkpointer what `call`, about to run, may change in
    /// the work dir: the file a write names, anything for a command or a
    /// tool known only at run time (and for a built-in tool that plan
    /// mode withholds, which is there because it writes), nothing for
    /// the tools that only read or talk to people.
    pub(super) fn note_call(&mut self, call: &Call) {
        if let Some(target) = call.target() {
            self.note_seen(target);
        }
        let touched = match call {
            Call::WriteFile(args) => self.touched_file(&args.path),
            Call::EditFile(args) => self.touched_file(&args.path),
            call => match call.tool() {
                // A debugged program runs like a command.
                Some(tool)
                    if tool != Tool::Exec
                        && tool != Tool::Debug
                        && tool.offered() != Offered::NotInPlan =>
                {
                    Touched::Nothing
                }
                _ => Touched::Anything,
            },
        };
        self.checkpointer.touched(touched);
    }

    /// A path a tool worked on draws the repository map towards it.
    fn note_seen(&self, target: &str) {
        let work_dir = &self.config.work_dir;
        if let Ok(resolved) = crate::tools::paths::resolve(work_dir, target)
            && let Ok(relative) = resolved.strip_prefix(work_dir)
            && let Some(relative) = relative.to_str().filter(|path| !path.is_empty())
        {
            self.config.repo_map.note_path(relative);
        }
    }

    /// The file a write will change, as the tool resolves it (links
    /// followed): relative to the work dir. A path the tool will refuse
    /// counts as anything: cheaper to scan than to be wrong.
    fn touched_file(&self, path: &str) -> Touched {
        let work_dir = &self.config.work_dir;
        let relative = crate::tools::paths::resolve(work_dir, path)
            .ok()
            .and_then(|resolved| {
                let relative = resolved.strip_prefix(work_dir).ok()?.to_str()?.to_owned();
                (!relative.is_empty()).then_some(relative)
            });
        match relative {
            Some(relative) => Touched::Files([relative].into()),
            None => Touched::Anything,
        }
    }

    fn save_checkpoint_now(&mut self) {
        let state = Checkpoint {
            session_id: &self.config.session_id,
            iteration: self.state.iterations,
            work_dir: &self.config.work_dir,
            model_alias: &self.config.model_alias,
            session: &self.state.progress,
            last_seq: self.events.next_seq().saturating_sub(1),
            conversation: &self.state.conversation,
            unchanged_messages: self.state.conversation.unchanged_since_checkpoint(),
        };
        match self.checkpointer.save(&state) {
            Ok((path, files_changed)) => {
                self.state.conversation.mark_checkpointed();
                self.control.checkpoint_saved(self.state.iterations);
                self.events.emit(Event::CheckpointSaved {
                    iteration: self.state.iterations,
                    checkpoint: path.display().to_string(),
                    files_changed,
                });
            }
            Err(err) => {
                self.events.emit(Event::warning(
                    ErrorCode::CheckpointFailed,
                    format!(
                        "the checkpoint of iteration {} could not be saved: {err}",
                        self.state.iterations
                    ),
                ));
            }
        }
    }

    /// Sets the session (files included) back to a checkpoint.
    pub(super) fn resume(&mut self, manifest: &Manifest<Progress>) -> Result<(), StateError> {
        self.checkpointer.restore_files(manifest)?;
        let messages = checkpoint::load_conversation(self.checkpointer.snapshotter(), manifest)?;
        self.state = SessionState::restored(manifest.session.clone(), messages, manifest.iteration);
        let placeholders = &self.state.progress.secret_placeholders;
        placeholders.teach(self.events.redactor());
        self.refresh_tools();
        self.model.resume_after(self.state.progress.model_calls);
        Ok(())
    }

    /// `rollback`: the work dir and the conversation as they were after
    /// `iteration`, then the end of this process.
    pub(super) fn roll_back(&mut self, iteration: u32) -> ExitReason {
        let path = checkpoint::manifest_path(&self.config.state.dir, iteration);
        let restored = checkpoint::load_manifest::<Progress>(&path)
            .and_then(|manifest| self.resume(&manifest));
        match restored {
            Ok(()) => {
                self.events.emit(Event::CheckpointRestored {
                    iteration,
                    checkpoint: path.display().to_string(),
                });
                ExitReason::RolledBack
            }
            Err(err) => {
                self.events.emit(Event::Error {
                    code: ErrorCode::RollbackFailed,
                    message: format!("cannot roll back to iteration {iteration}: {err}"),
                    fatal: true,
                    attempt: None,
                });
                ExitReason::Error
            }
        }
    }
}

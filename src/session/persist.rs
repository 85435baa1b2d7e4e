//! The session's checkpoints: one after every iteration, resuming from
//! one (a restore), and going back to one (a rollback).

use super::Session;
use crate::protocol::events::ErrorCode;
use crate::protocol::events::{Event, ExitReason};
use crate::session::todos::TodoList;
use crate::state::StateError;
use crate::state::checkpoint::{self, Manifest, SessionState};

impl Session {
    /// Saves the checkpoint of the current iteration and announces it. A
    /// failure is reported and the session goes on: losing undo is bad,
    /// losing the work in progress would be worse.
    pub(super) fn save_checkpoint(&mut self) {
        let state = SessionState {
            session_id: &self.config.session_id,
            iteration: self.iterations,
            work_dir: &self.config.work_dir,
            model_alias: &self.config.model_alias,
            mode: self.mode,
            plan: self.plan.as_deref(),
            todos: self.todos.items(),
            todo_next_id: self.todos.last_id(),
            usage: self.totals,
            model_calls: self.model_calls,
            last_seq: self.events.next_seq().saturating_sub(1),
            conversation: &self.conversation,
            unchanged_messages: self.conversation.unchanged_since_checkpoint(),
        };
        match self.checkpointer.save(&state) {
            Ok((path, files_changed)) => {
                self.conversation.mark_checkpointed();
                self.control.checkpoint_saved(self.iterations);
                self.events.emit(Event::CheckpointSaved {
                    iteration: self.iterations,
                    checkpoint: path.display().to_string(),
                    files_changed,
                });
            }
            Err(err) => {
                self.events.emit(Event::warning(
                    ErrorCode::CheckpointFailed,
                    format!(
                        "the checkpoint of iteration {} could not be saved: {err}",
                        self.iterations
                    ),
                ));
            }
        }
    }

    /// Sets the session (files included) back to a checkpoint.
    pub(super) fn resume(&mut self, manifest: &Manifest) -> Result<(), StateError> {
        self.checkpointer.restore_files(manifest)?;
        self.conversation.replace(checkpoint::load_conversation(
            self.checkpointer.snapshotter(),
            manifest,
        )?);
        self.todos = TodoList::restored(manifest.todos.clone(), manifest.todo_next_id);
        self.plan = manifest.plan.clone();
        self.mode = manifest.mode;
        self.refresh_tools();
        self.totals = manifest.usage;
        self.iterations = manifest.iteration;
        self.model_calls = manifest.model_calls;
        self.model.resume_after(manifest.model_calls);
        Ok(())
    }

    /// `rollback`: the work dir and the conversation as they were after
    /// `iteration`, then the end of this process.
    pub(super) fn roll_back(&mut self, iteration: u32) -> ExitReason {
        let path = checkpoint::manifest_path(&self.config.state.dir, iteration);
        let restored = checkpoint::load_manifest(&path).and_then(|manifest| self.resume(&manifest));
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

//! The session's checkpoints: one after every iteration, resuming from
//! one (a restore), and going back to one (a rollback).

use super::control::Control;
use super::state::{Progress, SessionState};
use super::{Session, SessionConfig};
use crate::protocol::EventWriter;
use crate::protocol::events::ErrorCode;
use crate::protocol::events::{Event, ExitReason};
use crate::state::StateError;
use crate::state::checkpoint::{self, Checkpoint, Checkpointer, Manifest, Touched};
use crate::tools::procs;
use crate::tools::registry::{Call, Offered, Tool};

/// An iteration's checkpoint as the iteration ended: what it will write,
/// taken then, because by the time it is written the session has moved on
/// (the next request counted, perhaps an `inject` added).
pub(super) struct PendingCheckpoint {
    iteration: u32,
    /// The conversation's first `messages` messages are the iteration's.
    messages: usize,
    unchanged: usize,
    progress: Progress,
    model_alias: String,
    last_seq: u64,
}

/// What writing a checkpoint needs of the session: its fields, not the
/// session, so it can be written while the model request borrows the
/// conversation.
pub(super) struct CheckpointTarget<'a> {
    pub checkpointer: &'a mut Checkpointer,
    pub conversation: &'a [crate::model::Message],
    pub config: &'a SessionConfig,
    pub events: &'a EventWriter,
    pub control: &'a Control,
}

impl PendingCheckpoint {
    /// Writes the checkpoint `taken` holds, if any, leaving it empty; the
    /// number of leading messages it stored, once written.
    pub(super) fn write_taken(
        taken: &mut Option<Self>,
        to: &mut CheckpointTarget<'_>,
    ) -> Option<usize> {
        let pending = taken.take()?;
        pending.write(to).then_some(pending.messages)
    }

    /// Writes the checkpoint and announces it; a failure is reported and
    /// the session goes on: losing undo is bad, losing the work in
    /// progress would be worse. Whether it was written.
    fn write(&self, to: &mut CheckpointTarget<'_>) -> bool {
        // Only appended to since it was taken (a rewrite writes it
        // first); a shorter one would be a wrong checkpoint, never saved.
        let Some(conversation) = to.conversation.get(..self.messages) else {
            to.events.emit(Event::warning(
                ErrorCode::CheckpointFailed,
                format!(
                    "the checkpoint of iteration {} could not be saved: the conversation changed before it was written",
                    self.iteration
                ),
            ));
            return false;
        };
        let state = Checkpoint {
            session_id: &to.config.session_id,
            iteration: self.iteration,
            work_dir: &to.config.work_dir,
            model_alias: &self.model_alias,
            session: &self.progress,
            last_seq: self.last_seq,
            conversation,
            unchanged_messages: self.unchanged,
        };
        let written = match to.checkpointer.save(&state) {
            Ok((path, files_changed)) => {
                to.control.checkpoint_saved(self.iteration);
                to.events.emit(Event::CheckpointSaved {
                    iteration: self.iteration,
                    checkpoint: path.display().to_string(),
                    files_changed,
                });
                true
            }
            Err(err) => {
                to.events.emit(Event::warning(
                    ErrorCode::CheckpointFailed,
                    format!(
                        "the checkpoint of iteration {} could not be saved: {err}",
                        self.iteration
                    ),
                ));
                false
            }
        };
        // The iteration's events into the search index, off the loop.
        to.config.search.catch_up_in_background();
        // A process the session started may write after this checkpoint
        // looked, even if it ends before the next: that one looks where
        // anything changed. (One alive now was started by a command, which
        // made this checkpoint look so, or was alive at the end of the
        // previous one.) Still needed with the watcher, which sees those
        // writes: a checkpoint told that nothing wrote takes the previous
        // tree without asking it; told anything, it asks, which costs what
        // changed (a full scan only where the watcher cannot vouch).
        if procs::any_descendant_alive() {
            to.checkpointer.touched(Touched::Anything);
        }
        written
    }
}

impl Session {
    /// Saves the checkpoint of the current iteration and announces it.
    pub(super) fn save_checkpoint(&mut self) {
        self.defer_checkpoint();
        self.flush_checkpoint();
    }

    /// Takes the checkpoint of the iteration that just ended, to be
    /// written once the next model request has left (`call_model`), so
    /// the work dir's scan and the writes cost the model's time, not the
    /// user's; or before whatever needs it first (a compaction, the end).
    /// Nothing can change the work dir in between but a process a command
    /// left running, which a checkpoint races with anyway.
    pub(super) fn defer_checkpoint(&mut self) {
        self.flush_checkpoint();
        self.pending_checkpoint = Some(PendingCheckpoint {
            iteration: self.state.iterations,
            messages: self.state.conversation.len(),
            unchanged: self.state.conversation.unchanged_since_checkpoint(),
            progress: self.state.progress.clone(),
            model_alias: self.config.model_alias.clone(),
            last_seq: self.events.next_seq().saturating_sub(1),
        });
    }

    /// Writes the checkpoint taken, if it is not written yet.
    pub(super) fn flush_checkpoint(&mut self) {
        let written = PendingCheckpoint::write_taken(
            &mut self.pending_checkpoint,
            &mut CheckpointTarget {
                checkpointer: &mut self.checkpointer,
                conversation: &self.state.conversation,
                config: &self.config,
                events: &self.events,
                control: &self.control,
            },
        );
        if let Some(messages) = written {
            self.state.conversation.mark_checkpointed(messages);
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

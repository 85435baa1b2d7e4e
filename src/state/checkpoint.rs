//! Checkpoints: after every iteration, what is needed to continue or undo
//! the session from there. A checkpoint is a small manifest,
//! `checkpoints/NNNNNN.json`, naming two objects of the content store: the
//! conversation (a list naming one object per message) and the work dir's
//! tree. Unchanged content is never written twice, so a checkpoint costs
//! what changed: a message already stored by an earlier checkpoint is not
//! stored again, and a long session does not store its history once an
//! iteration.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::snapshot::{Snapshotter, Tree, hash_bytes};
use super::{SessionDir, StateError, write_atomically};
use crate::model::{Message, Usage};
use crate::protocol::events::{Mode, Todo};

pub const FORMAT_VERSION: u32 = 2;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: u32,
    pub session_id: String,
    pub iteration: u32,
    pub created: String,
    pub work_dir: String,
    pub model_alias: String,
    pub mode: Mode,
    pub plan: Option<String>,
    pub todos: Vec<Todo>,
    /// Todo ids handed out so far, so new ones stay unique after a restore.
    pub todo_next_id: u32,
    pub usage: Usage,
    /// Model calls made so far (a scripted model resumes its script there).
    pub model_calls: u32,
    /// The `_seq` of the last event written before this checkpoint.
    pub last_seq: u64,
    pub conversation: String,
    pub tree: String,
    pub files_changed: u64,
}

/// Everything of the session a checkpoint keeps, besides the files.
pub struct SessionState<'a> {
    pub session_id: &'a str,
    pub iteration: u32,
    pub work_dir: &'a Path,
    pub model_alias: &'a str,
    pub mode: Mode,
    pub plan: Option<&'a str>,
    pub todos: &'a [Todo],
    pub todo_next_id: u32,
    pub usage: Usage,
    pub model_calls: u32,
    pub last_seq: u64,
    pub conversation: &'a [Message],
}

/// Keeps the previous tree to count what changed.
pub struct Checkpointer {
    dir: SessionDir,
    snapshot: Snapshotter,
    previous: Option<Tree>,
}

impl Checkpointer {
    pub fn new(dir: SessionDir, work_dir: &Path, max_file_bytes: u64) -> Self {
        let snapshot = Snapshotter::new(work_dir, &dir.objects(), max_file_bytes);
        Checkpointer {
            dir,
            snapshot,
            previous: None,
        }
    }

    pub fn snapshotter(&mut self) -> &mut Snapshotter {
        &mut self.snapshot
    }

    /// Writes the checkpoint for `state` and returns its path and the
    /// number of files changed since the previous one.
    pub fn save(&mut self, state: &SessionState<'_>) -> Result<(PathBuf, u64), StateError> {
        let (tree, _) = self.snapshot.scan()?;
        let files_changed = match &self.previous {
            Some(previous) => super::snapshot::compare(previous, &tree).count() as u64,
            None => 0,
        };
        let tree_json =
            serde_json::to_vec(&tree).map_err(|err| StateError::Invalid(err.to_string()))?;
        let tree_hash = hash_bytes(&tree_json);
        self.snapshot.store_bytes(&tree_hash, &tree_json)?;
        let mut message_hashes = Vec::with_capacity(state.conversation.len());
        for message in state.conversation {
            let json =
                serde_json::to_vec(message).map_err(|err| StateError::Invalid(err.to_string()))?;
            let hash = hash_bytes(&json);
            self.snapshot.store_bytes(&hash, &json)?;
            message_hashes.push(hash);
        }
        let conversation_json = serde_json::to_vec(&message_hashes)
            .map_err(|err| StateError::Invalid(err.to_string()))?;
        let conversation_hash = hash_bytes(&conversation_json);
        self.snapshot
            .store_bytes(&conversation_hash, &conversation_json)?;
        // One sync for all the objects above, before the manifest that
        // names them exists.
        if let Ok(objects) = std::fs::File::open(self.dir.objects()) {
            let _ = rustix::fs::syncfs(&objects);
        }
        let manifest = Manifest {
            format: FORMAT_VERSION,
            session_id: state.session_id.to_owned(),
            iteration: state.iteration,
            created: crate::protocol::writer::timestamp_now(),
            work_dir: state.work_dir.display().to_string(),
            model_alias: state.model_alias.to_owned(),
            mode: state.mode,
            plan: state.plan.map(str::to_owned),
            todos: state.todos.to_vec(),
            todo_next_id: state.todo_next_id,
            usage: state.usage,
            model_calls: state.model_calls,
            last_seq: state.last_seq,
            conversation: conversation_hash,
            tree: tree_hash,
            files_changed,
        };
        let path = manifest_path(&self.dir, state.iteration);
        let text = serde_json::to_vec_pretty(&manifest)
            .map_err(|err| StateError::Invalid(err.to_string()))?;
        write_atomically(&path, &text)?;
        self.previous = Some(tree);
        Ok((path, files_changed))
    }

    /// Puts the work dir back as it was at `manifest`.
    pub fn restore_files(
        &mut self,
        manifest: &Manifest,
    ) -> Result<super::snapshot::Changes, StateError> {
        let tree = load_tree(&self.snapshot, manifest)?;
        let changes = self.snapshot.restore(&tree)?;
        self.previous = Some(tree);
        Ok(changes)
    }
}

pub fn manifest_path(dir: &SessionDir, iteration: u32) -> PathBuf {
    dir.checkpoints().join(format!("{iteration:06}.json"))
}

pub fn load_manifest(path: &Path) -> Result<Manifest, StateError> {
    let text = std::fs::read(path).map_err(|err| StateError::io(path, err))?;
    let manifest: Manifest = serde_json::from_slice(&text).map_err(|err| {
        StateError::Invalid(format!("{} is not a checkpoint: {err}", path.display()))
    })?;
    if manifest.format != FORMAT_VERSION {
        return Err(StateError::Invalid(format!(
            "{} has checkpoint format {}, this agent reads {FORMAT_VERSION}",
            path.display(),
            manifest.format
        )));
    }
    Ok(manifest)
}

pub fn load_tree(snapshot: &Snapshotter, manifest: &Manifest) -> Result<Tree, StateError> {
    let bytes = snapshot.load_bytes(&manifest.tree)?;
    serde_json::from_slice(&bytes).map_err(|err| StateError::Invalid(err.to_string()))
}

pub fn load_conversation(
    snapshot: &Snapshotter,
    manifest: &Manifest,
) -> Result<Vec<Message>, StateError> {
    let bytes = snapshot.load_bytes(&manifest.conversation)?;
    let hashes: Vec<String> =
        serde_json::from_slice(&bytes).map_err(|err| StateError::Invalid(err.to_string()))?;
    hashes
        .iter()
        .map(|hash| {
            let bytes = snapshot.load_bytes(hash)?;
            serde_json::from_slice(&bytes).map_err(|err| StateError::Invalid(err.to_string()))
        })
        .collect()
}

/// The session folder a checkpoint file lives in.
pub fn session_dir_of(checkpoint: &Path) -> Result<SessionDir, StateError> {
    let root = checkpoint.parent().and_then(Path::parent).ok_or_else(|| {
        StateError::Invalid(format!(
            "{} is not inside a session folder",
            checkpoint.display()
        ))
    })?;
    Ok(SessionDir {
        root: root.to_path_buf(),
    })
}

/// The checkpoints of a session, oldest first.
pub fn list(dir: &SessionDir) -> Result<Vec<(PathBuf, Manifest)>, StateError> {
    let folder = dir.checkpoints();
    let entries = std::fs::read_dir(&folder).map_err(|err| StateError::io(&folder, err))?;
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|ext| ext == "json")
            && let Ok(manifest) = load_manifest(&path)
        {
            found.push((path, manifest));
        }
    }
    found.sort_by_key(|(_, manifest)| manifest.iteration);
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::events::Mode;

    fn objects(dir: &SessionDir) -> usize {
        let mut count = 0;
        for folder in std::fs::read_dir(dir.objects()).unwrap().flatten() {
            count += std::fs::read_dir(folder.path()).unwrap().count();
        }
        count
    }

    #[test]
    fn a_longer_conversation_stores_only_its_new_messages() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let dir = SessionDir::new(&root.path().join("state"), "s");
        dir.create().unwrap();
        let mut checkpointer = Checkpointer::new(dir.clone(), &work, 1024);
        let mut conversation: Vec<Message> = (0..50)
            .map(|n| Message::User {
                text: format!("message {n} {}", "x".repeat(1000)),
                images: Vec::new(),
            })
            .collect();
        let save = |checkpointer: &mut Checkpointer, conversation: &[Message], iteration| {
            checkpointer
                .save(&SessionState {
                    session_id: "s",
                    iteration,
                    work_dir: &work,
                    model_alias: "m",
                    mode: Mode::Normal,
                    plan: None,
                    todos: &[],
                    todo_next_id: 0,
                    usage: crate::model::Usage::default(),
                    model_calls: iteration,
                    last_seq: 0,
                    conversation,
                })
                .unwrap()
        };
        save(&mut checkpointer, &conversation, 0);
        let after_first = objects(&dir);
        conversation.push(Message::User {
            text: "one more".into(),
            images: Vec::new(),
        });
        let (path, _) = save(&mut checkpointer, &conversation, 1);
        // The new message and the new list; the tree is unchanged.
        assert_eq!(objects(&dir), after_first + 2);
        let manifest = load_manifest(&path).unwrap();
        let loaded = load_conversation(checkpointer.snapshotter(), &manifest).unwrap();
        assert_eq!(loaded, conversation);
    }
}

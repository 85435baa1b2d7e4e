//! Checkpoints: after every iteration, what is needed to continue or undo
//! the session from there. A checkpoint is a small manifest,
//! `checkpoints/NNNNNN.json`, naming two objects of the content store: the
//! conversation (a list naming one object per message) and the work dir's
//! tree (its files, links and folders, one object per folder: see
//! [`super::snapshot::tree`]). Unchanged content is never written twice, so a checkpoint costs
//! what changed: a message already stored by an earlier checkpoint is not
//! stored again, a long session does not store its history once an
//! iteration, and a changed file stores the folders on its path, not the
//! whole tree.
//!
//! Nor is the work dir scanned when nothing can have changed it: the
//! session tells the checkpointer what its tools may have touched
//! ([`Touched`]), and an iteration that only read leaves the tree as it
//! was. After a command, the checkpoint lists the folders where the kernel
//! saw a change (see [`super::snapshot`]'s watcher). A change made by
//! something outside the session (a person, another program) is seen by
//! the next checkpoint that looks there.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::durable::Syncer;
use super::snapshot::{Focus, Snapshotter, Tree, hash_bytes};
use super::{SessionDir, StateError, write_private};
use crate::model::Message;

pub const FORMAT_VERSION: u32 = 5;
/// Format 2 stored the conversation as one flat list of message hashes;
/// formats 2 and 3 stored the work dir's files and links, not its folders
/// (see [`Tree::folders`]); formats 2 to 4 stored the tree as one object,
/// a map from every path to its entry. Their checkpoints still load.
const READABLE_FORMATS: [u32; 4] = [2, 3, 4, FORMAT_VERSION];
/// The first format whose trees record the folders.
const FOLDERS_SINCE: u32 = 4;
/// The first format that stores one object per folder.
const FOLDER_OBJECTS_SINCE: u32 = 5;
/// Messages per stored chunk of the conversation's list.
pub const CHUNK_MESSAGES: usize = 64;

/// The conversation object: full chunks (each a stored list of
/// [`CHUNK_MESSAGES`] message hashes), then the hashes of the rest.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConversationIndex {
    chunks: Vec<String>,
    tail: Vec<String>,
}

/// A checkpoint's manifest. `P` is the session's own state (mode, plan,
/// todos, usage...): the session defines it and this module stores it
/// flattened among the fields below, so a field the session adds needs no
/// change here, and manifests of earlier formats, which wrote the same
/// names at the top level, still load. (Unknown fields are not refused:
/// serde cannot combine that with a flattened part.)
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest<P> {
    pub format: u32,
    pub session_id: String,
    pub iteration: u32,
    pub created: String,
    pub work_dir: String,
    pub model_alias: String,
    #[serde(flatten)]
    pub session: P,
    /// The `_seq` of the last event written before this checkpoint.
    pub last_seq: u64,
    pub conversation: String,
    pub tree: String,
    pub files_changed: u64,
}

/// What one save writes, besides the files.
pub struct Checkpoint<'a, P> {
    pub session_id: &'a str,
    pub iteration: u32,
    pub work_dir: &'a Path,
    pub model_alias: &'a str,
    pub session: &'a P,
    pub last_seq: u64,
    pub conversation: &'a [Message],
    /// How many leading messages are the same as at the previous save:
    /// their stored hashes are reused instead of serialising and hashing
    /// the whole history again on every iteration.
    pub unchanged_messages: usize,
}

/// What may have changed the work dir since the previous checkpoint, as
/// the session knows from the tools it ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Touched {
    /// Nothing: the checkpoint takes the previous tree without a scan.
    #[default]
    Nothing,
    /// These files (paths relative to the work dir) and the folders on
    /// the way to them, made if they were missing; nothing else.
    Files(BTreeSet<String>),
    /// Anything: a command ran, or a process of the session is alive. The
    /// checkpoint lists the folders where the kernel saw a change, or scans
    /// everything where it cannot tell.
    Anything,
}

impl Touched {
    /// Both this and `more`.
    pub fn add(&mut self, more: Touched) {
        match (&mut *self, more) {
            (_, Touched::Nothing) | (Touched::Anything, _) => {}
            (Touched::Files(files), Touched::Files(more)) => files.extend(more),
            (this, more) => *this = more,
        }
    }
}

/// Keeps what the previous checkpoint stored, so the next one only
/// stores (and hashes) what changed since.
pub struct Checkpointer {
    dir: SessionDir,
    snapshot: Snapshotter,
    /// The previous checkpoint's tree hash.
    previous: Option<String>,
    /// The tree a restore put back, when the next checkpoint is the first
    /// since: it scans everything and counts the changes against it.
    restored: Option<Tree>,
    touched: Touched,
    message_hashes: Vec<String>,
    /// The stored chunks of `message_hashes`, in order.
    chunk_hashes: Vec<String>,
    syncer: Syncer,
}

impl Checkpointer {
    pub fn new(dir: SessionDir, work_dir: &Path, max_file_bytes: u64) -> Self {
        let snapshot = Snapshotter::new(work_dir, &dir.objects(), max_file_bytes);
        let syncer = Syncer::new(dir.objects());
        Checkpointer {
            dir,
            snapshot,
            previous: None,
            restored: None,
            touched: Touched::Nothing,
            message_hashes: Vec::new(),
            chunk_hashes: Vec::new(),
            syncer,
        }
    }

    /// Waits up to `limit` for every checkpoint saved so far to be on the
    /// disk (see [`super::durable`]); says whether they are.
    pub fn wait_durable(&self, limit: std::time::Duration) -> bool {
        self.syncer.wait_synced(limit)
    }

    pub fn snapshotter(&mut self) -> &mut Snapshotter {
        &mut self.snapshot
    }

    /// Tells what may have changed the work dir since the previous
    /// checkpoint (added to what was told before).
    pub fn touched(&mut self, what: Touched) {
        self.touched.add(what);
    }

    /// Writes the checkpoint for `state` and returns its path and the
    /// number of files changed since the previous one. It survives the
    /// death of this process once this returns, and a power cut once the
    /// background sync has run.
    pub fn save<P: Serialize>(
        &mut self,
        state: &Checkpoint<'_, P>,
    ) -> Result<(PathBuf, u64), StateError> {
        let touched = std::mem::take(&mut self.touched);
        let saved = self.save_touched(state, touched);
        if saved.is_err() {
            // Whatever this one saw is not in a checkpoint: the next one
            // looks everywhere.
            self.touched = Touched::Anything;
        }
        saved
    }

    /// The work dir's tree hash for this checkpoint and the paths
    /// changed since the previous one, scanning no more than `touched`
    /// needs.
    fn tree_now(&mut self, touched: Touched) -> Result<(String, u64), StateError> {
        let Some(previous) = &self.previous else {
            return Ok((self.snapshot.scan_tree(None)?.hash, 0));
        };
        // A scan that failed halfway took the scanner's memory of the
        // work dir with it: the changes are counted against the previous
        // checkpoint's tree, read back.
        if self.restored.is_none() && !self.snapshot.has_scanned() {
            self.restored = Some(super::snapshot::tree::load(&mut self.snapshot, previous)?);
        }
        // The first since a restore: the last scan saw the work dir before
        // it, and the restored tree may be of an older format.
        if let Some(restored) = &self.restored {
            let hash = self.snapshot.scan_tree(None)?.hash;
            let changed = super::snapshot::compare(restored, &self.snapshot.last_tree()).count();
            self.restored = None;
            return Ok((hash, changed as u64));
        }
        let outcome = match &touched {
            Touched::Nothing => return Ok((previous.clone(), 0)),
            Touched::Files(files) => {
                let focus = Focus::on_the_way_to(files.iter().map(String::as_str));
                self.snapshot.scan_tree(focus.as_ref())?
            }
            // Where the kernel saw a change, or everywhere.
            Touched::Anything => self.snapshot.scan_changed()?,
        };
        Ok((outcome.hash, outcome.changed))
    }

    fn save_touched<P: Serialize>(
        &mut self,
        state: &Checkpoint<'_, P>,
        touched: Touched,
    ) -> Result<(PathBuf, u64), StateError> {
        let (tree_hash, files_changed) = self.tree_now(touched)?;
        let conversation_hash = self.store_conversation(state)?;
        let manifest = Manifest {
            format: FORMAT_VERSION,
            session_id: state.session_id.to_owned(),
            iteration: state.iteration,
            created: crate::protocol::writer::timestamp_now(),
            work_dir: state.work_dir.display().to_string(),
            model_alias: state.model_alias.to_owned(),
            session: state.session,
            last_seq: state.last_seq,
            conversation: conversation_hash,
            tree: tree_hash.clone(),
            files_changed,
        };
        let path = manifest_path(&self.dir, state.iteration);
        let text = serde_json::to_vec_pretty(&manifest)
            .map_err(|err| StateError::Invalid(err.to_string()))?;
        // The objects were written first, so a manifest never names one
        // that a dying process did not write.
        write_private(&path, &text, false)?;
        self.syncer.checkpoint_written();
        self.previous = Some(tree_hash);
        Ok((path, files_changed))
    }

    /// Stores the messages new since the previous save, the chunks they
    /// fill and the index naming them all; returns the index's hash.
    fn store_conversation<P>(&mut self, state: &Checkpoint<'_, P>) -> Result<String, StateError> {
        let unchanged = state
            .unchanged_messages
            .min(self.message_hashes.len())
            .min(state.conversation.len());
        self.message_hashes.truncate(unchanged);
        self.chunk_hashes.truncate(unchanged / CHUNK_MESSAGES);
        for message in &state.conversation[unchanged..] {
            let json =
                serde_json::to_vec(message).map_err(|err| StateError::Invalid(err.to_string()))?;
            let hash = hash_bytes(&json);
            self.snapshot.store_bytes(&hash, &json)?;
            self.message_hashes.push(hash);
        }
        let full = self.message_hashes.len() / CHUNK_MESSAGES;
        for chunk in self.chunk_hashes.len()..full {
            let hashes = &self.message_hashes[chunk * CHUNK_MESSAGES..(chunk + 1) * CHUNK_MESSAGES];
            let hash = store_json(&mut self.snapshot, &hashes)?;
            self.chunk_hashes.push(hash);
        }
        store_json(
            &mut self.snapshot,
            &ConversationIndex {
                chunks: self.chunk_hashes.clone(),
                tail: self.message_hashes[full * CHUNK_MESSAGES..].to_vec(),
            },
        )
    }

    /// Puts the work dir back as it was at `manifest`.
    pub fn restore_files<P>(
        &mut self,
        manifest: &Manifest<P>,
    ) -> Result<super::snapshot::Changes, StateError> {
        // A restore that fails halfway has changed some of the work dir.
        self.touched = Touched::Anything;
        let tree = load_tree(&mut self.snapshot, manifest)?;
        let changes = self.snapshot.restore(&tree)?;
        self.previous = Some(manifest.tree.clone());
        self.restored = Some(tree);
        // The conversation is replaced too: nothing of it is known stored.
        self.message_hashes.clear();
        self.chunk_hashes.clear();
        Ok(changes)
    }
}

pub fn manifest_path(dir: &SessionDir, iteration: u32) -> PathBuf {
    dir.checkpoints().join(format!("{iteration:06}.json"))
}

pub fn load_manifest<P: DeserializeOwned>(path: &Path) -> Result<Manifest<P>, StateError> {
    let text = std::fs::read(path).map_err(|err| StateError::io(path, err))?;
    let manifest: Manifest<P> = serde_json::from_slice(&text).map_err(|err| {
        StateError::Invalid(format!("{} is not a checkpoint: {err}", path.display()))
    })?;
    if !READABLE_FORMATS.contains(&manifest.format) {
        return Err(StateError::Invalid(format!(
            "{} has checkpoint format {}, this agent reads formats {READABLE_FORMATS:?}",
            path.display(),
            manifest.format
        )));
    }
    Ok(manifest)
}

pub fn load_tree<P>(
    snapshot: &mut Snapshotter,
    manifest: &Manifest<P>,
) -> Result<Tree, StateError> {
    if manifest.format >= FOLDER_OBJECTS_SINCE {
        return super::snapshot::tree::load(snapshot, &manifest.tree);
    }
    Ok(Tree {
        entries: load_json(snapshot, &manifest.tree)?,
        folders: manifest.format >= FOLDERS_SINCE,
    })
}

pub fn load_conversation<P>(
    snapshot: &mut Snapshotter,
    manifest: &Manifest<P>,
) -> Result<Vec<Message>, StateError> {
    let hashes = match manifest.format {
        2 => load_json::<Vec<String>>(snapshot, &manifest.conversation)?,
        _ => {
            let index: ConversationIndex = load_json(snapshot, &manifest.conversation)?;
            let mut hashes = Vec::with_capacity(index.chunks.len() * CHUNK_MESSAGES);
            for chunk in &index.chunks {
                hashes.extend(load_json::<Vec<String>>(snapshot, chunk)?);
            }
            hashes.extend(index.tail);
            hashes
        }
    };
    hashes
        .iter()
        .map(|hash| load_json(snapshot, hash))
        .collect()
}

/// Stores `value` as JSON; returns its hash.
fn store_json(snapshot: &mut Snapshotter, value: &impl Serialize) -> Result<String, StateError> {
    let json = serde_json::to_vec(value).map_err(|err| StateError::Invalid(err.to_string()))?;
    let hash = hash_bytes(&json);
    snapshot.store_bytes(&hash, &json)?;
    Ok(hash)
}

fn load_json<T: serde::de::DeserializeOwned>(
    snapshot: &mut Snapshotter,
    hash: &str,
) -> Result<T, StateError> {
    let bytes = snapshot.load_bytes(hash)?;
    serde_json::from_slice(&bytes)
        .map_err(|err| StateError::Invalid(format!("the stored object {hash}: {err}")))
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
pub fn list<P: DeserializeOwned>(
    dir: &SessionDir,
) -> Result<Vec<(PathBuf, Manifest<P>)>, StateError> {
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
    use crate::state::snapshot::Entry;
    use serde_json::{Value, json};

    fn load_manifest(path: &Path) -> Result<Manifest<Value>, StateError> {
        super::load_manifest(path)
    }

    /// A session folder and a work dir in a temp folder, and a
    /// checkpointer over them.
    struct Fixture {
        _root: tempfile::TempDir,
        work: PathBuf,
        dir: SessionDir,
        checkpointer: Checkpointer,
    }

    impl Fixture {
        fn new() -> Self {
            let root = tempfile::tempdir().unwrap();
            let work = root.path().join("work");
            std::fs::create_dir_all(&work).unwrap();
            let dir = SessionDir::new(&root.path().join("state"), "s");
            dir.create().unwrap();
            let checkpointer = Checkpointer::new(dir.clone(), &work, 1024);
            Fixture {
                _root: root,
                work,
                dir,
                checkpointer,
            }
        }

        fn save(&mut self, conversation: &[Message], unchanged: usize, iteration: u32) -> PathBuf {
            let session = json!({"mode": "normal", "model_calls": iteration});
            let state = Checkpoint {
                session_id: "s",
                iteration,
                work_dir: &self.work,
                model_alias: "m",
                session: &session,
                last_seq: 0,
                conversation,
                unchanged_messages: unchanged,
            };
            self.checkpointer.save(&state).unwrap().0
        }

        fn conversation_at(&mut self, path: &Path) -> Vec<Message> {
            let manifest = load_manifest(path).unwrap();
            load_conversation(self.checkpointer.snapshotter(), &manifest).unwrap()
        }

        fn objects(&self) -> usize {
            crate::state::pack::Pack::new(&self.dir.objects().join("pack"))
                .count()
                .unwrap()
        }
    }

    fn user(text: String) -> Message {
        Message::User {
            text,
            images: Vec::new(),
        }
    }

    #[test]
    fn a_longer_conversation_stores_only_its_new_messages() {
        let mut fixture = Fixture::new();
        let mut conversation: Vec<Message> = (0..50)
            .map(|n| user(format!("message {n} {}", "x".repeat(1000))))
            .collect();
        fixture.save(&conversation, 0, 0);
        let after_first = fixture.objects();
        conversation.push(user("one more".into()));
        let path = fixture.save(&conversation, 50, 1);
        // The new message and the new list; the tree is unchanged.
        assert_eq!(fixture.objects(), after_first + 2);
        assert_eq!(fixture.conversation_at(&path), conversation);

        // The prefix the session vouches for is taken from the previous
        // save, not serialised again: a change it does not report is not
        // seen...
        let original = conversation[0].clone();
        conversation[0] = user("rewritten".into());
        let path = fixture.save(&conversation, 51, 2);
        assert_eq!(fixture.conversation_at(&path)[0], original);
        // ...and an edit it reports (nothing unchanged) is.
        let path = fixture.save(&conversation, 0, 3);
        assert_eq!(fixture.conversation_at(&path), conversation);
        assert!(
            fixture
                .checkpointer
                .wait_durable(std::time::Duration::from_secs(30))
        );
    }

    #[test]
    fn conversations_of_several_chunks_round_trip_through_appends_and_edits() {
        let mut fixture = Fixture::new();
        let mut conversation: Vec<Message> = Vec::new();
        let mut saved = 0;
        // Crossing chunk boundaries one message and several at a time.
        for (iteration, added) in [1usize, 63, 1, 70, 64, 2].into_iter().enumerate() {
            for _ in 0..added {
                conversation.push(user(format!("message {}", conversation.len())));
            }
            let path = fixture.save(&conversation, saved, iteration as u32);
            saved = conversation.len();
            let manifest = load_manifest(&path).unwrap();
            let index: ConversationIndex =
                load_json(fixture.checkpointer.snapshotter(), &manifest.conversation).unwrap();
            assert_eq!(index.chunks.len(), conversation.len() / CHUNK_MESSAGES);
            assert_eq!(index.tail.len(), conversation.len() % CHUNK_MESSAGES);
            assert_eq!(fixture.conversation_at(&path), conversation);
        }
        // An edit inside the first chunk (compaction, say).
        conversation.drain(3..100);
        let path = fixture.save(&conversation, 0, 10);
        assert_eq!(fixture.conversation_at(&path), conversation);
    }

    #[test]
    fn format_2_checkpoints_with_a_flat_list_still_load() {
        let mut fixture = Fixture::new();
        let conversation = vec![user("a".into()), user("b".into())];
        let path = fixture.save(&conversation, 0, 0);
        let mut manifest = load_manifest(&path).unwrap();
        // What format 2 wrote: one file per object, and one list of every
        // message's hash.
        let objects = fixture.dir.objects();
        let loose = |json: Vec<u8>| {
            let hash = hash_bytes(&json);
            let folder = objects.join(&hash[..2]);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join(&hash[2..]), &json).unwrap();
            hash
        };
        let hashes: Vec<String> = conversation
            .iter()
            .map(|message| loose(serde_json::to_vec(message).unwrap()))
            .collect();
        manifest.format = 2;
        manifest.conversation = loose(serde_json::to_vec(&hashes).unwrap());
        std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();
        assert_eq!(fixture.conversation_at(&path), conversation);
        manifest.format = 1;
        std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();
        let err = load_manifest(&path).unwrap_err().to_string();
        assert!(err.contains("has checkpoint format 1"), "{err}");
    }

    #[test]
    fn format_3_trees_without_folders_still_restore_and_are_stored_again() {
        let mut fixture = Fixture::new();
        std::fs::create_dir_all(fixture.work.join("empty")).unwrap();
        std::fs::create_dir_all(fixture.work.join("src")).unwrap();
        std::fs::write(fixture.work.join("src/a"), "a").unwrap();
        let path = fixture.save(&[], 0, 0);
        let mut manifest = load_manifest(&path).unwrap();
        let tree = load_tree(fixture.checkpointer.snapshotter(), &manifest).unwrap();
        assert!(tree.folders);
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            let meta = std::fs::metadata(fixture.work.join("empty")).unwrap();
            meta.permissions().mode() & 0o7777
        };
        assert_eq!(tree.entries["empty"], Entry::Dir { mode });
        // What format 3 wrote: files and links only.
        let files: std::collections::BTreeMap<_, _> = tree
            .entries
            .into_iter()
            .filter(|(_, entry)| !matches!(entry, Entry::Dir { .. }))
            .collect();
        manifest.format = 3;
        manifest.tree = store_json(fixture.checkpointer.snapshotter(), &files).unwrap();
        std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();

        let manifest = load_manifest(&path).unwrap();
        let old = load_tree(fixture.checkpointer.snapshotter(), &manifest).unwrap();
        assert!(!old.folders);
        assert_eq!(old.entries, files);
        std::fs::write(fixture.work.join("src/a"), "changed").unwrap();
        std::fs::create_dir_all(fixture.work.join("made")).unwrap();
        let changes = fixture.checkpointer.restore_files(&manifest).unwrap();
        assert_eq!(changes.modified, ["src/a"]);
        assert!(changes.created.is_empty() && changes.deleted.is_empty());
        assert!(fixture.work.join("made").is_dir(), "folders left alone");

        // Nothing changed since, yet the next checkpoint stores a tree
        // with the folders instead of naming the old one.
        let path = fixture.save(&[], 0, 1);
        let manifest = load_manifest(&path).unwrap();
        assert_eq!(manifest.files_changed, 0);
        assert_eq!(manifest.format, FORMAT_VERSION);
        let tree = load_tree(fixture.checkpointer.snapshotter(), &manifest).unwrap();
        assert!(tree.folders && tree.entries.contains_key("made"));
    }

    #[test]
    fn only_an_iteration_that_may_have_changed_the_work_dir_scans_it() {
        let mut fixture = Fixture::new();
        std::fs::create_dir_all(fixture.work.join("src")).unwrap();
        std::fs::write(fixture.work.join("src/a"), "a").unwrap();
        // The first checkpoint scans whatever it is told.
        let first = load_manifest(&fixture.save(&[], 0, 0)).unwrap();
        std::fs::write(fixture.work.join("src/a"), "changed behind its back").unwrap();

        // Nothing the session ran can have changed it: the same tree,
        // and the change is not seen (by design).
        let skipped = load_manifest(&fixture.save(&[], 0, 1)).unwrap();
        assert_eq!(
            (skipped.tree.as_str(), skipped.files_changed),
            (first.tree.as_str(), 0)
        );

        // A write elsewhere: only the folders on its way are listed again.
        std::fs::write(fixture.work.join("b"), "b").unwrap();
        fixture
            .checkpointer
            .touched(Touched::Files(["b".to_owned()].into()));
        let focused = load_manifest(&fixture.save(&[], 0, 2)).unwrap();
        assert_eq!(focused.files_changed, 1);

        // A command: where anything changed (src/a, behind its back).
        fixture.checkpointer.touched(Touched::Anything);
        let scanned = load_manifest(&fixture.save(&[], 0, 3)).unwrap();
        assert_eq!(scanned.files_changed, 1);
        let tree = load_tree(fixture.checkpointer.snapshotter(), &scanned).unwrap();
        assert!(matches!(
            &tree.entries["src/a"],
            Entry::File { size: 23, .. }
        ));

        // After a restore, the next checkpoint scans and counts against
        // what was restored, told nothing or not.
        std::fs::write(fixture.work.join("b"), "after").unwrap();
        fixture.checkpointer.restore_files(&first).unwrap();
        assert!(!fixture.work.join("b").exists());
        std::fs::write(fixture.work.join("c"), "c").unwrap();
        let after = load_manifest(&fixture.save(&[], 0, 4)).unwrap();
        assert_eq!(after.files_changed, 1);
        assert_ne!(after.tree, first.tree);
    }

    #[test]
    fn trees_of_format_5_and_of_format_4_restore_and_roll_back() {
        let mut fixture = Fixture::new();
        std::fs::create_dir_all(fixture.work.join("src/empty")).unwrap();
        std::fs::write(fixture.work.join("src/a"), "a").unwrap();
        std::os::unix::fs::symlink("src/a", fixture.work.join("link")).unwrap();
        let manifest = load_manifest(&fixture.save(&[], 0, 0)).unwrap();
        assert_eq!(manifest.format, 5);
        let folders = manifest.tree.clone();
        let tree = load_tree(fixture.checkpointer.snapshotter(), &manifest).unwrap();
        assert_eq!(
            tree.entries.keys().collect::<Vec<_>>(),
            ["link", "src", "src/a", "src/empty"]
        );
        // What format 4 stored for the same work dir: one map of paths.
        let mut flat = manifest.clone();
        flat.format = 4;
        flat.tree = store_json(fixture.checkpointer.snapshotter(), &tree.entries).unwrap();
        let flat_path = fixture.dir.checkpoints().join("format-4.json");
        std::fs::write(&flat_path, serde_json::to_vec(&flat).unwrap()).unwrap();
        let flat = load_manifest(&flat_path).unwrap();
        assert_eq!(
            load_tree(fixture.checkpointer.snapshotter(), &flat).unwrap(),
            tree
        );

        for manifest in [&manifest, &flat] {
            std::fs::write(fixture.work.join("src/a"), "changed").unwrap();
            std::fs::remove_dir(fixture.work.join("src/empty")).unwrap();
            std::fs::write(fixture.work.join("new"), "new").unwrap();
            let changes = fixture.checkpointer.restore_files(manifest).unwrap();
            assert_eq!(
                changes.count(),
                3,
                "format {}: {changes:?}",
                manifest.format
            );
            assert_eq!(
                std::fs::read_to_string(fixture.work.join("src/a")).unwrap(),
                "a"
            );
            assert!(fixture.work.join("src/empty").is_dir());
            assert!(!fixture.work.join("new").exists());
            // The next checkpoint is of the current format, the same tree.
            let next = load_manifest(&fixture.save(&[], 0, 1)).unwrap();
            assert_eq!((next.format, next.files_changed), (FORMAT_VERSION, 0));
            assert_eq!(next.tree, folders);
        }
    }

    #[test]
    fn after_a_scan_that_failed_the_changes_are_counted_against_the_stored_tree() {
        let mut fixture = Fixture::new();
        for name in ["a", "b", "c"] {
            std::fs::write(fixture.work.join(name), name).unwrap();
        }
        fixture.save(&[], 0, 0);
        fixture.checkpointer.snapshot.forget_last_scan();
        std::fs::write(fixture.work.join("d"), "d").unwrap();
        fixture
            .checkpointer
            .touched(Touched::Files(["d".to_owned()].into()));
        let manifest = load_manifest(&fixture.save(&[], 0, 1)).unwrap();
        assert_eq!(manifest.files_changed, 1);
    }
}

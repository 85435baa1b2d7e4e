//! The work dir's tree as checkpoints store it since format 5: one object
//! per folder, a JSON map from each name in it to its entry
//!
//! ```text
//! {"a.txt": {"kind": "file", "hash": "<blob>", "mode": 420, "size": 12},
//!  "link":  {"kind": "link", "target": "a.txt"},
//!  "src":   {"kind": "dir", "mode": 493, "tree": "<folder object>"}}
//! ```
//!
//! so a folder names what it holds by the hash of its object, as git's
//! trees do. A change stores the objects on the path from the work dir
//! to what changed and nothing else; an unchanged folder, however big,
//! is the same object as before. The manifest's `tree` names the work
//! dir's own object (its mode is not kept, as in the flat trees of
//! formats 2 to 4).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Entry, Snapshotter, Tree};
use crate::state::StateError;

/// One entry of a stored folder object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Node<S = String> {
    File { hash: S, mode: u32, size: u64 },
    Link { target: S },
    Dir { mode: u32, tree: S },
}

/// A folder object as read back.
pub type FolderObject = BTreeMap<String, Node>;

/// The object of a folder whose entries (sorted by name, as a JSON map
/// from the scan keeps them) are `entries`; returns its bytes.
pub fn folder_json<'a>(
    entries: impl Iterator<Item = (&'a str, Node<&'a str>)>,
) -> Result<Vec<u8>, StateError> {
    struct Map<I>(std::cell::Cell<Option<I>>);
    impl<'a, I: Iterator<Item = (&'a str, Node<&'a str>)>> Serialize for Map<I> {
        fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            serializer.collect_map(self.0.take().into_iter().flatten())
        }
    }
    serde_json::to_vec(&Map(std::cell::Cell::new(Some(entries))))
        .map_err(|err| StateError::Invalid(err.to_string()))
}

/// The tree whose root folder object is `root`, read back into the flat
/// form restores and comparisons use. Every name is checked: one that
/// is not a single path component comes from a damaged (or forged)
/// checkpoint.
pub fn load(snapshot: &mut Snapshotter, root: &str) -> Result<Tree, StateError> {
    let mut tree = Tree::new();
    // Depth first without recursion: a deep tree cannot overflow the
    // stack.
    let mut pending = vec![(String::new(), root.to_owned())];
    while let Some((prefix, hash)) = pending.pop() {
        let bytes = snapshot.load_bytes(&hash)?;
        let folder: FolderObject = serde_json::from_slice(&bytes).map_err(|err| {
            StateError::Invalid(format!("the stored folder object {hash}: {err}"))
        })?;
        for (name, node) in folder {
            check_name(&name)?;
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            let entry = match node {
                Node::File { hash, mode, size } => Entry::File { hash, mode, size },
                Node::Link { target } => Entry::Link { target },
                Node::Dir { mode, tree } => {
                    pending.push((path.clone(), tree));
                    Entry::Dir { mode }
                }
            };
            tree.entries.insert(path, entry);
        }
    }
    Ok(tree)
}

fn check_name(name: &str) -> Result<(), StateError> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
        return Err(StateError::Invalid(format!(
            "a damaged checkpoint: {name:?} is not a name in a folder"
        )));
    }
    Ok(())
}

//! The tree's symbols: every file the search tools would look at, with
//! the tags of those in a known language, from the cache where the same
//! content was parsed before and parsed on every core otherwise.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use ignore::WalkState;
use sha2::Digest;

use super::cache::{Cache, Key};
use super::langs::Lang;
use super::tags::{self, MAX_PARSED_BYTES, Tag};
use crate::tools::search::SearchError;
use crate::tools::search::walk::Walk;

/// Files looked at at most; a larger tree is mapped by its first ones in
/// the walk's order, and the map says so.
pub const MAX_FILES: usize = 100_000;
/// Bumped when the tags of the same content would come out different.
const TAGS_VERSION: &str = "1";

/// One file of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSymbols {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub tags: Vec<Tag>,
}

/// What a scan found, and how.
#[derive(Debug, Default)]
pub struct Scan {
    /// Sorted by path.
    pub files: Vec<FileSymbols>,
    /// Files parsed now.
    pub parsed: usize,
    /// Files whose tags came from the cache.
    pub cached: usize,
    /// The walk stopped at [`MAX_FILES`] or was stopped.
    pub partial: bool,
}

/// A file found by the walk: its content's key, if it is to be parsed.
struct Found {
    path: String,
    parse: Option<(Lang, Key)>,
}

/// Maps the tree at `root`. `stop` ends the walk early (cancel, timeout).
pub fn scan(root: &Path, cache: &mut Cache, stop: &AtomicBool) -> Result<Scan, SearchError> {
    let (mut found, partial) = walk(root, stop)?;
    found.sort_by(|a, b| a.path.cmp(&b.path));
    let mut scan = Scan {
        partial,
        ..Scan::default()
    };
    let mut missing = Vec::new();
    for (index, file) in found.iter().enumerate() {
        let mut tags = Vec::new();
        if let Some((_, key)) = &file.parse {
            match cache.get(key).and_then(|bytes| tags::decode(&bytes)) {
                Some(kept) => {
                    tags = kept;
                    scan.cached += 1;
                }
                None => missing.push(index),
            }
        }
        scan.files.push(FileSymbols {
            path: file.path.clone(),
            tags,
        });
    }
    let parsed = parse_all(root, &found, &missing, stop);
    scan.parsed = parsed.len();
    let mut entries = Vec::with_capacity(parsed.len());
    for (index, key, parsed_tags) in parsed {
        entries.push((key, tags::encode(&parsed_tags)));
        scan.files[index].tags = parsed_tags;
    }
    cache.put(&entries);
    Ok(scan)
}

/// The files under `root` (what `grep` would search), each with the key
/// of its content where its language is known; whether the walk stopped
/// short.
fn walk(root: &Path, stop: &AtomicBool) -> Result<(Vec<Found>, bool), SearchError> {
    let walk = Walk::new(root)?;
    let found = Mutex::new(Vec::new());
    let count = AtomicUsize::new(0);
    let capped = AtomicBool::new(false);
    walk.parallel().run(|| {
        let mut held = Handover {
            mine: Vec::new(),
            shared: &found,
        };
        let (walk, count, capped) = (&walk, &count, &capped);
        Box::new(move |entry| {
            if stop.load(Ordering::Relaxed) {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !walk.wants(&entry) {
                return WalkState::Continue;
            }
            if count.fetch_add(1, Ordering::Relaxed) >= MAX_FILES {
                capped.store(true, Ordering::Relaxed);
                return WalkState::Quit;
            }
            if let Some(file) = look_at(root, entry.path()) {
                held.mine.push(file);
            }
            WalkState::Continue
        })
    });
    let found = found.into_inner().unwrap_or_else(PoisonError::into_inner);
    let partial = capped.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed);
    Ok((found, partial))
}

/// What one walker thread found, handed over when the walk drops it.
struct Handover<'a> {
    mine: Vec<Found>,
    shared: &'a Mutex<Vec<Found>>,
}

impl Drop for Handover<'_> {
    fn drop(&mut self) {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.append(&mut self.mine);
    }
}

/// One file: its relative path, and its content's key if it is parsed.
fn look_at(root: &Path, path: &Path) -> Option<Found> {
    let relative = path.strip_prefix(root).ok()?;
    let relative = match relative.as_os_str().is_empty() {
        // The root itself is a file.
        true => path.file_name()?.to_str()?.to_owned(),
        false => relative.to_str()?.to_owned(),
    };
    let parse = Lang::of(&relative).and_then(|lang| {
        let bytes = read(path)?;
        Some((lang, key(lang, &bytes)))
    });
    Some(Found {
        path: relative,
        parse,
    })
}

/// A file's bytes, if it is small enough to parse.
fn read(path: &Path) -> Option<Vec<u8>> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_PARSED_BYTES as u64 {
        return None;
    }
    std::fs::read(path).ok()
}

fn key(lang: Lang, bytes: &[u8]) -> Key {
    let mut hasher = sha2::Sha256::new();
    hasher.update(TAGS_VERSION.as_bytes());
    hasher.update(b"\0");
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    hasher.update(b"\0");
    hasher.update(lang.id().as_bytes());
    hasher.update(b"\0");
    hasher.update(bytes);
    hasher.finalize().into()
}

/// Parses the files at `missing` on every core: by index, the key of
/// the content parsed (read again: it may have changed since the walk)
/// and its tags.
fn parse_all(
    root: &Path,
    found: &[Found],
    missing: &[usize],
    stop: &AtomicBool,
) -> Vec<(usize, Key, Vec<Tag>)> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(missing.len().max(1));
    let mut parsed: Vec<(usize, Key, Vec<Tag>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let Some(&index) = missing.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            break;
                        };
                        let file = &found[index];
                        let Some((lang, _)) = file.parse else {
                            continue;
                        };
                        let Some(bytes) = read(&root.join(&file.path)) else {
                            continue;
                        };
                        mine.push((index, key(lang, &bytes), tags::extract(lang, &bytes)));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_default())
            .collect()
    });
    parsed.sort_by_key(|(index, _, _)| *index);
    parsed
}

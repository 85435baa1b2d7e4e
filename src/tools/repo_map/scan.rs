//! The tree's symbols: every file the search tools would look at, with
//! the tags of those in a known language: by its stamp where the file is
//! as it was at an earlier scan (not read at all), else by its content's
//! hash from the cache, else parsed on every core.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use ignore::{DirEntry, WalkState};
use sha2::Digest;

use super::cache::{Cache, Key, Learnt, Scope};
use super::langs::Lang;
use super::stamp::{self, KnownFiles, Stamp};
use super::tags::{self, MAX_PARSED_BYTES, Tags};
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
    pub tags: Tags,
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
    /// Of those, the files not even read: their stamps held.
    pub unread: usize,
    /// The walk stopped at [`MAX_FILES`] or was stopped.
    pub partial: bool,
}

/// A file found by the walk, and what the walk learnt of its content.
struct Found {
    path: String,
    content: Content,
    /// The cache had a stamp of its path.
    known: bool,
}

enum Content {
    /// Not parsed: no known language, or too large.
    Listed,
    /// Its stamp held: the tags of its last scan.
    Unchanged(Tags),
    /// Read and hashed, with the stamp taken before the read.
    Hashed(Hashed),
}

#[derive(Clone, Copy)]
struct Hashed {
    lang: Lang,
    key: Key,
    stamp: Stamp,
}

/// Maps the tree at `root`. `stop` ends the walk early (cancel, timeout).
pub fn scan(root: &Path, cache: &mut Cache, stop: &AtomicBool) -> Result<Scan, SearchError> {
    scan_at(root, cache, stop, stamp::now_ns())
}

/// [`scan`], with the clock the stamps are judged by: when the scan
/// started, in ns since the epoch (the tests move it).
pub(super) fn scan_at(
    root: &Path,
    cache: &mut Cache,
    stop: &AtomicBool,
    seen_ns: i64,
) -> Result<Scan, SearchError> {
    let version = format!("{TAGS_VERSION}/{}", env!("CARGO_PKG_VERSION"));
    // A root that is no UTF-8 text has no stamps: its files are hashed.
    let stamped = root.to_str().is_some();
    let scope = Scope {
        root: root.to_str().unwrap_or(""),
        version: &version,
        seen_ns,
    };
    let known = match stamped {
        true => cache.known(&scope),
        false => KnownFiles::default(),
    };
    let (mut found, partial) = walk(root, &known, stop)?;
    // Each path once: a walk that follows no links meets no file twice.
    found.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let hits = found.iter().filter(|file| file.known).count();
    let (mut scan, mut learnt, missing) = assemble(found, cache);
    scan.partial = partial;
    let parsed = parse_all(root, &scan.files, &missing, stop);
    scan.parsed = parsed.len();
    for (place, key, parsed_tags) in parsed {
        learnt.tags.push((key, tags::encode(&parsed_tags)));
        let (index, walked) = missing[place];
        // The content parsed is the content the stamp was taken for only
        // if it hashes the same as at the walk.
        if walked.key == key {
            let path = scan.files[index].path.clone();
            learnt.stamps.push((path, walked.stamp, key));
        }
        scan.files[index].tags = parsed_tags;
    }
    if !partial && hits < known.files.len() {
        learnt.gone = gone(&known, &scan.files);
    }
    if !stamped {
        learnt.stamps.clear();
    }
    cache.put(&scope, &learnt);
    Ok(scan)
}

/// The files found, sorted, with the tags of the unchanged and of those
/// whose content is in the cache (looked up in one transaction); what is
/// learnt of them; the index of each still to parse, with its hash.
fn assemble(found: Vec<Found>, cache: &mut Cache) -> (Scan, Learnt, Vec<(usize, Hashed)>) {
    let keys: Vec<Key> = found
        .iter()
        .filter_map(|file| match &file.content {
            Content::Hashed(hashed) => Some(hashed.key),
            _ => None,
        })
        .collect();
    let mut kept = cache.get_many(&keys).into_iter();
    let mut scan = Scan::default();
    let mut learnt = Learnt::default();
    let mut missing = Vec::new();
    scan.files.reserve(found.len());
    for (index, file) in found.into_iter().enumerate() {
        let tags = match file.content {
            Content::Listed => Tags::default(),
            Content::Unchanged(tags) => {
                scan.cached += 1;
                scan.unread += 1;
                tags
            }
            Content::Hashed(hashed) => {
                let decoded = kept.next().flatten().and_then(|bytes| tags::decode(&bytes));
                if let Some(tags) = decoded {
                    scan.cached += 1;
                    learnt
                        .stamps
                        .push((file.path.clone(), hashed.stamp, hashed.key));
                    tags
                } else {
                    missing.push((index, hashed));
                    Tags::default()
                }
            }
        };
        scan.files.push(FileSymbols {
            path: file.path,
            tags,
        });
    }
    (scan, learnt, missing)
}

/// The paths the cache knew that the walk did not find (`files` sorted by
/// path), in order.
fn gone(known: &KnownFiles, files: &[FileSymbols]) -> Vec<String> {
    let mut gone: Vec<String> = known
        .files
        .keys()
        .filter(|path| {
            files
                .binary_search_by(|file| file.path.as_str().cmp(path.as_str()))
                .is_err()
        })
        .cloned()
        .collect();
    gone.sort();
    gone
}

/// The files under `root` (what `grep` would search), each with its tags
/// where its stamp holds or else the key of its content, where its
/// language is known; whether the walk stopped short.
fn walk(
    root: &Path,
    known: &KnownFiles,
    stop: &AtomicBool,
) -> Result<(Vec<Found>, bool), SearchError> {
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
            if let Some(file) = look_at(root, &entry, known) {
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

/// One file: its relative path, and what its content is known by.
fn look_at(root: &Path, entry: &DirEntry, known: &KnownFiles) -> Option<Found> {
    let path = entry.path();
    let relative = path.strip_prefix(root).ok()?;
    let relative = match relative.as_os_str().is_empty() {
        // The root itself is a file.
        true => path.file_name()?.to_str()?.to_owned(),
        false => relative.to_str()?.to_owned(),
    };
    let kept = known.files.get(&relative);
    let content = Lang::of(&relative)
        .and_then(|lang| {
            let meta = entry.metadata().ok()?;
            if meta.len() > MAX_PARSED_BYTES as u64 {
                return None;
            }
            let stamp = Stamp::of(&meta);
            let unchanged = kept.and_then(|kept| known.unchanged(kept, &stamp));
            if let Some(tags) = unchanged.and_then(tags::decode) {
                return Some(Content::Unchanged(tags));
            }
            let bytes = std::fs::read(path)
                .ok()
                .filter(|bytes| bytes.len() <= MAX_PARSED_BYTES)?;
            Some(Content::Hashed(Hashed {
                lang,
                key: key(lang, &bytes),
                stamp,
            }))
        })
        .unwrap_or(Content::Listed);
    Some(Found {
        path: relative,
        content,
        known: kept.is_some(),
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

/// Parses the files of `missing` (index in `files`, what the walk
/// hashed) on every core: by place in `missing`, the key of the content
/// parsed (read again: it may have changed since the walk) and its tags.
fn parse_all(
    root: &Path,
    files: &[FileSymbols],
    missing: &[(usize, Hashed)],
    stop: &AtomicBool,
) -> Vec<(usize, Key, Tags)> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(missing.len().max(1));
    let mut parsed: Vec<(usize, Key, Tags)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let place = next.fetch_add(1, Ordering::Relaxed);
                        let Some((index, walked)) = missing.get(place) else {
                            break;
                        };
                        let lang = walked.lang;
                        let Some(bytes) = read(&root.join(&files[*index].path)) else {
                            continue;
                        };
                        mine.push((place, key(lang, &bytes), tags::extract(lang, &bytes)));
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
    parsed.sort_by_key(|(place, _, _)| *place);
    parsed
}

//! One parallel walk for every search: each walker thread hands the files
//! it is given to its own visitor and keeps what that visitor finds without
//! a lock; the threads' findings are merged and sorted once, at the end.
//! `grep` and `glob` are two visitors over it; the next search is a third.

use std::ops::AddAssign;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkState};

use super::Problems;
use super::walk::Walk;

/// What a search keeps from one file; the answer lists them in path order.
pub(super) trait Found: Send {
    fn path(&self) -> &Path;
    /// How much of the quota it fills: its matching lines for `grep`, one
    /// for a path of `glob`.
    fn weight(&self) -> usize;
}

impl Found for PathBuf {
    fn path(&self) -> &Path {
        self
    }

    fn weight(&self) -> usize {
        1
    }
}

/// What a search does with each file of the walk, on one walker thread.
pub(super) trait Visit: Send {
    type Item: Found;
    /// Counts kept beside the items (files searched, matches in all),
    /// summed over the threads once the walk is over.
    type Tally: Default + AddAssign + Send;

    fn file(&mut self, entry: DirEntry, shelf: &mut Shelf<Self::Item, Self::Tally>);
}

/// What one walker thread found.
pub(super) struct Shelf<I, T> {
    items: Vec<I>,
    /// The weight of `items`.
    held: usize,
    /// Set once this thread holds `quota` from files up to this path: a
    /// file past it cannot be among the first `quota` of the whole search,
    /// so it is only counted.
    past: Option<PathBuf>,
    quota: usize,
    pub(super) tally: T,
    pub(super) problems: Problems,
}

impl<I: Found, T: Default> Shelf<I, T> {
    fn new(quota: usize) -> Shelf<I, T> {
        Shelf {
            items: Vec::new(),
            held: 0,
            past: None,
            quota,
            tally: T::default(),
            problems: Problems::default(),
        }
    }

    /// Whether a file at `path` sorts after all this thread may show: it
    /// needs only counting.
    pub(super) fn is_past(&self, path: &Path) -> bool {
        self.past
            .as_deref()
            .is_some_and(|past| path_order(path, past).is_gt())
    }

    /// Keeps `item`. Once twice the quota is held, drops the items past
    /// the first `quota`, so memory stays bounded on a pattern that
    /// matches everywhere while the sort is paid only now and then.
    pub(super) fn keep(&mut self, item: I) {
        self.held += item.weight();
        self.items.push(item);
        if self.held <= self.quota.saturating_mul(2) {
            return;
        }
        sort_by_path(&mut self.items, I::path);
        self.items.truncate(holding(&self.items, self.quota));
        self.held = self.items.iter().map(I::weight).sum();
        self.past = self.items.last().map(|item| item.path().to_path_buf());
    }
}

/// The merged findings of all threads.
pub(super) struct Collected<I, T> {
    /// Sorted by path: the first items that hold the quota between them,
    /// or all of them if they hold less.
    pub(super) items: Vec<I>,
    pub(super) tally: T,
    pub(super) problems: Problems,
}

/// Walks `walk` on every core, handing each file to a visitor that
/// `visitor` makes for each thread, and merges what they kept: the first
/// items in path order that hold `quota` (at least one). Setting `stop`
/// ends the walk early; what was found by then is returned.
pub(super) fn collect<V, F>(
    walk: &Walk<'_>,
    quota: usize,
    stop: &AtomicBool,
    visitor: F,
) -> Collected<V::Item, V::Tally>
where
    V: Visit,
    F: Fn() -> V + Sync,
{
    let shared = Shared {
        walk,
        quota: quota.max(1),
        stop,
        visitor,
        done: Mutex::new(Vec::new()),
    };
    walk.parallel().visit(&mut Threads(&shared));

    let shelves = shared
        .done
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let mut collected = Collected {
        items: Vec::new(),
        tally: V::Tally::default(),
        problems: Problems::default(),
    };
    for shelf in shelves {
        collected.tally += shelf.tally;
        collected.problems.merge(shelf.problems);
        collected.items.extend(shelf.items);
    }
    sort_by_path(&mut collected.items, V::Item::path);
    let keep = holding(&collected.items, shared.quota);
    collected.items.truncate(keep);
    collected
}

struct Shared<'a, V: Visit, F> {
    walk: &'a Walk<'a>,
    quota: usize,
    stop: &'a AtomicBool,
    visitor: F,
    done: Mutex<Vec<Shelf<V::Item, V::Tally>>>,
}

struct Threads<'s, V: Visit, F>(&'s Shared<'s, V, F>);

impl<'s, V, F> ParallelVisitorBuilder<'s> for Threads<'s, V, F>
where
    V: Visit + 's,
    F: Fn() -> V + Sync,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        let shared = self.0;
        Box::new(Thread {
            shared,
            visitor: (shared.visitor)(),
            shelf: Shelf::new(shared.quota),
        })
    }
}

struct Thread<'s, V: Visit, F> {
    shared: &'s Shared<'s, V, F>,
    visitor: V,
    shelf: Shelf<V::Item, V::Tally>,
}

impl<V: Visit, F: Sync> ParallelVisitor for Thread<'_, V, F> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.shared.stop.load(Ordering::Relaxed) {
            return WalkState::Quit;
        }
        match entry {
            Ok(entry) if self.shared.walk.wants(&entry) => {
                self.visitor.file(entry, &mut self.shelf);
            }
            Ok(_) => {}
            Err(err) => self.shelf.problems.note(|| err.to_string()),
        }
        WalkState::Continue
    }
}

/// A thread's visitor is dropped when its thread is done: that is when its
/// shelf joins the others, the one lock a thread takes.
impl<V: Visit, F> Drop for Thread<'_, V, F> {
    fn drop(&mut self) {
        let shelf = std::mem::replace(&mut self.shelf, Shelf::new(self.shared.quota));
        self.shared
            .done
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(shelf);
    }
}

/// How many items from the start hold `quota` between them (all of them
/// if they hold less).
pub(super) fn holding<I: Found>(items: &[I], quota: usize) -> usize {
    let mut held = 0;
    for (index, item) in items.iter().enumerate() {
        held += item.weight();
        if held >= quota {
            return index + 1;
        }
    }
    items.len()
}

/// The order of `Path`'s `Ord` (component by component) for the clean
/// paths a walk yields, as a byte comparison: `/` ranks below every other
/// byte, so `a/b` comes before `a-b` as it does by components.
fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    let a = a.as_os_str().as_encoded_bytes().iter();
    let b = b.as_os_str().as_encoded_bytes().iter();
    a.map(|&byte| key_byte(byte))
        .cmp(b.map(|&byte| key_byte(byte)))
}

/// Sorts in [`path_order`]. `Path::cmp` parses components on every
/// comparison, which made the sort cost as much as the whole walk on a
/// large tree; a key of bytes, made once per path, compares with memcmp.
fn sort_by_path<T>(items: &mut [T], path: impl Fn(&T) -> &Path) {
    items.sort_by_cached_key(|item| sort_key(path(item)));
}

/// The path's bytes with `/` as 0, which no file name holds.
fn sort_key(path: &Path) -> Vec<u8> {
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .map(|&byte| key_byte(byte))
        .collect()
}

fn key_byte(byte: u8) -> u8 {
    if byte == b'/' { 0 } else { byte }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_order_is_the_order_of_components() {
        let names = [
            "/r/a", "/r/a/b", "/r/a-b", "/r/a.b", "/r/a/b/c", "/r/ab", "/r/a0", "/r/A", "/r/a/b-c",
            "/r/a/b/d", "/r/a/bc", "/r/é", "/r/z", "/r", "/r/a b",
        ];
        for a in names {
            for b in names {
                let (a, b) = (Path::new(a), Path::new(b));
                assert_eq!(path_order(a, b), a.cmp(b), "{a:?} {b:?}");
                assert_eq!(sort_key(a).cmp(&sort_key(b)), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }
}

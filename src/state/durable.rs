//! Making checkpoints durable without making the loop wait for the disk.
//!
//! A checkpoint is written (objects, then its manifest through a rename)
//! before it is announced, so it survives any death of the agent process:
//! the written pages belong to the kernel. Surviving a kernel crash or a
//! power cut also needs them on the disk, and a sync costs a millisecond or
//! more (a `syncfs` of a big root file system took 2.5 ms of kernel CPU
//! here), more than the whole rest of an iteration, and can stall for
//! seconds when the user's own tools have just written gigabytes to the
//! same file system. So a thread of its own syncs the state's file system
//! after checkpoints, at most once per [`SYNC_INTERVAL`], one sync covering
//! every checkpoint written since the previous one; the session waits for
//! it only where it matters, before `session-end`. A checkpoint is thus on
//! the disk within about `SYNC_INTERVAL` of its announcement. One caught
//! by a power cut before its sync reads back as damaged (every object is
//! checked against its hash), never as wrong files.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The least time between two syncs: how far, at most, the disk lags
/// behind the checkpoints announced (plus the sync's own time).
pub const SYNC_INTERVAL: Duration = Duration::from_millis(100);

/// Syncs one folder's file system in the background; see the module docs.
pub struct Syncer {
    folder: PathBuf,
    shared: Option<Arc<Shared>>,
}

#[derive(Default)]
struct Shared {
    work: Mutex<Work>,
    changed: Condvar,
}

#[derive(Default)]
struct Work {
    /// Syncs asked for, and the number of those a finished sync covers.
    requested: u64,
    covered: u64,
    /// Somebody waits: sync now, without waiting out the interval.
    urgent: bool,
    /// Syncs run so far.
    syncs: u64,
}

impl Syncer {
    pub fn new(folder: PathBuf) -> Self {
        Syncer {
            folder,
            shared: None,
        }
    }

    /// After a checkpoint: asks for everything written so far to reach
    /// the disk soon. The thread starts on the first call, so a session
    /// that never checkpoints never pays for it.
    pub fn checkpoint_written(&mut self) {
        let shared = match &self.shared {
            Some(shared) => shared.clone(),
            None => match self.start() {
                Some(shared) => shared,
                // No thread to be had: sync here.
                None => {
                    sync_file_system(&self.folder);
                    return;
                }
            },
        };
        let mut work = lock(&shared.work);
        work.requested += 1;
        shared.changed.notify_all();
    }

    /// Waits up to `limit` for every requested sync to finish; says
    /// whether they did.
    pub fn wait_synced(&self, limit: Duration) -> bool {
        let Some(shared) = &self.shared else {
            return true;
        };
        let deadline = Instant::now() + limit;
        let mut work = lock(&shared.work);
        work.urgent = true;
        shared.changed.notify_all();
        while work.covered < work.requested {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            work = shared
                .changed
                .wait_timeout(work, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }

    fn start(&mut self) -> Option<Arc<Shared>> {
        let shared = Arc::new(Shared::default());
        let worker = shared.clone();
        let folder = self.folder.clone();
        std::thread::Builder::new()
            .name("checkpoint-sync".to_owned())
            .spawn(move || run(&worker, &folder))
            .ok()?;
        self.shared = Some(shared.clone());
        Some(shared)
    }
}

/// The thread lives as long as the process: it sleeps between requests,
/// and a process that exits mid-sync loses nothing it promised (the
/// session waits before its last event).
fn run(shared: &Shared, folder: &Path) {
    let mut last_sync: Option<Instant> = None;
    loop {
        let target = next_sync(shared, last_sync);
        last_sync = Some(Instant::now());
        sync_file_system(folder);
        let mut work = lock(&shared.work);
        work.covered = target;
        work.syncs += 1;
        if work.covered == work.requested {
            work.urgent = false;
        }
        shared.changed.notify_all();
    }
}

/// Waits until a sync is asked for and due (or somebody waits for it);
/// returns the requests it will cover.
fn next_sync(shared: &Shared, last_sync: Option<Instant>) -> u64 {
    let mut work = lock(&shared.work);
    loop {
        let pending = work.covered < work.requested;
        let now = Instant::now();
        let due = last_sync.map_or(now, |at| at + SYNC_INTERVAL);
        if pending && (work.urgent || now >= due) {
            return work.requested;
        }
        work = if pending {
            shared
                .changed
                .wait_timeout(work, due - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0
        } else {
            shared
                .changed
                .wait(work)
                .unwrap_or_else(PoisonError::into_inner)
        };
    }
}

/// One `syncfs` of the file system holding `folder`: cheaper than an
/// fsync per object, and it covers the folder entries the renames made.
fn sync_file_system(folder: &Path) {
    if let Ok(handle) = std::fs::File::open(folder) {
        let _ = rustix::fs::syncfs(&handle);
    }
}

fn lock(work: &Mutex<Work>) -> std::sync::MutexGuard<'_, Work> {
    work.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syncer(folder: &Path) -> Syncer {
        Syncer::new(folder.to_path_buf())
    }

    #[test]
    fn wait_returns_once_every_request_is_covered() {
        let folder = tempfile::tempdir().unwrap();
        let mut syncer = syncer(folder.path());
        assert!(
            syncer.wait_synced(Duration::ZERO),
            "nothing asked, nothing to wait for"
        );
        for _ in 0..20 {
            syncer.checkpoint_written();
        }
        assert!(syncer.wait_synced(Duration::from_secs(30)));
        let shared = syncer.shared.as_ref().unwrap();
        assert_eq!(lock(&shared.work).covered, 20);
    }

    #[test]
    fn checkpoints_in_quick_succession_share_syncs() {
        let folder = tempfile::tempdir().unwrap();
        let mut syncer = syncer(folder.path());
        // 50 iterations of a millisecond each: well inside two intervals.
        let started = Instant::now();
        for _ in 0..50 {
            syncer.checkpoint_written();
            std::thread::sleep(Duration::from_millis(1));
        }
        let took = started.elapsed();
        assert!(syncer.wait_synced(Duration::from_secs(30)));
        let shared = syncer.shared.as_ref().unwrap();
        let work = lock(&shared.work);
        assert_eq!(work.covered, 50);
        // The first request, one per interval after it, and the wait's.
        let most = 2 + took.as_millis() as u64 / SYNC_INTERVAL.as_millis() as u64;
        assert!(
            work.syncs <= most,
            "{} syncs for 50 requests in {took:?}",
            work.syncs
        );
    }
}

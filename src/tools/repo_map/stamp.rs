//! When a file need not be read again: its stamp (size, times, inode,
//! device) is what it was when its content was hashed, and that content
//! was hashed long enough after the file last changed that a change in the
//! same tick of the file system's clock cannot hide behind the same stamp
//! (git's "racy" entries).

use std::collections::HashMap;
use std::fs::Metadata;
use std::ops::Range;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A stamp is trusted only when the file's last change (mtime or ctime)
/// is this much older than the scan that hashed it. It covers the coarse
/// clock the kernel stamps files with (a tick behind), file systems that
/// round times to seconds (FAT: two), and some clock skew of a network
/// file system's server. A file changed within it is read once more on
/// the next scan, which costs little.
pub const RACY_MARGIN: Duration = Duration::from_secs(5);

/// A file's stamp: any part different, the file is read again. The
/// ctime is in it since tools that keep an mtime (`cp -p`, `rsync -t`,
/// `touch -d`) cannot set it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub inode: u64,
    pub dev: u64,
}

impl Stamp {
    pub fn of(meta: &Metadata) -> Stamp {
        let ns = |secs: i64, nanos: i64| secs.saturating_mul(1_000_000_000).saturating_add(nanos);
        Stamp {
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
            dev: meta.dev(),
        }
    }
}

/// What the cache holds of one path: its stamp when it was hashed, when
/// that scan started (ns since the epoch), and where its content's tags
/// are in [`KnownFiles::tags`] (`None`: not in the cache any more).
#[derive(Debug, Clone)]
pub struct Known {
    pub stamp: Stamp,
    pub seen_ns: i64,
    pub tags: Option<Range<usize>>,
}

/// What the cache holds of the paths under one root, by path; their tags
/// in one buffer rather than one allocation each.
#[derive(Debug, Default)]
pub struct KnownFiles {
    pub files: HashMap<String, Known>,
    pub tags: Vec<u8>,
}

impl KnownFiles {
    /// The encoded tags of `known` (one of [`KnownFiles::files`]) if it
    /// holds for the file stamped `now`.
    pub fn unchanged(&self, known: &Known, now: &Stamp) -> Option<&[u8]> {
        match known.holds_for(now) {
            true => self.tags.get(known.tags.clone()?),
            false => None,
        }
    }
}

impl Known {
    /// Whether a file stamped `now` still has the content this was made
    /// of: the same stamp, and no change of the file within
    /// [`RACY_MARGIN`] of the scan that hashed it (a later change in the
    /// same clock tick would keep the stamp).
    pub fn holds_for(&self, now: &Stamp) -> bool {
        let margin = i64::try_from(RACY_MARGIN.as_nanos()).unwrap_or(i64::MAX);
        self.stamp == *now && now.mtime_ns.max(now.ctime_ns) < self.seen_ns.saturating_sub(margin)
    }
}

/// The wall clock in ns since the epoch, as file times are.
pub fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(stamp: Stamp, seen_ns: i64) -> Known {
        Known {
            stamp,
            seen_ns,
            tags: None,
        }
    }

    #[test]
    fn only_the_same_stamp_well_before_the_scan_holds() {
        let second = 1_000_000_000;
        let stamp = Stamp {
            size: 10,
            mtime_ns: 100 * second,
            ctime_ns: 100 * second,
            inode: 7,
            dev: 1,
        };
        let old_scan = known(stamp, 200 * second);
        assert!(old_scan.holds_for(&stamp));
        for other in [
            Stamp { size: 11, ..stamp },
            Stamp {
                mtime_ns: stamp.mtime_ns + 1,
                ..stamp
            },
            Stamp {
                ctime_ns: stamp.ctime_ns + 1,
                ..stamp
            },
            Stamp { inode: 8, ..stamp },
            Stamp { dev: 2, ..stamp },
        ] {
            assert!(!old_scan.holds_for(&other), "{other:?}");
        }
        // Hashed in the same second the file changed, or within the
        // margin after: a change right after the hash could keep the stamp.
        assert!(!known(stamp, 100 * second).holds_for(&stamp));
        assert!(!known(stamp, 104 * second).holds_for(&stamp));
        let late_ctime = Stamp {
            ctime_ns: 199 * second,
            ..stamp
        };
        assert!(!known(late_ctime, 200 * second).holds_for(&late_ctime));
        // A file time in the future (skewed clocks) is never trusted.
        assert!(!known(stamp, 50 * second).holds_for(&stamp));
    }
}

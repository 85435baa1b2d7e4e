//! Keeps the state folder bounded: sessions older than the retention are
//! removed, then the oldest ones until the total is under the ceiling. A
//! live session (its lock held) is never removed.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::{SessionDir, is_live};

pub const DEFAULT_RETENTION_DAYS: u64 = 14;
pub const DEFAULT_MAX_TOTAL_MB: u64 = 2048;
const DAYS: std::ops::RangeInclusive<u64> = 1..=3650;
const TOTAL_MB: std::ops::RangeInclusive<u64> = 16..=1_048_576;

/// The configured values (`[state]`), as given. Values out of range fall
/// back to the default (with a warning), never to "unlimited".
#[derive(Debug, Clone)]
pub struct RetentionConfig {
    pub retention_days: i64,
    pub max_total_mb: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub max_age: Duration,
    pub max_total_bytes: u64,
}

impl RetentionConfig {
    /// The bounded policy, and a warning per value that was out of range.
    pub fn policy(&self) -> (Retention, Vec<String>) {
        let mut warnings = Vec::new();
        let days = match u64::try_from(self.retention_days) {
            Ok(days) if DAYS.contains(&days) => days,
            _ => {
                warnings.push(format!(
                    "state.retention_days = {} is outside {}..={}; using {DEFAULT_RETENTION_DAYS}",
                    self.retention_days,
                    DAYS.start(),
                    DAYS.end()
                ));
                DEFAULT_RETENTION_DAYS
            }
        };
        let megabytes = match u64::try_from(self.max_total_mb) {
            Ok(mb) if TOTAL_MB.contains(&mb) => mb,
            _ => {
                warnings.push(format!(
                    "state.max_total_mb = {} is outside {}..={}; using {DEFAULT_MAX_TOTAL_MB}",
                    self.max_total_mb,
                    TOTAL_MB.start(),
                    TOTAL_MB.end()
                ));
                DEFAULT_MAX_TOTAL_MB
            }
        };
        (
            Retention {
                max_age: Duration::from_secs(days * 86_400),
                max_total_bytes: megabytes * 1024 * 1024,
            },
            warnings,
        )
    }
}

/// Removes what the policy says must go; returns the removed sessions.
pub fn prune(state_dir: &Path, keep: &str, policy: Retention) -> Vec<PathBuf> {
    let sessions = state_dir.join("sessions");
    let Ok(entries) = std::fs::read_dir(&sessions) else {
        return Vec::new();
    };
    let now = SystemTime::now();
    let mut candidates: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    let mut total = 0u64;
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let size = folder_size(&path);
        total += size;
        let live = is_live(&SessionDir { root: path.clone() });
        if live || entry.file_name() == keep {
            continue;
        }
        candidates.push((last_change(&path), size, path));
    }
    candidates.sort_by_key(|(changed, _, _)| *changed);
    let mut removed = Vec::new();
    for (changed, size, path) in candidates {
        let too_old = now
            .duration_since(changed)
            .is_ok_and(|age| age > policy.max_age);
        if (too_old || total > policy.max_total_bytes) && std::fs::remove_dir_all(&path).is_ok() {
            total = total.saturating_sub(size);
            removed.push(path);
        }
    }
    removed
}

fn last_change(session: &Path) -> SystemTime {
    ["journal.jsonl", "checkpoints", "lock"]
        .iter()
        .filter_map(|name| std::fs::metadata(session.join(name)).ok()?.modified().ok())
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

fn folder_size(path: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(meta) if meta.is_dir() => stack.push(entry.path()),
                Ok(meta) => total += meta.len(),
                Err(_) => {}
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_fall_back_to_defaults() {
        let (policy, warnings) = RetentionConfig {
            retention_days: 0,
            max_total_mb: -5,
        }
        .policy();
        assert_eq!(policy.max_age, Duration::from_secs(14 * 86_400));
        assert_eq!(policy.max_total_bytes, 2048 * 1024 * 1024);
        assert_eq!(warnings.len(), 2);
    }
}

//! The session's event journal: every event line, appended before it is
//! written to stdout, so `attach` can replay what a dead proxy missed.

use std::io::BufRead;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::StateError;

/// Opens the journal for appending (0600). Each event line is written
/// with a single `write`, so readers that tail the file see whole lines.
pub fn open(path: &Path) -> Result<std::fs::File, StateError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(|err| StateError::io(path, err))
}

/// The highest `_seq` in a journal (0 when there is none).
pub fn last_seq(path: &Path) -> u64 {
    let Ok(file) = std::fs::File::open(path) else {
        return 0;
    };
    std::io::BufReader::new(file)
        .lines()
        .map_while(Result::ok)
        .filter_map(|line| seq_of(&line))
        .max()
        .unwrap_or(0)
}

/// The `_seq` of one journal line.
pub fn seq_of(line: &str) -> Option<u64> {
    serde_json::from_str::<serde_json::Value>(line)
        .ok()?
        .get("_seq")?
        .as_u64()
}

//! The session's event journal: every event line, appended before it is
//! written to stdout, so `attach` can replay what a dead proxy missed.

use std::io::{BufRead, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use super::StateError;

/// Opens the journal for appending (0600). Each event line is written
/// with a single `write`, so readers that tail the file see whole lines.
///
/// A turn killed in the middle of a line (or stopped by a full disk)
/// leaves it without its newline; this turn's first line would be glued
/// to it and read as one broken line, its `session-start` lost to
/// `attach`. So a journal that does not end a line is ended first.
pub fn open(path: &Path) -> Result<std::fs::File, StateError> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .mode(0o600)
        .open(path)
        .map_err(|err| StateError::io(path, err))?;
    if !ends_a_line(&file).map_err(|err| StateError::io(path, err))? {
        file.write_all(b"\n")
            .map_err(|err| StateError::io(path, err))?;
    }
    Ok(file)
}

/// Whether the file is empty or ends with a newline.
fn ends_a_line(file: &std::fs::File) -> std::io::Result<bool> {
    let size = file.metadata()?.len();
    let Some(last) = size.checked_sub(1) else {
        return Ok(true);
    };
    let mut byte = [0u8; 1];
    file.read_exact_at(&mut byte, last)?;
    Ok(byte[0] == b'\n')
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
    head_of(line).map(|head| head.seq)
}

/// What a reader of the journal needs of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    pub seq: u64,
    /// A `session-end`: the end of one process's turn. A journal holds
    /// one per turn, each turn being a process restored from the last.
    pub ends_turn: bool,
}

pub fn head_of(line: &str) -> Option<Head> {
    #[derive(serde::Deserialize)]
    struct Line<'a> {
        _seq: u64,
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
    }
    let line: Line<'_> = serde_json::from_str(line).ok()?;
    Some(Head {
        seq: line._seq,
        ends_turn: line.kind == "session-end",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_cut_short_is_ended_before_the_next_turn_appends() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let end = r#"{"type":"session-start","_seq":4}"#;
        for (before, expected) in [
            ("", format!("{end}\n")),
            ("{\"_seq\":1}\n", format!("{{\"_seq\":1}}\n{end}\n")),
            (
                "{\"_seq\":1}\n{\"type\":\"text-del",
                format!("{{\"_seq\":1}}\n{{\"type\":\"text-del\n{end}\n"),
            ),
        ] {
            std::fs::write(&path, before).unwrap();
            let mut journal = open(&path).unwrap();
            writeln!(journal, "{end}").unwrap();
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                expected,
                "{before:?}"
            );
            assert_eq!(last_seq(&path), 4, "{before:?}");
        }
    }

    #[test]
    fn heads_of_lines() {
        let end = r#"{"type":"session-end","_seq":9,"ts":"x","exit_reason":"completed"}"#;
        assert_eq!(
            head_of(end),
            Some(Head {
                seq: 9,
                ends_turn: true
            })
        );
        // The type named inside a string is not the line's type.
        let text = r#"{"type":"text-delta","_seq":3,"delta":"{\"type\":\"session-end\"}"}"#;
        assert_eq!(
            head_of(text),
            Some(Head {
                seq: 3,
                ends_turn: false
            })
        );
        assert_eq!(head_of("not json"), None);
        assert_eq!(head_of(r#"{"type":"x"}"#), None);
    }
}

//! The session's event journal: every event line, appended before it is
//! written to stdout, so `attach` can replay what a dead proxy missed.

use std::io::Write;
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

/// The highest `_seq` in a journal (0 when there is none), read from its
/// end: every turn of a long conversation starts by asking, and reading
/// the whole journal made the start grow with it (a 20 MB journal took
/// tens of milliseconds). Numbers only grow along the file (one writer at
/// a time, the session's lock, and a restored turn numbers on after all
/// it finds), so the whole lines of the last window hold the highest; a
/// window with none that parses (a last line cut short, or longer than
/// the window) is widened until one does or the file is read.
pub fn last_seq(path: &Path) -> u64 {
    let Ok(file) = std::fs::File::open(path) else {
        return 0;
    };
    let Ok(size) = file.metadata().map(|meta| meta.len()) else {
        return 0;
    };
    let mut window = TAIL_WINDOW.min(size);
    loop {
        let start = size - window;
        let Ok(length) = usize::try_from(window) else {
            return 0;
        };
        let mut tail = vec![0u8; length];
        if file.read_exact_at(&mut tail, start).is_err() {
            return 0;
        }
        // Before the first newline: the end of a line that began earlier.
        let whole = match (start, tail.iter().position(|&byte| byte == b'\n')) {
            (0, _) => &tail[..],
            (_, Some(newline)) => &tail[newline + 1..],
            (_, None) => &[][..],
        };
        let highest = whole
            .split(|&byte| byte == b'\n')
            .filter_map(|line| std::str::from_utf8(line).ok())
            .filter_map(seq_of)
            .max();
        match highest {
            Some(seq) => return seq,
            None if start == 0 => return 0,
            None => window = window.saturating_mul(4).min(size),
        }
    }
}

/// How much of a journal's end `last_seq` reads first: a few dozen
/// ordinary lines.
const TAIL_WINDOW: u64 = 64 * 1024;

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

    /// Read from the end, as the whole file would say: lines longer than
    /// the window, a last line cut short, lines that are not JSON or not
    /// UTF-8, a window that starts inside a line.
    #[test]
    fn the_last_seq_is_read_from_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        assert_eq!(last_seq(&path), 0, "no journal");
        let line = |seq: u64, pad: usize| {
            format!(
                "{{\"type\":\"text-delta\",\"_seq\":{seq},\"delta\":\"{}\"}}\n",
                "x".repeat(pad)
            )
        };
        let mut cases: Vec<(Vec<u8>, u64)> = vec![(Vec::new(), 0), (b"junk\n".to_vec(), 0)];
        let mut many = String::new();
        for seq in 1..=5_000 {
            many.push_str(&line(seq, 20));
        }
        cases.push((many.clone().into_bytes(), 5_000));
        // Cut short in its last line, which held the highest number.
        let mut cut = many.clone().into_bytes();
        cut.extend_from_slice(br#"{"type":"text-delta","_seq":5001,"del"#);
        cases.push((cut, 5_000));
        // The last whole line is longer than the window, twice over.
        let mut long = many.clone();
        long.push_str(&line(5_001, 3 * TAIL_WINDOW as usize));
        cases.push((long.clone().into_bytes(), 5_001));
        // ...and followed by a line that is not JSON, and one not UTF-8.
        let mut odd = long.into_bytes();
        odd.extend_from_slice(b"not json\n\xff\xfe{\"_seq\":9}\n");
        cases.push((odd, 5_001));
        // One line, longer than the window, with no newline before it.
        cases.push((line(7, 2 * TAIL_WINDOW as usize).into_bytes(), 7));
        for (bytes, expected) in cases {
            std::fs::write(&path, &bytes).unwrap();
            assert_eq!(last_seq(&path), expected, "{} bytes", bytes.len());
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

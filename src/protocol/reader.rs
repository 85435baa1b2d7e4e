//! Reads stdin as a sequence of bounded lines on a thread of its own.
//!
//! Each line is handed over raw; parsing and acknowledging happen in the
//! session's command dispatcher so a line's `command-ack` is written before
//! its effect. The reader never allocates more than one line's limit: a
//! longer line is skipped up to its newline and reported as too long.

use std::io::{ErrorKind, Read};

use tokio::sync::mpsc;

/// The longest command line accepted, newline excluded. Large enough for an
/// inject carrying a long pasted text, small enough that a runaway writer
/// cannot make the agent hold gigabytes.
pub const MAX_COMMAND_LINE_BYTES: usize = 1024 * 1024;

#[derive(Debug, PartialEq, Eq)]
pub enum StdinLine {
    Line(Vec<u8>),
    TooLong { bytes: usize },
}

/// Starts the reader thread, which sends each line to `sender` until the
/// end of input (which is not a cancel: the session just stops expecting
/// commands from stdin).
pub fn spawn_stdin_reader(sender: mpsc::UnboundedSender<StdinLine>) {
    let spawned = std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            split_lines(&mut input, MAX_COMMAND_LINE_BYTES, |line| {
                sender.send(line).is_ok()
            });
        });
    if let Err(err) = spawned {
        crate::diag!("agent: cannot start the stdin reader: {err}; commands are ignored");
    }
}

/// Serves the session's control socket: each connection's lines are
/// commands, exactly as if they came on stdin (`agent attach` forwards its
/// own stdin here). The socket is 0600 inside the 0700 session folder.
///
/// `admit` sees each connection first: a connection it refuses is closed
/// unread (the agent refuses its own commands' processes, which must not
/// answer their own approval requests).
pub fn spawn_socket_reader(
    path: &std::path::Path,
    sender: mpsc::UnboundedSender<StdinLine>,
    admit: impl Fn(&std::os::unix::net::UnixStream) -> bool + Send + 'static,
) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::remove_file(path);
    let listener = std::os::unix::net::UnixListener::bind(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    std::thread::Builder::new()
        .name("control-socket".into())
        .spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                if !admit(&stream) {
                    continue;
                }
                let sender = sender.clone();
                let _ = std::thread::Builder::new()
                    .name("control-connection".into())
                    .spawn(move || {
                        split_lines(&mut stream, MAX_COMMAND_LINE_BYTES, |line| {
                            sender.send(line).is_ok()
                        });
                    });
            }
        })?;
    Ok(())
}

/// Splits `input` into lines of at most `limit` bytes, calling `deliver` for
/// each until it returns false or the input ends. Blank lines are skipped
/// (a PTY turns `\r\n` into two newlines). A trailing `\r` is dropped.
pub fn split_lines(
    input: &mut impl Read,
    limit: usize,
    mut deliver: impl FnMut(StdinLine) -> bool,
) {
    let mut line: Vec<u8> = Vec::new();
    let mut overflow: Option<usize> = None;
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let read = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => read,
            Err(err) if err.kind() == ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        for piece in chunk[..read].split_inclusive(|byte| *byte == b'\n') {
            let (body, ends_line) = match piece.split_last() {
                Some((b'\n', body)) => (body, true),
                _ => (piece, false),
            };
            match overflow.as_mut() {
                Some(seen) => *seen += body.len(),
                None if line.len() + body.len() > limit => {
                    overflow = Some(line.len() + body.len());
                    line = Vec::new();
                }
                None => line.extend_from_slice(body),
            }
            if ends_line {
                let item = match overflow.take() {
                    Some(bytes) => Some(StdinLine::TooLong { bytes }),
                    None => {
                        let mut done = std::mem::take(&mut line);
                        if done.last() == Some(&b'\r') {
                            done.pop();
                        }
                        (!done.iter().all(u8::is_ascii_whitespace)).then_some(StdinLine::Line(done))
                    }
                };
                if let Some(item) = item
                    && !deliver(item)
                {
                    return;
                }
            }
        }
    }
    // A last line without its newline still counts: the writer closed
    // stdin right after it.
    if let Some(bytes) = overflow {
        deliver(StdinLine::TooLong { bytes });
    } else if !line.iter().all(u8::is_ascii_whitespace) {
        deliver(StdinLine::Line(line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Vec<StdinLine> {
        let mut out = Vec::new();
        split_lines(&mut &input[..], limit, |line| {
            out.push(line);
            true
        });
        out
    }

    #[test]
    fn splits_and_skips_blank_lines() {
        assert_eq!(
            lines(b"a\r\n\n  \nbb\ncc", 10),
            vec![
                StdinLine::Line(b"a".to_vec()),
                StdinLine::Line(b"bb".to_vec()),
                StdinLine::Line(b"cc".to_vec())
            ]
        );
    }

    #[test]
    fn over_long_lines_are_reported_and_skipped() {
        let mut input = vec![b'x'; 25];
        input.extend_from_slice(b"\nok\n");
        input.extend_from_slice(&[0xff; 30]);
        assert_eq!(
            lines(&input, 10),
            vec![
                StdinLine::TooLong { bytes: 25 },
                StdinLine::Line(b"ok".to_vec()),
                StdinLine::TooLong { bytes: 30 }
            ]
        );
    }

    #[test]
    fn binary_garbage_passes_through_as_a_line() {
        assert_eq!(
            lines(b"\x00\xff\xfe\n", 10),
            vec![StdinLine::Line(b"\x00\xff\xfe".to_vec())]
        );
    }
}

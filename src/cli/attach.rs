//! `agent attach`: a new proxy invocation picks a session up. It prints the
//! journal after `--from-seq`, follows the turn that is live to its
//! `session-end`, and forwards its own stdin to the session's control
//! socket, so commands reach the agent as if on its stdin.
//!
//! A journal holds every turn of the session: each user turn is a process
//! restored from the last checkpoint, appending to it and ending with its
//! own `session-end`. So a `session-end` ends the attach only when nothing
//! follows it and no later turn is live: the live process's turn starts
//! after it ([`state::lock_holder_start`]). With no turn live, attach
//! prints what there is and exits; between two turns that is nothing.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::protocol::reader::{MAX_COMMAND_LINE_BYTES, StdinLine, split_lines};
use crate::protocol::{tty, writer};
use crate::state::{self, SessionDir, journal};

const POLL: Duration = Duration::from_millis(50);
/// The journal is read this much at a time, however long it is.
const CHUNK: usize = 1024 * 1024;
/// A session whose lock is free and whose journal has not ended is given
/// this long to write its last lines before attach gives up on it.
const GRACE: Duration = Duration::from_secs(1);

/// The last whole line read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    Event,
    /// A `session-end`, and the journal offset just after it.
    End {
        seq: u64,
        offset: u64,
    },
}

pub fn run(dir: &SessionDir, from_seq: u64) -> ExitCode {
    let _raw_input = tty::RawInputGuard::engage();
    forward_stdin(dir);
    let path = dir.journal();
    let mut file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(err) => {
            crate::diag!("agent: error: {}: {err}", path.display());
            return ExitCode::from(1);
        }
    };
    // Launched like the agent, through a shell on a PTY: the first line
    // replayed must not be glued to the shell's last bytes.
    let mut stdout = writer::replay_stdout();
    let mut lines = Lines::default();
    let mut chunk = vec![0; CHUNK];
    let mut out = Vec::new();
    let mut last = Last::Nothing;
    let mut quiet_since: Option<Instant> = None;
    loop {
        // Looked at before reading: what a process wrote before it let go
        // of the lock is in the read that finds the end.
        let live = state::is_live(dir);
        let read = match file.read(&mut chunk) {
            Ok(read) => read,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => {
                crate::diag!("agent: error: reading {}: {err}", path.display());
                return ExitCode::from(1);
            }
        };
        if read > 0 {
            out.clear();
            lines.feed(&chunk[..read], |line, end| {
                let head = journal::head_of(String::from_utf8_lossy(line).trim_end());
                let seq = head.map_or(0, |head| head.seq);
                if seq > from_seq {
                    out.extend_from_slice(line);
                }
                last = match head {
                    Some(head) if head.ends_turn => Last::End { seq, offset: end },
                    _ => Last::Event,
                };
            });
            // One write for the chunk's lines. A reader that went away
            // leaves nothing to do.
            if !out.is_empty()
                && stdout
                    .write_all(&out)
                    .and_then(|()| stdout.flush())
                    .is_err()
            {
                return ExitCode::SUCCESS;
            }
            quiet_since = None;
            continue;
        }
        // A line being written follows whatever was last.
        let last = if lines.is_empty() { last } else { Last::Event };
        match at_end(last, live, || state::lock_holder_start(dir)) {
            AtEnd::Wait => quiet_since = None,
            AtEnd::Stop => {
                if matches!(last, Last::End { seq, .. } if seq <= from_seq) {
                    crate::diag!(
                        "agent: no turn of the session is running and nothing follows _seq {from_seq}"
                    );
                }
                return ExitCode::SUCCESS;
            }
            AtEnd::Quiet => {
                let since = *quiet_since.get_or_insert_with(Instant::now);
                if since.elapsed() > GRACE {
                    crate::diag!(
                        "agent: error: the session is not running and its journal ends without session-end (the process died); restore it from its last checkpoint"
                    );
                    return ExitCode::from(1);
                }
            }
        }
        std::thread::sleep(POLL);
    }
}

/// The whole lines of a file read a chunk at a time. Each byte is looked
/// at once and what is left of a line moved once per chunk: replaying a
/// journal costs time in proportion to its length (a `drain` per line,
/// which moves everything after it, took 16 s for 60k lines).
#[derive(Debug, Default)]
struct Lines {
    /// The start of a line not ended yet.
    pending: Vec<u8>,
    /// Where `pending` starts in the file.
    offset: u64,
}

impl Lines {
    /// Adds the next bytes of the file; `each` gets every line they end,
    /// newline included, with the offset just after it.
    fn feed(&mut self, chunk: &[u8], mut each: impl FnMut(&[u8], u64)) {
        // What is pending holds no newline: only the new bytes are looked at.
        let searched = self.pending.len();
        self.pending.extend_from_slice(chunk);
        let mut start = 0;
        let mut from = searched;
        while let Some(found) = self.pending[from..].iter().position(|byte| *byte == b'\n') {
            let end = from + found + 1;
            each(&self.pending[start..end], self.offset + end as u64);
            start = end;
            from = end;
        }
        self.pending.drain(..start);
        self.offset += start as u64;
    }

    /// Whether the bytes read so far end on a whole line.
    fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}

/// What attach does once it has read all the journal holds for now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AtEnd {
    /// A turn is live: follow it.
    Wait,
    /// The turn that was live (or the last one) has ended.
    Stop,
    /// No process, and no `session-end` last: the process died, unless
    /// its last lines are still on their way.
    Quiet,
}

/// `live`: whether a process held the lock before the read; `holder_start`
/// where its turn starts in the journal.
fn at_end(last: Last, live: bool, holder_start: impl FnOnce() -> Option<u64>) -> AtEnd {
    match last {
        // The process that holds the lock wrote this end and is exiting,
        // unless its turn starts at or after it: a later turn that has
        // not written yet (or is writing where it starts: wait and see).
        Last::End { offset, .. } => {
            if live && holder_start().is_none_or(|start| start >= offset) {
                AtEnd::Wait
            } else {
                AtEnd::Stop
            }
        }
        Last::Nothing | Last::Event if live => AtEnd::Wait,
        Last::Nothing | Last::Event => AtEnd::Quiet,
    }
}

/// Sends each line of our stdin to the session's control socket.
fn forward_stdin(dir: &SessionDir) {
    let mut forwarder = Forwarder::new(dir.control_socket());
    let _ = std::thread::Builder::new()
        .name("attach-stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            split_lines(&mut input, MAX_COMMAND_LINE_BYTES, |line| {
                let StdinLine::Line(mut bytes) = line else {
                    crate::diag!(
                        "agent: a command line over {MAX_COMMAND_LINE_BYTES} bytes was not sent"
                    );
                    return true;
                };
                bytes.push(b'\n');
                if !forwarder.send(&bytes) {
                    crate::diag!(
                        "agent: the session is not running; the command was not delivered"
                    );
                }
                true
            });
        });
}

/// The connection to the control socket, kept from one command to the
/// next while it works.
struct Forwarder {
    socket: PathBuf,
    connection: Option<UnixStream>,
}

impl Forwarder {
    fn new(socket: PathBuf) -> Self {
        Forwarder {
            socket,
            connection: None,
        }
    }

    /// Sends one command line; says whether it went. A connection kept
    /// from an earlier command may lead to a turn that has ended since,
    /// the next turn listening on a socket of its own at the same path:
    /// then the line goes over a new connection.
    fn send(&mut self, bytes: &[u8]) -> bool {
        if let Some(stream) = self.connection.as_mut() {
            if stream.write_all(bytes).is_ok() {
                return true;
            }
            self.connection = None;
        }
        let Ok(mut stream) = UnixStream::connect(&self.socket) else {
            return false;
        };
        if stream.write_all(bytes).is_err() {
            return false;
        }
        self.connection = Some(stream);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_attach_stops() {
        let end = Last::End {
            seq: 9,
            offset: 900,
        };
        let cases = [
            // Nothing live: the last end is the end.
            (end, false, None, AtEnd::Stop),
            // The live process is the turn that wrote that end.
            (end, true, Some(0), AtEnd::Stop),
            (end, true, Some(899), AtEnd::Stop),
            // The live process started after it: a later turn.
            (end, true, Some(900), AtEnd::Wait),
            (end, true, Some(1200), AtEnd::Wait),
            (end, true, None, AtEnd::Wait),
            (Last::Event, true, Some(0), AtEnd::Wait),
            (Last::Nothing, true, None, AtEnd::Wait),
            (Last::Event, false, None, AtEnd::Quiet),
            (Last::Nothing, false, None, AtEnd::Quiet),
        ];
        for (last, live, start, expected) in cases {
            assert_eq!(
                at_end(last, live, || start),
                expected,
                "{last:?} live {live} start {start:?}"
            );
        }
    }

    #[test]
    fn a_command_after_the_next_turn_replaced_the_socket_reaches_it() {
        use std::io::BufRead;
        use std::os::unix::net::UnixListener;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("control.sock");
        let received = |listener: &UnixListener| {
            let (stream, _) = listener.accept().unwrap();
            let mut line = String::new();
            std::io::BufReader::new(&stream)
                .read_line(&mut line)
                .unwrap();
            line
        };
        let mut forwarder = Forwarder::new(path.clone());
        // The turn that ends: its socket takes a command, then goes.
        let ending = UnixListener::bind(&path).unwrap();
        assert!(forwarder.send(b"one\n"));
        assert_eq!(received(&ending), "one\n");
        drop(ending);
        std::fs::remove_file(&path).unwrap();
        // The next turn's socket, at the same path.
        let next = UnixListener::bind(&path).unwrap();
        assert!(forwarder.send(b"two\n"), "not sent");
        assert_eq!(received(&next), "two\n");
        // With nothing listening, a command is not sent (and that is said).
        drop(next);
        std::fs::remove_file(&path).unwrap();
        assert!(!forwarder.send(b"three\n"));
    }

    #[test]
    fn lines_across_chunks_come_whole_with_where_they_end() {
        let text = b"{\"_seq\":1}\n\n{\"_seq\":2,\"x\":\"long\"}\n{\"_seq\":3}\ntail";
        for size in 1..text.len() {
            let mut lines = Lines::default();
            let mut seen = Vec::new();
            for chunk in text.chunks(size) {
                lines.feed(chunk, |line, end| seen.push((line.to_vec(), end)));
            }
            let expected: Vec<(Vec<u8>, u64)> = [
                (&b"{\"_seq\":1}\n"[..], 11),
                (b"\n", 12),
                (b"{\"_seq\":2,\"x\":\"long\"}\n", 34),
                (b"{\"_seq\":3}\n", 45),
            ]
            .into_iter()
            .map(|(line, end)| (line.to_vec(), end))
            .collect();
            assert_eq!(seen, expected, "chunks of {size}");
            assert!(!lines.is_empty(), "the tail is pending");
            lines.feed(b"\n", |line, end| seen.push((line.to_vec(), end)));
            assert_eq!(seen.last(), Some(&(b"tail\n".to_vec(), 50)));
            assert!(lines.is_empty());
        }
    }
}

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

/// Random bytes in random reads, against a plain model of the rules.
#[cfg(test)]
mod properties {
    use std::io::{Error, Read};

    use proptest::prelude::*;

    use super::*;

    /// Hands `data` out in reads of the given sizes, with an `Interrupted`
    /// error now and then, as a signal would.
    struct Reads {
        data: Vec<u8>,
        sizes: Vec<usize>,
        at: usize,
        turn: usize,
    }

    impl Read for Reads {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.turn += 1;
            if self.turn.is_multiple_of(5) {
                return Err(Error::from(ErrorKind::Interrupted));
            }
            let size = self.sizes[self.turn % self.sizes.len()]
                .min(buf.len())
                .min(self.data.len() - self.at);
            buf[..size].copy_from_slice(&self.data[self.at..self.at + size]);
            self.at += size;
            Ok(size)
        }
    }

    /// The rules, written the slow way: split at `\n`; a line over the
    /// limit (a `\r` before the `\n` counted) is reported by its size;
    /// otherwise one `\r` before the `\n` is dropped and blank lines are
    /// skipped.
    fn model(input: &[u8], limit: usize) -> Vec<StdinLine> {
        let pieces: Vec<&[u8]> = input.split(|byte| *byte == b'\n').collect();
        let last = pieces.len() - 1;
        let mut out = Vec::new();
        for (index, piece) in pieces.into_iter().enumerate() {
            if piece.len() > limit {
                out.push(StdinLine::TooLong { bytes: piece.len() });
                continue;
            }
            let mut line = piece.to_vec();
            if index != last && line.last() == Some(&b'\r') {
                line.pop();
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                out.push(StdinLine::Line(line));
            }
        }
        out
    }

    /// Bytes with many line ends, carriage returns and blanks among
    /// them. One byte vector, mapped, is much cheaper to generate than a
    /// vector of choices.
    fn input() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(any::<u8>(), 0..1500).prop_map(|bytes| {
            bytes
                .into_iter()
                .map(|byte| match byte % 16 {
                    0..=1 => b'\n',
                    2 => b'\r',
                    3 => b' ',
                    4..=8 => b'x',
                    _ => byte,
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(crate::model::sse::test_support::config(128))]

        #[test]
        fn any_reads_give_the_lines_of_the_rules(
            data in input(),
            limit in 1..64usize,
            sizes in prop::collection::vec(1..100usize, 1..6),
        ) {
            let expected = model(&data, limit);
            let mut reads = Reads { data, sizes, at: 0, turn: 0 };
            let mut got = Vec::new();
            split_lines(&mut reads, limit, |line| {
                // What is held for a line stays within the limit's reach.
                if let StdinLine::Line(bytes) = &line {
                    assert!(bytes.len() <= limit);
                    assert!(bytes.capacity() <= 2 * limit.max(8), "{}", bytes.capacity());
                }
                got.push(line);
                true
            });
            prop_assert_eq!(got, expected);
        }

        #[test]
        fn delivery_stops_when_the_receiver_is_gone(
            data in input(), stop_after in 0..10usize,
        ) {
            let available = model(&data, 64).len();
            let mut delivered = 0;
            split_lines(&mut &data[..], 64, |_| {
                delivered += 1;
                delivered <= stop_after
            });
            prop_assert_eq!(delivered, available.min(stop_after + 1));
        }
    }

    /// A line far over the limit is counted as it passes, not held. Run in
    /// a process of its own, so that the memory measured is this test's.
    #[test]
    fn an_endless_line_is_counted_not_held() {
        const CHILD: &str = "AGENT_TEST_READER_MEMORY_CHILD";
        const NAME: &str = "protocol::reader::properties::an_endless_line_is_counted_not_held";
        if std::env::var_os(CHILD).is_none() {
            let output = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
                .env(CHILD, "1")
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success() && stdout.contains("held at most"),
                "{stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            );
            return;
        }
        fn resident_kib() -> Option<usize> {
            let status = std::fs::read_to_string("/proc/self/status").ok()?;
            let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        }
        struct Endless {
            left: usize,
            reads: usize,
            start: Option<usize>,
            peak: usize,
        }
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.reads += 1;
                if self.reads.is_multiple_of(64) {
                    self.peak = self.peak.max(resident_kib().unwrap_or(0));
                }
                let size = buf.len().min(self.left);
                buf[..size].fill(b'x');
                self.left -= size;
                Ok(size)
            }
        }
        const TOTAL: usize = 32 * 1024 * 1024;
        let mut input = Endless {
            left: TOTAL,
            reads: 0,
            start: resident_kib(),
            peak: 0,
        };
        let mut lines = Vec::new();
        split_lines(&mut input, MAX_COMMAND_LINE_BYTES, |line| {
            lines.push(line);
            true
        });
        assert_eq!(lines, [StdinLine::TooLong { bytes: TOTAL }]);
        if let Some(start) = input.start {
            let grown = input.peak.saturating_sub(start);
            // The line buffer may reach the 1 MiB limit before it is let
            // go; holding the whole line would be 32 MiB.
            assert!(grown < 8 * 1024, "grew by {grown} KiB");
            println!("held at most {grown} KiB more");
        } else {
            println!("held at most: not measured, no /proc");
        }
    }
}

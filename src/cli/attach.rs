//! `agent attach`: a new proxy invocation picks a session up. It prints the
//! journal after `--from-seq`, follows it while the session runs, stops
//! after `session-end`, and forwards its own stdin to the session's
//! control socket, so commands reach the agent as if on its stdin.

use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::net::UnixStream;
use std::process::ExitCode;
use std::time::Duration;

use crate::protocol::reader::{MAX_COMMAND_LINE_BYTES, StdinLine, split_lines};
use crate::protocol::tty;
use crate::state::{self, SessionDir, journal};

const POLL: Duration = Duration::from_millis(50);
/// A session whose lock is free and whose journal has not ended is given
/// this long to write its last lines before attach gives up on it.
const GRACE: Duration = Duration::from_secs(1);

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
    let mut stdout = tty::FreshLine::for_stdout(std::io::stdout().lock());
    let mut pending: Vec<u8> = Vec::new();
    let mut offset = 0u64;
    let mut quiet_since: Option<std::time::Instant> = None;
    loop {
        let mut chunk = Vec::new();
        let read = file
            .seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_to_end(&mut chunk));
        if let Err(err) = read {
            crate::diag!("agent: error: reading {}: {err}", path.display());
            return ExitCode::from(1);
        }
        offset += chunk.len() as u64;
        pending.extend_from_slice(&chunk);
        // Only whole lines: the agent may be halfway through writing one.
        while let Some(end) = pending.iter().position(|byte| *byte == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let text = String::from_utf8_lossy(&line);
            let seq = journal::seq_of(text.trim_end()).unwrap_or(0);
            // A reader that went away leaves nothing to do.
            if seq > from_seq
                && stdout
                    .write_all(&line)
                    .and_then(|()| stdout.flush())
                    .is_err()
            {
                return ExitCode::SUCCESS;
            }
            if text.contains("\"type\":\"session-end\"") {
                return ExitCode::SUCCESS;
            }
        }
        if chunk.is_empty() {
            if state::is_live(dir) {
                quiet_since = None;
            } else {
                let since = *quiet_since.get_or_insert_with(std::time::Instant::now);
                if since.elapsed() > GRACE {
                    crate::diag!(
                        "agent: error: the session is not running and its journal ends without session-end (the process died); restore it from its last checkpoint"
                    );
                    return ExitCode::from(1);
                }
            }
            std::thread::sleep(POLL);
        }
    }
}

/// Sends each line of our stdin to the session's control socket.
fn forward_stdin(dir: &SessionDir) {
    let socket = dir.control_socket();
    let _ = std::thread::Builder::new()
        .name("attach-stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            let mut connection: Option<UnixStream> = None;
            split_lines(&mut input, MAX_COMMAND_LINE_BYTES, |line| {
                let StdinLine::Line(mut bytes) = line else {
                    crate::diag!(
                        "agent: a command line over {MAX_COMMAND_LINE_BYTES} bytes was not sent"
                    );
                    return true;
                };
                bytes.push(b'\n');
                if connection.is_none() {
                    connection = UnixStream::connect(&socket).ok();
                }
                let sent = connection
                    .as_mut()
                    .is_some_and(|stream| stream.write_all(&bytes).is_ok());
                if !sent {
                    connection = None;
                    crate::diag!(
                        "agent: the session is not running; the command was not delivered"
                    );
                }
                true
            });
        });
}

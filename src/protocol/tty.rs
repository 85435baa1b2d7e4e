//! What a proxy driving us through a PTY needs from the terminal: stdin in
//! a mode with no echo (our own commands would come back as stdout lines)
//! and no canonical line editing (which caps a line at 4 KiB and treats
//! control characters as edits), signals (Ctrl-C) still on; and stdout
//! starting on a line of its own.

use std::io::{self, Write};

use rustix::termios::{self, LocalModes, OptionalActions, SpecialCodeIndex, Termios};

/// Restores the terminal as it was when dropped.
pub struct RawInputGuard {
    saved: Termios,
}

impl RawInputGuard {
    /// Switches stdin when it is a terminal; `None` when it is not (a pipe,
    /// a file) or cannot be changed.
    pub fn engage() -> Option<RawInputGuard> {
        let stdin = std::io::stdin();
        if !termios::isatty(&stdin) {
            return None;
        }
        let saved = termios::tcgetattr(&stdin).ok()?;
        let mut raw = saved.clone();
        raw.local_modes.remove(
            LocalModes::ECHO | LocalModes::ECHONL | LocalModes::ICANON | LocalModes::IEXTEN,
        );
        raw.special_codes[SpecialCodeIndex::VMIN] = 1;
        raw.special_codes[SpecialCodeIndex::VTIME] = 0;
        termios::tcsetattr(&stdin, OptionalActions::Now, &raw).ok()?;
        Some(RawInputGuard { saved })
    }
}

impl Drop for RawInputGuard {
    fn drop(&mut self) {
        let stdin = std::io::stdin();
        // Nothing useful can be done if this fails: the terminal is gone.
        let _ = termios::tcsetattr(&stdin, OptionalActions::Now, &self.saved);
    }
}

/// Keeps the agent's terminal from being opened again while it runs
/// (`TIOCEXCL`), and lets go of it when dropped.
///
/// Commands have no controlling terminal (they start in their own
/// session), but the PTY is also a device file (`/dev/pts/N`) that a
/// process of the same user may open by name: writing there would put
/// lines into the stream the proxy parses, reading there would take the
/// proxy's commands. In exclusive mode the kernel refuses every new open
/// but root's. Landlock cannot close it instead: a rule that fences off
/// one PTY would also fence off every PTY a command makes later.
pub struct ExclusiveTerminal {
    held: Vec<std::os::fd::BorrowedFd<'static>>,
}

impl ExclusiveTerminal {
    pub fn engage() -> ExclusiveTerminal {
        let fds = [
            rustix::stdio::stdin(),
            rustix::stdio::stdout(),
            rustix::stdio::stderr(),
        ];
        let held = fds
            .into_iter()
            .filter(|fd| termios::isatty(fd) && termios::ioctl_tiocexcl(fd).is_ok())
            .collect();
        ExclusiveTerminal { held }
    }
}

impl Drop for ExclusiveTerminal {
    fn drop(&mut self) {
        for fd in &self.held {
            // The shell that may stay behind on this PTY opens it again.
            let _ = termios::ioctl_tiocnxcl(fd);
        }
    }
}

/// Writes one newline before the first byte when stdout is a terminal.
///
/// The proxy types `cd workspace && exec agent ...` into a shell on the
/// PTY, and the shell's last bytes before the exec need not end a line:
/// bash turns bracketed paste off with `\x1b[?2004l\r`. A reader that
/// splits on `\n` would glue those bytes to our first event and drop it as
/// noise, and the first event is `session-start`. On a pipe nobody else
/// writes, so the stream stays byte for byte what it was.
pub struct FreshLine<W> {
    inner: W,
    pending: bool,
}

impl<W: Write> FreshLine<W> {
    /// `inner` is stdout (or a lock on it).
    pub fn for_stdout(inner: W) -> FreshLine<W> {
        FreshLine::new(inner, termios::isatty(io::stdout()))
    }

    fn new(inner: W, on_terminal: bool) -> FreshLine<W> {
        FreshLine {
            inner,
            pending: on_terminal,
        }
    }
}

impl<W: Write> Write for FreshLine<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.pending && !buf.is_empty() {
            self.inner.write_all(b"\n")?;
            self.pending = false;
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::FreshLine;

    fn written(on_terminal: bool) -> Vec<u8> {
        let mut out = FreshLine::new(Vec::new(), on_terminal);
        out.write_all(b"").unwrap();
        out.write_all(b"{\"_seq\":1}\n").unwrap();
        out.write_all(b"{\"_seq\":2}\n").unwrap();
        out.flush().unwrap();
        out.inner
    }

    #[test]
    fn a_terminal_gets_one_newline_before_the_first_line_only() {
        assert_eq!(written(true), b"\n{\"_seq\":1}\n{\"_seq\":2}\n");
    }

    #[test]
    fn a_pipe_gets_the_lines_alone() {
        assert_eq!(written(false), b"{\"_seq\":1}\n{\"_seq\":2}\n");
    }
}

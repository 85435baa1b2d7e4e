//! Puts a terminal stdin into the mode a proxy driving us through a PTY
//! needs: no echo (our own commands would come back as stdout lines) and no
//! canonical line editing (which caps a line at 4 KiB and treats control
//! characters as edits). Signals (Ctrl-C) stay on.

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

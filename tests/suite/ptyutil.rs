//! A real PTY, as the proxy and the sandbox provider open one: a program
//! started on it, what it writes read in a thread, and a writer to type
//! into it.

use std::io::{Read, Write};
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};

use super::WAIT;

pub struct Pty {
    /// Open while the test runs: the PTY closes with it.
    master: Box<dyn MasterPty + Send>,
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
}

impl Pty {
    /// Opens a PTY and starts `command` on it: the same program, arguments
    /// and variables (a `TestEnv` command, say).
    pub fn spawn(command: &Command) -> Pty {
        let mut builder = CommandBuilder::new(command.get_program());
        builder.args(command.get_args());
        for (name, value) in command.get_envs() {
            match value {
                Some(value) => builder.env(name, value),
                None => builder.env_remove(name),
            }
        }
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols: 120,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let child = pair.slave.spawn_command(builder).unwrap();
        // Only the child holds the other side now: reading ends with it.
        drop(pair.slave);
        let writer = pair.master.take_writer().unwrap();
        Pty {
            master: pair.master,
            child,
            writer,
        }
    }

    /// The output cut at each `\n` (which is not part of the line); the
    /// channel closes when the last holder of the PTY's other side is gone.
    pub fn lines(&self) -> mpsc::Receiver<String> {
        let (sender, lines) = mpsc::channel::<String>();
        self.read_in_a_thread(move |pending, _closed| {
            while let Some(end) = pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                let text = String::from_utf8_lossy(&line[..line.len() - 1]).into_owned();
                if sender.send(text).is_err() {
                    return true;
                }
            }
            false
        });
        lines
    }

    /// All the output, sent once `done` says so of what has come so far or
    /// once the PTY closes.
    pub fn output_until(
        &self,
        done: impl Fn(&str) -> bool + Send + 'static,
    ) -> mpsc::Receiver<Vec<u8>> {
        let (sender, output) = mpsc::channel();
        self.read_in_a_thread(move |all, closed| {
            let stop = closed || done(&String::from_utf8_lossy(all));
            if stop {
                let _ = sender.send(std::mem::take(all));
            }
            stop
        });
        output
    }

    /// Reads the output in a thread: `take` gets what has come and is not
    /// taken yet, after each read and once more when the PTY closes (the
    /// flag), and says when to stop.
    fn read_in_a_thread(&self, mut take: impl FnMut(&mut Vec<u8>, bool) -> bool + Send + 'static) {
        let mut reader = self.master.try_clone_reader().unwrap();
        std::thread::spawn(move || {
            let mut pending = Vec::new();
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                pending.extend_from_slice(&buf[..n]);
                if take(&mut pending, false) {
                    return;
                }
            }
            take(&mut pending, true);
        });
    }

    /// Types `text` in.
    pub fn type_in(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// The exit status of the PTY's process. Fails after [`WAIT`].
    pub fn exit_code(&mut self) -> u32 {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            assert!(Instant::now() < deadline, "the PTY's process did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

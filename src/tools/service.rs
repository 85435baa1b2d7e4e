//! A helper process the session keeps talking to over its pipes (an MCP
//! server, a debug adapter): spawned with its three pipes, registered as a
//! service so the reaper between commands leaves it to its owner, its end
//! watched, and the tail of its stderr kept for the messages about it.
//! What the two protocols share; each speaks its own over the pipes.

use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use super::procs;

/// After a pipe closes, how long the exit status is waited for, so that a
/// message can say how the process ended: the pipe closes a moment before.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// The pipes the protocol is spoken over.
pub struct Pipes {
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

/// The process side of a service, shared by whoever speaks to it and
/// whoever may have to stop it.
#[derive(Clone)]
pub struct Service {
    pid: i32,
    /// How it ended, in words, once it has.
    ended: watch::Receiver<Option<String>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// How much of the stderr kept a message quotes.
    quoted: usize,
}

/// What the stderr of a service costs: `kept` bytes are kept, the last
/// `quoted` of them go into a message.
#[derive(Clone, Copy)]
pub struct StderrTail {
    pub kept: usize,
    pub quoted: usize,
}

/// Spawns `command` with its three pipes, killed if its handle is
/// dropped. The caller sets the program, its environment and its process
/// group; a spawn error is the caller's to word.
pub fn spawn(command: &mut Command, tail: StderrTail) -> std::io::Result<(Pipes, Service)> {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    let pipes = (child.stdout.take(), child.stdin.take(), child.stderr.take());
    let (Some(stdout), Some(stdin), Some(stderr)) = pipes else {
        return Err(std::io::Error::other("no pipes to the process"));
    };
    let Some(pid) = child.id().and_then(|pid| i32::try_from(pid).ok()) else {
        return Err(std::io::Error::other("the process has no id"));
    };
    // Its owner waits for it: the reaper between commands must not.
    procs::add_service(pid);
    let (ended_tx, ended) = watch::channel(None);
    tokio::spawn(async move {
        let how = match child.wait().await {
            Ok(status) => describe(status),
            Err(err) => format!("was lost track of ({err})"),
        };
        procs::remove_service(pid);
        let _ = ended_tx.send(Some(how));
    });
    let kept = Arc::new(Mutex::new(Vec::new()));
    tokio::spawn(keep_tail(stderr, kept.clone(), tail.kept));
    let service = Service {
        pid,
        ended,
        stderr: kept,
        quoted: tail.quoted,
    };
    Ok((Pipes { stdin, stdout }, service))
}

impl Service {
    /// How it ended, if it has.
    pub fn ended(&self) -> Option<String> {
        self.ended.borrow().clone()
    }

    /// How it ended, waiting [`EXIT_GRACE`] for the status after a closed
    /// pipe; `None` if it is still running then.
    pub async fn how_it_ended(&self) -> Option<String> {
        let mut ended = self.ended.clone();
        let waited = tokio::time::timeout(EXIT_GRACE, ended.wait_for(Option::is_some)).await;
        waited.ok()?.ok()?.clone()
    }

    /// Resolves when it ends, with how.
    pub async fn end(&self) -> String {
        let mut ended = self.ended.clone();
        let how = ended.wait_for(Option::is_some).await;
        how.ok()
            .and_then(|how| how.clone())
            .unwrap_or_else(|| "ended".to_owned())
    }

    /// `; its stderr ends: ...` with the last lines it wrote, or nothing.
    pub fn stderr_quote(&self) -> String {
        let tail = lock(&self.stderr).clone();
        let text = String::from_utf8_lossy(&tail);
        let text = text.trim();
        if text.is_empty() {
            return String::new();
        }
        let start = super::truncate::floor_boundary(text, text.len().saturating_sub(self.quoted));
        format!("; its stderr ends: {}", text[start..].replace('\n', " | "))
    }

    /// Kills its process group and everything below it, while it has not
    /// been waited for: its pid cannot have been reused.
    pub fn kill(&self) {
        if self.ended().is_none()
            && let Some(pid) = rustix::process::Pid::from_raw(self.pid)
        {
            procs::kill_tree(pid);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "ended".to_owned(),
    }
}

async fn keep_tail(mut pipe: ChildStderr, kept: Arc<Mutex<Vec<u8>>>, limit: usize) {
    let mut buffer = [0u8; 4096];
    while let Ok(read @ 1..) = pipe.read(&mut buffer).await {
        let mut tail = lock(&kept);
        tail.extend_from_slice(&buffer[..read]);
        let excess = tail.len().saturating_sub(limit);
        tail.drain(..excess);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quote of 7 bytes starts inside the `é` of the last line.
    const TAIL: StderrTail = StderrTail {
        kept: 20,
        quoted: 7,
    };

    #[tokio::test]
    async fn a_service_that_dies_says_how_and_quotes_the_end_of_its_stderr() {
        let mut command = Command::new("sh");
        command.args([
            "-c",
            "printf 'early words that scroll away\\nlast é words\\n' >&2; exit 3",
        ]);
        let (_pipes, service) = spawn(&mut command, TAIL).expect("sh starts");
        assert_eq!(service.end().await, "exited with status 3");
        // The pipe may still hold the words for a moment after the exit.
        let mut quote = String::new();
        for _ in 0..100 {
            quote = service.stderr_quote();
            if !quote.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(quote, "; its stderr ends: é words");
        assert_eq!(
            service.how_it_ended().await.as_deref(),
            Some("exited with status 3")
        );
    }

    #[tokio::test]
    async fn a_killed_service_is_killed_with_what_it_started() {
        let mut command = Command::new("sh");
        // The grandchild leaves the group on purpose: killing the group
        // alone would miss it.
        command
            .args(["-c", "setsid sleep 30 & echo $!; wait"])
            .process_group(0);
        let (pipes, service) = spawn(&mut command, TAIL).expect("sh starts");
        let mut stdout = tokio::io::BufReader::new(pipes.stdout);
        let mut line = String::new();
        tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut line)
            .await
            .expect("sh says the sleep's pid");
        let grandchild: i32 = line.trim().parse().expect("a pid");
        assert_eq!(service.ended(), None);
        service.kill();
        let how = tokio::time::timeout(Duration::from_secs(5), service.end())
            .await
            .expect("the service ends when killed");
        assert_eq!(how, "was killed by signal 9");
        // Gone, or a zombie waiting for whoever reaps orphans here.
        let alive = || {
            std::fs::read_to_string(format!("/proc/{grandchild}/stat")).is_ok_and(|stat| {
                !stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
        };
        for _ in 0..100 {
            if !alive() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!alive(), "the service's grandchild outlived it");
        assert_eq!(service.stderr_quote(), "");
    }
}

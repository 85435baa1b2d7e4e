//! Kernel confinement of the commands `exec` runs.
//!
//! A command's process, before it becomes the shell, leaves the agent's
//! terminal session (`setsid`, so no command can open the proxy's PTY as
//! `/dev/tty` and write into the event stream) and applies a Landlock
//! ruleset to itself: in the child between `fork` and `execve`, with a
//! ruleset built once ([`fence`]), or, where that cannot be prepared, as
//! this same binary started with [`TRAMPOLINE_ARG`] (the trampoline). Landlock is inherited by every
//! process the shell starts and cannot be lifted by them, so what a command
//! may write is decided by the kernel, not by parsing the command line:
//!
//! - plan mode: read everywhere, write nowhere but a private temp folder;
//! - every mode: the state folder (journal, checkpoints) is unwritable.
//!
//! Landlock grants rights on whole hierarchies and has no "deny" rule, so
//! the state folder is kept out by granting write access to every sibling
//! along its path instead of to `/`. The price: a command cannot create or
//! remove entries *directly* in the folders above the state folder (for the
//! default `~/.local/state/agent` that is `~`, `~/.local` and
//! `~/.local/state`); files and folders that exist there stay writable.
//! docs/protocol.md says how to place the state folder so that this costs
//! nothing (a folder whose parents commands never write, as the image does).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, BitFlags, LandlockStatus, PathBeneath, RestrictSelf, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use rustix::fs::{FileType, Mode, OFlags};
use serde::{Deserialize, Serialize};

mod fence;
mod private_tmp;

pub use fence::Wait;
pub use private_tmp::PrivateTmp;

/// `argv[1]` that turns the binary into the trampoline. Never shown to
/// people: clap does not know it, and it only ever restricts.
pub const TRAMPOLINE_ARG: &str = "__agent-exec-sandbox";

/// The newest Landlock ABI asked for; the kernel grants what it knows.
const TARGET_ABI: ABI = ABI::V10;

/// Exit status of the trampoline when the sandbox cannot be applied: the
/// command does not run unconfined.
pub const SANDBOX_FAILED_EXIT: i32 = 126;

/// Device files a read-only command may still write: discarding output
/// and reading zeros change nothing.
const DEVICES_WRITABLE: [&str; 5] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// What a command may write, sent to the trampoline as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Policy {
    /// Read everything, write only below `writable`.
    ReadOnly { writable: Vec<PathBuf> },
    /// Write everything but the `protected` folders (and the entries of
    /// the folders above them, see the module comment).
    Protect { protected: Vec<PathBuf> },
}

/// What this machine offers, found once at start.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// The Landlock ABI the kernel speaks, `None` without Landlock.
    pub landlock_abi: Option<u32>,
    /// This binary, run as the trampoline; `None` where it cannot be found
    /// (no `/proc`): commands then start directly, unconfined.
    trampoline: Option<PathBuf>,
    /// Rulesets built once and applied in each command's child process,
    /// with no trampoline in between (see [`fence`]).
    fences: fence::Fences,
}

impl Sandbox {
    pub fn probe() -> Sandbox {
        let trampoline = std::env::current_exe().ok().filter(|path| path.is_file());
        Sandbox {
            landlock_abi: probe_abi(),
            trampoline,
            fences: fence::Fences::default(),
        }
    }

    /// A sandbox that confines nothing (tests, and `[exec] sandbox = false`).
    pub fn disabled() -> Sandbox {
        Sandbox {
            landlock_abi: None,
            trampoline: None,
            fences: fence::Fences::default(),
        }
    }

    /// Whether Landlock rulesets are applied to commands.
    pub fn enforces(&self) -> bool {
        self.landlock_abi.is_some() && self.trampoline.is_some()
    }

    /// The command that runs `program args...` under `policy`: fenced in
    /// its own process where the ruleset is ready (or, with
    /// [`Wait::Build`], can be built now), else through the trampoline
    /// where there is one, else directly.
    pub fn command(
        &self,
        policy: Option<&Policy>,
        when: Wait,
        program: &str,
        args: &[&str],
    ) -> tokio::process::Command {
        if let Some(command) = self.fenced(policy, when, program, args) {
            return command;
        }
        match &self.trampoline {
            Some(exe) => {
                let policy = match (policy, self.landlock_abi) {
                    // `{}` is no policy: the trampoline refuses it rather
                    // than run the command unconfined.
                    (Some(policy), Some(_)) => {
                        serde_json::to_string(policy).unwrap_or_else(|_| "{}".to_owned())
                    }
                    // Without Landlock the trampoline still leaves the
                    // terminal session.
                    _ => String::new(),
                };
                let mut command = tokio::process::Command::new(exe);
                command
                    .arg0("agent-exec")
                    .arg(TRAMPOLINE_ARG)
                    .arg(policy)
                    .arg(program)
                    .args(args);
                command
            }
            None => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).process_group(0);
                command
            }
        }
    }
}

/// The kernel's Landlock ABI version, asked of the kernel itself: a
/// `RestrictSelf` with nothing to enforce makes no restricting call and
/// only reports the status.
fn probe_abi() -> Option<u32> {
    let status = RestrictSelf::default().no_new_privs(false).apply().ok()?;
    match status.landlock {
        LandlockStatus::Available {
            kernel_abi: Some(newer),
            ..
        } => u32::try_from(newer).ok(),
        LandlockStatus::Available { effective_abi, .. } => Some(effective_abi as u32),
        LandlockStatus::NotEnabled | LandlockStatus::NotImplemented => None,
    }
}

/// The trampoline's `main`: `argv` is `[exe, TRAMPOLINE_ARG, policy,
/// program, args...]`. Never returns: it becomes the program or exits.
pub fn trampoline_main(argv: Vec<OsString>) -> ! {
    let mut argv = argv.into_iter().skip(2);
    let (Some(policy), Some(program)) = (argv.next(), argv.next()) else {
        fail("usage: agent __agent-exec-sandbox POLICY PROGRAM [ARGS...]")
    };
    let args: Vec<OsString> = argv.collect();
    // A new session: no controlling terminal, so `/dev/tty` cannot reach
    // the proxy's PTY, and a process group of its own that a timeout or a
    // cancel kills whole. It fails only for a group leader, which a
    // freshly spawned child is not.
    let _ = rustix::process::setsid();
    // A command outlives nothing: if the agent dies, so does its shell.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    if !policy.is_empty() {
        let policy: Policy = match serde_json::from_slice(policy.as_bytes()) {
            Ok(policy) => policy,
            Err(err) => fail(&format!("bad sandbox policy: {err}")),
        };
        if let Err(err) = apply(&policy) {
            fail(&format!("the sandbox could not be applied: {err}"));
        }
    }
    let err = std::process::Command::new(&program).args(&args).exec();
    crate::diag!("agent: cannot start {}: {err}", program.to_string_lossy());
    std::process::exit(127)
}

fn fail(message: &str) -> ! {
    crate::diag!("agent: {message}; the command was not run");
    std::process::exit(SANDBOX_FAILED_EXIT)
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("{0}")]
    Landlock(#[from] landlock::RulesetError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("Landlock is not enforced by this kernel")]
    NotEnforced,
}

/// Restricts the calling thread (and so everything it will run).
pub fn apply(policy: &Policy) -> Result<(), SandboxError> {
    let status = build(policy)?.restrict_self()?;
    match status.ruleset {
        RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced => Ok(()),
        RulesetStatus::NotEnforced => Err(SandboxError::NotEnforced),
    }
}

/// The ruleset of `policy`, not yet applied to anything.
fn build(policy: &Policy) -> Result<landlock::RulesetCreated, SandboxError> {
    let all = AccessFs::from_all(TARGET_ABI);
    let read = AccessFs::from_read(TARGET_ABI);
    let file = AccessFs::from_file(TARGET_ABI);
    let mut ruleset = Ruleset::default().handle_access(all)?;
    if matches!(policy, Policy::ReadOnly { .. }) {
        // A read-only command must not get a process outside the sandbox
        // (the agent itself, a daemon on an abstract socket) to act for it.
        ruleset = ruleset.scope(Scope::AbstractUnixSocket | Scope::Signal)?;
    }
    let mut created = ruleset.create()?;
    match policy {
        Policy::ReadOnly { writable } => {
            created = created.add_rule(PathBeneath::new(
                open_path(Path::new("/"))?,
                read | AccessFs::IoctlDev,
            ))?;
            for dir in writable {
                created = created.add_rule(PathBeneath::new(open_path(dir)?, all))?;
            }
            for device in DEVICES_WRITABLE {
                // A device missing from a minimal image is not an error.
                if let Ok(fd) = open_path(Path::new(device)) {
                    created = created.add_rule(PathBeneath::new(fd, file))?;
                }
            }
        }
        Policy::Protect { protected } => {
            created = created.add_rule(PathBeneath::new(open_path(Path::new("/"))?, read))?;
            for (_, fd, access) in grants_around(protected, all, file)? {
                created = created.add_rule(PathBeneath::new(fd, access))?;
            }
        }
    }
    Ok(created)
}

/// Every entry of every folder above a protected one, except the
/// protected folders and their ancestors, with full access. Symlinks get
/// no rule: a path through one is judged by where it leads.
fn grants_around(
    protected: &[PathBuf],
    all: BitFlags<AccessFs>,
    file: BitFlags<AccessFs>,
) -> Result<Vec<(PathBuf, rustix::fd::OwnedFd, BitFlags<AccessFs>)>, SandboxError> {
    let mut blocked: Vec<PathBuf> = Vec::new();
    for path in protected {
        for ancestor in path.ancestors() {
            if !blocked.iter().any(|known| known == ancestor) {
                blocked.push(ancestor.to_path_buf());
            }
        }
    }
    let mut grants = Vec::new();
    for dir in &blocked {
        if protected.iter().any(|path| path == dir) {
            continue;
        }
        let dir_fd = match rustix::fs::open(
            dir,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            // An ancestor that is gone has nothing to grant.
            Err(rustix::io::Errno::NOENT) => continue,
            Err(err) => {
                return Err(SandboxError::Io {
                    path: dir.clone(),
                    source: err.into(),
                });
            }
        };
        let entries = std::fs::read_dir(dir).map_err(|source| SandboxError::Io {
            path: dir.clone(),
            source,
        })?;
        for entry in entries.flatten() {
            let path = dir.join(entry.file_name());
            if blocked.contains(&path) {
                continue;
            }
            // Opened without following, then looked at: an entry swapped
            // for a symlink in between is seen as the symlink.
            let Ok(fd) = rustix::fs::openat(
                &dir_fd,
                entry.file_name().as_os_str(),
                OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            ) else {
                continue;
            };
            let Ok(stat) = rustix::fs::fstat(&fd) else {
                continue;
            };
            let access = match FileType::from_raw_mode(stat.st_mode) {
                FileType::Symlink => continue,
                FileType::Directory => all,
                _ => file,
            };
            grants.push((path, fd, access));
        }
    }
    Ok(grants)
}

fn open_path(path: &Path) -> Result<rustix::fd::OwnedFd, SandboxError> {
    rustix::fs::open(path, OFlags::PATH | OFlags::CLOEXEC, Mode::empty()).map_err(|err| {
        SandboxError::Io {
            path: path.to_path_buf(),
            source: err.into(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_travel_as_json() {
        let policy = Policy::Protect {
            protected: vec![PathBuf::from("/state")],
        };
        let text = serde_json::to_string(&policy).unwrap();
        assert_eq!(text, r#"{"kind":"protect","protected":["/state"]}"#);
        assert_eq!(serde_json::from_str::<Policy>(&text).unwrap(), policy);
    }

    #[test]
    fn grants_skip_the_protected_path_and_its_ancestors() {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().canonicalize().unwrap();
        for dir in ["a/state/sessions", "a/other", "b"] {
            std::fs::create_dir_all(base.join(dir)).unwrap();
        }
        std::fs::write(base.join("a/file"), "x").unwrap();
        std::os::unix::fs::symlink(base.join("a/state"), base.join("a/link")).unwrap();
        let all = AccessFs::from_all(TARGET_ABI);
        let file = AccessFs::from_file(TARGET_ABI);
        let grants = grants_around(&[base.join("a/state")], all, file).unwrap();
        let granted: Vec<&PathBuf> = grants.iter().map(|(path, _, _)| path).collect();
        assert!(granted.contains(&&base.join("a/other")));
        assert!(granted.contains(&&base.join("a/file")));
        assert!(granted.contains(&&base.join("b")));
        assert!(!granted.contains(&&base.join("a")));
        assert!(!granted.contains(&&base.join("a/state")));
        assert!(
            !granted.contains(&&base.join("a/link")),
            "symlinks get no rule"
        );
        let file_access = grants
            .iter()
            .find(|(path, _, _)| *path == base.join("a/file"))
            .map(|(_, _, access)| *access);
        assert_eq!(file_access, Some(file));
    }
}

//! The fence applied in the command's own process, with no trampoline.
//!
//! The trampoline costs an `execve` of this binary before the shell's, and
//! builds its ruleset for every command: for the state folder's fence that
//! is one rule per entry of every folder above it, a few milliseconds with
//! a crowded `/tmp`. Here the ruleset is built once per policy, kept as
//! its file descriptor, and applied between `fork` and the shell's `execve`
//! with the two system calls that do it. It is built again when one of the
//! folders whose entries it names changes (an entry made, removed or
//! renamed changes the folder's times), so that a file made there later is
//! granted as the trampoline would have granted it.
//!
//! Whatever goes wrong building it, [`Sandbox::command`] falls back to the
//! trampoline; whatever goes wrong applying it, the spawn fails and the
//! command does not run unconfined.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::{Policy, Sandbox, build};

/// The rulesets built so far, one per policy a session uses (two at most:
/// plan mode's and the state folder's fence).
#[derive(Debug, Clone, Default)]
pub(super) struct Fences(Arc<Mutex<Vec<Fence>>>);

/// Whether a command may build a missing ruleset itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Build it here if no other thread is building it (a command about
    /// to run needs it anyway; the trampoline would build it too).
    Build,
    /// Only a ruleset already built: the caller must not be held up (the
    /// login capture, spawned by the session's loop as it starts while the
    /// `sandbox-fence` thread builds; it takes the trampoline instead,
    /// which builds its own in the child).
    Never,
}

#[derive(Debug)]
struct Fence {
    policy: Policy,
    /// The folders' stamps when the ruleset was built.
    key: Vec<Stamp>,
    ruleset: Arc<OwnedFd>,
}

/// Inode and change times of a folder; `None` if it is gone.
type Stamp = Option<(u64, i64, i64, i64, i64)>;

/// The folders whose entries the ruleset of `policy` names one by one or
/// opens by path.
fn named_folders(policy: &Policy) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = match policy {
        Policy::ReadOnly { writable } => writable.clone(),
        Policy::Protect { protected } => protected
            .iter()
            .flat_map(|path| path.ancestors().skip(1))
            .map(PathBuf::from)
            .collect(),
    };
    folders.sort();
    folders.dedup();
    folders
}

fn stamps(folders: &[PathBuf]) -> Vec<Stamp> {
    folders
        .iter()
        .map(|folder| {
            let meta = std::fs::symlink_metadata(folder).ok()?;
            Some((
                meta.ino(),
                meta.mtime(),
                meta.mtime_nsec(),
                meta.ctime(),
                meta.ctime_nsec(),
            ))
        })
        .collect()
}

impl Fences {
    /// The ruleset of `policy`: the one built before if none of its
    /// folders changed since, else a new one. `None` if it cannot be built,
    /// or is being built by another thread: that command takes the
    /// trampoline rather than wait.
    fn ruleset(&self, policy: &Policy, when: Wait) -> Option<Arc<OwnedFd>> {
        // Taken before the build: a change during it makes the next
        // command build again, never keep a ruleset that missed it.
        let key = stamps(&named_folders(policy));
        let mut fences = self.0.try_lock().ok()?;
        if let Some(fence) = fences
            .iter()
            .find(|fence| fence.policy == *policy && fence.key == key)
        {
            return Some(Arc::clone(&fence.ruleset));
        }
        if when == Wait::Never {
            return None;
        }
        let ruleset: OwnedFd = Option::<OwnedFd>::from(build(policy).ok()?)?;
        let ruleset = Arc::new(ruleset);
        fences.retain(|fence| fence.policy != *policy);
        fences.push(Fence {
            policy: policy.clone(),
            key,
            ruleset: Arc::clone(&ruleset),
        });
        Some(ruleset)
    }
}

impl Sandbox {
    /// Builds the ruleset of `policy` on a thread of its own, so that the
    /// first command finds it ready. A session calls it as it starts.
    /// What it returns resolves when the thread is done (built or not);
    /// `None`: no thread, nothing to wait for.
    pub fn prepare(&self, policy: Policy) -> Option<tokio::sync::oneshot::Receiver<()>> {
        self.landlock_abi?;
        let fences = self.fences.clone();
        let (done, built) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("sandbox-fence".to_owned())
            .spawn(move || {
                // Before the build: each folder a killed agent left in the
                // temp folder would be one more rule in every ruleset.
                super::private_tmp::sweep(&std::env::temp_dir());
                fences.ruleset(&policy, Wait::Build);
                let _ = done.send(());
            })
            .ok()?;
        Some(built)
    }

    /// `program args...` in a session of its own and, under `policy`,
    /// confined, with no trampoline; `None` where the ruleset cannot be
    /// prepared (no Landlock, or it could not be built).
    #[allow(unsafe_code)]
    pub(super) fn fenced(
        &self,
        policy: Option<&Policy>,
        when: Wait,
        program: &str,
        args: &[&str],
    ) -> Option<tokio::process::Command> {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        let Some(policy) = policy else {
            // SAFETY: as below, system calls only.
            unsafe {
                command.pre_exec(|| {
                    detach();
                    Ok(())
                });
            }
            return Some(command);
        };
        self.landlock_abi?;
        let ruleset = self.fences.ruleset(policy, when)?;
        let fd = ruleset.as_raw_fd();
        // SAFETY: `confine` only makes system calls: no allocation, no
        // lock, nothing another thread of the parent could have held at
        // the fork. The closure keeps the ruleset open until the spawn.
        unsafe {
            command.pre_exec(move || {
                let _open = &ruleset;
                detach();
                confine(fd)
            });
        }
        Some(command)
    }
}

/// In the child: a new session, so no controlling terminal and a process
/// group of its own (see the trampoline); and if the agent dies, so does
/// the command.
#[allow(unsafe_code)]
fn detach() {
    // SAFETY: plain system calls with integer arguments.
    unsafe {
        libc::setsid();
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        );
    }
}

/// In the child, between `fork` and `execve`: the ruleset built in the
/// parent applied, as the trampoline applies its own.
#[allow(unsafe_code)]
fn confine(ruleset: RawFd) -> std::io::Result<()> {
    // SAFETY: plain system calls with integer arguments.
    unsafe {
        if libc::prctl(
            libc::PR_SET_NO_NEW_PRIVS,
            1 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        if libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0 as libc::c_uint) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(sandbox: &Sandbox, policy: &Policy, line: &str) -> bool {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut command = sandbox
                .fenced(Some(policy), Wait::Build, "sh", &["-c", line])
                .expect("the fence is built where Landlock is");
            command.status().await.unwrap().success()
        })
    }

    /// `check` run until the folders `policy` names held still across it
    /// (other tests make entries in the temp folder above ours, which
    /// rightly makes the next command build the ruleset again), so that
    /// what it says is about an unchanged tree.
    fn held_still<T>(policy: &Policy, mut check: impl FnMut() -> T) -> T {
        let folders = named_folders(policy);
        for _ in 0..100 {
            let before = stamps(&folders);
            let seen = check();
            if stamps(&folders) == before {
                return seen;
            }
        }
        panic!("the folders above the fenced one never held still");
    }

    /// This machine's sandbox, which must have Landlock, and a folder to
    /// fence.
    fn landlock_sandbox() -> (Sandbox, tempfile::TempDir) {
        let sandbox = Sandbox::probe();
        assert!(
            sandbox.landlock_abi.is_some(),
            "this kernel has no Landlock: the fence cannot be shown here"
        );
        (sandbox, tempfile::tempdir().unwrap())
    }

    /// A file made above the state folder after a command ran is granted
    /// to the next command, as the trampoline, which looks every time,
    /// granted it; the state folder stays fenced; nothing changed, the
    /// ruleset is not built again.
    #[test]
    fn the_fence_follows_the_folders_it_names() {
        let (sandbox, root) = landlock_sandbox();
        let base = root.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("home/state")).unwrap();
        std::fs::write(base.join("home/old"), "").unwrap();
        let policy = Policy::Protect {
            protected: vec![base.join("home/state")],
        };
        let state = base.join("home/state/x");
        let old = base.join("home/old");
        let new = base.join("home/new");
        assert!(!run(
            &sandbox,
            &policy,
            &format!("echo x > {}", state.display())
        ));
        assert!(run(
            &sandbox,
            &policy,
            &format!("echo x > {}", old.display())
        ));
        let (first, again) = held_still(&policy, || {
            (
                sandbox.fences.ruleset(&policy, Wait::Build).unwrap(),
                sandbox.fences.ruleset(&policy, Wait::Build).unwrap(),
            )
        });
        assert!(Arc::ptr_eq(&first, &again));

        std::fs::write(&new, "").unwrap();
        assert!(run(
            &sandbox,
            &policy,
            &format!("echo x > {}", new.display())
        ));
        assert!(!Arc::ptr_eq(
            &first,
            &sandbox.fences.ruleset(&policy, Wait::Build).unwrap()
        ));
        assert!(!run(
            &sandbox,
            &policy,
            &format!("echo x > {}", state.display())
        ));
        assert!(!state.exists());
    }

    /// The login capture is spawned by the session's loop: with
    /// `Wait::Never` it gets no fenced command until the ruleset is built
    /// (it then takes the trampoline), and builds nothing itself.
    #[test]
    fn a_command_that_cannot_wait_builds_no_ruleset() {
        let (sandbox, root) = landlock_sandbox();
        let base = root.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("state")).unwrap();
        let policy = Policy::Protect {
            protected: vec![base.join("state")],
        };
        assert!(
            sandbox
                .fenced(Some(&policy), Wait::Never, "true", &[])
                .is_none()
        );
        assert!(sandbox.fences.0.lock().unwrap().is_empty(), "nothing built");
        let (built, taken) = held_still(&policy, || {
            (
                sandbox
                    .fenced(Some(&policy), Wait::Build, "true", &[])
                    .is_some(),
                sandbox
                    .fenced(Some(&policy), Wait::Never, "true", &[])
                    .is_some(),
            )
        });
        assert!(built);
        assert!(taken, "built once, every command takes it");
    }
}

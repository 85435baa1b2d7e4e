//! The login environment commands run with: what `bash -l` makes of the
//! user's profile scripts (PATH entries for nvm, pyenv, cargo). A login
//! shell costs a hundred milliseconds and more (160 ms of a 210 ms session
//! on the machine of issue 13), and every user turn is a new process, so:
//!
//! - the session starts the capture as it starts, and the profile scripts
//!   run while the model thinks; a command waits only for what is not
//!   ready yet;
//! - what the capture found is kept in the session folder, and the next
//!   processes of the conversation take it from there instead of running
//!   the profile again, while the profile files, the starting environment,
//!   the shell, the work dir and the confinement are what they were (see
//!   [`key`]).
//!
//! The kept file holds the values of the secret variables the profile set
//! (names and values, apart from the environment commands get): the mask
//! of every later process needs them, or a command that prints such a
//! value (`cat ~/.bashrc`) would show it. That copy gives nothing away:
//! it is 0600 in the 0700 session folder, next to checkpoints that hold
//! the conversation, and any command can get the same values by running
//! the profile itself. The names are kept so that a changed `[secrets]`
//! list is applied to a kept capture as to a fresh one.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Shared};
use sha2::Digest;

use super::{ExecSettings, TreeGuard, scrub};
use crate::protocol::events::{ErrorCode, Mode};
use crate::tools::sandbox::{Policy, Wait};
use crate::tools::{Report, ToolContext};

/// How long capturing the login environment may take.
pub const LOGIN_ENV_TIMEOUT: Duration = Duration::from_secs(10);
const ENV_MARKER: &[u8] = b"\0AGENT-LOGIN-ENV\0";
/// The file in the session folder that keeps a capture.
pub const KEPT_FILE: &str = "login-env";
/// The first record of that file; a file of another format is ignored.
const KEPT_FORMAT: &[u8] = b"agent-login-env/1";
/// More of a profile file than this is not read for the key: its size
/// and times still are.
const KEY_READ_LIMIT: u64 = 1024 * 1024;

type Vars = Vec<(OsString, OsString)>;

/// What a capture found, ready for commands.
#[derive(Debug)]
pub(super) struct Captured {
    /// The environment commands get, secrets scrubbed.
    pub vars: Vars,
    /// The values of the secret variables the profile set: for the mask.
    pub secrets: Vec<String>,
    /// Why there is no login environment: commands get the agent's own.
    pub failure: Option<String>,
}

type Pending = Shared<BoxFuture<'static, Arc<Captured>>>;

/// The session's login environment: started once, waited for by every
/// command until it is there.
#[derive(Default)]
pub(super) struct LoginEnv {
    /// The session folder, where a capture is kept for the next processes
    /// of the conversation and taken from.
    keep_in: OnceLock<PathBuf>,
    pending: OnceLock<Pending>,
    /// Set by the first command that got it, which reported it.
    ready: OnceLock<Arc<Captured>>,
}

impl ExecSettings {
    /// Where the capture is kept between processes (the session folder);
    /// set before the capture starts, or it is neither read nor kept.
    pub fn keep_login_env_in(&self, folder: &Path) {
        let _ = self.login.keep_in.set(folder.to_path_buf());
    }

    /// Starts capturing the login environment in the background, as the
    /// profile scripts would run for a command in `mode`. Only the first
    /// call does anything; without one, the first command starts it.
    pub fn start_login_env(self: &Arc<Self>, mode: Mode, work_dir: &Path) {
        if self.login_shell {
            self.login_pending(mode, work_dir);
        }
    }

    fn login_pending(self: &Arc<Self>, mode: Mode, work_dir: &Path) -> &Pending {
        self.login.pending.get_or_init(|| {
            let keep_in = self.login.keep_in.get().map(PathBuf::as_path);
            begin(self.clone(), mode, work_dir, keep_in)
        })
    }
}

/// The environment a command runs with: the login environment once it is
/// there, the agent's own (secrets removed) without `login_shell`. The
/// first command to get it reports it: the secret values join the mask
/// before any command could print them, a failed capture is a warning.
/// `None`: cancelled while waiting (the capture goes on; the end of the
/// session stops it).
pub(super) async fn environment(ctx: &ToolContext) -> Option<&[(OsString, OsString)]> {
    let settings = &ctx.exec;
    if !settings.login_shell {
        return Some(&settings.base_env);
    }
    if let Some(ready) = settings.login.ready.get() {
        return Some(&ready.vars);
    }
    let pending = settings.login_pending(ctx.mode, &ctx.work_dir).clone();
    let captured = tokio::select! {
        captured = pending => captured,
        () = ctx.cancel.cancelled() => return None,
    };
    let mut first = false;
    let ready = settings.login.ready.get_or_init(|| {
        first = true;
        captured
    });
    if first {
        for value in &ready.secrets {
            ctx.report.report(Report::SecretValue(value));
        }
        if let Some(reason) = &ready.failure {
            ctx.report.report(Report::Warning {
                code: ErrorCode::LoginEnv,
                message: format!("the login environment could not be captured ({reason}); commands run with the agent's own environment"),
            });
        }
    }
    Some(&ready.vars)
}

/// Takes the kept capture when its key still holds, else starts the
/// profile scripts now (spawned before this returns: the session may do
/// blocking work, a checkpoint, before it next yields) and reads what they
/// made in a task of its own.
fn begin(
    settings: Arc<ExecSettings>,
    mode: Mode,
    work_dir: &Path,
    keep_in: Option<&Path>,
) -> Pending {
    let policy = settings.policy(mode);
    let kept = keep_in.map(|dir| {
        (
            dir.join(KEPT_FILE),
            key(&settings, policy.as_ref(), work_dir),
        )
    });
    if let Some((path, key)) = &kept
        && let Some(vars) = read_kept(path, key)
    {
        let (env, secrets) = split(vars, &settings.secret_names);
        return done(captured(env, secrets));
    }
    let child = match spawn_capture(&settings, policy.as_ref(), work_dir) {
        Ok(child) => child,
        Err(reason) => return done(failed(&settings, reason)),
    };
    let task = tokio::spawn({
        let settings = settings.clone();
        async move {
            match read_capture(child, &settings.shell).await {
                Ok(vars) => {
                    let (env, secrets) = split(vars, &settings.secret_names);
                    // Best effort: without it the next process captures
                    // again.
                    if let Some((path, key)) = &kept {
                        let _ = write_kept(path, key, &env, &secrets);
                    }
                    captured(env, secrets)
                }
                Err(reason) => failed(&settings, reason),
            }
        }
    });
    async move {
        match task.await {
            Ok(captured) => Arc::new(captured),
            Err(err) => Arc::new(failed(&settings, err.to_string())),
        }
    }
    .boxed()
    .shared()
}

fn done(captured: Captured) -> Pending {
    futures_util::future::ready(Arc::new(captured))
        .boxed()
        .shared()
}

fn captured(env: Vars, secrets: Vars) -> Captured {
    Captured {
        vars: env,
        secrets: secrets
            .into_iter()
            .filter_map(|(_, value)| value.into_string().ok())
            .collect(),
        failure: None,
    }
}

fn failed(settings: &ExecSettings, reason: String) -> Captured {
    Captured {
        vars: settings.base_env.clone(),
        secrets: Vec::new(),
        failure: Some(reason),
    }
}

/// The environment commands get, and the secret variables taken out of it.
fn split(vars: Vars, secret_names: &globset::GlobSet) -> (Vars, Vars) {
    let (secrets, rest): (Vars, Vars) = vars.into_iter().partition(|(name, _)| {
        name.to_str()
            .is_some_and(|name| secret_names.is_match(name))
    });
    (scrub(rest.into_iter(), secret_names), secrets)
}

/// Starts `bash -l`, which prints the environment its profile scripts
/// made after a marker that separates it from what a chatty profile
/// prints. Confined as a command of the session's mode.
fn spawn_capture(
    settings: &ExecSettings,
    policy: Option<&Policy>,
    work_dir: &Path,
) -> Result<tokio::process::Child, String> {
    let shell = settings.shell.as_str();
    // Spawned by the loop as the session starts: it must not build the
    // ruleset on the loop's thread while the model request waits.
    let mut command = settings.sandbox.command(
        policy,
        Wait::Never,
        shell,
        &["-l", "-c", "printf '\\0AGENT-LOGIN-ENV\\0'; exec env -0"],
    );
    command
        .current_dir(work_dir)
        .env_clear()
        .envs(settings.base_env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    command
        .spawn()
        .map_err(|err| format!("cannot start {shell}: {err}"))
}

/// Reads what the capture printed, within [`LOGIN_ENV_TIMEOUT`].
async fn read_capture(child: tokio::process::Child, shell: &str) -> Result<Vars, String> {
    let root = child
        .id()
        .and_then(|id| rustix::process::Pid::from_raw(id as i32));
    // Dropped on timeout: the profile's processes die with it.
    let mut tree = TreeGuard(root);
    let output = match tokio::time::timeout(LOGIN_ENV_TIMEOUT, child.wait_with_output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(err)) => return Err(err.to_string()),
        Err(_) => {
            return Err(format!(
                "the profile scripts took more than {} s",
                LOGIN_ENV_TIMEOUT.as_secs()
            ));
        }
    };
    // A daemon the profile started (an ssh-agent) may live on; the end of
    // the session takes care of it.
    tree.0 = None;
    let start = output
        .stdout
        .windows(ENV_MARKER.len())
        .position(|window| window == ENV_MARKER)
        .ok_or_else(|| {
            format!(
                "{shell} -l exited with {} before printing the environment",
                output.status
            )
        })?;
    Ok(output.stdout[start + ENV_MARKER.len()..]
        .split(|byte| *byte == 0)
        .filter_map(parse_entry)
        // `_` is the last command bash ran, not part of the user's setup.
        .filter(|(name, _)| name != "_")
        .collect())
}

/// `NAME=VALUE`.
fn parse_entry(entry: &[u8]) -> Option<(OsString, OsString)> {
    let at = entry.iter().position(|byte| *byte == b'=')?;
    (at > 0).then(|| {
        (
            OsStr::from_bytes(&entry[..at]).to_owned(),
            OsStr::from_bytes(&entry[at + 1..]).to_owned(),
        )
    })
}

/// What the capture depends on, hashed: the shell, the work dir (a profile
/// may look at it), the confinement (a read-only capture may miss what a
/// profile makes on its first run), the starting environment, and the
/// files a login bash reads: their metadata (so a `touch` asks for a new
/// capture) and their content (so an edit within one tick of the file
/// system's clock does too). A file the profile sources from elsewhere
/// (`~/.nvm/nvm.sh`) is not looked at: touch the profile after changing it.
pub(super) fn key(settings: &ExecSettings, policy: Option<&Policy>, work_dir: &Path) -> String {
    let mut hasher = sha2::Sha256::new();
    let mut record = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    record(KEPT_FORMAT);
    record(settings.shell.as_bytes());
    record(work_dir.as_os_str().as_bytes());
    record(match policy {
        None => b"unconfined",
        Some(Policy::ReadOnly { .. }) => b"read-only",
        Some(Policy::Protect { .. }) => b"protect",
    });
    let mut env: Vec<&(OsString, OsString)> = settings.base_env.iter().collect();
    env.sort();
    for (name, value) in env {
        record(name.as_bytes());
        record(value.as_bytes());
    }
    let home = settings
        .base_env
        .iter()
        .find(|(name, _)| name == "HOME")
        .map(|(_, value)| PathBuf::from(value));
    for path in profile_files(home.as_deref()) {
        record(path.as_os_str().as_bytes());
        record(&file_fingerprint(&path));
    }
    hex(&hasher.finalize())
}

/// The files a login bash reads, and those the usual ones source.
fn profile_files(home: Option<&Path>) -> Vec<PathBuf> {
    let mut files = vec![
        PathBuf::from("/etc/profile"),
        PathBuf::from("/etc/bash.bashrc"),
    ];
    let mut dropins: Vec<PathBuf> = std::fs::read_dir("/etc/profile.d")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .collect();
    dropins.sort();
    files.extend(dropins);
    if let Some(home) = home {
        for name in [".bash_profile", ".bash_login", ".profile", ".bashrc"] {
            files.push(home.join(name));
        }
    }
    files
}

/// A file's identity, size, times and content; empty for a missing one.
fn file_fingerprint(path: &Path) -> Vec<u8> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Vec::new();
    };
    let mut print = Vec::new();
    for number in [
        meta.dev(),
        meta.ino(),
        meta.mode().into(),
        meta.size(),
        meta.mtime() as u64,
        meta.mtime_nsec() as u64,
        meta.ctime() as u64,
        meta.ctime_nsec() as u64,
    ] {
        print.extend_from_slice(&number.to_le_bytes());
    }
    if meta.is_file()
        && let Ok(file) = std::fs::File::open(path)
    {
        let mut content = Vec::new();
        let _ = file.take(KEY_READ_LIMIT).read_to_end(&mut content);
        print.extend_from_slice(&sha2::Sha256::digest(&content));
    }
    print
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The kept file: NUL-separated records (no variable holds a NUL): the
/// format, the key, the count of variables then `NAME=VALUE` for each,
/// the same for the secret ones.
fn encode(key: &str, env: &Vars, secrets: &Vars) -> Vec<u8> {
    let mut out = Vec::new();
    let mut record = |bytes: &[u8]| {
        out.extend_from_slice(bytes);
        out.push(0);
    };
    record(KEPT_FORMAT);
    record(key.as_bytes());
    for list in [env, secrets] {
        record(list.len().to_string().as_bytes());
        for (name, value) in list {
            record(&[name.as_bytes(), b"=", value.as_bytes()].concat());
        }
    }
    out
}

/// Every variable of a kept file whose key is `key` (the secret ones
/// too); `None` for another key or anything malformed.
fn decode(bytes: &[u8], key: &str) -> Option<Vars> {
    let body = bytes.strip_suffix(b"\0")?;
    let mut records = body.split(|byte| *byte == 0);
    if records.next()? != KEPT_FORMAT || records.next()? != key.as_bytes() {
        return None;
    }
    let mut vars = Vec::new();
    for _list in 0..2 {
        let count: usize = std::str::from_utf8(records.next()?).ok()?.parse().ok()?;
        for _ in 0..count {
            vars.push(parse_entry(records.next()?)?);
        }
    }
    records.next().is_none().then_some(vars)
}

fn read_kept(path: &Path, key: &str) -> Option<Vars> {
    decode(&std::fs::read(path).ok()?, key)
}

/// Writes the kept file (0600) through a temp file and a rename, so a
/// process reading it never sees half of it. Not synced: after a crash a
/// lost capture is only made again.
fn write_kept(path: &Path, key: &str, env: &Vars, secrets: &Vars) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let temp = path.with_file_name(format!(".{KEPT_FILE}.tmp{}", fastrand::u32(..)));
    let result = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp)
        .and_then(|mut file| file.write_all(&encode(key, env, secrets)))
        .and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vars {
        pairs
            .iter()
            .map(|(name, value)| (OsString::from(name), OsString::from(value)))
            .collect()
    }

    #[test]
    fn a_kept_capture_reads_back_under_its_key_only() {
        let env = vars(&[("PATH", "/a:/b"), ("EMPTY", ""), ("EQ", "x=y")]);
        let secrets = vars(&[("MY_TOKEN", "s3cret")]);
        let bytes = encode("k1", &env, &secrets);
        let mut all = env.clone();
        all.extend(secrets);
        assert_eq!(decode(&bytes, "k1"), Some(all));
        assert_eq!(decode(&bytes, "k2"), None);
        assert_eq!(decode(&bytes[..bytes.len() - 3], "k1"), None);
        let mut extra = bytes.clone();
        extra.extend_from_slice(b"MORE=1\0");
        assert_eq!(decode(&extra, "k1"), None);
    }

    #[test]
    fn secrets_are_split_from_what_commands_get() {
        let mut names = globset::GlobSetBuilder::new();
        names.add(globset::Glob::new("*_TOKEN").unwrap());
        let names = names.build().unwrap();
        let (env, secrets) = split(
            vars(&[
                ("PATH", "/bin"),
                ("GH_TOKEN", "t"),
                (super::super::SECRETS_FD_VAR, "3"),
            ]),
            &names,
        );
        assert_eq!(env, vars(&[("PATH", "/bin")]));
        assert_eq!(secrets, vars(&[("GH_TOKEN", "t")]));
    }

    #[test]
    fn the_key_follows_the_profile_and_the_environment() {
        let home = tempfile::tempdir().unwrap();
        let settings = |extra: &[(&str, &str)]| {
            let mut settings = ExecSettings::new(
                "bash".into(),
                Duration::from_secs(1),
                Duration::from_secs(1),
                globset::GlobSet::empty(),
                true,
            );
            settings.base_env = vars(&[("HOME", home.path().to_str().unwrap())]);
            settings.base_env.extend(vars(extra));
            settings
        };
        let work = Path::new("/work");
        let first = key(&settings(&[]), None, work);
        assert_eq!(first, key(&settings(&[]), None, work));
        assert_ne!(first, key(&settings(&[("X", "1")]), None, work));
        assert_ne!(first, key(&settings(&[]), None, Path::new("/other")));
        let plan = Policy::ReadOnly {
            writable: Vec::new(),
        };
        assert_ne!(first, key(&settings(&[]), Some(&plan), work));
        std::fs::write(home.path().join(".bashrc"), "export A=1\n").unwrap();
        let written = key(&settings(&[]), None, work);
        assert_ne!(first, written);
        std::fs::write(home.path().join(".bashrc"), "export A=2\n").unwrap();
        assert_ne!(written, key(&settings(&[]), None, work));
    }
}

//! Keeps the token out of the agent's own environment block.
//!
//! Scrubbing a command's environment is not enough: a command can read
//! its parent's environment block in `/proc/$PPID/environ`, which the
//! kernel serves from the memory the process started with; `unsetenv` and
//! its kind do not touch that memory. So the values of the secret
//! variables are taken into the process's heap and then overwritten in the
//! block itself, through `/proc/self/mem` (the kernel's view of the block,
//! `/proc/self/environ`, is read back to check). Where that is refused (a
//! hardened `/proc`), the agent re-executes itself instead (same PID,
//! arguments and streams) with those variables removed and their values in
//! an anonymous memory file it inherits, reads back and closes before any
//! command can start: the same result for about 1.5 ms more at start. The
//! process is then marked non-dumpable, so a command of the same user
//! cannot read its memory through `/proc` or `ptrace` either.
//!
//! Writing the block changes memory that the C library owns and no Rust
//! value refers to (`std::env` copies what it reads), while the process has
//! one thread; the variables then read as empty.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Seek, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::os::unix::process::CommandExt;
use std::sync::{Mutex, MutexGuard};

use crate::tools::exec::SECRETS_FD_VAR;
const MEMFD_NAME: &str = "agent-secrets";
/// In debug builds only: skip the in-place scrub and re-execute.
const FORCE_REEXEC_VAR: &str = "AGENT_DEBUG_FORCE_REEXEC";
/// More than any set of tokens; a larger file is not ours.
const MAX_SECRETS_BYTES: u64 = 1024 * 1024;

type Vars = Vec<(OsString, OsString)>;

/// An environment block larger than this is not scrubbed in place.
const MAX_ENV_BLOCK: u64 = 16 * 1024 * 1024;

/// The secret variables taken out of the environment block.
static HIDDEN: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

fn hidden() -> MutexGuard<'static, Vec<(String, String)>> {
    match HIDDEN.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Takes the secrets a previous image of this process passed on. Called
/// first thing in `main`, before anything opens a file, so that the
/// descriptor it closes is the one its previous image made.
pub fn take_inherited() {
    let vars = std::env::var(SECRETS_FD_VAR)
        .ok()
        .and_then(|fd| fd.parse::<i32>().ok())
        .and_then(read_memfd)
        .unwrap_or_default();
    hidden().extend(vars);
}

/// Whether the environment block still holds none of the secret variables.
pub fn environ_is_clean(secret_names: &globset::GlobSet) -> bool {
    !std::env::vars_os().any(|(name, value)| !value.is_empty() && is_secret(&name, secret_names))
}

/// A variable's value, from the hidden ones first.
pub fn var(name: &str) -> Option<String> {
    hidden()
        .iter()
        .find(|(known, _)| known == name)
        .map(|(_, value)| value.clone())
        .or_else(|| std::env::var(name).ok())
}

/// The values of every secret variable, hidden or still in the environment.
pub fn secret_values(secret_names: &globset::GlobSet) -> Vec<String> {
    let mut values: Vec<String> = hidden()
        .iter()
        .filter(|(name, _)| secret_names.is_match(name))
        .map(|(_, value)| value.clone())
        .collect();
    values.extend(
        std::env::vars_os()
            .filter(|(name, value)| !value.is_empty() && is_secret(name, secret_names))
            .filter_map(|(_, value)| value.into_string().ok()),
    );
    values
}

fn is_secret(name: &OsStr, secret_names: &globset::GlobSet) -> bool {
    name.to_str()
        .is_some_and(|name| secret_names.is_match(name))
}

/// Takes the secret variables out of the environment block: in place, or
/// else by re-executing (then this image is gone). Returns only when
/// neither could be done, with the reasons.
pub fn hide_secrets(secret_names: &globset::GlobSet) -> Result<(), String> {
    hide(|name| is_secret(name, secret_names))
}

/// [`hide_secrets`] for the variables that are always secret, before the
/// flags are parsed and the config is read.
pub fn hide_builtin_secrets() -> Result<(), String> {
    hide(|name| {
        crate::config::BUILTIN_SECRET_VARS
            .iter()
            .any(|builtin| name == OsStr::new(builtin))
    })
}

fn hide(secret: impl Fn(&OsStr) -> bool) -> Result<(), String> {
    let found: Vars = std::env::vars_os()
        .filter(|(name, value)| name != SECRETS_FD_VAR && !value.is_empty() && secret(name))
        .collect();
    if found.is_empty() {
        return Ok(());
    }
    {
        let mut hidden = hidden();
        for (name, value) in &found {
            if let (Some(name), Some(value)) = (name.to_str(), value.to_str())
                && !hidden.iter().any(|(known, _)| known == name)
            {
                hidden.push((name.to_owned(), value.to_owned()));
            }
        }
    }
    // Debug builds let a test take the fallback path on purpose.
    let scrubbed = if cfg!(debug_assertions) && std::env::var_os(FORCE_REEXEC_VAR).is_some() {
        Err(format!("{FORCE_REEXEC_VAR} is set"))
    } else {
        scrub_environ_block(&found)
    };
    match scrubbed {
        Ok(()) => Ok(()),
        Err(scrub) => reexec_without(secret).map_err(|reexec| format!("{scrub}; {reexec}")),
    }
}

/// Overwrites the values of `found` in the block `/proc/self/environ`
/// shows, then reads that back to check they are gone.
fn scrub_environ_block(found: &[(OsString, OsString)]) -> Result<(), String> {
    let stat = std::fs::read_to_string("/proc/self/stat")
        .map_err(|err| format!("cannot read /proc/self/stat: {err}"))?;
    // env_start is field 50 and env_end 51 of the man page's numbering.
    let fields = crate::tools::procs::stat_fields(&stat);
    let (Some(start), Some(end)) = (
        fields
            .get(50 - 3)
            .and_then(|field| field.parse::<u64>().ok()),
        fields
            .get(51 - 3)
            .and_then(|field| field.parse::<u64>().ok()),
    ) else {
        return Err("/proc/self/stat has no environment bounds".to_owned());
    };
    if end <= start || end - start > MAX_ENV_BLOCK {
        return Err(format!("odd environment bounds {start}..{end}"));
    }
    let mem = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/proc/self/mem")
        .map_err(|err| format!("cannot open /proc/self/mem: {err}"))?;
    let mut block = vec![0u8; (end - start) as usize];
    mem.read_exact_at(&mut block, start)
        .map_err(|err| format!("cannot read the environment block: {err}"))?;
    let mut offset = 0u64;
    for entry in block.split(|byte| *byte == 0) {
        if let Some(eq) = entry.iter().position(|byte| *byte == b'=')
            && found
                .iter()
                .any(|(name, _)| name.as_bytes() == &entry[..eq])
        {
            let value = &entry[eq + 1..];
            mem.write_all_at(&vec![0u8; value.len()], start + offset + eq as u64 + 1)
                .map_err(|err| format!("cannot write the environment block: {err}"))?;
        }
        offset += entry.len() as u64 + 1;
    }
    let shown = std::fs::read("/proc/self/environ")
        .map_err(|err| format!("cannot read /proc/self/environ back: {err}"))?;
    let left = found.iter().any(|(_, value)| {
        shown
            .windows(value.len())
            .any(|window| window == value.as_bytes())
    });
    if left {
        return Err("a secret value is still in /proc/self/environ".to_owned());
    }
    Ok(())
}

fn reexec_without(secret: impl Fn(&OsStr) -> bool) -> Result<(), String> {
    let (secret, kept): (Vars, Vars) = std::env::vars_os()
        .filter(|(name, _)| name != SECRETS_FD_VAR)
        .partition(|(name, _)| secret(name));
    if secret.is_empty() {
        return Ok(());
    }
    let exe = std::env::current_exe().map_err(|err| format!("cannot find this binary: {err}"))?;
    let memfd = rustix::fs::memfd_create(MEMFD_NAME, rustix::fs::MemfdFlags::empty())
        .map_err(|err| format!("memfd_create: {err}"))?;
    let mut file = std::fs::File::from(memfd);
    let mut bytes = Vec::new();
    for (name, value) in hidden().iter() {
        push_pair(&mut bytes, name.as_bytes(), value.as_bytes());
    }
    for (name, value) in &secret {
        if !value.is_empty() {
            push_pair(&mut bytes, name.as_bytes(), value.as_bytes());
        }
    }
    file.write_all(&bytes)
        .and_then(|()| file.rewind())
        .map_err(|err| format!("cannot write the secrets file: {err}"))?;
    let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_else(|| exe.clone().into_os_string());
    let err = std::process::Command::new(&exe)
        .arg0(arg0)
        .args(args)
        .env_clear()
        .envs(kept)
        .env(SECRETS_FD_VAR, fd.to_string())
        .exec();
    Err(format!("cannot re-execute {}: {err}", exe.display()))
}

fn push_pair(bytes: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    bytes.extend_from_slice(name);
    bytes.push(0);
    bytes.extend_from_slice(value);
    bytes.push(0);
}

/// Reads and closes the inherited memory file, if `fd` really is one made
/// by [`reexec_without_secrets`]: a stray variable naming another
/// descriptor (stdin, say) is ignored.
fn read_memfd(fd: i32) -> Option<Vec<(String, String)>> {
    if fd < 3 {
        return None;
    }
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    if link.as_os_str().as_bytes() != format!("/memfd:{MEMFD_NAME} (deleted)").as_bytes() {
        return None;
    }
    let mut file = std::fs::File::from(take_fd(fd));
    let mut bytes = Vec::new();
    (&mut file)
        .take(MAX_SECRETS_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    // `file` is dropped here: the descriptor is closed before any command
    // could inherit it.
    let mut fields = bytes.split(|byte| *byte == 0);
    let mut vars = Vec::new();
    while let (Some(name), Some(value)) = (fields.next(), fields.next()) {
        if name.is_empty() {
            break;
        }
        if let (Ok(name), Ok(value)) = (std::str::from_utf8(name), std::str::from_utf8(value)) {
            vars.push((name.to_owned(), value.to_owned()));
        }
    }
    Some(vars)
}

/// Takes ownership of the descriptor the previous image of this process
/// left open for this one.
#[allow(unsafe_code)]
fn take_fd(fd: i32) -> std::os::fd::OwnedFd {
    use std::os::fd::FromRawFd;
    // SAFETY: `fd` is open (its /proc link was just read) and is the memfd
    // this process's previous image created without close-on-exec and
    // passed on by number. Nothing in this image has taken it: this runs
    // first in `main`, before any other code of ours opens or owns a
    // descriptor, and the standard library owns only 0 to 2, which
    // `read_memfd` refuses.
    unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }
}

/// Marks the process non-dumpable: its memory and `/proc` files are closed
/// to processes of the same user (commands), and it leaves no core dump.
pub fn forbid_dumps() -> bool {
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_round_trip_through_the_byte_format() {
        let mut bytes = Vec::new();
        push_pair(&mut bytes, b"AGENT_API_KEY", b"tok=en\nwith lines");
        push_pair(&mut bytes, b"X", b"");
        let mut fields = bytes.split(|byte| *byte == 0);
        assert_eq!(fields.next(), Some(b"AGENT_API_KEY".as_slice()));
        assert_eq!(fields.next(), Some(b"tok=en\nwith lines".as_slice()));
        assert_eq!(fields.next(), Some(b"X".as_slice()));
        assert_eq!(fields.next(), Some(b"".as_slice()));
    }

    #[test]
    fn a_stray_descriptor_number_is_not_taken() {
        assert!(read_memfd(0).is_none());
        assert!(read_memfd(1).is_none());
        // Open, but not our memfd.
        let file = std::fs::File::open("/dev/null").unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
        assert!(read_memfd(fd).is_none());
    }
}

//! `agent skills install SOURCE`: a skill fetched from a source and put in
//! the user's skills folder. Only a person runs this; no tool lets the
//! model install anything.
//!
//! Sources, the first form that fits wins: an `http(s)` URL ending in
//! `.zip` (the archive; `#FOLDER` picks a skill in it), any other `http(s)`
//! URL (a `SKILL.md`; an archive is recognised by its first bytes), or
//! `owner/repo[#path]` on GitHub (the raw `SKILL.md` of `path` on `main`,
//! else `master`). Every request goes through `web_fetch`'s address
//! guard, redirects included, with the config's `[web_fetch] allow_hosts`.
//! Nothing is written unless everything checked out (the archive's every
//! entry, the sizes, the SHA-256 when given, the `SKILL.md` itself), and
//! then all at once: into a hidden folder beside the target, renamed.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::StreamExt;
use sha2::Digest;

use super::format::{self, MAX_FILE_BYTES};
use super::unpack::{self, Member};
use crate::tools::web::{WebSettings, guarded_get};

/// An archive larger than this is not downloaded.
pub const MAX_ARCHIVE_BYTES: usize = 20 * 1024 * 1024;
/// One download, from the request to the last byte.
const TIMEOUT: Duration = Duration::from_secs(60);

/// What the install needs besides the request.
pub struct Settings {
    pub user_dir: PathBuf,
    pub github_raw_base: String,
    pub web: WebSettings,
}

/// What the person asked for.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub source: String,
    pub sha256: Option<String>,
    pub name: Option<String>,
    /// Replace a skill of the same name.
    pub force: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The request itself is wrong (exit status 2).
    #[error("{0}")]
    Usage(String),
    /// The source could not be had, or was refused; nothing was written.
    #[error("{0}")]
    Failed(String),
}

/// What was installed.
#[derive(Debug, Clone)]
pub struct Installed {
    pub name: String,
    pub dir: PathBuf,
    pub files: usize,
    /// Of the bytes downloaded.
    pub sha256: String,
    /// The URL the skill came from.
    pub url: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    File(String),
    Zip {
        url: String,
        folder: Option<String>,
    },
    GitHub {
        owner: String,
        repo: String,
        path: Vec<String>,
    },
}

fn github_part(text: &str, max: usize, dots: bool) -> bool {
    (1..=max).contains(&text.len())
        && text != "."
        && text != ".."
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || (dots && c == '.'))
}

/// Which kind of source `text` is.
pub fn parse_source(text: &str) -> Result<Source, String> {
    let text = text.trim();
    if text.starts_with("https://") || text.starts_with("http://") {
        let mut url = reqwest::Url::parse(text).map_err(|err| format!("{text}: {err}"))?;
        let folder = url.fragment().map(str::to_owned).filter(|f| !f.is_empty());
        url.set_fragment(None);
        return Ok(if url.path().to_ascii_lowercase().ends_with(".zip") {
            Source::Zip {
                url: url.to_string(),
                folder,
            }
        } else {
            Source::File(url.to_string())
        });
    }
    let (repo, path) = text.split_once('#').unwrap_or((text, ""));
    let shorthand = repo
        .split_once('/')
        .filter(|(owner, name)| github_part(owner, 39, false) && github_part(name, 100, true));
    let Some((owner, name)) = shorthand else {
        return Err(format!(
            "{text:?} is not a source: give an http(s) URL of a SKILL.md or a .zip, or owner/repo[#path]"
        ));
    };
    let mut parts: Vec<String> = path
        .split('/')
        .filter(|part| !part.is_empty())
        .map(str::to_owned)
        .collect();
    if parts.last().is_some_and(|last| last == "SKILL.md") {
        parts.pop();
    }
    if let Some(bad) = parts.iter().find(|part| !github_part(part, 255, true)) {
        return Err(format!(
            "{text:?}: the path part {bad:?} is not letters, digits, `.`, `-` or `_`"
        ));
    }
    Ok(Source::GitHub {
        owner: owner.to_owned(),
        repo: name.to_owned(),
        path: parts,
    })
}

/// The raw URL of the `SKILL.md` of a GitHub shorthand on `branch`.
pub fn raw_url(base: &str, owner: &str, repo: &str, branch: &str, path: &[String]) -> String {
    let mut url = format!("{}/{owner}/{repo}/{branch}", base.trim_end_matches('/'));
    for part in path {
        url.push('/');
        url.push_str(part);
    }
    url.push_str("/SKILL.md");
    url
}

enum Got {
    Bytes(Vec<u8>),
    NotFound,
}

/// The body of `url`, at most `limit` bytes, through the address guard.
async fn download(url: &str, web: &WebSettings, limit: usize) -> Result<Got, String> {
    let fetch = async {
        let response = guarded_get(url, web).await?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(Got::NotFound);
        }
        if !status.is_success() {
            return Err(format!("{url} answered HTTP {}", status.as_u16()));
        }
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|err| {
                format!(
                    "reading {url} failed: {}",
                    crate::model::http::describe_reqwest(&err)
                )
            })?;
            if body.len() + chunk.len() > limit {
                return Err(format!("{url} sends more than {limit} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Got::Bytes(body))
    };
    tokio::time::timeout(TIMEOUT, fetch)
        .await
        .unwrap_or_else(|_| Err(format!("{url} took over {} s", TIMEOUT.as_secs())))
}

/// The bytes of the source and the URL that gave them, and whether they
/// are an archive (and which folder in it).
async fn fetch(
    source: &Source,
    settings: &Settings,
) -> Result<(Vec<u8>, String, Option<Option<String>>), String> {
    let file_limit = MAX_FILE_BYTES as usize;
    match source {
        Source::Zip { url, folder } => match download(url, &settings.web, MAX_ARCHIVE_BYTES).await?
        {
            Got::Bytes(bytes) => Ok((bytes, url.clone(), Some(folder.clone()))),
            Got::NotFound => Err(format!("{url} answered HTTP 404")),
        },
        Source::File(url) => match download(url, &settings.web, MAX_ARCHIVE_BYTES).await? {
            Got::Bytes(bytes) if bytes.starts_with(b"PK\x03\x04") => {
                Ok((bytes, url.clone(), Some(None)))
            }
            Got::Bytes(bytes) if bytes.len() > file_limit => Err(format!(
                "{url} is over {file_limit} bytes, too large for a SKILL.md"
            )),
            Got::Bytes(bytes) => Ok((bytes, url.clone(), None)),
            Got::NotFound => Err(format!("{url} answered HTTP 404")),
        },
        Source::GitHub { owner, repo, path } => {
            let mut tried = Vec::new();
            for branch in ["main", "master"] {
                let url = raw_url(&settings.github_raw_base, owner, repo, branch, path);
                match download(&url, &settings.web, file_limit).await? {
                    Got::Bytes(bytes) => return Ok((bytes, url, None)),
                    Got::NotFound => tried.push(url),
                }
            }
            Err(format!("no SKILL.md at {}", tried.join(" nor at ")))
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Checks the request, fetches, checks what came, writes. Nothing is
/// written on any error.
pub async fn install(request: &Request, settings: &Settings) -> Result<Installed, InstallError> {
    let usage = InstallError::Usage;
    let expected = match &request.sha256 {
        Some(given) => {
            let given = given.trim().to_ascii_lowercase();
            if given.len() != 64 || !given.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(usage(format!("--sha256 {given:?} is not 64 hex digits")));
            }
            Some(given)
        }
        None => None,
    };
    if let Some(name) = &request.name
        && !format::valid_name(name)
    {
        return Err(usage(format!(
            "--name {name:?}: use 1 to {} ASCII letters, digits, `-` or `_`",
            format::MAX_NAME_CHARS
        )));
    }
    let source = parse_source(&request.source).map_err(usage)?;
    let failed = InstallError::Failed;
    let (bytes, url, archive) = fetch(&source, settings).await.map_err(failed)?;
    let sha256 = hex(&sha2::Sha256::digest(&bytes));
    if let Some(expected) = expected
        && expected != sha256
    {
        return Err(failed(format!(
            "the SHA-256 of what {url} sent is {sha256}, not {expected}; nothing was installed"
        )));
    }
    let mut members = match archive {
        Some(folder) => unpack::unpack(&bytes, folder.as_deref()).map_err(failed)?,
        None => vec![Member {
            path: PathBuf::from("SKILL.md"),
            bytes,
            executable: false,
        }],
    };
    let name = check_skill(&mut members, request.name.as_deref()).map_err(failed)?;
    let dir = write_all(&settings.user_dir, &name, &members, request.force).map_err(failed)?;
    Ok(Installed {
        name,
        dir,
        files: members.len(),
        sha256,
        url,
    })
}

/// The skill's name, once its `SKILL.md` parses; renamed to `rename`
/// when asked.
fn check_skill(members: &mut [Member], rename: Option<&str>) -> Result<String, String> {
    let skill = members
        .iter_mut()
        .find(|member| member.path == Path::new("SKILL.md"))
        .ok_or("the source has no SKILL.md")?;
    let text = std::str::from_utf8(&skill.bytes)
        .map_err(|_| "the SKILL.md is not UTF-8 text".to_owned())?;
    let parsed =
        format::parse(text).map_err(|err| format!("the SKILL.md is not a valid skill: {err}"))?;
    match rename {
        Some(name) if name != parsed.name => {
            let renamed = format::rename(text, name)
                .map_err(|err| format!("the SKILL.md cannot be renamed: {err}"))?;
            skill.bytes = renamed.into_bytes();
            Ok(name.to_owned())
        }
        _ => Ok(parsed.name),
    }
}

/// A hidden name beside the target, unique to this install.
fn hidden(user_dir: &Path, what: &str, name: &str) -> PathBuf {
    user_dir.join(format!(
        ".{what}-{name}-{}-{:08x}",
        std::process::id(),
        fastrand::u32(..)
    ))
}

/// Writes the files into a hidden folder beside the target, then renames
/// it into place: a session never sees half a skill. With `force`, a
/// skill already there is moved aside first and removed after.
fn write_all(
    user_dir: &Path,
    name: &str,
    members: &[Member],
    force: bool,
) -> Result<PathBuf, String> {
    let target = user_dir.join(name);
    if std::fs::symlink_metadata(&target).is_ok() && !force {
        return Err(format!(
            "a skill {name:?} is installed already ({}); --force replaces it",
            target.display()
        ));
    }
    std::fs::create_dir_all(user_dir)
        .map_err(|err| format!("cannot make {}: {err}", user_dir.display()))?;
    let temp = hidden(user_dir, "install", name);
    let written = std::fs::create_dir(&temp)
        .map_err(|err| format!("cannot make {}: {err}", temp.display()))
        .and_then(|()| write_members(&temp, members))
        .and_then(|()| swap_in(user_dir, &temp, &target, name));
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&temp);
    }
    written.map(|()| target)
}

fn write_members(folder: &Path, members: &[Member]) -> Result<(), String> {
    for member in members {
        let path = folder.join(&member.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|err| format!("cannot make {}: {err}", parent.display()))?;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(if member.executable { 0o755 } else { 0o644 })
            .open(&path)
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        file.write_all(&member.bytes)
            .and_then(|()| file.sync_all())
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    }
    Ok(())
}

fn swap_in(user_dir: &Path, temp: &Path, target: &Path, name: &str) -> Result<(), String> {
    let moved =
        |err: std::io::Error| format!("cannot move the skill into {}: {err}", target.display());
    if std::fs::symlink_metadata(target).is_err() {
        return std::fs::rename(temp, target).map_err(moved);
    }
    let old = hidden(user_dir, "replaced", name);
    std::fs::rename(target, &old).map_err(moved)?;
    if let Err(err) = std::fs::rename(temp, target) {
        let _ = std::fs::rename(&old, target);
        return Err(moved(err));
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_told_apart() {
        assert_eq!(
            parse_source("https://x.test/a/SKILL.md").unwrap(),
            Source::File("https://x.test/a/SKILL.md".into())
        );
        assert_eq!(
            parse_source("https://x.test/repo.ZIP#skills/pdf").unwrap(),
            Source::Zip {
                url: "https://x.test/repo.ZIP".into(),
                folder: Some("skills/pdf".into())
            }
        );
        assert_eq!(
            parse_source("acme/tools.rs#skills/pdf/SKILL.md").unwrap(),
            Source::GitHub {
                owner: "acme".into(),
                repo: "tools.rs".into(),
                path: vec!["skills".into(), "pdf".into()]
            }
        );
        assert_eq!(
            parse_source("acme/tools").unwrap(),
            Source::GitHub {
                owner: "acme".into(),
                repo: "tools".into(),
                path: vec![]
            }
        );
        for bad in [
            "acme",
            "acme/..",
            "acme/tools#../x",
            "ftp://x/y",
            "a/b/c",
            "./x",
        ] {
            assert!(parse_source(bad).is_err(), "{bad}");
        }
        assert_eq!(
            raw_url("http://b/", "o", "r", "main", &["p".into()]),
            "http://b/o/r/main/p/SKILL.md"
        );
    }

    #[test]
    fn a_replaced_skill_is_swapped_whole() {
        let root = tempfile::tempdir().unwrap();
        let user = root.path().join("skills");
        let member = |text: &str| Member {
            path: "SKILL.md".into(),
            bytes: text.as_bytes().to_vec(),
            executable: false,
        };
        write_all(&user, "a", &[member("one")], false).unwrap();
        let again = write_all(&user, "a", &[member("two")], false).unwrap_err();
        assert!(again.contains("installed already"), "{again}");
        write_all(&user, "a", &[member("two")], true).unwrap();
        assert_eq!(
            std::fs::read_to_string(user.join("a/SKILL.md")).unwrap(),
            "two"
        );
        let left: Vec<_> = std::fs::read_dir(&user).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary folder is left behind");
    }

    #[test]
    fn a_rename_reaches_the_front_matter() {
        let mut members = vec![Member {
            path: "SKILL.md".into(),
            bytes: b"---\nname: pdf\ndescription: d\n---\nbody".to_vec(),
            executable: false,
        }];
        assert_eq!(check_skill(&mut members, Some("pdf2")).unwrap(), "pdf2");
        let text = String::from_utf8(members[0].bytes.clone()).unwrap();
        assert_eq!(format::parse(&text).unwrap().name, "pdf2");
        let mut broken = vec![Member {
            path: "SKILL.md".into(),
            bytes: b"no front matter".to_vec(),
            executable: false,
        }];
        assert!(
            check_skill(&mut broken, None)
                .unwrap_err()
                .contains("not a valid skill")
        );
    }
}

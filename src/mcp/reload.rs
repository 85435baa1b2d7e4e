//! Whether the files that define the MCP servers changed since the
//! session last read them, and what they define now. Asked before every
//! model call, so it must cost next to nothing when nothing changed: a
//! `stat` per file, and a read only when the stat differs (then a content
//! hash decides, so a file saved again unchanged restarts nothing).
//!
//! No watcher thread: the files are few, a model call is rare next to a
//! `stat`, and a file watched by inotify would need its folder watched to
//! see an editor's rename-over-save.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use super::config::{self, McpConfig, PROJECT_FILE, ServerConfig, ServerSpec, Sources};

/// The `[mcp]` and `[mcp_servers]` tables of a config file's text, after
/// every check the file gets at start-up (the caller's parser, so this
/// module does not depend on the whole config).
pub type ParseConfig = fn(&str) -> Result<(McpConfig, ServerTables), String>;
pub type ServerTables = std::collections::BTreeMap<String, ServerConfig>;

/// What the files define now.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub mcp: McpConfig,
    pub servers: Vec<ServerSpec>,
}

/// What a file looked like when last read: enough to see that it may
/// have changed (`stat`) and that it did (its hash).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    /// `None`: it did not exist.
    stamp: Option<(SystemTime, u64, u64)>,
    hash: Option<[u8; 32]>,
}

struct Watched {
    path: PathBuf,
    seen: Seen,
}

pub struct Reloader {
    /// The config file, and whether it was named (`--config`): a named
    /// one must exist, the default one may not.
    config: Option<(PathBuf, bool)>,
    /// `--mcp-config`, in the order given.
    files: Vec<PathBuf>,
    work_dir: PathBuf,
    parse: ParseConfig,
    lookup: fn(&str) -> Option<String>,
    /// The config, the `--mcp-config` files and the project's file.
    watched: Vec<Watched>,
}

impl Reloader {
    /// Remembers how the files look now: made before they are read for
    /// the session's start, so a change made while they are read is seen
    /// at the first check.
    pub fn new(
        config: Option<(PathBuf, bool)>,
        files: Vec<PathBuf>,
        work_dir: PathBuf,
        parse: ParseConfig,
        lookup: fn(&str) -> Option<String>,
    ) -> Self {
        let paths = config
            .iter()
            .map(|(path, _)| path.clone())
            .chain(files.iter().cloned())
            .chain(std::iter::once(work_dir.join(PROJECT_FILE)));
        let watched = paths
            .map(|path| Watched {
                seen: look(&path, None).0,
                path,
            })
            .collect();
        Reloader {
            config,
            files,
            work_dir,
            parse,
            lookup,
            watched,
        }
    }

    /// `None` when no file changed; else what they define now, or why
    /// they cannot be used (then the running servers are to be kept). A
    /// change is reported once: the next check compares with the files as
    /// they are now.
    pub fn check(&mut self) -> Option<Result<Loaded, String>> {
        let mut changed = false;
        for watched in &mut self.watched {
            let (seen, differs) = look(&watched.path, Some(&watched.seen));
            changed |= differs;
            watched.seen = seen;
        }
        changed.then(|| self.load())
    }

    /// Reads every file as the start-up does.
    pub fn load(&self) -> Result<Loaded, String> {
        let (mcp, servers) = match &self.config {
            Some((path, named)) => match std::fs::read_to_string(path) {
                Ok(text) => (self.parse)(&text).map_err(|why| {
                    format!("the config file {} is not valid: {why}", path.display())
                })?,
                Err(err) if *named || err.kind() != std::io::ErrorKind::NotFound => {
                    return Err(format!(
                        "cannot read the config file {}: {err}",
                        path.display()
                    ));
                }
                Err(_) => Default::default(),
            },
            None => Default::default(),
        };
        let sources = Sources {
            config: &servers,
            mcp: &mcp,
            files: &self.files,
            work_dir: &self.work_dir,
        };
        let servers = config::collect(&sources, &self.lookup)?;
        Ok(Loaded { mcp, servers })
    }
}

/// How `path` looks now, and whether its content differs from `before`.
/// The content is read only when the `stat` differs.
fn look(path: &Path, before: Option<&Seen>) -> (Seen, bool) {
    use std::os::unix::fs::MetadataExt;
    let stamp = std::fs::metadata(path).ok().map(|meta| {
        (
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
            meta.ino(),
        )
    });
    if let Some(before) = before
        && before.stamp == stamp
    {
        return (before.clone(), false);
    }
    // A file that cannot be read counts as absent: its error comes from
    // `load`, which reads it again.
    let hash = stamp
        .and_then(|_| std::fs::read(path).ok())
        .map(|bytes| Sha256::digest(&bytes).into());
    let differs = before.is_some_and(|before| before.hash != hash);
    (Seen { stamp, hash }, differs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(McpConfig, ServerTables), String> {
        #[derive(serde::Deserialize)]
        struct Tables {
            #[serde(default)]
            mcp: McpConfig,
            #[serde(default)]
            mcp_servers: ServerTables,
        }
        let tables: Tables = toml::from_str(text).map_err(|err| err.to_string())?;
        Ok((tables.mcp, tables.mcp_servers))
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn commands(loaded: &Loaded) -> Vec<&str> {
        loaded.servers.iter().map(|s| s.command.as_str()).collect()
    }

    #[test]
    fn a_change_is_seen_once_and_a_save_without_change_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().to_path_buf();
        let config = work.join("config.toml");
        std::fs::write(&config, "[mcp_servers.a]\ncommand = \"a\"\n").unwrap();
        let mut reloader = Reloader::new(
            Some((config.clone(), true)),
            Vec::new(),
            work.clone(),
            parse,
            no_env,
        );
        assert_eq!(reloader.check(), None);
        assert_eq!(commands(&reloader.load().unwrap()), ["a"]);
        // The same bytes written again: a new modification time, no change.
        std::fs::write(&config, "[mcp_servers.a]\ncommand = \"a\"\n").unwrap();
        assert_eq!(reloader.check(), None);
        std::fs::write(&config, "[mcp_servers.b]\ncommand = \"b\"\n").unwrap();
        let loaded = reloader.check().unwrap().unwrap();
        assert_eq!(commands(&loaded), ["b"]);
        assert_eq!(reloader.check(), None, "reported once");
    }

    #[test]
    fn a_broken_file_is_an_error_once_and_its_fix_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().to_path_buf();
        let flag_file = work.join("servers.json");
        std::fs::write(&flag_file, r#"{"mcpServers": {"a": {"command": "a"}}}"#).unwrap();
        let mut reloader = Reloader::new(None, vec![flag_file.clone()], work, parse, no_env);
        std::fs::write(&flag_file, r#"{"mcpServers": {"a": {"command": "#).unwrap();
        let broken = reloader.check().unwrap().unwrap_err();
        assert!(broken.contains("servers.json is not valid"), "{broken}");
        assert_eq!(reloader.check(), None);
        std::fs::write(&flag_file, r#"{"mcpServers": {"c": {"command": "c"}}}"#).unwrap();
        assert_eq!(commands(&reloader.check().unwrap().unwrap()), ["c"]);
        std::fs::remove_file(&flag_file).unwrap();
        let gone = reloader.check().unwrap().unwrap_err();
        assert!(gone.contains("cannot read the MCP config"), "{gone}");
    }

    #[test]
    fn a_default_config_may_come_and_go_and_the_project_file_counts_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().to_path_buf();
        let config = work.join("absent.toml");
        let mut reloader = Reloader::new(
            Some((config.clone(), false)),
            Vec::new(),
            work.clone(),
            parse,
            no_env,
        );
        assert!(reloader.load().unwrap().servers.is_empty());
        std::fs::write(
            work.join(PROJECT_FILE),
            r#"{"mcpServers": {"p": {"command": "p"}}}"#,
        )
        .unwrap();
        let loaded = reloader.check().unwrap().unwrap();
        assert!(loaded.servers.is_empty(), "not read unless the config asks");
        std::fs::write(&config, "[mcp]\nload_project_file = true\ngate_above = 3\n").unwrap();
        let loaded = reloader.check().unwrap().unwrap();
        assert_eq!(commands(&loaded), ["p"]);
        assert_eq!(loaded.mcp.gate_above, 3);
        std::fs::remove_file(&config).unwrap();
        assert!(reloader.check().unwrap().unwrap().servers.is_empty());
    }
}

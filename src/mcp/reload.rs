//! Whether the files that define the MCP servers changed since the
//! session last read them, and what they define now. Asked before every
//! model call, so it must cost next to nothing when nothing changed: a
//! `stat` per file, and a read only when the stat differs (then a content
//! hash decides, so a file saved again unchanged restarts nothing).
//!
//! Only files out of the commands' reach are looked at again: a server
//! runs outside the sandbox that confines commands and may be handed
//! secrets, so a file a command could write would let the model start any
//! program it likes, unconfined. The caller says which files the kernel
//! keeps from commands (the fence protects them); every other file, the
//! work dir's `.mcp.json` always, counts as it was at the start.
//!
//! No watcher thread: the files are few, a model call is rare next to a
//! `stat`, and a file watched by inotify would need its folder watched to
//! see an editor's rename-over-save.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use super::config::{self, Defined, McpConfig, ServerConfig, ServerSpec};

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

/// Where the servers are defined.
pub struct Files {
    /// The config file, and whether it was named (`--config`): a named
    /// one must exist, the default one may not.
    pub config: Option<(PathBuf, bool)>,
    /// `--mcp-config`, in the order given.
    pub mcp_configs: Vec<PathBuf>,
    pub work_dir: PathBuf,
    /// Those of the files above that no command can write.
    pub guarded: Vec<PathBuf>,
}

/// What a file looked like when last read: enough to see that it may
/// have changed (`stat`) and that it did (its hash).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    /// `None`: it did not exist.
    stamp: Option<(SystemTime, u64, u64)>,
    hash: Option<[u8; 32]>,
}

/// One file: its text as the session uses it, and, for a guarded file,
/// how it looked then.
struct Source {
    path: PathBuf,
    text: Result<String, String>,
    seen: Option<Seen>,
}

pub struct Reloader {
    config: Option<(Source, bool)>,
    mcp_configs: Vec<Source>,
    /// The work dir's `.mcp.json` as it was at the start.
    project: Result<Option<Defined>, String>,
    work_dir: PathBuf,
    parse: ParseConfig,
    lookup: fn(&str) -> Option<String>,
}

impl Reloader {
    /// Reads every file now; [`Reloader::load`] gives what they define,
    /// for the start, and [`Reloader::check`] what changed since.
    pub fn new(files: Files, parse: ParseConfig, lookup: fn(&str) -> Option<String>) -> Self {
        let source = |path: PathBuf| {
            let (seen, text) = match files.guarded.contains(&path) {
                true => {
                    let (seen, _, text) = look(&path, None);
                    (Some(seen), text.unwrap_or_else(|| read(&path)))
                }
                false => (None, read(&path)),
            };
            Source { text, path, seen }
        };
        Reloader {
            config: files.config.map(|(path, named)| (source(path), named)),
            mcp_configs: files.mcp_configs.into_iter().map(source).collect(),
            project: config::project_servers(&files.work_dir),
            work_dir: files.work_dir,
            parse,
            lookup,
        }
    }

    /// `None` when no guarded file changed; else what the files define
    /// now, or why they cannot be used (then the running servers are to
    /// be kept). A change is reported once: the next check compares with
    /// the files as they are now.
    pub fn check(&mut self) -> Option<Result<Loaded, String>> {
        let mut changed = false;
        let sources = self.config.iter_mut().map(|(source, _)| source);
        for source in sources.chain(self.mcp_configs.iter_mut()) {
            let Some(before) = &source.seen else {
                continue;
            };
            let (seen, differs, text) = look(&source.path, Some(before));
            if let (true, Some(text)) = (differs, text) {
                source.text = text;
                changed = true;
            }
            source.seen = Some(seen);
        }
        changed.then(|| self.load())
    }

    /// No file is looked at again: the caller found that commands can
    /// write them all.
    pub fn unguard(&mut self) {
        let sources = self.config.iter_mut().map(|(source, _)| source);
        for source in sources.chain(self.mcp_configs.iter_mut()) {
            source.seen = None;
        }
    }

    /// What the files define, as the session knows them.
    pub fn load(&self) -> Result<Loaded, String> {
        let (mcp, servers) = match &self.config {
            None => Default::default(),
            Some((source, named)) => match &source.text {
                Ok(text) => (self.parse)(text).map_err(|why| {
                    format!(
                        "the config file {} is not valid: {why}",
                        source.path.display()
                    )
                })?,
                Err(_) if !named && !source.path.exists() => Default::default(),
                Err(why) => {
                    return Err(format!(
                        "cannot read the config file {}: {why}",
                        source.path.display()
                    ));
                }
            },
        };
        let files = self
            .mcp_configs
            .iter()
            .map(|source| {
                let text = source.text.as_ref().map_err(|why| {
                    format!(
                        "cannot read the MCP config {}: {why}",
                        source.path.display()
                    )
                })?;
                let servers = config::parse_claude_file(&source.path, text)?;
                Ok((source.path.display().to_string(), servers))
            })
            .collect::<Result<Vec<Defined>, String>>()?;
        let project = match mcp.load_project_file {
            true => self.project.clone()?,
            false => None,
        };
        let servers = config::merge(
            project.as_ref(),
            &servers,
            &files,
            &self.work_dir,
            &self.lookup,
        )?;
        Ok(Loaded { mcp, servers })
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|err| err.to_string())
}

/// How `path` looks now, whether its content differs from `before`, and
/// its text when it had to be read (the `stat` differs), so that a change
/// is read once.
fn look(path: &Path, before: Option<&Seen>) -> (Seen, bool, Option<Result<String, String>>) {
    use std::os::unix::fs::MetadataExt;
    let stamp = std::fs::metadata(path).ok().map(|meta| {
        let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        (modified, meta.len(), meta.ino())
    });
    if let Some(before) = before
        && before.stamp == stamp
    {
        return (before.clone(), false, None);
    }
    let text = read(path);
    let hash = match (&stamp, &text) {
        (Some(_), Ok(text)) => Some(Sha256::digest(text.as_bytes()).into()),
        _ => None,
    };
    let differs = before.is_some_and(|before| before.hash != hash);
    (Seen { stamp, hash }, differs, Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::PROJECT_FILE;

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

    fn reloader(
        config: Option<(PathBuf, bool)>,
        mcp_configs: Vec<PathBuf>,
        work: &Path,
    ) -> Reloader {
        let guarded = config
            .iter()
            .map(|(path, _)| path.clone())
            .chain(mcp_configs.iter().cloned())
            .collect();
        let files = Files {
            config,
            mcp_configs,
            work_dir: work.to_path_buf(),
            guarded,
        };
        Reloader::new(files, parse, no_env)
    }

    #[test]
    fn a_change_is_seen_once_and_a_save_without_change_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(&config, "[mcp_servers.a]\ncommand = \"a\"\n").unwrap();
        let mut reloader = reloader(Some((config.clone(), true)), Vec::new(), dir.path());
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
        let flag_file = dir.path().join("servers.json");
        std::fs::write(&flag_file, r#"{"mcpServers": {"a": {"command": "a"}}}"#).unwrap();
        let mut reloader = reloader(None, vec![flag_file.clone()], dir.path());
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
    fn files_commands_can_write_count_as_they_were_at_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(&config, "[mcp]\nload_project_file = true\n").unwrap();
        std::fs::write(
            work.join(PROJECT_FILE),
            r#"{"mcpServers": {"p": {"command": "p"}}}"#,
        )
        .unwrap();
        let open_file = work.join("servers.json");
        std::fs::write(&open_file, r#"{"mcpServers": {"o": {"command": "o"}}}"#).unwrap();
        let files = Files {
            config: Some((config.clone(), true)),
            mcp_configs: vec![open_file.clone()],
            work_dir: work.clone(),
            guarded: vec![config.clone()],
        };
        let mut reloader = Reloader::new(files, parse, no_env);
        assert_eq!(commands(&reloader.load().unwrap()), ["o", "p"]);
        // What a command could write: the project's file and a file in the
        // work dir. Neither counts, even when a guarded file changes too.
        std::fs::write(
            work.join(PROJECT_FILE),
            r#"{"mcpServers": {"evil": {"command": "evil"}}}"#,
        )
        .unwrap();
        std::fs::write(&open_file, r#"{"mcpServers": {"evil2": {"command": "x"}}}"#).unwrap();
        assert_eq!(reloader.check(), None);
        std::fs::write(&config, "[mcp]\nload_project_file = false\n").unwrap();
        assert_eq!(commands(&reloader.check().unwrap().unwrap()), ["o"]);
        std::fs::write(&config, "[mcp]\nload_project_file = true\ngate_above = 3\n").unwrap();
        let loaded = reloader.check().unwrap().unwrap();
        assert_eq!(commands(&loaded), ["o", "p"], "as at the start");
        assert_eq!(loaded.mcp.gate_above, 3);
    }

    #[test]
    fn a_default_config_may_go() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(&config, "[mcp_servers.a]\ncommand = \"a\"\n").unwrap();
        let mut reloader = reloader(Some((config.clone(), false)), Vec::new(), dir.path());
        std::fs::remove_file(&config).unwrap();
        assert!(reloader.check().unwrap().unwrap().servers.is_empty());
        let absent = dir.path().join("absent.toml");
        let reloader = super::Reloader::new(
            Files {
                config: Some((absent, false)),
                mcp_configs: Vec::new(),
                work_dir: dir.path().to_path_buf(),
                guarded: Vec::new(),
            },
            parse,
            no_env,
        );
        assert!(reloader.load().unwrap().servers.is_empty());
    }
}

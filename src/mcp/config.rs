//! Where MCP servers are defined, and what each definition comes to: the
//! config's `[mcp_servers.NAME]` tables (Codex's shape), the files of
//! `--mcp-config` and, only when `[mcp] load_project_file` says so, the
//! work dir's `.mcp.json` (both in Claude Code's shape). Nothing here
//! starts a process; a definition that cannot be used is an error that
//! names it, before the session opens.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// A work dir's own server list: it starts programs, so it is read only
/// when the config asks for it.
pub const PROJECT_FILE: &str = ".mcp.json";

const DEFAULT_STARTUP_TIMEOUT_SEC: f64 = 30.0;
const DEFAULT_TOOL_TIMEOUT_SEC: f64 = 60.0;
const MAX_STARTUP_TIMEOUT_SEC: f64 = 600.0;
const MAX_TOOL_TIMEOUT_SEC: f64 = 86_400.0;
/// A server's name is part of its tools' names, which are at most 64.
const MAX_SERVER_NAME: usize = 48;

/// `[mcp]` in the config file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct McpConfig {
    /// Read the work dir's `.mcp.json` too.
    pub load_project_file: bool,
    /// Above this many server tools, a request offers only the most
    /// relevant ones (`session/gating.rs`).
    pub gate_above: usize,
    /// How many a gated request offers, besides those offered before.
    pub offered: usize,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            load_project_file: false,
            gate_above: 20,
            offered: 10,
        }
    }
}

impl McpConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.offered == 0 {
            return Err("mcp.offered must be at least 1".to_owned());
        }
        Ok(())
    }
}

/// `[mcp_servers.NAME]` in the config file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Set for the server, on top of the agent's environment less its
    /// secrets; a secret named here is passed.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Relative to the work dir; the work dir when absent.
    pub cwd: Option<PathBuf>,
    #[serde(default = "enabled")]
    pub enabled: bool,
    #[serde(default = "startup_timeout")]
    pub startup_timeout_sec: f64,
    #[serde(default = "tool_timeout")]
    pub tool_timeout_sec: f64,
    /// Only these tools of the server are offered.
    pub enabled_tools: Option<Vec<String>>,
    #[serde(default)]
    pub disabled_tools: Vec<String>,
}

fn enabled() -> bool {
    true
}

fn startup_timeout() -> f64 {
    DEFAULT_STARTUP_TIMEOUT_SEC
}

fn tool_timeout() -> f64 {
    DEFAULT_TOOL_TIMEOUT_SEC
}

impl ServerConfig {
    /// The checks that need no environment: done when the config file is
    /// parsed, so a bad value is an error whatever the flags.
    pub fn validate(&self, name: &str) -> Result<(), String> {
        check_name(name)?;
        if self.command.trim().is_empty() {
            return Err(format!("mcp_servers.{name}.command is empty"));
        }
        let in_range = |value: f64, max: f64| value > 0.0 && value <= max;
        if !in_range(self.startup_timeout_sec, MAX_STARTUP_TIMEOUT_SEC) {
            return Err(format!(
                "mcp_servers.{name}.startup_timeout_sec must be above 0 and at most {MAX_STARTUP_TIMEOUT_SEC}"
            ));
        }
        if !in_range(self.tool_timeout_sec, MAX_TOOL_TIMEOUT_SEC) {
            return Err(format!(
                "mcp_servers.{name}.tool_timeout_sec must be above 0 and at most {MAX_TOOL_TIMEOUT_SEC}"
            ));
        }
        Ok(())
    }
}

fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_SERVER_NAME || name.chars().any(char::is_control) {
        return Err(format!(
            "MCP server name {name:?}: use 1 to {MAX_SERVER_NAME} characters, no control characters"
        ));
    }
    Ok(())
}

/// One entry of a Claude Code `mcpServers` object. Only servers run as a
/// child process are supported; the fields of the other kinds are named
/// so that such an entry is refused with a reason, not as a typo.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaudeServer {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<serde::de::IgnoredAny>,
    headers: Option<serde::de::IgnoredAny>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClaudeFile {
    mcp_servers: BTreeMap<String, ClaudeServer>,
}

/// A server ready to start: every `${VAR}` expanded, paths absolute.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: PathBuf,
    pub startup_timeout: Duration,
    pub tool_timeout: Duration,
    pub enabled_tools: Option<Vec<String>>,
    pub disabled_tools: Vec<String>,
    /// Where it was defined, for messages.
    pub defined_in: String,
}

impl ServerSpec {
    /// Whether the server's tool `tool` is offered.
    pub fn offers(&self, tool: &str) -> bool {
        let enabled = self
            .enabled_tools
            .as_ref()
            .is_none_or(|list| list.iter().any(|name| name == tool));
        enabled && !self.disabled_tools.iter().any(|name| name == tool)
    }
}

/// The servers one file defines, and how messages name the file.
pub type Defined = (String, Vec<(String, ServerConfig)>);

/// The work dir's `.mcp.json`, if there is one.
pub fn project_servers(work_dir: &Path) -> Result<Option<Defined>, String> {
    let path = work_dir.join(PROJECT_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    Ok(Some((path.display().to_string(), read_claude_file(&path)?)))
}

/// The servers of every source, a later one replacing a name defined by
/// an earlier one: the project's file first (it is the least trusted, so
/// it never replaces a server the user defined), the config, the files.
pub fn merge(
    project: Option<&Defined>,
    config: &BTreeMap<String, ServerConfig>,
    files: &[Defined],
    work_dir: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<ServerSpec>, String> {
    let mut all: BTreeMap<String, (ServerConfig, String)> = BTreeMap::new();
    let defined = |(shown, servers): &Defined| {
        servers
            .iter()
            .map(|(name, server)| (name.clone(), (server.clone(), shown.clone())))
            .collect::<Vec<_>>()
    };
    all.extend(project.map(defined).unwrap_or_default());
    for (name, server) in config {
        all.insert(name.clone(), (server.clone(), "the config file".to_owned()));
    }
    for file in files {
        all.extend(defined(file));
    }
    all.into_iter()
        .filter(|(_, (server, _))| server.enabled)
        .map(|(name, (server, defined_in))| resolve(&name, server, defined_in, work_dir, lookup))
        .collect()
}

fn resolve(
    name: &str,
    server: ServerConfig,
    defined_in: String,
    work_dir: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerSpec, String> {
    let expand = |text: &str| {
        expand(text, lookup).map_err(|why| format!("MCP server {name:?} ({defined_in}): {why}"))
    };
    let cwd = match &server.cwd {
        Some(cwd) => work_dir.join(expand(&cwd.to_string_lossy())?),
        None => work_dir.to_path_buf(),
    };
    Ok(ServerSpec {
        name: name.to_owned(),
        command: expand(&server.command)?,
        args: server
            .args
            .iter()
            .map(|arg| expand(arg))
            .collect::<Result<_, _>>()?,
        env: server
            .env
            .iter()
            .map(|(key, value)| Ok((key.clone(), expand(value)?)))
            .collect::<Result<_, String>>()?,
        cwd,
        startup_timeout: Duration::from_secs_f64(server.startup_timeout_sec),
        tool_timeout: Duration::from_secs_f64(server.tool_timeout_sec),
        enabled_tools: server.enabled_tools,
        disabled_tools: server.disabled_tools,
        defined_in,
    })
}

/// The servers of a file in Claude Code's format.
fn read_claude_file(path: &Path) -> Result<Vec<(String, ServerConfig)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| format!("cannot read the MCP config {}: {err}", path.display()))?;
    parse_claude_file(path, &text)
}

/// [`parse_claude`], its error naming the file.
pub fn parse_claude_file(path: &Path, text: &str) -> Result<Vec<(String, ServerConfig)>, String> {
    parse_claude(text)
        .map_err(|why| format!("the MCP config {} is not valid: {why}", path.display()))
}

pub fn parse_claude(text: &str) -> Result<Vec<(String, ServerConfig)>, String> {
    let file: ClaudeFile = serde_json::from_str(text).map_err(|err| err.to_string())?;
    file.mcp_servers
        .into_iter()
        .map(|(name, entry)| {
            let server = from_claude(&name, entry)?;
            server.validate(&name)?;
            Ok((name, server))
        })
        .collect()
}

fn from_claude(name: &str, entry: ClaudeServer) -> Result<ServerConfig, String> {
    if let Some(kind) = entry.kind.as_deref().filter(|kind| *kind != "stdio") {
        return Err(format!(
            "server {name:?} is of type {kind:?}; only servers run as a command (stdio) are supported"
        ));
    }
    if entry.url.is_some() || entry.headers.is_some() {
        return Err(format!(
            "server {name:?} has a url; only servers run as a command (stdio) are supported"
        ));
    }
    let Some(command) = entry.command else {
        return Err(format!("server {name:?} has no command"));
    };
    Ok(ServerConfig {
        command,
        args: entry.args,
        env: entry.env,
        cwd: entry.cwd,
        enabled: true,
        startup_timeout_sec: DEFAULT_STARTUP_TIMEOUT_SEC,
        tool_timeout_sec: DEFAULT_TOOL_TIMEOUT_SEC,
        enabled_tools: None,
        disabled_tools: Vec::new(),
    })
}

/// `text` with each `${VAR}` replaced by the variable's value and each
/// `${VAR:-default}` by the value, or `default` when the variable is unset
/// or empty (as in a shell). A `$` not followed by `{` is kept. A variable
/// that is unset, without a default, is an error: a server started with
/// half its settings fails later and less clearly.
pub fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let inner = &rest[start + 2..];
        let Some(end) = inner.find('}') else {
            return Err(format!("unclosed ${{ in {text:?}"));
        };
        let (name, default) = match inner[..end].split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (&inner[..end], None),
        };
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!("${{{name}}} is not a variable name"));
        }
        match (lookup(name).filter(|value| !value.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(format!(
                    "${{{name}}} is not set (write ${{{name}:-default}} for a default)"
                ));
            }
        }
        rest = &inner[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/me".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn variables_expand_with_and_without_defaults() {
        assert_eq!(expand("${HOME}/x", &env).unwrap(), "/home/me/x");
        assert_eq!(expand("a${NOPE:-b c}d", &env).unwrap(), "ab cd");
        assert_eq!(expand("${EMPTY:-fallback}", &env).unwrap(), "fallback");
        assert_eq!(expand("${HOME:-x}", &env).unwrap(), "/home/me");
        assert_eq!(expand("$HOME and $", &env).unwrap(), "$HOME and $");
        let unset = expand("--token=${NOPE}", &env).unwrap_err();
        assert!(unset.contains("${NOPE} is not set"), "{unset}");
        assert!(expand("${HOME", &env).unwrap_err().contains("unclosed"));
        assert!(
            expand("${1X}", &env)
                .unwrap_err()
                .contains("not a variable")
        );
    }

    #[test]
    fn claude_files_give_stdio_servers_and_refuse_the_rest() {
        let servers = parse_claude(
            r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"], "env": {"A": "1"}},
                "typed": {"type": "stdio", "command": "srv"}}}"#,
        )
        .unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(servers[0].0, "fs");
        assert_eq!(servers[0].1.args, ["-y", "x"]);
        assert_eq!(servers[0].1.tool_timeout_sec, 60.0);
        let http = parse_claude(r#"{"mcpServers": {"web": {"type": "http", "url": "http://x"}}}"#);
        assert!(http.unwrap_err().contains("only servers run as a command"));
        let typo = parse_claude(r#"{"mcpServers": {"x": {"command": "c", "arg": []}}}"#);
        assert!(typo.unwrap_err().contains("unknown field `arg`"));
        assert!(parse_claude(r#"{"mcpServers": {"x": {"args": []}}}"#).is_err());
        assert!(parse_claude(r#"{"servers": {}}"#).is_err());
    }

    #[test]
    fn sources_are_merged_with_the_flags_last_and_the_project_first() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().canonicalize().unwrap();
        assert_eq!(project_servers(&work).unwrap(), None);
        std::fs::write(
            work.join(PROJECT_FILE),
            r#"{"mcpServers": {"a": {"command": "project-a"}, "p": {"command": "${HOME}/p"}}}"#,
        )
        .unwrap();
        let project = project_servers(&work).unwrap();
        let flag_file = work.join("flag.json");
        let text = r#"{"mcpServers": {"b": {"command": "flag-b", "cwd": "sub"}}}"#;
        let files = vec![(
            flag_file.display().to_string(),
            parse_claude_file(&flag_file, text).unwrap(),
        )];
        let mut config = BTreeMap::new();
        for name in ["a", "b"] {
            let server: ServerConfig =
                toml::from_str(&format!("command = \"config-{name}\"")).unwrap();
            config.insert(name.to_owned(), server);
        }
        config.insert(
            "off".to_owned(),
            toml::from_str("command = \"x\"\nenabled = false").unwrap(),
        );
        let specs = merge(None, &config, &files, &work, &env).unwrap();
        let commands: Vec<_> = specs.iter().map(|s| s.command.as_str()).collect();
        assert_eq!(
            commands,
            ["config-a", "flag-b"],
            "no project file, no disabled server"
        );
        assert_eq!(specs[1].cwd, work.join("sub"));
        assert_eq!(specs[0].cwd, work);
        assert_eq!(specs[0].startup_timeout, Duration::from_secs(30));
        let specs = merge(project.as_ref(), &config, &files, &work, &env).unwrap();
        let commands: Vec<_> = specs.iter().map(|s| s.command.as_str()).collect();
        assert_eq!(commands, ["config-a", "flag-b", "/home/me/p"]);
        assert!(specs[2].defined_in.ends_with(PROJECT_FILE));
    }

    #[test]
    fn tool_lists_choose_what_is_offered() {
        let server: ServerConfig = toml::from_str(
            "command = \"c\"\nenabled_tools = [\"a\", \"b\"]\ndisabled_tools = [\"b\"]",
        )
        .unwrap();
        let spec = resolve("s", server, String::new(), Path::new("/"), &env).unwrap();
        assert!(spec.offers("a"));
        assert!(!spec.offers("b"));
        assert!(!spec.offers("c"));
    }

    #[test]
    fn bad_values_are_named() {
        let check = |toml: &str| {
            let server: ServerConfig = toml::from_str(toml).unwrap();
            server.validate("s").unwrap_err()
        };
        assert!(check("command = \" \"").contains("command is empty"));
        assert!(check("command = \"c\"\nstartup_timeout_sec = 0").contains("startup_timeout_sec"));
        assert!(check("command = \"c\"\ntool_timeout_sec = -1").contains("tool_timeout_sec"));
        let fine: ServerConfig = toml::from_str("command = \"c\"\ntool_timeout_sec = 0.5").unwrap();
        assert!(fine.validate(&"x".repeat(49)).is_err());
        assert!(fine.validate("ok").is_ok());
    }
}

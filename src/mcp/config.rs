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
    /// The program of a server run as a command (stdio)...
    #[serde(default)]
    pub command: Option<String>,
    /// ... or the endpoint of a server spoken to over streamable HTTP.
    #[serde(default)]
    pub url: Option<String>,
    /// Sent with every request to `url` (values `${VAR}` expanded).
    #[serde(default)]
    pub http_headers: BTreeMap<String, String>,
    /// The variable whose value is sent as `Authorization: Bearer ...`.
    #[serde(default)]
    pub bearer_token_env_var: Option<String>,
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
        self.check_kind(name)?;
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

impl ServerConfig {
    /// A command or a URL, and only the keys of that kind.
    fn check_kind(&self, name: &str) -> Result<(), String> {
        match (&self.command, &self.url) {
            (Some(command), None) => {
                if command.trim().is_empty() {
                    return Err(format!("mcp_servers.{name}.command is empty"));
                }
                if !self.http_headers.is_empty() || self.bearer_token_env_var.is_some() {
                    return Err(format!(
                        "mcp_servers.{name}: http_headers and bearer_token_env_var are for a server with a url"
                    ));
                }
            }
            (None, Some(url)) => {
                // `${VAR}` is expanded later; the scheme must be plain.
                let scheme = url.split_once("://").map(|(scheme, _)| scheme);
                if !matches!(scheme, Some("http" | "https")) {
                    return Err(format!(
                        "mcp_servers.{name}.url must start with http:// or https://, got {url:?}"
                    ));
                }
                if !self.args.is_empty() || !self.env.is_empty() || self.cwd.is_some() {
                    return Err(format!(
                        "mcp_servers.{name}: args, env and cwd are for a server run as a command, not one with a url"
                    ));
                }
            }
            (Some(_), Some(_)) => {
                return Err(format!(
                    "mcp_servers.{name}: give a command or a url, not both"
                ));
            }
            (None, None) => {
                return Err(format!(
                    "mcp_servers.{name}: give a command (a server run as a program) or a url (streamable HTTP)"
                ));
            }
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

/// One entry of a Claude Code `mcpServers` object: a server run as a
/// command, or one spoken to over streamable HTTP (`"type": "http"`).
/// The legacy SSE transport (`"type": "sse"`) is refused with a reason.
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
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
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
    /// Empty for a server with a URL.
    pub command: String,
    /// A server spoken to over streamable HTTP, not run as a command.
    pub http: Option<HttpEndpoint>,
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

/// Where a streamable HTTP server listens, and what every request sends.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpEndpoint {
    pub url: String,
    pub headers: BTreeMap<String, String>,
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
    let http = match &server.url {
        None => None,
        Some(url) => {
            let mut headers = server
                .http_headers
                .iter()
                .map(|(key, value)| Ok((key.clone(), expand(value)?)))
                .collect::<Result<BTreeMap<_, _>, String>>()?;
            if let Some(variable) = &server.bearer_token_env_var {
                let token = expand(&format!("${{{variable}}}"))?;
                headers.insert("Authorization".to_owned(), format!("Bearer {token}"));
            }
            Some(HttpEndpoint {
                url: expand(url)?,
                headers,
            })
        }
    };
    Ok(ServerSpec {
        name: name.to_owned(),
        command: expand(server.command.as_deref().unwrap_or_default())?,
        http,
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
    let kind = match entry.kind.as_deref() {
        None if entry.url.is_some() => "http",
        None => "stdio",
        Some(kind) => kind,
    };
    let (command, url, headers) = match kind {
        "stdio" if entry.url.is_some() || !entry.headers.is_empty() => {
            return Err(format!(
                "server {name:?} is run as a command (stdio) but has a url or headers"
            ));
        }
        "stdio" => match entry.command {
            Some(command) => (Some(command), None, BTreeMap::new()),
            None => return Err(format!("server {name:?} has no command")),
        },
        "http" | "streamable-http" | "streamableHttp" if entry.command.is_some() => {
            return Err(format!("server {name:?} has both a command and a url"));
        }
        "http" | "streamable-http" | "streamableHttp" => match entry.url {
            Some(url) => (None, Some(url), entry.headers),
            None => {
                return Err(format!(
                    "server {name:?} is of type {kind:?} and has no url"
                ));
            }
        },
        "sse" => {
            return Err(format!(
                "server {name:?} uses the legacy SSE transport, which is not supported; use the server's streamable HTTP endpoint (\"type\": \"http\")"
            ));
        }
        other => {
            return Err(format!(
                "server {name:?} is of type {other:?}; the types are \"stdio\" and \"http\""
            ));
        }
    };
    Ok(ServerConfig {
        command,
        url,
        http_headers: headers,
        bearer_token_env_var: None,
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
        let http = parse_claude(
            r#"{"mcpServers": {"web": {"type": "http", "url": "http://x/mcp", "headers": {"X-A": "1"}}}}"#,
        )
        .unwrap();
        assert_eq!(http[0].1.url.as_deref(), Some("http://x/mcp"));
        assert_eq!(http[0].1.http_headers["X-A"], "1");
        let sse = parse_claude(r#"{"mcpServers": {"web": {"type": "sse", "url": "http://x"}}}"#);
        assert!(sse.unwrap_err().contains("legacy SSE"));
        let mixed = parse_claude(r#"{"mcpServers": {"web": {"command": "c", "url": "http://x"}}}"#);
        assert!(mixed.unwrap_err().contains("both a command and a url"));
        let typed = parse_claude(
            r#"{"mcpServers": {"web": {"type": "stdio", "command": "c", "url": "http://x"}}}"#,
        );
        assert!(typed.unwrap_err().contains("has a url"));
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
        assert!(check("args = []").contains("give a command"));
        assert!(check("command = \"c\"\nurl = \"http://x\"").contains("not both"));
        assert!(check("url = \"ftp://x\"").contains("http:// or https://"));
        assert!(
            check("url = \"http://x\"\nargs = [\"a\"]").contains("for a server run as a command")
        );
        assert!(check("command = \"c\"\nbearer_token_env_var = \"T\"").contains("with a url"));
        assert!(check("command = \"c\"\nstartup_timeout_sec = 0").contains("startup_timeout_sec"));
        assert!(check("command = \"c\"\ntool_timeout_sec = -1").contains("tool_timeout_sec"));
        let fine: ServerConfig = toml::from_str("command = \"c\"\ntool_timeout_sec = 0.5").unwrap();
        assert!(fine.validate(&"x".repeat(49)).is_err());
        assert!(fine.validate("ok").is_ok());
    }
}

//! The optional TOML config file (see docs/configuration.md).
//!
//! Found at `--config`, `$AGENT_CONFIG`, or else
//! `$XDG_CONFIG_HOME/agent/config.toml` (`~/.config/agent/config.toml`).
//! A file named explicitly must exist; the default one may be absent. An
//! invalid file is a usage error: a typo in a setting is never ignored.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::ModelSpec;
use crate::model::retry::RetryPolicy;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// The alias used when `--model` is not given.
    pub default_model: Option<String>,
    pub models: BTreeMap<String, ModelSpec>,
    pub http: HttpConfig,
    pub retry: RetryPolicy,
    pub exec: ExecConfig,
    pub secrets: SecretsConfig,
    pub web_fetch: WebFetchConfig,
    pub approval: crate::session::checks::ApprovalConfig,
    pub hitl: HitlConfig,
    pub state: StateConfig,
    pub compaction: crate::session::compact::CompactionConfig,
    pub loop_breaker: crate::session::loops::LoopBreakerConfig,
    pub context: ContextConfig,
    pub untrusted_content: crate::session::untrusted::UntrustedConfig,
    pub skills: crate::skills::SkillsConfig,
    pub session_search: SessionSearchConfig,
    pub repo_map: crate::tools::repo_map::RepoMapConfig,
    pub mcp: crate::mcp::config::McpConfig,
    /// MCP servers by name (`[mcp_servers.NAME]`).
    pub mcp_servers: BTreeMap<String, crate::mcp::config::ServerConfig>,
    /// `[debugger]`: the experimental `debug` tool.
    pub debugger: crate::debug::DebuggerConfig,
}

/// `[context]`: what the model is told besides the task.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ContextConfig {
    /// `AGENTS.md` (else `CLAUDE.md`) of the work dir and of the folders
    /// the agent works in.
    pub project_instructions: bool,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            project_instructions: true,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StateConfig {
    /// Sessions older than this are removed (1 to 3650; else 14).
    pub retention_days: i64,
    /// The state folder is kept under this (16 to 1048576; else 2048).
    pub max_total_mb: i64,
    /// Files larger than this are not captured in checkpoints (1 to 1024).
    pub max_file_mb: u64,
}

impl Default for StateConfig {
    fn default() -> Self {
        StateConfig {
            retention_days: crate::state::retention::DEFAULT_RETENTION_DAYS as i64,
            max_total_mb: crate::state::retention::DEFAULT_MAX_TOTAL_MB as i64,
            max_file_mb: 16,
        }
    }
}

impl StateConfig {
    pub fn retention(&self) -> (crate::state::retention::Retention, Vec<String>) {
        crate::state::retention::RetentionConfig {
            retention_days: self.retention_days,
            max_total_mb: self.max_total_mb,
        }
        .policy()
    }
}

/// `[session_search]`: the index of every session's journal.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SessionSearchConfig {
    /// Offer the model the `session_search` tool.
    pub tool: bool,
    /// The index is kept under this (1 to 1048576); past it, the least
    /// recently used sessions leave it first.
    pub max_index_mb: u64,
}

impl Default for SessionSearchConfig {
    fn default() -> Self {
        SessionSearchConfig {
            tool: false,
            max_index_mb: crate::state::search::DEFAULT_MAX_INDEX_MB,
        }
    }
}

impl SessionSearchConfig {
    pub fn max_index_bytes(&self) -> u64 {
        self.max_index_mb * 1024 * 1024
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HitlConfig {
    /// How long a person has to answer; then the default decision
    /// (reject) applies. 1 s to 24 h.
    pub timeout_secs: u64,
}

impl Default for HitlConfig {
    fn default() -> Self {
        HitlConfig { timeout_secs: 600 }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WebFetchConfig {
    /// Host names `web_fetch` may reach even though they resolve to
    /// private or loopback addresses (exact names, or IP literals).
    pub allow_hosts: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// A model stream that sends nothing for this long is cut and retried.
    pub idle_timeout_secs: u64,
    pub connect_timeout_secs: u64,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            idle_timeout_secs: 120,
            connect_timeout_secs: 20,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExecConfig {
    /// The shell commands run through (`-c` and, for the login
    /// environment, `-l -c`).
    pub shell: String,
    pub default_timeout_ms: u64,
    pub max_timeout_ms: u64,
    /// Run the login profile scripts once and give commands the
    /// environment they set up (PATH for nvm, pyenv, cargo, ...).
    pub login_shell: bool,
    /// Keep every command from writing the state folder (Landlock, where
    /// the kernel has it). Off only for images whose commands must create
    /// entries right in the folders above the state folder.
    pub protect_state: bool,
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            shell: "bash".to_owned(),
            default_timeout_ms: crate::tools::exec::DEFAULT_TIMEOUT_MS,
            max_timeout_ms: crate::tools::exec::MAX_TIMEOUT_MS,
            login_shell: true,
            protect_state: true,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SecretsConfig {
    /// Names of environment variables that are secret: removed from the
    /// environment of every command, and their values masked in events.
    /// `*` matches any run of characters (`*_TOKEN`).
    pub env: Vec<String>,
    /// What the model gets of a secret found in a tool's output: a
    /// placeholder (the default) or, with `"clear"`, the value.
    pub model_egress: crate::session::egress::ModelEgress,
}

/// Variables that are always secret, whatever the config says.
pub const BUILTIN_SECRET_VARS: [&str; 2] = ["AGENT_API_KEY", "STRAYL_SESSION_TOKEN"];

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read the config file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("the config file {path} is not valid: {message}")]
    Invalid { path: String, message: String },
}

impl Config {
    /// Loads the explicit file, or the default one when it exists.
    pub fn load(explicit: Option<&Path>) -> Result<(Config, Option<PathBuf>), ConfigError> {
        let path = match explicit {
            Some(path) => path.to_path_buf(),
            None => match default_path() {
                Some(path) if path.is_file() => path,
                _ => return Ok((Config::default(), None)),
            },
        };
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
            path: shown.clone(),
            source,
        })?;
        let config = Config::parse(&text).map_err(|message| ConfigError::Invalid {
            path: shown,
            message,
        })?;
        Ok((config, Some(path)))
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        let config: Config = toml::from_str(text).map_err(|err| err.to_string())?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<(), String> {
        let retry = &self.retry;
        if !(1..=20).contains(&retry.max_attempts) {
            return Err("retry.max_attempts must be between 1 and 20".into());
        }
        if retry.base_delay_ms > retry.max_delay_ms {
            return Err("retry.base_delay_ms must not exceed retry.max_delay_ms".into());
        }
        if self.http.idle_timeout_secs == 0 || self.http.connect_timeout_secs == 0 {
            return Err("http timeouts must be at least 1 second".into());
        }
        if self.exec.shell.trim().is_empty() {
            return Err("exec.shell is empty".into());
        }
        if self.exec.default_timeout_ms == 0 || self.exec.max_timeout_ms == 0 {
            return Err("exec timeouts must be at least 1 ms".into());
        }
        if self.exec.default_timeout_ms > self.exec.max_timeout_ms {
            return Err("exec.default_timeout_ms must not exceed exec.max_timeout_ms".into());
        }
        for (alias, spec) in &self.models {
            if spec.model.trim().is_empty() {
                return Err(format!("models.{alias}.model is empty"));
            }
            if spec.max_output_tokens == 0 || spec.context_window == 0 {
                return Err(format!("models.{alias}: token limits must be positive"));
            }
            if let Some(temperature) = spec.temperature
                && !(0.0..=2.0).contains(&temperature)
            {
                return Err(format!(
                    "models.{alias}.temperature must be between 0 and 2"
                ));
            }
            spec.prices()
                .validate()
                .map_err(|why| format!("models.{alias}: {why}"))?;
        }
        self.compaction.validate()?;
        self.loop_breaker.validate()?;
        if !(1..=1024).contains(&self.state.max_file_mb) {
            return Err("state.max_file_mb must be between 1 and 1024".into());
        }
        if !(1..=1_048_576).contains(&self.session_search.max_index_mb) {
            return Err("session_search.max_index_mb must be between 1 and 1048576".into());
        }
        if !(1..=86_400).contains(&self.hitl.timeout_secs) {
            return Err("hitl.timeout_secs must be between 1 and 86400".into());
        }
        crate::session::checks::Checks::new(self.approval.clone(), false)?;
        crate::session::untrusted::UntrustedChecks::new(self.untrusted_content.clone())?;
        self.skills.validate()?;
        self.mcp.validate()?;
        self.repo_map.validate()?;
        for (name, server) in &self.mcp_servers {
            server.validate(name)?;
        }
        for pattern in &self.secrets.env {
            globset::Glob::new(pattern)
                .map_err(|err| format!("secrets.env entry {pattern:?}: {err}"))?;
        }
        Ok(())
    }

    /// Whether the variable `name` is secret (built in or by config).
    pub fn secret_matcher(&self) -> globset::GlobSet {
        let mut builder = globset::GlobSetBuilder::new();
        for name in BUILTIN_SECRET_VARS
            .iter()
            .copied()
            .chain(self.secrets.env.iter().map(String::as_str))
        {
            // Validated in `parse`; built-in names are plain words.
            if let Ok(glob) = globset::Glob::new(name) {
                builder.add(glob);
            }
        }
        builder
            .build()
            .unwrap_or_else(|_| globset::GlobSet::empty())
    }
}

/// Where the config file is when `--config` does not say.
pub fn default_path() -> Option<PathBuf> {
    Some(config_dir()?.join("config.toml"))
}

/// The config folder: `$XDG_CONFIG_HOME/agent`, else `~/.config/agent`
/// (the user's skills live in it too).
pub fn config_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(base.join("agent"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_full_file() {
        let config = Config::parse(
            r#"
default_model = "local"
[models.local]
format = "anthropic"
model = "my-model"
context_window = 8192
[http]
idle_timeout_secs = 5
[retry]
max_attempts = 3
base_delay_ms = 10
max_delay_ms = 100
[exec]
default_timeout_ms = 1000
[secrets]
env = ["GITHUB_TOKEN", "*_SECRET"]
"#,
        )
        .unwrap();
        assert_eq!(config.default_model.as_deref(), Some("local"));
        assert_eq!(config.models["local"].max_output_tokens, 16_384);
        assert_eq!(config.retry.max_attempts, 3);
        let secret = config.secret_matcher();
        assert!(secret.is_match("DB_SECRET"));
        assert!(secret.is_match("AGENT_API_KEY"));
        assert!(!secret.is_match("PATH"));
    }

    #[test]
    fn model_egress_is_placeholders_unless_set_clear() {
        use crate::session::egress::ModelEgress;
        let default = Config::parse("").unwrap();
        assert_eq!(default.secrets.model_egress, ModelEgress::Placeholders);
        let clear = Config::parse("[secrets]\nmodel_egress = \"clear\"").unwrap();
        assert_eq!(clear.secrets.model_egress, ModelEgress::Clear);
        let err = Config::parse("[secrets]\nmodel_egress = \"off\"").unwrap_err();
        assert!(
            err.contains("model_egress") && err.contains("`placeholders` or `clear`"),
            "{err}"
        );
    }

    #[test]
    fn untrusted_content_settings_are_checked() {
        assert!(
            Config::parse("[untrusted_content]\napprovals = false\ntaint = \"framed\"").is_ok()
        );
        assert!(Config::parse("[untrusted_content]\nask_tools = [\"teleport\"]").is_err());
        assert!(Config::parse("[untrusted_content]\nsecret_files = [\"[\"]").is_err());
        assert!(Config::parse("[untrusted_content]\napproval = false").is_err());
    }

    #[test]
    fn refuses_typos_and_bad_values() {
        assert!(Config::parse("[retry]\nmax_attempt = 3").is_err());
        assert!(Config::parse("[retry]\nmax_attempts = 0").is_err());
        assert!(Config::parse("[exec]\ndefault_timeout_ms = 5\nmax_timeout_ms = 1").is_err());
        assert!(Config::parse("[models.x]\nformat = \"grpc\"\nmodel = \"m\"").is_err());
    }
}

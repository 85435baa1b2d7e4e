//! MCP servers: programs that offer the model tools from outside the
//! agent, spoken to over their stdin and stdout (the Model Context
//! Protocol, through the official Rust SDK `rmcp`). `config` says which
//! servers there are, `client` runs one, `manager` runs the set and routes
//! calls, `names` names their tools, `content` turns their answers into
//! text, `reload` sees their definitions change. The session uses this module; nothing here knows the session.

pub mod client;
pub mod config;
pub mod content;
pub mod manager;
pub mod names;
pub mod reload;

use std::ffi::OsString;

pub use config::ServerSpec;
pub use manager::{McpManager, Notice, NoticeKind};

/// Variables that look like a provider's key or another credential: a
/// server does not get them from the agent's environment unless its own
/// `env` names them. (The configured secrets, and the session's token,
/// are gone from the environment the servers start from already.)
pub const CREDENTIAL_VARS: &[&str] = &[
    "*_API_KEY",
    "*_API_TOKEN",
    "*_ACCESS_KEY",
    "*_ACCESS_KEY_ID",
    "*_SECRET",
    "*_SECRET_KEY",
    "*_SECRET_ACCESS_KEY",
    "*_SESSION_TOKEN",
    "*_AUTH_TOKEN",
    "*_ACCESS_TOKEN",
    "*_TOKEN",
    "*_PASSWORD",
    "*_CREDENTIALS",
];

/// What every server's environment starts from, filtered on first use:
/// most sessions start no server, and the filter (a glob set over every
/// variable) was a quarter of a millisecond of each process's start.
#[derive(Debug, Default)]
pub struct ServerEnv {
    base: Vec<(OsString, OsString)>,
    filtered: std::sync::OnceLock<Vec<(OsString, OsString)>>,
}

impl ServerEnv {
    /// From `base`: the agent's environment, its secrets removed.
    pub fn new(base: Vec<(OsString, OsString)>) -> Self {
        ServerEnv {
            base,
            filtered: std::sync::OnceLock::new(),
        }
    }

    pub fn get(&self) -> &[(OsString, OsString)] {
        self.filtered.get_or_init(|| server_env(&self.base))
    }
}

/// The environment every server starts from: `base` (the agent's, its
/// secrets removed) less what looks like a credential.
pub fn server_env(base: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let mut builder = globset::GlobSetBuilder::new();
    for pattern in CREDENTIAL_VARS {
        if let Ok(glob) = globset::Glob::new(pattern) {
            builder.add(glob);
        }
    }
    let credentials = builder
        .build()
        .unwrap_or_else(|_| globset::GlobSet::empty());
    base.iter()
        .filter(|(name, _)| {
            name.to_str()
                .is_some_and(|name| !credentials.is_match(name.to_ascii_uppercase()))
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_stay_out_of_the_servers_environment() {
        let base: Vec<(OsString, OsString)> = [
            "PATH",
            "HOME",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "aws_secret_access_key",
            "DB_PASSWORD",
            "TOKENIZERS_PARALLELISM",
        ]
        .iter()
        .map(|name| (OsString::from(name), OsString::from("v")))
        .collect();
        let kept: Vec<_> = server_env(&base)
            .into_iter()
            .map(|(name, _)| name.into_string().unwrap())
            .collect();
        assert_eq!(kept, ["PATH", "HOME", "TOKENIZERS_PARALLELISM"]);
    }
}

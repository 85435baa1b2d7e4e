//! Taint-aware approvals: once a third-party result was flagged, and
//! until the next user message, the calls an injection would want (reach
//! the network, run a command that may change something, read a secret
//! file) wait for a person. `[untrusted_content]` in the config turns
//! this off (`approvals = false`); its other settings only add to it.

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use super::Taint;
use crate::protocol::events::Flag;
use crate::session::readonly;
use crate::tools::network::{reaches_network, simple_commands};
use crate::tools::{Call, Tool};

/// `[untrusted_content]` in the config file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UntrustedConfig {
    /// Risky calls ask a person after a flagged result; `false` turns
    /// that off.
    pub approvals: bool,
    /// What taints the session: a flagged result (the default), or any
    /// third-party result (`"framed"`).
    pub taint: TaintOn,
    /// More tools that ask a person while the session is tainted.
    pub ask_tools: Vec<String>,
    /// More file names (globs over the name, or over the path when they
    /// hold a `/`) that count as secret files.
    pub secret_files: Vec<String>,
}

impl Default for UntrustedConfig {
    fn default() -> Self {
        UntrustedConfig {
            approvals: true,
            taint: TaintOn::Flagged,
            ask_tools: Vec::new(),
            secret_files: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaintOn {
    Flagged,
    Framed,
}

/// The config, checked and compiled.
#[derive(Debug, Clone)]
pub struct UntrustedChecks {
    config: UntrustedConfig,
    secret_files: GlobSet,
}

impl Default for UntrustedChecks {
    fn default() -> Self {
        UntrustedChecks {
            config: UntrustedConfig::default(),
            secret_files: GlobSet::empty(),
        }
    }
}

impl UntrustedChecks {
    pub fn new(config: UntrustedConfig) -> Result<Self, String> {
        for name in &config.ask_tools {
            if Tool::from_name(name).is_none() && !crate::mcp::names::is_mcp_name(name) {
                return Err(format!(
                    "untrusted_content.ask_tools: unknown tool {name:?}"
                ));
            }
        }
        let mut builder = GlobSetBuilder::new();
        for pattern in &config.secret_files {
            let glob = Glob::new(&pattern.to_ascii_lowercase())
                .map_err(|err| format!("untrusted_content.secret_files {pattern:?}: {err}"))?;
            builder.add(glob);
        }
        let secret_files = builder
            .build()
            .map_err(|err| format!("untrusted_content.secret_files: {err}"))?;
        Ok(UntrustedChecks {
            config,
            secret_files,
        })
    }

    /// Whether a third-party result with these flags taints the session.
    pub fn taints(&self, flags: &[Flag]) -> bool {
        match self.config.taint {
            TaintOn::Flagged => !flags.is_empty(),
            TaintOn::Framed => true,
        }
    }

    /// Why `call` needs a person while the session is tainted; `None`
    /// when it does not, or when these approvals are off.
    pub fn risk(&self, call: &Call) -> Option<String> {
        if !self.config.approvals {
            return None;
        }
        let risk = match call {
            Call::WebFetch(args) => Some(format!("network access (web_fetch {})", args.url)),
            Call::Exec(args) => self.command_risk(&args.command),
            Call::ReadFile(args) => self
                .is_secret_file(&args.path)
                .then(|| format!("reading a secret file ({})", args.path)),
            Call::Grep(args) => args
                .path
                .as_deref()
                .filter(|path| self.is_secret_file(path))
                .map(|path| format!("searching a secret file ({path})")),
            Call::Runtime(call) => Some(format!("a tool from outside the agent ({})", call.name)),
            // A launch is judged as the exec of its command line.
            Call::Debug(args) => args
                .runs_code()
                .then(|| "running code in the debugged program".to_owned()),
            Call::WriteFile(_)
            | Call::EditFile(_)
            | Call::ListDir(_)
            | Call::Glob(_)
            | Call::RepoMap(_)
            | Call::TodoWrite(_)
            | Call::AskUser(_)
            | Call::WritePlan(_)
            | Call::Skill(_)
            | Call::ToolSearch(_)
            | Call::SessionSearch(_) => None,
        };
        risk.or_else(|| {
            self.config
                .ask_tools
                .iter()
                .any(|name| name == call.name())
                .then(|| format!("{} (untrusted_content.ask_tools)", call.name()))
        })
    }

    fn command_risk(&self, command: &str) -> Option<String> {
        if let Some(program) = reaches_network(command) {
            return Some(format!("a command that reaches the network ({program})"));
        }
        let secret = simple_commands(command).into_iter().flatten().find(|word| {
            word.split('=')
                .any(|part| !part.starts_with('-') && self.is_secret_file(part))
        });
        if let Some(word) = secret {
            return Some(format!("a command that names a secret file ({word})"));
        }
        (!readonly::is_read_only(command)).then(|| "a command not proven read-only".to_owned())
    }

    fn is_secret_file(&self, path: &str) -> bool {
        let lower = path.to_ascii_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        is_secret_file(&lower)
            || self.secret_files.is_match(name)
            || self.secret_files.is_match(&lower)
    }
}

/// Files that hold secrets by their name or place: `.env` files (not
/// their `.example`), keys and keystores, SSH private keys (`id_*`
/// without an extension), and the credential files of git, npm, PyPI,
/// netrc, PostgreSQL, Docker, Kubernetes and the clouds.
pub fn is_secret_file(path: &str) -> bool {
    let path = path.to_ascii_lowercase();
    let parts: Vec<&str> = path.split('/').filter(|part| !part.is_empty()).collect();
    let Some(name) = parts.last().copied() else {
        return false;
    };
    let parent = parts.len().checked_sub(2).map(|at| parts[at]);
    let in_folder = |folder: &str| parts[..parts.len() - 1].contains(&folder);
    let env_file = (name == ".env" || name.starts_with(".env.") || name.ends_with(".env"))
        && ![".example", ".sample", ".template", ".dist", ".defaults"]
            .iter()
            .any(|suffix| name.ends_with(suffix));
    let key_file = [
        ".pem",
        ".key",
        ".p12",
        ".pfx",
        ".jks",
        ".keystore",
        ".ppk",
        ".kdbx",
        ".tfvars",
        ".tfstate",
    ]
    .iter()
    .any(|extension| name.ends_with(extension));
    let ssh_key = name.starts_with("id_") && !name.contains('.');
    let known = [
        ".envrc",
        ".netrc",
        "_netrc",
        ".pgpass",
        ".git-credentials",
        ".npmrc",
        ".pypirc",
        ".htpasswd",
        ".dockercfg",
        ".vault-token",
        "credentials",
        "credentials.json",
        "application_default_credentials.json",
        "secrets.yml",
        "secrets.yaml",
        "secrets.json",
        "secrets.toml",
        ".secrets",
        "kubeconfig",
    ]
    .contains(&name);
    let placed = (parent == Some(".kube") && name == "config")
        || (parent == Some(".docker") && name == "config.json")
        || in_folder(".gnupg")
        || in_folder(".azure")
        || in_folder("gcloud")
        || (in_folder(".ssh")
            && !name.ends_with(".pub")
            && !["known_hosts", "config", "authorized_keys"].contains(&name));
    env_file || key_file || ssh_key || known || placed
}

impl Taint {
    /// The reason a person reads on the `hitl-request`, or the refusal
    /// the model reads under `--unattended`.
    pub fn reason(&self, risk: &str) -> String {
        let found = if self.rules.is_empty() {
            "was read".to_owned()
        } else {
            format!("was flagged ({})", self.rules.join(", "))
        };
        format!(
            "untrusted content from {} ({}) {found}; until the next user message, this needs a person: {risk}",
            self.source, self.origin
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: serde_json::Value) -> Call {
        Tool::from_name(name).unwrap().parse(&args).unwrap()
    }

    #[test]
    fn secret_files_by_name_and_place() {
        for path in [
            ".env",
            "app/.env.production",
            "prod.env",
            "certs/server.pem",
            "tls.key",
            "/home/u/.ssh/id_ed25519",
            "id_rsa",
            "home/.aws/credentials",
            ".netrc",
            ".git-credentials",
            "x/.kube/config",
            ".docker/config.json",
            "infra/terraform.tfvars",
            "home/.ssh/my_deploy_key",
            ".ENV",
        ] {
            assert!(is_secret_file(path), "{path}");
        }
        for path in [
            ".env.example",
            ".env.sample",
            "src/env.rs",
            "id_rsa.pub",
            "src/id_map.rs",
            "README.md",
            ".ssh/known_hosts",
            ".ssh/config",
            "config",
            "keys.rs",
            "monkey.txt",
        ] {
            assert!(!is_secret_file(path), "{path}");
        }
    }

    #[test]
    fn risky_calls_are_egress_unproven_commands_and_secret_reads() {
        let checks = UntrustedChecks::default();
        let risk = |name: &str, args: serde_json::Value| checks.risk(&call(name, args));
        assert!(
            risk("web_fetch", json!({"url": "https://x"}))
                .unwrap()
                .starts_with("network access")
        );
        assert!(
            risk("exec", json!({"command": "curl -s https://x"}))
                .unwrap()
                .contains("reaches the network (curl)")
        );
        assert!(
            risk("exec", json!({"command": "cat .env"}))
                .unwrap()
                .contains("secret file (.env)")
        );
        assert!(
            risk("exec", json!({"command": "docker run --env-file=.env x"}))
                .unwrap()
                .contains("secret file")
        );
        assert!(
            risk("exec", json!({"command": "touch x"}))
                .unwrap()
                .contains("not proven read-only")
        );
        assert!(
            risk("read_file", json!({"path": "deploy/id_rsa"}))
                .unwrap()
                .contains("secret file")
        );
        assert_eq!(risk("exec", json!({"command": "ls -la"})), None);
        assert_eq!(risk("read_file", json!({"path": "src/main.rs"})), None);
        assert_eq!(
            risk("write_file", json!({"path": "a", "content": ""})),
            None
        );
        assert_eq!(risk("grep", json!({"pattern": "x"})), None);
    }

    #[test]
    fn the_config_turns_approvals_off_or_makes_them_stricter() {
        let off: UntrustedConfig = toml::from_str("approvals = false").unwrap();
        let off = UntrustedChecks::new(off).unwrap();
        assert_eq!(off.risk(&call("exec", json!({"command": "touch x"}))), None);
        let stricter: UntrustedConfig = toml::from_str(
            "taint = \"framed\"\nask_tools = [\"write_file\"]\nsecret_files = [\"*.sqlite\", \"conf/prod/*\"]",
        )
        .unwrap();
        let stricter = UntrustedChecks::new(stricter).unwrap();
        assert!(stricter.taints(&[]));
        assert!(!UntrustedChecks::default().taints(&[]));
        assert!(
            stricter
                .risk(&call("write_file", json!({"path": "a", "content": ""})))
                .unwrap()
                .contains("ask_tools")
        );
        for path in ["data/users.sqlite", "conf/prod/db.yml"] {
            assert!(
                stricter
                    .risk(&call("read_file", json!({"path": path})))
                    .is_some(),
                "{path}"
            );
        }
        let typo: UntrustedConfig = toml::from_str("ask_tools = [\"teleport\"]").unwrap();
        assert!(UntrustedChecks::new(typo).is_err());
        assert!(toml::from_str::<UntrustedConfig>("approval = false").is_err());
    }
}

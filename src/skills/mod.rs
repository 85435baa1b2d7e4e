//! Skills, as Anthropic's Agent Skills define them: folders holding a
//! `SKILL.md` (YAML front matter, then instructions) and the files it
//! refers to. The session finds them (`discover`), tells the model only
//! their names, descriptions and paths (`listing`), and the `skill` tool
//! (`tools/skill.rs`) gives a skill's body when the model decides to use
//! it. `agent skills install` (`install`) puts one in the user's skills
//! folder; no tool lets the model do that.

pub mod discover;
pub mod format;
pub mod install;
pub mod listing;
pub mod unpack;

use std::path::PathBuf;

use serde::Deserialize;

/// Where `owner/repo` sources are fetched from, unless the config says.
pub const GITHUB_RAW_BASE: &str = "https://raw.githubusercontent.com";

/// `[skills]` in the config file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SkillsConfig {
    /// List the skills found and offer the `skill` tool.
    pub enabled: bool,
    /// The user's skills folder; default: `skills` in the config folder.
    pub user_dir: Option<PathBuf>,
    /// Where `agent skills install owner/repo` fetches raw files from:
    /// `{base}/{owner}/{repo}/{branch}/{path}`.
    pub github_raw_base: String,
}

impl Default for SkillsConfig {
    fn default() -> Self {
        SkillsConfig {
            enabled: true,
            user_dir: None,
            github_raw_base: GITHUB_RAW_BASE.to_owned(),
        }
    }
}

impl SkillsConfig {
    /// The user's skills folder, if one can be named.
    pub fn user_dir(&self) -> Option<PathBuf> {
        self.user_dir
            .clone()
            .or_else(|| crate::config::config_dir().map(|dir| dir.join("skills")))
    }

    pub fn validate(&self) -> Result<(), String> {
        let base = self.github_raw_base.trim();
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(format!(
                "skills.github_raw_base must start with https:// or http://, got {base:?}"
            ));
        }
        Ok(())
    }

    /// The folders searched for a session in `work_dir` (canonical).
    pub fn roots(&self, work_dir: PathBuf) -> discover::Roots {
        discover::Roots {
            work_dir,
            user_dir: self.user_dir(),
        }
    }
}

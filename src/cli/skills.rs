//! `agent skills install` and `agent skills list`: for a person at a
//! terminal (plain text), never for the model.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{MACHINE_EXIT, SkillsCommand, USAGE_EXIT};
use crate::config::Config;
use crate::protocol::writer::print_text;
use crate::skills::discover::{self, Scope};
use crate::skills::install::{self, InstallError, Request};

pub fn run(command: SkillsCommand, config_path: Option<&Path>) -> ExitCode {
    let config = match Config::load(config_path) {
        Ok((config, _)) => config,
        Err(err) => {
            crate::diag!("agent: error: {err}");
            return ExitCode::from(USAGE_EXIT);
        }
    };
    let Some(user_dir) = config.skills.user_dir() else {
        crate::diag!(
            "agent: error: no skills folder: set HOME, XDG_CONFIG_HOME or [skills] user_dir"
        );
        return ExitCode::from(USAGE_EXIT);
    };
    match command {
        SkillsCommand::Install {
            source,
            sha256,
            name,
            force,
        } => install_one(
            Request {
                source,
                sha256,
                name,
                force,
            },
            &config,
            user_dir,
        ),
        SkillsCommand::List { work_dir } => list(&config, user_dir, &work_dir),
    }
}

fn install_one(request: Request, config: &Config, user_dir: PathBuf) -> ExitCode {
    let runtime = match super::runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let settings = install::Settings {
        user_dir,
        github_raw_base: config.skills.github_raw_base.clone(),
        web: crate::tools::web::WebSettings::new(config.web_fetch.allow_hosts.clone()),
    };
    match runtime.block_on(install::install(&request, &settings)) {
        Ok(done) => {
            print_text(&format!(
                "installed the skill {} ({} file{}) in {}\nfrom {}\nsha256 {}\n",
                done.name,
                done.files,
                if done.files == 1 { "" } else { "s" },
                done.dir.display(),
                done.url,
                done.sha256
            ));
            ExitCode::SUCCESS
        }
        Err(err) => {
            crate::diag!("agent: error: {err}");
            ExitCode::from(match err {
                InstallError::Usage(_) => USAGE_EXIT,
                InstallError::Failed(_) => MACHINE_EXIT,
            })
        }
    }
}

/// The skills a session in `work_dir` would find, in order of precedence.
fn list(config: &Config, user_dir: PathBuf, work_dir: &Path) -> ExitCode {
    let work_dir = match work_dir.canonicalize() {
        Ok(dir) => dir,
        Err(err) => {
            crate::diag!("agent: error: --work-dir {}: {err}", work_dir.display());
            return ExitCode::from(USAGE_EXIT);
        }
    };
    let roots = discover::Roots {
        work_dir,
        user_dir: Some(user_dir),
    };
    let (catalog, problems) = discover::discover(&roots);
    for problem in &problems {
        crate::diag!(
            "agent: warning: skipped {}: {}",
            problem.path.display(),
            problem.reason
        );
    }
    let mut out = String::new();
    if !config.skills.enabled {
        out.push_str("([skills] enabled = false: sessions do not use these)\n");
    }
    if catalog.is_empty() {
        let folders: Vec<String> = roots
            .folders()
            .iter()
            .map(|(folder, _)| folder.display().to_string())
            .collect();
        out.push_str(&format!("no skills in {}\n", folders.join(", ")));
    }
    for skill in &catalog.skills {
        let scope = match skill.scope {
            Scope::Project => "project",
            Scope::User => "user",
        };
        out.push_str(&format!(
            "{}  ({scope})  {}\n    {}\n",
            skill.name, skill.shown, skill.description
        ));
        if !skill.allowed_tools.is_empty() {
            out.push_str(&format!(
                "    allowed-tools: {}\n",
                skill.allowed_tools.join(", ")
            ));
        }
    }
    for skill in &catalog.shadowed {
        out.push_str(&format!(
            "{}  (hidden by the one above)  {}\n",
            skill.name,
            skill.file().display()
        ));
    }
    print_text(&out);
    ExitCode::SUCCESS
}

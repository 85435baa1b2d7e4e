//! Where skills are found: each folder holding a `SKILL.md` directly under
//! `<work dir>/.agents/skills/`, `<work dir>/.claude/skills/` and the
//! user's skills folder, in that order; the first skill of a name wins, so
//! a project's skill shadows the user's.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::format::{self, MAX_FILE_BYTES};

/// The project's skill folders, relative to the work dir, in order.
pub const PROJECT_FOLDERS: [&str; 2] = [".agents/skills", ".claude/skills"];
/// More skills than this are not read (a start must stay fast).
pub const MAX_SKILLS: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// In the work dir.
    Project,
    /// In the user's skills folder.
    User,
}

/// A skill as found: what the listing shows and where it lives. The body
/// is read again when the `skill` tool asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub allowed_tools: Vec<String>,
    pub metadata: std::collections::BTreeMap<String, String>,
    /// The skill's folder (canonical).
    pub dir: PathBuf,
    /// Its `SKILL.md` as the model is shown it: relative to the work dir
    /// for a project's skill, absolute for the user's.
    pub shown: String,
    pub scope: Scope,
}

impl Skill {
    pub fn file(&self) -> PathBuf {
        self.dir.join("SKILL.md")
    }
}

/// A `SKILL.md` that was skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: PathBuf,
    pub reason: String,
}

/// Where to look.
#[derive(Debug, Clone)]
pub struct Roots {
    /// Canonical.
    pub work_dir: PathBuf,
    pub user_dir: Option<PathBuf>,
}

impl Roots {
    /// The folders searched, in order of precedence.
    pub fn folders(&self) -> Vec<(PathBuf, Scope)> {
        let project = PROJECT_FOLDERS
            .iter()
            .map(|folder| (self.work_dir.join(folder), Scope::Project));
        let user = self.user_dir.iter().map(|dir| (dir.clone(), Scope::User));
        project.chain(user).collect()
    }
}

/// The skills found, in order of precedence, each name once.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub skills: Vec<Skill>,
    /// Skills hidden by one of the same name found earlier.
    pub shadowed: Vec<Skill>,
}

impl Catalog {
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|skill| skill.name == name)
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    pub fn names(&self) -> Vec<&str> {
        self.skills
            .iter()
            .map(|skill| skill.name.as_str())
            .collect()
    }
}

/// Finds every skill under `roots`, with the files that were skipped.
pub fn discover(roots: &Roots) -> (Catalog, Vec<Problem>) {
    let mut catalog = Catalog::default();
    let mut problems = Vec::new();
    for (folder, scope) in roots.folders() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            // Hidden entries: an install's temporary folder among them.
            .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
            .map(|entry| entry.path())
            .filter(|path| path.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            if catalog.skills.len() + catalog.shadowed.len() >= MAX_SKILLS {
                return (catalog, problems);
            }
            let file = dir.join("SKILL.md");
            if std::fs::symlink_metadata(&file).is_err() {
                // A folder without a SKILL.md is not a skill.
                continue;
            }
            match load(&dir, scope, &roots.work_dir) {
                Ok(skill) if catalog.get(&skill.name).is_some() => catalog.shadowed.push(skill),
                Ok(skill) => catalog.skills.push(skill),
                Err(reason) => problems.push(Problem { path: file, reason }),
            }
        }
    }
    (catalog, problems)
}

/// Reads a `SKILL.md`, at most [`MAX_FILE_BYTES`] of it.
pub fn read_capped(path: &Path) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|err| format!("cannot read it: {err}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read it: {err}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("it is over {MAX_FILE_BYTES} bytes"));
    }
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned())
}

/// The skill in `dir`. A project's skill must lie in the work dir once
/// links are followed: the `skill` tool reads what a link points at.
fn load(dir: &Path, scope: Scope, work_dir: &Path) -> Result<Skill, String> {
    let dir = dir
        .canonicalize()
        .map_err(|err| format!("cannot resolve its folder: {err}"))?;
    let file = dir.join("SKILL.md");
    let real_file = file
        .canonicalize()
        .map_err(|err| format!("cannot resolve it: {err}"))?;
    if scope == Scope::Project && !(dir.starts_with(work_dir) && real_file.starts_with(&dir)) {
        return Err("it is a link to outside the work dir".to_owned());
    }
    if !real_file.is_file() {
        return Err("it is not a file".to_owned());
    }
    let parsed = format::parse(&read_capped(&file)?).map_err(|err| err.to_string())?;
    let shown = match scope {
        Scope::Project => file
            .strip_prefix(work_dir)
            .unwrap_or(&file)
            .display()
            .to_string(),
        Scope::User => file.display().to_string(),
    };
    Ok(Skill {
        name: parsed.name,
        description: parsed.description,
        allowed_tools: parsed.allowed_tools,
        metadata: parsed.metadata,
        dir,
        shown,
        scope,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_skill(folder: &Path, name: &str, description: &str) {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"),
        )
        .unwrap();
    }

    #[test]
    fn the_work_dir_comes_first_and_broken_files_are_reported() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        let user = root.path().join("user");
        write_skill(&work.join(".agents/skills/a"), "shared", "from agents");
        write_skill(&work.join(".claude/skills/b"), "shared", "from claude");
        write_skill(&work.join(".claude/skills/c"), "only-claude", "c");
        write_skill(&user.join("shared"), "shared", "from user");
        write_skill(&user.join("mine"), "mine", "user's own");
        write_skill(&user.join(".install-x"), "hidden", "an install in progress");
        std::fs::create_dir_all(user.join("no-skill-here")).unwrap();
        std::fs::create_dir_all(user.join("broken")).unwrap();
        std::fs::write(user.join("broken/SKILL.md"), "no front matter").unwrap();
        let roots = Roots {
            work_dir: work.canonicalize().unwrap(),
            user_dir: Some(user.clone()),
        };
        let (catalog, problems) = discover(&roots);
        assert_eq!(catalog.names(), ["shared", "only-claude", "mine"]);
        let shared = catalog.get("shared").unwrap();
        assert_eq!(shared.description, "from agents");
        assert_eq!(shared.shown, ".agents/skills/a/SKILL.md");
        assert_eq!(shared.scope, Scope::Project);
        assert_eq!(catalog.get("mine").unwrap().scope, Scope::User);
        assert!(catalog.get("mine").unwrap().shown.starts_with('/'));
        assert_eq!(catalog.shadowed.len(), 2);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].path.ends_with("broken/SKILL.md"));
        assert!(problems[0].reason.contains("front matter"), "{problems:?}");
    }

    #[test]
    fn a_project_skill_may_not_point_outside_the_work_dir() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        let outside = root.path().join("outside");
        write_skill(&outside, "outer", "elsewhere");
        std::fs::create_dir_all(work.join(".agents/skills")).unwrap();
        std::os::unix::fs::symlink(&outside, work.join(".agents/skills/outer")).unwrap();
        let roots = Roots {
            work_dir: work.canonicalize().unwrap(),
            user_dir: None,
        };
        let (catalog, problems) = discover(&roots);
        assert!(catalog.is_empty());
        assert!(problems[0].reason.contains("outside the work dir"));
    }
}

//! What the model is told about where it works, in the first user message
//! rather than the system prompt, so that the system prompt is the same
//! bytes for every session and the provider's cache serves it: the
//! environment (date, OS, shell, work dir, git branch), the project's
//! instruction files (`AGENTS.md`, else `CLAUDE.md`), the list of skills
//! (`skills/listing.rs`), the repository map (`tools/repo_map`, with
//! `[repo_map] context_tokens`) and the summary of earlier work.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The instruction file names looked for in a folder, the first found
/// wins: `AGENTS.md` is the common one, `CLAUDE.md` where a repository
/// only has that.
pub const INSTRUCTION_FILES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];
/// One file is cut to this many bytes, with a marker.
pub const MAX_FILE_BYTES: usize = 16 * 1024;
/// All the files of a session together; one that would pass it is named,
/// not included.
pub const MAX_TOTAL_BYTES: usize = 32 * 1024;

/// One instruction file as the model was given it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instructions {
    /// Relative to the work dir.
    pub path: String,
    pub text: String,
}

impl Instructions {
    pub fn block(&self) -> String {
        format!(
            "<project_instructions path=\"{}\">\n{}\n</project_instructions>",
            self.path,
            self.text.trim_end()
        )
    }
}

/// The instruction file of `folder` (inside `work_dir`), if it has one.
fn read_folder(work_dir: &Path, folder: &Path) -> Option<Instructions> {
    INSTRUCTION_FILES.iter().find_map(|name| {
        let path = folder.join(name);
        // Only a regular file: a link could point anywhere on the machine.
        let metadata = std::fs::symlink_metadata(&path).ok()?;
        if !metadata.is_file() {
            return None;
        }
        let bytes = std::fs::read(&path).ok()?;
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if text.len() > MAX_FILE_BYTES {
            let cut = crate::tools::truncate::floor_boundary(&text, MAX_FILE_BYTES);
            text.truncate(cut);
            text.push_str(&format!(
                "\n[... cut: the file has {} bytes, the first {MAX_FILE_BYTES} are shown]",
                bytes.len()
            ));
        }
        let relative = path.strip_prefix(work_dir).unwrap_or(&path);
        Some(Instructions {
            path: relative.display().to_string(),
            text,
        })
    })
}

/// The work dir's own instruction file.
pub fn at_root(work_dir: &Path) -> Vec<Instructions> {
    read_folder(work_dir, work_dir).into_iter().collect()
}

/// The instruction files of the folders from the work dir down to
/// `target` (a path a tool worked on, relative or absolute) that the model
/// has not been given yet, within the session's budget.
pub fn on_the_way_to(work_dir: &Path, target: &str, given: &[Instructions]) -> Vec<Instructions> {
    let target = work_dir.join(target);
    let Ok(relative) = target.strip_prefix(work_dir) else {
        return Vec::new();
    };
    let mut used: usize = given.iter().map(|file| file.text.len()).sum();
    let mut found = Vec::new();
    let mut folder = PathBuf::from(work_dir);
    // The root's own file came with the task; each folder below, down to
    // the target's own (a file's parent, or the folder itself).
    for part in relative.components() {
        folder.push(part);
        if !folder.is_dir() {
            break;
        }
        let Some(file) = read_folder(work_dir, &folder) else {
            continue;
        };
        if given
            .iter()
            .chain(&found)
            .any(|known| known.path == file.path)
        {
            continue;
        }
        if used + file.text.len() > MAX_TOTAL_BYTES {
            found.push(Instructions {
                text: format!(
                    "[not included: the session's project instructions are over {MAX_TOTAL_BYTES} bytes; read the file if you need it]"
                ),
                ..file
            });
            continue;
        }
        used += file.text.len();
        found.push(file);
    }
    found
}

/// Facts about the machine and the work dir that help the model.
pub fn environment(work_dir: &Path, shell: &str) -> String {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let os = format!("{} {}", std::env::consts::OS, release.trim());
    let date = chrono::Utc::now().format("%Y-%m-%d");
    format!(
        "<environment>\ndate: {date}\nos: {os}\nshell: {shell}\nwork dir: {}\ngit: {}\n</environment>",
        work_dir.display(),
        git_status(work_dir)
    )
}

/// Whether the work dir is in a git repository, and on which branch, read
/// from `.git/HEAD` (no `git` process: a start costs milliseconds).
fn git_status(work_dir: &Path) -> String {
    let Some(git) = work_dir
        .ancestors()
        .map(|folder| folder.join(".git"))
        .find(|git| git.exists())
    else {
        return "not a git repository".to_owned();
    };
    // A worktree or submodule has a `.git` file naming the real folder.
    let git = match std::fs::read_to_string(&git) {
        Ok(text) => match text.strip_prefix("gitdir:") {
            Some(target) => git
                .parent()
                .map(|parent| parent.join(target.trim()))
                .unwrap_or_default(),
            None => git,
        },
        Err(_) => git,
    };
    match std::fs::read_to_string(git.join("HEAD")) {
        Ok(head) => match head.trim().strip_prefix("ref: refs/heads/") {
            Some(branch) => format!("a repository, on branch {branch}"),
            None => format!(
                "a repository, detached at {}",
                head.trim().chars().take(12).collect::<String>()
            ),
        },
        Err(_) => "a repository".to_owned(),
    }
}

/// The first user message: the environment, the instructions, the skills
/// (a block, or empty), the summary of earlier work, then the task, last,
/// so it reads as the request. Compaction keeps this message whole, so
/// what it holds stays in the context.
pub fn first_message(
    environment: &str,
    instructions: &[Instructions],
    skills: &str,
    repo_map: &str,
    previous_summary: Option<&str>,
    task: &str,
) -> String {
    let mut text = String::from(environment);
    for file in instructions {
        text.push_str("\n\n");
        text.push_str(&file.block());
    }
    for block in [skills, repo_map] {
        if !block.is_empty() {
            text.push_str("\n\n");
            text.push_str(block);
        }
    }
    if let Some(summary) = previous_summary.filter(|summary| !summary.trim().is_empty()) {
        text.push_str("\n\n<earlier_work>\n");
        text.push_str(summary.trim_end());
        text.push_str("\n</earlier_work>");
    }
    text.push_str("\n\n");
    text.push_str(task);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn agents_md_wins_over_claude_md_and_nested_files_come_once() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path();
        write(&work.join("AGENTS.md"), "root rules");
        write(&work.join("CLAUDE.md"), "ignored: AGENTS.md is there");
        write(&work.join("api/CLAUDE.md"), "api rules");
        write(&work.join("api/v1/handler.rs"), "fn main() {}");
        write(&work.join("web/AGENTS.md"), "web rules");

        let first = at_root(work);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].text, "root rules");
        assert_eq!(first[0].path, "AGENTS.md");

        let api = on_the_way_to(work, "api/v1/handler.rs", &first);
        assert_eq!(api.len(), 1, "{api:?}");
        assert_eq!(api[0].path, "api/CLAUDE.md");
        let given: Vec<_> = first.iter().chain(&api).cloned().collect();
        assert!(on_the_way_to(work, "api/v1", &given).is_empty());
        assert!(on_the_way_to(work, "../elsewhere", &given).is_empty());
        assert_eq!(on_the_way_to(work, "web", &given)[0].text, "web rules");
    }

    #[test]
    fn files_are_capped_and_the_budget_names_what_it_leaves_out() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path();
        write(&work.join("AGENTS.md"), &"a".repeat(MAX_FILE_BYTES + 10));
        write(&work.join("one/AGENTS.md"), &"b".repeat(MAX_FILE_BYTES / 2));
        write(
            &work.join("one/two/AGENTS.md"),
            &"c".repeat(MAX_FILE_BYTES / 2 + 1),
        );
        let first = at_root(work);
        assert!(first[0].text.contains("[... cut: the file has"));
        let nested = on_the_way_to(work, "one/two", &first);
        assert_eq!(nested.len(), 2);
        assert!(nested[0].text.starts_with("bbb"));
        // Root and `one` fill the budget: `two` is named only.
        assert!(nested[1].text.contains("not included"), "{:?}", nested[1]);
    }

    #[test]
    fn the_task_comes_last_after_environment_instructions_and_summary() {
        let text = first_message(
            "<environment>\n</environment>",
            &[Instructions {
                path: "AGENTS.md".into(),
                text: "rules\n".into(),
            }],
            "<skills>\n- a: b (c)\n</skills>",
            "<repo_map>\nsrc/a.rs\n</repo_map>",
            Some("did things"),
            "fix the bug",
        );
        assert!(text.starts_with("<environment>"));
        assert!(
            text.contains(
                "<project_instructions path=\"AGENTS.md\">\nrules\n</project_instructions>"
            )
        );
        assert!(text.contains(
            "</project_instructions>\n\n<skills>\n- a: b (c)\n</skills>\n\n<repo_map>\nsrc/a.rs\n</repo_map>\n\n<earlier_work>"
        ));
        assert!(text.contains("<earlier_work>\ndid things\n</earlier_work>"));
        assert!(text.ends_with("\n\nfix the bug"));
    }

    #[test]
    fn the_environment_names_the_branch() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path();
        assert!(environment(work, "bash").contains("git: not a git repository"));
        write(&work.join(".git/HEAD"), "ref: refs/heads/feature/x\n");
        std::fs::create_dir_all(work.join("src")).unwrap();
        let facts = environment(&work.join("src"), "bash");
        assert!(
            facts.contains("git: a repository, on branch feature/x"),
            "{facts}"
        );
        assert!(facts.contains("shell: bash"));
    }
}

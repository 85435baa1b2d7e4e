//! `skill`: the body of a skill the session found (its `SKILL.md` after
//! the front matter) and the files beside it; with `file`, one of those
//! files. The model sees only names and descriptions until it asks here
//! (progressive disclosure). It reads, never writes: offered in plan
//! mode too. A user's skill lies outside the work dir, where `read_file`
//! does not reach: `file` reads inside the skill's own folder only.

use std::path::{Component, Path};

use serde::Deserialize;
use serde_json::{Value, json};

use super::registry::ToolDef;
use super::{ToolContext, ToolOutput};
use crate::protocol::events::ActivityKind;
use crate::skills::discover::{self, Skill};
use crate::skills::format;

pub const DESCRIPTION: &str = "Read a skill from the <skills> list: its instructions and the files that come with it. \
Call it when the task matches the skill's description, before you start. With `file`, read one of the skill's files.";

/// Files listed beside a skill at most.
const MAX_LISTED: usize = 200;
/// How deep the listing goes into the skill's folder.
const MAX_DEPTH: usize = 4;
/// A file read with `file` at most.
const MAX_FILE_BYTES: u64 = 256 * 1024;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillArgs {
    pub name: String,
    #[serde(default)]
    pub file: Option<String>,
}

impl ToolDef for SkillArgs {
    const NAME: &'static str = "skill";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::ReadingFile;
    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The skill's name, as listed"},
                "file": {"type": "string", "description": "A file of the skill, relative to its folder, as listed"}
            },
            "required": ["name"],
            "additionalProperties": false
        })
    }
    fn action(&self) -> Option<String> {
        Some(match &self.file {
            Some(file) => format!("read {file} of the skill {}", self.name),
            None => format!("read the skill {}", self.name),
        })
    }
}

pub async fn run(args: SkillArgs, ctx: &ToolContext) -> ToolOutput {
    let Some(skill) = ctx.skills.get(args.name.trim()) else {
        let names = ctx.skills.names();
        return ToolOutput::fail(if names.is_empty() {
            "there are no skills in this session".to_owned()
        } else {
            format!(
                "no skill named {:?}; the skills are: {}",
                args.name,
                names.join(", ")
            )
        });
    };
    let skill = skill.clone();
    // Off the async thread: a skill's folder is read from the disk.
    let answer = tokio::task::spawn_blocking(move || match &args.file {
        None => body(&skill),
        Some(file) => read_file(&skill, file),
    })
    .await;
    match answer {
        Ok(Ok(text)) => ToolOutput::ok(text),
        Ok(Err(why)) => ToolOutput::fail(why),
        Err(err) => ToolOutput::fail(format!("reading the skill failed: {err}")),
    }
}

/// The body, read again (it may have changed since the start), and the
/// files beside it.
fn body(skill: &Skill) -> Result<String, String> {
    let text = discover::read_capped(&skill.file())
        .map_err(|why| format!("the skill's {} cannot be used: {why}", skill.shown))?;
    let parsed = format::parse(&text)
        .map_err(|why| format!("the skill's {} cannot be used: {why}", skill.shown))?;
    let mut out = format!(
        "<skill name=\"{}\" path=\"{}\">\n{}\n</skill>",
        skill.name,
        skill.shown,
        parsed.body.trim_end()
    );
    if !parsed.allowed_tools.is_empty() {
        out.push_str(&format!(
            "\nThe skill names these tools: {} (the session's approval policy still applies).",
            parsed.allowed_tools.join(", ")
        ));
    }
    let mut files = Vec::new();
    list(&skill.dir, &skill.dir, 0, &mut files);
    files.sort();
    if files.is_empty() {
        out.push_str("\nNo other files come with this skill.");
    } else {
        out.push_str(&format!(
            "\nFiles of the skill (read one with skill {{\"name\": \"{}\", \"file\": PATH}}):",
            skill.name
        ));
        for file in &files {
            out.push_str("\n- ");
            out.push_str(file);
        }
        if files.len() >= MAX_LISTED {
            out.push_str(&format!("\n[only the first {MAX_LISTED} are listed]"));
        }
    }
    Ok(out)
}

/// The regular files under `folder`, relative to `root`, with their
/// sizes; links are not followed, hidden entries are left out.
fn list(root: &Path, folder: &Path, depth: usize, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        if out.len() >= MAX_LISTED {
            return;
        }
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth < MAX_DEPTH {
            list(root, &path, depth + 1, out);
        } else if kind.is_file() && !(depth == 0 && name == "SKILL.md") {
            let size = entry.metadata().map(|meta| meta.len()).unwrap_or(0);
            let relative = path.strip_prefix(root).unwrap_or(&path);
            out.push(format!("{} ({size} bytes)", relative.display()));
        }
    }
}

/// One file of the skill's folder, which it may not leave (`..`, an
/// absolute path, a link that points out).
fn read_file(skill: &Skill, file: &str) -> Result<String, String> {
    let relative = Path::new(file.trim());
    let plain = relative
        .components()
        .all(|part| matches!(part, Component::Normal(_) | Component::CurDir));
    if !plain || relative.as_os_str().is_empty() {
        return Err(format!(
            "refused: {file:?} is not a path inside the skill's folder"
        ));
    }
    let path = skill
        .dir
        .join(relative)
        .canonicalize()
        .map_err(|err| format!("the skill {} has no file {file:?}: {err}", skill.name))?;
    if !path.starts_with(&skill.dir) {
        return Err(format!(
            "refused: {file:?} leads outside the skill's folder"
        ));
    }
    let meta = std::fs::metadata(&path).map_err(|err| format!("{file}: {err}"))?;
    if !meta.is_file() {
        return Err(format!("{file:?} is not a file"));
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(
            std::fs::File::open(&path).map_err(|err| format!("{file}: {err}"))?,
            MAX_FILE_BYTES,
        ),
        &mut bytes,
    )
    .map_err(|err| format!("{file}: {err}"))?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Ok(format!(
            "[{file} is a binary file of {} bytes, not shown]",
            meta.len()
        ));
    }
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if meta.len() > MAX_FILE_BYTES {
        text.push_str(&format!(
            "\n[only the first {MAX_FILE_BYTES} of {} bytes are shown]",
            meta.len()
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::discover::Scope;

    fn skill_in(dir: &Path) -> Skill {
        Skill {
            name: "pdf".into(),
            description: "d".into(),
            allowed_tools: Vec::new(),
            metadata: Default::default(),
            dir: dir.canonicalize().unwrap(),
            shown: ".agents/skills/pdf/SKILL.md".into(),
            scope: Scope::Project,
        }
    }

    #[test]
    fn the_body_comes_with_the_files_beside_it() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("pdf");
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            "---\nname: pdf\ndescription: d\nallowed-tools: exec\n---\n# Steps\nRun it.\n",
        )
        .unwrap();
        std::fs::write(dir.join("scripts/run.py"), "print(1)\n").unwrap();
        std::fs::write(dir.join("REFERENCE.md"), "ref").unwrap();
        std::fs::write(dir.join(".hidden"), "x").unwrap();
        let text = body(&skill_in(&dir)).unwrap();
        assert!(
            text.starts_with(
                "<skill name=\"pdf\" path=\".agents/skills/pdf/SKILL.md\">\n# Steps\nRun it.\n</skill>"
            ),
            "{text}"
        );
        assert!(
            text.contains("- REFERENCE.md (3 bytes)\n- scripts/run.py (9 bytes)"),
            "{text}"
        );
        assert!(text.contains("names these tools: exec"));
        assert!(!text.contains(".hidden") && !text.contains("name: pdf"));
    }

    #[test]
    fn files_are_read_inside_the_skill_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("pdf");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("notes.md"), "the notes").unwrap();
        std::fs::write(root.path().join("secret"), "no").unwrap();
        std::os::unix::fs::symlink(root.path().join("secret"), dir.join("link")).unwrap();
        let skill = skill_in(&dir);
        assert_eq!(read_file(&skill, "notes.md").unwrap(), "the notes");
        assert_eq!(read_file(&skill, "./notes.md").unwrap(), "the notes");
        for bad in ["../secret", "/etc/passwd", "link", ""] {
            let refused = read_file(&skill, bad).unwrap_err();
            assert!(
                refused.contains("refused") || refused.contains("no file"),
                "{bad}: {refused}"
            );
        }
    }
}

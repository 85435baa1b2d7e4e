//! A `SKILL.md` as Anthropic's Agent Skills define it: YAML front matter
//! between two `---` lines (`name`, `description`; `allowed-tools` and
//! `metadata` read when present, other fields ignored), then the body in
//! Markdown.
//!
//! The front matter is read with `yaml-rust2` (no default features): real
//! skills use quoted strings, folded (`>`) and literal (`|`) blocks, and
//! lists in both styles, which a hand-written subset would get wrong in
//! the corners. It is a pure-Rust parser with two small dependencies
//! (`arraydeque`, `hashlink`), does not expand aliases (no "billion
//! laughs"), and limits nesting; `serde_yaml` is unmaintained and its
//! forks carry a C-to-Rust translation of libyaml.

use std::collections::BTreeMap;

use yaml_rust2::{Yaml, YamlLoader};

/// The longest name a skill may have.
pub const MAX_NAME_CHARS: usize = 64;
/// The spec's limit for a description; a longer one is cut, not refused.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// A `SKILL.md` larger than this is not read.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Front matter larger than this is not parsed (a real one is a few lines).
const MAX_FRONT_MATTER_BYTES: usize = 64 * 1024;

/// A parsed `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    pub name: String,
    /// White space made single spaces; cut at [`MAX_DESCRIPTION_CHARS`].
    pub description: String,
    /// Whether the description was cut.
    pub description_cut: bool,
    /// Read and shown; the approval policy decides what runs, not a file.
    pub allowed_tools: Vec<String>,
    /// The scalar values of `metadata`, as text.
    pub metadata: BTreeMap<String, String>,
    /// The Markdown after the front matter.
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("it does not start with YAML front matter (a `---` line)")]
    NoFrontMatter,
    #[error("its front matter has no closing `---` line")]
    Unclosed,
    #[error("its front matter is over {MAX_FRONT_MATTER_BYTES} bytes")]
    TooLarge,
    #[error("its front matter is not valid YAML: {0}")]
    Yaml(String),
    #[error("its front matter is not a mapping of fields")]
    NotAMapping,
    #[error("its front matter has no `{0}`")]
    Missing(&'static str),
    #[error("`{field}` must be {expected}")]
    BadField {
        field: &'static str,
        expected: &'static str,
    },
    #[error(
        "the name {0:?} is not 1 to {MAX_NAME_CHARS} ASCII letters, digits, `-` or `_` (not starting with `-`)"
    )]
    BadName(String),
}

/// Whether `name` can name a skill: it becomes a folder name on install
/// and the `skill` tool's argument, so no dots, slashes or spaces.
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME_CHARS).contains(&name.len())
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The front matter's text and the body, split at the `---` lines.
fn split(text: &str) -> Result<(&str, &str), FormatError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().ok_or(FormatError::NoFrontMatter)?;
    if first.trim_end() != "---" {
        return Err(FormatError::NoFrontMatter);
    }
    let start = first.len();
    let mut at = start;
    for line in lines {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            return Ok((&text[start..at], &text[at + line.len()..]));
        }
        at += line.len();
        if at - start > MAX_FRONT_MATTER_BYTES {
            return Err(FormatError::TooLarge);
        }
    }
    Err(FormatError::Unclosed)
}

/// A scalar as text (`version: 1.0` is a number to YAML, text to us).
fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(text) | Yaml::Real(text) => Some(text.clone()),
        Yaml::Integer(number) => Some(number.to_string()),
        Yaml::Boolean(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// The description as one line, cut at the limit.
fn one_line(text: &str) -> (String, bool) {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(MAX_DESCRIPTION_CHARS) {
        Some((at, _)) => {
            let mut cut = joined[..at].trim_end().to_owned();
            cut.push('…');
            (cut, true)
        }
        None => (joined, false),
    }
}

/// `allowed-tools`: a list, or one string of names separated by commas
/// (Claude Code) or spaces (the spec).
fn tool_names(value: &Yaml) -> Result<Vec<String>, FormatError> {
    let bad = FormatError::BadField {
        field: "allowed-tools",
        expected: "a list of tool names or one string of them",
    };
    match value {
        Yaml::BadValue | Yaml::Null => Ok(Vec::new()),
        Yaml::String(text) => {
            let names: Vec<&str> = if text.contains(',') {
                text.split(',').collect()
            } else {
                text.split_whitespace().collect()
            };
            Ok(names
                .into_iter()
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_owned)
                .collect())
        }
        Yaml::Array(items) => items
            .iter()
            .map(|item| scalar(item).ok_or(bad.clone()))
            .collect(),
        _ => Err(bad),
    }
}

fn metadata(value: &Yaml) -> Result<BTreeMap<String, String>, FormatError> {
    match value {
        Yaml::BadValue | Yaml::Null => Ok(BTreeMap::new()),
        Yaml::Hash(map) => Ok(map
            .iter()
            .filter_map(|(key, value)| Some((scalar(key)?, scalar(value)?)))
            .collect()),
        _ => Err(FormatError::BadField {
            field: "metadata",
            expected: "a mapping",
        }),
    }
}

/// Parses a `SKILL.md`.
pub fn parse(text: &str) -> Result<SkillFile, FormatError> {
    let (front, body) = split(text)?;
    let documents =
        YamlLoader::load_from_str(front).map_err(|err| FormatError::Yaml(err.to_string()))?;
    let fields = match documents.into_iter().next() {
        Some(fields @ Yaml::Hash(_)) => fields,
        _ => return Err(FormatError::NotAMapping),
    };
    let name = match &fields["name"] {
        Yaml::BadValue | Yaml::Null => return Err(FormatError::Missing("name")),
        Yaml::String(name) => name.trim().to_owned(),
        _ => {
            return Err(FormatError::BadField {
                field: "name",
                expected: "a string",
            });
        }
    };
    if !valid_name(&name) {
        return Err(FormatError::BadName(name));
    }
    let description = match &fields["description"] {
        Yaml::BadValue | Yaml::Null => return Err(FormatError::Missing("description")),
        value => scalar(value).ok_or(FormatError::BadField {
            field: "description",
            expected: "a string",
        })?,
    };
    let (description, description_cut) = one_line(&description);
    if description.is_empty() {
        return Err(FormatError::Missing("description"));
    }
    Ok(SkillFile {
        name,
        description,
        description_cut,
        allowed_tools: tool_names(&fields["allowed-tools"])?,
        metadata: metadata(&fields["metadata"])?,
        body: body.trim_start_matches(['\n', '\r']).to_owned(),
    })
}

/// The same text with the front matter's `name` set to `name`: an
/// install under another name (`--name`) must be found by that name.
/// Only a plain `name:` line at the top level is rewritten.
pub fn rename(text: &str, name: &str) -> Result<String, FormatError> {
    let (front, _) = split(text)?;
    let offset = front.as_ptr() as usize - text.as_ptr() as usize;
    let mut at = offset;
    for line in front.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("name")
            && rest.trim_start().starts_with(':')
        {
            let ending = if line.ends_with("\r\n") { "\r\n" } else { "\n" };
            return Ok(format!(
                "{}name: {name}{ending}{}",
                &text[..at],
                &text[at + line.len()..]
            ));
        }
        at += line.len();
    }
    Err(FormatError::Missing("name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_in_the_styles_real_skills_use() {
        let skill = parse(
            "---\nname: pdf-tools\ndescription: >\n  Extract text and tables\n  from PDF files.\n\
             allowed-tools: Read, Grep, Bash(pdftotext:*)\nlicense: MIT\n\
             metadata:\n  version: 1.0\n  author: \"Ann\"\n  nested: {a: 1}\n---\n\n# PDF\nUse pdftotext.\n",
        )
        .unwrap();
        assert_eq!(skill.name, "pdf-tools");
        assert_eq!(skill.description, "Extract text and tables from PDF files.");
        assert!(!skill.description_cut);
        assert_eq!(
            skill.allowed_tools,
            ["Read", "Grep", "Bash(pdftotext:*)"].map(String::from)
        );
        assert_eq!(skill.metadata["version"], "1.0");
        assert_eq!(skill.metadata["author"], "Ann");
        assert!(!skill.metadata.contains_key("nested"));
        assert_eq!(skill.body, "# PDF\nUse pdftotext.\n");

        let listed = parse(
            "\u{feff}---\r\nname: 'x_1'\r\ndescription: |\r\n  two\r\n  lines\r\nallowed-tools: [read_file, grep]\r\n---\r\nbody",
        )
        .unwrap();
        assert_eq!(listed.name, "x_1");
        assert_eq!(listed.description, "two lines");
        assert_eq!(
            listed.allowed_tools,
            ["read_file", "grep"].map(String::from)
        );
        assert_eq!(listed.body, "body");
        let spaced =
            parse("---\nname: a\ndescription: d\nallowed-tools: Read Write\n---\n").unwrap();
        assert_eq!(spaced.allowed_tools, ["Read", "Write"].map(String::from));
    }

    #[test]
    fn a_long_description_is_cut_not_refused() {
        let long = "word ".repeat(400);
        let skill = parse(&format!("---\nname: a\ndescription: {long}\n---\n")).unwrap();
        assert!(skill.description_cut);
        assert!(skill.description.ends_with('…'));
        assert!(skill.description.chars().count() <= MAX_DESCRIPTION_CHARS + 1);
    }

    #[test]
    fn what_is_not_a_skill_says_why() {
        for (text, expected) in [
            ("# no front matter\n", FormatError::NoFrontMatter),
            ("---\nname: a\ndescription: b\n", FormatError::Unclosed),
            ("---\n- a\n- b\n---\n", FormatError::NotAMapping),
            ("---\ndescription: b\n---\n", FormatError::Missing("name")),
            ("---\nname: a\n---\n", FormatError::Missing("description")),
            (
                "---\nname: a\ndescription: '  '\n---\n",
                FormatError::Missing("description"),
            ),
            (
                "---\nname: ../x\ndescription: b\n---\n",
                FormatError::BadName("../x".into()),
            ),
            (
                "---\nname: [a]\ndescription: b\n---\n",
                FormatError::BadField {
                    field: "name",
                    expected: "a string",
                },
            ),
            (
                "---\nname: a\ndescription: b\nmetadata: [1]\n---\n",
                FormatError::BadField {
                    field: "metadata",
                    expected: "a mapping",
                },
            ),
        ] {
            assert_eq!(parse(text), Err(expected), "{text:?}");
        }
        assert!(matches!(
            parse("---\nname: a\ndescription: \"open\n---\n"),
            Err(FormatError::Yaml(_))
        ));
        let huge = format!("---\nname: a\n{}", "# pad\n".repeat(20_000));
        assert_eq!(parse(&huge), Err(FormatError::TooLarge));
    }

    #[test]
    fn names_are_safe_folder_names() {
        assert!(valid_name("pdf-tools_2"));
        for bad in ["", ".", "..", "a/b", "a b", "-a", "é", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_rename_changes_the_name_line_only() {
        let text = "---\r\ndescription: \"name: not this\"\r\nname: old\r\n---\r\nname: body\r\n";
        let renamed = rename(text, "new").unwrap();
        assert_eq!(
            renamed,
            "---\r\ndescription: \"name: not this\"\r\nname: new\r\n---\r\nname: body\r\n"
        );
        assert_eq!(parse(&renamed).unwrap().name, "new");
        assert_eq!(
            rename("---\ndescription: d\n---\n", "x"),
            Err(FormatError::Missing("name"))
        );
    }
}

//! The edit engine behind `edit_file`: exact replacement that respects the
//! file's line endings and final newline, and, when the text is not found,
//! an explanation that helps the model find it. Pure functions over strings.

/// Candidates shown when `old_string` is not found.
pub const MAX_CANDIDATES: usize = 3;
/// A line must be at least this similar to be shown as a candidate.
pub const MIN_SIMILARITY: f32 = 0.6;
/// Files with more lines than this get no similarity search (it is
/// quadratic in the worst case); the exact-match error still applies.
pub const MAX_LINES_FOR_CANDIDATES: usize = 20_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    pub content: String,
    pub replaced: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("old_string is empty; to create a file use write_file")]
    EmptyOldString,
    #[error("old_string and new_string are the same; nothing to change")]
    NoChange,
    #[error(
        "old_string occurs {0} times; include more surrounding text to pick one, or set replace_all to change all {0}"
    )]
    Ambiguous(usize),
    #[error("old_string was not found.{0}")]
    NotFound(String),
}

pub fn apply(
    content: &str,
    old_string: &str,
    new_string: &str,
    replace_all: bool,
) -> Result<Edited, EditError> {
    if old_string.is_empty() {
        return Err(EditError::EmptyOldString);
    }
    if old_string == new_string {
        return Err(EditError::NoChange);
    }
    // Models write `\n`; a CRLF file needs `\r\n` to match and to stay CRLF.
    let crlf = uses_crlf(content);
    let (old, new) = if crlf && !old_string.contains("\r\n") {
        (to_crlf(old_string), to_crlf(new_string))
    } else {
        (old_string.to_owned(), new_string.to_owned())
    };
    let replaced = content.matches(old.as_str()).count();
    match (replaced, replace_all) {
        (0, _) => return Err(EditError::NotFound(explain_miss(content, old_string))),
        (1, _) | (_, true) => {}
        (many, false) => return Err(EditError::Ambiguous(many)),
    }
    let mut edited = content.replace(old.as_str(), &new);
    let ending = if crlf { "\r\n" } else { "\n" };
    match (content.ends_with('\n'), edited.ends_with('\n')) {
        (true, false) if !edited.is_empty() => edited.push_str(ending),
        (false, true) => {
            let trimmed = edited.trim_end_matches(['\r', '\n']).len();
            edited.truncate(trimmed);
        }
        _ => {}
    }
    Ok(Edited {
        content: edited,
        replaced,
    })
}

/// A file is CRLF when most of its line breaks are.
pub fn uses_crlf(content: &str) -> bool {
    let crlf = content.matches("\r\n").count();
    let lf = content.matches('\n').count();
    crlf > 0 && crlf * 2 >= lf
}

fn to_crlf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// Why the text was not found: a match that differs only in white space,
/// or the lines most like its first line.
fn explain_miss(content: &str, old_string: &str) -> String {
    let file_lines: Vec<&str> = content.lines().collect();
    let wanted: Vec<&str> = old_string.lines().collect();
    if let Some(start) = find_ignoring_whitespace(&file_lines, &wanted) {
        let end = start + wanted.len();
        return format!(
            " It matches lines {}-{} if leading and trailing white space is ignored; the file has:\n{}",
            start + 1,
            end,
            file_lines[start..end].join("\n")
        );
    }
    let Some(probe) = wanted
        .iter()
        .map(|line| line.trim())
        .find(|line| !line.is_empty())
    else {
        return " old_string holds only white space.".to_owned();
    };
    if file_lines.len() > MAX_LINES_FOR_CANDIDATES {
        return " Read the file again and copy the text exactly.".to_owned();
    }
    let mut scored: Vec<(f32, usize)> = file_lines
        .iter()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            let ratio = similar::TextDiff::from_chars(probe, line.trim()).ratio();
            (ratio, index)
        })
        .filter(|(ratio, _)| *ratio >= MIN_SIMILARITY)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    if scored.is_empty() {
        return " No line of the file resembles its first line; read the file again.".to_owned();
    }
    let mut hint = " The closest lines to its first line are:".to_owned();
    for (_, index) in scored.iter().take(MAX_CANDIDATES) {
        hint.push_str(&format!("\n{:>6}\t{}", index + 1, file_lines[*index]));
    }
    hint.push_str("\nCopy the text exactly, white space included.");
    hint
}

fn find_ignoring_whitespace(file_lines: &[&str], wanted: &[&str]) -> Option<usize> {
    if wanted.is_empty() || wanted.len() > file_lines.len() {
        return None;
    }
    (0..=file_lines.len() - wanted.len()).find(|start| {
        file_lines[*start..*start + wanted.len()]
            .iter()
            .zip(wanted)
            .all(|(have, want)| have.trim() == want.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_unique_match() {
        let edited = apply("a = 1\nb = 2\n", "b = 2", "b = 3", false).unwrap();
        assert_eq!(
            edited,
            Edited {
                content: "a = 1\nb = 3\n".into(),
                replaced: 1
            }
        );
    }

    #[test]
    fn refuses_ambiguity_unless_replace_all() {
        assert_eq!(
            apply("x x x", "x", "y", false),
            Err(EditError::Ambiguous(3))
        );
        assert_eq!(apply("x x x", "x", "y", true).unwrap().content, "y y y");
    }

    #[test]
    fn keeps_crlf_line_endings() {
        let file = "one\r\ntwo\r\nthree\r\n";
        let edited = apply(file, "one\ntwo", "uno\ndos\nextra", false).unwrap();
        assert_eq!(edited.content, "uno\r\ndos\r\nextra\r\nthree\r\n");
    }

    #[test]
    fn keeps_the_final_newline_as_it_was() {
        assert_eq!(
            apply("a\nb\n", "b\n", "c", false).unwrap().content,
            "a\nc\n"
        );
        assert_eq!(apply("a\nb", "b", "c\n", false).unwrap().content, "a\nc");
        assert_eq!(
            apply("a\r\nb\r\n", "b\r\n", "c", false).unwrap().content,
            "a\r\nc\r\n"
        );
    }

    #[test]
    fn a_miss_shows_a_whitespace_match_or_the_nearest_lines() {
        let file = "fn main() {\n    let total = compute(1, 2);\n    println!(\"{total}\");\n}\n";
        let Err(EditError::NotFound(hint)) = apply(
            file,
            "let total = compute(1, 2);\nprintln!(\"{total}\");",
            "x",
            false,
        ) else {
            panic!("expected a miss");
        };
        assert!(
            hint.contains("lines 2-3 if leading and trailing white space is ignored"),
            "{hint}"
        );

        let Err(EditError::NotFound(hint)) = apply(file, "let totl = compute(1, 3);", "x", false)
        else {
            panic!("expected a miss");
        };
        assert!(
            hint.contains("     2\t    let total = compute(1, 2);"),
            "{hint}"
        );
        assert!(!hint.contains("println"), "{hint}");
    }

    #[test]
    fn refuses_empty_and_identical_strings() {
        assert_eq!(apply("a", "", "b", false), Err(EditError::EmptyOldString));
        assert_eq!(apply("a", "a", "a", false), Err(EditError::NoChange));
    }
}

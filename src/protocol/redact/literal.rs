//! Whether the value of an assignment is a literal secret, or code that
//! names one: a reference, a placeholder, a path, a variable name.

use std::collections::HashSet;

use super::MIN_ASSIGNED_SECRET_LEN;

/// Whether the value of an assignment (`password = VALUE`) is a literal
/// secret. It must be at least [`MIN_ASSIGNED_SECRET_LEN`] characters and
/// none of: a reference (`$X`, `${X}`, `%X%`, `{x}`, `os.environ[...]`,
/// `process.env.X`, `getenv(...)`, a call or an index), a placeholder
/// (`<...>`, `«...»`, `xxx`, `***`, `...`, `changeme`, `your-...`, `...-here`,
/// `example`, one character repeated), a path (`/...`, `~/...`, `./...`
/// made of path characters), or, unless `quoted`, a name (`DB_PASSWORD`,
/// `db_password`, `dbPassword`, `self.password`). And it must vary: two
/// kinds of characters (lower case, upper case, digits, others) and five
/// different characters, or sixteen characters and eight different ones.
pub fn looks_like_literal_secret(value: &str, quoted: bool) -> bool {
    let length = value.chars().count();
    if length < MIN_ASSIGNED_SECRET_LEN
        || is_reference(value)
        || is_placeholder(value)
        || is_path(value)
        || (!quoted && is_name(value))
    {
        return false;
    }
    let kinds = [
        value.chars().any(|c| c.is_lowercase()),
        value.chars().any(|c| c.is_uppercase()),
        value.chars().any(|c| c.is_ascii_digit()),
        value.chars().any(|c| !c.is_alphanumeric()),
    ]
    .into_iter()
    .filter(|kind| *kind)
    .count();
    let distinct = value.chars().collect::<HashSet<_>>().len();
    (kinds >= 2 && distinct >= 5) || (length >= 16 && distinct >= 8)
}

pub(super) fn is_reference(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.starts_with('$')
        || (value.len() > 2 && value.starts_with('%') && value.ends_with('%'))
        || value.starts_with("%(")
        || (value.starts_with('{') && value.ends_with('}'))
        || value.starts_with("#{")
        || [
            "environ",
            "process.env",
            "getenv",
            "env(",
            "env[",
            "env.",
            "env::",
            "secrets.",
        ]
        .iter()
        .any(|marker| lower.contains(marker))
        || is_call_or_index(value)
}

/// `get_secret(`, `config["x"`, `vault.read(`: code, not a value.
fn is_call_or_index(value: &str) -> bool {
    let Some(open) = value.find(['(', '[']) else {
        return false;
    };
    let callee = &value[..open];
    callee
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && callee
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':'))
}

pub(super) fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let mut chars = value.chars();
    let first = chars.next();
    value.starts_with('<')
        || value.ends_with('>')
        // The model boundary's own placeholders (`«secret:openai-key:1»`),
        // also cut by the value's end (`openai-key:1»` after `secret:`).
        || value.contains(['«', '»'])
        || (value.starts_with('[') && value.ends_with(']'))
        || chars.all(|c| Some(c) == first)
        || lower.starts_with("your")
        || [
            "xxx",
            "***",
            "...",
            "changeme",
            "change_me",
            "change-me",
            "changeit",
            "placeholder",
            "example",
            "redacted",
            "-here",
            "_here",
            "dummy",
            "replace",
        ]
        .iter()
        .any(|marker| lower.contains(marker))
        || [
            "password",
            "passwd",
            "undefined",
            "required",
            "optional",
            "disabled",
            "notset",
        ]
        .contains(&lower.as_str())
}

fn is_path(value: &str) -> bool {
    ["/", "~/", "./", "../"]
        .iter()
        .any(|start| value.starts_with(start))
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '~'))
}

/// An identifier or a chain of them: `DB_PASSWORD`, `db_password`,
/// `dbPassword`, `DbPassword`, `self.password`, `settings.SECRET_KEY`.
fn is_name(value: &str) -> bool {
    fn word(part: &str) -> bool {
        !part.is_empty() && part.chars().all(|c| c.is_ascii_lowercase())
    }
    fn snake(part: &str) -> bool {
        part.contains('_') && part.split('_').all(word)
    }
    fn screaming(part: &str) -> bool {
        part.contains('_')
            && part.starts_with(|c: char| c.is_ascii_uppercase())
            && part
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    }
    fn camel(part: &str) -> bool {
        // Pieces that start where a capital is, each a letter and then
        // lower case letters only: `dbPassword`, `DbPassword`.
        let mut count = 0;
        let mut rest = part;
        while !rest.is_empty() {
            let head = rest
                .char_indices()
                .skip(1)
                .find(|(_, c)| c.is_ascii_uppercase())
                .map_or(rest.len(), |(at, _)| at);
            let mut piece = rest[..head].chars();
            let first = piece.next().unwrap_or(' ');
            if !(first.is_ascii_alphabetic() && word(piece.as_str())) {
                return false;
            }
            count += 1;
            rest = &rest[head..];
        }
        count >= 2
    }
    let parts: Vec<&str> = value.split('.').collect();
    if parts.len() >= 2 {
        parts
            .iter()
            .all(|part| word(part) || snake(part) || screaming(part) || camel(part))
    } else {
        snake(value) || screaming(value) || camel(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignment_values_must_look_like_literal_secrets() {
        // The look-alikes and literals themselves are in the corpus
        // (tests/data/redaction-corpus.toml); here the parts of the test.
        assert!(!looks_like_literal_secret("short1!", false));
        assert!(!looks_like_literal_secret("${OPENAI_API_KEY}", false));
        assert!(!looks_like_literal_secret("<your-token>", false));
        assert!(!looks_like_literal_secret("/home/agent/src", false));
        assert!(!looks_like_literal_secret("aaaaaaa1", false));
        assert!(looks_like_literal_secret("hunter2hunter2", false));
        // Quoted, a name is a literal string after all.
        assert!(!looks_like_literal_secret("db_password_value", false));
        assert!(looks_like_literal_secret("db_password_value", true));
    }
}

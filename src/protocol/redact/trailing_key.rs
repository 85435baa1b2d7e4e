//! A key that announces a secret value after it (`password = `,
//! `Bearer `) at the very end of streamed text: the value may be in the
//! next chunk, so the text is held from the key on.
//!
//! It was the regular expression `TRAILING_KEY` (kept in the tests as the
//! reference this must agree with): a case-insensitive alternation that
//! costs about a millisecond to compile, in every process, on the first
//! streamed text. Read right to left, it is a handful of suffix checks.

/// The key words, `[_-]?` spelled out, lowercase ASCII.
const KEYS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "secret_key",
    "api_key",
    "api-key",
    "apikey",
    "access_token",
    "access-token",
    "accesstoken",
    "auth_token",
    "auth-token",
    "authtoken",
    "client_secret",
    "client-secret",
    "clientsecret",
    "private_key",
    "private-key",
    "privatekey",
    "awssecretaccesskey",
    "aws_secretaccesskey",
    "awssecret_accesskey",
    "awssecretaccess_key",
    "aws_secret_accesskey",
    "aws_secretaccess_key",
    "awssecret_access_key",
    "aws_secret_access_key",
    "accountkey",
    "bearer",
];

/// Where a key at the end of `text` starts (followed only by an optional
/// quote, space, `:` or `=`, space and quote), the earliest of those that
/// match; `None` when the text does not end so.
pub(super) fn start(text: &str) -> Option<usize> {
    let mut end = text.len();
    end = strip_one(text, end, |c| c == '"' || c == '\'');
    end = text[..end].trim_end().len();
    end = strip_one(text, end, |c| c == ':' || c == '=');
    end = text[..end].trim_end().len();
    end = strip_one(text, end, |c| c == '"' || c == '\'');
    let head = &text[..end];
    KEYS.iter()
        .filter_map(|key| ends_with_folded(head, key))
        .min()
}

/// `end` less the char before it when that one is `wanted`.
fn strip_one(text: &str, end: usize, wanted: impl Fn(char) -> bool) -> usize {
    match text[..end].chars().next_back() {
        Some(c) if wanted(c) => end - c.len_utf8(),
        _ => end,
    }
}

/// Where `key` starts if `text` ends with it, compared as the regex
/// crate's case-insensitive mode does: simple case folding, under which
/// the Kelvin sign is a `k` and the long s an `s`.
fn ends_with_folded(text: &str, key: &str) -> Option<usize> {
    let mut chars = text.char_indices().rev();
    let mut start = text.len();
    for wanted in key.chars().rev() {
        let (at, c) = chars.next()?;
        if fold(c) != wanted {
            return None;
        }
        start = at;
    }
    Some(start)
}

fn fold(c: char) -> char {
    match c {
        '\u{212A}' => 'k',
        '\u{17F}' => 's',
        c => c.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expression this replaces.
    const TRAILING_KEY: &str = r#"(?i)(?:password|passwd|pwd|secret|secret_key|api[_\-]?key|apikey|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?key|aws_?secret_?access_?key|accountkey|bearer)["']?\s*[:=]?\s*["']?$"#;

    #[test]
    fn it_agrees_with_the_expression_it_replaces() {
        let regex = regex::Regex::new(TRAILING_KEY).expect("the reference compiles");
        let heads = [
            "", "x ", "my", "the ", "é", "aws_", "client", "_", "-", "\u{212A}", "ſ",
        ];
        let keys = [
            "password",
            "PassWord",
            "passwd",
            "pwd",
            "PWD",
            "secret",
            "secret_key",
            "SECRET_KEY",
            "api_key",
            "api-key",
            "apikey",
            "Api_Key",
            "api__key",
            "access_token",
            "accesstoken",
            "AUTH-TOKEN",
            "client_secret",
            "clientsecret",
            "private_key",
            "private-key",
            "aws_secret_access_key",
            "awssecretaccesskey",
            "aws_secretaccess_key",
            "accountkey",
            "AccountKey",
            "bearer",
            "Bearer",
            "apiſecret",
            "ſecret",
            "api_\u{212A}ey",
            "passwords",
            "keyring",
            "bear",
            "token",
            "secret_keys",
            "",
        ];
        let tails = [
            "",
            " ",
            "=",
            " = ",
            ":",
            ": ",
            "\"",
            "\" : \"",
            "'",
            "'='",
            " =  '",
            "  \t",
            "\u{a0}=\u{2003}",
            "==",
            "= x",
            "\"\"",
            "'\"",
            " : : ",
            "=\"",
            "x",
            "\n",
        ];
        let mut checked = 0;
        for head in heads {
            for key in keys {
                for tail in tails {
                    let text = format!("{head}{key}{tail}");
                    let expected = regex.find(&text).map(|found| found.start());
                    assert_eq!(start(&text), expected, "{text:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 7_000);
    }
}

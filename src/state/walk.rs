//! What every walk of the work dir shares (checkpoints, search, the
//! directory listing): git's global excludes file, found without the
//! regex `ignore` compiles to read it.
//!
//! `ignore` looks the file up on every walk it builds, reading git's
//! config files with a regex compiled on first use: 1.5 M instructions, a
//! sixth of a short turn's CPU, and in a restored turn on the critical
//! path, since restoring a checkpoint walks the work dir before
//! `session-start`. Most machines have no global excludes file: then the
//! walk is told there is none (`git_global(false)`, the same answer) and
//! nothing is compiled. Where there is one, `ignore` reads it as before.

use std::path::PathBuf;

/// Whether a walk should ask `ignore` for the global excludes file:
/// whether the file git would read exists. Read afresh on each call, as
/// `ignore` reads it on each walk, so a file made mid-session counts.
pub fn git_global() -> bool {
    global_excludes_path().is_some_and(|path| path.is_file())
}

/// The path of git's global excludes file as `ignore` finds it
/// (`ignore::gitignore::gitconfig_excludes_path`): `core.excludesFile`
/// of `$GIT_CONFIG_GLOBAL`, else of `~/.gitconfig`, else of
/// `$XDG_CONFIG_HOME/git/config`, else of the system config, else
/// `$XDG_CONFIG_HOME/git/ignore`. It may not exist.
pub fn global_excludes_path() -> Option<PathBuf> {
    let set = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    let home = std::env::home_dir();
    let config_home = set("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config")));
    let configs = [
        set("GIT_CONFIG_GLOBAL"),
        home.as_ref().map(|home| home.join(".gitconfig")),
        config_home.as_ref().map(|dir| dir.join("git/config")),
        Some(set("GIT_CONFIG_SYSTEM").unwrap_or_else(|| "/etc/gitconfig".into())),
    ];
    configs
        .into_iter()
        .flatten()
        .find_map(|config| {
            let text = std::fs::read(config).ok()?;
            excludes_file(&text).map(|value| expand_tilde(&value, home.as_ref()))
        })
        .or_else(|| config_home.map(|dir| dir.join("git/ignore")))
}

/// The value `ignore`'s regex takes from a git config:
/// `(?im-u)^\s*excludesfile\s*=\s*"?\s*(\S+?)\s*"?\s*$`, the first
/// match's group. Matched by hand, backtracking where the regex would,
/// since a space may be a line break on either side of the value.
fn excludes_file(config: &[u8]) -> Option<String> {
    let line_starts = std::iter::once(0).chain(
        config
            .iter()
            .enumerate()
            .filter(|(_, byte)| **byte == b'\n')
            .map(|(at, _)| at + 1),
    );
    line_starts
        .filter_map(|start| value_at(config, start))
        .next()
        .and_then(|value| String::from_utf8(value.to_vec()).ok())
}

/// The group of a match that starts at `start`, a line's start.
fn value_at(config: &[u8], start: usize) -> Option<&[u8]> {
    let key = skip_space(config, start);
    let name = config.get(key..key + 12)?;
    if !name.eq_ignore_ascii_case(b"excludesfile") {
        return None;
    }
    let equals = skip_space(config, key + 12);
    if config.get(equals) != Some(&b'=') {
        return None;
    }
    let after = skip_space(config, equals + 1);
    // `"?` is greedy: with the quote first, then without it.
    for quoted in [true, false] {
        let mut first = after;
        if quoted {
            if config.get(first) != Some(&b'"') {
                continue;
            }
            first = skip_space(config, first + 1);
        }
        // `(\S+?)` is lazy: the shortest run the rest accepts.
        let mut end = first;
        while end < config.len() && !is_space(config[end]) {
            end += 1;
            if ends_the_line(config, end) {
                return Some(&config[first..end]);
            }
        }
    }
    None
}

/// Whether `\s*"?\s*$` matches at `at` (`$` before a line break or at
/// the end).
fn ends_the_line(config: &[u8], at: usize) -> bool {
    let space_end = skip_space(config, at);
    let break_within =
        |from: usize, to: usize| to == config.len() || config[from..to].contains(&b'\n');
    if break_within(at, space_end) {
        return true;
    }
    config.get(space_end) == Some(&b'"') && {
        let after = space_end + 1;
        break_within(after, skip_space(config, after))
    }
}

fn skip_space(config: &[u8], from: usize) -> usize {
    from + config[from.min(config.len())..]
        .iter()
        .take_while(|&&byte| is_space(byte))
        .count()
}

/// Only a leading `~` alone or before a separator, as git and `ignore` do.
fn expand_tilde(value: &str, home: Option<&PathBuf>) -> PathBuf {
    match (value.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            PathBuf::from(format!("{}{rest}", home.display()))
        }
        _ => PathBuf::from(value),
    }
}

/// `\s` of a regex without Unicode.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answers as `ignore`'s regex, on the cases its own tests
    /// hold and on the edges of the pattern.
    #[test]
    fn excludes_file_reads_the_config_as_ignore_does() {
        let regex =
            regex::bytes::Regex::new(r#"(?im-u)^\s*excludesfile\s*=\s*"?\s*(\S+?)\s*"?\s*$"#)
                .unwrap();
        let configs = [
            "[core]\nexcludesFile = /foo/bar",
            "[core]\nexcludesFile = ~/foo/bar",
            "[core]\nexcludeFile = /foo/bar",
            "[core]\nexcludesFile = \"~/foo/bar\"",
            "[core]\nexcludesFile = \" \"~/foo/bar \" \"",
            "[core]\nexcludesFile = C:/Users/RUNNER~1/foo/bar",
            "[core]\n\texcludesfile=/tabbed\r\n",
            "[core]\r\n  EXCLUDESFILE =   \"  /spaced  \"  \r\n[user]\n",
            "[core]\nexcludesfile = /a b\nexcludesfile = /second",
            "[core]\nexcludesfile = /first\nexcludesfile = /second",
            "[core]\nexcludesfile =\nexcludesfile = /after-empty",
            "[core]\nexcludesfile = \"\"",
            "[core]\nexcludesfile = a\"b",
            "[core]\nexcludesfile = a\"b\"",
            "[core]\nexcludesfile = \"a",
            "[core]\nexcludesfile /no-equals",
            "[core]\nmyexcludesfile = /prefixed",
            "[core]\nexcludesfiles = /suffixed",
            "# excludesfile = /commented",
            "[core]\n\x0bexcludesfile = /vertical-tab",
            "[core]\nexcludesfile = /caf\u{e9}",
            "",
        ];
        for config in configs {
            let expected = regex
                .captures(config.as_bytes())
                .and_then(|caps| caps.get(1))
                .map(|group| String::from_utf8(group.as_bytes().to_vec()).unwrap());
            assert_eq!(excludes_file(config.as_bytes()), expected, "{config:?}");
        }
    }

    /// Every short text over the characters that matter, after a key:
    /// the same group as the regex.
    #[test]
    fn excludes_file_agrees_with_the_regex_on_every_short_text() {
        let regex =
            regex::bytes::Regex::new(r#"(?im-u)^\s*excludesfile\s*=\s*"?\s*(\S+?)\s*"?\s*$"#)
                .unwrap();
        let alphabet = [b' ', b'\n', b'"', b'a', b'=', b'\r'];
        let mut tail = Vec::new();
        for length in 0..=6u32 {
            for mut number in 0..alphabet.len().pow(length) {
                tail.clear();
                for _ in 0..length {
                    tail.push(alphabet[number % alphabet.len()]);
                    number /= alphabet.len();
                }
                for head in [
                    &b"excludesfile"[..],
                    b"x\n ExcludesFile",
                    b"excludesfile =a b\nexcludesfile",
                ] {
                    let config = [head, &tail].concat();
                    let expected = regex
                        .captures(&config)
                        .and_then(|caps| caps.get(1))
                        .map(|group| String::from_utf8(group.as_bytes().to_vec()).unwrap());
                    assert_eq!(
                        excludes_file(&config),
                        expected,
                        "{:?}",
                        String::from_utf8_lossy(&config)
                    );
                }
            }
        }
    }

    #[test]
    fn only_a_leading_tilde_is_home() {
        let home = PathBuf::from("/home/me");
        assert_eq!(
            expand_tilde("~/x", Some(&home)),
            PathBuf::from("/home/me/x")
        );
        assert_eq!(expand_tilde("~", Some(&home)), PathBuf::from("/home/me"));
        assert_eq!(
            expand_tilde("~other/x", Some(&home)),
            PathBuf::from("~other/x")
        );
        assert_eq!(expand_tilde("a/~/x", Some(&home)), PathBuf::from("a/~/x"));
        assert_eq!(expand_tilde("~/x", None), PathBuf::from("~/x"));
    }
}

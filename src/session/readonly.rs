//! Decides whether a shell command line can only read. Used in plan mode,
//! where nothing may change the work dir. It errs on the side of "no": a
//! command it cannot prove harmless is refused, and the model is told to
//! use the read-only tools instead.
//!
//! A line is read-only when it has no output redirection (other than to
//! `/dev/null` or `2>&1`), no command or process substitution, no
//! background `&`, no variable assignment, and every command of every
//! `|`, `&&`, `||`, `;` segment is on the list below with arguments that do
//! not write.

/// Programs that only read, whatever their arguments (beyond the checks in
/// [`segment_is_read_only`]).
const READ_ONLY_PROGRAMS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "tree",
    "pwd",
    "echo",
    "printf",
    "stat",
    "file",
    "du",
    "df",
    "which",
    "whereis",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "cut",
    "tr",
    "diff",
    "cmp",
    "comm",
    "nl",
    "od",
    "hexdump",
    "true",
    "false",
    "date",
    "id",
    "whoami",
    "uname",
    "jq",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "column",
    "fold",
    "rev",
    "seq",
    "test",
    "[",
];

/// `find` actions that write or run something.
const FIND_WRITES: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// Git subcommands that only read (some only without arguments).
const GIT_READ_ONLY: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "blame",
    "grep",
    "describe",
    "shortlog",
    "cat-file",
    "rev-list",
    "whatchanged",
];

pub fn is_read_only(command: &str) -> bool {
    let cleaned = command
        .replace("2>&1", " ")
        .replace("2>/dev/null", " ")
        .replace(">/dev/null", " ")
        .replace("> /dev/null", " ");
    if ["`", "$(", "<(", ">(", ">", "<<"]
        .iter()
        .any(|bad| cleaned.contains(bad))
    {
        return false;
    }
    let mut segments = vec![cleaned.as_str()];
    for separator in ["&&", "||", ";", "|", "\n"] {
        segments = segments
            .into_iter()
            .flat_map(|segment| segment.split(separator))
            .collect();
    }
    // What is left of `&` is a lone ampersand: a background job.
    if segments.iter().any(|segment| segment.contains('&')) {
        return false;
    }
    segments
        .iter()
        .filter(|segment| !segment.trim().is_empty())
        .all(|segment| segment_is_read_only(segment))
}

fn segment_is_read_only(segment: &str) -> bool {
    let Some(words) = shlex::split(segment) else {
        return false;
    };
    let Some((program, args)) = words.split_first() else {
        return true;
    };
    if program.contains('=') || program.contains('/') {
        return false;
    }
    let positional = || args.iter().filter(|arg| !arg.starts_with('-')).count();
    match program.as_str() {
        "find" => !args.iter().any(|arg| FIND_WRITES.contains(&arg.as_str())),
        "sort" => !args
            .iter()
            .any(|arg| arg == "-o" || arg.starts_with("--output")),
        // `uniq IN OUT` and `xxd IN OUT` write OUT.
        "uniq" => positional() <= 1,
        "xxd" => !args.iter().any(|arg| arg == "-r") && positional() <= 1,
        "git" => git_is_read_only(args),
        name => READ_ONLY_PROGRAMS.contains(&name),
    }
}

fn git_is_read_only(args: &[String]) -> bool {
    // Options before the subcommand (`-C dir`, `--no-pager`) are allowed;
    // `-c key=value` could set an alias or a pager that runs anything.
    let mut rest = args.iter();
    let subcommand = loop {
        match rest.next() {
            Some(arg) if arg == "-c" => return false,
            Some(arg) if arg == "-C" => {
                rest.next();
            }
            Some(arg) if arg.starts_with('-') => {}
            Some(arg) => break arg.as_str(),
            None => return true,
        }
    };
    let rest: Vec<&String> = rest.collect();
    let only_flags = |allowed: &[&str]| rest.iter().all(|arg| allowed.contains(&arg.as_str()));
    match subcommand {
        "branch" => only_flags(&[
            "-a",
            "-r",
            "-v",
            "-vv",
            "--list",
            "--all",
            "--remotes",
            "--show-current",
        ]),
        "tag" => only_flags(&["-l", "--list"]),
        "remote" => only_flags(&["-v", "--verbose"]),
        "config" => rest
            .first()
            .is_some_and(|arg| ["--get", "--list", "-l", "--get-all"].contains(&arg.as_str())),
        "stash" => rest
            .first()
            .is_some_and(|arg| *arg == "list" || *arg == "show"),
        "diff" | "log" | "show" => !rest.iter().any(|arg| arg.starts_with("--output")),
        name => GIT_READ_ONLY.contains(&name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_commands_pass() {
        for command in [
            "ls -la",
            "cat src/main.rs | head -20",
            "grep -rn 'fn main' src && wc -l src/*.rs",
            "find . -name '*.rs' -type f",
            "git status; git log --oneline -5",
            "git diff HEAD~1 -- src",
            "git -C sub branch -a",
            "rg TODO 2>/dev/null",
            "sort names.txt | uniq -c",
            "echo hello",
        ] {
            assert!(is_read_only(command), "{command}");
        }
    }

    #[test]
    fn writing_or_unknown_commands_fail() {
        for command in [
            "echo x > file",
            "cat a >> b",
            "rm -rf build",
            "touch x",
            "ls; rm x",
            "ls && mv a b",
            "find . -delete",
            "find . -exec rm {} \\;",
            "git commit -am x",
            "git checkout main",
            "git branch new-branch",
            "git -c core.pager=evil log",
            "sort -o out in",
            "uniq in out",
            "echo $(rm x)",
            "echo `rm x`",
            "sleep 100 &",
            "FOO=1 ls",
            "./script.sh",
            "python -c 'open(\"x\",\"w\")'",
            "sed -i s/a/b/ f",
            "tee out",
            "cat <<EOF",
            "ls 'unterminated",
        ] {
            assert!(!is_read_only(command), "{command}");
        }
    }
}

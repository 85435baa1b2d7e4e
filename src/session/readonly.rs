//! Decides whether a shell command line can only read: the agent's own
//! check of plan-mode `exec`, in front of the kernel's (Landlock, see
//! `tools::sandbox`), and the only one where the kernel has none. It errs
//! on the side of "no": a command it cannot prove harmless is refused, and
//! the model is told to use the read-only tools instead.
//!
//! The line is read the way the shell reads it (quotes, escapes,
//! operators), then every simple command must be a program on the list
//! below, with no option that writes or runs something. Options are judged
//! as the programs parse them: `-oFILE` and `-ro FILE` (short options in a
//! cluster), `--output=FILE` and its abbreviations `--o=FILE`, `--out FILE`
//! (GNU and git accept any unambiguous prefix), anywhere on the line (GNU
//! tools permute options and operands). A word the shell would still
//! expand (`$X`, `*`, `{a,b}`, `~`) could become such an option, so a
//! program that has one gets none.
//!
//! Refused outright: redirections other than to `/dev/null` or between
//! descriptors, here-documents, command and process substitution, `&`,
//! subshells, variable assignments, and programs named by a path.

/// A program the check knows, and which of its options write or run.
struct Program {
    name: &'static str,
    /// Short options that write or run something.
    short_writes: &'static str,
    /// Short options that take the next characters or word as their value.
    short_value: &'static str,
    /// Long options that write or run something (matched by prefix too).
    long_writes: &'static [&'static str],
    /// Single-dash words that write or run (`find -delete`).
    word_writes: &'static [&'static str],
    /// More operands than this name an output file (`uniq IN OUT`).
    max_operands: Option<usize>,
}

impl Program {
    const fn reads(name: &'static str) -> Program {
        Program {
            name,
            short_writes: "",
            short_value: "",
            long_writes: &[],
            word_writes: &[],
            max_operands: None,
        }
    }

    /// Whether some option of it writes: then words the shell would still
    /// expand are refused.
    fn has_writing_options(&self) -> bool {
        !self.short_writes.is_empty()
            || !self.long_writes.is_empty()
            || !self.word_writes.is_empty()
            || self.max_operands.is_some()
    }
}

const PROGRAMS: &[Program] = &[
    Program::reads("ls"),
    Program::reads("cat"),
    Program::reads("head"),
    Program::reads("tail"),
    Program::reads("wc"),
    Program::reads("grep"),
    Program::reads("egrep"),
    Program::reads("fgrep"),
    Program::reads("pwd"),
    Program::reads("echo"),
    Program::reads("printf"),
    Program::reads("stat"),
    Program::reads("du"),
    Program::reads("df"),
    Program::reads("which"),
    Program::reads("whereis"),
    Program::reads("basename"),
    Program::reads("dirname"),
    Program::reads("realpath"),
    Program::reads("readlink"),
    Program::reads("cut"),
    Program::reads("tr"),
    Program::reads("diff"),
    Program::reads("cmp"),
    Program::reads("comm"),
    Program::reads("nl"),
    Program::reads("od"),
    Program::reads("hexdump"),
    Program::reads("true"),
    Program::reads("false"),
    Program::reads("id"),
    Program::reads("whoami"),
    Program::reads("uname"),
    Program::reads("jq"),
    Program::reads("sha256sum"),
    Program::reads("sha1sum"),
    Program::reads("md5sum"),
    Program::reads("column"),
    Program::reads("fold"),
    Program::reads("rev"),
    Program::reads("seq"),
    Program::reads("test"),
    Program::reads("["),
    Program {
        short_writes: "s",
        long_writes: &["set"],
        ..Program::reads("date")
    },
    Program {
        long_writes: &["pre", "pre-glob", "hostname-bin"],
        ..Program::reads("rg")
    },
    Program {
        // `-o FILE` writes the listing; `-R` reruns tree with `-o
        // 00Tree.html` in every folder.
        short_writes: "oR",
        short_value: "LPIHTo",
        long_writes: &["output"],
        ..Program::reads("tree")
    },
    Program {
        // `-C` compiles a magic file next to it.
        short_writes: "C",
        short_value: "mfFeP",
        long_writes: &["compile"],
        ..Program::reads("file")
    },
    Program {
        short_writes: "oT",
        short_value: "kStoT",
        long_writes: &["output", "compress-program", "temporary-directory"],
        ..Program::reads("sort")
    },
    Program {
        short_value: "fsw",
        max_operands: Some(1),
        ..Program::reads("uniq")
    },
    Program {
        short_writes: "r",
        short_value: "cglosn",
        max_operands: Some(1),
        ..Program::reads("xxd")
    },
    Program {
        word_writes: &[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ],
        ..Program::reads("find")
    },
];

/// Options git takes before its subcommand that change nothing: every
/// other one (`-c`, `-C`, `--git-dir`, `--work-tree`, `--exec-path`,
/// `--config-env`, `-p`, ...) can point git at a configuration, a pager
/// or a program of someone's choosing.
const GIT_GLOBAL_HARMLESS: &[&str] = &[
    "--no-pager",
    "-P",
    "--no-optional-locks",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
];

/// Git subcommands that only read (some only without arguments), and
/// their options that write or run something.
const GIT_READ_ONLY: &[Program] = &[
    Program::reads("status"),
    Program {
        long_writes: &["output", "ext-diff"],
        ..Program::reads("log")
    },
    Program {
        long_writes: &["output", "ext-diff"],
        ..Program::reads("diff")
    },
    Program {
        long_writes: &["output", "ext-diff"],
        ..Program::reads("show")
    },
    Program {
        long_writes: &["output", "ext-diff"],
        ..Program::reads("whatchanged")
    },
    Program {
        // `-O CMD` opens the matching files with CMD.
        short_writes: "O",
        short_value: "eEfABCm",
        long_writes: &["open-files-in-pager"],
        ..Program::reads("grep")
    },
    Program::reads("ls-files"),
    Program::reads("ls-tree"),
    Program::reads("rev-parse"),
    Program::reads("blame"),
    Program::reads("describe"),
    Program::reads("shortlog"),
    Program::reads("cat-file"),
    Program::reads("rev-list"),
];

/// One word of a simple command, after quote removal.
#[derive(Debug)]
struct Word {
    text: String,
    /// The shell would still expand it (`$`, globs, braces, `~`): what
    /// the program sees is not `text`.
    expands: bool,
}

pub fn is_read_only(command: &str) -> bool {
    let Some(commands) = lex(command) else {
        return false;
    };
    commands
        .iter()
        .filter(|words| !words.is_empty())
        .all(|words| simple_command_reads(words))
}

/// Splits a line into simple commands (at `;`, `&&`, `||`, `|` and new
/// lines) of words. `None` for anything that is refused whatever the
/// programs: see the module comment.
fn lex(line: &str) -> Option<Vec<Vec<Word>>> {
    let mut lexer = Lexer {
        chars: line.chars().collect(),
        at: 0,
        commands: vec![Vec::new()],
        word: String::new(),
        in_word: false,
        expands: false,
    };
    while let Some(&c) = lexer.chars.get(lexer.at) {
        lexer.token(c)?;
    }
    lexer.finish_word();
    Some(lexer.commands)
}

/// Where [`lex`] is in the line, the commands read so far, and the word
/// being read. Each method reads one kind of token from `chars[at]` and
/// moves `at` past it; `None` refuses the line.
struct Lexer {
    chars: Vec<char>,
    at: usize,
    commands: Vec<Vec<Word>>,
    word: String,
    in_word: bool,
    expands: bool,
}

impl Lexer {
    fn token(&mut self, c: char) -> Option<()> {
        match c {
            '\'' => return self.single_quoted(),
            '"' => return self.double_quoted(),
            '\\' => return self.escaped(),
            '`' | '(' | ')' => return None,
            '$' => {
                if self.chars.get(self.at + 1) == Some(&'(') {
                    return None;
                }
                self.expanding(c);
            }
            '*' | '?' | '[' | '{' => self.expanding(c),
            '~' if !self.in_word => self.expanding(c),
            // A comment ends at the end of its line, not of the command:
            // what follows a newline still runs.
            '#' if !self.in_word => {
                while self.chars.get(self.at).is_some_and(|&c| c != '\n') {
                    self.at += 1;
                }
                return Some(());
            }
            ' ' | '\t' => self.finish_word(),
            ';' | '\n' => self.end_command(),
            '|' => self.pipe()?,
            '&' => return self.and(),
            '>' | '<' => return self.redirection(),
            other => {
                self.in_word = true;
                self.word.push(other);
            }
        }
        self.at += 1;
        Some(())
    }

    fn finish_word(&mut self) {
        if self.in_word
            && let Some(current) = self.commands.last_mut()
        {
            current.push(Word {
                text: std::mem::take(&mut self.word),
                expands: self.expands,
            });
        }
        self.in_word = false;
        self.expands = false;
    }

    fn end_command(&mut self) {
        self.finish_word();
        self.commands.push(Vec::new());
    }

    /// A character the shell would expand (`$X`, a glob, a brace, `~`).
    fn expanding(&mut self, c: char) {
        self.in_word = true;
        self.expands = true;
        self.word.push(c);
    }

    /// `'...'`: everything up to the next `'` as it is.
    fn single_quoted(&mut self) -> Option<()> {
        let i = self.at;
        self.in_word = true;
        let end = self.chars[i + 1..].iter().position(|&q| q == '\'')? + i + 1;
        self.word.extend(&self.chars[i + 1..end]);
        self.at = end + 1;
        Some(())
    }

    /// `"..."`: `$` expands (`$(` is refused, like a backquote), and a
    /// backslash escapes only what it escapes in double quotes.
    fn double_quoted(&mut self) -> Option<()> {
        self.in_word = true;
        self.at += 1;
        loop {
            let q = *self.chars.get(self.at)?;
            match q {
                '"' => break,
                '`' => return None,
                '$' => {
                    if self.chars.get(self.at + 1) == Some(&'(') {
                        return None;
                    }
                    self.expands = true;
                    self.word.push('$');
                }
                '\\' => {
                    let next = *self.chars.get(self.at + 1)?;
                    if matches!(next, '$' | '`' | '"' | '\\' | '\n') {
                        if next != '\n' {
                            self.word.push(next);
                        }
                        self.at += 1;
                    } else {
                        self.word.push('\\');
                    }
                }
                other => self.word.push(other),
            }
            self.at += 1;
        }
        self.at += 1;
        Some(())
    }

    /// `\x` outside quotes: `x` itself; a backslash-newline joins lines.
    fn escaped(&mut self) -> Option<()> {
        let next = *self.chars.get(self.at + 1)?;
        if next != '\n' {
            self.in_word = true;
            self.word.push(next);
        }
        self.at += 2;
        Some(())
    }

    /// `|` or `||` ends a command; `|&` is refused. Leaves `at` on the
    /// last character of the operator.
    fn pipe(&mut self) -> Option<()> {
        self.finish_word();
        match self.chars.get(self.at + 1) {
            Some('|') => self.at += 1,
            // `|&` also pipes stderr: fine, but rare enough to refuse.
            Some('&') => return None,
            _ => {}
        }
        self.commands.push(Vec::new());
        Some(())
    }

    /// `&&` ends a command; `&>` writes and a lone `&` is a background
    /// job, both refused.
    fn and(&mut self) -> Option<()> {
        if self.chars.get(self.at + 1) == Some(&'&') {
            self.end_command();
            self.at += 2;
            return Some(());
        }
        None
    }

    /// `>` or `<`, with the descriptor number right before it (`2>`),
    /// which belongs to it rather than being a word.
    fn redirection(&mut self) -> Option<()> {
        let fd_prefix =
            self.in_word && !self.expands && self.word.chars().all(|d| d.is_ascii_digit());
        if fd_prefix {
            self.word.clear();
            self.in_word = false;
        } else {
            self.finish_word();
        }
        self.at = redirection(&self.chars, self.at)?;
        Some(())
    }
}

/// Checks the redirection starting at `chars[at]` (`>` or `<`) and returns
/// where the line goes on after its target; `None` if it may write.
fn redirection(chars: &[char], at: usize) -> Option<usize> {
    let mut i = at;
    let input = chars[i] == '<';
    i += 1;
    match chars.get(i) {
        // Here-documents and here-strings, `<>` (opens for writing), `<(`.
        Some('<') | Some('(') if input => return None,
        Some('>') if input => return None,
        Some('(') => return None,
        Some('>') | Some('|') => i += 1,
        _ => {}
    }
    if chars.get(i) == Some(&'&') {
        // Between descriptors (`2>&1`, `>&2`, `<&0`, `>&-`).
        i += 1;
        let start = i;
        while chars
            .get(i)
            .is_some_and(|c| c.is_ascii_digit() || *c == '-')
        {
            i += 1;
        }
        let ends = chars.get(i).is_none_or(|c| " \t\n;|&".contains(*c));
        return (i > start && ends).then_some(i);
    }
    while chars.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
        i += 1;
    }
    let start = i;
    while chars.get(i).is_some_and(|c| !" \t\n;|&<>()".contains(*c)) {
        i += 1;
    }
    let target: String = chars[start..i].iter().collect();
    if target.is_empty() {
        return None;
    }
    if input {
        // Reading a file is fine, unless its name is still to be expanded.
        return (!target.contains(['$', '`', '\'', '"', '\\'])).then_some(i);
    }
    (target == "/dev/null").then_some(i)
}

fn simple_command_reads(words: &[Word]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return true;
    };
    if program.expands || program.text.contains('=') || program.text.contains('/') {
        return false;
    }
    if program.text == "git" {
        return git_reads(args);
    }
    match PROGRAMS.iter().find(|known| known.name == program.text) {
        Some(known) => options_read(known, args),
        None => false,
    }
}

/// Whether no argument is an option of `program` that writes or runs.
fn options_read(program: &Program, args: &[Word]) -> bool {
    if program.has_writing_options() && args.iter().any(|arg| arg.expands) {
        return false;
    }
    let mut operands = 0;
    let mut options_over = false;
    let mut takes_value = false;
    for arg in args {
        let text = arg.text.as_str();
        if takes_value {
            takes_value = false;
            continue;
        }
        if options_over || text == "-" || !text.starts_with('-') {
            operands += 1;
            continue;
        }
        if text == "--" {
            options_over = true;
            continue;
        }
        if program.word_writes.contains(&text) {
            return false;
        }
        if let Some(long) = text.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            if program
                .long_writes
                .iter()
                .any(|writes| writes.starts_with(name))
            {
                return false;
            }
            continue;
        }
        // A cluster of short options: each letter an option, until one
        // that takes a value, which is the rest (or the next word).
        if !program.word_writes.is_empty() {
            // `find`'s single-dash words are whole names, not clusters.
            continue;
        }
        for (index, letter) in text.char_indices().skip(1) {
            if program.short_writes.contains(letter) {
                return false;
            }
            if program.short_value.contains(letter) {
                takes_value = index + letter.len_utf8() == text.len();
                break;
            }
        }
    }
    program.max_operands.is_none_or(|max| operands <= max)
}

fn git_reads(args: &[Word]) -> bool {
    let mut at = 0;
    let subcommand = loop {
        match args.get(at) {
            Some(arg) if arg.expands => return false,
            Some(arg) if GIT_GLOBAL_HARMLESS.contains(&arg.text.as_str()) => at += 1,
            Some(arg) if arg.text.starts_with('-') => return false,
            Some(arg) => break arg.text.as_str(),
            None => return true,
        }
    };
    let rest = &args[at + 1..];
    if rest.iter().any(|arg| arg.expands) {
        return false;
    }
    let only_flags = |allowed: &[&str]| rest.iter().all(|arg| allowed.contains(&arg.text.as_str()));
    let first = rest.first().map(|arg| arg.text.as_str());
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
        "config" => first.is_some_and(|arg| ["--get", "--list", "-l", "--get-all"].contains(&arg)),
        "stash" => first.is_some_and(|arg| arg == "list" || arg == "show"),
        name => match GIT_READ_ONLY.iter().find(|known| known.name == name) {
            Some(known) => options_read(known, rest),
            None => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_commands_pass() {
        for command in [
            "ls -la",
            "ls *.rs",
            "cat src/main.rs | head -20",
            "grep -rn 'fn main' src && wc -l src/*.rs",
            "find . -name '*.rs' -type f",
            "git status; git log --oneline -5",
            "git diff HEAD~1 -- src",
            "git --no-pager log -p -- README.md",
            "rg TODO 2>/dev/null",
            "rg TODO >/dev/null 2>&1",
            "sort names.txt | uniq -c",
            "sort -k2 -t, data.csv",
            "sort -rn -k 3 data.csv",
            "xxd -l 64 file.bin",
            "tree -L 2 src",
            "file README.md",
            "echo hello # a comment > file",
            "cat < input.txt",
            "grep -c x a.txt || echo none",
            "echo \"a;b\" 'c|d'",
        ] {
            assert!(is_read_only(command), "{command}");
        }
    }

    #[test]
    fn writing_or_unknown_commands_fail() {
        for command in [
            "echo x > file",
            "echo x >file",
            "cat a >> b",
            "echo x >| file",
            "echo x &> file",
            "echo x 2> err.log",
            "cat <> file",
            "rm -rf build",
            "touch x",
            "ls; rm x",
            "ls && mv a b",
            "find . -delete",
            "find . -exec rm {} \\;",
            "find . -fprint out",
            "find . -name x -fprintf out %p",
            "git commit -am x",
            "git checkout main",
            "git branch new-branch",
            "git -c core.pager=evil log",
            "git -C /tmp log",
            "git --git-dir=/x/.git log",
            "git --work-tree=/x status",
            "git --exec-path=/x log",
            "git -p log",
            "git --paginate log",
            "git log --output=F",
            "git log --out=F",
            "git diff --output F",
            "git show --ext-diff",
            "git grep -O'touch pwned' x",
            "git grep -Otouch x",
            "git grep --open-files-in-pager=touch x",
            "git grep --open x",
            "sort -o out in",
            "sort -oFILE in",
            "sort -ro out in",
            "sort --o=FILE in",
            "sort --out FILE in",
            "sort --output=FILE in",
            "sort --compress-program=sh in",
            "sort in -o out",
            "sort $OPTS in",
            "sort *",
            "sort {-o,out} in",
            "sort -\\o out in",
            "sort '-o' out in",
            "sort -''o out in",
            "rg --pre sh x",
            "rg --pre=./evil x",
            "rg --hostname-bin=./evil x",
            "tree -o FILE",
            "tree -aoFILE",
            "tree -R -H . ",
            "file -C -m magic",
            "file --compile",
            "xxd IN OUT",
            "xxd -r dump",
            "uniq in out",
            "date -s 2020-01-01",
            "echo $(rm x)",
            "echo \"$(rm x)\"",
            "echo `rm x`",
            "diff <(ls) b",
            "sleep 100 &",
            "ls |& cat",
            "(ls)",
            "FOO=1 ls",
            "./script.sh",
            "/bin/rm x",
            "python -c 'open(\"x\",\"w\")'",
            "sed -i s/a/b/ f",
            "tee out",
            "cat <<EOF",
            "cat <<< hi",
            "ls 'unterminated",
            "ls \"unterminated",
            "ls # note\nrm -rf x",
            "ls #\ntouch y",
            "echo a # c ; d\nsort -o out in",
        ] {
            assert!(!is_read_only(command), "{command}");
        }
    }
}

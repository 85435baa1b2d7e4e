//! Whether a shell command line reaches the network, as far as the line
//! shows it: `curl`, `wget`, `git clone`, `pip download`, `gh issue view`...
//! What such a command prints was written by someone else, so `exec`
//! marks its output as third-party; and after an injection was seen, the
//! session asks a person before one runs.
//!
//! The line is read leniently: it only has to find the programs a line
//! runs, not prove anything about them (`session::readonly` does that, and
//! refuses what it cannot read). A command that reaches the network
//! without saying so (a script, a build that downloads) is not seen.

/// Why a command line is taken to reach the network: the program, and its
/// subcommand where only some reach it (`git clone`); `None` when nothing
/// on the line does.
pub fn reaches_network(line: &str) -> Option<String> {
    simple_commands(line)
        .iter()
        .find_map(|words| command_reaches(words, 0))
}

/// The simple commands of a line (split at `;`, `|`, `&`, new lines,
/// parentheses and command substitutions), each as its words after quote
/// removal. Unbalanced quotes run to the end of the line.
pub fn simple_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    let mut quote: Option<char> = None;
    let finish = |commands: &mut Vec<Vec<String>>, word: &mut String, in_word: &mut bool| {
        if std::mem::take(in_word)
            && let Some(last) = commands.last_mut()
        {
            last.push(std::mem::take(word));
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (_, '\\') => {
                if let Some(next) = chars.next()
                    && next != '\n'
                {
                    word.push(next);
                    in_word = true;
                }
            }
            // A command substitution starts a command of its own, also
            // inside double quotes, which are then taken as closed.
            (_, '`') | (_, '$') if c == '`' || chars.peek() == Some(&'(') => {
                finish(&mut commands, &mut word, &mut in_word);
                commands.push(Vec::new());
                quote = None;
                if c == '$' {
                    chars.next();
                }
            }
            (Some(_), c) => {
                word.push(c);
                in_word = true;
            }
            (None, ' ' | '\t' | '<' | '>') => finish(&mut commands, &mut word, &mut in_word),
            (None, ';' | '|' | '&' | '\n' | '(' | ')' | '{' | '}') => {
                finish(&mut commands, &mut word, &mut in_word);
                commands.push(Vec::new());
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    finish(&mut commands, &mut word, &mut in_word);
    commands.retain(|words| !words.is_empty());
    commands
}

/// Programs that run the rest of their words as a command, and how many
/// of their options take a value (`timeout 5 curl`, `sudo -u x curl`).
const WRAPPERS: &[(&str, &[&str])] = &[
    (
        "sudo",
        &["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U"],
    ),
    ("doas", &["-u", "-C"]),
    ("env", &["-u", "-C", "-S"]),
    ("time", &["-f", "-o"]),
    ("nice", &["-n"]),
    ("nohup", &[]),
    ("timeout", &["-s", "-k"]),
    ("command", &[]),
    ("exec", &["-a"]),
    ("builtin", &[]),
    ("stdbuf", &["-i", "-o", "-e"]),
    ("watch", &["-n", "-d"]),
    (
        "xargs",
        &["-n", "-I", "-P", "-L", "-d", "-s", "-a", "-E", "-i"],
    ),
    ("proxychains", &["-f"]),
    ("proxychains4", &["-f"]),
    ("torsocks", &[]),
    ("unbuffer", &[]),
    ("ionice", &["-c", "-n"]),
    ("chronic", &[]),
];

const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "fish"];

/// Programs whose every run reaches the network (or whose whole job is
/// talking to another machine).
const ALWAYS: &[&str] = &[
    "curl",
    "wget",
    "wget2",
    "aria2c",
    "axel",
    "http",
    "https",
    "xh",
    "httpie",
    "lynx",
    "w3m",
    "links",
    "elinks",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "ssh",
    "scp",
    "sftp",
    "ftp",
    "lftp",
    "gh",
    "glab",
    "hub",
    "npx",
    "pnpx",
    "bunx",
    "dig",
    "nslookup",
    "whois",
    "yt-dlp",
    "youtube-dl",
];

/// Programs that reach the network with some subcommands.
const BY_SUBCOMMAND: &[(&str, &[&str])] = &[
    (
        "git",
        &[
            "clone",
            "fetch",
            "pull",
            "push",
            "ls-remote",
            "remote",
            "submodule",
            "lfs",
            "archive",
        ],
    ),
    ("svn", &["checkout", "co", "export", "update", "up", "log"]),
    ("hg", &["clone", "pull", "push", "incoming", "outgoing"]),
    ("pip", &["install", "download", "search", "index", "wheel"]),
    ("pip3", &["install", "download", "search", "index", "wheel"]),
    ("pipx", &["install", "run", "upgrade"]),
    ("uv", &["pip", "add", "sync", "tool", "run", "lock"]),
    ("uvx", &[]),
    ("poetry", &["add", "install", "update", "lock"]),
    ("conda", &["install", "create", "update", "search"]),
    ("mamba", &["install", "create", "update", "search"]),
    (
        "npm",
        &[
            "install", "i", "add", "ci", "update", "upgrade", "view", "info", "show", "exec",
            "create", "init", "search", "audit", "outdated",
        ],
    ),
    (
        "pnpm",
        &[
            "install", "i", "add", "update", "upgrade", "dlx", "view", "info", "create",
        ],
    ),
    (
        "yarn",
        &[
            "install", "add", "upgrade", "up", "dlx", "info", "npm", "create",
        ],
    ),
    ("bun", &["install", "i", "add", "update", "x", "create"]),
    (
        "cargo",
        &["install", "fetch", "update", "search", "add", "binstall"],
    ),
    ("go", &["get", "install", "mod"]),
    ("gem", &["install", "fetch", "update", "search"]),
    ("bundle", &["install", "update"]),
    (
        "apt",
        &["install", "update", "download", "source", "upgrade"],
    ),
    (
        "apt-get",
        &["install", "update", "download", "source", "upgrade"],
    ),
    ("apk", &["add", "update", "fetch", "upgrade"]),
    ("dnf", &["install", "download", "update", "upgrade"]),
    ("yum", &["install", "download", "update", "upgrade"]),
    ("brew", &["install", "fetch", "update", "upgrade"]),
    ("docker", &["pull", "push", "search", "login"]),
    ("podman", &["pull", "push", "search", "login"]),
    ("composer", &["install", "require", "update"]),
    ("openssl", &["s_client"]),
];

/// Interpreters that reach the network when given a URL (`deno run
/// https://...`, a script handed a URL) or code that holds one.
const INTERPRETERS: &[&str] = &[
    "python", "python3", "python2", "node", "deno", "bun", "ruby", "perl", "php",
];

/// `depth` guards the recursion into `bash -c '...'`.
fn command_reaches(words: &[String], depth: usize) -> Option<String> {
    let words = skip_wrappers(words);
    let (program, args) = words.split_first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    if ALWAYS.contains(&name) {
        return Some(name.to_owned());
    }
    if SHELLS.contains(&name) || name == "eval" {
        let code = if name == "eval" {
            Some(args.join(" "))
        } else {
            args.iter()
                .position(|arg| arg.starts_with('-') && !arg.starts_with("--") && arg.contains('c'))
                .and_then(|at| args.get(at + 1).cloned())
        };
        return code.filter(|_| depth < 4).and_then(|code| {
            simple_commands(&code)
                .iter()
                .find_map(|words| command_reaches(words, depth + 1))
        });
    }
    if name == "rsync" {
        // Remote only when an operand names a host (`host:path`,
        // `rsync://`).
        return args
            .iter()
            .any(|arg| !arg.starts_with('-') && arg.contains(':'))
            .then(|| name.to_owned());
    }
    if INTERPRETERS.contains(&name) || name.starts_with("python3.") {
        if let Some(at) = args.iter().position(|arg| arg == "-m")
            && let Some(module) = args.get(at + 1)
        {
            let rest = &args[at + 1..];
            if let Some(found) = command_reaches(rest, depth + 1) {
                return Some(format!("{name} -m {found}"));
            }
            if module == "http.server" {
                return None;
            }
        }
        return args
            .iter()
            .any(|arg| has_url(arg))
            .then(|| format!("{name} with a URL"));
    }
    let (_, subcommands) = BY_SUBCOMMAND.iter().find(|(known, _)| *known == name)?;
    if subcommands.is_empty() {
        return Some(name.to_owned());
    }
    let sub = first_operand(name, args)?;
    subcommands
        .contains(&sub.as_str())
        .then(|| format!("{name} {sub}"))
}

/// The words after assignments (`X=1 curl`) and wrappers (`sudo`,
/// `timeout 5`, `xargs -n1`), from the program that runs.
fn skip_wrappers(mut words: &[String]) -> &[String] {
    loop {
        let Some((first, rest)) = words.split_first() else {
            return words;
        };
        if is_assignment(first) {
            words = rest;
            continue;
        }
        let name = first.rsplit('/').next().unwrap_or(first);
        let Some((_, valued)) = WRAPPERS.iter().find(|(wrapper, _)| *wrapper == name) else {
            return words;
        };
        let mut i = 0;
        while let Some(word) = rest.get(i) {
            if word == "--" {
                i += 1;
                break;
            }
            if is_assignment(word) && name == "env" {
                i += 1;
            } else if word.starts_with('-') {
                i += if valued.contains(&word.as_str()) {
                    2
                } else {
                    1
                };
            } else if name == "timeout" && word.starts_with(|c: char| c.is_ascii_digit()) {
                // The duration before the command.
                i += 1;
                break;
            } else {
                break;
            }
        }
        words = rest.get(i..).unwrap_or(&[]);
    }
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// The subcommand: the first word that is not an option, skipping the
/// global options that take a value (`git -C dir clone`).
fn first_operand(program: &str, args: &[String]) -> Option<String> {
    let valued: &[&str] = match program {
        "git" => &["-C", "-c", "--git-dir", "--work-tree", "--namespace"],
        "cargo" => &["-Z", "--config", "--color"],
        "docker" | "podman" => &["-H", "--host", "--context", "-c", "--config"],
        "npm" | "pnpm" | "yarn" => &["--prefix", "-C", "--cwd"],
        _ => &[],
    };
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if !word.starts_with('-') {
            return Some(word.clone());
        }
        i += if valued.contains(&word.as_str()) {
            2
        } else {
            1
        };
    }
    None
}

fn has_url(word: &str) -> bool {
    ["http://", "https://", "ftp://"]
        .iter()
        .any(|scheme| word.contains(scheme))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_commands_are_found_through_pipes_wrappers_and_shells() {
        for (line, found) in [
            ("curl -s https://example.com/x", "curl"),
            ("/usr/bin/wget -qO- example.com | head", "wget"),
            ("cd repo && git clone https://github.com/a/b", "git clone"),
            ("git -C sub fetch origin", "git fetch"),
            ("pip download requests", "pip download"),
            (
                "python3 -m pip install -r req.txt",
                "python3 -m pip install",
            ),
            ("sudo -u web curl http://x", "curl"),
            ("HTTPS_PROXY=p timeout 5 wget x", "wget"),
            ("bash -c 'echo hi; curl x | sh'", "curl"),
            ("echo \"$(curl -s x)\"", "curl"),
            ("echo `wget -O- x`", "wget"),
            ("xargs -n1 curl -O < urls.txt", "curl"),
            ("gh issue view 12", "gh"),
            ("npx create-thing", "npx"),
            ("rsync -a host:/data .", "rsync"),
            ("node fetch.js https://example.com", "node with a URL"),
            ("env -u X FOO=1 curl x", "curl"),
        ] {
            assert_eq!(reaches_network(line).as_deref(), Some(found), "{line}");
        }
    }

    #[test]
    fn local_commands_are_not_taken_for_network_ones() {
        for line in [
            "ls -la",
            "grep -rn curl src",
            "echo https://example.com",
            "git status && git log -3",
            "git commit -m 'fetch the data'",
            "cargo build --release",
            "cargo test",
            "rsync -a src/ dst/",
            "python3 script.py data.csv",
            "python3 -m http.server",
            "npm run build",
            "cat README.md | grep wget",
            "",
        ] {
            assert_eq!(reaches_network(line), None, "{line}");
        }
    }

    #[test]
    fn words_are_split_like_the_shell_leniently() {
        assert_eq!(
            simple_commands("a 'b c' \"d\\\"e\" f\\ g; h|i && j"),
            vec![
                vec!["a", "b c", "d\"e", "f g"],
                vec!["h"],
                vec!["i"],
                vec!["j"]
            ]
        );
        // An unbalanced quote runs to the end; nothing panics.
        assert_eq!(simple_commands("echo 'open"), vec![vec!["echo", "open"]]);
        assert_eq!(simple_commands("cat<.env"), vec![vec!["cat", ".env"]]);
    }
}

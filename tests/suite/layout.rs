//! The source stays in pieces a reader can hold: no file under `src/` over
//! [`MAX_FILE_LINES`] lines, no function over [`MAX_FN_LINES`].
//!
//! A file's length is all its lines, its `#[cfg(test)] mod tests` included.
//! A function's length runs from the line of its `fn` keyword to the line of
//! its closing brace (attributes and doc comments above it do not count).
//! Test functions count too, under the same limit: a test too long to read
//! is as hard to trust as code too long to read. A function nested in
//! another counts on its own and inside its parent.
//!
//! `cargo test --test all layout -- --nocapture` prints the ten longest
//! files and functions; a failure prints them too.
//!
//! Also here: stdout has one owner, `src/protocol/writer.rs`.
//!
//! The scanner is small, not a Rust parser: it blanks out comments, strings
//! (raw ones too) and char literals, tells lifetimes from chars, and counts
//! braces in what is left. [`scanner_measures_past_braces_in_literals`] keeps
//! it honest, so the check cannot pass because it stopped seeing functions.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 800;
const MAX_FN_LINES: usize = 100;
const SHOWN: usize = 10;

#[test]
fn no_source_file_or_function_is_too_long() {
    let files = sources();
    assert!(!files.is_empty(), "no .rs files under src/");
    let mut file_lengths = Vec::new();
    let mut functions = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = relative(path);
        file_lengths.push((text.lines().count(), name.clone()));
        for function in functions_in(&text) {
            functions.push((
                function.lines,
                format!("{name}:{} {}", function.line, function.name),
            ));
        }
    }
    assert!(
        functions.len() > files.len(),
        "the scanner found {} functions in {} files: it has stopped seeing them",
        functions.len(),
        files.len()
    );
    file_lengths.sort_by(|a, b| b.cmp(a));
    functions.sort_by(|a, b| b.cmp(a));
    let report = format!(
        "{} functions in {} files under src/\n\n{}\n{}",
        functions.len(),
        files.len(),
        longest("files", &file_lengths),
        longest("functions", &functions)
    );
    println!("{report}");
    let too_long: Vec<String> = file_lengths
        .iter()
        .filter(|(lines, _)| *lines > MAX_FILE_LINES)
        .chain(functions.iter().filter(|(lines, _)| *lines > MAX_FN_LINES))
        .map(|(lines, name)| format!("{name} ({lines} lines)"))
        .collect();
    assert!(
        too_long.is_empty(),
        "over the limit ({MAX_FILE_LINES} lines a file, {MAX_FN_LINES} a function): {}\n\n{report}",
        too_long.join(", ")
    );
}

/// The limits mean nothing if the scanner miscounts: a brace in a string,
/// a char, a comment or a raw string must not move a function's end, and a
/// lifetime is not the start of a char.
#[test]
fn scanner_measures_past_braces_in_literals() {
    let source = r####"
/// A doc comment with a { brace.
fn tricky<'a>(x: &'a str) -> usize {
    let open = "{";
    let close = '}';
    // }
    /* } /* nested } */ still a comment } */
    let raw = r#"}" still raw {"#;
    let bytes = br"}";
    let escaped = "\"}";
    let quote = '\'';
    let brace = b'{';
    let _ = (open, close, raw, bytes, escaped, quote, brace);
    'outer: loop {
        break 'outer;
    }
    x.len()
}

trait Shape {
    fn area(&self) -> f64;
    fn sides(&self) -> usize {
        0
    }
}

fn pointer(f: fn(u8) -> u8, a: [u8; 2]) -> u8 {
    f(a[0])
}
"####;
    let found: Vec<(String, usize, usize)> = functions_in(source)
        .into_iter()
        .map(|function| (function.name, function.line, function.lines))
        .collect();
    assert_eq!(
        found,
        [
            ("tricky".to_owned(), 3, 16),
            ("sides".to_owned(), 22, 3),
            ("pointer".to_owned(), 27, 3),
        ]
    );
}

/// `src/lib.rs` promises that only `src/protocol/writer.rs` writes to
/// stdout. The `print_stdout` lint catches `println!`; this catches a
/// handle opened with `stdout()`. `tty.rs` asks whether stdout is a
/// terminal and sets its mode, and writes nothing to it.
#[test]
fn only_the_writer_opens_stdout() {
    const OWNERS: [&str; 2] = ["src/protocol/writer.rs", "src/protocol/tty.rs"];
    let mut found = Vec::new();
    for path in sources() {
        let name = relative(&path);
        if OWNERS.contains(&name.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code: String = blank_literals(&text).into_iter().collect();
        for (index, line) in code.lines().enumerate() {
            let opens = line
                .match_indices("stdout()")
                .any(|(at, _)| !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'));
            if opens {
                found.push(format!("{name}:{}", index + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "stdout opened outside src/protocol/writer.rs (go through EventWriter, replay_stdout or print_text): {}",
        found.join(", ")
    );
}

/// `path` from the crate root, as `src/...`.
fn relative(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Every `.rs` file under `src/`, in a stable order.
fn sources() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn longest(what: &str, sorted: &[(usize, String)]) -> String {
    let mut out = format!("the {SHOWN} longest {what}:\n");
    for (lines, name) in sorted.iter().take(SHOWN) {
        let _ = writeln!(out, "  {lines:>5}  {name}");
    }
    out
}

#[derive(Debug)]
struct Function {
    name: String,
    /// The line of the `fn` keyword, from 1.
    line: usize,
    /// From the `fn` line to the closing brace's, both included.
    lines: usize,
}

/// Every function with a body in `source`; declarations without one (a
/// trait's `fn f();`) and `fn(..)` pointer types are not functions.
fn functions_in(source: &str) -> Vec<Function> {
    let code = blank_literals(source);
    let line_of = |at: usize| code[..at].iter().filter(|&&c| c == '\n').count() + 1;
    let mut found = Vec::new();
    for at in 0..code.len() {
        if !keyword_at(&code, at, "fn") {
            continue;
        }
        let mut next = at + 2;
        while code.get(next).is_some_and(|c| c.is_whitespace()) {
            next += 1;
        }
        let name: String = code[next..].iter().take_while(|c| is_ident(**c)).collect();
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let Some(open) = body_start(&code, next + name.len()) else {
            continue;
        };
        let Some(close) = matching_brace(&code, open) else {
            continue;
        };
        let line = line_of(at);
        found.push(Function {
            name,
            line,
            lines: line_of(close) - line + 1,
        });
    }
    found
}

/// The `{` that opens the body of the function whose signature starts at
/// `from`, or `None` when a `;` ends it first. Brackets and parentheses are
/// skipped, so `[u8; 2]` in a signature does not end it.
fn body_start(code: &[char], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (at, &c) in code.iter().enumerate().skip(from) {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            '{' if depth == 0 => return Some(at),
            ';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

fn matching_brace(code: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (at, &c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `word` at `at`, not part of a longer identifier.
fn keyword_at(code: &[char], at: usize, word: &str) -> bool {
    let len = word.chars().count();
    code.len() >= at + len
        && code[at..at + len].iter().copied().eq(word.chars())
        && (at == 0 || !is_ident(code[at - 1]))
        && code.get(at + len).is_none_or(|c| !is_ident(*c))
}

/// `source` with every comment, string and char literal replaced by spaces
/// (newlines kept, so lines still count), leaving only code.
fn blank_literals(source: &str) -> Vec<char> {
    let mut code: Vec<char> = source.chars().collect();
    let mut at = 0;
    while at < code.len() {
        let end = match code[at] {
            '/' if code.get(at + 1) == Some(&'/') => line_comment_end(&code, at),
            '/' if code.get(at + 1) == Some(&'*') => block_comment_end(&code, at),
            '"' => string_end(&code, at),
            'r' if starts_token(&code, at) => raw_string_end(&code, at).unwrap_or(at + 1),
            '\'' => char_end(&code, at).unwrap_or(at + 1),
            _ => at + 1,
        };
        let end = end.min(code.len());
        if end > at + 1 {
            for c in &mut code[at..end] {
                if *c != '\n' {
                    *c = ' ';
                }
            }
        }
        at = end;
    }
    code
}

/// `r` at `at` begins a token: nothing of an identifier before it but a
/// `b` or `c` prefix (`br"..."`, `cr"..."`).
fn starts_token(code: &[char], at: usize) -> bool {
    match at.checked_sub(1).map(|before| code[before]) {
        None => true,
        Some('b' | 'c') => at < 2 || !is_ident(code[at - 2]),
        Some(before) => !is_ident(before),
    }
}

fn line_comment_end(code: &[char], at: usize) -> usize {
    code[at..]
        .iter()
        .position(|&c| c == '\n')
        .map_or(code.len(), |offset| at + offset)
}

/// Block comments nest in Rust.
fn block_comment_end(code: &[char], at: usize) -> usize {
    let mut depth = 0usize;
    let mut i = at;
    while i + 1 < code.len() {
        if code[i] == '/' && code[i + 1] == '*' {
            depth += 1;
            i += 2;
        } else if code[i] == '*' && code[i + 1] == '/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    code.len()
}

/// Past the closing quote of the string opening at `at`.
fn string_end(code: &[char], at: usize) -> usize {
    let mut i = at + 1;
    while i < code.len() {
        match code[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    code.len()
}

/// Past the end of `r"..."` or `r#"..."#` at `at`; `None` when `r` starts
/// an identifier instead (`r#type` too).
fn raw_string_end(code: &[char], at: usize) -> Option<usize> {
    let hashes = code[at + 1..].iter().take_while(|&&c| c == '#').count();
    let quote = at + 1 + hashes;
    if code.get(quote) != Some(&'"') {
        return None;
    }
    let mut i = quote + 1;
    while i < code.len() {
        if code[i] == '"' && code[i + 1..].iter().take_while(|&&c| c == '#').count() >= hashes {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(code.len())
}

/// Past the closing quote of the char literal at `at`; `None` for a
/// lifetime or label (`'a`, `'outer:`), which has no closing quote.
fn char_end(code: &[char], at: usize) -> Option<usize> {
    if code.get(at + 1) == Some(&'\\') {
        // `'\''`, `'\n'`, `'\u{7f}'`: the escaped char is never the end.
        let close = code.get(at + 3..)?.iter().position(|&c| c == '\'')?;
        return Some(at + 3 + close + 1);
    }
    (code.get(at + 2) == Some(&'\'')).then_some(at + 3)
}

//! What a `launch` starts: the program (given, or named by a
//! configuration of the work dir's `.vscode/launch.json`), its arguments,
//! the adapter for its kind, and the command line it is judged as: the
//! approval chain sees the launch as the `exec` of that line.
//!
//! `launch.json` is read, never written, and only its `type`, `program`,
//! `args` and `cwd` are taken: the rest (an adapter's `initCommands`, a
//! `preLaunchTask`) would run commands no approval saw.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::tools::debug::{AdapterName, DebugArgs};

/// The debug adapters this client knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdapterKind {
    /// Python, `python3 -m debugpy.adapter`.
    Debugpy,
    /// C, C++, Rust: `lldb-dap` (Debian's `lldb-dap-19`).
    LldbDap,
}

impl AdapterKind {
    pub fn name(self) -> &'static str {
        match self {
            AdapterKind::Debugpy => "debugpy",
            AdapterKind::LldbDap => "lldb-dap",
        }
    }
}

impl From<AdapterName> for AdapterKind {
    fn from(name: AdapterName) -> Self {
        match name {
            AdapterName::Debugpy => AdapterKind::Debugpy,
            AdapterName::LldbDap => AdapterKind::LldbDap,
        }
    }
}

/// A launch, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub adapter: AdapterKind,
    /// Absolute.
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Absolute.
    pub cwd: PathBuf,
    /// What the approval chain judges, as `exec` would judge it.
    pub command_line: String,
}

/// Where the program and its arguments come from.
struct Target {
    program: String,
    args: Vec<String>,
    adapter: Option<AdapterKind>,
    cwd: Option<String>,
}

/// Resolves a `launch` call in `work_dir`; the error is the model's answer.
pub fn plan(work_dir: &Path, args: &DebugArgs) -> Result<Plan, String> {
    let target = match (&args.configuration, &args.program) {
        (Some(_), Some(_)) => {
            return Err("launch takes program or configuration, not both".to_owned());
        }
        (Some(name), None) => from_launch_json(work_dir, name)?,
        (None, Some(program)) => Target {
            program: program.clone(),
            args: args.args.clone().unwrap_or_default(),
            adapter: None,
            cwd: None,
        },
        (None, None) => return Err("launch needs program (or configuration)".to_owned()),
    };
    let program = work_dir.join(&target.program);
    let program = program
        .canonicalize()
        .map_err(|err| format!("cannot debug {}: {err}", target.program))?;
    if !program.is_file() {
        return Err(format!("cannot debug {}: not a file", target.program));
    }
    let cwd = match &target.cwd {
        Some(cwd) => work_dir
            .join(cwd)
            .canonicalize()
            .map_err(|err| format!("the launch cwd {cwd}: {err}"))?,
        None => work_dir.to_path_buf(),
    };
    let adapter = match args.adapter.map(AdapterKind::from).or(target.adapter) {
        Some(adapter) => adapter,
        None => kind_of(&program).ok_or_else(|| {
            format!(
                "cannot tell how to debug {}: neither a .py file nor an executable (ELF); name the adapter",
                target.program
            )
        })?,
    };
    let shown = shown_program(work_dir, &program);
    let mut words = match adapter {
        AdapterKind::Debugpy => vec!["python3".to_owned(), shown],
        AdapterKind::LldbDap => vec![shown],
    };
    words.extend(target.args.iter().cloned());
    let command_line = shlex::try_join(words.iter().map(String::as_str))
        .map_err(|err| format!("cannot quote the command line: {err}"))?;
    Ok(Plan {
        adapter,
        program,
        args: target.args,
        cwd,
        command_line,
    })
}

/// The program as a command line names it: `./name` in the work dir.
fn shown_program(work_dir: &Path, program: &Path) -> String {
    match program.strip_prefix(work_dir) {
        Ok(relative) if !relative.as_os_str().is_empty() => {
            format!("./{}", relative.display())
        }
        _ => program.display().to_string(),
    }
}

/// The adapter for a program's kind: Python by its name or its `#!`
/// line, an ELF executable for lldb-dap.
pub fn kind_of(program: &Path) -> Option<AdapterKind> {
    if program.extension().is_some_and(|ext| ext == "py") {
        return Some(AdapterKind::Debugpy);
    }
    let mut head = [0u8; 128];
    let read = std::fs::File::open(program)
        .and_then(|mut file| std::io::Read::read(&mut file, &mut head))
        .ok()?;
    let head = &head[..read];
    if head.starts_with(b"\x7fELF") {
        return Some(AdapterKind::LldbDap);
    }
    let first_line = head.split(|byte| *byte == b'\n').next().unwrap_or_default();
    (first_line.starts_with(b"#!") && String::from_utf8_lossy(first_line).contains("python"))
        .then_some(AdapterKind::Debugpy)
}

fn from_launch_json(work_dir: &Path, name: &str) -> Result<Target, String> {
    let path = work_dir.join(".vscode/launch.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|err| format!("cannot read .vscode/launch.json: {err}"))?;
    let document: Value = serde_json::from_str(&strip_jsonc(&text))
        .map_err(|err| format!(".vscode/launch.json is not JSON (with comments): {err}"))?;
    let configurations = document["configurations"]
        .as_array()
        .ok_or(".vscode/launch.json has no configurations")?;
    let Some(entry) = configurations.iter().find(|entry| entry["name"] == name) else {
        let names: Vec<&str> = configurations
            .iter()
            .filter_map(|entry| entry["name"].as_str())
            .collect();
        return Err(format!(
            "no configuration {name:?} in .vscode/launch.json; it has: {}",
            names.join(", ")
        ));
    };
    if entry["request"]
        .as_str()
        .is_some_and(|request| request != "launch")
    {
        return Err(format!(
            "the configuration {name:?} does not launch a program (only launch is supported)"
        ));
    }
    let expand = |text: &str| {
        let folder = work_dir.display().to_string();
        text.replace("${workspaceFolder}", &folder)
            .replace("${workspaceRoot}", &folder)
    };
    let program = entry["program"]
        .as_str()
        .ok_or_else(|| format!("the configuration {name:?} names no program"))?;
    let args = match &entry["args"] {
        Value::Array(args) => args
            .iter()
            .map(|arg| arg.as_str().map(expand))
            .collect::<Option<Vec<String>>>()
            .ok_or_else(|| format!("the configuration {name:?} has args that are not strings"))?,
        Value::Null => Vec::new(),
        _ => {
            return Err(format!(
                "the configuration {name:?} has args that are not a list"
            ));
        }
    };
    let adapter = match entry["type"].as_str().unwrap_or("") {
        "python" | "debugpy" => Some(AdapterKind::Debugpy),
        "lldb" | "lldb-dap" | "lldb-vscode" | "cppdbg" | "codelldb" => Some(AdapterKind::LldbDap),
        _ => None,
    };
    Ok(Target {
        program: expand(program),
        args,
        adapter,
        cwd: entry["cwd"].as_str().map(expand),
    })
}

/// JSON with comments (`//`, `/* */`) and trailing commas, as VS Code
/// writes it, made plain JSON. Strings are kept as they are.
pub fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for skipped in chars.by_ref() {
                    if skipped == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for skipped in chars.by_ref() {
                    if last == '*' && skipped == '/' {
                        break;
                    }
                    last = skipped;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    drop_trailing_commas(&out)
}

/// `,` before `]` or `}` (whitespace between) is dropped, outside strings.
fn drop_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(next) = chars.get(index + 1) {
                    out.push(*next);
                }
                index += 1;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if c == ',' {
            let next = chars[index + 1..].iter().find(|c| !c.is_whitespace());
            if !matches!(next, Some(']' | '}')) {
                out.push(c);
            }
        } else {
            out.push(c);
        }
        index += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn launch(value: Value) -> DebugArgs {
        let mut value = value;
        value["action"] = json!("launch");
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn comments_and_trailing_commas_go_strings_stay() {
        let text = r#"{
  // a comment with "quotes"
  "a": "http://x/*not*/", /* block
  over lines */ "b": [1, 2,],
  "c": "say \"hi\", // still text",
}"#;
        let value: Value = serde_json::from_str(&strip_jsonc(text)).unwrap();
        assert_eq!(
            value,
            json!({"a": "http://x/*not*/", "b": [1, 2], "c": "say \"hi\", // still text"})
        );
    }

    #[test]
    fn the_program_kind_picks_the_adapter_and_the_command_line() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().canonicalize().unwrap();
        std::fs::write(work.join("bug.py"), "print(1)\n").unwrap();
        std::fs::write(work.join("tool"), "#!/usr/bin/env python3\nprint(1)\n").unwrap();
        std::fs::write(work.join("notes.txt"), "hello\n").unwrap();
        let plan = plan(
            &work,
            &launch(json!({"program": "bug.py", "args": ["a b", "c"]})),
        )
        .unwrap();
        assert_eq!(plan.adapter, AdapterKind::Debugpy);
        assert_eq!(plan.command_line, "python3 ./bug.py 'a b' c");
        assert_eq!(plan.program, work.join("bug.py"));
        assert_eq!(kind_of(&work.join("tool")), Some(AdapterKind::Debugpy));
        let elf = std::env::current_exe().unwrap();
        assert_eq!(kind_of(&elf), Some(AdapterKind::LldbDap));
        let refused = super::plan(&work, &launch(json!({"program": "notes.txt"})));
        assert!(refused.unwrap_err().contains("name the adapter"));
        let named = super::plan(
            &work,
            &launch(json!({"program": "notes.txt", "adapter": "lldb-dap"})),
        );
        assert_eq!(named.unwrap().command_line, "./notes.txt");
        assert!(super::plan(&work, &launch(json!({"program": "gone.py"}))).is_err());
    }

    #[test]
    fn a_launch_json_configuration_names_the_program() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().canonicalize().unwrap();
        std::fs::create_dir(work.join(".vscode")).unwrap();
        std::fs::write(work.join("main.py"), "print(1)\n").unwrap();
        std::fs::write(
            work.join(".vscode/launch.json"),
            r#"{
  // VS Code writes comments
  "version": "0.2.0",
  "configurations": [
    {"name": "Run it", "type": "debugpy", "request": "launch",
     "program": "${workspaceFolder}/main.py", "args": ["--fast"],
     "preLaunchTask": "never run"},
    {"name": "Attach", "type": "debugpy", "request": "attach"},
  ]
}"#,
        )
        .unwrap();
        let found = plan(&work, &launch(json!({"configuration": "Run it"}))).unwrap();
        assert_eq!(found.adapter, AdapterKind::Debugpy);
        assert_eq!(found.command_line, "python3 ./main.py --fast");
        let missing = plan(&work, &launch(json!({"configuration": "Nope"}))).unwrap_err();
        assert!(missing.contains("Run it, Attach"), "{missing}");
        let attach = plan(&work, &launch(json!({"configuration": "Attach"}))).unwrap_err();
        assert!(attach.contains("only launch"), "{attach}");
    }
}

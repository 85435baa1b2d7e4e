//! The file tools: `read_file`, `write_file`, `edit_file`, `list_dir`.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};

use super::paths::{self, PathError};
use super::truncate::floor_boundary;
use super::{ToolContext, ToolOutput};
use crate::protocol::events::{Event, FileOp};

pub const READ_DESCRIPTION: &str =
    "Read a text file. Returns numbered lines. Use offset (1-based line) and limit for long files.";
pub const WRITE_DESCRIPTION: &str =
    "Create or overwrite a file with the given content. Creates parent folders.";
pub const EDIT_DESCRIPTION: &str = "Replace old_string by new_string in a file. old_string must match exactly once unless replace_all is true.";
pub const LIST_DESCRIPTION: &str = "List a folder of the work dir (default: its root), with sizes.";

/// Lines returned when the model gives no limit.
pub const DEFAULT_READ_LINES: usize = 2_000;
pub const MAX_READ_LINES: usize = 10_000;
/// A longer line is cut with a marker: minified files would drown the model.
pub const MAX_LINE_CHARS: usize = 2_000;
/// Files larger than this are not read whole.
pub const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;
/// Entries shown by `list_dir`.
pub const MAX_LIST_ENTRIES: usize = 1_000;
/// `file-complete.diff` is capped here with a marker.
pub const MAX_DIFF_BYTES: usize = 32 * 1024;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    pub path: String,
    #[serde(default)]
    pub offset: Option<usize>,
    #[serde(default)]
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    pub path: String,
    pub content: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    pub path: String,
    pub old_string: String,
    pub new_string: String,
    #[serde(default)]
    pub replace_all: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    #[serde(default)]
    pub path: Option<String>,
}

pub fn read_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path relative to the work dir"},
            "offset": {"type": "integer", "minimum": 1, "description": "First line to read (1-based)"},
            "limit": {"type": "integer", "minimum": 1, "description": "Number of lines to read"}
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

pub fn write_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path relative to the work dir"},
            "content": {"type": "string", "description": "The whole new content of the file"}
        },
        "required": ["path", "content"],
        "additionalProperties": false
    })
}

pub fn edit_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_string": {"type": "string", "description": "Exact text to replace"},
            "new_string": {"type": "string", "description": "Replacement text"},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence"}
        },
        "required": ["path", "old_string", "new_string"],
        "additionalProperties": false
    })
}

pub fn list_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Folder relative to the work dir"}
        },
        "additionalProperties": false
    })
}

pub(super) fn resolve(ctx: &ToolContext, path: &str) -> Result<PathBuf, ToolOutput> {
    paths::resolve(&ctx.work_dir, path).map_err(|err| match err {
        PathError::Outside(_) => ToolOutput::fail(format!(
            "refused: {err}. Only files inside the work dir can be used."
        )),
        PathError::DanglingLink(_) | PathError::Empty => ToolOutput::fail(err.to_string()),
    })
}

pub async fn read(args: ReadArgs, ctx: &ToolContext) -> ToolOutput {
    let path = match resolve(ctx, &args.path) {
        Ok(path) => path,
        Err(fail) => return fail,
    };
    let shown = args.path.clone();
    let metadata = match tokio::fs::metadata(&path).await {
        Ok(metadata) => metadata,
        Err(err) => return ToolOutput::fail(format!("cannot read {shown}: {err}")),
    };
    if metadata.is_dir() {
        return ToolOutput::fail(format!("{shown} is a folder; use list_dir"));
    }
    if metadata.len() > MAX_READ_BYTES {
        return ToolOutput::fail(format!(
            "{shown} is {} bytes, more than the {MAX_READ_BYTES} bytes read_file reads; use exec with head, tail or sed",
            metadata.len()
        ));
    }
    let bytes = match tokio::fs::read(&path).await {
        Ok(bytes) => bytes,
        Err(err) => return ToolOutput::fail(format!("cannot read {shown}: {err}")),
    };
    if bytes.is_empty() {
        return ToolOutput::ok(format!("{shown} is empty"));
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return ToolOutput::ok(format!(
            "{shown} is a binary file of {} bytes; its content is not shown",
            bytes.len()
        ));
    }
    let text = String::from_utf8_lossy(&bytes);
    let offset = args.offset.unwrap_or(1).max(1);
    let limit = args
        .limit
        .unwrap_or(DEFAULT_READ_LINES)
        .clamp(1, MAX_READ_LINES);
    let total = text.lines().count();
    if offset > total {
        return ToolOutput::fail(format!(
            "{shown} has {total} lines; offset {offset} is past the end"
        ));
    }
    let mut out = String::new();
    let mut last = offset;
    for (number, line) in text.lines().enumerate().skip(offset - 1).take(limit) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        last = number + 1;
        if line.chars().count() > MAX_LINE_CHARS {
            let cut: String = line.chars().take(MAX_LINE_CHARS).collect();
            out.push_str(&format!(
                "{:>6}\t{cut} [... line cut at {MAX_LINE_CHARS} characters]\n",
                number + 1
            ));
        } else {
            out.push_str(&format!("{:>6}\t{line}\n", number + 1));
        }
    }
    if offset > 1 || last < total {
        out.push_str(&format!("(lines {offset}-{last} of {total})\n"));
    }
    ToolOutput::ok(out)
}

pub async fn write(args: WriteArgs, call_id: &str, ctx: &ToolContext) -> ToolOutput {
    let path = match resolve(ctx, &args.path) {
        Ok(path) => path,
        Err(fail) => return fail,
    };
    let old = match tokio::fs::read(&path).await {
        Ok(bytes) => Some(bytes),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return ToolOutput::fail(format!("cannot write {}: {err}", args.path)),
    };
    if path.is_dir() {
        return ToolOutput::fail(format!("{} is a folder", args.path));
    }
    if let Err(err) = write_atomically(&path, args.content.as_bytes()) {
        return ToolOutput::fail(format!("cannot write {}: {err}", args.path));
    }
    let op = if old.is_some() {
        FileOp::Update
    } else {
        FileOp::Create
    };
    let old_text = old.map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    report_change(
        ctx,
        call_id,
        &path,
        op,
        old_text.as_deref().unwrap_or(""),
        &args.content,
    );
    let verb = match op {
        FileOp::Create => "created",
        FileOp::Update | FileOp::Delete => "updated",
    };
    ToolOutput::ok(format!(
        "{verb} {} ({} bytes)",
        args.path,
        args.content.len()
    ))
}

pub async fn edit(args: EditArgs, call_id: &str, ctx: &ToolContext) -> ToolOutput {
    let path = match resolve(ctx, &args.path) {
        Ok(path) => path,
        Err(fail) => return fail,
    };
    if args.old_string.is_empty() {
        return ToolOutput::fail("old_string is empty; to create a file use write_file");
    }
    let bytes = match tokio::fs::read(&path).await {
        Ok(bytes) => bytes,
        Err(err) => return ToolOutput::fail(format!("cannot edit {}: {err}", args.path)),
    };
    let Ok(old) = String::from_utf8(bytes) else {
        return ToolOutput::fail(format!(
            "{} is not UTF-8 text; edit_file cannot change it",
            args.path
        ));
    };
    let count = old.matches(args.old_string.as_str()).count();
    let new = match (count, args.replace_all) {
        (0, _) => {
            return ToolOutput::fail(format!(
                "old_string was not found in {}. Read the file again and copy the text exactly, whitespace included.",
                args.path
            ));
        }
        (1, _) | (_, true) => old.replace(args.old_string.as_str(), &args.new_string),
        (many, false) => {
            return ToolOutput::fail(format!(
                "old_string occurs {many} times in {}; include more surrounding text to pick one, or set replace_all",
                args.path
            ));
        }
    };
    if let Err(err) = write_atomically(&path, new.as_bytes()) {
        return ToolOutput::fail(format!("cannot write {}: {err}", args.path));
    }
    report_change(ctx, call_id, &path, FileOp::Update, &old, &new);
    ToolOutput::ok(format!(
        "edited {}: {count} occurrence(s) replaced",
        args.path
    ))
}

pub async fn list(args: ListArgs, ctx: &ToolContext) -> ToolOutput {
    let requested = args.path.unwrap_or_else(|| ".".to_owned());
    let path = match resolve(ctx, &requested) {
        Ok(path) => path,
        Err(fail) => return fail,
    };
    let mut reader = match tokio::fs::read_dir(&path).await {
        Ok(reader) => reader,
        Err(err) => return ToolOutput::fail(format!("cannot list {requested}: {err}")),
    };
    let mut entries = Vec::new();
    loop {
        match reader.next_entry().await {
            Ok(Some(entry)) => {
                let name = entry.file_name().to_string_lossy().into_owned();
                let line = match entry.metadata().await {
                    Ok(meta) if meta.is_dir() => format!("{name}/"),
                    Ok(meta) => format!("{name}  ({} bytes)", meta.len()),
                    Err(_) => name,
                };
                entries.push(line);
            }
            Ok(None) => break,
            Err(err) => return ToolOutput::fail(format!("cannot list {requested}: {err}")),
        }
    }
    entries.sort();
    let total = entries.len();
    let mut out = format!(
        "{} ({total} entries)\n",
        paths::display(&ctx.work_dir, &path)
    );
    for entry in entries.iter().take(MAX_LIST_ENTRIES) {
        out.push_str(entry);
        out.push('\n');
    }
    if total > MAX_LIST_ENTRIES {
        out.push_str(&format!(
            "[... {} more entries not shown]\n",
            total - MAX_LIST_ENTRIES
        ));
    }
    ToolOutput::ok(out)
}

/// Writes through a temp file in the same folder and a rename, so a reader
/// never sees half a file; keeps the mode of a file that existed.
pub fn write_atomically(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let parent = path
        .parent()
        .ok_or_else(|| std::io::Error::other("path has no parent folder"))?;
    std::fs::create_dir_all(parent)?;
    let mode = std::fs::metadata(path)
        .ok()
        .map(|meta| meta.permissions().mode());
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = parent.join(format!(".{name}.agent-{}.tmp", fastrand::u64(..)));
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(content)?;
        file.sync_all()?;
        if let Some(mode) = mode {
            std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(mode))?;
        }
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

fn report_change(ctx: &ToolContext, call_id: &str, path: &Path, op: FileOp, old: &str, new: &str) {
    let shown = paths::display(&ctx.work_dir, path);
    ctx.events.emit(Event::FileComplete {
        id: call_id.to_owned(),
        path: shown.clone(),
        op,
        bytes: new.len() as u64,
        diff: unified_diff(&shown, old, new),
    });
}

/// A unified diff, capped at [`MAX_DIFF_BYTES`] with a marker.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    if diff.len() <= MAX_DIFF_BYTES {
        return diff;
    }
    let end = floor_boundary(&diff, MAX_DIFF_BYTES);
    format!(
        "{}\n[... diff cut: {} of {} bytes shown]\n",
        &diff[..end],
        end,
        diff.len()
    )
}

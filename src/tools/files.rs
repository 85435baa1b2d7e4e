//! The file tools: `read_file`, `write_file`, `edit_file`, `list_dir`.

use super::registry::{Offered, ToolDef};
use crate::protocol::events::ActivityKind;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};

use super::paths::{self, PathError};
use super::truncate::floor_boundary;
use super::{Report, ToolContext, ToolOutput, edit};
use crate::model::Image;
use crate::model::image;
use crate::protocol::events::FileOp;

pub const READ_DESCRIPTION: &str =
    "Read a text file. Returns numbered lines. Use offset (1-based line) and limit for long files.";
pub const WRITE_DESCRIPTION: &str =
    "Create or overwrite a file with the given content. Creates parent folders.";
pub const EDIT_DESCRIPTION: &str = "Replace old_string by new_string in a file. old_string must match exactly once unless replace_all is true.";
pub const LIST_DESCRIPTION: &str = "Show a folder of the work dir (default: its root) as a tree with file sizes, ignoring what .gitignore ignores.";

/// Lines returned when the model gives no limit.
pub const DEFAULT_READ_LINES: usize = 2_000;
pub const MAX_READ_LINES: usize = 10_000;
/// A longer line is cut with a marker: minified files would drown the model.
pub const MAX_LINE_CHARS: usize = 2_000;
/// Files larger than this are not read whole.
pub const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;
/// Entries shown by `list_dir`.
pub const MAX_LIST_ENTRIES: usize = 500;
pub const DEFAULT_LIST_DEPTH: usize = 2;
pub const MAX_LIST_DEPTH: usize = 5;
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

impl ToolDef for ReadArgs {
    const NAME: &'static str = "read_file";
    const DESCRIPTION: &'static str = READ_DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::ReadingFile;
    fn schema() -> Value {
        read_schema()
    }
    fn action(&self) -> Option<String> {
        Some(format!("read {}", self.path))
    }
    fn target(&self) -> Option<&str> {
        Some(&self.path)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    pub path: String,
    pub content: String,
}

impl ToolDef for WriteArgs {
    const NAME: &'static str = "write_file";
    const DESCRIPTION: &'static str = WRITE_DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::WritingFile;
    const OFFERED: Offered = Offered::NotInPlan;
    fn schema() -> Value {
        write_schema()
    }
    fn action(&self) -> Option<String> {
        Some(format!("write {}", self.path))
    }
    fn target(&self) -> Option<&str> {
        Some(&self.path)
    }
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

impl ToolDef for EditArgs {
    const NAME: &'static str = "edit_file";
    const DESCRIPTION: &'static str = EDIT_DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::EditingFile;
    const OFFERED: Offered = Offered::NotInPlan;
    fn schema() -> Value {
        edit_schema()
    }
    fn action(&self) -> Option<String> {
        Some(format!("edit {}", self.path))
    }
    fn target(&self) -> Option<&str> {
        Some(&self.path)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub depth: Option<usize>,
}

impl ToolDef for ListArgs {
    const NAME: &'static str = "list_dir";
    const DESCRIPTION: &'static str = LIST_DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::ReadingFile;
    fn schema() -> Value {
        list_schema()
    }
    fn target(&self) -> Option<&str> {
        self.path.as_deref()
    }
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
            "path": {"type": "string", "description": "Folder relative to the work dir"},
            "depth": {"type": "integer", "minimum": 1, "maximum": 5, "description": "Levels to show (default 2)"}
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

/// What `read_file` found at a path.
enum Loaded {
    Bytes(Vec<u8>),
    Folder,
    /// A pipe, socket or device: reading one could block forever.
    Special,
    TooLarge(u64),
}

fn load(path: &Path) -> std::io::Result<Loaded> {
    let metadata = std::fs::metadata(path)?;
    if metadata.is_dir() {
        return Ok(Loaded::Folder);
    }
    if !metadata.is_file() {
        return Ok(Loaded::Special);
    }
    if metadata.len() > MAX_READ_BYTES {
        return Ok(Loaded::TooLarge(metadata.len()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    Ok(Loaded::Bytes(bytes))
}

pub async fn read(args: ReadArgs, ctx: &ToolContext) -> ToolOutput {
    let path = match resolve(ctx, &args.path) {
        Ok(path) => path,
        Err(fail) => return fail,
    };
    let shown = args.path.clone();
    // One trip to the blocking pool for the stat and the read: each trip
    // is a thread hand-off, and read_file runs on most iterations.
    let loaded = tokio::task::spawn_blocking(move || load(&path)).await;
    let bytes = match loaded {
        Ok(Ok(Loaded::Bytes(bytes))) => bytes,
        Ok(Ok(Loaded::Folder)) => {
            return ToolOutput::fail(format!("{shown} is a folder; use list_dir"));
        }
        Ok(Ok(Loaded::Special)) => {
            return ToolOutput::fail(format!(
                "{shown} is not a regular file (a pipe, socket or device); it is not read"
            ));
        }
        Ok(Ok(Loaded::TooLarge(size))) => {
            return ToolOutput::fail(format!(
                "{shown} is {size} bytes, more than the {MAX_READ_BYTES} bytes read_file reads; use exec with head, tail or sed"
            ));
        }
        Ok(Err(err)) => return ToolOutput::fail(format!("cannot read {shown}: {err}")),
        Err(err) => return ToolOutput::fail(format!("cannot read {shown}: {err}")),
    };
    if bytes.is_empty() {
        return ToolOutput::ok(format!("{shown} is empty"));
    }
    if let Some(media_type) = image::sniff(&bytes) {
        return read_image(&shown, &bytes, media_type, ctx);
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return ToolOutput::ok(format!(
            "{shown} is a binary file of {} bytes; its content is not shown",
            bytes.len()
        ));
    }
    let text = String::from_utf8_lossy(&bytes);
    // A slice of the file (an offset into a key block) must show masked
    // too; the whole file is at hand only here.
    ctx.report.report(Report::MayHoldKeys(&text));
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

fn read_image(shown: &str, bytes: &[u8], media_type: &str, ctx: &ToolContext) -> ToolOutput {
    if !ctx.images_supported {
        return ToolOutput::ok(format!(
            "{shown} is an image ({media_type}, {} bytes); this model cannot take images, so it is not shown",
            bytes.len()
        ));
    }
    match Image::from_bytes(bytes) {
        Ok(picture) => ToolOutput {
            ok: true,
            output: format!(
                "{shown}: {media_type}, {} bytes, attached as an image",
                bytes.len()
            ),
            image: Some(picture),
            untrusted: None,
        },
        Err(err) => ToolOutput::fail(format!("{shown} is an image that cannot be shown: {err}")),
    }
}

pub async fn write(args: WriteArgs, ctx: &ToolContext) -> ToolOutput {
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
    if let Some(old_text) = &old_text {
        // The diff's context shows lines of the old content.
        ctx.report.report(Report::MayHoldKeys(old_text));
    }
    report_change(
        ctx,
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

pub async fn edit(args: EditArgs, ctx: &ToolContext) -> ToolOutput {
    let path = match resolve(ctx, &args.path) {
        Ok(path) => path,
        Err(fail) => return fail,
    };
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
    // The diff's context shows lines of the old content.
    ctx.report.report(Report::MayHoldKeys(&old));
    let edited = match edit::apply(&old, &args.old_string, &args.new_string, args.replace_all) {
        Ok(edited) => edited,
        Err(err) => return ToolOutput::fail(format!("{}: {err}", args.path)),
    };
    if let Err(err) = write_atomically(&path, edited.content.as_bytes()) {
        return ToolOutput::fail(format!("cannot write {}: {err}", args.path));
    }
    report_change(ctx, &path, FileOp::Update, &old, &edited.content);
    ToolOutput::ok(format!(
        "edited {}: {} occurrence(s) replaced",
        args.path, edited.replaced
    ))
}

pub async fn list(args: ListArgs, ctx: &ToolContext) -> ToolOutput {
    let requested = args.path.unwrap_or_else(|| ".".to_owned());
    let path = match resolve(ctx, &requested) {
        Ok(path) => path,
        Err(fail) => return fail,
    };
    if !path.is_dir() {
        return ToolOutput::fail(format!("{requested} is not a folder"));
    }
    let depth = args
        .depth
        .unwrap_or(DEFAULT_LIST_DEPTH)
        .clamp(1, MAX_LIST_DEPTH);
    let work_dir = ctx.work_dir.clone();
    let walked = tokio::task::spawn_blocking(move || tree(&work_dir, &path, depth)).await;
    match walked {
        Ok(text) => ToolOutput::ok(text),
        Err(err) => ToolOutput::fail(format!("cannot list {requested}: {err}")),
    }
}

/// An indented tree, folders first at each level, names sorted, ignore
/// rules (`.gitignore`, `.ignore`) honoured like git and ripgrep do, and
/// `.git` itself left out.
fn tree(work_dir: &Path, root: &Path, depth: usize) -> String {
    let walker = ignore::WalkBuilder::new(root)
        .max_depth(Some(depth))
        .hidden(false)
        .require_git(false)
        .git_global(crate::state::walk::git_global())
        .filter_entry(|entry| entry.file_name() != ".git")
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    let mut lines = Vec::new();
    let mut total = 0usize;
    let mut skipped_errors = 0usize;
    for entry in walker {
        let Ok(entry) = entry else {
            skipped_errors += 1;
            continue;
        };
        if entry.depth() == 0 {
            continue;
        }
        total += 1;
        if lines.len() >= MAX_LIST_ENTRIES {
            continue;
        }
        let indent = "  ".repeat(entry.depth() - 1);
        let name = entry.file_name().to_string_lossy();
        let line = match entry.metadata() {
            Ok(meta) if meta.is_dir() => format!("{indent}{name}/"),
            Ok(meta) => format!("{indent}{name}  ({})", human_size(meta.len())),
            Err(_) => format!("{indent}{name}"),
        };
        lines.push(line);
    }
    let mut out = format!("{}/\n", paths::display(work_dir, root));
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    if total > lines.len() {
        out.push_str(&format!(
            "[... {} more entries not shown; list a subfolder]\n",
            total - lines.len()
        ));
    }
    if skipped_errors > 0 {
        out.push_str(&format!("[{skipped_errors} entries could not be read]\n"));
    }
    if total == 0 {
        out.push_str("(empty)\n");
    }
    out
}

fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
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

fn report_change(ctx: &ToolContext, path: &Path, op: FileOp, old: &str, new: &str) {
    let shown = paths::display(&ctx.work_dir, path);
    ctx.report.report(Report::FileChanged {
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
    // At a line end: a cut inside a line could halve a secret, and
    // neither half would be masked.
    let end = floor_boundary(&diff, MAX_DIFF_BYTES);
    let end = diff[..end].rfind('\n').map_or(end, |at| at + 1);
    format!(
        "{}\n[... diff cut: {} of {} bytes shown]\n",
        &diff[..end],
        end,
        diff.len()
    )
}

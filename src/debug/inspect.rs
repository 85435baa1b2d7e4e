//! Looking at a stopped program: its stack, the variables of a frame
//! (opened to a bounded depth, a bounded count at each level), an
//! expression's value, and setting the breakpoints of a file. Each
//! returns compact text for the model; values are the program's, so they
//! go out framed as third-party content.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::client::DapError;
use super::launch::AdapterKind;
use super::session::{DapSession, REQUEST_TIMEOUT};
use super::{Answer, Trouble};

/// Frames listed by `stack`.
const MAX_FRAMES: i64 = 30;
/// Variables shown at each level of `variables`.
const MAX_VARIABLES: usize = 50;
/// Lines in a `variables` answer at most, all levels together.
const MAX_LINES: usize = 300;
/// A value longer than this is cut.
const MAX_VALUE: usize = 200;
/// `depth` above this is lowered to it.
pub const MAX_DEPTH: u32 = 3;

/// Scopes that are rarely what the question is about, and large: named
/// in the answer, not opened.
const SKIPPED_SCOPES: &[&str] = &["Globals", "Registers", "Global", "Static"];
/// debugpy's groupings of a value's dunder members and methods.
const SKIPPED_GROUPS: &[&str] = &["special variables", "function variables", "class variables"];

/// One stack frame, as `stackTrace` gives it.
pub struct Frame {
    pub id: i64,
    pub name: String,
    pub path: Option<String>,
    pub line: i64,
}

impl Frame {
    /// `average at prog.py:7`, the path relative to the work dir.
    pub fn place(&self, work_dir: &Path) -> String {
        match &self.path {
            Some(path) => {
                let shown = Path::new(path)
                    .strip_prefix(work_dir)
                    .map(|relative| relative.display().to_string())
                    .unwrap_or_else(|_| path.clone());
                format!("{shown}:{} in {}", self.line, self.name)
            }
            None => format!("{} (no source)", self.name),
        }
    }

    /// The text of the frame's line, trimmed and cut.
    pub fn source_line(&self) -> Option<String> {
        let path = self.path.as_ref()?;
        let index = usize::try_from(self.line).ok()?.checked_sub(1)?;
        let text = std::fs::read_to_string(path).ok()?;
        let line = text.lines().nth(index)?.trim();
        Some(clip(line, MAX_VALUE))
    }
}

/// `text` cut to `limit` bytes on a character boundary, with `…`.
pub fn clip(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let end = crate::tools::truncate::floor_boundary(text, limit);
    format!("{}…", &text[..end])
}

type Lines<'a> = Pin<Box<dyn Future<Output = Result<(), DapError>> + Send + 'a>>;

impl DapSession {
    /// `levels` frames of the stopped thread from `start`.
    pub async fn frames(
        &mut self,
        start: i64,
        levels: i64,
        cancel: &CancellationToken,
    ) -> Result<Vec<Frame>, DapError> {
        let thread = self.thread_id(cancel).await?;
        let arguments = json!({"threadId": thread, "startFrame": start, "levels": levels});
        let body = self
            .adapter
            .request("stackTrace", arguments, REQUEST_TIMEOUT, cancel)
            .await?;
        let frames = body["stackFrames"].as_array().cloned().unwrap_or_default();
        Ok(frames
            .iter()
            .map(|frame| Frame {
                id: frame["id"].as_i64().unwrap_or(0),
                name: frame["name"].as_str().unwrap_or("?").to_owned(),
                path: frame["source"]["path"].as_str().map(str::to_owned),
                line: frame["line"].as_i64().unwrap_or(0),
            })
            .collect())
    }

    /// The frame numbered `index` in `stack`.
    async fn frame(&mut self, index: u32, cancel: &CancellationToken) -> Result<Frame, Trouble> {
        self.must_be_stopped()?;
        let frames = self.frames(i64::from(index), 1, cancel).await?;
        frames
            .into_iter()
            .next()
            .ok_or_else(|| Trouble::Failed(format!("there is no frame {index}; see stack")))
    }

    pub(super) fn must_be_stopped(&mut self) -> Result<(), Trouble> {
        self.absorb_pending();
        match self.stopped.is_some() {
            true => Ok(()),
            false => Err(Trouble::Failed(
                "the program is running, not stopped: call wait first (or step, continue)"
                    .to_owned(),
            )),
        }
    }

    pub async fn stack(&mut self, cancel: &CancellationToken) -> Result<Answer, Trouble> {
        self.must_be_stopped()?;
        let frames = self.frames(0, MAX_FRAMES, cancel).await?;
        let mut text = String::new();
        for (index, frame) in frames.iter().enumerate() {
            text.push_str(&format!("#{index} {}\n", frame.place(&self.work_dir)));
        }
        if frames.len() as i64 == MAX_FRAMES {
            text.push_str(&format!("(only the top {MAX_FRAMES} frames)\n"));
        }
        let note = self.where_stopped(cancel).await;
        Ok(Answer::framed(text, note))
    }

    pub async fn variables(
        &mut self,
        frame: u32,
        depth: u32,
        cancel: &CancellationToken,
    ) -> Result<Answer, Trouble> {
        let frame = self.frame(frame, cancel).await?;
        let body = self
            .adapter
            .request(
                "scopes",
                json!({"frameId": frame.id}),
                REQUEST_TIMEOUT,
                cancel,
            )
            .await?;
        let scopes = body["scopes"].as_array().cloned().unwrap_or_default();
        let mut lines = Vec::new();
        let mut skipped = Vec::new();
        for scope in &scopes {
            let name = scope["name"].as_str().unwrap_or("?");
            let reference = scope["variablesReference"].as_i64().unwrap_or(0);
            let expensive = scope["expensive"].as_bool().unwrap_or(false);
            if expensive || SKIPPED_SCOPES.contains(&name) || reference == 0 {
                skipped.push(name.to_owned());
                continue;
            }
            lines.push(format!("{name}:"));
            let depth = depth.clamp(1, MAX_DEPTH);
            self.open(reference, 1, depth, &mut lines, cancel).await?;
        }
        if lines.len() >= MAX_LINES {
            lines.truncate(MAX_LINES);
            lines.push(format!("(cut at {MAX_LINES} lines)"));
        }
        let mut note = format!("frame {}", frame.place(&self.work_dir));
        if !skipped.is_empty() {
            note.push_str(&format!("; not shown: {}", skipped.join(", ")));
        }
        Ok(Answer::framed(lines.join("\n"), note))
    }

    /// The variables below `reference`, `level` deep, into `lines`.
    fn open<'a>(
        &'a mut self,
        reference: i64,
        level: u32,
        depth: u32,
        lines: &'a mut Vec<String>,
        cancel: &'a CancellationToken,
    ) -> Lines<'a> {
        Box::pin(async move {
            let arguments = json!({"variablesReference": reference, "count": MAX_VARIABLES + 1});
            let body = self
                .adapter
                .request("variables", arguments, REQUEST_TIMEOUT, cancel)
                .await?;
            let variables = body["variables"].as_array().cloned().unwrap_or_default();
            let indent = "  ".repeat(level as usize);
            let shown = variables.iter().filter(|variable| {
                !SKIPPED_GROUPS.contains(&variable["name"].as_str().unwrap_or(""))
            });
            for (count, variable) in shown.enumerate() {
                if lines.len() >= MAX_LINES {
                    return Ok(());
                }
                if count == MAX_VARIABLES {
                    lines.push(format!("{indent}(more not shown)"));
                    break;
                }
                lines.push(format!("{indent}{}", describe(variable)));
                let inner = variable["variablesReference"].as_i64().unwrap_or(0);
                if inner > 0 && level < depth {
                    self.open(inner, level + 1, depth, lines, cancel).await?;
                }
            }
            Ok(())
        })
    }

    pub async fn evaluate(
        &mut self,
        expression: &str,
        frame: u32,
        cancel: &CancellationToken,
    ) -> Result<Answer, Trouble> {
        let frame = self.frame(frame, cancel).await?;
        // debugpy's `repl` runs statements too; lldb-dap's would take
        // lldb commands (a shell among them), its `watch` only expressions.
        let context = match self.kind {
            AdapterKind::Debugpy => "repl",
            AdapterKind::LldbDap => "watch",
        };
        let arguments = json!({"expression": expression, "frameId": frame.id, "context": context});
        let body = self
            .adapter
            .request("evaluate", arguments, REQUEST_TIMEOUT, cancel)
            .await;
        let body = match body {
            Ok(body) => body,
            // The expression's own error is the answer, not a failure of
            // the debugger.
            Err(DapError::Refused { message, .. }) => {
                let note = format!(
                    "the expression failed in frame {}",
                    frame.place(&self.work_dir)
                );
                return Ok(Answer::framed(message, note));
            }
            Err(err) => return Err(err.into()),
        };
        let mut value = clip(body["result"].as_str().unwrap_or(""), 4 * MAX_VALUE);
        if let Some(kind) = body["type"].as_str().filter(|kind| !kind.is_empty()) {
            value = format!("{value} ({kind})");
        }
        let note = format!("in frame {}", frame.place(&self.work_dir));
        // Output the expression printed comes with its value.
        let output = self.take_output();
        Ok(Answer::framed(format!("{output}{value}"), note))
    }

    /// Replaces the breakpoints of `path` by those at `lines`.
    pub async fn breakpoints(
        &mut self,
        path: &Path,
        lines: &[u32],
        conditions: &[String],
        log_messages: &[String],
        cancel: &CancellationToken,
    ) -> Result<Answer, Trouble> {
        let breakpoints: Vec<Value> = lines
            .iter()
            .enumerate()
            .map(|(index, line)| {
                let mut breakpoint = json!({"line": line});
                if let Some(condition) =
                    conditions.get(index).filter(|text| !text.trim().is_empty())
                {
                    breakpoint["condition"] = json!(condition);
                }
                if let Some(message) = log_messages.get(index).filter(|text| !text.is_empty()) {
                    breakpoint["logMessage"] = json!(message);
                }
                breakpoint
            })
            .collect();
        let arguments = json!({
            "source": {"path": path},
            "breakpoints": breakpoints,
            "lines": lines,
        });
        let body = self
            .adapter
            .request("setBreakpoints", arguments, REQUEST_TIMEOUT, cancel)
            .await?;
        let shown = path
            .strip_prefix(&self.work_dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let set = body["breakpoints"].as_array().cloned().unwrap_or_default();
        if set.is_empty() {
            return Ok(Answer::own(format!("no breakpoints in {shown} now")));
        }
        let mut text = String::new();
        for (index, breakpoint) in set.iter().enumerate() {
            let line = breakpoint["line"]
                .as_i64()
                .or_else(|| lines.get(index).map(|line| i64::from(*line)))
                .unwrap_or(0);
            let state = match breakpoint["verified"].as_bool() {
                Some(true) => "set".to_owned(),
                _ => match breakpoint["message"].as_str() {
                    Some(message) => format!("pending ({})", clip(message, MAX_VALUE)),
                    None => "pending (not resolved yet)".to_owned(),
                },
            };
            text.push_str(&format!("{shown}:{line} {state}\n"));
        }
        Ok(Answer::own(text.trim_end().to_owned()))
    }
}

/// `name = value (type)` of a variable, the value cut.
fn describe(variable: &Value) -> String {
    let name = variable["name"].as_str().unwrap_or("?");
    let value = clip(variable["value"].as_str().unwrap_or(""), MAX_VALUE).replace('\n', "\\n");
    match variable["type"].as_str().filter(|kind| !kind.is_empty()) {
        Some(kind) => format!("{name} = {value} ({kind})"),
        None => format!("{name} = {value}"),
    }
}

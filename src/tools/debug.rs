//! `debug`: a debugger the model drives, one action per call, over the
//! Debug Adapter Protocol (`crate::debug`). Offered only with `[debugger]
//! enabled = true`; the session runs it, since the debug session it
//! drives belongs to the agent's session and outlives each call.

use serde::Deserialize;
use serde_json::{Value, json};

use super::registry::ToolDef;
use crate::protocol::events::ActivityKind;

pub const DESCRIPTION: &str = "Debug a program: launch it paused at its start (Python through debugpy; C, C++ and Rust executables built with -g through lldb-dap), set breakpoints, continue, step, wait for it to stop, read the stack and variables, evaluate expressions, terminate. One debug session at a time. \
Typical use: launch, breakpoints, continue (stops at a breakpoint), stack, variables, step, continue until it ends.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Launch,
    Breakpoints,
    Continue,
    Step,
    Wait,
    Stack,
    Variables,
    Evaluate,
    Terminate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    Over,
    In,
    Out,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum AdapterName {
    #[serde(rename = "debugpy")]
    Debugpy,
    #[serde(rename = "lldb-dap")]
    LldbDap,
}

/// One struct for every action: each takes the fields it names and
/// refuses a call without the ones it needs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DebugArgs {
    pub action: Action,
    #[serde(default)]
    pub program: Option<String>,
    #[serde(default)]
    pub args: Option<Vec<String>>,
    #[serde(default)]
    pub adapter: Option<AdapterName>,
    #[serde(default)]
    pub configuration: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub lines: Option<Vec<u32>>,
    #[serde(default)]
    pub conditions: Option<Vec<String>>,
    #[serde(default)]
    pub log_messages: Option<Vec<String>>,
    #[serde(default)]
    pub kind: Option<StepKind>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub frame: Option<u32>,
    #[serde(default)]
    pub depth: Option<u32>,
    #[serde(default)]
    pub expression: Option<String>,
}

impl DebugArgs {
    /// The breakpoint conditions that are set, and the log messages that
    /// interpolate an expression (`{expr}`): code that runs in the program.
    pub fn conditions_set(&self) -> Vec<&str> {
        let conditions = self
            .conditions
            .iter()
            .flatten()
            .map(|condition| condition.trim())
            .filter(|condition| !condition.is_empty());
        let logged = self
            .log_messages
            .iter()
            .flatten()
            .map(String::as_str)
            .filter(|message| message.contains('{'));
        conditions.chain(logged).collect()
    }

    /// Whether the call runs code the model wrote in the debugged
    /// program: an expression, or a breakpoint's condition.
    pub fn runs_code(&self) -> bool {
        match self.action {
            Action::Evaluate => true,
            Action::Breakpoints => !self.conditions_set().is_empty(),
            _ => false,
        }
    }

    /// Whether the call lets the debugged program run on.
    pub fn resumes(&self) -> bool {
        matches!(self.action, Action::Continue | Action::Step | Action::Wait)
    }
}

impl ToolDef for DebugArgs {
    const NAME: &'static str = "debug";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const ACTIVITY: ActivityKind = ActivityKind::RunningCommand;
    const IN_SESSION: bool = true;
    fn schema() -> Value {
        schema()
    }
    fn action(&self) -> Option<String> {
        Some(match self.action {
            Action::Evaluate => format!(
                "evaluate in the debugged program: {}",
                self.expression.as_deref().unwrap_or("")
            ),
            Action::Breakpoints if self.runs_code() => format!(
                "set breakpoints in {} running: {}",
                self.path.as_deref().unwrap_or(""),
                self.conditions_set().join("; ")
            ),
            Action::Launch => format!(
                "debug {}",
                self.program
                    .as_deref()
                    .or(self.configuration.as_deref())
                    .unwrap_or("")
            ),
            _ => return None,
        })
    }
}

pub fn schema() -> Value {
    let strings = |description: &str| json!({"type": "array", "items": {"type": "string"}, "description": description});
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["launch", "breakpoints", "continue", "step", "wait", "stack", "variables", "evaluate", "terminate"],
                "description": "launch: start `program` paused at its start. breakpoints: replace the breakpoints of `path` by `lines`. continue, step: run on, then wait for the next stop (up to timeout_ms). wait: until it stops or ends. stack: the stopped thread's frames. variables: the locals of `frame`. evaluate: `expression` in `frame`. terminate: end it."},
            "program": {"type": "string", "description": "launch: the program, relative to the work dir (a .py file, or an executable built with debug info)"},
            "args": strings("launch: the program's arguments"),
            "adapter": {"type": "string", "enum": ["debugpy", "lldb-dap"], "description": "launch: the debugger, when the program's kind does not tell"},
            "configuration": {"type": "string", "description": "launch: the name of a configuration in .vscode/launch.json, instead of program and args"},
            "path": {"type": "string", "description": "breakpoints: the source file"},
            "lines": {"type": "array", "items": {"type": "integer", "minimum": 1}, "description": "breakpoints: the lines; an empty list clears the file's breakpoints"},
            "conditions": strings("breakpoints: a condition per line, in the order of lines (\"\" for none); stops only when it is true"),
            "log_messages": strings("breakpoints: a message per line, in the order of lines (\"\" for none); logs it, {expr} interpolated, instead of stopping"),
            "kind": {"type": "string", "enum": ["over", "in", "out"], "description": "step: over (the next line), in (into the call), out (of the function); default over"},
            "timeout_ms": {"type": "integer", "minimum": 1, "description": "continue, step, wait: how long to wait for a stop or the end (default 10000 for continue and step, 30000 for wait; at most 600000)"},
            "frame": {"type": "integer", "minimum": 0, "description": "variables, evaluate: the frame's number in `stack` (default 0, the top)"},
            "depth": {"type": "integer", "minimum": 1, "maximum": 3, "description": "variables: how deep to open structured values (default 1)"},
            "expression": {"type": "string", "description": "evaluate: an expression in the program's language"}
        },
        "required": ["action"],
        "additionalProperties": false
    })
}

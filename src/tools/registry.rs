//! The one list of built-in tools, and the one place a model's call (a
//! name and a JSON object) becomes a typed [`Call`].
//!
//! A tool is an argument struct that implements [`ToolDef`] in its own
//! file, and one line in [`registry!`] below: the name, the schema offered
//! to the model, the activity shown, where it is offered, the parsing and
//! the dispatch all come from there, so no other match needs to learn it.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{
    debug, exec, files, interactive, repo_map, search, session_search, skill, tool_search, web,
};
use crate::model::ToolSpec;
use crate::protocol::events::{ActivityKind, Mode};

/// Where a tool is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    Always,
    /// It changes the work dir: never in plan mode.
    NotInPlan,
    /// It ends plan mode.
    OnlyInPlan,
}

/// A built-in tool, defined by its argument struct.
pub trait ToolDef: DeserializeOwned {
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    const ACTIVITY: ActivityKind;
    const OFFERED: Offered = Offered::Always;
    /// Run by the session itself: it waits for a person or changes the
    /// session's state, not the work dir.
    const IN_SESSION: bool = false;

    /// The JSON Schema of the arguments, as the model sees it. Written by
    /// hand, because its descriptions are prompt text; the registry's
    /// tests hold it to the struct (`schemas_match_their_structs`).
    fn schema() -> Value;

    /// What a person is asked to approve, in one line. `None`: the tool's
    /// name and its arguments.
    fn action(&self) -> Option<String> {
        None
    }

    /// The path in the work dir the call works on, if it names one.
    fn target(&self) -> Option<&str> {
        None
    }
}

/// A call of a tool that is known only at run time (an MCP server's):
/// its arguments stay JSON, checked by whoever offers it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeCall {
    pub name: String,
    pub arguments: Value,
    /// Its offerer says it changes nothing, so plan mode may run it.
    pub read_only: bool,
}

/// A tool known only at run time, as offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeTool {
    pub spec: ToolSpec,
    /// Its offerer says it changes nothing (an MCP tool's `readOnlyHint`):
    /// only such tools are offered in plan mode.
    pub read_only: bool,
}

/// Why a call cannot run; the text is the model's answer, so it can fix
/// the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadCall(pub String);

macro_rules! registry {
    ($($variant:ident($args:ty),)+) => {
        /// A built-in tool.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Tool {
            $($variant,)+
        }

        /// A call parsed once: every check and the dispatch match on this.
        #[derive(Debug)]
        pub enum Call {
            $($variant($args),)+
            Runtime(RuntimeCall),
        }

        impl Tool {
            pub const ALL: &'static [Tool] = &[$(Tool::$variant,)+];

            pub fn name(self) -> &'static str {
                match self {
                    $(Tool::$variant => <$args as ToolDef>::NAME,)+
                }
            }

            pub fn activity(self) -> ActivityKind {
                match self {
                    $(Tool::$variant => <$args as ToolDef>::ACTIVITY,)+
                }
            }

            pub fn offered(self) -> Offered {
                match self {
                    $(Tool::$variant => <$args as ToolDef>::OFFERED,)+
                }
            }

            pub fn runs_in_session(self) -> bool {
                match self {
                    $(Tool::$variant => <$args as ToolDef>::IN_SESSION,)+
                }
            }

            pub fn spec(self) -> ToolSpec {
                let (description, parameters) = match self {
                    $(Tool::$variant => (<$args as ToolDef>::DESCRIPTION, <$args as ToolDef>::schema()),)+
                };
                ToolSpec {
                    name: self.name().to_owned(),
                    description: description.to_owned(),
                    parameters,
                }
            }

            /// The typed call, or why the arguments do not fit.
            pub fn parse(self, arguments: &Value) -> Result<Call, BadCall> {
                let parsed = match self {
                    $(Tool::$variant => <$args>::deserialize(arguments).map(Call::$variant),)+
                };
                parsed.map_err(|err| {
                    BadCall(format!(
                        "bad arguments for {}: {err}. Expected: {}",
                        self.name(),
                        self.spec().parameters
                    ))
                })
            }
        }

        impl Call {
            /// The built-in tool, `None` for a runtime one.
            pub fn tool(&self) -> Option<Tool> {
                match self {
                    $(Call::$variant(_) => Some(Tool::$variant),)+
                    Call::Runtime(_) => None,
                }
            }

            /// The path in the work dir the call works on, if any.
            pub fn target(&self) -> Option<&str> {
                match self {
                    $(Call::$variant(args) => args.target(),)+
                    Call::Runtime(_) => None,
                }
            }

            /// What a person is asked to approve, in one line.
            pub fn action(&self, arguments: &Value) -> String {
                let own = match self {
                    $(Call::$variant(args) => args.action(),)+
                    Call::Runtime(_) => None,
                };
                own.unwrap_or_else(|| format!("{} {arguments}", self.name()))
            }
        }
    };
}

registry! {
    ReadFile(files::ReadArgs),
    WriteFile(files::WriteArgs),
    EditFile(files::EditArgs),
    ListDir(files::ListArgs),
    Glob(search::GlobArgs),
    Grep(search::GrepArgs),
    RepoMap(repo_map::RepoMapArgs),
    Exec(exec::ExecArgs),
    WebFetch(web::FetchArgs),
    TodoWrite(interactive::TodoWriteArgs),
    AskUser(interactive::AskUserArgs),
    WritePlan(interactive::WritePlanArgs),
    Skill(skill::SkillArgs),
    ToolSearch(tool_search::ToolSearchArgs),
    SessionSearch(session_search::SessionSearchArgs),
    Debug(debug::DebugArgs),
}

impl Tool {
    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.iter().copied().find(|tool| tool.name() == name)
    }

    /// Whether the mode offers the tool: plan mode has no tool that
    /// writes, and only plan mode has `write_plan`.
    pub fn offered_in(self, mode: Mode) -> bool {
        match self.offered() {
            Offered::Always => true,
            Offered::NotInPlan => mode != Mode::Plan,
            Offered::OnlyInPlan => mode == Mode::Plan,
        }
    }
}

impl Call {
    pub fn name(&self) -> &str {
        match (self.tool(), self) {
            (Some(tool), _) => tool.name(),
            (None, Call::Runtime(call)) => &call.name,
            (None, _) => "",
        }
    }
}

/// The names `--blocked-tools` and `[approval.tools]` accept.
pub fn names() -> impl Iterator<Item = &'static str> {
    Tool::ALL.iter().map(|tool| tool.name())
}

/// Parses the raw argument text the model streamed. An empty text is an
/// empty object: some models send nothing for a tool without arguments.
pub fn parse_arguments(raw: &str) -> Result<Value, String> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(format!("arguments must be a JSON object, got {other}")),
        Err(err) => Err(format!("arguments are not valid JSON ({err})")),
    }
}

/// The tools a session offers: the built-ins its mode allows, less the
/// blocked ones, and the runtime tools. Turns a model's call into a
/// [`Call`] or the answer that tells the model what went wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub builtin: Vec<Tool>,
    pub runtime: Vec<RuntimeTool>,
    blocked: Vec<String>,
    mode: Mode,
}

impl Offer {
    pub fn new(mode: Mode, blocked: &[String], runtime: Vec<RuntimeTool>) -> Self {
        let is_blocked = |name: &str| blocked.iter().any(|b| b == name);
        Offer {
            builtin: Tool::ALL
                .iter()
                .copied()
                .filter(|tool| tool.offered_in(mode))
                .filter(|tool| !is_blocked(tool.name()))
                .collect(),
            runtime: runtime
                .into_iter()
                .filter(|tool| !is_blocked(&tool.spec.name))
                .filter(|tool| tool.read_only || mode != Mode::Plan)
                .collect(),
            blocked: blocked.to_vec(),
            mode,
        }
    }

    /// The same offer less a built-in tool the session has no use for
    /// (`skill` where no skill was found): a call of it is then unknown.
    pub fn without(mut self, tool: Tool) -> Self {
        self.builtin.retain(|offered| *offered != tool);
        self
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        let builtin = self.builtin.iter().map(|tool| tool.spec());
        builtin
            .chain(self.runtime.iter().map(|tool| tool.spec.clone()))
            .collect()
    }

    pub fn names(&self) -> Vec<String> {
        let builtin = self.builtin.iter().map(|tool| tool.name().to_owned());
        builtin
            .chain(self.runtime.iter().map(|tool| tool.spec.name.clone()))
            .collect()
    }

    /// Whether this session offers a tool of that name.
    pub fn admit(&self, name: &str) -> Result<(), BadCall> {
        if self.blocked.iter().any(|blocked| blocked == name) {
            return Err(BadCall(format!(
                "refused: the tool {name} is blocked in this session"
            )));
        }
        let builtin = Tool::from_name(name).is_some_and(|tool| self.builtin.contains(&tool));
        if builtin || self.runtime.iter().any(|tool| tool.spec.name == name) {
            return Ok(());
        }
        Err(BadCall(format!(
            "unknown tool {name:?} in {} mode; the tools are: {}",
            self.mode,
            self.names().join(", ")
        )))
    }

    /// The typed call, if this session offers the tool and the arguments
    /// fit it.
    pub fn parse(&self, name: &str, arguments: &Value) -> Result<Call, BadCall> {
        self.admit(name)?;
        match Tool::from_name(name) {
            Some(tool) => tool.parse(arguments),
            None => Ok(Call::Runtime(RuntimeCall {
                name: name.to_owned(),
                arguments: arguments.clone(),
                read_only: self
                    .runtime
                    .iter()
                    .any(|tool| tool.spec.name == name && tool.read_only),
            })),
        }
    }
}

#[cfg(test)]
mod tests;

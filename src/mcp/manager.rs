//! The session's MCP servers, by name: started together, each in the
//! background from the moment the manager is made; their tools under the
//! names the model sees; a call routed to its server; what went wrong,
//! kept as notices for the session to report. A server is added, removed
//! or restarted by name ([`McpManager::add`], [`McpManager::remove`]),
//! so a later reload of the config can change one without touching the
//! others.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::Tool;
use serde_json::Value;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::client::{self, CallError, Connection, Process, StartError};
use super::config::ServerSpec;
use super::{content, names};
use crate::model::ToolSpec;
use crate::tools::untrusted::Origin;
use crate::tools::{MODEL_OUTPUT_LIMIT, RuntimeTool, ToolOutput, truncate};

/// A tool's description is cut here: servers write long ones, and every
/// request carries them all.
const MAX_DESCRIPTION: usize = 2048;

/// What went wrong with a server, for the session to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub kind: NoticeKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    /// It could not be started, or its handshake failed.
    StartFailed,
    /// It did not list its tools within its startup timeout.
    StartTimeout,
    /// It ended while the session ran.
    Crashed,
    /// A call outlived its tool timeout.
    CallTimeout,
}

type Starting = JoinHandle<Result<(Connection, Vec<Tool>), StartError>>;

enum State {
    Starting(Starting),
    Running {
        connection: Arc<Connection>,
        tools: Vec<Tool>,
    },
    /// It never started; the reason was reported.
    Failed,
}

struct Server {
    spec: Arc<ServerSpec>,
    /// Its process, to stop it whatever its state.
    process: Option<Process>,
    state: State,
    /// Its end was reported.
    reported: AtomicBool,
}

/// A tool offered to the model, and where its calls go.
struct Offered {
    tool: RuntimeTool,
    server: String,
    /// Its name on the server.
    original: String,
}

#[derive(Default)]
pub struct McpManager {
    servers: BTreeMap<String, Server>,
    /// By offered name.
    offered: BTreeMap<String, Offered>,
    /// What every server's environment starts from.
    env: Arc<super::ServerEnv>,
    /// Found while starting, not yet taken.
    notices: Vec<Notice>,
}

impl McpManager {
    /// Starts every server now, in parallel; [`McpManager::ready`] waits
    /// for their tool lists.
    pub fn start(specs: Vec<ServerSpec>, env: super::ServerEnv) -> Self {
        let mut manager = McpManager {
            env: Arc::new(env),
            ..McpManager::default()
        };
        for spec in specs {
            manager.add(spec);
        }
        manager
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// Starts one server (in the background), replacing a server of the
    /// same name.
    pub fn add(&mut self, spec: ServerSpec) {
        self.remove(&spec.name);
        let spec = Arc::new(spec);
        let (startup, tools) = (spec.startup_timeout, spec.tool_timeout);
        if let Some(endpoint) = spec.http.clone() {
            let task = tokio::spawn(client::connect_http(endpoint, startup, tools));
            let server = Server {
                spec: spec.clone(),
                process: None,
                state: State::Starting(task),
                reported: AtomicBool::new(false),
            };
            self.servers.insert(spec.name.clone(), server);
            return;
        }
        let (process, state) = match client::spawn(&spec, self.env.get()) {
            Ok(spawned) => {
                let process = spawned.process();
                let task = tokio::spawn(spawned.connect(startup, tools));
                (Some(process), State::Starting(task))
            }
            Err(err) => {
                self.notices.push(start_notice(&spec, &err));
                (None, State::Failed)
            }
        };
        let server = Server {
            spec: spec.clone(),
            process,
            state,
            reported: AtomicBool::new(false),
        };
        self.servers.insert(spec.name.clone(), server);
    }

    /// Makes the running set what `specs` define: a server no longer
    /// defined is stopped, a new one started, one defined differently
    /// started again with its new definition (also when it had failed or
    /// ended: a reload is how a broken server is mended), and one defined
    /// as before left alone, whatever its state. Returns the names started.
    pub fn apply(&mut self, specs: Vec<ServerSpec>) -> Vec<String> {
        let wanted: BTreeMap<String, ServerSpec> = specs
            .into_iter()
            .map(|spec| (spec.name.clone(), spec))
            .collect();
        let gone: Vec<String> = self
            .servers
            .keys()
            .filter(|name| !wanted.contains_key(*name))
            .cloned()
            .collect();
        for name in gone {
            self.remove(&name);
        }
        let mut started = Vec::new();
        for (name, spec) in wanted {
            let same = self
                .servers
                .get(&name)
                .is_some_and(|server| *server.spec == spec);
            if !same {
                self.add(spec);
                started.push(name);
            }
        }
        started
    }

    /// Stops a server and forgets it and its tools.
    pub fn remove(&mut self, name: &str) {
        if let Some(server) = self.servers.remove(name) {
            server.stop();
            self.name_tools();
        }
    }

    /// Waits until every server has listed its tools or failed (each is
    /// bounded by its own startup timeout), and names the tools. Safe to
    /// drop midway: a server still starting stays so.
    pub async fn ready(&mut self) {
        for server in self.servers.values_mut() {
            let State::Starting(task) = &mut server.state else {
                continue;
            };
            let started = task.await;
            server.state = match started {
                Ok(Ok((connection, tools))) => State::Running {
                    connection: Arc::new(connection),
                    tools,
                },
                Ok(Err(err)) => {
                    self.notices.push(start_notice(&server.spec, &err));
                    State::Failed
                }
                Err(err) => {
                    let message = format!("MCP server {} did not start: {err}", server.spec.name);
                    self.notices.push(Notice {
                        kind: NoticeKind::StartFailed,
                        message,
                    });
                    State::Failed
                }
            };
        }
        self.name_tools();
    }

    /// Names the tools of the running servers (see [`names::assign`]).
    fn name_tools(&mut self) {
        let mut listed: Vec<(&Server, &Tool)> = Vec::new();
        for server in self.servers.values() {
            if let State::Running { tools, .. } = &server.state {
                let offered = tools.iter().filter(|tool| server.spec.offers(&tool.name));
                listed.extend(offered.map(|tool| (server, tool)));
            }
        }
        let pairs: Vec<(String, String)> = listed
            .iter()
            .map(|(server, tool)| (server.spec.name.clone(), tool.name.to_string()))
            .collect();
        let names = names::assign(&pairs);
        self.offered = names
            .into_iter()
            .zip(listed)
            .map(|(name, (server, tool))| {
                let offered = Offered {
                    tool: runtime_tool(&name, &server.spec.name, tool),
                    server: server.spec.name.clone(),
                    original: tool.name.to_string(),
                };
                (name, offered)
            })
            .collect();
    }

    /// The tools offered, sorted by name.
    pub fn tools(&self) -> Vec<RuntimeTool> {
        self.offered
            .values()
            .map(|offered| offered.tool.clone())
            .collect()
    }

    /// What went wrong since the last look: failed starts, and servers
    /// found ended.
    pub fn take_notices(&mut self) -> Vec<Notice> {
        let mut notices = std::mem::take(&mut self.notices);
        for server in self.servers.values() {
            if let Some(notice) = server.crash_notice() {
                notices.push(notice);
            }
        }
        notices
    }

    /// Runs the offered tool `name`. A failure is the answer (`ok:
    /// false`), with a notice when the session should say more.
    pub async fn call(
        &self,
        name: &str,
        arguments: Value,
        cancel: &CancellationToken,
    ) -> (ToolOutput, Option<Notice>) {
        let found = self.offered.get(name).and_then(|offered| {
            let server = self.servers.get(&offered.server)?;
            match &server.state {
                State::Running { connection, .. } => Some((offered, server, connection.clone())),
                State::Starting(_) | State::Failed => None,
            }
        });
        let Some((offered, server, connection)) = found else {
            return (
                ToolOutput::fail(format!("no MCP tool {name} is running")),
                None,
            );
        };
        let origin = Origin::new("mcp", format!("{}/{}", offered.server, offered.original));
        let called = connection.call(&offered.original, arguments, cancel).await;
        let server_name = &offered.server;
        match called {
            Ok(result) => {
                let text = truncate::head_tail(&content::to_text(&result), MODEL_OUTPUT_LIMIT);
                let ok = result.is_error != Some(true);
                let output = ToolOutput {
                    ok,
                    ..ToolOutput::ok(text)
                };
                (output.from_third_party(origin), None)
            }
            Err(CallError::Failed(why)) => {
                let note = format!("\n[the MCP server {server_name} refused the call]");
                let output = ToolOutput::fail(format!("{why}{note}"));
                (output.from_third_party(origin.with_note(note.len())), None)
            }
            Err(CallError::Cancelled) => (ToolOutput::fail("[cancelled]"), None),
            Err(CallError::Timeout(after)) => {
                let message = format!(
                    "the MCP server {server_name} did not answer {} within {} s (tool_timeout_sec); the call was cancelled",
                    offered.original,
                    after.as_secs_f64()
                );
                let notice = Notice {
                    kind: NoticeKind::CallTimeout,
                    message: message.clone(),
                };
                (ToolOutput::fail(message), Some(notice))
            }
            Err(CallError::Crashed(how)) => {
                let crashed_now = server.crash_notice();
                let message = match &crashed_now {
                    Some(_) => format!(
                        "the MCP server {server_name} {how} during the call; its tools cannot run for the rest of this session"
                    ),
                    None => crashed_earlier(server_name, &how),
                };
                (ToolOutput::fail(message), crashed_now)
            }
        }
    }

    /// Stops every server. Does not wait.
    pub fn stop_all(&self) {
        for server in self.servers.values() {
            server.stop();
        }
    }
}

impl Server {
    fn stop(&self) {
        match &self.state {
            State::Starting(task) => task.abort(),
            State::Running { connection, .. } => connection.stop(),
            State::Failed => {}
        }
        if let Some(process) = &self.process {
            process.kill();
        }
    }

    /// The notice that the server ended, once: `None` while it runs and
    /// after its end was reported.
    fn crash_notice(&self) -> Option<Notice> {
        let State::Running { connection, .. } = &self.state else {
            return None;
        };
        let how = connection.ended()?;
        if self.reported.swap(true, Ordering::Relaxed) {
            return None;
        }
        Some(Notice {
            kind: NoticeKind::Crashed,
            message: format!(
                "MCP server {} {how}{}; its tools fail for the rest of the session",
                self.spec.name,
                connection.stderr_quote()
            ),
        })
    }
}

fn crashed_earlier(server: &str, how: &str) -> String {
    format!(
        "the MCP server {server} {how} earlier in this session; its tools cannot run until it is started again"
    )
}

fn start_notice(spec: &ServerSpec, err: &StartError) -> Notice {
    let kind = match err {
        StartError::Timeout { .. } => NoticeKind::StartTimeout,
        StartError::Spawn { .. } | StartError::Failed(_) => NoticeKind::StartFailed,
    };
    Notice {
        kind,
        message: format!(
            "MCP server {} ({}) did not start: {err}; the session goes on without its tools",
            spec.name, spec.defined_in
        ),
    }
}

/// How the model sees a server's tool: its offered name, its description
/// saying which server it comes from, its input schema as an object.
fn runtime_tool(name: &str, server: &str, tool: &Tool) -> RuntimeTool {
    let description = tool
        .description
        .as_deref()
        .or(tool.title.as_deref())
        .unwrap_or("");
    let description = truncate::head_tail(description, MAX_DESCRIPTION);
    let mut parameters = Value::Object((*tool.input_schema).clone());
    if let Value::Object(schema) = &mut parameters {
        // Not every provider takes a schema's own `$schema`.
        schema.remove("$schema");
        schema
            .entry("type")
            .or_insert_with(|| Value::String("object".to_owned()));
    }
    let read_only = tool
        .annotations
        .as_ref()
        .and_then(|annotations| annotations.read_only_hint)
        == Some(true);
    RuntimeTool {
        spec: ToolSpec {
            name: name.to_owned(),
            description: format!("(MCP server {server}) {description}"),
            parameters,
        },
        read_only,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(json: Value) -> Tool {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_server_tool_is_offered_with_its_server_an_object_schema_and_its_hint() {
        let offered = runtime_tool(
            "mcp__fs__read",
            "fs",
            &tool(serde_json::json!({
                "name": "read",
                "description": "Reads a file",
                "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "properties": {}},
                "annotations": {"readOnlyHint": true}
            })),
        );
        assert_eq!(offered.spec.name, "mcp__fs__read");
        assert_eq!(offered.spec.description, "(MCP server fs) Reads a file");
        assert_eq!(
            offered.spec.parameters,
            serde_json::json!({"properties": {}, "type": "object"})
        );
        assert!(offered.read_only);
        let unmarked = runtime_tool(
            "mcp__fs__write",
            "fs",
            &tool(serde_json::json!({
                "name": "write",
                "title": "Write",
                "inputSchema": {"type": "object"},
                "annotations": {"destructiveHint": false}
            })),
        );
        assert_eq!(unmarked.spec.description, "(MCP server fs) Write");
        assert!(!unmarked.read_only, "only readOnlyHint: true counts");
    }

    #[tokio::test]
    async fn a_server_that_cannot_start_is_a_notice_and_offers_nothing() {
        let spec = ServerSpec {
            name: "gone".to_owned(),
            command: "/nonexistent/server".to_owned(),
            http: None,
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: std::env::temp_dir(),
            startup_timeout: std::time::Duration::from_secs(1),
            tool_timeout: std::time::Duration::from_secs(1),
            enabled_tools: None,
            disabled_tools: Vec::new(),
            defined_in: "a test".to_owned(),
        };
        let mut manager = McpManager::start(vec![spec], crate::mcp::ServerEnv::default());
        manager.ready().await;
        assert!(manager.tools().is_empty());
        let notices = manager.take_notices();
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].kind, NoticeKind::StartFailed);
        assert!(
            notices[0]
                .message
                .contains("cannot start `/nonexistent/server`")
        );
        assert!(manager.take_notices().is_empty(), "reported once");
        let (output, notice) = manager
            .call("mcp__gone__x", Value::Null, &CancellationToken::new())
            .await;
        assert!(!output.ok && notice.is_none());
        manager.stop_all();
    }
}

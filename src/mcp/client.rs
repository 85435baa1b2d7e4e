//! One MCP server: its process, in a process group of its own; the
//! protocol over its pipes (rmcp's client), or over streamable HTTP for a
//! server with a URL; what it last wrote on stderr;
//! and how it ended. Every wait here has a deadline or gives way to the
//! process's end, so a server that hangs or dies never hangs the session.

use std::ffi::OsString;
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion, Tool,
};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::config::{HttpEndpoint, ServerSpec};
use crate::tools::service::{self, Pipes, Service, StderrTail};

/// How much of a server's stderr is kept, and quoted in the messages
/// about it.
const STDERR_TAIL: StderrTail = StderrTail {
    kept: 4 * 1024,
    quoted: 400,
};

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot start `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("it did not list its tools within {} s (startup_timeout_sec){}", .after.as_secs_f64(), .stderr)]
    Timeout { after: Duration, stderr: String },
    #[error("{0}")]
    Failed(String),
}

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("it did not answer within {} s (tool_timeout_sec)", .0.as_secs_f64())]
    Timeout(Duration),
    /// The process ended, or closed its pipe: how, in words.
    #[error("{0}")]
    Crashed(String),
    #[error("cancelled")]
    Cancelled,
    /// A protocol error (the server refused the call, or answered nonsense).
    #[error("{0}")]
    Failed(String),
}

/// A server's process, spawned; the handshake comes next.
pub struct Spawned {
    pipes: Pipes,
    process: Process,
}

/// The process side of a server, shared by its handshake, its calls and
/// whoever may have to stop it before it answered.
pub type Process = Service;

/// A server that answered its handshake and listed its tools.
pub struct Connection {
    service: RunningService<RoleClient, ClientConfig>,
    /// `None` for a server spoken to over HTTP: it is not ours to run.
    process: Option<Process>,
    tool_timeout: Duration,
}

/// Starts the server's process: its own process group, the environment
/// given, stdin and stdout for the protocol, stderr kept. Returns at
/// once: the handshake is [`Spawned::connect`].
pub fn spawn(spec: &ServerSpec, env: &[(OsString, OsString)]) -> Result<Spawned, StartError> {
    let mut command = tokio::process::Command::new(&spec.command);
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(env.iter().map(|(name, value)| (name, value)))
        // The agent's own would name another folder than the one it runs in.
        .env("PWD", &spec.cwd)
        .envs(&spec.env)
        // Its own group, so that stopping it reaches what it started
        // (`npx` runs the server as a child).
        .process_group(0);
    let (pipes, process) =
        service::spawn(&mut command, STDERR_TAIL).map_err(|source| StartError::Spawn {
            command: spec.command.clone(),
            source,
        })?;
    Ok(Spawned { pipes, process })
}

impl Spawned {
    /// What stops the process, whatever becomes of the handshake.
    pub fn process(&self) -> Process {
        self.process.clone()
    }

    /// The handshake and the tool list, within `timeout`. On any failure
    /// the process is stopped.
    pub async fn connect(
        self,
        timeout: Duration,
        tool_timeout: Duration,
    ) -> Result<(Connection, Vec<Tool>), StartError> {
        let process = self.process.clone();
        let handshake = handshake(client_config().serve((self.pipes.stdout, self.pipes.stdin)));
        let outcome = tokio::time::timeout(timeout, handshake).await;
        let failure = match outcome {
            Ok(Ok((service, tools))) => {
                let connection = Connection {
                    service,
                    process: Some(process),
                    tool_timeout,
                };
                return Ok((connection, tools));
            }
            Ok(Err(why)) => match process.how_it_ended().await {
                Some(how) => StartError::Failed(format!("it {how}{}", process.stderr_quote())),
                None => StartError::Failed(format!("{why}{}", process.stderr_quote())),
            },
            Err(_) => StartError::Timeout {
                after: timeout,
                stderr: process.stderr_quote(),
            },
        };
        process.kill();
        Err(failure)
    }
}

fn client_config() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("agent", crate::VERSION),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// `initialize`, then the whole tool list.
async fn handshake<E: std::fmt::Display>(
    serving: impl Future<Output = Result<RunningService<RoleClient, ClientConfig>, E>>,
) -> Result<(RunningService<RoleClient, ClientConfig>, Vec<Tool>), String> {
    let service = serving.await.map_err(|err| err.to_string())?;
    let tools = service
        .list_all_tools()
        .await
        .map_err(|err| format!("tools/list failed: {err}"))?;
    Ok((service, tools))
}

/// The handshake and the tool list of a server spoken to over streamable
/// HTTP, within `timeout`.
pub async fn connect_http(
    endpoint: HttpEndpoint,
    timeout: Duration,
    tool_timeout: Duration,
) -> Result<(Connection, Vec<Tool>), StartError> {
    let mut headers = std::collections::HashMap::new();
    for (name, value) in &endpoint.headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|err| StartError::Failed(format!("header {name:?}: {err}")))?;
        let value = HeaderValue::from_str(value)
            .map_err(|err| StartError::Failed(format!("header {name}: {err}")))?;
        headers.insert(name, value);
    }
    let client = crate::model::http::client_builder()
        .and_then(|builder| {
            builder
                .connect_timeout(timeout)
                .build()
                .map_err(|err| crate::model::ModelError::Setup(err.to_string()))
        })
        .map_err(|err| StartError::Failed(format!("no HTTP client: {err}")))?;
    let config = StreamableHttpClientTransportConfig::with_uri(endpoint.url.as_str())
        .custom_headers(headers);
    let transport = StreamableHttpClientTransport::with_client(client, config);
    let handshake = handshake(client_config().serve(transport));
    match tokio::time::timeout(timeout, handshake).await {
        Ok(Ok((service, tools))) => Ok((
            Connection {
                service,
                process: None,
                tool_timeout,
            },
            tools,
        )),
        Ok(Err(why)) => Err(StartError::Failed(format!(
            "{} answered: {why}",
            endpoint.url
        ))),
        Err(_) => Err(StartError::Timeout {
            after: timeout,
            stderr: String::new(),
        }),
    }
}

impl Connection {
    /// How the server ended, if it has: its process's end, or for a
    /// server over HTTP, the connection's.
    pub fn ended(&self) -> Option<String> {
        match &self.process {
            Some(process) => process.ended(),
            None => self
                .service
                .is_transport_closed()
                .then(|| "closed its connection".to_owned()),
        }
    }

    pub fn stderr_quote(&self) -> String {
        self.process
            .as_ref()
            .map(Process::stderr_quote)
            .unwrap_or_default()
    }

    /// How the process ended, waiting a moment for it; `None` over HTTP.
    async fn how_it_ended(&self) -> Option<String> {
        self.process.as_ref()?.how_it_ended().await
    }

    /// Calls `tool`, within the server's tool timeout; a cancel, the
    /// timeout or the server's end stop the wait (the request is then
    /// cancelled with the server).
    pub async fn call(
        &self,
        tool: &str,
        arguments: Value,
        cancel: &CancellationToken,
    ) -> Result<CallToolResult, CallError> {
        if let Some(how) = self.ended() {
            return Err(CallError::Crashed(how));
        }
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let process = self.process.clone();
        let process_end = async move {
            match process {
                Some(process) => process.end().await,
                // Over HTTP the call's own error says the connection ended.
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            result = self.service.call_tool(params) => match result {
                Ok(result) => Ok(result),
                Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                    let how = self.how_it_ended().await;
                    Err(CallError::Crashed(how.unwrap_or_else(|| "closed its connection".to_owned())))
                }
                Err(other) => Err(CallError::Failed(other.to_string())),
            },
            () = tokio::time::sleep(self.tool_timeout) => Err(CallError::Timeout(self.tool_timeout)),
            how = process_end => Err(CallError::Crashed(how)),
            () = cancel.cancelled() => Err(CallError::Cancelled),
        }
    }

    /// Stops the server: the protocol task, then the process group and
    /// everything below the process. Does not wait: the session's end
    /// must not.
    pub fn stop(&self) {
        self.service.cancellation_token().cancel();
        if let Some(process) = &self.process {
            process.kill();
        }
    }
}

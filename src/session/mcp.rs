//! The session's side of its MCP servers (`crate::mcp`): their tools
//! join the offer once listed, what goes wrong with a server is a
//! non-fatal `error` event, and a call of one of their tools goes to the
//! manager.

use super::Session;
use crate::mcp::{McpManager, Notice, NoticeKind};
use crate::protocol::events::{ErrorCode, Event};
use crate::tools::ToolOutput;
use crate::tools::registry::RuntimeCall;

impl Session {
    /// The servers this session offers the tools of, started already
    /// (they start before the session, to overlap with its set-up).
    pub fn with_mcp(mut self, mcp: McpManager) -> Self {
        self.mcp = mcp;
        self
    }

    /// Waits for the servers' tool lists, each bounded by its startup
    /// timeout, or for a cancel, and offers the tools.
    pub(super) async fn await_mcp(&mut self) {
        if self.mcp.is_empty() {
            return;
        }
        let cancel = self.control.cancel.clone();
        tokio::select! {
            () = self.mcp.ready() => {}
            () = cancel.cancelled() => {}
        }
        self.refresh_tools();
    }

    /// Reports what went wrong with a server since the last look.
    pub(super) fn report_mcp(&mut self) {
        for notice in self.mcp.take_notices() {
            self.report_notice(notice);
        }
    }

    fn report_notice(&self, notice: Notice) {
        let code = match notice.kind {
            NoticeKind::StartFailed => ErrorCode::McpServerFailed,
            NoticeKind::StartTimeout => ErrorCode::McpServerTimeout,
            NoticeKind::Crashed => ErrorCode::McpServerCrashed,
            NoticeKind::CallTimeout => ErrorCode::McpCallTimeout,
        };
        self.events.emit(Event::warning(code, notice.message));
    }

    /// Runs a call of a server's tool.
    pub(super) async fn call_mcp(&mut self, call: RuntimeCall) -> ToolOutput {
        let cancel = self.control.cancel.clone();
        let (output, notice) = self.mcp.call(&call.name, call.arguments, &cancel).await;
        if let Some(notice) = notice {
            self.report_notice(notice);
        }
        output
    }
}

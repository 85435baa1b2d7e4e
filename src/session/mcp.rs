//! The session's side of its MCP servers (`crate::mcp`): their tools
//! join the offer once listed, what goes wrong with a server is a
//! non-fatal `error` event, a call of one of their tools goes to the
//! manager, a change of their definitions is applied before the next
//! model call, and above the gate only the relevant tools are offered.

use super::Session;
use super::gating::{self, Gate};
use crate::mcp::reload::{Loaded, Reloader};
use crate::mcp::{McpManager, Notice, NoticeKind};
use crate::model::{Message, ToolSpec};
use crate::protocol::events::{ErrorCode, Event};
use crate::tools::ToolOutput;
use crate::tools::registry::{Offer, RuntimeCall, Tool};
use crate::tools::tool_search::ToolSearchArgs;

/// The user and assistant messages whose words choose the gated tools.
const RECENT_MESSAGES: usize = 5;
/// Of each, the last bytes (a first message holds the whole environment).
const RECENT_BYTES: usize = 4096;
/// A description in `tool_search`'s answer, cut here.
const SEARCH_DESCRIPTION: usize = 300;

impl Session {
    /// The servers this session offers the tools of, started already
    /// (they start before the session, to overlap with its set-up), what
    /// sees their definitions change, and the gate.
    pub fn with_mcp(mut self, mcp: McpManager, reload: Option<Reloader>, gate: Gate) -> Self {
        self.mcp = mcp;
        self.mcp_reload = reload;
        self.mcp_gate = gate;
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

    /// Applies a change of the servers' definitions: removed ones stop,
    /// added and changed ones start (and are waited for, so their tools
    /// are in the next request), the others are left alone. Definitions
    /// that cannot be used leave every server as it is.
    pub(super) async fn reload_mcp(&mut self) {
        let Some(reloader) = &mut self.mcp_reload else {
            return;
        };
        match reloader.check() {
            None => return,
            Some(Err(why)) => {
                self.events.emit(Event::warning(
                    ErrorCode::McpConfigInvalid,
                    format!("{why}; the MCP servers are kept as they were"),
                ));
                return;
            }
            Some(Ok(Loaded { mcp, servers })) => {
                // Servers that start now may write in the work dir, and
                // waiting for them may take seconds: the last iteration's
                // checkpoint is not left waiting with them.
                self.flush_checkpoint();
                self.mcp_gate = Gate {
                    above: mcp.gate_above,
                    offered: mcp.offered,
                };
                self.mcp.apply(servers);
            }
        }
        self.await_mcp().await;
        self.report_mcp();
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

    /// `offer` with its server tools gated: up to the gate, all of them
    /// and no `tool_search`; above it, those offered before (the set only
    /// grows, so a tool the model saw never disappears and the request's
    /// tool list, the head of the cached prompt, changes as little as
    /// possible) and the best for the recent conversation.
    pub(super) fn gate_mcp_tools(&mut self, mut offer: Offer) -> Offer {
        let tools: Vec<ToolSpec> = offer.runtime.iter().map(|tool| tool.spec.clone()).collect();
        if tools.len() <= self.mcp_gate.above {
            return offer.without(Tool::ToolSearch);
        }
        let recent = recent_talk(&self.state.conversation, &self.config.prompt);
        let offered = &mut self.state.progress.mcp_offered;
        // What the last request offered stays, also when the gate has just
        // closed (a reload added a server and crossed `gate_above`).
        offered.extend(self.offer.runtime.iter().map(|tool| tool.spec.name.clone()));
        let chosen = gating::choose(&tools, &recent, offered, self.mcp_gate);
        offered.extend(chosen.into_iter().map(|tool| tool.name));
        offer
            .runtime
            .retain(|tool| offered.contains(&tool.spec.name));
        offer
    }

    /// A call of a server tool the gate held back lets it in: the gate
    /// saves tokens, it does not forbid (blocked tools and plan mode are
    /// decided before it), and a model that names a tool right, from the
    /// person's words or an earlier session, should not be refused.
    pub(super) fn let_in_held_back(&mut self, name: &str) {
        if !crate::mcp::names::is_mcp_name(name) || self.offer.admit(name).is_ok() {
            return;
        }
        let eligible = Offer::new(
            self.state.progress.mode,
            &self.config.blocked_tools,
            self.mcp.tools(),
        );
        if eligible.runtime.iter().any(|tool| tool.spec.name == name) {
            self.state.progress.mcp_offered.insert(name.to_owned());
            self.refresh_tools();
        }
    }

    /// `tool_search`: the best server tools for the query, offered from
    /// now on.
    pub(super) fn search_tools(&mut self, args: &ToolSearchArgs) -> ToolOutput {
        let all = Offer::new(
            self.state.progress.mode,
            &self.config.blocked_tools,
            self.mcp.tools(),
        );
        let tools: Vec<ToolSpec> = all.runtime.iter().map(|tool| tool.spec.clone()).collect();
        let best = gating::Index::new(&tools).best(&args.query, args.limit());
        if best.is_empty() {
            return ToolOutput::fail(format!(
                "no MCP tool matches {:?} (of {} server tools); try other words",
                args.query,
                tools.len()
            ));
        }
        let mut lines = vec!["These tools are offered from your next call on:".to_owned()];
        for &i in &best {
            let tool = &tools[i];
            let description =
                crate::tools::truncate::head_tail(&tool.description, SEARCH_DESCRIPTION);
            lines.push(format!(
                "- {}: {}",
                tool.name,
                description.replace('\n', " ")
            ));
            self.state.progress.mcp_offered.insert(tool.name.clone());
        }
        self.refresh_tools();
        ToolOutput::ok(lines.join("\n"))
    }

    /// The tools offered now, remembered as what the front end knows.
    pub(super) fn announce(&mut self) -> Vec<String> {
        self.announced = self.offer.names();
        self.announced.clone()
    }

    /// `tools-changed`, when the offer is not what the front end was last
    /// told: a server came or went, a mode changed, the gate let more in.
    pub(super) fn announce_tools(&mut self) {
        let tools = self.offer.names();
        if tools == self.announced {
            return;
        }
        let added = tools
            .iter()
            .filter(|name| !self.announced.contains(name))
            .cloned()
            .collect();
        let removed = self
            .announced
            .iter()
            .filter(|name| !tools.contains(name))
            .cloned()
            .collect();
        self.announced = tools.clone();
        self.events.emit(Event::ToolsChanged {
            tools,
            added,
            removed,
        });
    }
}

/// The words the gate ranks tools by: the last few things the person and
/// the model said (tool results are left out: a page or a file speaks of
/// anything). The first user message counts as the person's prompt alone:
/// the environment and instructions around it say nothing of the task.
fn recent_talk(conversation: &[Message], prompt: &str) -> String {
    let first_user = conversation
        .iter()
        .position(|message| matches!(message, Message::User { .. }));
    let mut texts: Vec<&str> = conversation
        .iter()
        .enumerate()
        .rev()
        .filter_map(|(i, message)| match message {
            Message::User { .. } if Some(i) == first_user => Some(prompt),
            Message::User { text, .. } => Some(text.as_str()),
            Message::Assistant(turn) if !turn.text.is_empty() => Some(turn.text.as_str()),
            Message::Assistant(_) | Message::System { .. } | Message::Tool(_) => None,
        })
        .take(RECENT_MESSAGES)
        .collect();
    if first_user.is_none() {
        texts.push(prompt);
    }
    texts
        .iter()
        .rev()
        .map(|text| {
            let start = text.len().saturating_sub(RECENT_BYTES);
            &text[crate::tools::truncate::floor_boundary(text, start)..]
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::AssistantTurn;

    fn user(text: &str) -> Message {
        Message::User {
            text: text.to_owned(),
            images: Vec::new(),
        }
    }

    fn said(text: &str) -> Message {
        Message::Assistant(AssistantTurn {
            text: text.to_owned(),
            ..AssistantTurn::default()
        })
    }

    #[test]
    fn the_recent_talk_is_the_prompt_and_the_last_words_said() {
        assert_eq!(recent_talk(&[], "fix the build"), "fix the build");
        let conversation = vec![
            Message::System {
                text: "system".to_owned(),
            },
            user("<environment>lots</environment> fix the build"),
            said("looking"),
            said(""),
            user("also the weather"),
        ];
        assert_eq!(
            recent_talk(&conversation, "fix the build"),
            "fix the build\nlooking\nalso the weather"
        );
        let long: Vec<Message> = (0..10).map(|i| said(&format!("turn {i}"))).collect();
        let talk = recent_talk(&long, "p");
        assert_eq!(talk, "p\nturn 5\nturn 6\nturn 7\nturn 8\nturn 9");
    }
}

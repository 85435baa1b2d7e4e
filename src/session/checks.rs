//! The checks every tool call passes before it runs, in order. The first
//! that does not allow decides: a refusal becomes the tool's result, a
//! question goes to a person. New checks (untrusted content, loops) join
//! the chain in [`Checks::verdict`].

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::readonly;
use super::untrusted::{Taint, UntrustedChecks, UntrustedConfig};
use crate::protocol::events::Mode;
use crate::tools::debug::{Action as DebugAction, DebugArgs};
use crate::tools::registry::{Offered, ToolDef};
use crate::tools::{Call, Tool};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    Allow,
    Ask,
    Deny,
}

/// `[approval]` in the config file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ApprovalConfig {
    /// For tools without an entry in `tools`.
    pub default: Policy,
    /// Per tool name.
    pub tools: BTreeMap<String, Policy>,
    /// For `exec`, by command line; the first matching rule wins, before
    /// the `tools.exec` entry.
    pub exec: Vec<ExecRule>,
}

impl Default for ApprovalConfig {
    fn default() -> Self {
        ApprovalConfig {
            default: Policy::Allow,
            tools: BTreeMap::new(),
            exec: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecRule {
    /// A glob over the whole command line: `*` matches anything, `/`
    /// included (`git push*`, `rm -rf *`).
    pub pattern: String,
    pub decision: Policy,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Deny(String),
    Ask { action: String, reason: String },
}

pub struct Checks {
    approval: ApprovalConfig,
    exec_rules: Vec<(globset::GlobMatcher, Policy, String)>,
    /// Every "ask" becomes "deny": nobody is there to answer.
    unattended: bool,
    /// What asks a person after untrusted content was flagged.
    untrusted: UntrustedChecks,
}

impl Checks {
    pub fn new(approval: ApprovalConfig, unattended: bool) -> Result<Self, String> {
        let exec_rules = approval
            .exec
            .iter()
            .map(|rule| {
                globset::GlobBuilder::new(&rule.pattern)
                    .literal_separator(false)
                    .build()
                    .map(|glob| (glob.compile_matcher(), rule.decision, rule.pattern.clone()))
                    .map_err(|err| format!("approval.exec pattern {:?}: {err}", rule.pattern))
            })
            .collect::<Result<_, _>>()?;
        for name in approval.tools.keys() {
            if Tool::from_name(name).is_none() && !crate::mcp::names::is_mcp_name(name) {
                return Err(format!("approval.tools: unknown tool {name:?}"));
            }
        }
        Ok(Checks {
            approval,
            exec_rules,
            unattended,
            untrusted: UntrustedChecks::default(),
        })
    }

    /// With `[untrusted_content]` from the config.
    pub fn with_untrusted(mut self, config: UntrustedConfig) -> Result<Self, String> {
        self.untrusted = UntrustedChecks::new(config)?;
        Ok(self)
    }

    pub fn untrusted(&self) -> &UntrustedChecks {
        &self.untrusted
    }

    /// `arguments`: the call as the model sent it, shown to a person
    /// where the tool has no one-line description of its own. `taint`:
    /// untrusted content was flagged since the last user message.
    pub fn verdict(
        &self,
        mode: Mode,
        taint: Option<&Taint>,
        call: &Call,
        arguments: &Value,
    ) -> Verdict {
        let plan = plan_mode(mode, call);
        if plan != Verdict::Allow {
            return plan;
        }
        let policy = self.policy(call);
        if policy.0 != Policy::Deny
            && let Some(taint) = taint
            && let Some(risk) = self.untrusted.risk(call)
        {
            let reason = taint.reason(&risk);
            return if self.unattended {
                Verdict::Deny(format!("refused: {reason}; this run is unattended"))
            } else {
                Verdict::Ask {
                    action: call.action(arguments),
                    reason,
                }
            };
        }
        match policy {
            (Policy::Allow, _) => Verdict::Allow,
            (Policy::Deny, why) => Verdict::Deny(format!("refused by the approval policy ({why})")),
            (Policy::Ask, why) if self.unattended => Verdict::Deny(format!(
                "refused: the approval policy asks a person ({why}), and this run is unattended"
            )),
            (Policy::Ask, why) => Verdict::Ask {
                action: call.action(arguments),
                reason: format!("the approval policy asks for this ({why})"),
            },
        }
    }

    fn policy(&self, call: &Call) -> (Policy, String) {
        if let Call::Debug(args) = call {
            return self.debug_policy(args);
        }
        if let Call::Exec(args) = call
            && let Some((_, policy, pattern)) = self
                .exec_rules
                .iter()
                .find(|(matcher, _, _)| matcher.is_match(&args.command))
        {
            return (*policy, format!("exec rule {pattern:?}"));
        }
        match self.approval.tools.get(call.name()) {
            Some(policy) => (*policy, format!("tools.{}", call.name())),
            None => (self.approval.default, "default".to_owned()),
        }
    }
}

impl Checks {
    /// `debug`: a launch is judged later, as the `exec` of its command
    /// line (the session does it), unless `tools.debug` denies the tool;
    /// what runs code the model wrote in the program (evaluate, breakpoint
    /// conditions) asks a person unless `tools.debug` says otherwise.
    fn debug_policy(&self, args: &DebugArgs) -> (Policy, String) {
        let own = self.approval.tools.get(DebugArgs::NAME).copied();
        match (args.action, own) {
            (DebugAction::Launch, Some(Policy::Deny)) => (Policy::Deny, "tools.debug".to_owned()),
            (DebugAction::Launch, _) => (Policy::Allow, "judged as exec".to_owned()),
            (_, Some(policy)) => (policy, "tools.debug".to_owned()),
            (_, None) if args.runs_code() => (
                Policy::Ask,
                "debug: evaluate and breakpoint conditions run code in the program".to_owned(),
            ),
            (_, None) => (self.approval.default, "default".to_owned()),
        }
    }
}

/// In plan mode nothing may change the work dir.
fn plan_mode(mode: Mode, call: &Call) -> Verdict {
    if mode != Mode::Plan {
        return Verdict::Allow;
    }
    match (call, call.tool().map(Tool::offered)) {
        (Call::Exec(args), _) if !readonly::is_read_only(&args.command) => Verdict::Deny(
            "refused: in plan mode exec runs only commands that cannot change anything \
             (ls, cat, grep, find without -exec/-delete, git status/log/diff/show, ...), \
             with no redirection; use read_file, list_dir, glob and grep instead"
                .to_owned(),
        ),
        // A launch is judged as exec, read-only rules included (session).
        (Call::Debug(args), _) if args.resumes() || args.runs_code() => {
            Verdict::Deny("refused: in plan mode the debugged program does not run on".to_owned())
        }
        (_, Some(Offered::NotInPlan)) => Verdict::Deny(format!(
            "refused: {} changes files, and this is plan mode; submit your plan with write_plan",
            call.name()
        )),
        // A tool from outside waits for the plan unless its server says
        // it changes nothing (an MCP tool's `readOnlyHint`).
        (Call::Runtime(runtime), _) if !runtime.read_only => Verdict::Deny(format!(
            "refused: {} is not built in, and in plan mode only tools known to change nothing run",
            call.name()
        )),
        _ => Verdict::Allow,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The verdict on a call as the model would send it.
    fn verdict(checks: &Checks, mode: Mode, name: &str, args: Value) -> Verdict {
        let tool = Tool::from_name(name).expect("a built-in tool");
        let call = tool.parse(&args).expect("arguments that fit");
        checks.verdict(mode, None, &call, &args)
    }

    fn checks(config: &str, unattended: bool) -> Checks {
        let approval: ApprovalConfig = toml::from_str(config).unwrap();
        Checks::new(approval, unattended).unwrap()
    }

    #[test]
    fn policy_by_tool_and_exec_pattern() {
        let checks = checks(
            r#"
default = "allow"
tools = { web_fetch = "deny", write_file = "ask" }
[[exec]]
pattern = "git push*"
decision = "ask"
[[exec]]
pattern = "rm -rf /*"
decision = "deny"
"#,
            false,
        );
        let exec =
            |command: &str| verdict(&checks, Mode::Normal, "exec", json!({"command": command}));
        assert_eq!(exec("ls"), Verdict::Allow);
        assert!(
            matches!(exec("git push origin main"), Verdict::Ask { ref action, .. } if action == "run: git push origin main")
        );
        assert!(matches!(exec("rm -rf /usr/lib"), Verdict::Deny(_)));
        assert!(matches!(
            verdict(&checks, Mode::Normal, "web_fetch", json!({"url": "x"})),
            Verdict::Deny(_)
        ));
        assert!(matches!(
            verdict(
                &checks,
                Mode::Normal,
                "write_file",
                json!({"path": "a", "content": ""})
            ),
            Verdict::Ask { .. }
        ));
    }

    #[test]
    fn runtime_tools_follow_their_read_only_mark_and_the_policy_by_name() {
        let checks = checks(r#"tools = { mcp__srv__wipe = "ask" }"#, false);
        let runtime = |name: &str, read_only| {
            Call::Runtime(crate::tools::registry::RuntimeCall {
                name: name.to_owned(),
                arguments: json!({}),
                read_only,
            })
        };
        let judge = |mode, call: &Call| checks.verdict(mode, None, call, &json!({}));
        let reader = runtime("mcp__srv__read", true);
        let writer = runtime("mcp__srv__wipe", false);
        assert_eq!(judge(Mode::Plan, &reader), Verdict::Allow);
        assert!(
            matches!(judge(Mode::Plan, &writer), Verdict::Deny(ref why) if why.contains("not built in"))
        );
        assert!(
            matches!(judge(Mode::Normal, &writer), Verdict::Ask { ref reason, .. } if reason.contains("tools.mcp__srv__wipe"))
        );
        assert!(
            Checks::new(
                toml::from_str(r#"tools = { mcp_x = "ask" }"#).unwrap(),
                false
            )
            .is_err()
        );
    }

    #[test]
    fn unattended_turns_ask_into_deny() {
        let checks = checks("default = \"ask\"", true);
        let verdict = verdict(&checks, Mode::Normal, "read_file", json!({"path": "a"}));
        assert!(
            matches!(verdict, Verdict::Deny(ref why) if why.contains("unattended")),
            "{verdict:?}"
        );
    }

    #[test]
    fn plan_mode_blocks_writes_before_the_policy() {
        let checks = checks("default = \"allow\"", false);
        assert!(matches!(
            verdict(
                &checks,
                Mode::Plan,
                "write_file",
                json!({"path": "a", "content": ""})
            ),
            Verdict::Deny(_)
        ));
        assert!(matches!(
            verdict(&checks, Mode::Plan, "exec", json!({"command": "touch x"})),
            Verdict::Deny(_)
        ));
        assert_eq!(
            verdict(
                &checks,
                Mode::Plan,
                "exec",
                json!({"command": "git status"})
            ),
            Verdict::Allow
        );
    }

    #[test]
    fn a_taint_asks_before_the_policy_allows_but_after_it_denies() {
        let taint = Taint {
            source: "web_fetch".into(),
            origin: "https://x/page".into(),
            rules: vec!["role-change".into()],
        };
        let tainted = |checks: &Checks, name: &str, args: Value| {
            let call = Tool::from_name(name).unwrap().parse(&args).unwrap();
            checks.verdict(Mode::Normal, Some(&taint), &call, &args)
        };
        let attended = checks(
            "default = \"allow\"\ntools = { web_fetch = \"deny\" }",
            false,
        );
        match tainted(&attended, "exec", json!({"command": "touch x"})) {
            Verdict::Ask { action, reason } => {
                assert_eq!(action, "run: touch x");
                assert!(reason.starts_with("untrusted content from web_fetch (https://x/page) was flagged (role-change)"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            tainted(&attended, "exec", json!({"command": "ls"})),
            Verdict::Allow
        );
        assert!(matches!(
            tainted(&attended, "web_fetch", json!({"url": "https://y"})),
            Verdict::Deny(ref why) if why.contains("approval policy")
        ));
        let unattended = checks("default = \"allow\"", true);
        assert!(matches!(
            tainted(&unattended, "read_file", json!({"path": ".env"})),
            Verdict::Deny(ref why) if why.starts_with("refused: untrusted content") && why.ends_with("this run is unattended")
        ));
        let off = checks("", true)
            .with_untrusted(toml::from_str("approvals = false").unwrap())
            .unwrap();
        assert_eq!(
            tainted(&off, "exec", json!({"command": "touch x"})),
            Verdict::Allow
        );
    }

    #[test]
    fn debug_evaluate_and_conditions_ask_launch_waits_for_its_exec_judgement() {
        let debug = |checks: &Checks, mode, args: Value| verdict(checks, mode, "debug", args);
        let plain = checks("default = \"allow\"", false);
        let evaluate = json!({"action": "evaluate", "expression": "x"});
        assert!(matches!(
            debug(&plain, Mode::Normal, evaluate.clone()),
            Verdict::Ask { ref action, .. } if action == "evaluate in the debugged program: x"
        ));
        let conditional = json!({"action": "breakpoints", "path": "a.py", "lines": [3, 4], "conditions": ["", "n > 2"]});
        assert!(matches!(
            debug(&plain, Mode::Normal, conditional),
            Verdict::Ask { ref action, .. } if action == "set breakpoints in a.py running: n > 2"
        ));
        let plain_breakpoints = json!({"action": "breakpoints", "path": "a.py", "lines": [3], "conditions": [""], "log_messages": ["here"]});
        assert_eq!(
            debug(&plain, Mode::Normal, plain_breakpoints),
            Verdict::Allow
        );
        let logged = json!({"action": "breakpoints", "path": "a.py", "lines": [3], "log_messages": ["n is {n}"]});
        assert!(matches!(
            debug(&plain, Mode::Normal, logged),
            Verdict::Ask { .. }
        ));
        let launch = json!({"action": "launch", "program": "a.py"});
        assert_eq!(debug(&plain, Mode::Normal, launch.clone()), Verdict::Allow);
        assert_eq!(debug(&plain, Mode::Plan, launch.clone()), Verdict::Allow);
        assert_eq!(
            debug(&plain, Mode::Plan, json!({"action": "stack"})),
            Verdict::Allow
        );
        assert!(matches!(
            debug(&plain, Mode::Plan, json!({"action": "continue"})),
            Verdict::Deny(ref why) if why.contains("plan mode")
        ));

        let unattended = checks("default = \"allow\"", true);
        assert!(matches!(
            debug(&unattended, Mode::Normal, evaluate.clone()),
            Verdict::Deny(ref why) if why.contains("unattended")
        ));
        let allowed = checks("tools = { debug = \"allow\" }", true);
        assert_eq!(debug(&allowed, Mode::Normal, evaluate), Verdict::Allow);
        let denied = checks("tools = { debug = \"deny\" }", false);
        assert!(matches!(
            debug(&denied, Mode::Normal, launch),
            Verdict::Deny(_)
        ));
    }

    #[test]
    fn unknown_tools_and_bad_patterns_are_config_errors() {
        let approval: ApprovalConfig = toml::from_str("tools = { teleport = \"ask\" }").unwrap();
        assert!(Checks::new(approval, false).is_err());
        let approval: ApprovalConfig =
            toml::from_str("[[exec]]\npattern = \"[\"\ndecision = \"ask\"").unwrap();
        assert!(Checks::new(approval, false).is_err());
    }
}

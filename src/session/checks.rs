//! The checks every tool call passes before it runs, in order. The first
//! that does not allow decides: a refusal becomes the tool's result, a
//! question goes to a person. New checks (untrusted content, loops) join
//! the chain in [`Checks::verdict`].

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::readonly;
use crate::protocol::events::Mode;
use crate::tools::Tool;

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
            if !crate::tools::CONTRACT_TOOLS.contains(&name.as_str()) {
                return Err(format!("approval.tools: unknown tool {name:?}"));
            }
        }
        Ok(Checks {
            approval,
            exec_rules,
            unattended,
        })
    }

    pub fn verdict(&self, mode: Mode, tool: Tool, args: &Value) -> Verdict {
        let plan = plan_mode(mode, tool, args);
        if plan != Verdict::Allow {
            return plan;
        }
        match self.policy(tool, args) {
            (Policy::Allow, _) => Verdict::Allow,
            (Policy::Deny, why) => Verdict::Deny(format!("refused by the approval policy ({why})")),
            (Policy::Ask, why) if self.unattended => Verdict::Deny(format!(
                "refused: the approval policy asks a person ({why}), and this run is unattended"
            )),
            (Policy::Ask, why) => Verdict::Ask {
                action: describe_action(tool, args),
                reason: format!("the approval policy asks for this ({why})"),
            },
        }
    }

    fn policy(&self, tool: Tool, args: &Value) -> (Policy, String) {
        if tool == Tool::Exec {
            let command = args.get("command").and_then(Value::as_str).unwrap_or("");
            if let Some((_, policy, pattern)) = self
                .exec_rules
                .iter()
                .find(|(matcher, _, _)| matcher.is_match(command))
            {
                return (*policy, format!("exec rule {pattern:?}"));
            }
        }
        match self.approval.tools.get(tool.name()) {
            Some(policy) => (*policy, format!("tools.{}", tool.name())),
            None => (self.approval.default, "default".to_owned()),
        }
    }
}

/// In plan mode nothing may change the work dir.
fn plan_mode(mode: Mode, tool: Tool, args: &Value) -> Verdict {
    if mode != Mode::Plan {
        return Verdict::Allow;
    }
    match tool {
        Tool::WriteFile | Tool::EditFile => Verdict::Deny(format!(
            "refused: {} changes files, and this is plan mode; submit your plan with write_plan",
            tool.name()
        )),
        Tool::Exec => {
            let command = args.get("command").and_then(Value::as_str).unwrap_or("");
            if readonly::is_read_only(command) {
                Verdict::Allow
            } else {
                Verdict::Deny(
                    "refused: in plan mode exec runs only commands that cannot change anything \
                     (ls, cat, grep, find without -exec/-delete, git status/log/diff/show, ...), \
                     with no redirection; use read_file, list_dir, glob and grep instead"
                        .to_owned(),
                )
            }
        }
        Tool::ReadFile
        | Tool::ListDir
        | Tool::Glob
        | Tool::Grep
        | Tool::WebFetch
        | Tool::TodoWrite
        | Tool::AskUser
        | Tool::WritePlan => Verdict::Allow,
    }
}

/// What the person is asked to approve, in one line.
fn describe_action(tool: Tool, args: &Value) -> String {
    let field = |name: &str| {
        args.get(name)
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned()
    };
    match tool {
        Tool::Exec => format!("run: {}", field("command")),
        Tool::WriteFile => format!("write {}", field("path")),
        Tool::EditFile => format!("edit {}", field("path")),
        Tool::WebFetch => format!("fetch {}", field("url")),
        Tool::ReadFile => format!("read {}", field("path")),
        Tool::ListDir
        | Tool::Glob
        | Tool::Grep
        | Tool::TodoWrite
        | Tool::AskUser
        | Tool::WritePlan => {
            format!("{} {}", tool.name(), args)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
            |command: &str| checks.verdict(Mode::Normal, Tool::Exec, &json!({"command": command}));
        assert_eq!(exec("ls"), Verdict::Allow);
        assert!(
            matches!(exec("git push origin main"), Verdict::Ask { ref action, .. } if action == "run: git push origin main")
        );
        assert!(matches!(exec("rm -rf /usr/lib"), Verdict::Deny(_)));
        assert!(matches!(
            checks.verdict(Mode::Normal, Tool::WebFetch, &json!({"url": "x"})),
            Verdict::Deny(_)
        ));
        assert!(matches!(
            checks.verdict(Mode::Normal, Tool::WriteFile, &json!({"path": "a"})),
            Verdict::Ask { .. }
        ));
    }

    #[test]
    fn unattended_turns_ask_into_deny() {
        let checks = checks("default = \"ask\"", true);
        let verdict = checks.verdict(Mode::Normal, Tool::ReadFile, &json!({"path": "a"}));
        assert!(
            matches!(verdict, Verdict::Deny(ref why) if why.contains("unattended")),
            "{verdict:?}"
        );
    }

    #[test]
    fn plan_mode_blocks_writes_before_the_policy() {
        let checks = checks("default = \"allow\"", false);
        assert!(matches!(
            checks.verdict(Mode::Plan, Tool::WriteFile, &json!({"path": "a"})),
            Verdict::Deny(_)
        ));
        assert!(matches!(
            checks.verdict(Mode::Plan, Tool::Exec, &json!({"command": "touch x"})),
            Verdict::Deny(_)
        ));
        assert_eq!(
            checks.verdict(Mode::Plan, Tool::Exec, &json!({"command": "git status"})),
            Verdict::Allow
        );
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

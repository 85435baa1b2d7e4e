//! The commands the agent reads from stdin, one JSON object per line.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One line on stdin. Fields a command does not know are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Command {
    HitlResponse {
        id: String,
        decision: Decision,
        #[serde(default)]
        data: Value,
    },
    Inject {
        text: String,
    },
    ConfirmPlan,
    Cancel,
    Rollback {
        iteration: u32,
    },
}

impl Command {
    /// The `type`, as echoed in `command-ack`.
    pub fn kind(&self) -> CommandKind {
        match self {
            Command::HitlResponse { .. } => CommandKind::HitlResponse,
            Command::Inject { .. } => CommandKind::Inject,
            Command::ConfirmPlan => CommandKind::ConfirmPlan,
            Command::Cancel => CommandKind::Cancel,
            Command::Rollback { .. } => CommandKind::Rollback,
        }
    }
}

/// A command's `type`, spelled by serde as in [`Command`] (a test holds
/// the two together): an unknown type is told apart from a bad command of
/// a known one, and serde's error names the known ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommandKind {
    HitlResponse,
    Inject,
    ConfirmPlan,
    Cancel,
    Rollback,
}

display_as_serde!(CommandKind);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    Approve,
    Reject,
    Edit,
}

display_as_serde!(Decision);

/// Why a stdin line is not a command. `command` is the line's `type` when
/// one could be read, so the `command-ack` can name it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BadCommand {
    pub command: Option<String>,
    pub message: String,
}

impl BadCommand {
    fn new(command: Option<String>, message: impl Into<String>) -> Self {
        BadCommand {
            command,
            message: message.into(),
        }
    }
}

/// Parses one stdin line (without its newline) into a command.
pub fn parse_command(line: &[u8]) -> Result<Command, BadCommand> {
    let text = std::str::from_utf8(line)
        .map_err(|_| BadCommand::new(None, "command line is not valid UTF-8"))?;
    let value: Value = serde_json::from_str(text)
        .map_err(|err| BadCommand::new(None, format!("command line is not JSON: {err}")))?;
    let Some(object) = value.as_object() else {
        return Err(BadCommand::new(None, "command must be a JSON object"));
    };
    let Some(kind) = object.get("type").and_then(Value::as_str) else {
        return Err(BadCommand::new(
            None,
            "command has no string field \"type\"",
        ));
    };
    if let Err(err) = CommandKind::deserialize(&Value::String(kind.to_owned())) {
        return Err(BadCommand::new(
            Some(kind.to_owned()),
            format!("unknown command type {kind:?} ({err})"),
        ));
    }
    let kind = kind.to_owned();
    serde_json::from_value(value)
        .map_err(|err| BadCommand::new(Some(kind.clone()), format!("bad {kind} command: {err}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_the_type_its_command_is_written_with() {
        let commands = [
            Command::HitlResponse {
                id: "a".into(),
                decision: Decision::Approve,
                data: Value::Null,
            },
            Command::Inject { text: "t".into() },
            Command::ConfirmPlan,
            Command::Cancel,
            Command::Rollback { iteration: 1 },
        ];
        for command in commands {
            let written = serde_json::to_value(&command).unwrap();
            assert_eq!(written["type"], command.kind().to_string());
        }
        let err = parse_command(br#"{"type":"teleport"}"#).unwrap_err();
        assert_eq!(err.command.as_deref(), Some("teleport"));
        assert!(err.message.contains("`confirm-plan`"), "{}", err.message);
    }

    #[test]
    fn parses_every_command() {
        assert_eq!(
            parse_command(br#"{"type":"inject","text":"hi"}"#).unwrap(),
            Command::Inject { text: "hi".into() }
        );
        assert_eq!(
            parse_command(br#"{"type":"cancel"}"#).unwrap(),
            Command::Cancel
        );
        assert_eq!(
            parse_command(br#"{"type":"confirm-plan"}"#).unwrap(),
            Command::ConfirmPlan
        );
        assert_eq!(
            parse_command(br#"{"type":"rollback","iteration":3}"#).unwrap(),
            Command::Rollback { iteration: 3 }
        );
        assert_eq!(
            parse_command(br#"{"type":"hitl-response","id":"c1","decision":"approve"}"#).unwrap(),
            Command::HitlResponse {
                id: "c1".into(),
                decision: Decision::Approve,
                data: Value::Null
            }
        );
    }

    #[test]
    fn explains_bad_lines() {
        let err = parse_command(b"\xff\xfe").unwrap_err();
        assert!(err.message.contains("UTF-8"));
        let err = parse_command(b"hello").unwrap_err();
        assert!(err.message.contains("not JSON"));
        let err = parse_command(br#"{"type":"dance"}"#).unwrap_err();
        assert_eq!(err.command.as_deref(), Some("dance"));
        let err = parse_command(br#"{"type":"inject"}"#).unwrap_err();
        assert!(err.message.contains("text"), "{}", err.message);
        let err = parse_command(br#"[1,2]"#).unwrap_err();
        assert!(err.message.contains("object"));
    }
}

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
    /// The `type` string, as echoed in `command-ack`.
    pub fn kind(&self) -> &'static str {
        match self {
            Command::HitlResponse { .. } => "hitl-response",
            Command::Inject { .. } => "inject",
            Command::ConfirmPlan => "confirm-plan",
            Command::Cancel => "cancel",
            Command::Rollback { .. } => "rollback",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    Approve,
    Reject,
    Edit,
}

display_as_serde!(Decision);

const KNOWN_TYPES: [&str; 5] = [
    "hitl-response",
    "inject",
    "confirm-plan",
    "cancel",
    "rollback",
];

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
    if !KNOWN_TYPES.contains(&kind) {
        return Err(BadCommand::new(
            Some(kind.to_owned()),
            format!(
                "unknown command type {kind:?}; expected one of {}",
                KNOWN_TYPES.join(", ")
            ),
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

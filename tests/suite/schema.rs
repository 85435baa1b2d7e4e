//! The committed JSON Schema (`docs/protocol.schema.json`) as a judge of
//! what the binary really writes: every event line the black-box suite
//! parses goes through [`check_event`] (from `check_stream` and
//! `Running::wait_for` in mod.rs), so a new test gets the check for free.
//! Here: proof that the validator refuses what it must, and the JSON
//! examples of docs/protocol.md checked against the schema.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use boon::{Compiler, SchemaIndex, Schemas};
use serde_json::{Value, json};

const SCHEMA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/protocol.schema.json");
const PROTOCOL_DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/protocol.md");

struct Compiled {
    schemas: Schemas,
    event: SchemaIndex,
    command: SchemaIndex,
    /// Each event variant by its `type`, for an error that names the
    /// field at fault instead of the 23 variants that did not match.
    variants: Vec<(String, SchemaIndex)>,
    command_types: Vec<String>,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let text = std::fs::read_to_string(SCHEMA)
            .unwrap_or_else(|err| panic!("cannot read {SCHEMA}: {err}"));
        let schema: Value =
            serde_json::from_str(&text).unwrap_or_else(|err| panic!("{SCHEMA} is not JSON: {err}"));
        let url = "file:///protocol.schema.json";
        let mut compiler = Compiler::new();
        compiler.add_resource(url, schema.clone()).unwrap();
        let mut schemas = Schemas::new();
        let mut compile = |pointer: &str| {
            compiler
                .compile(&format!("{url}#{pointer}"), &mut schemas)
                .unwrap_or_else(|err| panic!("{SCHEMA}{pointer} does not compile: {err:#}"))
        };
        let event = compile("/$defs/Event");
        let command = compile("/$defs/Command");
        let tags = |name: &str| -> Vec<String> {
            schema["$defs"][name]["oneOf"]
                .as_array()
                .unwrap_or_else(|| panic!("no oneOf in {name}"))
                .iter()
                .map(|variant| {
                    variant["properties"]["type"]["const"]
                        .as_str()
                        .unwrap()
                        .to_owned()
                })
                .collect()
        };
        let variants = tags("Event")
            .into_iter()
            .enumerate()
            .map(|(index, tag)| (tag, compile(&format!("/$defs/Event/oneOf/{index}"))))
            .collect();
        Compiled {
            schemas,
            event,
            command,
            variants,
            command_types: tags("Command"),
        }
    })
}

/// Why `event` (a parsed stdout line) is not an event of the schema.
pub fn event_error(event: &Value) -> Option<String> {
    let compiled = compiled();
    compiled.schemas.validate(event, compiled.event).err()?;
    let kind = event.get("type").and_then(Value::as_str);
    let Some((_, variant)) = compiled
        .variants
        .iter()
        .find(|(tag, _)| Some(tag.as_str()) == kind)
    else {
        return Some(format!(
            "no event type {:?} in the schema",
            event.get("type")
        ));
    };
    match compiled.schemas.validate(event, *variant) {
        Err(err) => Some(format!("{err:#}")),
        Ok(()) => Some("matches more than one event variant".into()),
    }
}

/// Why `command` is not a command of the schema.
pub fn command_error(command: &Value) -> Option<String> {
    let compiled = compiled();
    let err = compiled.schemas.validate(command, compiled.command).err()?;
    Some(format!("{err:#}"))
}

/// Fails the test, with the line and the validation error, when a stdout
/// line does not match the committed schema.
pub fn check_event(line: &str, event: &Value) {
    if let Some(err) = event_error(event) {
        panic!(
            "stdout line does not match docs/protocol.schema.json: {err}\nline: {line}\n\
             (a changed event type needs `UPDATE_SCHEMA=1 cargo test --lib schema`)"
        );
    }
}

fn real_line() -> Value {
    json!({"type": "tool-result", "_seq": 22, "ts": "2026-11-30T12:37:41.368Z",
           "id": "call_2_1", "name": "exec", "ok": true, "output": "hi\n",
           "truncated": false, "duration_ms": 7})
}

#[test]
fn the_validator_accepts_a_real_line() {
    assert_eq!(event_error(&real_line()), None);
}

#[test]
fn the_validator_refuses_malformed_events() {
    let mut cases: Vec<(&str, Value)> = Vec::new();
    let mut no_ok = real_line();
    no_ok.as_object_mut().unwrap().remove("ok");
    cases.push(("a tool-result without ok", no_ok));
    let mut unknown = real_line();
    unknown["type"] = json!("tool-finished");
    cases.push(("an unknown event type", unknown));
    let mut extra = real_line();
    extra["exit_code"] = json!(0);
    cases.push(("a field no event has", extra));
    let mut no_seq = real_line();
    no_seq.as_object_mut().unwrap().remove("_seq");
    cases.push(("no _seq", no_seq));
    let mut zero_seq = real_line();
    zero_seq["_seq"] = json!(0);
    cases.push(("_seq 0", zero_seq));
    let mut bad_ts = real_line();
    bad_ts["ts"] = json!("2026-11-30T12:37:41Z");
    cases.push(("a ts without milliseconds", bad_ts));
    let mut wrong_type = real_line();
    wrong_type["ok"] = json!("yes");
    cases.push(("ok as a string", wrong_type));
    cases.push((
        "a decision the protocol does not know",
        json!({"type": "hitl-resolved", "_seq": 3, "ts": "2026-11-30T12:37:41.368Z",
               "id": "q1", "decision": "maybe", "by": "stdin"}),
    ));
    cases.push((
        "an optional field written as null",
        json!({"type": "activity", "_seq": 3, "ts": "2026-11-30T12:37:41.368Z",
               "activity": "thinking", "tool_call_id": null}),
    ));
    for (what, line) in cases {
        let err = event_error(&line).unwrap_or_else(|| panic!("{what} was accepted: {line}"));
        assert!(!err.is_empty(), "{what}");
    }
    let err = event_error(
        &json!({"type": "tool-result", "_seq": 1, "ts": "2026-11-30T12:37:41.368Z",
        "id": "c", "name": "exec", "output": "", "truncated": false, "duration_ms": 1}),
    )
    .unwrap();
    assert!(
        err.contains("ok"),
        "the error names the missing field: {err}"
    );
}

#[test]
#[should_panic(expected = "does not match docs/protocol.schema.json")]
fn check_event_fails_the_test_with_the_line() {
    let line = r#"{"type":"tool-result","_seq":1,"ts":"2026-11-30T12:37:41.368Z"}"#;
    check_event(line, &serde_json::from_str(line).unwrap());
}

#[test]
fn the_validator_refuses_malformed_commands() {
    assert_eq!(command_error(&json!({"type": "cancel"})), None);
    // Fields a command does not know are ignored, by the agent and the schema.
    assert_eq!(
        command_error(&json!({"type": "cancel", "why": "late"})),
        None
    );
    for bad in [
        json!({"type": "dance"}),
        json!({"type": "inject"}),
        json!({"type": "rollback", "iteration": -1}),
        json!({"type": "hitl-response", "id": "q1", "decision": "maybe"}),
    ] {
        assert!(command_error(&bad).is_some(), "accepted: {bad}");
    }
}

/// Every line of a ```json block of docs/protocol.md that is a JSON object
/// with a `type` is an example: an event when it has a `_seq` (its `"ts":
/// "..."` stands for a real time), else a command. Each matches the
/// schema, and every event and command type has one.
#[test]
fn the_examples_in_the_protocol_doc_match_the_schema() {
    let doc = std::fs::read_to_string(PROTOCOL_DOC).unwrap();
    let mut in_json = false;
    let mut events = BTreeSet::new();
    let mut commands = BTreeSet::new();
    let mut wrong = Vec::new();
    for (number, line) in doc.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_json = !in_json && trimmed == "```json";
            continue;
        }
        if !in_json {
            continue;
        }
        let Ok(mut value) = serde_json::from_str::<Value>(trimmed) else {
            continue;
        };
        let Some(kind) = value.get("type").and_then(Value::as_str).map(str::to_owned) else {
            continue;
        };
        let error = if value.get("_seq").is_some() {
            if value["ts"] == "..." {
                value["ts"] = json!("2026-11-30T12:37:41.368Z");
            }
            events.insert(kind);
            event_error(&value)
        } else {
            commands.insert(kind);
            command_error(&value)
        };
        if let Some(error) = error {
            wrong.push(format!(
                "docs/protocol.md:{}: {error}\n{trimmed}",
                number + 1
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    let compiled = compiled();
    let all_events: BTreeSet<String> = compiled.variants.iter().map(|(t, _)| t.clone()).collect();
    let all_commands: BTreeSet<String> = compiled.command_types.iter().cloned().collect();
    assert_eq!(events, all_events, "event types with an example in the doc");
    assert_eq!(
        commands, all_commands,
        "command types with an example in the doc"
    );
}

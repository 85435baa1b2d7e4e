//! The protocol as data: a JSON Schema of every event and every command,
//! derived from the serde types in [`super::events`] and
//! [`super::commands`], and TypeScript declarations generated from that
//! schema. Both are committed (`docs/protocol.schema.json`,
//! `examples/runner/protocol.d.ts`) for proxies, front ends and the
//! reference runner; the test below fails when either is stale, and
//! `UPDATE_SCHEMA=1 cargo test --lib schema` rewrites them.
//!
//! Only tests build the schema: the derives cost the binary nothing.

use schemars::JsonSchema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

use super::commands::Command;
use super::events::Event;

/// The committed schema, relative to the crate root.
pub const SCHEMA_PATH: &str = "docs/protocol.schema.json";
/// The committed TypeScript declarations, relative to the crate root.
pub const TYPES_PATH: &str = "examples/runner/protocol.d.ts";

/// The whole protocol as one JSON Schema (draft 2020-12): `$defs/Event` is
/// one stdout line, `$defs/Command` one stdin line, the root either. Events
/// are described as they are written (the serialize side of serde: a field
/// that is always written is required, `_seq` and `ts` included), commands
/// as they are read (the deserialize side: what the agent accepts).
pub fn protocol_schema() -> Result<Value, String> {
    let mut defs = Map::new();
    let event = definitions::<Event>(SchemaSettings::draft2020_12().for_serialize(), &mut defs)?;
    let command =
        definitions::<Command>(SchemaSettings::draft2020_12().for_deserialize(), &mut defs)?;
    let event_schema = defs
        .get_mut(&event)
        .ok_or_else(|| format!("no definition {event}"))?;
    describe_lines(event_schema)?;
    defs.insert(
        "Seq".into(),
        json!({
            "description": "The line's number: 1, 2, 3, ... one more for every line, no gaps; a restored session goes on counting.",
            "type": "integer",
            "minimum": 1
        }),
    );
    defs.insert(
        "Timestamp".into(),
        json!({
            "description": "When the line was written: RFC 3339, UTC, milliseconds (2026-11-30T12:37:41.368Z).",
            "type": "string",
            "format": "date-time",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"
        }),
    );
    // Event and Command first, the types they use after them by name: a
    // stable order, whatever order the derives visit them in.
    let mut sorted = Map::new();
    for name in [&event, &command] {
        if let Some(schema) = defs.remove(name.as_str()) {
            sorted.insert(name.clone(), schema);
        }
    }
    let mut rest: Vec<(String, Value)> = defs.into_iter().collect();
    rest.sort_by(|a, b| a.0.cmp(&b.0));
    sorted.extend(rest);
    Ok(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agent wire protocol",
        "description": format!(
            "Version {} of the protocol of `agent` (docs/protocol.md). `#/$defs/Event` is one line on stdout, `#/$defs/Command` one line on stdin; the root accepts either. Generated from the Rust types by `UPDATE_SCHEMA=1 cargo test --lib schema`: do not edit.",
            super::events::PROTOCOL_VERSION
        ),
        "oneOf": [
            {"$ref": format!("#/$defs/{event}")},
            {"$ref": format!("#/$defs/{command}")}
        ],
        "$defs": sorted
    }))
}

/// Adds the definitions `T` needs to `defs` and returns `T`'s own name. A
/// type that both sides use must come out the same on both.
fn definitions<T: JsonSchema>(
    settings: SchemaSettings,
    defs: &mut Map<String, Value>,
) -> Result<String, String> {
    let mut generator = SchemaGenerator::new(settings);
    generator.subschema_for::<T>();
    let name = T::schema_name().into_owned();
    for (key, schema) in generator.take_definitions(true) {
        match defs.get(&key) {
            Some(known) if *known != schema => {
                return Err(format!(
                    "{key} has one schema as an event and another as a command: {known} vs {schema}"
                ));
            }
            _ => {
                defs.insert(key, schema);
            }
        }
    }
    Ok(name)
}

/// What the serde types do not say about an event line, added to each
/// variant of the event schema; the one place the schema says more than
/// the derive:
///
/// - the writer ([`super::writer::stamp`]) puts `_seq` and `ts` after
///   `type` on every line: they become required properties, in the order of
///   the line;
/// - an optional field is left out when it has no value, never written as
///   `null` (every optional event field is `skip_serializing_if =
///   "Option::is_none"`; a field written as `null`, like `deadline`, is
///   required): the null goes from its type.
fn describe_lines(event: &mut Value) -> Result<(), String> {
    let variants = event
        .get_mut("oneOf")
        .and_then(Value::as_array_mut)
        .ok_or("the event schema is not a oneOf of variants")?;
    for variant in variants {
        let variant = variant
            .as_object_mut()
            .ok_or("an event variant is not an object schema")?;
        let required = variant
            .get_mut("required")
            .and_then(Value::as_array_mut)
            .ok_or("an event variant has no required list")?;
        if required.first() != Some(&json!("type")) {
            return Err("an event variant does not require `type` first".into());
        }
        required.splice(1..1, [json!("_seq"), json!("ts")]);
        let required = required.clone();
        let properties = variant
            .get_mut("properties")
            .and_then(Value::as_object_mut)
            .ok_or("an event variant has no properties")?;
        let mut stamped = Map::new();
        let tag = properties
            .shift_remove("type")
            .ok_or("an event variant has no type")?;
        stamped.insert("type".into(), tag);
        stamped.insert("_seq".into(), json!({"$ref": "#/$defs/Seq"}));
        stamped.insert("ts".into(), json!({"$ref": "#/$defs/Timestamp"}));
        for (key, mut property) in std::mem::take(properties) {
            if !required.contains(&json!(key)) {
                drop_null(&mut property);
            }
            stamped.insert(key, property);
        }
        *properties = stamped;
    }
    Ok(())
}

/// `{"type": ["string", "null"]}` to `{"type": "string"}`, and
/// `{"anyOf": [{"$ref": ...}, {"type": "null"}]}` to the `$ref`.
fn drop_null(property: &mut Value) {
    let null = json!({"type": "null"});
    if let Some(types) = property.get_mut("type").and_then(Value::as_array_mut) {
        types.retain(|kind| kind != "null");
        if let [single] = types.as_slice() {
            let single = single.clone();
            property["type"] = single;
        }
    } else if let Some(members) = property.get_mut("anyOf").and_then(Value::as_array_mut) {
        members.retain(|member| *member != null);
        if let [Value::Object(single)] = members.as_slice() {
            let single = single.clone();
            if let Some(object) = property.as_object_mut() {
                object.shift_remove("anyOf");
                object.extend(single);
            }
        }
    }
}

fn pretty(schema: &Value) -> Result<String, String> {
    let mut text = serde_json::to_string_pretty(schema).map_err(|err| err.to_string())?;
    text.push('\n');
    Ok(text)
}

/// TypeScript declarations for the definitions of the schema: a string
/// enum becomes a union of literals, an object an interface, a `oneOf` of
/// objects tagged by `type` (`Event`, `Command`) one interface per variant
/// (`SessionStartEvent`, ..., named by its tag) and their union. Only the
/// keywords the derives emit are known; any other is an error, so a schema
/// the declarations cannot express fails the test instead of going out as
/// a wrong type. Properties a schema leaves open (`additionalProperties`
/// absent, as for commands, whose unknown fields the agent ignores) get no
/// index signature: the declarations list the fields that mean something.
mod typescript {
    use serde_json::{Map, Value};

    const KNOWN: [&str; 16] = [
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "oneOf",
        "anyOf",
        "$ref",
        "description",
        "default",
        "format",
        "minimum",
        "maximum",
        "pattern",
    ];

    const HEADER: &str = "\
// The agent's wire protocol (docs/protocol.md) as TypeScript declarations.
// Generated from docs/protocol.schema.json, itself generated from the Rust
// types in src/protocol/, by `UPDATE_SCHEMA=1 cargo test --lib schema`.
// Do not edit: that test fails while this file differs from what it makes.
";

    pub fn declarations(schema: &Value) -> Result<String, String> {
        let defs = schema
            .get("$defs")
            .and_then(Value::as_object)
            .ok_or("the schema has no $defs")?;
        let mut out = String::from(HEADER);
        for (name, def) in defs {
            out.push('\n');
            declare(&mut out, name, def).map_err(|err| format!("{name}: {err}"))?;
        }
        Ok(out)
    }

    fn declare(out: &mut String, name: &str, def: &Value) -> Result<(), String> {
        doc(out, def, "");
        if let Some(variants) = tagged_variants(def) {
            let mut names = Vec::new();
            let mut interfaces = String::new();
            for (tag, variant) in variants {
                let variant_name = format!("{}{name}", pascal(tag));
                interfaces.push('\n');
                doc(&mut interfaces, variant, "");
                interface(&mut interfaces, &variant_name, variant)?;
                names.push(variant_name);
            }
            alias(out, name, names);
            out.push_str(&interfaces);
            Ok(())
        } else if def.get("properties").is_some() {
            interface(out, name, def)
        } else {
            check_keywords(def)?;
            let members = match (def.get("enum"), def.get("oneOf")) {
                (Some(Value::Array(values)), _) => values.iter().map(Value::to_string).collect(),
                (_, Some(Value::Array(members))) => {
                    members.iter().map(expression).collect::<Result<_, _>>()?
                }
                _ => vec![expression(def)?],
            };
            alias(out, name, members);
            Ok(())
        }
    }

    /// `export type NAME = A | B;`, one member a line when that is long.
    fn alias(out: &mut String, name: &str, members: Vec<String>) {
        let line = format!("export type {name} = {};\n", union(members.clone()));
        if line.len() <= 80 || members.len() < 2 {
            out.push_str(&line);
            return;
        }
        out.push_str(&format!("export type {name} ="));
        for member in members {
            out.push_str(&format!("\n  | {member}"));
        }
        out.push_str(";\n");
    }

    /// The variants of a `oneOf` of objects that each have a `type` const.
    fn tagged_variants(def: &Value) -> Option<Vec<(&str, &Value)>> {
        def.get("oneOf")?
            .as_array()?
            .iter()
            .map(|variant| {
                let tag = variant.get("properties")?.get("type")?.get("const")?;
                Some((tag.as_str()?, variant))
            })
            .collect()
    }

    fn interface(out: &mut String, name: &str, schema: &Value) -> Result<(), String> {
        check_keywords(schema)?;
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .ok_or("an object without properties")?;
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        out.push_str(&format!("export interface {name} {{\n"));
        members(out, properties, &required, "  ")?;
        out.push_str("}\n");
        Ok(())
    }

    fn members(
        out: &mut String,
        properties: &Map<String, Value>,
        required: &[Value],
        indent: &str,
    ) -> Result<(), String> {
        for (key, property) in properties {
            doc(out, property, indent);
            let optional = if required.iter().any(|name| name == key) {
                ""
            } else {
                "?"
            };
            let key_text = if is_identifier(key) {
                key.clone()
            } else {
                Value::from(key.as_str()).to_string()
            };
            let kind = expression(property).map_err(|err| format!("{key}: {err}"))?;
            out.push_str(&format!("{indent}{key_text}{optional}: {kind};\n"));
        }
        Ok(())
    }

    /// The type of a schema, as a TypeScript type expression.
    fn expression(schema: &Value) -> Result<String, String> {
        let object = match schema {
            Value::Bool(true) => return Ok("unknown".into()),
            Value::Bool(false) => return Ok("never".into()),
            Value::Object(object) => object,
            other => return Err(format!("not a schema: {other}")),
        };
        check_keywords(schema)?;
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let name = reference
                .strip_prefix("#/$defs/")
                .ok_or_else(|| format!("a $ref outside $defs: {reference}"))?;
            return Ok(name.to_owned());
        }
        if let Some(value) = object.get("const") {
            return Ok(value.to_string());
        }
        if let Some(values) = object.get("enum").and_then(Value::as_array) {
            return Ok(union(values.iter().map(Value::to_string).collect()));
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(members) = object.get(keyword).and_then(Value::as_array) {
                let members = members.iter().map(expression).collect::<Result<_, _>>()?;
                return Ok(union(members));
            }
        }
        let kinds: Vec<&str> = match object.get("type") {
            None => return Ok("unknown".into()),
            Some(Value::String(kind)) => vec![kind],
            Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
            Some(other) => return Err(format!("a type that is not a name: {other}")),
        };
        let kinds = kinds
            .into_iter()
            .map(|kind| simple(kind, object))
            .collect::<Result<_, _>>()?;
        Ok(union(kinds))
    }

    fn simple(kind: &str, object: &Map<String, Value>) -> Result<String, String> {
        Ok(match kind {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => {
                let item = match object.get("items") {
                    Some(items) => expression(items)?,
                    None => "unknown".into(),
                };
                if item.contains(' ') {
                    format!("Array<{item}>")
                } else {
                    format!("{item}[]")
                }
            }
            "object" => match object.get("properties").and_then(Value::as_object) {
                Some(properties) => {
                    let required = object
                        .get("required")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    let mut inline = String::from("{\n");
                    members(&mut inline, properties, &required, "    ")?;
                    inline.push_str("  }");
                    inline
                }
                None => match object.get("additionalProperties") {
                    Some(Value::Bool(false)) => "Record<string, never>".into(),
                    Some(Value::Object(_)) => format!(
                        "Record<string, {}>",
                        expression(&object["additionalProperties"])?
                    ),
                    _ => "Record<string, unknown>".into(),
                },
            },
            other => return Err(format!("unknown type {other}")),
        })
    }

    fn union(members: Vec<String>) -> String {
        members.join(" | ")
    }

    fn check_keywords(schema: &Value) -> Result<(), String> {
        let Some(object) = schema.as_object() else {
            return Ok(());
        };
        match object.keys().find(|key| !KNOWN.contains(&key.as_str())) {
            Some(key) => Err(format!(
                "the keyword {key} has no TypeScript rendering here"
            )),
            None => Ok(()),
        }
    }

    /// `description` as a JSDoc comment.
    fn doc(out: &mut String, schema: &Value, indent: &str) {
        let Some(text) = schema.get("description").and_then(Value::as_str) else {
            return;
        };
        let text = text.replace("*/", "*\\/");
        out.push_str(&format!("{indent}/**\n"));
        for line in text.lines() {
            if line.is_empty() {
                out.push_str(&format!("{indent} *\n"));
            } else {
                out.push_str(&format!("{indent} * {line}\n"));
            }
        }
        out.push_str(&format!("{indent} */\n"));
    }

    fn is_identifier(key: &str) -> bool {
        let mut chars = key.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    }

    /// `session-start` to `SessionStart`.
    fn pascal(tag: &str) -> String {
        tag.split(['-', '_'])
            .map(|word| {
                let mut chars = word.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            })
            .collect()
    }
}

/// The committed files against the types; `UPDATE_SCHEMA=1` rewrites them.
#[test]
fn committed_schema_and_declarations_are_up_to_date() {
    let schema = protocol_schema().unwrap();
    let fresh = [
        (SCHEMA_PATH, pretty(&schema).unwrap()),
        (TYPES_PATH, typescript::declarations(&schema).unwrap()),
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let update = std::env::var("UPDATE_SCHEMA").is_ok_and(|value| value == "1");
    let mut stale = Vec::new();
    for (path, text) in fresh {
        let file = root.join(path);
        let committed = std::fs::read_to_string(&file).unwrap_or_default();
        if committed == text {
            continue;
        }
        if update {
            std::fs::write(&file, &text).unwrap();
            eprintln!("wrote {path}");
            continue;
        }
        let diff = similar::TextDiff::from_lines(&committed, &text)
            .unified_diff()
            .context_radius(2)
            .header(&format!("{path} (committed)"), "generated")
            .to_string();
        let shown: Vec<&str> = diff.lines().take(60).collect();
        stale.push(format!("{}\n{}", path, shown.join("\n")));
    }
    assert!(
        stale.is_empty(),
        "the committed files differ from what the types in src/protocol/ give:\n\n{}\n\n\
         Run `UPDATE_SCHEMA=1 cargo test --lib schema` and commit the files it writes.",
        stale.join("\n\n")
    );
}

/// `_seq` and `ts` come right after `type`, required, in every event; a
/// field written only when it has a value is never `null`.
#[test]
fn event_variants_carry_the_stamp() {
    let schema = protocol_schema().unwrap();
    let variants = schema["$defs"]["Event"]["oneOf"].as_array().unwrap();
    assert!(!variants.is_empty());
    for variant in variants {
        let keys: Vec<&String> = variant["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys[..3], ["type", "_seq", "ts"], "{variant}");
        assert_eq!(
            variant["required"].as_array().unwrap()[..3],
            ["type", "_seq", "ts"]
        );
        assert_eq!(variant["additionalProperties"], json!(false));
    }
    let of_type = |tag: &str| {
        let variant = variants
            .iter()
            .find(|variant| variant["properties"]["type"]["const"] == tag);
        variant.unwrap()["properties"].clone()
    };
    assert_eq!(of_type("activity")["tool_call_id"]["type"], "string");
    assert_eq!(
        of_type("hitl-request")["deadline"]["type"],
        json!(["string", "null"])
    );
}

#[test]
fn declaration_names_come_from_the_tags() {
    let schema = protocol_schema().unwrap();
    let text = typescript::declarations(&schema).unwrap();
    for line in [
        "export interface SessionStartEvent {",
        "  | ToolResultEvent\n",
        "export interface HitlResponseCommand {",
        "  default_decision: Decision;",
        "  deadline: string | null;",
        "  tool_call_id?: string;",
        "export type Decision = \"approve\" | \"reject\" | \"edit\";",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
}

use serde_json::{Map, Value, json};

use super::*;

/// A value the schema allows, built from the schema alone.
fn sample(schema: &Value, all_properties: bool) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|values| values.first()) {
        return first.clone();
    }
    match schema["type"].as_str() {
        Some("string") => json!("x"),
        Some("integer") => match &schema["minimum"] {
            Value::Null => json!(1),
            minimum => minimum.clone(),
        },
        Some("boolean") => json!(true),
        Some("array") => json!([sample(&schema["items"], all_properties)]),
        Some("object") => {
            let required = required(schema);
            let mut object = Map::new();
            for (name, property) in properties(schema) {
                if all_properties || required.contains(&name.as_str()) {
                    object.insert(name.clone(), sample(property, all_properties));
                }
            }
            Value::Object(object)
        }
        other => panic!("no sample for the type {other:?} in {schema}"),
    }
}

/// A value of another JSON type than the schema asks for.
fn wrong_type(schema: &Value) -> Value {
    match schema["type"].as_str() {
        Some("string") => json!(7),
        _ => json!("seven"),
    }
}

fn properties(schema: &Value) -> Vec<(&String, &Value)> {
    schema["properties"]
        .as_object()
        .map(|properties| properties.iter().collect())
        .unwrap_or_default()
}

fn required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[test]
fn schemas_match_their_structs() {
    for &tool in Tool::ALL {
        let schema = tool.spec().parameters;
        let name = tool.name();
        assert_eq!(schema["type"], "object", "{name}");
        assert_eq!(schema["additionalProperties"], false, "{name}: {schema}");

        // What the schema allows, the struct takes: every property, and
        // the required ones alone.
        for all in [true, false] {
            let args = sample(&schema, all);
            let parsed = tool.parse(&args);
            assert!(parsed.is_ok(), "{name} refuses {args}: {parsed:?}");
            assert_eq!(parsed.ok().and_then(|call| call.tool()), Some(tool));
        }

        // What the schema refuses, the struct refuses: an unknown field,
        // a missing required one, a property of the wrong type.
        let mut extra = sample(&schema, true);
        extra["surprise"] = json!(1);
        assert!(tool.parse(&extra).is_err(), "{name} takes an unknown field");
        for field in required(&schema) {
            let mut args = sample(&schema, true);
            args.as_object_mut().map(|object| object.remove(field));
            assert!(
                tool.parse(&args).is_err(),
                "{name} takes {args} without {field}"
            );
        }
        for (field, property) in properties(&schema) {
            let mut args = sample(&schema, false);
            args[field.as_str()] = wrong_type(property);
            assert!(tool.parse(&args).is_err(), "{name} takes {args}");
        }
    }
}

#[test]
fn names_are_unique_and_each_parses_to_its_own_variant() {
    let mut names: Vec<_> = names().collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Tool::ALL.len());
    for &tool in Tool::ALL {
        assert_eq!(Tool::from_name(tool.name()), Some(tool));
    }
}

#[test]
fn the_offer_follows_mode_blocking_and_runtime_tools() {
    let runtime = |name: &str, read_only| RuntimeTool {
        spec: ToolSpec {
            name: name.to_owned(),
            description: "from a server".to_owned(),
            parameters: json!({"type": "object"}),
        },
        read_only,
    };
    let tools = vec![runtime("memory_read", true), runtime("memory_write", false)];
    let plan = Offer::new(Mode::Plan, &["grep".to_owned()], tools.clone());
    assert!(plan.builtin.contains(&Tool::WritePlan));
    assert!(!plan.builtin.contains(&Tool::WriteFile));
    assert!(!plan.names().contains(&"grep".to_owned()));
    assert!(plan.names().contains(&"memory_read".to_owned()));

    let refused = plan.parse("grep", &json!({"pattern": "x"}));
    assert!(matches!(refused, Err(BadCall(ref why)) if why.contains("blocked")));
    let unknown = plan.parse("write_file", &json!({"path": "a", "content": ""}));
    assert!(
        matches!(unknown, Err(BadCall(ref why)) if why.contains("unknown tool") && why.contains("plan mode"))
    );
    let outside = plan.parse("memory_read", &json!({"key": 1}));
    assert!(
        matches!(outside, Ok(Call::Runtime(ref call)) if call.name == "memory_read" && call.read_only)
    );
    assert!(
        !plan.names().contains(&"memory_write".to_owned()),
        "plan mode offers only the runtime tools that say they change nothing"
    );
    let normal = Offer::new(Mode::Normal, &["memory_read".to_owned()], tools);
    assert_eq!(normal.runtime.len(), 1);
    let writes = normal.parse("memory_write", &json!({}));
    assert!(matches!(writes, Ok(Call::Runtime(ref call)) if !call.read_only));
    assert!(
        matches!(normal.parse("memory_read", &json!({})), Err(BadCall(ref why)) if why.contains("blocked"))
    );

    let normal = Offer::new(Mode::Normal, &[], Vec::new());
    let call = normal.parse("exec", &json!({"command": "ls", "timeout_ms": 5}));
    assert!(matches!(call, Ok(Call::Exec(ref args)) if args.command == "ls"));
    let bad = normal.parse("exec", &json!({"command": 1}));
    assert!(matches!(bad, Err(BadCall(ref why)) if why.starts_with("bad arguments for exec")));
}

#[test]
fn actions_name_what_is_approved() {
    let offer = Offer::new(Mode::Normal, &[], Vec::new());
    let action = |name: &str, args: Value| match offer.parse(name, &args) {
        Ok(call) => call.action(&args),
        Err(BadCall(why)) => panic!("{why}"),
    };
    assert_eq!(
        action("exec", json!({"command": "git push"})),
        "run: git push"
    );
    assert_eq!(
        action("write_file", json!({"path": "a", "content": "x"})),
        "write a"
    );
    assert_eq!(
        action(
            "edit_file",
            json!({"path": "b", "old_string": "x", "new_string": "y"})
        ),
        "edit b"
    );
    assert_eq!(
        action("web_fetch", json!({"url": "https://e.x"})),
        "fetch https://e.x"
    );
    assert_eq!(action("read_file", json!({"path": "c"})), "read c");
    assert_eq!(
        action("glob", json!({"pattern": "*.rs"})),
        r#"glob {"pattern":"*.rs"}"#
    );
}

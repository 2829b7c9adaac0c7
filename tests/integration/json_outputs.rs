//! Every JSON output opens with its `format` and `version`, as docs/outputs.md lists them: each
//! command of that table is run here, and the table and the outputs must agree both ways.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common;
use serde_json::Value;

/// The (format, version) pairs of docs/outputs.md's JSON table.
fn documented() -> BTreeSet<(String, u64)> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/outputs.md")).unwrap();
    let table = text
        .split("## JSON outputs")
        .nth(1)
        .expect("docs/outputs.md has a JSON outputs section");
    table
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells[2].trim_matches('`').to_string(), cells[3].parse().unwrap())
        })
        .collect()
}

/// The (format, version) of each line of `output`, checking that they open every object and that
/// each object follows its format's schema.
fn formats(what: &str, output: &[u8]) -> Vec<(String, u64)> {
    let schemas = othello_course::json::schemas();
    let text = String::from_utf8_lossy(output);
    assert!(!text.trim().is_empty(), "{what} printed no JSON");
    text.lines()
        .map(|line| {
            assert!(
                line.starts_with("{\"format\":\"othello-") && line.contains(",\"version\":"),
                "{what}: an object that does not open with its format and version: {line}"
            );
            let object: serde_json::Value = serde_json::from_str(line).unwrap();
            let format = object["format"].as_str().unwrap().to_string();
            // The game log is read back by `replay`: its reader is its schema.
            if let Some((_, schema)) = schemas.iter().find(|(name, _)| *name == format) {
                let mut errors = Vec::new();
                check(schema, schema, &object, "", &mut errors);
                assert!(
                    errors.is_empty(),
                    "{what}: {format} against its schema: {errors:?}\n{line}"
                );
            } else {
                assert_eq!(format, "othello-game-log", "{what}: no schema for {format}");
            }
            (format, object["version"].as_u64().unwrap())
        })
        .collect()
}

/// Checks `value` against `schema`, the subset of JSON Schema that schemars writes (types,
/// properties and required ones, items, consts, enums, bounds, references, anyOf/oneOf/allOf),
/// adding what does not hold to `errors`, each with its place in the value.
pub(crate) fn check(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.strip_prefix("#/$defs/").expect("local references only");
        return check(root, &root["$defs"][name], value, at, errors);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema[key].as_array() {
            let count = options
                .iter()
                .filter(|option| {
                    let mut inner = Vec::new();
                    check(root, option, value, at, &mut inner);
                    inner.is_empty()
                })
                .count();
            if count == 0 || (key == "oneOf" && count > 1) {
                errors.push(format!("{at}: {count} of the {key} options fit"));
            }
        }
    }
    for part in schema["allOf"].as_array().into_iter().flatten() {
        check(root, part, value, at, errors);
    }
    if let Some(expected) = schema.get("const")
        && value != expected
    {
        errors.push(format!("{at}: {value} is not {expected}"));
    }
    if let Some(choices) = schema["enum"].as_array()
        && !choices.contains(value)
    {
        errors.push(format!("{at}: {value} is not one of {choices:?}"));
    }
    let actual = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !types.is_empty()
        && !types
            .iter()
            .any(|t| *t == actual || (*t == "number" && actual == "integer"))
    {
        errors.push(format!("{at}: a {actual} where {types:?} was expected"));
        return;
    }
    if let Some(number) = value.as_f64() {
        if schema["minimum"].as_f64().is_some_and(|min| number < min) {
            errors.push(format!("{at}: {number} is below the minimum"));
        }
        if schema["maximum"].as_f64().is_some_and(|max| number > max) {
            errors.push(format!("{at}: {number} is above the maximum"));
        }
    }
    if let Value::Object(fields) = value {
        for required in schema["required"].as_array().into_iter().flatten() {
            if !fields.contains_key(required.as_str().unwrap()) {
                errors.push(format!("{at}: {required} is missing"));
            }
        }
        for (name, field) in fields {
            match schema["properties"].get(name) {
                Some(property) => check(root, property, field, &format!("{at}/{name}"), errors),
                None if schema["additionalProperties"] == Value::Bool(false) => {
                    errors.push(format!("{at}: {name} is not a field of this object"))
                }
                None => {}
            }
        }
    }
    if let Value::Array(items) = value {
        if schema["minItems"]
            .as_u64()
            .is_some_and(|min| (items.len() as u64) < min)
            || schema["maxItems"].as_u64().is_some_and(|max| items.len() as u64 > max)
        {
            errors.push(format!("{at}: {} items", items.len()));
        }
        if !schema["items"].is_null() {
            for (i, item) in items.iter().enumerate() {
                check(root, &schema["items"], item, &format!("{at}/{i}"), errors);
            }
        }
    }
}

#[test]
fn the_schema_check_finds_what_does_not_fit() {
    let schema = serde_json::json!({
        "type": "object",
        "required": ["a"],
        "properties": {"a": {"type": "integer", "minimum": 0}, "b": {"$ref": "#/$defs/B"}},
        "$defs": {"B": {"type": ["string", "null"]}},
    });
    let errors = |value: Value| {
        let mut errors = Vec::new();
        check(&schema, &schema, &value, "", &mut errors);
        errors
    };
    assert!(errors(serde_json::json!({"a": 1, "b": "x"})).is_empty());
    assert!(errors(serde_json::json!({"a": 1, "b": null})).is_empty());
    assert_eq!(errors(serde_json::json!({"b": "x"})).len(), 1, "a missing");
    assert_eq!(errors(serde_json::json!({"a": -1})).len(), 1, "below the minimum");
    assert_eq!(errors(serde_json::json!({"a": 1, "b": 3})).len(), 1, "b a number");
    assert_eq!(errors(serde_json::json!({"a": "1"})).len(), 1, "a a string");
}

fn run(what: &str, args: &[&str]) -> Vec<(String, u64)> {
    let output = common::othello(args).output().unwrap();
    assert!(
        output.status.success() || output.status.code() == Some(1),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    formats(what, &output.stdout)
}

#[test]
fn every_json_output_names_its_documented_format_and_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let mut seen = BTreeSet::new();
    let log = path("games.jsonl");
    let near_end = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxooooooooooo.........";
    let runs: Vec<(&str, Vec<String>)> = vec![
        (
            "analyze a position",
            vec!["analyze".into(), near_end.into(), "x".into(), "--json".into()],
        ),
        (
            "analyze a game",
            vec![
                "analyze".into(),
                "f5d6c3d3c4".into(),
                "--depth".into(),
                "2".into(),
                "--json".into(),
            ],
        ),
        (
            "best",
            vec!["best".into(), "--depth".into(), "2".into(), "--json".into()],
        ),
        (
            "fullgame",
            vec!["fullgame".into(), "--depth".into(), "1".into(), "--json".into()],
        ),
        ("perft", vec!["perft".into(), "3".into(), "--json".into()]),
        (
            "solve",
            vec!["solve".into(), near_end.into(), "x".into(), "--json".into()],
        ),
        (
            "match",
            vec!["match", "random", "greedy", "--games", "2", "--json", "--log", &log]
                .into_iter()
                .map(String::from)
                .collect(),
        ),
        (
            "tournament",
            ["tournament", "random", "greedy", "--json"].map(String::from).to_vec(),
        ),
        (
            "lab4",
            ["lab4", "greedy", "--games", "2", "--json"].map(String::from).to_vec(),
        ),
    ];
    for (what, args) in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        seen.extend(run(what, &args));
    }
    seen.extend(formats("match --log", &std::fs::read(&log).unwrap()));

    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    let player = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/players/quickmove_player.py");
    std::fs::copy(&player, class.join("alice.py")).unwrap();
    seen.extend(run(
        "lab4 --class",
        &["lab4", "--class", class.to_str().unwrap(), "--games", "2", "--json"],
    ));

    let cases = path("cases");
    common::othello(["cases", "--count", "2", "--seed", "1", &cases])
        .assert()
        .success();
    let report = path("grade.jsonl");
    let othello = assert_cmd::cargo::cargo_bin("othello");
    common::othello(["grade", &cases, "--json", &report, "--"])
        .arg(&othello)
        .assert()
        .success();
    let grade = formats("grade --json", &std::fs::read(&report).unwrap());
    assert_eq!(grade.len(), 3, "two cases and a summary: {grade:?}");
    seen.extend(grade);

    assert_eq!(
        seen,
        documented(),
        "what the commands print, and what docs/outputs.md lists"
    );
}

/// docs/schemas/ holds the schema of every format as the code gives it; `UPDATE_SCHEMAS=1 cargo test
/// json_outputs` writes them again after a reviewed change.
#[test]
fn the_documented_schemas_are_the_codes() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schemas");
    for (format, schema) in othello_course::json::schemas()
        .into_iter()
        .chain(othello_server::schemas())
    {
        let path = folder.join(format!("{format}.json"));
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        if std::env::var_os("UPDATE_SCHEMAS").is_some() {
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let documented = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            documented == text,
            "{} is not the schema of {format} (UPDATE_SCHEMAS=1 cargo test json_outputs writes it)",
            path.display()
        );
    }
}

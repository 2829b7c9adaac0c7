//! Every JSON output opens with its `format` and `version`, as docs/outputs.md lists them: each
//! command of that table is run here, and the table and the outputs must agree both ways.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common;

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
    let schemas = othello::json::schemas();
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
                let validator = jsonschema::validator_for(schema).unwrap();
                let errors: Vec<String> = validator.iter_errors(&object).map(|e| e.to_string()).collect();
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
    for (format, schema) in othello::json::schemas() {
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

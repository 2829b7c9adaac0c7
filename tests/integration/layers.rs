//! The workspace's layering, as Cargo sees it (docs/architecture.md): each crate depends only on the
//! crates of the layers below it, the rules core and the plumbing on none of the workspace, the
//! sandbox on nothing that knows Othello, and only the `othello` package (the command line) on clap.
//! Cargo itself refuses a cycle; this test holds the direction.

use std::collections::{BTreeMap, BTreeSet};

/// Each crate of the workspace and the crates of it that it may use.
const ALLOWED: [(&str, &[&str]); 8] = [
    ("othello-core", &[]),
    ("othello-plumbing", &[]),
    ("othello-sandbox", &["othello-plumbing"]),
    ("othello-engine", &["othello-core", "othello-plumbing"]),
    ("othello-protocol", &["othello-core", "othello-engine"]),
    (
        "othello-course",
        &["othello-core", "othello-plumbing", "othello-sandbox", "othello-engine"],
    ),
    (
        "othello-server",
        &[
            "othello-core",
            "othello-plumbing",
            "othello-sandbox",
            "othello-engine",
            "othello-course",
        ],
    ),
    (
        "othello",
        &[
            "othello-core",
            "othello-plumbing",
            "othello-sandbox",
            "othello-engine",
            "othello-course",
            "othello-protocol",
            "othello-server",
        ],
    ),
];

/// Every package of the workspace with the names of its normal (not dev or build) dependencies.
fn workspace() -> BTreeMap<String, BTreeSet<String>> {
    let output = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            let dependencies = package["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect();
            (package["name"].as_str().unwrap().to_string(), dependencies)
        })
        .collect()
}

#[test]
fn each_crate_uses_only_the_layers_below_it() {
    let packages = workspace();
    let names: BTreeSet<&str> = packages.keys().map(String::as_str).collect();
    let listed: BTreeSet<&str> = ALLOWED.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names, listed,
        "a crate of the workspace is not in ALLOWED (and docs/architecture.md)"
    );
    for (name, allowed) in ALLOWED {
        let ours: BTreeSet<&str> = packages[name]
            .iter()
            .map(String::as_str)
            .filter(|d| names.contains(d))
            .collect();
        let extra: Vec<&&str> = ours.iter().filter(|d| !allowed.contains(d)).collect();
        assert!(extra.is_empty(), "{name} uses {extra:?}, above its layer");
    }
}

#[test]
fn only_the_command_line_depends_on_clap() {
    for (name, dependencies) in workspace() {
        if name != "othello" {
            let clap: Vec<&String> = dependencies.iter().filter(|d| d.starts_with("clap")).collect();
            assert!(clap.is_empty(), "{name} depends on {clap:?}");
        }
    }
}

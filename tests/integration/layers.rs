//! The crate's layering, checked from its sources: each top-level module belongs to one layer and
//! imports only from its own layer or those below (docs/architecture.md), and no two modules import
//! each other, directly or through others (a module using its own parent or child aside).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, bottom first.
const LAYERS: [(&str, &[&str]); 7] = [
    (
        "rules core",
        &[
            "square", "bitboard", "movegen", "cpu", "board", "color", "position", "value", "player", "game",
            "notation", "rng", "log",
        ],
    ),
    ("plumbing", &["files", "printable", "scratch", "parallel", "runner"]),
    ("evaluation and search", &["stability", "eval", "patterns", "search"]),
    ("players", &["strategy", "programs", "matches", "training"]),
    ("course tools and protocols", &["course", "protocol"]),
    ("outputs", &["json"]),
    ("command line", &["cli"]),
];

fn layer_of(module: &str) -> usize {
    let top = module.split("::").next().unwrap();
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&top))
        .unwrap_or_else(|| panic!("module {top} is in no layer: add it to LAYERS and docs/architecture.md"))
}

/// Every module of the crate (`course::grade`), from the files under src/.
fn modules(src: &Path) -> BTreeMap<String, std::path::PathBuf> {
    let mut found = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            let name = parts.join("::");
            if !["lib", "main"].contains(&name.as_str()) {
                found.insert(name, path);
            }
        }
    }
    found
}

/// The modules a file's code (its tests left out) uses: `crate::a::b` and `super::x` paths, each
/// resolved to the longest module name it starts with.
fn imports(module: &str, path: &Path, known: &BTreeMap<String, std::path::PathBuf>) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap();
    let mut used = BTreeSet::new();
    // `super` is the module's parent, for `a/b.rs` and `a/b/mod.rs` alike.
    let mut parent: Vec<&str> = module.split("::").collect();
    parent.pop();
    for line in code.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
        for (prefix, base) in [("crate::", Vec::new()), ("super::", parent.clone())] {
            let mut rest = line;
            while let Some(at) = rest.find(prefix) {
                let after = &rest[at + prefix.len()..];
                let segments: Vec<&str> = after
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                    .next()
                    .unwrap()
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .collect();
                let mut full: Vec<&str> = base.clone();
                full.extend(&segments);
                for take in (1..=full.len()).rev() {
                    let candidate = full[..take].join("::");
                    if known.contains_key(&candidate) {
                        used.insert(candidate);
                        break;
                    }
                }
                rest = &after[1.min(after.len())..];
            }
        }
    }
    used.remove(module);
    used
}

fn related(a: &str, b: &str) -> bool {
    a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::"))
}

#[test]
fn no_module_imports_from_a_higher_layer_or_in_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let known = modules(&src);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut upward = Vec::new();
    for (module, path) in &known {
        let used = imports(module, path, &known);
        for target in &used {
            if layer_of(target) > layer_of(module) {
                upward.push(format!(
                    "{module} ({}) uses {target} ({})",
                    LAYERS[layer_of(module)].0,
                    LAYERS[layer_of(target)].0
                ));
            }
        }
        graph.insert(
            module.clone(),
            used.into_iter().filter(|t| !related(module, t)).collect(),
        );
    }
    assert!(upward.is_empty(), "imports that run upward:\n{}", upward.join("\n"));
    // A circle: a path from a module back to itself.
    let mut circles = Vec::new();
    for start in graph.keys() {
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((node, trail)) = stack.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if next == start {
                    circles.push(format!("{} -> {start}", trail.join(" -> ")));
                } else if seen.insert(next.clone()) {
                    let mut longer = trail.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    assert!(circles.is_empty(), "modules in a circle:\n{}", circles.join("\n"));
}

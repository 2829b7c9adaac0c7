//! Every golden transcript in fixtures/lab/ through the binary: NAME.args (one argument per line)
//! gives NAME.out byte for byte, the exit status in NAME.status (0 if absent) and, for errors, one
//! stderr line matching the pattern in NAME.err.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;

struct Case {
    name: String,
    args: Vec<String>,
    stdout: String,
    status: i32,
    stderr_pattern: Option<Regex>,
}

/// One argument per line; an empty file is no arguments and an empty line an empty argument.
fn read_args(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    text.strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .map(str::to_string)
        .collect()
}

fn load_cases(dir: &Path) -> Vec<Case> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .expect("the fixture folder is readable")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "args"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|args_path| {
            let read = |ext: &str| fs::read_to_string(args_path.with_extension(ext)).ok();
            let name = args_path.file_stem().unwrap().to_string_lossy().into_owned();
            Case {
                args: read_args(&read("args").unwrap()),
                stdout: read("out").unwrap_or_else(|| panic!("{name}.out is missing")),
                status: read("status").map_or(0, |s| s.trim().parse().expect("a numeric status")),
                stderr_pattern: read("err").map(|p| Regex::new(p.trim_end()).expect("a valid stderr pattern")),
                name,
            }
        })
        .collect()
}

/// The first differing line, shown from both sides: enough to see what changed.
fn first_difference(expected: &str, actual: &str) -> String {
    let (mut e, mut a) = (expected.split_inclusive('\n'), actual.split_inclusive('\n'));
    for line in 1.. {
        match (e.next(), a.next()) {
            (None, None) => break,
            (x, y) if x != y => return format!("line {line}:\n  expected {x:?}\n  actual   {y:?}"),
            _ => {}
        }
    }
    String::from("no difference")
}

#[test]
fn golden_lab_transcripts() {
    let cases = load_cases(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lab"));
    assert!(cases.len() >= 30, "only {} cases found", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let output = common::othello(&case.args).output().expect("the binary runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let status = output.status.code();
        if case.status == 2 && !stdout.is_empty() {
            failures.push(format!("{}: a bad argument must leave stdout empty", case.name));
        }
        if stdout != case.stdout {
            failures.push(format!(
                "{}: stdout differs at {}",
                case.name,
                first_difference(&case.stdout, &stdout)
            ));
        }
        if status != Some(case.status) {
            failures.push(format!(
                "{}: exit status {status:?}, expected {}",
                case.name, case.status
            ));
        }
        match &case.stderr_pattern {
            None if !stderr.is_empty() => failures.push(format!("{}: unexpected stderr {stderr:?}", case.name)),
            Some(pattern) if !pattern.is_match(&stderr) || stderr.lines().count() != 1 => failures.push(format!(
                "{}: stderr {stderr:?} is not one line matching {pattern}",
                case.name
            )),
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

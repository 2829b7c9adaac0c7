//! Every golden transcript in fixtures/lab/ through the binary: NAME.args (one argument per line)
//! gives NAME.out byte for byte, the exit status in NAME.status (0 if absent) and, for errors, one
//! stderr line matching the pattern in NAME.err.

use crate::common;

use std::path::Path;

use othello_course::grade::load_cases;

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
    let cases = load_cases(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lab")).expect("the golden cases load");
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

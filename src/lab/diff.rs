//! Comparing two lab transcripts: byte for byte, or the tolerant way the course's graders read
//! them. A difference is reported by snapshot, part (A-E) and line, with both lines shown.

use super::transcript::{self, LineRole, Part, Reading};

/// The first difference between two transcripts, ready to print; `None` when they agree.
pub fn strict(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let (_, expected_roles) = transcript::read(expected);
    let (_, actual_roles) = transcript::read(actual);
    let mut expected_lines = expected.split_inclusive('\n');
    let mut actual_lines = actual.split_inclusive('\n');
    for index in 0.. {
        let (e, a) = (expected_lines.next(), actual_lines.next());
        if e == a {
            continue;
        }
        let role = expected_roles
            .get(index)
            .copied()
            .flatten()
            .or(actual_roles.get(index).copied().flatten());
        return Some(format!(
            "{} (line {}):\n  expected: {}\n  actual:   {}",
            describe(role),
            index + 1,
            shown(e),
            shown(a)
        ));
    }
    unreachable!("different texts differ on some line")
}

/// The first difference a tolerant grader would see; `None` when they agree.
pub fn tolerant(expected: &str, actual: &str) -> Option<String> {
    let (expected_readings, _) = transcript::read(expected);
    let (actual_readings, _) = transcript::read(actual);
    let expected_lines: Vec<&str> = expected.lines().collect();
    let actual_lines: Vec<&str> = actual.lines().collect();
    let line_text =
        |lines: &[&str], number: Option<usize>| number.and_then(|n| lines.get(n - 1)).map(|l| format!("{l:?}"));
    for (k, (e, a)) in expected_readings.iter().zip(&actual_readings).enumerate() {
        let Some((part, row)) = first_tolerant_difference(e, a) else {
            continue;
        };
        let line_of = |reading: &Reading| match part {
            Part::B => reading.line_of(Part::B).map(|first| first + row.saturating_sub(1)),
            _ => reading.line_of(part),
        };
        let (el, al) = (line_of(e), line_of(a));
        let row_text = if part == Part::B {
            format!(", row {row}")
        } else {
            String::new()
        };
        return Some(format!(
            "snapshot {}, part {part:?}{row_text} (expected line {}, actual line {}):\n  expected: {}\n  actual:   {}",
            k + 1,
            el.map_or("-".to_string(), |n| n.to_string()),
            al.map_or("-".to_string(), |n| n.to_string()),
            line_text(&expected_lines, el).unwrap_or_else(|| "(missing)".to_string()),
            line_text(&actual_lines, al).unwrap_or_else(|| "(missing)".to_string()),
        ));
    }
    if expected_readings.len() != actual_readings.len() {
        return Some(format!(
            "the expected transcript has {} snapshots, the actual one {}",
            expected_readings.len(),
            actual_readings.len()
        ));
    }
    None
}

/// The first part (and board row) where two readings differ.
fn first_tolerant_difference(e: &Reading, a: &Reading) -> Option<(Part, usize)> {
    if e.played != a.played {
        return Some((Part::A, 0));
    }
    for row in 0..e.rows.len().max(a.rows.len()) {
        if e.rows.get(row) != a.rows.get(row) {
            return Some((Part::B, row + 1));
        }
    }
    if e.line_1d != a.line_1d {
        return Some((Part::D, 0));
    }
    if e.moves != a.moves {
        return Some((Part::E, 0));
    }
    None
}

fn describe(role: Option<LineRole>) -> String {
    match role {
        Some(LineRole {
            snapshot,
            part: Part::B,
            row,
        }) => format!("snapshot {snapshot}, part B, row {row}"),
        Some(LineRole { snapshot, part, .. }) => format!("snapshot {snapshot}, part {part:?}"),
        None => "outside any snapshot".to_string(),
    }
}

fn shown(line: Option<&str>) -> String {
    line.map_or("(end of transcript)".to_string(), |l| format!("{l:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HANDOUT: &str = include_str!("../../fixtures/lab/handout-19-34-41.out");

    #[test]
    fn identical_transcripts_agree_both_ways() {
        assert_eq!(strict(HANDOUT, HANDOUT), None);
        assert_eq!(tolerant(HANDOUT, HANDOUT), None);
    }

    #[test]
    fn strict_reports_snapshot_part_and_line() {
        let changed = HANDOUT.replacen("Possible moves for o: 18, 20, 34", "Possible moves for o: 18, 20", 1);
        let report = strict(HANDOUT, &changed).unwrap();
        assert!(report.starts_with("snapshot 2, part E (line 24)"), "{report}");
        assert!(
            report.contains(r#"expected: "Possible moves for o: 18, 20, 34\n""#),
            "{report}"
        );
    }
}

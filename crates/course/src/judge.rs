//! Judging a lab transcript against the reference: byte for byte (`strict`), every snapshot as a
//! tolerant grader reads it (`tolerant`), or only what the course's Lab A grader reads (`course`).
//! Every difference is reported, by snapshot, part and line, with both sides shown.

use itertools::Itertools;
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use regex::Regex;

use super::transcript::{self, LineRole, Part, Reading, board_chars};
use othello_core::square::Square;

/// How a transcript is read; ordered from the strictest to the most lenient.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Judge {
    /// Stdout byte for byte (and, when grading, the exit status and the stderr pattern).
    Strict,
    /// Every snapshot and every part, forgiving layout: board characters only, `*` as `.`, case,
    /// spacing and punctuation ignored, counts on the 1D line or their own, moves as a set,
    /// `No moves possible` where no line is due.
    Tolerant,
    /// Only what the course's Lab A grader reads: the last 2D board and the last list of possible moves.
    Course,
    /// Lab 5's marks: an optimal move, the exact score, an optimal sequence (course/lab5.rs); it reads
    /// the case's position rather than the expected output.
    Lab5,
}

impl Judge {
    /// The judges that compare a transcript with the expected one.
    pub const ALL: [Judge; 3] = [Judge::Strict, Judge::Tolerant, Judge::Course];

    pub fn name(self) -> &'static str {
        match self {
            Judge::Strict => "strict",
            Judge::Tolerant => "tolerant",
            Judge::Course => "course",
            Judge::Lab5 => "lab5",
        }
    }

    /// Every difference between the reference and the transcript to judge (the lab5 judge reads a
    /// position, not a reference: see `course::lab5::mark`).
    pub fn compare(self, expected: &str, actual: &str) -> Vec<Difference> {
        match self {
            Judge::Strict => strict(expected, actual),
            Judge::Tolerant => tolerant(expected, actual),
            Judge::Course => course(expected, actual),
            Judge::Lab5 => vec![Difference {
                place: "the lab5 judge".to_string(),
                expected: "a position to mark the output against (othello grade reads it from the case)".to_string(),
                actual: "only a transcript".to_string(),
                text: None,
                boards: None,
            }],
        }
    }
}

impl fmt::Display for Judge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A judge name nobody knows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown judge {0:?}: expected strict, tolerant, course or lab5")]
pub struct UnknownJudge(pub String);

impl FromStr for Judge {
    type Err = UnknownJudge;

    fn from_str(text: &str) -> Result<Judge, UnknownJudge> {
        Judge::ALL
            .into_iter()
            .chain([Judge::Lab5])
            .find(|judge| judge.name() == text)
            .ok_or_else(|| UnknownJudge(text.to_string()))
    }
}

/// One place where a transcript differs from the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Where: snapshot, part, row and lines, in words.
    pub place: String,
    /// What the reference has there, and what the transcript has, ready to print.
    pub expected: String,
    pub actual: String,
    /// The text itself where the difference is one of lines (expected, actual; whole lines, `\n`
    /// kept): what machine reports give instead of the quoted `expected` and `actual`.
    pub text: Option<(String, String)>,
    /// The 2D boards of the snapshot where it lies (reference, transcript), rows of `xo.`, for drawing.
    pub boards: Option<(Vec<String>, Vec<String>)>,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:\n  expected: {}\n  actual:   {}",
            self.place, self.expected, self.actual
        )
    }
}

fn quoted(line: Option<&str>) -> String {
    line.map_or("(missing)".to_string(), |l| format!("{l:?}"))
}

/// Line by line, as a diff: each changed run of lines is one difference (a line counts with its
/// newline, so a missing final newline or a trailing space is a difference).
fn strict(expected: &str, actual: &str) -> Vec<Difference> {
    if expected == actual {
        return Vec::new();
    }
    let (_, expected_roles) = transcript::read(expected);
    let (_, actual_roles) = transcript::read(actual);
    let expected_lines: Vec<&str> = expected.split_inclusive('\n').collect();
    let actual_lines: Vec<&str> = actual.split_inclusive('\n').collect();
    // A program that printed a flood must not hold the grading up: past the deadline the diff is
    // coarser, never wrong.
    let deadline = Instant::now() + Duration::from_millis(500);
    let operations = similar::capture_diff_slices_deadline(
        similar::Algorithm::Myers,
        &expected_lines,
        &actual_lines,
        Some(deadline),
    );
    operations
        .iter()
        .filter(|op| op.tag() != similar::DiffTag::Equal)
        .map(|op| {
            let (old, new) = (op.old_range(), op.new_range());
            let role = expected_roles
                .get(old.start)
                .copied()
                .flatten()
                .or(actual_roles.get(new.start).copied().flatten());
            let lines = |range: &std::ops::Range<usize>| match range.len() {
                0 => format!("after line {}", range.start),
                1 => format!("line {}", range.start + 1),
                _ => format!("lines {}-{}", range.start + 1, range.end),
            };
            let place = if old == new {
                format!("{} ({})", describe(role), lines(&old))
            } else {
                format!("{} (expected {}, actual {})", describe(role), lines(&old), lines(&new))
            };
            Difference {
                place,
                expected: shown_lines(&expected_lines[old.clone()]),
                actual: shown_lines(&actual_lines[new.clone()]),
                text: Some((expected_lines[old].concat(), actual_lines[new].concat())),
                boards: None,
            }
        })
        .collect()
}

/// Lines quoted, at most a few of them.
fn shown_lines(lines: &[&str]) -> String {
    const SHOWN: usize = 3;
    if lines.is_empty() {
        return "(nothing)".to_string();
    }
    let mut text: Vec<String> = lines.iter().take(SHOWN).map(|l| format!("{l:?}")).collect();
    if lines.len() > SHOWN {
        text.push(format!("... ({} more lines)", lines.len() - SHOWN));
    }
    text.join(" ")
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

/// Snapshot by snapshot, part by part.
fn tolerant(expected: &str, actual: &str) -> Vec<Difference> {
    let (expected_readings, _) = transcript::read(expected);
    let (actual_readings, _) = transcript::read(actual);
    let expected_lines: Vec<&str> = expected.lines().collect();
    let actual_lines: Vec<&str> = actual.lines().collect();
    let mut differences = Vec::new();
    for (k, (e, a)) in expected_readings.iter().zip(&actual_readings).enumerate() {
        let boards = Some((
            marked(owned(e.board()), &e.move_squares()),
            marked(owned(a.board()), &a.move_squares()),
        ));
        let mut differ = |what: String, el: Option<usize>, al: Option<usize>| {
            fn raw<'a>(lines: &[&'a str], n: Option<usize>) -> Option<&'a str> {
                n.and_then(|n| lines.get(n - 1)).copied()
            }
            let line = |lines: &[&str], n: Option<usize>| quoted(raw(lines, n));
            let number = |n: Option<usize>| n.map_or("-".to_string(), |n| n.to_string());
            differences.push(Difference {
                place: format!(
                    "snapshot {}, {what} (expected line {}, actual line {})",
                    k + 1,
                    number(el),
                    number(al)
                ),
                expected: line(&expected_lines, el),
                actual: line(&actual_lines, al),
                text: Some((
                    raw(&expected_lines, el).unwrap_or_default().to_string(),
                    raw(&actual_lines, al).unwrap_or_default().to_string(),
                )),
                boards: boards.clone(),
            });
        };
        if e.played.map(|p| p.0) != a.played.map(|p| p.0) {
            differ("part A".to_string(), e.played.map(|p| p.1), a.played.map(|p| p.1));
        }
        for row in 0..e.rows.len().max(a.rows.len()) {
            let (er, ar) = (e.rows.get(row), a.rows.get(row));
            if er.map(|r| &r.0) != ar.map(|r| &r.0) {
                let squares = differing_squares(row, er.map(|r| r.0.as_str()), ar.map(|r| r.0.as_str()));
                differ(
                    format!("part B, row {}{squares}", row + 1),
                    er.map(|r| r.1),
                    ar.map(|r| r.1),
                );
            }
        }
        if e.board_1d.as_ref().map(|b| &b.0) != a.board_1d.as_ref().map(|b| &b.0) {
            differ(
                "part D, the 1D board".to_string(),
                e.board_1d.as_ref().map(|b| b.1),
                a.board_1d.as_ref().map(|b| b.1),
            );
        }
        if e.counts.map(|c| c.0) != a.counts.map(|c| c.0) {
            differ(
                "part D, the counts".to_string(),
                e.counts.map(|c| c.1),
                a.counts.map(|c| c.1),
            );
        }
        let side = |r: &Reading| r.moves.as_ref().and_then(|m| m.0.side);
        let sides_differ = side(e).is_some() && side(a).is_some() && side(e) != side(a);
        if e.move_squares() != a.move_squares() || sides_differ {
            let line = |r: &Reading| r.moves.as_ref().map(|m| m.1);
            differ("part E, the possible moves".to_string(), line(e), line(a));
        }
    }
    if expected_readings.len() != actual_readings.len() {
        differences.push(Difference {
            place: "the whole transcript".to_string(),
            expected: format!("{} snapshots", expected_readings.len()),
            actual: format!("{} snapshots", actual_readings.len()),
            text: None,
            boards: None,
        });
    }
    differences
}

fn owned(rows: Vec<&str>) -> Vec<String> {
    rows.into_iter().map(String::from).collect()
}

/// Board rows for drawing, with each listed possible move marked `*` on its empty square (the
/// readings drop the marks: the judges compare the lists, and a wrong list must show on the board).
fn marked(mut rows: Vec<String>, moves: &BTreeSet<u32>) -> Vec<String> {
    for &square in moves {
        let (row, col) = (square as usize / 8, square as usize % 8);
        if let Some(text) = rows.get_mut(row)
            && text.get(col..col + 1) == Some(".")
        {
            text.replace_range(col..col + 1, "*");
        }
    }
    rows
}

/// `" (d3, e3)"`: the squares of a board row that differ, when both rows are there.
fn differing_squares(row: usize, expected: Option<&str>, actual: Option<&str>) -> String {
    let (Some(expected), Some(actual)) = (expected, actual) else {
        return String::new();
    };
    let names: Vec<String> = expected
        .chars()
        .zip(actual.chars())
        .enumerate()
        .filter(|(_, (e, a))| e != a)
        .map(|(col, _)| Square::from_row_col(row as u8, col as u8).to_string())
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(" ({})", names.join(", "))
    }
}

/// The phrases the 2018 Lab A grader reads the moves after: `possible moves`, the singular `possible
/// move`, and `legal moves` (but not `valid moves`, which it rejects).
static POSSIBLE_MOVES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(possible|legal)\s+moves?").expect("valid pattern"));
static INTEGER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d+").expect("valid pattern"));

/// A transcript as the course's Lab A grader reads it.
#[derive(Debug, Default)]
pub struct CourseReading {
    /// The last eight lines that keep eight board characters, with the line of the first.
    pub board: Option<(Vec<String>, usize)>,
    /// Every run of eight such lines (the grader takes the right board wherever it is).
    pub all_boards: Vec<Vec<String>>,
    /// The integers after the last "possible moves" phrase, and its line.
    pub moves: Option<(BTreeSet<u32>, usize)>,
    /// Whether that phrase comes after the last board.
    pub moves_after_board: bool,
}

pub(crate) fn course_reading(text: &str) -> CourseReading {
    // `+` marks a possible move for the grader as `*` does.
    let rows: Vec<(String, usize)> = text
        .lines()
        .enumerate()
        .map(|(index, line)| (board_chars(&line.replace('+', "*")), index + 1))
        .filter(|(kept, _)| kept.len() == 8)
        .collect();
    let all_boards = rows
        .windows(8)
        .map(|window| window.iter().map(|(row, _)| row.clone()).collect())
        .collect();
    let board = (rows.len() >= 8).then(|| {
        let last = &rows[rows.len() - 8..];
        (last.iter().map(|(row, _)| row.clone()).collect(), last[0].1)
    });
    let lines: Vec<&str> = text.lines().collect();
    let moves = lines.iter().enumerate().rev().find_map(|(index, line)| {
        let phrase = POSSIBLE_MOVES.find_iter(line).last()?;
        let listed = INTEGER
            .find_iter(&line[phrase.end()..])
            .filter_map(|m| m.as_str().parse().ok())
            .collect();
        Some((listed, index + 1))
    });
    let last_board_line = board.as_ref().map_or(0, |(_, first)| first + 7);
    let moves_after_board = moves.as_ref().is_some_and(|(_, line)| *line > last_board_line);
    CourseReading {
        board,
        all_boards,
        moves,
        moves_after_board,
    }
}

/// The last board (found anywhere in the output, as the grader finds it), and the possible moves as
/// a set; where the reference's game is over, the transcript must list no move after its last board.
fn course(expected: &str, actual: &str) -> Vec<Difference> {
    let (e, a) = (course_reading(expected), course_reading(actual));
    let mut differences = Vec::new();
    let rows = |r: &CourseReading| r.board.as_ref().map(|b| b.0.clone()).unwrap_or_default();
    let listed = |r: &CourseReading| r.moves.as_ref().map(|m| m.0.clone()).unwrap_or_default();
    let boards = Some((marked(rows(&e), &listed(&e)), marked(rows(&a), &listed(&a))));
    let found = match &e.board {
        Some((board, _)) => a.all_boards.contains(board),
        None => a.board.is_none(),
    };
    if !found {
        let at = |r: &CourseReading| {
            r.board
                .as_ref()
                .map_or("no board".to_string(), |b| format!("line {}", b.1))
        };
        let (er, ar) = (rows(&e), rows(&a));
        let changed: Vec<String> = (0..8)
            .filter(|&row| er.get(row) != ar.get(row))
            .map(|row| {
                format!(
                    "row {}{}",
                    row + 1,
                    differing_squares(row, er.get(row).map(String::as_str), ar.get(row).map(String::as_str))
                )
            })
            .collect();
        differences.push(Difference {
            place: format!(
                "the last 2D board, not anywhere in the output ({}; expected {}, actual's last {})",
                changed.join(", "),
                at(&e),
                at(&a)
            ),
            expected: if er.is_empty() {
                "(no board)".to_string()
            } else {
                er.join("/")
            },
            actual: if ar.is_empty() {
                "(no board)".to_string()
            } else {
                ar.join("/")
            },
            text: None,
            boards: boards.clone(),
        });
    }
    let listed = |set: &BTreeSet<u32>| format!("[{}]", set.iter().join(", "));
    let game_over = !e.moves_after_board || e.moves.as_ref().is_none_or(|m| m.0.is_empty());
    if game_over {
        if let Some((squares, line)) = a.moves.as_ref().filter(|m| a.moves_after_board && !m.0.is_empty()) {
            differences.push(Difference {
                place: format!("the possible moves (the game is over; actual line {line})"),
                expected: "no move".to_string(),
                actual: listed(squares),
                text: None,
                boards,
            });
        }
    } else {
        let expected_moves = e.moves.as_ref().map(|m| &m.0);
        if expected_moves != a.moves.as_ref().map(|m| &m.0) {
            differences.push(Difference {
                place: format!(
                    "the last possible moves ({})",
                    a.moves
                        .as_ref()
                        .map_or("none listed".to_string(), |m| format!("actual line {}", m.1))
                ),
                expected: expected_moves.map_or("(none)".to_string(), listed),
                actual: a.moves.as_ref().map_or("(none)".to_string(), |m| listed(&m.0)),
                text: None,
                boards,
            });
        }
    }
    differences
}

#[cfg(test)]
mod tests {
    use super::*;

    const HANDOUT: &str = include_str!("../../../fixtures/lab/handout-19-34-41.out");

    #[test]
    fn identical_transcripts_agree_under_every_judge() {
        for judge in Judge::ALL {
            assert_eq!(judge.compare(HANDOUT, HANDOUT), [], "{judge}");
        }
    }

    #[test]
    fn strict_reports_every_line_with_snapshot_part_and_line() {
        let changed = HANDOUT
            .replacen("Possible moves for o: 18, 20, 34", "Possible moves for o: 18, 20", 1)
            .replacen("x plays to 41", "x plays to 41 ", 1);
        let differences = Judge::Strict.compare(HANDOUT, &changed);
        assert_eq!(differences.len(), 2);
        assert_eq!(differences[0].place, "snapshot 2, part E (line 24)");
        assert_eq!(differences[0].expected, r#""Possible moves for o: 18, 20, 34\n""#);
        assert_eq!(differences[1].place, "snapshot 4, part A (line 39)");
    }

    #[test]
    fn tolerant_names_the_squares_of_a_wrong_row() {
        let changed = HANDOUT.replacen("..*ox...", "..*xx...", 1);
        let differences = Judge::Tolerant.compare(HANDOUT, &changed);
        assert_eq!(differences.len(), 1, "{differences:?}");
        assert!(
            differences[0].place.starts_with("snapshot 1, part B, row 4 (d4)"),
            "{}",
            differences[0]
        );
        // Drawn with the possible moves each lists marked (c4 in both).
        let (expected, actual) = differences[0].boards.clone().unwrap();
        assert_eq!((&expected[3][..], &actual[3][..]), ("..*ox...", "..*xx..."));
    }

    #[test]
    fn course_reads_as_the_2018_grader_reads() {
        // The right last board printed, then the start board again: the grader finds it anyway.
        let start_board: String = HANDOUT.lines().take(8).map(|l| format!("{l}\n")).collect();
        let start_again = format!("{HANDOUT}\n{start_board}");
        assert_eq!(Judge::Course.compare(HANDOUT, &start_again), []);
        // Legal moves, the singular possible move, and + as the mark of a possible move.
        for phrase in ["Legal moves", "Possible move"] {
            let actual = HANDOUT.replace("Possible moves", phrase);
            assert_eq!(Judge::Course.compare(HANDOUT, &actual), [], "{phrase}");
        }
        assert_eq!(Judge::Course.compare(HANDOUT, &HANDOUT.replace('*', "+")), []);
        // Valid moves the grader rejects.
        assert!(
            !Judge::Course
                .compare(HANDOUT, &HANDOUT.replace("Possible moves", "Valid moves"))
                .is_empty()
        );
        // A wrong board is still wrong.
        let wrong = HANDOUT.replace(".*xoo...", ".*xxo...");
        assert_ne!(wrong, HANDOUT);
        assert!(!Judge::Course.compare(HANDOUT, &wrong).is_empty());
    }

    #[test]
    fn course_reads_only_the_last_board_and_moves() {
        // An error in an earlier snapshot is invisible to the course's grader.
        let early = HANDOUT.replacen("..*ox...", "..*xx...", 1);
        assert_eq!(Judge::Course.compare(HANDOUT, &early), []);
        let late = HANDOUT.replacen("11, 18, 20, 21, 33", "11, 18, 20, 21", 1);
        let differences = Judge::Course.compare(HANDOUT, &late);
        assert_eq!(differences.len(), 1);
        assert_eq!(
            (&differences[0].expected[..], &differences[0].actual[..]),
            ("[11, 18, 20, 21, 33]", "[11, 18, 20, 21]")
        );
    }
}

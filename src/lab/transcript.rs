//! Reading lab transcripts back: each line assigned to its snapshot and part (A-E), and each snapshot
//! reduced the way the course's graders read it (docs/lab-format.md, last section).

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// The parts of a snapshot, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// `x plays to 19`
    A,
    /// The 2D board rows.
    B,
    /// The empty line after the board.
    C,
    /// The 1D board and the counts.
    D,
    /// The possible moves (or `No moves possible`) and its empty line.
    E,
}

/// What one line of a transcript is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRole {
    /// 1-based snapshot number.
    pub snapshot: usize,
    pub part: Part,
    /// For board rows, the row (1-8); otherwise 0.
    pub row: usize,
}

/// A snapshot as a tolerant grader sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// (side, square) of part A, side in lower case.
    pub played: Option<(char, u32)>,
    /// Board rows: only `xo.` kept, `*` read as `.`, lower case.
    pub rows: Vec<String>,
    /// The 1D board and counts, lower case, without any whitespace.
    pub line_1d: Option<String>,
    /// The possible moves as a set (`No moves possible`: empty); `None` when part E is absent.
    pub moves: Option<BTreeSet<u32>>,
    /// The 1-based line numbers where each part starts, for reports.
    pub lines: Vec<(Part, usize)>,
}

impl Reading {
    pub fn line_of(&self, part: Part) -> Option<usize> {
        self.lines.iter().find(|(p, _)| *p == part).map(|&(_, line)| line)
    }
}

static PLAYED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s*([xo])\s+(?:plays|moves)\s+to\s+(-?\d+)\s*$").expect("valid pattern"));
static POSSIBLE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)possible|no moves").expect("valid pattern"));
static NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d+").expect("valid pattern"));

/// The characters of a board row a grader keeps.
fn board_chars(line: &str) -> String {
    line.chars()
        .filter(|c| "xXoO.*".contains(*c))
        .map(|c| if c == '*' { '.' } else { c.to_ascii_lowercase() })
        .collect()
}

fn is_board_row(line: &str) -> bool {
    board_chars(line).len() == 8 && !line.chars().any(|c| c.is_ascii_digit())
}

fn is_line_1d(line: &str) -> bool {
    board_chars(line.split_whitespace().next().unwrap_or("")).len() == 64
}

/// Splits a transcript into snapshots and reads each one; every line gets a role when it fits the
/// expected shape (lines that fit nowhere get none).
pub fn read(text: &str) -> (Vec<Reading>, Vec<Option<LineRole>>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut roles = vec![None; lines.len()];
    let mut readings: Vec<Reading> = Vec::new();
    // The last part seen, to tell a new snapshot from the rest of the current one.
    let mut last: Option<Part> = None;
    for (index, line) in lines.iter().enumerate() {
        let part = if let Some(captures) = PLAYED.captures(line) {
            let side = captures[1].to_ascii_lowercase().chars().next().unwrap_or('x');
            let square = captures[2].parse().unwrap_or(u32::MAX);
            readings.push(Reading {
                played: Some((side, square)),
                ..Reading::default()
            });
            Some(Part::A)
        } else if is_board_row(line) {
            let full = readings.last().is_none_or(|r| r.rows.len() >= 8);
            if full || matches!(last, Some(Part::C | Part::D | Part::E)) {
                readings.push(Reading::default());
            }
            if let Some(reading) = readings.last_mut() {
                reading.rows.push(board_chars(line));
            }
            Some(Part::B)
        } else if is_line_1d(line) {
            let squashed: String = line
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_ascii_lowercase();
            current(&mut readings).line_1d = Some(squashed);
            Some(Part::D)
        } else if POSSIBLE.is_match(line) {
            let listed = line.split_once(':').map_or("", |(_, rest)| rest);
            current(&mut readings).moves = Some(
                NUMBER
                    .find_iter(listed)
                    .filter_map(|m| m.as_str().parse().ok())
                    .collect(),
            );
            Some(Part::E)
        } else if line.trim().is_empty() {
            // The empty line after the board is C; the one after the possible moves belongs to E.
            match last {
                Some(Part::B) => Some(Part::C),
                Some(Part::E) => Some(Part::E),
                _ => None,
            }
        } else {
            None
        };
        if let Some(part) = part {
            let reading = current(&mut readings);
            if reading.lines.iter().all(|(p, _)| *p != part) {
                reading.lines.push((part, index + 1));
            }
            let row = if part == Part::B { reading.rows.len() } else { 0 };
            roles[index] = Some(LineRole {
                snapshot: readings.len(),
                part,
                row,
            });
            last = Some(part);
        }
    }
    (readings, roles)
}

/// The snapshot being read (a first one is opened if the transcript starts mid-snapshot).
fn current(readings: &mut Vec<Reading>) -> &mut Reading {
    if readings.is_empty() {
        readings.push(Reading::default());
    }
    readings.last_mut().expect("one reading at least")
}

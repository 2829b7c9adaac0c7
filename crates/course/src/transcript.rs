//! Reading lab transcripts back: each line assigned to its snapshot and part (A-E), and each snapshot
//! reduced the way a tolerant grader reads it (docs/lab-format.md, last section).

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

/// Part E as read: the side named (if any) and the squares listed. `No moves possible` lists none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveList {
    pub side: Option<char>,
    pub squares: BTreeSet<u32>,
}

/// A snapshot as a tolerant grader sees it; every field keeps the 1-based line it came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// (side, square) of part A, side in lower case.
    pub played: Option<((char, u32), usize)>,
    /// Board rows: only `xo.` kept, `*` read as `.`, lower case.
    pub rows: Vec<(String, usize)>,
    /// The 1D board: 64 characters of `xo.`.
    pub board_1d: Option<(String, usize)>,
    /// The counts (x, o), on the 1D line or on a line of their own.
    pub counts: Option<((u32, u32), usize)>,
    /// Part E; `None` when the snapshot has none.
    pub moves: Option<(MoveList, usize)>,
}

impl Reading {
    /// The board rows alone.
    pub fn board(&self) -> Vec<&str> {
        self.rows.iter().map(|(row, _)| row.as_str()).collect()
    }

    /// The squares listed in part E; none when the part is absent or says `No moves possible`.
    pub fn move_squares(&self) -> BTreeSet<u32> {
        self.moves
            .as_ref()
            .map(|(list, _)| list.squares.clone())
            .unwrap_or_default()
    }
}

static PLAYED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s*([xo])\s+(?:plays|moves)\s+to\s+(-?\d+)\s*$").expect("valid pattern"));
static POSSIBLE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)possible|no moves").expect("valid pattern"));
static SIDE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\bfor\s+([xo])\b").expect("valid pattern"));
static COUNTS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(\d+)/(\d+)$").expect("valid pattern"));
static NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d+").expect("valid pattern"));

/// The characters of a board a grader keeps: `xo.`, with `*` read as `.`, in lower case.
pub fn board_chars(line: &str) -> String {
    line.chars()
        .filter(|c| "xXoO.*".contains(*c))
        .map(|c| if c == '*' { '.' } else { c.to_ascii_lowercase() })
        .collect()
}

/// A 2D board row: eight board characters, and no letter that is not a disc (labels and borders of
/// digits, spaces or punctuation are allowed).
fn board_row(line: &str) -> Option<String> {
    let kept = board_chars(line);
    let only_discs = line.chars().all(|c| !c.is_alphabetic() || "xXoO".contains(c));
    (kept.len() == 8 && only_discs).then_some(kept)
}

/// The 1D board and, when they follow it on the same line, the counts: whitespace anywhere.
fn line_1d(line: &str) -> Option<(String, Option<(u32, u32)>)> {
    let squashed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    let board: String = squashed.chars().take(64).collect();
    if board.len() < 64 || !board.chars().all(|c| "xXoO.*".contains(c)) {
        return None;
    }
    let rest = &squashed[64..];
    if rest.is_empty() {
        return Some((board_chars(&board), None));
    }
    counts(rest).map(|counts| (board_chars(&board), Some(counts)))
}

/// `4/1`, spaces already removed.
fn counts(text: &str) -> Option<(u32, u32)> {
    let captures = COUNTS.captures(text)?;
    Some((captures[1].parse().ok()?, captures[2].parse().ok()?))
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
        let number = index + 1;
        let squashed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        let part = if let Some(captures) = PLAYED.captures(line) {
            let side = captures[1].to_ascii_lowercase().chars().next().unwrap_or('x');
            let square = captures[2].parse().unwrap_or(u32::MAX);
            readings.push(Reading {
                played: Some(((side, square), number)),
                ..Reading::default()
            });
            Some(Part::A)
        } else if let Some((board, counts)) = line_1d(line) {
            let reading = current(&mut readings);
            reading.board_1d = Some((board, number));
            if let Some(counts) = counts {
                reading.counts = Some((counts, number));
            }
            Some(Part::D)
        } else if let Some(row) = board_row(line) {
            let full = readings.last().is_none_or(|r| r.rows.len() >= 8);
            if full || matches!(last, Some(Part::C | Part::D | Part::E)) {
                readings.push(Reading::default());
            }
            current(&mut readings).rows.push((row, number));
            Some(Part::B)
        } else if let Some(counts) = counts(&squashed).filter(|_| matches!(last, Some(Part::C | Part::D))) {
            current(&mut readings).counts = Some((counts, number));
            Some(Part::D)
        } else if POSSIBLE.is_match(line) {
            let listed = line.split_once(':').map_or("", |(_, rest)| rest);
            let list = MoveList {
                side: SIDE
                    .captures(line)
                    .and_then(|c| c[1].to_ascii_lowercase().chars().next()),
                squares: NUMBER
                    .find_iter(listed)
                    .filter_map(|m| m.as_str().parse().ok())
                    .collect(),
            };
            current(&mut readings).moves = Some((list, number));
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

#[cfg(test)]
mod tests {
    use super::*;

    const HANDOUT: &str = include_str!("../../../fixtures/lab/handout-19-34-41.out");

    #[test]
    fn the_handout_reads_as_four_snapshots() {
        let (readings, roles) = read(HANDOUT);
        assert_eq!(readings.len(), 4);
        assert_eq!(readings[1].played, Some((('x', 19), 13)));
        assert_eq!(readings[1].counts, Some(((4, 1), 23)));
        assert_eq!(readings[3].move_squares(), BTreeSet::from([11, 18, 20, 21, 33]));
        assert_eq!(readings[3].moves.as_ref().unwrap().0.side, Some('o'));
        assert!(
            roles.iter().all(Option::is_some),
            "every line of our own output has a role"
        );
    }

    #[test]
    fn counts_on_their_own_line_and_labelled_rows_are_read() {
        let text = HANDOUT.replace("  2/2\n", "\n 2 / 2\n").replacen(
            "........\n........\n...*....\n",
            "1 . . . . . . . .\n2 ........\n3 |...*....|\n",
            1,
        );
        assert!(text.starts_with("1 . ."));
        let (readings, _) = read(&text);
        assert_eq!(readings.len(), 4);
        assert_eq!(readings[0].counts.as_ref().map(|c| c.0), Some((2, 2)));
        assert_eq!(readings[0].board(), read(HANDOUT).0[0].board());
    }
}

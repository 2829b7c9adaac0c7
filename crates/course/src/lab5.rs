//! Lab 5's marks, as the course gives them: a program prints `score`, the guaranteed minimum score for
//! the token to play, and the move sequence in reverse (both sides' moves, -1 for a pass); its move
//! is the last integer it prints. Per test: .5 for an optimal move, .25 for the exact score, .25 for a
//! sequence that is optimal for both sides (any optimal line, not a byte match).

use std::sync::LazyLock;

use regex::Regex;

use super::judge::Difference;
use super::lab::LabRequest;
use super::lab::negamax;
use othello_core::board::Board;
use othello_core::notation::numbers::{integers, last_move_number};
use othello_core::position::Position;
use othello_core::square::Square;

/// The marks of one test, out of 1, with what cost the missing ones.
#[derive(Clone, Debug, PartialEq)]
pub struct Marks {
    pub total: f64,
    pub lost: Vec<Difference>,
}

static SCORE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)score").expect("valid pattern"));

fn lost(place: &str, expected: String, actual: String) -> Difference {
    Difference {
        place: place.to_string(),
        expected,
        actual,
        text: None,
        boards: None,
    }
}

/// The square of a number, if it is one.
fn square_of(number: i64) -> Option<Square> {
    u8::try_from(number).ok().and_then(Square::new)
}

/// The most empty squares a case may have for the lab5 judge, which solves every case exactly
/// (Lab 5's have 1 to 10; one of 14 takes well under a second).
pub(crate) const MAX_EMPTIES: u32 = 14;

/// Whether a case's arguments are a Lab 5 case this judge can mark: why not, if not.
pub fn check_case(args: &[String]) -> Result<(), String> {
    let request = LabRequest::parse(args).map_err(|e| format!("not a position: {e}"))?;
    let empties = super::lab::start_position(&request).board.empty_count();
    if empties > MAX_EMPTIES {
        return Err(format!(
            "{empties} empty squares: the lab5 judge solves every case exactly and takes at most {MAX_EMPTIES} (Lab 5's cases have 1 to 10; write them with othello cases --lab5)"
        ));
    }
    Ok(())
}

/// Marks a program's output for a position whose side to move has a legal move.
pub fn mark(position: Position, output: &str) -> Marks {
    let board = position.board;
    let best = negamax::value(board);
    let mut marks = Marks {
        total: 0.0,
        lost: Vec::new(),
    };
    // The move: the last integer printed, decimals (timing) deleted first, as the course reads it.
    match last_move_number(output) {
        Some(number) => match square_of(number).filter(|&s| board.moves().contains(s)) {
            Some(square) => {
                let value = -negamax::value(board.play(square));
                if value == best {
                    marks.total += 0.5;
                } else {
                    marks.lost.push(lost(
                        "the move (.5)",
                        format!("a move worth {best}"),
                        format!("{number}, worth {value}"),
                    ));
                }
            }
            None => marks.lost.push(lost(
                "the move (.5)",
                "a legal move".into(),
                format!("{number}: illegal"),
            )),
        },
        None => marks
            .lost
            .push(lost("the move (.5)", "a move".into(), "no integer printed".into())),
    }
    // The score and the sequence: the most recent line with the word score and a number.
    let line = output
        .lines()
        .rev()
        .find(|line| SCORE.is_match(line) && line.chars().any(|c| c.is_ascii_digit()));
    let Some(line) = line else {
        let missing = || "no line with the word score and a number".to_string();
        marks.lost.push(lost("the score (.25)", best.to_string(), missing()));
        marks
            .lost
            .push(lost("the sequence (.25)", "an optimal line".into(), missing()));
        return marks;
    };
    let numbers = integers(line);
    if numbers[0] == i64::from(best) {
        marks.total += 0.25;
    } else {
        marks
            .lost
            .push(lost("the score (.25)", best.to_string(), numbers[0].to_string()));
    }
    match check_sequence(board, &numbers[1..]) {
        Ok(()) => marks.total += 0.25,
        Err(why) => marks
            .lost
            .push(lost("the sequence (.25)", "a line optimal for both sides".into(), why)),
    }
    marks
}

/// Plays a reversed sequence forwards: every move legal and optimal for its side, a pass only when
/// forced, and the game over at its end.
fn check_sequence(start: Board, reversed: &[i64]) -> Result<(), String> {
    let mut board = start;
    for (k, &number) in reversed.iter().rev().enumerate() {
        let step = k + 1;
        if board.is_game_over() {
            return Err(format!("step {step} ({number}) comes after the end of the game"));
        }
        if number == -1 {
            if !board.moves().is_empty() {
                return Err(format!("step {step} passes, but a move was possible"));
            }
            board = board.pass();
            continue;
        }
        let square = square_of(number)
            .filter(|&s| board.moves().contains(s))
            .ok_or_else(|| format!("step {step} ({number}) is not a legal move"))?;
        let (value, best) = (-negamax::value(board.play(square)), negamax::value(board));
        if value != best {
            return Err(format!(
                "step {step} ({number}) is worth {value} where {best} was possible"
            ));
        }
        board = board.play(square);
    }
    if !board.is_game_over() {
        return Err(format!("the game is not over after its {} steps", reversed.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::notation::lab_board;

    /// Lab 5's pass case of the golden files: x takes a1, o must pass, x takes h8... (see
    /// fixtures/lab/lab5-pass-inside).
    fn position() -> Position {
        let (black, white) =
            lab_board::parse(".ox....x.......x.......x.......x.......x.......x.......o........").unwrap();
        Position::from_discs(black, white, othello_core::color::Color::Black)
    }

    #[test]
    fn the_solvers_own_line_gets_every_mark() {
        let board = position().board;
        let (score, line) = negamax::solve(board);
        let reversed: Vec<String> = line
            .iter()
            .rev()
            .map(|s| s.map_or(-1, |s| s.index() as i64).to_string())
            .collect();
        let output = format!("Min score: {score}; move sequence: [{}]\n", reversed.join(", "));
        assert_eq!(mark(position(), &output).total, 1.0, "{output}");
        // Timing printed after it is not read as the move (as the course's graders read it).
        let timed = format!("{output}Elapsed: 0.53 seconds\n");
        assert_eq!(mark(position(), &timed).total, 1.0, "{timed}");
    }

    /// The line that takes the largest-index optimal move at every step.
    fn other_optimal_line(mut board: Board) -> Vec<i64> {
        let mut line = Vec::new();
        while !board.is_game_over() {
            if board.moves().is_empty() {
                line.push(-1);
                board = board.pass();
                continue;
            }
            let best = negamax::value(board);
            let square = board
                .moves()
                .squares()
                .filter(|&s| -negamax::value(board.play(s)) == best)
                .last()
                .unwrap();
            line.push(square.index() as i64);
            board = board.play(square);
        }
        line
    }

    #[test]
    fn any_optimal_line_gets_the_marks_not_only_the_solvers() {
        let mut rng = othello_core::rng::SeededRng::new(3);
        let mut different = 0;
        for _ in 0..40 {
            let mut position = Position::START;
            while position.board.empty_count() > 7 {
                position = position.after_forced_pass();
                position = position.play(rng.pick_square(position.moves()));
            }
            let position = position.after_forced_pass();
            if position.moves().is_empty() {
                continue;
            }
            let (score, solver) = negamax::solve(position.board);
            let solver: Vec<i64> = solver.iter().map(|s| s.map_or(-1, |s| s.index() as i64)).collect();
            let other = other_optimal_line(position.board);
            different += usize::from(other != solver);
            let reversed: Vec<String> = other.iter().rev().map(i64::to_string).collect();
            let output = format!("Min score: {score}; move sequence: [{}]\n", reversed.join(", "));
            assert_eq!(mark(position, &output).total, 1.0, "{output}");
        }
        assert!(different >= 5, "only {different} positions had a second optimal line");
    }

    #[test]
    fn a_wrong_score_and_a_bad_line_lose_their_marks() {
        let marks = mark(position(), "Min score: 3; move sequence: [63, -1, 0]\n");
        assert_eq!(marks.total, 0.75, "{marks:?}");
        let marks = mark(position(), "Min score: 11; move sequence: [0]\n0\n");
        assert_eq!(marks.total, 0.75, "the line does not end the game: {marks:?}");
        let marks = mark(position(), "nothing useful\n");
        assert_eq!(marks.total, 0.0);
        assert_eq!(marks.lost.len(), 3);
    }
}

//! Generating lab test cases from random legal games: arguments and the expected output, in the
//! format scripts/check-transcripts.sh reads. The same seed writes the same cases.

use crate::notation::lab_board;
use crate::position::Position;
use crate::rng::SeededRng;
use crate::square::Square;

use super::{LabRequest, run};

/// One generated case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub args: Vec<String>,
    pub stdout: String,
}

/// Case `index` of the set seeded with `seed`, with at most `max_moves` moves (unless it plays a
/// game to its end).
pub fn generate(seed: u64, index: u64, max_moves: u32) -> Case {
    let mut rng = SeededRng::for_item(seed, index);
    let mut args = Vec::new();
    // The start: the start position (given or not), or a random position from a random game.
    let mut position = Position::START;
    let board_given = rng.below(3) != 0;
    if board_given && rng.below(4) != 0 {
        let plies = 1 + rng.below(54);
        for _ in 0..plies {
            let next = position.after_forced_pass();
            if next.is_game_over() {
                break;
            }
            position = next.play(rng.pick_square(next.moves()));
        }
    }
    let token_given = rng.below(2) == 0;
    if token_given {
        // Any token is valid: one that cannot move hands the turn over, as the lab says.
        let token = if rng.below(4) == 0 {
            !position.to_move
        } else {
            position.to_move
        };
        position = position.with_to_move(token);
    } else {
        position = position.with_to_move(Position::parity_side(position.board.empty_count()));
    }
    if board_given {
        args.push(in_random_case(&mut rng, &lab_board::format(position)));
    }
    let token_text = in_random_case(&mut rng, &position.to_move.lab_char().to_string());
    // Moves: a few, or a whole game; in both notations, with negatives here and there.
    let to_the_end = rng.below(8) == 0;
    let count = if to_the_end {
        u32::MAX
    } else {
        rng.below(u64::from(max_moves) + 1) as u32
    };
    let mut moves = Vec::new();
    let mut current = position.after_forced_pass();
    while (moves.len() as u32) < count && !current.is_game_over() {
        let square = rng.pick_square(current.moves());
        if rng.below(10) == 0 {
            moves.push(format!("-{}", 1 + rng.below(99)));
        }
        moves.push(move_text(&mut rng, square));
        current = current.play(square).after_forced_pass();
    }
    // The token goes first, or (rarely) after the moves: arguments are classified by content.
    if token_given && rng.below(5) == 0 {
        args.extend(moves);
        args.push(token_text);
    } else {
        if token_given {
            args.push(token_text);
        }
        args.extend(moves);
    }
    let request = LabRequest::parse(&args).expect("generated arguments are valid");
    let mut stdout = String::new();
    run(&request, &mut stdout).expect("generated moves are legal");
    Case { args, stdout }
}

fn in_random_case(rng: &mut SeededRng, text: &str) -> String {
    match rng.below(3) {
        0 => text.to_ascii_uppercase(),
        1 => text
            .chars()
            .map(|c| if rng.below(2) == 0 { c.to_ascii_uppercase() } else { c })
            .collect(),
        _ => text.to_string(),
    }
}

fn move_text(rng: &mut SeededRng, square: Square) -> String {
    match rng.below(6) {
        0 => square.to_string(),
        1 => square.to_string().to_ascii_uppercase(),
        2 => format!("0{}", square.index()),
        _ => square.index().to_string(),
    }
}

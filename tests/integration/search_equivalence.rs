//! Alpha-beta returns exactly minimax's move and value (ties to the smallest index) on 1,000 random
//! positions at depths 1 to 4, for every evaluation and both rules for finished games.

use othello_core::rng::SeededRng;
use othello_core::{Board, Position};
use othello_engine::eval::Eval;
use othello_engine::search::alphabeta::alphabeta;
use othello_engine::search::minimax::minimax;
use othello_engine::search::{Scoring, Terminal};

/// Positions from random games at random plies, late ones included, so that passes and game ends
/// fall inside the searches.
fn random_positions(count: usize, seed: u64) -> Vec<Board> {
    let mut rng = SeededRng::new(seed);
    let mut positions = Vec::new();
    while positions.len() < count {
        let stop_at = 4 + rng.below(60) as u32;
        let mut position = Position::START;
        let mut ply = 0;
        while ply < stop_at && !position.is_game_over() {
            position = position.after_forced_pass();
            position = position.play(rng.pick_square(position.moves()));
            ply += 1;
        }
        positions.push(position.board);
    }
    positions
}

#[test]
fn alphabeta_equals_minimax_on_a_thousand_positions() {
    let positions = random_positions(1000, 4);
    let (mut passes_at_root, mut finished) = (0, 0);
    for (i, &board) in positions.iter().enumerate() {
        let terminal = if i % 2 == 0 {
            Terminal::WinLoss
        } else {
            Terminal::DiscDifference
        };
        let scoring = Scoring {
            eval: Eval::ALL[(i / 2) % 4],
            terminal,
        };
        passes_at_root += usize::from(board.must_pass());
        finished += usize::from(board.is_game_over());
        for depth in 1..=4 {
            let slow = minimax(board, depth, scoring);
            let fast = alphabeta(board, depth, scoring);
            assert_eq!(
                (fast.best, fast.value),
                (slow.best, slow.value),
                "position {i} {board:?} depth {depth} {scoring:?}"
            );
            assert!(fast.nodes <= slow.nodes, "alpha-beta never visits more positions");
        }
    }
    assert!(
        passes_at_root + finished > 0,
        "the sample reaches passes or finished games"
    );
}

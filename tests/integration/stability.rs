//! Stable discs are sound: on random late positions, no disc counted stable is ever flipped in any
//! continuation of the game (checked exhaustively).

use othello_core::rng::SeededRng;
use othello_core::{Board, Position};
use othello_engine::stability::stable_discs;

/// The discs of the side to move at the root (`root_player`) that some continuation flips.
fn ever_flipped(board: Board, root_player_to_move: bool, flipped: &mut u64) {
    let moves = board.moves();
    if moves.is_empty() {
        if !board.opponent_moves().is_empty() {
            ever_flipped(board.pass(), !root_player_to_move, flipped);
        }
        return;
    }
    for square in moves {
        let flips = board.flips(square).0;
        if !root_player_to_move {
            *flipped |= flips;
        }
        ever_flipped(board.play(square), !root_player_to_move, flipped);
    }
}

#[test]
fn stable_discs_are_never_flipped() {
    let mut rng = SeededRng::new(11);
    let (mut positions, mut stable_total) = (0, 0);
    while positions < 300 {
        let mut position = Position::START;
        let target_empties = 5 + rng.below(5) as u32;
        while position.board.empty_count() > target_empties && !position.is_game_over() {
            position = position.after_forced_pass();
            position = position.play(rng.pick_square(position.moves()));
        }
        let board = position.board;
        let stable = stable_discs(board.player.0, board.opponent.0);
        let mut flipped = 0;
        ever_flipped(board, true, &mut flipped);
        assert_eq!(stable & flipped, 0, "a stable disc was flipped in {board:?}");
        assert_eq!(stable & !board.player.0, 0, "only own discs are stable");
        stable_total += stable.count_ones();
        positions += 1;
    }
    assert!(
        stable_total > 1000,
        "the sample has stable discs to check ({stable_total})"
    );
}

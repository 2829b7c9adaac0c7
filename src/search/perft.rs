//! Perft: the number of move sequences of a given length, a forced pass counting as a ply and a
//! finished game as one leaf at every deeper depth.

use crate::board::Board;
use crate::cpu::{Cpu, at_level, with_cpu};

/// Leaves `depth` plies below `board`.
pub fn perft(board: Board, depth: u32) -> u64 {
    with_cpu!(C => count::<C>(board, depth))
}

#[inline(always)]
fn count<C: Cpu>(board: Board, depth: u32) -> u64 {
    at_level!(C => count_body(board: Board, depth: u32) -> u64)
}

#[inline(always)]
fn count_body<C: Cpu>(board: Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = board.moves();
    if moves.is_empty() {
        return if board.opponent_moves().is_empty() {
            1
        } else {
            count::<C>(board.pass(), depth - 1)
        };
    }
    if depth == 1 {
        // The last ply is counted, not played.
        return u64::from(moves.count());
    }
    moves
        .squares()
        .map(|square| count::<C>(board.play_on::<C>(square), depth - 1))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::Bitboard;

    #[test]
    fn finished_games_count_once_at_every_depth() {
        let full = Board::new(Bitboard(!0 >> 1), Bitboard(1 << 63));
        for depth in 0..5 {
            assert_eq!(perft(full, depth), 1);
        }
    }
}

//! Perft: the number of move sequences of a given length, a forced pass counting as a ply and a
//! finished game as one leaf at every deeper depth.

use othello_core::board::Board;
use othello_core::cpu::{Cpu, at_level, with_cpu};

/// Leaves `depth` plies below `board`.
pub fn perft(board: Board, depth: u32) -> u64 {
    with_cpu!(C => count::<C>(board, depth))
}

/// The subtrees whose perfts add up to `perft(board, depth)`, split ply by ply until there are at
/// least `parts` of them or none can split further: what a progress bar counts.
pub fn split(board: Board, depth: u32, parts: usize) -> Vec<(Board, u32)> {
    let mut items = vec![(board, depth)];
    while items.len() < parts {
        let mut split_any = false;
        let mut next = Vec::with_capacity(items.len() * 10);
        for (board, depth) in items {
            // A finished game is one leaf at every depth: it stays whole.
            if depth >= 2 && !board.moves().is_empty() {
                next.extend(board.moves().squares().map(|square| (board.play(square), depth - 1)));
                split_any = true;
            } else if depth >= 2 && !board.opponent_moves().is_empty() {
                next.push((board.pass(), depth - 1));
                split_any = true;
            } else {
                next.push((board, depth));
            }
        }
        items = next;
        if !split_any {
            break;
        }
    }
    items
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
    use othello_core::bitboard::Bitboard;

    #[test]
    fn the_split_subtrees_add_up_to_the_whole() {
        let start = othello_core::position::Position::START.board;
        for depth in 0..7 {
            for parts in [1, 5, 64] {
                let parts = split(start, depth, parts);
                let sum: u64 = parts.iter().map(|&(board, depth)| perft(board, depth)).sum();
                assert_eq!(sum, perft(start, depth), "depth {depth}");
            }
        }
        let full = Board::new(Bitboard(!0 >> 1), Bitboard(1 << 63));
        assert_eq!(split(full, 5, 64), vec![(full, 5)]);
    }

    #[test]
    fn finished_games_count_once_at_every_depth() {
        let full = Board::new(Bitboard(!0 >> 1), Bitboard(1 << 63));
        for depth in 0..5 {
            assert_eq!(perft(full, depth), 1);
        }
    }
}

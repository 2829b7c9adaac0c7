//! Lab 5's exact negamax: the guaranteed difference between the side's tokens and the opponent's at
//! the end of the game (empty squares count for nobody, as the course counts tokens), with an optimal
//! line for both sides.

use crate::board::Board;
use crate::square::Square;

/// The exact value of `board` for its side to move and an optimal line in play order (`None` for a
/// pass); among equal moves the smallest index is taken, so the line is reproducible.
pub fn solve(board: Board) -> (i32, Vec<Option<Square>>) {
    let score = negamax(board, -65, 65);
    let mut line = Vec::new();
    let (mut current, mut value) = (board, score);
    loop {
        let moves = current.moves();
        if moves.is_empty() {
            if current.opponent_moves().is_empty() {
                return (score, line);
            }
            line.push(None);
            current = current.pass();
            value = -value;
            continue;
        }
        let (square, child) = moves
            .squares()
            .map(|square| (square, current.play(square)))
            .find(|&(_, child)| -negamax(child, -value - 1, -value + 1) == value)
            .expect("some move reaches the value");
        line.push(Some(square));
        current = child;
        value = -value;
    }
}

/// Fail-soft alpha-beta on the final token difference, fastest-first.
fn negamax(board: Board, mut alpha: i32, beta: i32) -> i32 {
    let moves = board.moves();
    if moves.is_empty() {
        return if board.opponent_moves().is_empty() {
            board.disc_difference()
        } else {
            -negamax(board.pass(), -beta, -alpha)
        };
    }
    let mut children: Vec<Board> = moves.squares().map(|square| board.play(square)).collect();
    children.sort_by_key(|child| child.moves().count());
    let mut best = i32::MIN;
    for child in children {
        let value = -negamax(child, -beta, -alpha);
        if value > best {
            best = value;
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
    }
    best
}

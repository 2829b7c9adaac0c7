//! The last empty squares of an exact solve: no move generation, the empty squares tried directly
//! (odd regions first), the last two played by hand and the very last counted, not played.

use super::last_flips::count_last_flips;
use super::settings::small_stability_from;
use super::{Counting, MAX_SCORE, Solver, final_score};
use crate::search::ordering::{QUADRANT_OF, QUADRANTS};
use crate::stability::stable_discs;
use othello_core::bitboard::Bitboard;
use othello_core::board::{NEIGHBOURS, legal_moves};
use othello_core::cpu::{Cpu, at_level};
use othello_core::square::Square;

/// The empty squares of a small search: the squares, their number, and the quadrants holding an
/// odd number of them (all their squares, as one mask). Kept in registers: a list on
/// the stack, rewritten a byte at a time and read a word at a time, stalled the CPU's store
/// forwarding on every move (FFO #40-#49 ran about 5% faster without it).
#[derive(Clone, Copy)]
struct SmallEmpties {
    squares: u64,
    count: usize,
    odd: u64,
}

impl Solver {
    /// Few empties: no move generation, the empty squares tried directly, odd regions first.
    #[inline(always)]
    pub(super) fn search_small<C: Cpu>(
        &mut self,
        player: u64,
        opponent: u64,
        alpha: i32,
        beta: i32,
        empties: u32,
    ) -> i32 {
        let squares = !(player | opponent);
        let odd = QUADRANTS.iter().fold(0, |odd, &quadrant| {
            if (squares & quadrant).count_ones() % 2 == 1 {
                odd | quadrant
            } else {
                odd
            }
        });
        self.small::<C>(
            player,
            opponent,
            alpha,
            beta,
            SmallEmpties {
                squares,
                count: empties as usize,
                odd,
            },
        )
    }

    /// The search up to `SMALL_EMPTIES`, over the listed empty squares.
    #[inline(always)]
    fn small<C: Cpu>(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32, empties: SmallEmpties) -> i32 {
        at_level!(C, self: Solver => small_body(player: u64, opponent: u64, alpha: i32, beta: i32, empties: SmallEmpties) -> i32)
    }

    #[inline(always)]
    fn small_body<C: Cpu>(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32, empties: SmallEmpties) -> i32 {
        let SmallEmpties { squares, count: n, odd } = empties;
        match n {
            0 => final_score(player, opponent, self.counting),
            1 => {
                self.nodes += 1;
                let last = Square::from_index(squares.trailing_zeros() as u8);
                last_square_score::<C>(player, opponent, last, self.counting)
            }
            2 => {
                let first = squares.trailing_zeros() as u8;
                let second = (squares & (squares - 1)).trailing_zeros() as u8;
                self.two_empties::<C>(player, opponent, beta, first, second)
            }
            _ => {
                self.nodes += 1;
                // The opponent's stable discs bound our score, as in the bigger nodes: counted only
                // where alpha is high enough for them to cut often, and the discs it has could.
                if alpha >= small_stability_from(n) && MAX_SCORE - 2 * opponent.count_ones() as i32 <= alpha {
                    let ceiling = MAX_SCORE - 2 * stable_discs(opponent, player).count_ones() as i32;
                    if ceiling <= alpha {
                        return ceiling;
                    }
                }
                let mut best_score = -MAX_SCORE - 1;
                // Each empty square is tried directly: with so few, that is cheaper than generating
                // the moves first (a square with no opponent disc beside it flips nothing).
                for class in [squares & odd, squares & !odd] {
                    for square in Bitboard(class) {
                        let index = square.index();
                        if NEIGHBOURS[index] & opponent == 0 {
                            continue;
                        }
                        let flipped = C::flips(player, opponent, square);
                        if flipped == 0 {
                            continue;
                        }
                        let rest = SmallEmpties {
                            squares: squares ^ (1 << index),
                            count: n - 1,
                            odd: odd ^ QUADRANTS[QUADRANT_OF[index] as usize],
                        };
                        let score = -self.small::<C>(
                            opponent ^ flipped,
                            player ^ flipped ^ (1 << index),
                            -beta,
                            -alpha.max(best_score),
                            rest,
                        );
                        if score > best_score {
                            best_score = score;
                            if score >= beta {
                                return score;
                            }
                        }
                    }
                }
                if best_score > -MAX_SCORE - 1 {
                    return best_score;
                }
                if legal_moves(opponent, player) == 0 {
                    return final_score(player, opponent, self.counting);
                }
                // A forced pass; the opponent has a move, so this cannot pass back forever.
                -self.small::<C>(opponent, player, -beta, -alpha, empties)
            }
        }
    }

    /// Two empty squares: each move leads to a counted last square.
    #[inline(always)]
    fn two_empties<C: Cpu>(&mut self, player: u64, opponent: u64, beta: i32, first: u8, second: u8) -> i32 {
        self.nodes += 1;
        if let Some(score) = self.best_of_last_two::<C>(player, opponent, beta, first, second) {
            return score;
        }
        // We pass: the opponent takes the square best for it, if it can move at all.
        match self.best_of_last_two::<C>(opponent, player, MAX_SCORE + 1, first, second) {
            Some(score) => -score,
            None => final_score(player, opponent, self.counting),
        }
    }

    /// The best score `mover` reaches by playing one of the two last empty squares (failing high
    /// at `beta`), or `None` if it can play neither.
    #[inline(always)]
    fn best_of_last_two<C: Cpu>(&mut self, mover: u64, other: u64, beta: i32, first: u8, second: u8) -> Option<i32> {
        let mut best_score = None;
        for (square, last) in [(first, second), (second, first)] {
            if NEIGHBOURS[square as usize] & other == 0 {
                continue;
            }
            let flipped = C::flips(mover, other, Square::from_index(square));
            if flipped != 0 {
                self.nodes += 1;
                let score = -last_square_score::<C>(
                    other ^ flipped,
                    mover ^ flipped ^ (1 << square),
                    Square::from_index(last),
                    self.counting,
                );
                if best_score.is_none_or(|best| score > best) {
                    best_score = Some(score);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best_score
    }
}

/// One empty square left: the score is counted from the flips, nothing is played.
#[inline(always)]
fn last_square_score<C: Cpu>(player: u64, opponent: u64, square: Square, counting: Counting) -> i32 {
    let difference = 2 * player.count_ones() as i32 - 63;
    let own = count_last_flips::<C>(player, square) as i32;
    if own > 0 {
        return difference + 2 * own + 1;
    }
    let theirs = count_last_flips::<C>(opponent, square) as i32;
    if theirs > 0 {
        return difference - 2 * theirs - 1;
    }
    match counting {
        Counting::EmptiesToWinner if difference > 0 => difference + 1,
        Counting::EmptiesToWinner => difference - 1,
        Counting::DiscsOnly => difference,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::board::Board;

    #[test]
    fn the_last_square_is_counted_like_playing_it() {
        // Every board with one empty square, from a few patterns.
        for seed in 0..200u64 {
            let mut h = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            h ^= h >> 29;
            let empty = Square::from_index((seed % 64) as u8);
            let player = h & !empty.bitboard().0;
            let opponent = !player & !empty.bitboard().0;
            let board = Board::new(Bitboard(player), Bitboard(opponent));
            let expected = if !board.flips(empty).is_empty() {
                -board.play(empty).final_score()
            } else if !board.pass().flips(empty).is_empty() {
                board.pass().play(empty).final_score()
            } else {
                board.final_score()
            };
            let score =
                last_square_score::<othello_core::cpu::Portable>(player, opponent, empty, Counting::EmptiesToWinner);
            assert_eq!(score, expected, "{board:?}");
            let discs_only = if board.flips(empty).is_empty() && board.pass().flips(empty).is_empty() {
                board.disc_difference()
            } else {
                expected
            };
            let score = last_square_score::<othello_core::cpu::Portable>(player, opponent, empty, Counting::DiscsOnly);
            assert_eq!(score, discs_only, "{board:?}");
        }
    }
}

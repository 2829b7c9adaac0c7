//! The exact endgame solver: the final disc difference under perfect play (empty squares going to
//! the winner), with a best move and principal variation.
//!
//! Techniques, all public in the Othello literature: null-window (PVS) alpha-beta; a transposition
//! table holding score bounds and best moves; fastest-first move ordering (fewest replies for the
//! opponent, corners first) with the table's move tried first; parity ordering and no move generation
//! near the end (the empty squares are tried directly); the last empty square counted, not played;
//! and stability cut-offs (discs the opponent can never lose bound our best score).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use arrayvec::ArrayVec;

use super::last_flips::count_last_flips;
use super::pvs_child;
use crate::bitboard::Bitboard;
use crate::board::{Board, NEIGHBOURS, legal_moves};
use crate::cpu::{Cpu, at_level, with_cpu};
use crate::patterns::SCALE;
use crate::square::Square;
use crate::stability::stable_discs;

/// At or below this many empties the solver stops generating moves and ordering by mobility: it
/// walks the empty squares directly, odd regions first.
const SMALL_EMPTIES: u32 = 5;
/// From this many empties the transposition table is used.
const TABLE_EMPTIES: u32 = 9;
/// Above this many empties the children's table entries are probed for a cut-off before searching.
const ETC_EMPTIES: u32 = 9;
/// From this many empties a stability bound is tried before searching.
const STABILITY_EMPTIES: u32 = 7;

/// From this score up, MTD's rising tests stride instead of stepping by 2 (FFO #59, +64: 64 M nodes
/// instead of 303 M; striding from lower scores cost #40-#49 1.62 G nodes instead of 1.33 G).
const GALLOP_FROM: i32 = 40;

/// The best and worst possible scores.
const MAX_SCORE: i32 = 64;

/// A search stopped by its deadline; its partial results mean nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the search ran out of time")]
pub struct OutOfTime;

/// An exact result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Final disc difference for the side to move, empties to the winner.
    pub score: i32,
    /// A best move; `None` when the side to move must pass or the game is over.
    pub best: Option<Square>,
    /// The principal variation: moves for both sides in turn, `None` for a pass.
    pub pv: Vec<Option<Square>>,
    pub nodes: u64,
}

/// Zeroable: tables are allocated zeroed, so that the system maps their pages lazily instead of
/// the program writing hundreds of megabytes before the first move.
#[derive(Clone, Copy, Default, bytemuck::Zeroable)]
struct Entry {
    player: u64,
    opponent: u64,
    lower: i8,
    upper: i8,
    best: u8,
    empties: u8,
}

/// Score bounds and best moves of solved positions, keyed by the full board (no false hits).
struct Table {
    entries: Vec<Entry>,
    mask: usize,
}

const NO_MOVE: u8 = 64;

impl Table {
    fn new(bits: u32) -> Table {
        Table {
            entries: bytemuck::zeroed_vec(1 << bits),
            mask: (1 << bits) - 1,
        }
    }

    #[inline]
    fn index(&self, board: Board) -> usize {
        let h =
            board.player.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ board.opponent.0.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        ((h ^ (h >> 31)) as usize) & self.mask
    }

    #[inline]
    fn probe(&self, board: Board) -> Option<&Entry> {
        let entry = &self.entries[self.index(board)];
        (entry.player == board.player.0 && entry.opponent == board.opponent.0 && entry.empties != 0).then_some(entry)
    }

    #[inline]
    fn store(&mut self, board: Board, empties: u32, alpha: i32, beta: i32, score: i32, best: u8) {
        let index = self.index(board);
        let entry = &mut self.entries[index];
        let same = entry.player == board.player.0 && entry.opponent == board.opponent.0 && entry.empties != 0;
        // Keep the deeper of two different positions: it cost more to find.
        if !same && entry.empties > empties as u8 + 2 {
            return;
        }
        let (mut lower, mut upper) = if same {
            (entry.lower as i32, entry.upper as i32)
        } else {
            (-MAX_SCORE, MAX_SCORE)
        };
        if score > alpha {
            lower = lower.max(score);
        }
        if score < beta {
            upper = upper.min(score);
        }
        *entry = Entry {
            player: board.player.0,
            opponent: board.opponent.0,
            lower: lower as i8,
            upper: upper as i8,
            best: if best == NO_MOVE && same { entry.best } else { best },
            empties: empties as u8,
        };
    }
}

/// Quadrant masks, for parity ordering: a move in a region with an odd number of empties tends to
/// leave the last move there to us.
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0f0f_0f0f,
    0x0000_0000_f0f0_f0f0,
    0x0f0f_0f0f_0000_0000,
    0xf0f0_f0f0_0000_0000,
];

/// The empty squares of a small search: the list, its length, and the parity of each quadrant
/// (bit q set when quadrant q has an odd number of them).
#[derive(Clone, Copy)]
struct SmallEmpties {
    squares: [u8; SMALL_EMPTIES as usize],
    count: usize,
    parity: u8,
}

/// An odd number strictly between `lower` and `upper` (even bounds, lower < upper), as near `value`
/// as possible: the threshold of the next null-window test.
fn odd_between(value: i32, lower: i32, upper: i32) -> i32 {
    let odd = if value % 2 == 0 { value + 1 } else { value };
    odd.clamp(lower + 1, upper - 1)
}

/// The quadrant (0-3) of each square.
const QUADRANT_OF: [u8; 64] = {
    let mut quadrants = [0u8; 64];
    let mut square = 0;
    while square < 64 {
        quadrants[square] = ((square / 32) * 2 + (square % 8) / 4) as u8;
        square += 1;
    }
    quadrants
};

/// How the empty squares of a game that ends before the board is full are counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Counting {
    /// They go to the winner (the usual convention, and the FFO suite's).
    #[default]
    EmptiesToWinner,
    /// They count for nobody: the difference of the discs on the board (the course's Lab 5).
    DiscsOnly,
}

/// The score of a finished game (or of one stopped there), its empty squares counted by `counting`.
#[inline(always)]
fn final_score(player: u64, opponent: u64, counting: Counting) -> i32 {
    let difference = player.count_ones() as i32 - opponent.count_ones() as i32;
    if counting == Counting::DiscsOnly {
        return difference;
    }
    let empties = 64 - (player | opponent).count_ones() as i32;
    match difference.signum() {
        1 => difference + empties,
        -1 => difference - empties,
        _ => 0,
    }
}

/// Which of several optimal lines `solve` gives.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Line {
    /// The table's move first: the quickest to find.
    TableFirst,
    /// The lowest-index optimal move at every ply.
    LowestIndex,
}

/// Solves positions exactly; keeps its table between calls, so related positions solve faster.
pub struct Solver {
    table: Table,
    nodes: u64,
    deadline: Option<Instant>,
    /// Stops a search once it has visited this many nodes (reproducible, unlike a deadline).
    node_limit: Option<u64>,
    /// The node count at which `tick` next checks the limits.
    next_check: u64,
    out_of_time: bool,
    counting: Counting,
    /// Set by another thread to end the search early.
    stop: Option<Arc<AtomicBool>>,
}

/// Nodes between two checks of the clock and the node limit (about 0.2 ms).
const CHECK_EVERY: u64 = 4096;

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// A solver with a 2^22-entry table (about 100 MB).
    pub fn new() -> Solver {
        Solver::with_table_bits(22)
    }

    pub fn with_table_bits(bits: u32) -> Solver {
        Solver {
            table: Table::new(bits),
            nodes: 0,
            deadline: None,
            node_limit: None,
            next_check: 0,
            out_of_time: false,
            counting: Counting::EmptiesToWinner,
            stop: None,
        }
    }

    /// A solver that counts the empty squares of a game ending early by `counting`; its table
    /// holds scores counted that way only.
    pub fn with_counting(bits: u32, counting: Counting) -> Solver {
        Solver {
            counting,
            ..Solver::with_table_bits(bits)
        }
    }

    /// Stops searches once they have visited `limit` nodes (they then return `OutOfTime`).
    pub fn set_node_limit(&mut self, limit: Option<u64>) {
        self.node_limit = limit;
    }

    /// Stops searches once another thread sets `stop` (they then return `OutOfTime`).
    pub fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// Stops searches at `deadline` (they then return `OutOfTime`).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The exact score of `board` for its side to move, a best move and the principal variation.
    pub fn solve(&mut self, board: Board) -> Result<Solution, OutOfTime> {
        with_cpu!(C => self.solve_at::<C>(board, Line::TableFirst))
    }

    /// `solve`, with the line that takes the lowest-index optimal move at every ply (as Lab 5 asks:
    /// the same line whatever the table remembers); `best` is its first move.
    pub fn solve_lowest_line(&mut self, board: Board) -> Result<Solution, OutOfTime> {
        with_cpu!(C => self.solve_at::<C>(board, Line::LowestIndex))
    }

    fn solve_at<C: Cpu>(&mut self, board: Board, line: Line) -> Result<Solution, OutOfTime> {
        self.nodes = 0;
        self.next_check = 0;
        self.out_of_time = false;
        let (score, mut best) = self.converge::<C>(board)?;
        let pv = self.principal_variation::<C>(board, score, line)?;
        if line == Line::LowestIndex {
            best = pv.first().copied().flatten();
        }
        Ok(Solution {
            score,
            best,
            pv,
            nodes: self.nodes,
        })
    }

    /// Whether the exact score of `board` lies in (alpha, beta): the score if it does, a bound
    /// otherwise (fail-soft), as alpha-beta returns it.
    pub fn search_window(&mut self, board: Board, alpha: i32, beta: i32) -> Result<i32, OutOfTime> {
        with_cpu!(C => self.window::<C>(board, alpha, beta))
    }

    fn window<C: Cpu>(&mut self, board: Board, alpha: i32, beta: i32) -> Result<i32, OutOfTime> {
        self.out_of_time = false;
        let score = self.search::<C>(board, alpha, beta, board.empty_count(), false);
        if self.out_of_time { Err(OutOfTime) } else { Ok(score) }
    }

    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// MTD(f) from 0: null-window tests at the root, each moving a bound on the score, until the
    /// bounds meet. With empties to the winner scores are even (discs plus empties make 64), so each
    /// test asks "more than t?" for an odd t; counting discs only, any t. (Measured on FFO #45 and #48: climbing from 0 beat both an exact first guess and
    /// galloping strides, because tests that fail high are cheap; except near a wipe-out, see
    /// `GALLOP_FROM`.)
    fn converge<C: Cpu>(&mut self, board: Board) -> Result<(i32, Option<Square>), OutOfTime> {
        let (mut lower, mut upper) = (-MAX_SCORE, MAX_SCORE);
        let mut best = None;
        let mut target = 0;
        // Tests in a row that failed the same way: high, or low.
        let (mut rises, mut falls) = (0u32, 0u32);
        while lower < upper {
            let t = match self.counting {
                Counting::EmptiesToWinner => odd_between(target, lower, upper),
                Counting::DiscsOnly => target.clamp(lower, upper - 1),
            };
            let (score, proven) = self.root::<C>(board, t, t + 1)?;
            if score > t {
                lower = score;
                best = proven;
                (rises, falls) = (rises + 1, 0);
            } else {
                upper = score;
                (rises, falls) = (0, falls + 1);
            }
            // Near a wipe-out, moving by 2 takes a test for every 2 discs: stride, doubling.
            let stride = |streak: u32| 2 * (1 << (streak - 2).min(4));
            target = if rises >= 2 && score >= GALLOP_FROM {
                score + stride(rises)
            } else if falls >= 2 && score <= -GALLOP_FROM {
                score - stride(falls)
            } else {
                score
            };
        }
        if best.is_none() && !board.moves().is_empty() {
            // Never above the lower bound -64: every move loses everything; any is best.
            best = board.moves().first();
        }
        Ok((lower, best))
    }

    /// The root: every move with a null window against the best so far, re-searched when it is better.
    fn root<C: Cpu>(&mut self, board: Board, alpha: i32, beta: i32) -> Result<(i32, Option<Square>), OutOfTime> {
        let original_alpha = alpha;
        let moves = board.moves();
        if moves.is_empty() {
            let score = self.window::<C>(board, alpha, beta)?;
            return Ok((score, None));
        }
        let empties = board.empty_count();
        let mut best_score = -MAX_SCORE - 1;
        let mut best = None;
        let mut alpha = alpha;
        for square in self.ordered_moves(board, moves) {
            let child = board.play(square);
            let score = pvs_child(best.is_none(), alpha, beta, |a, b| {
                self.search::<C>(child, a, b, empties - 1, false)
            });
            if self.out_of_time {
                return Err(OutOfTime);
            }
            if score > best_score {
                best_score = score;
                best = Some(square);
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
        }
        self.table.store(
            board,
            empties,
            original_alpha,
            beta,
            best_score,
            best.map_or(NO_MOVE, |s| s.index() as u8),
        );
        Ok((best_score, best))
    }

    /// Follows moves whose value is the known score to the end of the game, trying the table's move
    /// first or the moves in index order.
    fn principal_variation<C: Cpu>(
        &mut self,
        mut board: Board,
        mut score: i32,
        line: Line,
    ) -> Result<Vec<Option<Square>>, OutOfTime> {
        let mut pv = Vec::new();
        loop {
            let moves = board.moves();
            if moves.is_empty() {
                if board.opponent_moves().is_empty() {
                    return Ok(pv);
                }
                pv.push(None);
                board = board.pass();
                score = -score;
                continue;
            }
            let hinted = self
                .table
                .probe(board)
                .and_then(|e| Square::new(e.best))
                .filter(|&s| moves.contains(s) && line == Line::TableFirst);
            let mut next = None;
            for square in hinted.into_iter().chain(moves.squares().filter(|&s| Some(s) != hinted)) {
                let child = board.play(square);
                // The child is worth exactly -score when a window around it returns -score.
                if self.window::<C>(child, -score - 1, -score + 1)? == -score {
                    next = Some((square, child));
                    break;
                }
            }
            let (square, child) = next.expect("some move reaches the exact score");
            pv.push(Some(square));
            board = child;
            score = -score;
        }
    }

    /// Moves in the order the search should try them: the table's move, then fastest-first.
    fn ordered_moves(&self, board: Board, moves: Bitboard) -> Vec<Square> {
        let hinted = self.table.probe(board).map_or(NO_MOVE, |e| e.best);
        let mut keyed: Vec<(i32, Square)> = moves
            .squares()
            .map(|square| {
                let key = if square.index() as u8 == hinted {
                    i32::MIN
                } else {
                    ordering_key(board.play(square), square)
                };
                (key, square)
            })
            .collect();
        keyed.sort_unstable_by_key(|&(key, _)| key);
        keyed.into_iter().map(|(_, square)| square).collect()
    }

    /// Counts a node and, every `CHECK_EVERY` nodes, checks the limits. The count also grows in
    /// the small searches, which do not tick: a check on `nodes % CHECK_EVERY == 0` would mostly be
    /// stepped over (the clock was then read every 40,000 nodes or so, and deadlines overran).
    #[inline(always)]
    fn tick(&mut self) {
        self.nodes += 1;
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_EVERY;
            if self.node_limit.is_some_and(|limit| self.nodes >= limit)
                || self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
                || self.stop.as_ref().is_some_and(|stop| stop.load(Ordering::Relaxed))
            {
                self.out_of_time = true;
            }
        }
    }

    /// Fail-soft alpha-beta with null-window re-searches, the table and the ordering.
    #[inline(always)]
    fn search<C: Cpu>(&mut self, board: Board, alpha: i32, beta: i32, empties: u32, passed: bool) -> i32 {
        at_level!(C, self: Solver => search_body(board: Board, alpha: i32, beta: i32, empties: u32, passed: bool) -> i32)
    }

    #[inline(always)]
    fn search_body<C: Cpu>(&mut self, board: Board, mut alpha: i32, mut beta: i32, empties: u32, passed: bool) -> i32 {
        if empties <= SMALL_EMPTIES {
            return self.search_small::<C>(board.player.0, board.opponent.0, alpha, beta, empties);
        }
        self.tick();
        if self.out_of_time {
            return 0;
        }
        // The opponent keeps its stable discs, so we can score at most 64 - 2 x those. It cannot have
        // more stable discs than discs: that rules most nodes out before counting.
        if empties >= STABILITY_EMPTIES && MAX_SCORE - 2 * board.opponent.count() as i32 <= alpha {
            let ceiling = MAX_SCORE - 2 * stable_discs(board.opponent.0, board.player.0).count_ones() as i32;
            if ceiling <= alpha {
                return ceiling;
            }
            beta = beta.min(ceiling);
        }
        let mut hinted = NO_MOVE;
        if empties >= TABLE_EMPTIES
            && let Some(entry) = self.table.probe(board)
        {
            let (lower, upper) = (entry.lower as i32, entry.upper as i32);
            if lower >= beta {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            if lower == upper {
                return lower;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
            hinted = entry.best;
        }
        let moves = board.moves();
        if moves.is_empty() {
            return if passed {
                final_score(board.player.0, board.opponent.0, self.counting)
            } else {
                -self.search::<C>(board.pass(), -beta, -alpha, empties, true)
            };
        }
        let original_alpha = alpha;
        // At most 64 moves fit on a board; the list is not initialised beyond what is pushed.
        let mut keyed: ArrayVec<(i32, Square, Board), 64> = ArrayVec::new();
        let probe_children = empties > ETC_EMPTIES;
        for square in moves {
            let child = board.play_on::<C>(square);
            // Enhanced transposition cut-off: a child already known to be bad enough for the
            // opponent proves the cut without a search.
            if probe_children
                && let Some(entry) = self.table.probe(child)
                && -(entry.upper as i32) >= beta
            {
                let score = -(entry.upper as i32);
                self.table
                    .store(board, empties, original_alpha, beta, score, square.index() as u8);
                return score;
            }
            let key = if square.index() as u8 == hinted {
                i32::MIN
            } else if empties >= SHALLOW_ORDERING_EMPTIES {
                let depth = shallow_depth(empties);
                let value = self.shallow::<C>(child, depth, -SHALLOW_INFINITY, SHALLOW_INFINITY);
                ordering_key(child, square) * SHALLOW_MOBILITY_WEIGHT + value
            } else if empties >= RICH_ORDERING_EMPTIES {
                rich_ordering_key::<C>(child, square)
            } else {
                ordering_key(child, square)
            };
            keyed.push((key, square, child));
        }
        keyed.sort_unstable_by_key(|&(key, _, _)| key);
        let mut best_score = -MAX_SCORE - 1;
        let mut best_move = NO_MOVE;
        for (i, &(_, square, child)) in keyed.iter().enumerate() {
            let score = pvs_child(i == 0, alpha, beta, |a, b| {
                self.search::<C>(child, a, b, empties - 1, false)
            });
            if self.out_of_time {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = square.index() as u8;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if empties >= TABLE_EMPTIES {
            self.table
                .store(board, empties, original_alpha, beta, best_score, best_move);
        }
        best_score
    }

    /// The trained evaluation searched `depth` plies ahead (plain alpha-beta, no table), in
    /// 1/`SCALE` discs for the side to move: the ordering's guess at what a child is worth.
    #[inline(always)]
    fn shallow<C: Cpu>(&mut self, board: Board, depth: u32, alpha: i32, beta: i32) -> i32 {
        at_level!(C, self: Solver => shallow_body(board: Board, depth: u32, alpha: i32, beta: i32) -> i32)
    }

    #[inline(always)]
    fn shallow_body<C: Cpu>(&mut self, board: Board, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.tick();
        if depth == 0 {
            return crate::patterns::builtin().evaluate_at::<C>(board);
        }
        let moves = board.moves();
        if moves.is_empty() {
            if board.opponent_moves().is_empty() {
                return final_score(board.player.0, board.opponent.0, self.counting) * SCALE;
            }
            return -self.shallow::<C>(board.pass(), depth, -beta, -alpha);
        }
        let mut best = -SHALLOW_INFINITY;
        for square in moves {
            let value = -self.shallow::<C>(board.play_on::<C>(square), depth - 1, -beta, -alpha);
            if value > best {
                best = value;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Few empties: no move generation, the empty squares tried directly, odd regions first.
    #[inline(always)]
    fn search_small<C: Cpu>(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32, empties: u32) -> i32 {
        let empty = !(player | opponent);
        let mut squares = [0u8; SMALL_EMPTIES as usize];
        for (slot, square) in squares.iter_mut().zip(Bitboard(empty)) {
            *slot = square.index() as u8;
        }
        let parity = QUADRANTS.iter().enumerate().fold(0u8, |parity, (q, &mask)| {
            parity | (((empty & mask).count_ones() & 1) as u8) << q
        });
        self.small::<C>(
            player,
            opponent,
            alpha,
            beta,
            SmallEmpties {
                squares,
                count: empties as usize,
                parity,
            },
        )
    }

    /// The search below `SMALL_EMPTIES`, over the listed empty squares.
    #[inline(always)]
    fn small<C: Cpu>(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32, empties: SmallEmpties) -> i32 {
        at_level!(C, self: Solver => small_body(player: u64, opponent: u64, alpha: i32, beta: i32, empties: SmallEmpties) -> i32)
    }

    #[inline(always)]
    fn small_body<C: Cpu>(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32, empties: SmallEmpties) -> i32 {
        let SmallEmpties {
            squares,
            count: n,
            parity,
        } = empties;
        match n {
            0 => final_score(player, opponent, self.counting),
            1 => {
                self.nodes += 1;
                last_square_score::<C>(player, opponent, Square::from_index(squares[0]), self.counting)
            }
            2 => self.two_empties::<C>(player, opponent, beta, squares[0], squares[1]),
            _ => {
                self.nodes += 1;
                let mut best_score = -MAX_SCORE - 1;
                let moves = legal_moves(player, opponent);
                if moves != 0 {
                    for want_odd in [1, 0] {
                        for i in 0..n {
                            let square = squares[i];
                            let quadrant = QUADRANT_OF[square as usize];
                            if (parity >> quadrant) & 1 != want_odd || moves & (1 << square) == 0 {
                                continue;
                            }
                            let flipped = C::flips(player, opponent, Square::from_index(square));
                            let mut rest = squares;
                            rest[i] = rest[n - 1];
                            let rest = SmallEmpties {
                                squares: rest,
                                count: n - 1,
                                parity: parity ^ (1 << quadrant),
                            };
                            let score = -self.small::<C>(
                                opponent ^ flipped,
                                player ^ flipped ^ (1 << square),
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

/// Fastest-first: the fewer replies a move (to `square`, giving `child`) leaves the opponent, corners
/// counting double, the sooner it is tried; smaller keys first.
#[inline(always)]
fn ordering_key(child: Board, square: Square) -> i32 {
    let replies = child.moves();
    let corner_replies = (replies & Bitboard::CORNERS).count() as i32;
    let corner_bonus = if Bitboard::CORNERS.contains(square) { -4 } else { 0 };
    // Parity: a move into a quadrant with an odd number of empties (counted before the move).
    let quadrant = QUADRANTS[QUADRANT_OF[square.index()] as usize];
    let parity_bonus = if (child.empties().0 & quadrant).count_ones().is_multiple_of(2) {
        -PARITY_WEIGHT
    } else {
        0
    };
    (replies.count() as i32 + corner_replies) * 4 + corner_bonus + parity_bonus
}

/// Parity breaks ties between moves leaving the same mobility (it weighs less than one reply).
const PARITY_WEIGHT: i32 = 2;

/// From this many empties the ordering also weighs the opponent's potential mobility, our stable
/// discs and the trained evaluation: dearer keys, repaid by the size of the subtrees they order.
/// (FFO #40-#44: from 14 empties, 256 M nodes against 330 M without the evaluation. With the fast
/// evaluation and the shallow searches above, #40-#45 from 12, 13 and 14: 630 M, 637 M and 670 M
/// nodes, 13 the quickest by a little.)
const RICH_ORDERING_EMPTIES: u32 = 13;

/// From this many empties the children are ordered by a shallow search of the trained evaluation
/// (as the strong solvers do): the subtrees are big enough to repay it. (FFO #40-#44, tried from
/// 16, 18 and 20 empties, depths 0-3, mobility weights 0-24, an earlier evaluation: 222 M nodes at 18 against
/// 256 M with the evaluation alone; #49 830 M against 1,767 M. A first MTD test at a depth-6 guess
/// instead of 0 cost more on #40-#49, 2.17 G nodes against 1.88 G: a guess too high, as on #45,
/// makes every test on the way down a dear one that fails low.)
const SHALLOW_ORDERING_EMPTIES: u32 = 18;

/// Beyond any evaluation, in 1/`SCALE` discs.
const SHALLOW_INFINITY: i32 = 1 << 20;

/// Ordering-key units (1/`SCALE` disc of the shallow search) per unit of fastest-first key: one
/// reply for the opponent weighs one disc. (With the round-3 evaluation, FFO #40-#49: 1,306 M nodes
/// against 1,452 M at two discs, 1,336 M at 1.5, 1,321 M at half a disc, 1,368 M at none; the
/// weight was two discs, tuned with an earlier evaluation.)
const SHALLOW_MOBILITY_WEIGHT: i32 = 8;

/// How deep the ordering searches at `empties` empty squares.
fn shallow_depth(empties: u32) -> u32 {
    if empties >= 21 { 3 } else { 2 }
}

/// Ordering-key units per disc of the child's evaluation (one reply weighs 64).
const EVALUATION_WEIGHT: i32 = 16;

/// Fastest-first refined: replies weigh most, then the empty squares next to our discs (where the
/// opponent's later moves come from), our stable discs, and what the trained evaluation says the
/// child is worth to the opponent.
#[inline(always)]
fn rich_ordering_key<C: Cpu>(child: Board, square: Square) -> i32 {
    let ours = child.opponent.0;
    let around_ours = {
        let sideways = ((ours << 1) & 0xfefe_fefe_fefe_fefe) | ((ours >> 1) & 0x7f7f_7f7f_7f7f_7f7f);
        let row = sideways | ours;
        sideways | (row << 8) | (row >> 8)
    };
    let potential = (around_ours & child.empties().0).count_ones() as i32;
    let stable = stable_discs(ours, child.player.0).count_ones() as i32;
    let evaluation = crate::patterns::builtin().evaluate_at::<C>(child) * EVALUATION_WEIGHT / SCALE;
    ordering_key(child, square) * 16 + 8 * potential - 8 * stable + evaluation
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let score = last_square_score::<crate::cpu::Portable>(player, opponent, empty, Counting::EmptiesToWinner);
            assert_eq!(score, expected, "{board:?}");
            let discs_only = if board.flips(empty).is_empty() && board.pass().flips(empty).is_empty() {
                board.disc_difference()
            } else {
                expected
            };
            let score = last_square_score::<crate::cpu::Portable>(player, opponent, empty, Counting::DiscsOnly);
            assert_eq!(score, discs_only, "{board:?}");
        }
    }
}

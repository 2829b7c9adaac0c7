//! The exact endgame solver: the final disc difference under perfect play (empty squares going to
//! the winner), with a best move and principal variation.
//!
//! Techniques, all public in the Othello literature: null-window (PVS) alpha-beta; a transposition
//! table holding score bounds and best moves; fastest-first move ordering (fewest replies for the
//! opponent, corners first) with the table's move tried first; parity ordering and no move generation
//! near the end (the empty squares are tried directly); the last empty square counted, not played;
//! stability cut-offs (discs the opponent can never lose bound our best score); and, on big
//! positions, selective searches first (probable cuts from shallow searches of the trained
//! evaluation; one by default, several of rising sureness for a timed engine), whose results and
//! moves start the next. Table entries say how sure their bounds are: a surer search, the exact
//! one above all, takes a less sure entry's move as a hint, never its bounds.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use arrayvec::ArrayVec;

use super::best_child;
use super::limits::Limits;
use super::ordering;
use super::probcut;
use super::table::{NO_MOVE, Packed, Table};
use super::threads::{self, Busy};
use crate::patterns::{Features, SCALE, Weights};
use crate::stability::stable_discs;
use othello_core::bitboard::Bitboard;
use othello_core::board::Board;
use othello_core::cpu::{Cpu, at_level, with_cpu};
use othello_core::square::Square;

mod entry;
mod last_flips;
mod settings;
mod small;

use entry::{Entry, record};
use settings::*;

/// Beyond any evaluation, in 1/`SCALE` discs.
const SHALLOW_INFINITY: i32 = 1 << 20;

/// How sure a search's bounds are: a selective search's, by the standard deviations (in tenths)
/// its probable cuts keep from the window; an exact search's are `PROVEN`. A search takes the
/// bounds of the table's entries at least as sure as its own, and the moves of any.
type Confidence = u8;
const PROVEN: Confidence = Confidence::MAX;

/// The best and worst possible scores.
const MAX_SCORE: i32 = 64;

/// A search stopped by its deadline; its partial results mean nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the search ran out of time")]
pub struct OutOfTime;

/// What a solve knows after one of its tests: the score lies in `lower..=upper`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub lower: i32,
    pub upper: i32,
    pub nodes: u64,
    /// Found by the selective search that comes first: likely, not proven.
    pub likely: bool,
}

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

/// An odd number strictly between `lower` and `upper` (even bounds, lower < upper), as near `value`
/// as possible: the threshold of the next null-window test.
fn odd_between(value: i32, lower: i32, upper: i32) -> i32 {
    let odd = if value % 2 == 0 { value + 1 } else { value };
    odd.clamp(lower + 1, upper - 1)
}

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
    /// Told the bounds on the score after each null-window test of a solve (for progress).
    observer: Option<Box<dyn FnMut(Bounds) + Send>>,
    /// Shared with the helpers of a search on several threads.
    table: Arc<Table<Entry>>,
    /// The evaluation its move ordering consults.
    weights: &'static Weights,
    nodes: u64,
    limits: Limits,
    counting: Counting,
    /// Threads a solve runs on, and while it runs on several, what they are searching.
    threads: usize,
    busy: Option<Arc<Busy>>,
    /// How sure the search in progress is: `PROVEN` for the exact one, else a selective one's
    /// probable cuts (for a first guess and the table's moves).
    confidence: Confidence,
    /// The selective searches a solve runs first, least sure first (`set_selective_levels`).
    levels: ArrayVec<Confidence, 4>,
    /// The last solve's selective result, once one of its selective searches finished: the
    /// likely score and its move (the surest search's that finished).
    likely: Option<(i32, Option<Square>)>,
    /// Whether each solve names its position to the table (`set_names_roots`).
    names_roots: bool,
}

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
        Solver::with_table(Table::new(bits))
    }

    /// A solver whose table's pages are mapped before its first search (`Table::new_mapped`), as
    /// a timed engine needs.
    pub(crate) fn with_mapped_table(bits: u32) -> Solver {
        Solver::with_table(Table::new_mapped(bits))
    }

    fn with_table(table: Table<Entry>) -> Solver {
        Solver {
            observer: None,
            table: Arc::new(table),
            weights: crate::patterns::builtin(),
            nodes: 0,
            limits: Limits::new(CHECK_EVERY),
            counting: Counting::EmptiesToWinner,
            threads: 1,
            busy: None,
            confidence: PROVEN,
            levels: ArrayVec::from_iter([PROBABLE_CUT_TENTHS]),
            likely: None,
            names_roots: false,
        }
    }

    /// Whether each solve names its position to the table as the game's (`Table::set_root`): a
    /// timed engine's solver does; by default entries are kept by depth alone, so that the node
    /// counts of a node budget's games, and of solving the children of one position, stay as they were.
    pub fn set_names_roots(&mut self, names_roots: bool) {
        self.names_roots = names_roots;
    }

    /// The selective searches a solve of `SELECTIVE_FROM` empties or more runs before the exact
    /// one, each sure to so many standard deviations (at most 4, rising; 0.1 to 25): each starts
    /// from the last one's result and its moves. By default one, at 1.5: the quickest exact solves.
    /// A timed engine that cannot hope to finish the exact search climbs from less sure ones, so
    /// that one of them finishes in its time (`likely`).
    /// `None` goes back to the default.
    pub fn set_selective_levels(&mut self, sigmas: Option<&[f64]>) {
        self.levels = match sigmas {
            Some(sigmas) => sigmas
                .iter()
                .take(4)
                .map(|&sigma| (sigma * 10.0).round().clamp(1.0, 250.0) as Confidence)
                .collect(),
            None => ArrayVec::from_iter([PROBABLE_CUT_TENTHS]),
        };
    }

    /// Solves on `threads` threads (at least 1): the same scores, found sooner; the node counts,
    /// which add up every thread's, vary from run to run.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// A solver for another thread of the same solve: the same table and the same view of what is
    /// being searched, its own count, stopped by `done` or the deadline.
    fn helper(&self, done: Arc<AtomicBool>) -> Solver {
        let mut limits = Limits::new(CHECK_EVERY);
        limits.deadline = self.limits.deadline;
        limits.stop = Some(done);
        Solver {
            observer: None,
            table: self.table.clone(),
            weights: self.weights,
            nodes: 0,
            limits,
            counting: self.counting,
            threads: 1,
            busy: self.busy.clone(),
            confidence: PROVEN,
            levels: self.levels.clone(),
            likely: None,
            names_roots: self.names_roots,
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

    /// Calls `observer` after each null-window test of a solve with what is known so far.
    pub fn set_observer(&mut self, observer: Option<Box<dyn FnMut(Bounds) + Send>>) {
        self.observer = observer;
    }

    /// Orders moves with `weights` (the engine's own) instead of the default ones.
    pub fn set_weights(&mut self, weights: &'static Weights) {
        self.weights = weights;
    }

    /// Stops searches once they have visited `limit` nodes (they then return `OutOfTime`).
    pub fn set_node_limit(&mut self, limit: Option<u64>) {
        self.limits.node_limit = limit;
    }

    /// Stops searches once another thread sets `stop` (they then return `OutOfTime`).
    pub fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.limits.stop = Some(stop);
    }

    /// Stops searches at `deadline` (they then return `OutOfTime`).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.limits.deadline = deadline;
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
        self.likely = None;
        self.limits.restart();
        self.table.set_root(self.names_roots.then_some(board));
        let (score, mut best) = if self.threads > 1 {
            self.converge_together::<C>(board)?
        } else {
            self.converge::<C>(board)?
        };
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
        self.limits.resume();
        self.table.set_root(self.names_roots.then_some(board));
        let score = self.search::<C>(board, alpha, beta, board.empty_count(), false);
        if self.limits.stopped() {
            Err(OutOfTime)
        } else {
            Ok(score)
        }
    }

    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// What the last solve's surest selective search that finished found (from `SELECTIVE_FROM`
    /// empties): the likely score and its move. A solve cut off by its deadline after that still
    /// has a better guess than a short midgame search.
    pub fn likely(&self) -> Option<(i32, Square)> {
        self.likely.and_then(|(score, best)| Some((score, best?)))
    }

    /// `converge` on every thread at once, sharing the table: the helpers' results are the table's;
    /// this thread's is the answer (every thread's would be the same).
    fn converge_together<C: Cpu>(&mut self, board: Board) -> Result<(i32, Option<Square>), OutOfTime> {
        let done = Arc::new(AtomicBool::new(false));
        self.busy = Some(Arc::new(Busy::new()));
        let helpers: Vec<Solver> = (1..self.threads).map(|_| self.helper(done.clone())).collect();
        let (result, helper_nodes) = std::thread::scope(|scope| {
            let running: Vec<_> = helpers
                .into_iter()
                .map(|mut helper| {
                    scope.spawn(move || {
                        // A helper that finishes first has put the answer in the table: it rests.
                        let _ = helper.converge::<C>(board);
                        helper.nodes
                    })
                })
                .collect();
            let result = self.converge::<C>(board);
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            let nodes: u64 = running.into_iter().map(|helper| helper.join().unwrap_or(0)).sum();
            (result, nodes)
        });
        self.busy = None;
        self.nodes += helper_nodes;
        result
    }

    /// MTD(f): null-window tests at the root, each moving a bound on the score, until the bounds
    /// meet. With empties to the winner scores are even (discs plus empties make 64), so each test
    /// asks "more than t?" for an odd t; counting discs only, any t. From `SELECTIVE_FROM` empties
    /// the tests start at a selective search's result (which starts at a shallow search's), else
    /// at 0. (Measured on FFO #45 and #48 before the selective search: climbing from 0 beat both an exact first guess and galloping
    /// strides, because tests that fail high are cheap; except near a wipe-out, see `GALLOP_FROM`.
    /// What the selective search adds is its moves in the table.)
    fn converge<C: Cpu>(&mut self, board: Board) -> Result<(i32, Option<Square>), OutOfTime> {
        let mut guess = 0;
        if board.empty_count() >= SELECTIVE_FROM {
            let evaluation = self.shallow::<C>(
                board,
                &Features::of_at::<C>(board),
                SELECTIVE_GUESS_DEPTH,
                -SHALLOW_INFINITY,
                SHALLOW_INFINITY,
            );
            // Each level starts from the last one's result; the exact search from the surest.
            guess = (f64::from(evaluation) / f64::from(SCALE)).round() as i32;
            for level in self.levels.clone() {
                self.confidence = level;
                let likely = self.converge_from::<C>(board, guess);
                self.confidence = PROVEN;
                let likely = likely?;
                self.likely = Some(likely);
                guess = likely.0;
            }
        }
        self.converge_from::<C>(board, guess)
    }

    /// MTD(f) from `guess`: the exact search, or a selective one while `confidence` says so.
    fn converge_from<C: Cpu>(&mut self, board: Board, start: i32) -> Result<(i32, Option<Square>), OutOfTime> {
        let (mut lower, mut upper) = (-MAX_SCORE, MAX_SCORE);
        let mut best = None;
        let mut target = start;
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
            let nodes = self.nodes;
            if let Some(observer) = &mut self.observer {
                observer(Bounds {
                    lower,
                    upper,
                    nodes,
                    likely: self.confidence != PROVEN,
                });
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
        let ordered = self.ordered_moves(board, moves);
        let children = ordered.into_iter().map(|square| (square, board.play(square)));
        let (best_score, best) = self
            .best_of::<C>(children, alpha, beta, empties)
            .map_err(|_| OutOfTime)?;
        self.record(board, empties, original_alpha, beta, best_score, best);
        Ok((best_score, Square::new(best)))
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
                .and_then(|(e, _)| Square::new(e.best))
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
        let hinted = self.table.probe(board).map_or(NO_MOVE, |(e, _)| e.best);
        let mut keyed: Vec<(i32, Square)> = moves
            .squares()
            .map(|square| {
                let key = if square.index() as u8 == hinted {
                    i32::MIN
                } else {
                    ordering::with_parity(board.play(square), square)
                };
                (key, square)
            })
            .collect();
        keyed.sort_unstable_by_key(|&(key, _)| key);
        keyed.into_iter().map(|(_, square)| square).collect()
    }

    /// `record`s in this solver's table, as sure as the search in progress.
    #[inline(always)]
    fn record(&self, board: Board, empties: u32, alpha: i32, beta: i32, score: i32, best: u8) {
        record(&self.table, board, empties, alpha, beta, score, best, self.confidence);
    }

    /// Counts a node and says whether the search must stop. The count also grows in the small
    /// searches, which do not tick (a check on a multiple of `CHECK_EVERY` would mostly be stepped
    /// over: the clock was then read every 40,000 nodes or so, and deadlines overran).
    #[inline(always)]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        self.limits.reached(self.nodes)
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
        if self.tick() {
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
            && let Some((entry, _)) = self.table.probe(board)
        {
            hinted = entry.best;
            // A less sure search's bounds are only likely: a surer one takes its move alone.
            if entry.confidence >= self.confidence {
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
            }
        }
        if self.confidence != PROVEN
            && empties >= PROBABLE_CUT_EMPTIES
            && let Some(score) = self.probable_cut::<C>(board, alpha, beta, empties)
        {
            return score;
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
        // The children first, their buckets fetched while the others are made: the probes below
        // then mostly find them in the cache.
        for square in moves {
            let child = board.play_on::<C>(square);
            if probe_children {
                self.table.prefetch(child);
            }
            keyed.push((0, square, child));
        }
        // Enhanced transposition cut-off: a child already known to be bad enough for the opponent
        // proves the cut without a search.
        if probe_children {
            for &(_, square, child) in &keyed {
                if let Some((entry, _)) = self.table.probe(child)
                    && entry.confidence >= self.confidence
                    && -(entry.upper as i32) >= beta
                {
                    let score = -(entry.upper as i32);
                    self.record(board, empties, original_alpha, beta, score, square.index() as u8);
                    return score;
                }
            }
        }
        // The table's move before the others are ordered: it often cuts, and then the ordering,
        // a shallow search of every child in the biggest nodes, is never needed.
        let mut first = (-MAX_SCORE - 1, NO_MOVE);
        if let Some(i) = keyed.iter().position(|&(_, square, _)| square.index() as u8 == hinted) {
            let (_, square, child) = keyed.remove(i);
            let Ok(found) = self.best_of::<C>([(square, child)], alpha, beta, empties) else {
                return 0;
            };
            if found.0 >= beta || keyed.is_empty() {
                if empties >= TABLE_EMPTIES {
                    self.record(board, empties, original_alpha, beta, found.0, found.1);
                }
                return found.0;
            }
            first = found;
            alpha = alpha.max(found.0);
        }
        let features = (empties >= RICH_ORDERING_EMPTIES).then(|| Features::of_at::<C>(board));
        for (key, square, child) in &mut keyed {
            let (square, child) = (*square, *child);
            *key = if let Some(features) = &features {
                let child_features = features.after(board, child);
                if empties >= SHALLOW_ORDERING_EMPTIES {
                    let depth = shallow_depth(empties);
                    let value = self.shallow::<C>(child, &child_features, depth, -SHALLOW_INFINITY, SHALLOW_INFINITY);
                    ordering::searched(child, square, value)
                } else {
                    ordering::rich(self.weights, child, &child_features, square)
                }
            } else {
                ordering::with_parity(child, square)
            };
        }
        keyed.sort_unstable_by_key(|&(key, _, _)| key);
        let children = keyed.iter().map(|&(_, square, child)| (square, child));
        let Ok(rest) = self.best_of::<C>(children, alpha, beta, empties) else {
            return 0;
        };
        let (best_score, best_move) = if rest.0 > first.0 { rest } else { first };
        if empties >= TABLE_EMPTIES {
            self.record(board, empties, original_alpha, beta, best_score, best_move);
        }
        best_score
    }

    /// The PVS loop over `children` of a node with `empties` empty squares; on several threads, from
    /// `SHARED_EMPTIES` (where subtrees are big enough to pay for an Arc clone a node), children
    /// another thread is searching wait for last.
    #[inline(always)]
    fn best_of<C: Cpu>(
        &mut self,
        children: impl IntoIterator<Item = (Square, Board)>,
        alpha: i32,
        beta: i32,
        empties: u32,
    ) -> Result<(i32, u8), (i32, u8)> {
        let busy = if empties >= SHARED_EMPTIES {
            self.busy.clone()
        } else {
            None
        };
        best_child(
            children,
            alpha,
            beta,
            -MAX_SCORE - 1,
            |child| threads::is_busy(busy.as_deref(), child),
            |child, a, b| {
                let score = threads::marked(busy.as_deref(), child, || {
                    self.search::<C>(child, a, b, empties - 1, false)
                });
                (!self.limits.stopped()).then_some(score)
            },
        )
    }

    /// In a selective search: a bound the shallow search makes likely enough to cut on, if any.
    #[inline(always)]
    fn probable_cut<C: Cpu>(&mut self, board: Board, alpha: i32, beta: i32, empties: u32) -> Option<i32> {
        let depth = probable_cut_depth(empties);
        // The midgame's fitted spread, taken out to a search as deep as the empties: not fitted on
        // exact scores, but its cuts only make a guess; the exact search never sees them.
        let sigma = probcut::sigma(empties, depth, empties) * f64::from(self.confidence) / 10.0;
        let margin = (sigma * f64::from(SCALE)) as i32;
        // Scores counted with empties to the winner are even: so are the bounds returned.
        let even = self.counting == Counting::EmptiesToWinner;
        // Null windows at the two thresholds: a shallow search only has to say which side it is on.
        let features = Features::of_at::<C>(board);
        let high = beta * SCALE + margin;
        if beta < MAX_SCORE && self.shallow::<C>(board, &features, depth, high - 1, high) >= high {
            return Some(if even { beta + (beta & 1) } else { beta });
        }
        let low = alpha * SCALE - margin;
        if alpha > -MAX_SCORE && self.shallow::<C>(board, &features, depth, low, low + 1) <= low {
            return Some(if even { alpha - (alpha & 1) } else { alpha });
        }
        None
    }

    /// The trained evaluation searched `depth` plies ahead (plain alpha-beta, no table), in
    /// 1/`SCALE` discs for the side to move: the ordering's guess at what a child is worth.
    /// `features` are `board`'s, carried down as the midgame search carries them.
    #[inline(always)]
    fn shallow<C: Cpu>(&mut self, board: Board, features: &Features, depth: u32, alpha: i32, beta: i32) -> i32 {
        at_level!(C, self: Solver => shallow_body(board: Board, features: &Features, depth: u32, alpha: i32, beta: i32) -> i32)
    }

    #[inline(always)]
    fn shallow_body<C: Cpu>(
        &mut self,
        board: Board,
        features: &Features,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.tick();
        if depth == 0 {
            return self.weights.pattern_value(board, board.moves(), features);
        }
        let moves = board.moves();
        if moves.is_empty() {
            if board.opponent_moves().is_empty() {
                return final_score(board.player.0, board.opponent.0, self.counting) * SCALE;
            }
            return -self.shallow::<C>(board.pass(), &features.passed(), depth, -beta, -alpha);
        }
        let mut best = -SHALLOW_INFINITY;
        for square in moves {
            let child = board.play_on::<C>(square);
            let value = -self.shallow::<C>(child, &features.after(board, child), depth - 1, -beta, -alpha);
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
}

#[cfg(test)]
mod tests;

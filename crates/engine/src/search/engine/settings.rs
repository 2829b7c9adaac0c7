//! The engine's tuning switches (the midgame search's, and when it turns to the solver), one line
//! each with the measurement that chose it (AMD EPYC, `othello solve --threads 1` unless said); the
//! sweeps behind them are in docs/history.md, "The engine's settings".

use super::patterns;

/// A timed engine solves where one thread's median solve, 0.42 s at 22 empties, ...
pub(super) const SOLVE_EMPTIES: u32 = 22;
/// ... fits the time left (medians 0.42, 0.9, 1.75, 2.8 s at 22-25 empties, NTest's games) ...
pub(super) const SOLVE_SECONDS: f64 = 0.42;
/// ... growing this much an empty square more.
pub(super) const SOLVE_GROWTH: f64 = 2.1;
/// The fewest empties a timed engine's solving rule reaches for, however short its time.
pub(super) const MIN_SOLVE_EMPTIES: u32 = 14;
/// The most, however long its time.
pub(super) const MAX_SOLVE_EMPTIES: u32 = 30;
/// Beyond its reach it runs selective searches to the end where the least sure finishes four
/// times in five: 0.5 s at 26 empties ...
pub(super) const SELECTIVE_EMPTIES: u32 = 26;
/// ... (four in five within 0.2, 0.4, 0.6, 1.9 s at 24, 26, 27, 28 empties) ...
pub(super) const SELECTIVE_SECONDS: f64 = 0.5;
/// ... growing this much an empty square more.
pub(super) const SELECTIVE_GROWTH: f64 = 1.85;
/// The standard deviations of its selective searches' probable cuts, least sure first (as Edax climbs its levels).
pub(super) const SELECTIVE_LEVELS: [f64; 3] = [1.0, 1.5, 2.0];
/// A node budget solves from this many empties, as it always has (its games stay the same).
pub(super) const NODES_SOLVE_EMPTIES: u32 = 24;
/// The share of the time the midgame search gets before the solver is tried.
pub(super) const MIDGAME_SHARE_BEFORE_SOLVING: f64 = 0.25;
/// The share of a move's time or nodes spent on a forced move: only a value.
pub(super) const FORCED_SHARE: f64 = 0.1;
/// The share of a node budget after which no iteration starts (its games stay the same).
pub(super) const NODES_USABLE_SHARE: f64 = 0.92;
/// Thousandths of a disc per unit of the hand-made evaluation by stage (50-60, 40-49, 30-39, 25-29,
/// 0-24 empties; least squares over 400 games of engine:nodes=20000, scripts/calibrate-engine.py).
pub(super) const ESTIMATE_SCALES: [i64; 5] = [126, 111, 73, 58, 58];
/// Nodes between two looks at the clock.
pub(super) const CHECK_EVERY: u64 = 1024;
/// The largest table: 2^20 entries of 32 bytes (the solver's twice as many, of 24).
pub(super) const TABLE_BITS: u32 = 20;
/// The smallest: 2^12.
pub(super) const MIN_TABLE_BITS: u32 = 12;
/// A rough node rate, to size a timed engine's tables.
pub(super) const NODES_PER_SECOND: f64 = 20e6;
/// From this depth threads leave a child another thread searches for last.
pub(super) const SHARED_DEPTH: u32 = 3;
/// From this depth the midgame search orders by the trained evaluation too (from 4 or 8 it took longer).
pub(super) const EVAL_ORDERING_DEPTH: u32 = 6;
/// What one reply left to the opponent costs a move in the ordering: 2 discs.
pub(super) const ORDERING_REPLY: i32 = 2 * patterns::SCALE;

/// How many times as fast a solve is on `threads` threads (FFO #45-#49 on 2: 1.77-1.98).
pub(super) fn solve_speedup(threads: usize) -> f64 {
    (threads.max(1) as f64).powf(0.9)
}

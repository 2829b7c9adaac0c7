//! The solver's tuning switches, one line each with the measurement that chose it (FFO positions
//! on one thread, AMD EPYC; the sweeps behind them are in docs/history.md, "The solver's settings").

/// Below this many empties no move generation: the empty squares are walked, odd regions first
/// (FFO #40-#44 at 4-7: 4.07 s at 6, the quickest).
pub(super) const SMALL_EMPTIES: u32 = 6;
/// From this many empties the transposition table is used.
pub(super) const TABLE_EMPTIES: u32 = 9;
/// Above this many empties the children's table entries are probed for a cut-off first.
pub(super) const ETC_EMPTIES: u32 = 9;
/// From this many empties a stability bound is tried before searching.
pub(super) const STABILITY_EMPTIES: u32 = 7;
/// ...and in the small search, with `n` empties, where alpha is at least this much (as Edax's
/// thresholds by depth: higher where the stable discs, counted at every node, cut less often).
/// FFO #40-#49: 831 M nodes, 23.8 s without; from 3 empties at any alpha the opponent's discs allow,
/// 527 M, 23.0 s, but #57 and #58 took 22% and 14% longer; at Edax's 6, 8, 10 from 4 empties,
/// 589 M, 22.9 s; at these, 529 M, 23.2 s, and #57 61.3 s against 60.4 s, #50 36.4 s against 39.3 s.
pub(super) const fn small_stability_from(n: usize) -> i32 {
    match n {
        3 | 4 => 0,
        5 => 2,
        _ => 4,
    }
}
/// From this many empties threads leave a child another thread searches for last (below, a
/// subtree costs less than the bookkeeping).
pub(super) const SHARED_EMPTIES: u32 = 12;
/// From this score up MTD's rising tests stride, not step by 2 (FFO #59: 64 M nodes against 303 M).
pub(super) const GALLOP_FROM: i32 = 40;
/// From this many empties the ordering weighs potential mobility, stable discs and the evaluation
/// (FFO #40-#45 from 12, 13, 14: 630, 637, 670 M nodes; 13 the quickest).
pub(super) const RICH_ORDERING_EMPTIES: u32 = 13;
/// From this many empties children are ordered by a shallow search (FFO #40-#44: 222 M nodes at 18
/// against 256 M without).
pub(super) const SHALLOW_ORDERING_EMPTIES: u32 = 18;
/// From this many empties a solve first runs a selective search (FFO #40-#49: 829 M nodes against
/// 1,218 M without).
pub(super) const SELECTIVE_FROM: u32 = 16;
/// The selective search's tests start at the evaluation searched this deep (FFO #40-#49: 767 M
/// nodes against 822 M from 0).
pub(super) const SELECTIVE_GUESS_DEPTH: u32 = 6;
/// In a selective search, nodes from this many empties try a probable cut (FFO #40-#49 from 8-16:
/// 35.8-44.1 s; 10 kept at 36.1 s for its surer cuts).
pub(super) const PROBABLE_CUT_EMPTIES: u32 = 10;
/// A solve's selective search cuts at 1.5 standard deviations beyond the window, in tenths (FFO
/// #40-#49 at 1.0, 1.2, 1.5, 1.8: 45.6, 38.8, 36.1, 40.5 s).
pub(super) const PROBABLE_CUT_TENTHS: u8 = 15;
/// Nodes between two checks of the clock and the node limit (about 0.2 ms).
pub(super) const CHECK_EVERY: u64 = 4096;

/// How deep the ordering searches at `empties` empty squares. (FFO #40-#49 at 4 plies from 19, 20,
/// 21, 22 empties: 827, 779, 758, 787 M nodes against 831 M; but with the small search's stability
/// bound, 4 from 21 took #58 to 1,400 M nodes and 90.8 s against 878 M and 56.0 s at 3.)
pub(super) fn shallow_depth(empties: u32) -> u32 {
    if empties >= 21 { 3 } else { 2 }
}

/// The depth of a probable cut's shallow search (FFO #40-#49 from 20 empties at 2, 3, 4, 6: 36.2,
/// 37.7, 36.1, 42.7 s).
pub(super) fn probable_cut_depth(empties: u32) -> u32 {
    if empties >= 20 { 4 } else { 2 }
}

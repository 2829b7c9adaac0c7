//! How long the engine thinks on a move: a fixed time a move (`engine:MS`), or its share of a game
//! clock (`--game-time`, GTP's `time_settings` and `time_left`, NBoard's `TI`).

use std::time::Duration;

/// The time the engine may take for one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveTime {
    /// No iteration starts after this much time: the next would most likely not finish.
    pub start_before: Duration,
    /// Every search stops here, whatever it is doing; its last finished work decides.
    pub limit: Duration,
}

/// A game clock: what is left of the side's own time, and what each move adds to it (a Fischer
/// increment, or byo-yomi's time a stone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub left: Duration,
    pub per_move: Duration,
}

/// The share of a fixed time a move the searches may use: the rest covers stopping (the clock is
/// read every thousand nodes or so) and handing the move over. Measured by
/// `scripts/bench-engine-time.sh`: the largest overrun at `engine:1000` is in docs/engine.md.
const FIXED_SHARE: f64 = 0.98;
/// Taken off a fixed time a move before the share, for the work around the search.
const FIXED_OVERHEAD: Duration = Duration::from_millis(2);

/// What a clock keeps back and never plans with: a share of it, and some time for each move left
/// (for a controller's and the pipes' delays, which the clock counts and the engine does not see).
const CLOCK_RESERVE_SHARE: f64 = 0.03;
const RESERVE_PER_MOVE: Duration = Duration::from_millis(10);
/// A move planned from a clock may take up to this many times its planned share...
const CLOCK_LIMIT_FACTOR: f64 = 3.0;
/// ...but never more than this share of what is left: enough for the move that solves the game
/// (the moves after it cost next to nothing), and a failed solve still leaves half for the next.
const CLOCK_LIMIT_SHARE: f64 = 0.5;
/// With a clock, an iteration starts only before this share of the planned time: iterations take
/// about twice the one before, and a move so planned spends about its planned time (median 1.0,
/// mean 1.2 over 112 middle-game moves of 15 s games, docs/engine.md; at 0.5 the median was 0.7
/// and a quarter of the clock was left at the end).
const CLOCK_START_SHARE: f64 = 0.7;

/// The share of the time the midgame search gets before the solver is tried.
pub(crate) const MIDGAME_SHARE_BEFORE_SOLVING: f64 = 0.25;
/// The solver is tried where it most likely finishes in the rest of the time: the median time of
/// one thread's solve is `SOLVE_SECONDS` at `SOLVE_EMPTIES` empty squares and `SOLVE_GROWTH` times
/// as long for each empty square more. (Measured on positions of NTest's games against
/// engine:1000, 12 at each count, `othello solve --threads 1`, AMD EPYC, 2026-11-26: medians 0.42,
/// 0.9, 1.75 and 2.8 s at 22-25 empties. A try that does not finish leaves the midgame search's
/// move from a quarter of the time: the rule of before, 25 empties at 1 s a move, finished 1 solve
/// of 12 at 25 and 24 empties, 5 at 23, 8 at 22.)
const SOLVE_EMPTIES: u32 = 22;
const SOLVE_SECONDS: f64 = 0.42;
const SOLVE_GROWTH: f64 = 2.1;
const MIN_SOLVE_EMPTIES: u32 = 14;
const MAX_SOLVE_EMPTIES: u32 = 30;

/// How many times as fast a solve is on `threads` threads (FFO #45-#49 on 2: 1.77-1.98 over runs
/// of 2026-11-24 and 2026-11-26).
fn solve_speedup(threads: usize) -> f64 {
    (threads.max(1) as f64).powf(0.9)
}

/// On a clock, the weight of the move that solves the game (the side's first at or below the
/// empties the solver is tried from; a middle-game move weighs 1)...
const SOLVE_WEIGHT: f64 = 1.2;
/// ...and of each move after it, which finds the rest of the game in the table.
const SOLVED_WEIGHT: f64 = 0.03;

impl MoveTime {
    /// `budget` a move, spent whole: iterations start until the limit, and the last one, cut off,
    /// still counts for the moves it finished.
    pub fn fixed(budget: Duration) -> MoveTime {
        let limit = budget.saturating_sub(FIXED_OVERHEAD).mul_f64(FIXED_SHARE);
        MoveTime {
            start_before: limit,
            limit,
        }
    }

    /// A move's share of `clock` with `empties` empty squares on the board, for an engine on
    /// `threads` threads: what is left, less a reserve, divided over the side's moves to come by
    /// their weight (the middle game weighs most, the move that solves the game a little more,
    /// the moves after it next to nothing). Where the solve comes depends on the time it will
    /// have: the most empties whose solve fits the time that move is planned to get.
    pub fn from_clock(clock: Clock, empties: u32, threads: usize) -> MoveTime {
        let own_moves = empties.div_ceil(2).max(1);
        let reserve = clock.left.mul_f64(CLOCK_RESERVE_SHARE) + RESERVE_PER_MOVE * own_moves;
        let plan = Plan {
            usable: clock.left.saturating_sub(reserve),
            // What each move adds comes back before the next: it may be spent now, bar the reserve.
            per_move: clock
                .per_move
                .saturating_sub(RESERVE_PER_MOVE)
                .mul_f64(1.0 - CLOCK_RESERVE_SHARE),
            empties,
            own_moves,
        };
        let solve_from = (MIN_SOLVE_EMPTIES..=(empties + 1).min(MAX_SOLVE_EMPTIES))
            .rev()
            .find(|&from| {
                let solve_move = empties.saturating_sub(from).div_ceil(2);
                plan.time(solve_move, from).solve_empties(threads) >= from
            })
            .unwrap_or(MIN_SOLVE_EMPTIES);
        plan.time(0, solve_from)
    }

    /// Up to how many empties the solver most likely finishes in this time on `threads` threads,
    /// after the midgame search's share.
    pub fn solve_empties(self, threads: usize) -> u32 {
        let solver_seconds = self.limit.as_secs_f64() * (1.0 - MIDGAME_SHARE_BEFORE_SOLVING) * solve_speedup(threads);
        let more = (solver_seconds / SOLVE_SECONDS).ln() / SOLVE_GROWTH.ln();
        (f64::from(SOLVE_EMPTIES) + more)
            .floor()
            .clamp(f64::from(MIN_SOLVE_EMPTIES), f64::from(MAX_SOLVE_EMPTIES)) as u32
    }
}

/// A clock shared over the side's moves to come.
struct Plan {
    usable: Duration,
    per_move: Duration,
    empties: u32,
    own_moves: u32,
}

impl Plan {
    /// The time of the side's `k`th move from now (0: this one) if the game is solved from
    /// `solve_from` empties and every move before it spends its planned share.
    fn time(&self, k: u32, solve_from: u32) -> MoveTime {
        let weights: Vec<f64> = (0..self.own_moves)
            .map(|j| weight(self.empties.saturating_sub(2 * j), solve_from))
            .collect();
        let to_come: f64 = weights.iter().sum();
        let k = (k as usize).min(weights.len() - 1);
        let left_then = self.usable.mul_f64(weights[k..].iter().sum::<f64>() / to_come);
        let planned = self.usable.mul_f64(weights[k] / to_come) + self.per_move;
        let cap = left_then.mul_f64(CLOCK_LIMIT_SHARE) + self.per_move;
        let limit = planned.mul_f64(CLOCK_LIMIT_FACTOR).min(cap).max(planned.min(cap));
        MoveTime {
            start_before: planned.mul_f64(CLOCK_START_SHARE).min(limit),
            limit,
        }
    }
}

/// How much of the clock a move with `empties` empty squares deserves, relative to the others,
/// if the game is solved from `solve_from` empties: the opening's moves are easy, the middle
/// game's decide, the solve finishes the work of every move after it.
fn weight(empties: u32, solve_from: u32) -> f64 {
    match empties {
        _ if empties + 1 < solve_from => SOLVED_WEIGHT,
        _ if empties <= solve_from => SOLVE_WEIGHT,
        47.. => 0.6,
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn a_fixed_time_is_spent_whole_but_never_exceeded() {
        let time = MoveTime::fixed(Duration::from_millis(1000));
        assert!(time.limit < Duration::from_millis(1000));
        assert!(time.limit > Duration::from_millis(950));
        assert_eq!(time.start_before, time.limit);
        assert_eq!(MoveTime::fixed(Duration::from_millis(1)).limit, Duration::ZERO);
    }

    #[test]
    fn a_whole_game_planned_from_its_clock_never_runs_out() {
        // Every move taking its whole limit, the worst case, from the first move to the last.
        for total in [1.0, 10.0, 60.0, 300.0] {
            let mut left = seconds(total);
            for empties in (1..=60).rev().step_by(2) {
                let time = MoveTime::from_clock(
                    Clock {
                        left,
                        per_move: Duration::ZERO,
                    },
                    empties,
                    1,
                );
                assert!(time.start_before <= time.limit);
                left = left.checked_sub(time.limit).expect("the limit fits in what is left");
            }
            assert!(left > Duration::ZERO, "{total} s: nothing kept back");
        }
    }

    #[test]
    fn a_clock_gives_the_middle_game_more_than_the_opening_and_the_last_moves() {
        let plan = |empties| {
            MoveTime::from_clock(
                Clock {
                    left: seconds(100.0),
                    per_move: Duration::ZERO,
                },
                empties,
                1,
            )
        };
        // The same clock seen at each stage: what the move's weight alone changes.
        let opening = plan(58).start_before;
        let middle = plan(36).start_before;
        let last = plan(10).start_before;
        assert!(middle > opening && opening > seconds(0.5), "{opening:?} {middle:?}");
        assert!(last > middle, "few moves are left to share the clock: {last:?}");
    }

    #[test]
    fn an_increment_is_spent_on_the_move_it_comes_with() {
        let without = MoveTime::from_clock(
            Clock {
                left: seconds(1.0),
                per_move: Duration::ZERO,
            },
            40,
            1,
        );
        let with = MoveTime::from_clock(
            Clock {
                left: seconds(1.0),
                per_move: seconds(2.0),
            },
            40,
            1,
        );
        assert!(with.start_before > without.start_before + seconds(0.8));
        assert!(with.limit < seconds(1.0) + seconds(2.0));
    }

    /// A game where each move before the solve spends its planned time (what the start share is
    /// tuned for), the solve its median time, and the moves after it nothing: the clock is spent,
    /// not left over at the end, and the solve comes where its time lets it.
    #[test]
    fn a_game_that_spends_its_plan_uses_its_clock_and_solves_where_it_fits() {
        for (total, threads, solved_from) in [(15.0, 1, 21..=23), (60.0, 1, 23..=25), (300.0, 2, 26..=29)] {
            let mut left = seconds(total);
            let mut solved_at = None;
            for empties in (1..=58).rev().step_by(2) {
                let clock = Clock {
                    left,
                    per_move: Duration::ZERO,
                };
                let time = MoveTime::from_clock(clock, empties, threads);
                let spent = match solved_at {
                    Some(_) => Duration::ZERO,
                    None if empties <= time.solve_empties(threads) => {
                        solved_at = Some(empties);
                        let median = SOLVE_SECONDS * SOLVE_GROWTH.powi(empties as i32 - SOLVE_EMPTIES as i32)
                            / solve_speedup(threads);
                        time.limit.mul_f64(MIDGAME_SHARE_BEFORE_SOLVING) + seconds(median)
                    }
                    None => time.start_before.div_f64(CLOCK_START_SHARE).min(time.limit),
                };
                left = left.checked_sub(spent).expect("the move fits what is left");
            }
            let solved_at = solved_at.expect("the game is solved");
            assert!(solved_from.contains(&solved_at), "{total} s: solved at {solved_at}");
            assert!(left < seconds(total * 0.1), "{total} s: {left:?} left at the end");
        }
    }
}

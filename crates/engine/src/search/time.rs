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
/// `scripts/bench-engine-time.sh`: the largest overrun at `engine:1000` is in docs/history.md.
const FIXED_SHARE: f64 = 0.98;
/// Taken off a fixed time a move before the share, for the work around the search.
const FIXED_OVERHEAD: Duration = Duration::from_millis(2);

/// What a clock keeps back and never plans with: a share of it, and some time for each move left
/// (for a controller's and the pipes' delays, which the clock counts and the engine does not see).
const CLOCK_RESERVE_SHARE: f64 = 0.03;
const RESERVE_PER_MOVE: Duration = Duration::from_millis(10);
/// A move planned from a clock may take up to this many times its planned share...
const CLOCK_LIMIT_FACTOR: f64 = 3.0;
/// ...but never more than this share of what is left.
const CLOCK_LIMIT_SHARE: f64 = 0.25;
/// With a clock, an iteration starts only before this share of the planned time: iterations take
/// several times the previous one, and one started late would run on to the limit.
const CLOCK_START_SHARE: f64 = 0.5;

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

    /// A move's share of `clock` with `empties` empty squares on the board: what is left, less a
    /// reserve, divided over the side's moves to come by their weight (the middle game weighs
    /// most; the last moves, solved exactly, least).
    pub fn from_clock(clock: Clock, empties: u32) -> MoveTime {
        let own_moves = empties.div_ceil(2).max(1);
        let reserve = clock.left.mul_f64(CLOCK_RESERVE_SHARE) + RESERVE_PER_MOVE * own_moves;
        let usable = clock.left.saturating_sub(reserve);
        let to_come: f64 = (0..own_moves).map(|k| weight(empties.saturating_sub(2 * k))).sum();
        // What each move adds comes back before the next: it may be spent now, bar the reserve.
        let planned = usable.mul_f64(weight(empties) / to_come)
            + clock
                .per_move
                .saturating_sub(RESERVE_PER_MOVE)
                .mul_f64(1.0 - CLOCK_RESERVE_SHARE);
        let cap = usable.mul_f64(CLOCK_LIMIT_SHARE) + clock.per_move.saturating_sub(RESERVE_PER_MOVE);
        let limit = planned.mul_f64(CLOCK_LIMIT_FACTOR).min(cap).max(planned.min(cap));
        MoveTime {
            start_before: planned.mul_f64(CLOCK_START_SHARE).min(limit),
            limit,
        }
    }
}

/// How much of the clock a move with `empties` empty squares deserves, relative to the others:
/// the opening's moves are easy, the middle game's decide, and from about 20 empties the exact
/// solver finishes each move's work for the ones after it.
fn weight(empties: u32) -> f64 {
    match empties {
        47.. => 0.6,
        25..=46 => 1.0,
        19..=24 => 1.3,
        _ => 0.1,
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
        );
        let with = MoveTime::from_clock(
            Clock {
                left: seconds(1.0),
                per_move: seconds(2.0),
            },
            40,
        );
        assert!(with.start_before > without.start_before + seconds(0.8));
        assert!(with.limit < seconds(1.0) + seconds(2.0));
    }
}

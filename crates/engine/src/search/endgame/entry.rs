//! What the solver's table keeps of a position (bounds, how sure they are, the best move) and how
//! a search's result narrows it.

use super::*;

/// A solved position: bounds on its score, and the best move found.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub(super) lower: i8,
    pub(super) upper: i8,
    pub(super) best: u8,
    /// How sure its bounds are: below `PROVEN`, only likely, and its move only a hint to a surer
    /// search.
    pub(super) confidence: Confidence,
}

impl Packed for Entry {
    #[inline(always)]
    fn pack(self) -> u64 {
        u64::from(self.lower as u8)
            | u64::from(self.upper as u8) << 8
            | u64::from(self.best) << 16
            | u64::from(self.confidence) << 24
    }

    #[inline(always)]
    fn unpack(bits: u64) -> Entry {
        Entry {
            lower: bits as u8 as i8,
            upper: (bits >> 8) as u8 as i8,
            best: (bits >> 16) as u8,
            confidence: (bits >> 24) as u8,
        }
    }
}

/// Records that `board`, searched in (alpha, beta) with `confidence`, scored `score` with `best` as
/// its best move: the bounds it proves, narrowing those already known as surely.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn record(
    table: &Table<Entry>,
    board: Board,
    empties: u32,
    alpha: i32,
    beta: i32,
    score: i32,
    best: u8,
    confidence: Confidence,
) {
    let mut known = table.probe(board).map(|(entry, _)| entry);
    match known {
        // A surer entry is worth more (a proven one most).
        Some(entry) if entry.confidence > confidence => return,
        // A less sure entry's bounds say nothing as sure; its move still helps.
        Some(entry) if entry.confidence < confidence => {
            known = Some(Entry {
                lower: -MAX_SCORE as i8,
                upper: MAX_SCORE as i8,
                ..entry
            })
        }
        _ => {}
    }
    let (mut lower, mut upper) = known.map_or((-MAX_SCORE, MAX_SCORE), |e| (e.lower as i32, e.upper as i32));
    if score > alpha {
        lower = lower.max(score);
    }
    if score < beta {
        upper = upper.min(score);
    }
    let best = match known {
        Some(entry) if best == NO_MOVE => entry.best,
        _ => best,
    };
    table.store(
        board,
        empties,
        Entry {
            lower: lower as i8,
            upper: upper as i8,
            best,
            confidence,
        },
    );
}

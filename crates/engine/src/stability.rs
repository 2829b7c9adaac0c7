//! Stable discs: discs that no sequence of moves can ever flip.
//!
//! A disc cannot be flipped along a line direction when the line through it is full (no move can
//! ever be made on it), or when a neighbour along that direction is off the board or is itself a
//! stable disc of the same colour (any bracket would have to flip that neighbour too). A disc safe in
//! all four directions is stable; iterating to a fixpoint finds every disc this rule proves stable.

/// Masks of every full line (rows, columns, both diagonals) of the board, by direction.
struct Lines {
    rows: [u64; 8],
    columns: [u64; 8],
    diagonals: [u64; 15],
    anti_diagonals: [u64; 15],
}

const LINES: Lines = build_lines();

const fn build_lines() -> Lines {
    let mut lines = Lines {
        rows: [0; 8],
        columns: [0; 8],
        diagonals: [0; 15],
        anti_diagonals: [0; 15],
    };
    let mut square = 0;
    while square < 64 {
        let (row, col) = (square / 8, square % 8);
        lines.rows[row] |= 1 << square;
        lines.columns[col] |= 1 << square;
        lines.diagonals[row + 7 - col] |= 1 << square;
        lines.anti_diagonals[row + col] |= 1 << square;
        square += 1;
    }
    lines
}

#[inline]
fn full(lines: &[u64], occupied: u64) -> u64 {
    lines
        .iter()
        .filter(|&&line| occupied & line == line)
        .fold(0, |acc, line| acc | line)
}

const COLUMN_A: u64 = 0x0101_0101_0101_0101;
const COLUMN_H: u64 = 0x8080_8080_8080_8080;
const ROW_1: u64 = 0xff;
const ROW_8: u64 = 0xff << 56;
const EDGES: u64 = COLUMN_A | COLUMN_H | ROW_1 | ROW_8;

/// The discs of `player` that can never be flipped, given the discs of both sides.
#[inline(always)]
pub fn stable_discs(player: u64, opponent: u64) -> u64 {
    let occupied = player | opponent;
    // Squares whose line is full in each direction, or that lie on the edge that ends it.
    let horizontal = full(&LINES.rows, occupied) | COLUMN_A | COLUMN_H;
    let vertical = full(&LINES.columns, occupied) | ROW_1 | ROW_8;
    let diagonal = full(&LINES.diagonals, occupied) | EDGES;
    let anti_diagonal = full(&LINES.anti_diagonals, occupied) | EDGES;
    let mut stable = 0;
    loop {
        let next = player
            & (horizontal | (stable << 1 & !COLUMN_A) | (stable >> 1 & !COLUMN_H))
            & (vertical | stable << 8 | stable >> 8)
            & (diagonal | (stable << 9 & !COLUMN_A) | (stable >> 9 & !COLUMN_H))
            & (anti_diagonal | (stable << 7 & !COLUMN_H) | (stable >> 7 & !COLUMN_A));
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corner_is_stable_and_an_unsupported_centre_disc_is_not() {
        assert_eq!(stable_discs(1, 0), 1);
        assert_eq!(stable_discs(1 << 27, 1 << 36), 0);
    }

    #[test]
    fn an_edge_run_from_a_corner_is_stable() {
        // a1, b1, c1 black; d1 white: the black run is anchored by the corner.
        let player = 0b0111;
        assert_eq!(stable_discs(player, 0b1000), 0b0111);
        // Without the corner, b1 and c1 can still be flipped from a1.
        assert_eq!(stable_discs(0b0110, 0b1000), 0);
    }

    #[test]
    fn a_full_board_is_all_stable() {
        let player = 0x5555_5555_5555_5555;
        assert_eq!(stable_discs(player, !player), player);
    }
}

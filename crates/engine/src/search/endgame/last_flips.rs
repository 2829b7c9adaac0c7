//! Counting the flips of a game's last move (one empty square, all others occupied) without playing
//! it: with every other square full, each of the four lines through the square is fixed by the
//! mover's discs alone, so a table indexed by (position in line, mover's discs on the line) holds the
//! count. The lines are gathered with BMI2's `pext` where the CPU has it, one bit at a time elsewhere.

use othello_core::cpu::Cpu;
use othello_core::square::Square;

/// The four lines through each square (row, column, both diagonals) and the square's place in each.
struct Lines {
    masks: [[u64; 4]; 64],
    positions: [[u8; 4]; 64],
}

static LINES: Lines = build_lines();

const fn build_lines() -> Lines {
    let mut lines = Lines {
        masks: [[0; 4]; 64],
        positions: [[0; 4]; 64],
    };
    const STEPS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];
    let mut square = 0;
    while square < 64 {
        let (row, col) = ((square / 8) as i32, (square % 8) as i32);
        let mut direction = 0;
        while direction < 4 {
            let (dr, dc) = STEPS[direction];
            // Walk back to the line's first square, then forward over the whole line.
            let (mut r, mut c) = (row, col);
            while r - dr >= 0 && r - dr < 8 && c - dc >= 0 && c - dc < 8 {
                r -= dr;
                c -= dc;
            }
            let mut mask = 0u64;
            let mut place = 0u8;
            let mut count = 0u8;
            while r >= 0 && r < 8 && c >= 0 && c < 8 {
                if r == row && c == col {
                    place = count;
                }
                mask |= 1 << (r * 8 + c);
                count += 1;
                r += dr;
                c += dc;
            }
            lines.masks[square][direction] = mask;
            lines.positions[square][direction] = place;
            direction += 1;
        }
        square += 1;
    }
    lines
}

/// COUNT[place][discs]: the flips of a move at `place` on a full line of up to 8 squares, `discs`
/// marking the mover's discs in line order. Cells beyond a short line read as opponent discs, and a run
/// of opponent discs that reaches the end of the line closes nothing, so they count for nothing.
static COUNT: [[u8; 256]; 8] = build_count();

const fn build_count() -> [[u8; 256]; 8] {
    let mut table = [[0u8; 256]; 8];
    let mut place = 0;
    while place < 8 {
        let mut discs = 0;
        while discs < 256 {
            let mut total = 0;
            let mut k = place + 1;
            while k < 8 && discs >> k & 1 == 0 {
                k += 1;
            }
            if k < 8 {
                total += k - place - 1;
            }
            let mut k = place as i32 - 1;
            while k >= 0 && discs >> k & 1 == 0 {
                k -= 1;
            }
            if k >= 0 {
                total += place - k as usize - 1;
            }
            table[place][discs] = total as u8;
            discs += 1;
        }
        place += 1;
    }
    table
}

/// The number of discs the mover flips by playing the only empty square, `square`; `mover` holds
/// its discs (everything else but `square` is the opponent's).
#[inline(always)]
pub(crate) fn count_last_flips<C: Cpu>(mover: u64, square: Square) -> u32 {
    let (masks, places) = (&LINES.masks[square.index()], &LINES.positions[square.index()]);
    let mut total = 0;
    for direction in 0..4 {
        let discs = C::extract(mover, masks[direction]) as usize;
        total += COUNT[places[direction] as usize][discs] as u32;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::board::flips;

    #[test]
    fn counts_agree_with_playing_the_move() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..5_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for square in Square::all() {
                let mover = state & !square.bitboard().0;
                let opponent = !mover & !square.bitboard().0;
                let expected = flips(mover, opponent, square).count_ones();
                assert_eq!(
                    count_last_flips::<othello_core::cpu::Portable>(mover, square),
                    expected,
                    "{square}"
                );
                let at_current_level = othello_core::cpu::with_cpu!(C => count_last_flips::<C>(mover, square));
                assert_eq!(at_current_level, expected, "{square}");
            }
        }
    }
}

//! The rules' kernel on plain u64 bitboards: branch-free legal moves and flips by shifts and masks,
//! in the manner of Edax, and the ray tables they use. `Board` (crate::board) is the typed face of
//! it; `crate::cpu` holds the vector versions chosen at run time.

use crate::square::Square;

/// Columns b-g: a disc in column a or h cannot be the middle of a horizontal or diagonal line.
const INNER_COLUMNS: u64 = 0x7e7e_7e7e_7e7e_7e7e;

/// Moves in one direction pair (shift `s` up and down), for the discs `opponent_inner` that can sit
/// inside a line in that direction.
#[inline(always)]
fn moves_along(player: u64, opponent_inner: u64, s: u32) -> u64 {
    // Runs of up to 6 opponent discs: two single steps, then two double steps through pairs.
    let pairs_up = opponent_inner & (opponent_inner << s);
    let pairs_down = opponent_inner & (opponent_inner >> s);
    let mut up = opponent_inner & (player << s);
    let mut down = opponent_inner & (player >> s);
    up |= opponent_inner & (up << s);
    down |= opponent_inner & (down >> s);
    up |= pairs_up & (up << (2 * s));
    down |= pairs_down & (down >> (2 * s));
    up |= pairs_up & (up << (2 * s));
    down |= pairs_down & (down >> (2 * s));
    (up << s) | (down >> s)
}

/// The squares where `player` may move against `opponent`.
#[inline(always)]
pub fn legal_moves(player: u64, opponent: u64) -> u64 {
    let inner = opponent & INNER_COLUMNS;
    let moves = moves_along(player, inner, 1)
        | moves_along(player, opponent, 8)
        | moves_along(player, inner, 7)
        | moves_along(player, inner, 9);
    moves & !(player | opponent)
}

/// For each square, the squares beyond it in each of the 8 directions (the square itself excluded).
/// Directions 0-3 go towards higher indices (E, SW, S, SE), 4-7 towards lower ones (W, NE, N, NW).
pub(crate) static RAYS: [[u64; 8]; 64] = build_rays();
const RAYS_CONST: [[u64; 8]; 64] = build_rays();

const fn build_rays() -> [[u64; 8]; 64] {
    const STEPS: [(i8, i8); 8] = [(0, 1), (1, -1), (1, 0), (1, 1), (0, -1), (-1, 1), (-1, 0), (-1, -1)];
    let mut rays = [[0u64; 8]; 64];
    let mut square = 0;
    while square < 64 {
        let mut direction = 0;
        while direction < 8 {
            let (dr, dc) = STEPS[direction];
            let mut row = (square / 8) as i8 + dr;
            let mut col = (square % 8) as i8 + dc;
            let mut ray = 0u64;
            while row >= 0 && row < 8 && col >= 0 && col < 8 {
                ray |= 1 << (row * 8 + col);
                row += dr;
                col += dc;
            }
            rays[square][direction] = ray;
            direction += 1;
        }
        square += 1;
    }
    rays
}

/// The squares around each square (up to 8): a move can only flip if one of them is an opponent disc.
pub static NEIGHBOURS: [u64; 64] = build_neighbours();

const fn build_neighbours() -> [u64; 64] {
    let mut masks = [0u64; 64];
    let mut square = 0;
    while square < 64 {
        let mut direction = 0;
        while direction < 8 {
            let ray = RAYS_CONST[square][direction];
            // The nearest square of a ray: the lowest bit going up, the highest going down.
            let nearest = if direction < 4 {
                ray & ray.wrapping_neg()
            } else if ray == 0 {
                0
            } else {
                1 << (63 - ray.leading_zeros())
            };
            masks[square] |= nearest;
            direction += 1;
        }
        square += 1;
    }
    masks
}

/// The opponent discs that `player` flips by moving to `square` (empty if the move is illegal,
/// and meaningless if the square is occupied). `Cpu::flips` has a vector version of it.
#[inline(always)]
pub fn flips(player: u64, opponent: u64, square: Square) -> u64 {
    let rays = &RAYS[square.index()];
    let mut flipped = 0;
    // Towards higher indices the first non-opponent square on the ray is its lowest such bit.
    for &ray in &rays[..4] {
        let stop = ray & !opponent;
        let first = stop & stop.wrapping_neg();
        let closes = ((first & player) != 0) as u64;
        flipped |= first.wrapping_sub(1) & ray & closes.wrapping_neg();
    }
    // Towards lower indices it is the highest; bit 0 is a sentinel so that the shift stays defined,
    // and a sentinel outside the ray never closes a line.
    for &ray in &rays[4..] {
        let stop = (ray & !opponent) | 1;
        let first = 1u64 << (63 - stop.leading_zeros());
        let closes = ((first & player & ray) != 0) as u64;
        flipped |= (first.wrapping_neg() << 1) & ray & closes.wrapping_neg();
    }
    flipped
}

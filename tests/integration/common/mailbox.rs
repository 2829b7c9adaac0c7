//! A slow, obvious Othello on an 8x8 array: the reference the bitboard rules are checked against.

pub const DIRECTIONS: [(i32, i32); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cell {
    Empty,
    Black,
    White,
}

impl Cell {
    pub fn other(self) -> Cell {
        match self {
            Cell::Black => Cell::White,
            Cell::White => Cell::Black,
            Cell::Empty => Cell::Empty,
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Mailbox {
    pub cells: [[Cell; 8]; 8],
}

impl Mailbox {
    pub fn start() -> Mailbox {
        let mut cells = [[Cell::Empty; 8]; 8];
        cells[3][3] = Cell::White;
        cells[4][4] = Cell::White;
        cells[3][4] = Cell::Black;
        cells[4][3] = Cell::Black;
        Mailbox { cells }
    }

    /// The squares (8 * row + col) that `side` flips by playing at (row, col), walking each direction.
    pub fn flips(&self, side: Cell, row: usize, col: usize) -> Vec<usize> {
        if self.cells[row][col] != Cell::Empty {
            return Vec::new();
        }
        let mut all = Vec::new();
        for (dr, dc) in DIRECTIONS {
            let mut line = Vec::new();
            let (mut r, mut c) = (row as i32 + dr, col as i32 + dc);
            while (0..8).contains(&r) && (0..8).contains(&c) && self.cells[r as usize][c as usize] == side.other() {
                line.push((r * 8 + c) as usize);
                r += dr;
                c += dc;
            }
            if !line.is_empty()
                && (0..8).contains(&r)
                && (0..8).contains(&c)
                && self.cells[r as usize][c as usize] == side
            {
                all.extend(line);
            }
        }
        all.sort_unstable();
        all
    }

    pub fn legal_moves(&self, side: Cell) -> Vec<usize> {
        (0..64)
            .filter(|&sq| !self.flips(side, sq / 8, sq % 8).is_empty())
            .collect()
    }

    pub fn play(&mut self, side: Cell, square: usize) {
        for flipped in self.flips(side, square / 8, square % 8) {
            self.cells[flipped / 8][flipped % 8] = side;
        }
        self.cells[square / 8][square % 8] = side;
    }

    pub fn count(&self, side: Cell) -> usize {
        self.cells.iter().flatten().filter(|&&cell| cell == side).count()
    }
}

//! WTHOR, the French Othello Federation's game database: `.wtb` files of games (a 16-byte header,
//! then 68 bytes a game, little-endian) and the name files beside them, `WTHOR.JOU` (players, 20
//! bytes a name) and `WTHOR.TRN` (tournaments, 26 bytes). Read a game at a time, so a file of any
//! size takes the memory of one game; written whole.
//!
//! A game's moves are `10 * row + column` (rows and columns 1 to 8: 11 is a1, 88 is h8), 0 once it
//! has ended; passes are not written (the side to move is found by the rules).
//!
//! ```
//! use othello_core::notation::wthor::{self, Header, Record};
//! use othello_core::notation::transcript;
//! use othello_core::position::Position;
//! let game = transcript::play(Position::START, "f5d6c3d3c4").unwrap();
//! let header = Header { created: (2026, 12, 7), year: 2026, depth: 22 };
//! let bytes = wthor::write(&header, &[Record::of(&game, 0, 1, 2)]);
//! assert_eq!(bytes.len(), 16 + 68);
//! let read: Vec<_> = wthor::Games::new(&bytes[..]).unwrap().collect::<Result<_, _>>().unwrap();
//! assert_eq!(read[0].game.moves().collect::<Vec<_>>(), game.moves().collect::<Vec<_>>());
//! ```

use std::io::Read;

use crate::game::{Game, Status};
use crate::position::Position;
use crate::square::Square;

/// A header's size and a game's.
pub const HEADER_BYTES: usize = 16;
pub const GAME_BYTES: usize = 68;
/// The widths of a player's name (WTHOR.JOU) and a tournament's (WTHOR.TRN).
pub const PLAYER_NAME_BYTES: usize = 20;
pub const TOURNAMENT_NAME_BYTES: usize = 26;

/// What a `.wtb` file says of itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// When the file was made: year, month, day.
    pub created: (u16, u8, u8),
    /// The year its games were played.
    pub year: u16,
    /// The empty squares at which each game's theoretical score was computed by perfect play.
    pub depth: u8,
}

/// One game of a `.wtb` file.
#[derive(Clone, Debug)]
pub struct Record {
    /// Indices into WTHOR.TRN and WTHOR.JOU.
    pub tournament: u16,
    pub black: u16,
    pub white: u16,
    /// Black's discs at the end, as the file gives them (the empty squares go to the winner).
    pub black_discs: u8,
    /// Black's discs with perfect play from the position at the header's depth on.
    pub theoretical: u8,
    pub game: Game,
}

impl Record {
    /// A game as a record: its own final score as both the score and the theoretical score (a
    /// writer that solves the position at the header's depth puts the perfect score there instead).
    pub fn of(game: &Game, tournament: u16, black: u16, white: u16) -> Record {
        let discs = black_discs(&game.position());
        Record {
            tournament,
            black,
            white,
            black_discs: discs,
            theoretical: discs,
            game: game.clone(),
        }
    }
}

/// Black's discs with the empty squares given to the winner, as WTHOR counts a finished game.
pub fn black_discs(position: &Position) -> u8 {
    let (black, white) = position.counts();
    let empties = 64 - black - white;
    let black = match black.cmp(&white) {
        std::cmp::Ordering::Greater => black + empties,
        std::cmp::Ordering::Equal => black + empties / 2,
        std::cmp::Ordering::Less => black,
    };
    black as u8
}

/// What is wrong with a WTHOR file, naming the game (from 1) and the byte (from 0) where it can.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WthorError {
    #[error("{0}: cannot be read")]
    Io(String),
    #[error("{bytes} bytes: a WTHOR file starts with a {HEADER_BYTES}-byte header")]
    Short { bytes: usize },
    #[error("board size {0} in the header: only 8x8 games (0 or 8) are read")]
    BoardSize(u8),
    #[error("game {game} (byte {byte}): the file ends inside it ({GAME_BYTES} bytes a game)")]
    Truncated { game: usize, byte: usize },
    #[error("the header says {said} games, and the file holds {held}")]
    Count { said: u32, held: usize },
    #[error("game {game} (byte {byte}): move {ply} is {value}, not a square (11 to 88, 0 after the end)")]
    NotASquare {
        game: usize,
        byte: usize,
        ply: usize,
        value: u8,
    },
    #[error("game {game} (byte {byte}): move {ply} {square} is not legal there")]
    Illegal {
        game: usize,
        byte: usize,
        ply: usize,
        square: String,
    },
    #[error("game {game} (byte {byte}): move {ply} comes after a 0 that ended the game")]
    AfterEnd { game: usize, byte: usize, ply: usize },
    #[error("byte {byte}: a name file is a {HEADER_BYTES}-byte header and names of {width} bytes")]
    Names { byte: usize, width: usize },
}

/// The games of a `.wtb` file, one at a time.
pub struct Games<R> {
    reader: R,
    header: Header,
    said: u32,
    read: usize,
}

impl<R: Read> Games<R> {
    /// Reads the header.
    pub fn new(mut reader: R) -> Result<Games<R>, WthorError> {
        let mut bytes = [0u8; HEADER_BYTES];
        let got = fill(&mut reader, &mut bytes)?;
        if got < HEADER_BYTES {
            return Err(WthorError::Short { bytes: got });
        }
        if !matches!(bytes[12], 0 | 8) {
            return Err(WthorError::BoardSize(bytes[12]));
        }
        let header = Header {
            created: (u16::from(bytes[0]) * 100 + u16::from(bytes[1]), bytes[2], bytes[3]),
            year: u16::from_le_bytes([bytes[10], bytes[11]]),
            depth: bytes[14],
        };
        Ok(Games {
            reader,
            header,
            said: u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]),
            read: 0,
        })
    }

    pub fn header(&self) -> Header {
        self.header
    }

    /// The number of games the header announces.
    pub fn announced(&self) -> u32 {
        self.said
    }
}

impl<R: Read> Iterator for Games<R> {
    type Item = Result<Record, WthorError>;

    fn next(&mut self) -> Option<Result<Record, WthorError>> {
        let mut bytes = [0u8; GAME_BYTES];
        let game = self.read + 1;
        let byte = HEADER_BYTES + self.read * GAME_BYTES;
        let got = match fill(&mut self.reader, &mut bytes) {
            Ok(got) => got,
            Err(error) => return Some(Err(error)),
        };
        if got == 0 {
            // A file that ends early or goes on past its count is refused at its end.
            return (self.read != self.said as usize).then(|| {
                let said = std::mem::replace(&mut self.said, self.read as u32);
                Err(WthorError::Count { said, held: self.read })
            });
        }
        self.read += 1;
        if got < GAME_BYTES {
            return Some(Err(WthorError::Truncated { game, byte }));
        }
        Some(record(&bytes, game, byte))
    }
}

/// Fills `buffer` as far as the reader goes: how many bytes it got.
fn fill(reader: &mut impl Read, buffer: &mut [u8]) -> Result<usize, WthorError> {
    let mut got = 0;
    while got < buffer.len() {
        match reader.read(&mut buffer[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(WthorError::Io(e.to_string())),
        }
    }
    Ok(got)
}

/// One game's 68 bytes, replayed by the rules.
fn record(bytes: &[u8; GAME_BYTES], game_number: usize, byte: usize) -> Result<Record, WthorError> {
    let word = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let mut game = Game::new(Position::START);
    let mut ended = false;
    for (k, &value) in bytes[8..].iter().enumerate() {
        let (ply, at) = (k + 1, byte + 8 + k);
        if value == 0 {
            ended = true;
            continue;
        }
        if ended {
            return Err(WthorError::AfterEnd {
                game: game_number,
                byte: at,
                ply,
            });
        }
        let (row, col) = (value / 10, value % 10);
        if !(1..=8).contains(&row) || !(1..=8).contains(&col) {
            return Err(WthorError::NotASquare {
                game: game_number,
                byte: at,
                ply,
                value,
            });
        }
        let square = Square::from_row_col(row - 1, col - 1);
        if let Status::MustPass(_) = game.status() {
            game.pass().expect("a pass the status asks for");
        }
        game.play(square, None).map_err(|_| WthorError::Illegal {
            game: game_number,
            byte: at,
            ply,
            square: String::from_utf8_lossy(&square.a1()).into_owned(),
        })?;
    }
    Ok(Record {
        tournament: word(0),
        black: word(2),
        white: word(4),
        black_discs: bytes[6],
        theoretical: bytes[7],
        game,
    })
}

/// A `.wtb` file of `records` (their games from the start position; passes left out).
pub fn write(header: &Header, records: &[Record]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + GAME_BYTES * records.len());
    let (year, month, day) = header.created;
    out.extend_from_slice(&[(year / 100) as u8, (year % 100) as u8, month, day]);
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&header.year.to_le_bytes());
    out.extend_from_slice(&[8, 0, header.depth, 0]);
    for record in records {
        for word in [record.tournament, record.black, record.white] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&[record.black_discs, record.theoretical]);
        let mut moves = [0u8; 60];
        for (slot, square) in moves.iter_mut().zip(record.game.moves()) {
            *slot = 10 * (square.row() + 1) + square.col() + 1;
        }
        out.extend_from_slice(&moves);
    }
    out
}

/// The names of a WTHOR.JOU (`width` 20) or WTHOR.TRN (26) file, by index: each NUL-padded and
/// read as Latin-1 (the federation's files are).
pub fn read_names(bytes: &[u8], width: usize) -> Result<Vec<String>, WthorError> {
    if bytes.len() < HEADER_BYTES || !(bytes.len() - HEADER_BYTES).is_multiple_of(width) {
        return Err(WthorError::Names {
            byte: bytes.len().min(HEADER_BYTES),
            width,
        });
    }
    Ok(bytes[HEADER_BYTES..]
        .chunks(width)
        .map(|name| {
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            name[..end]
                .iter()
                .map(|&b| char::from(b))
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect())
}

/// A name file of `names` (`width` bytes each: longer names are cut, characters past Latin-1 become
/// `?`), its header made `created`.
pub fn write_names(names: &[String], width: usize, created: (u16, u8, u8)) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + width * names.len());
    let (year, month, day) = created;
    out.extend_from_slice(&[(year / 100) as u8, (year % 100) as u8, month, day]);
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(names.len() as u16).to_le_bytes());
    out.extend_from_slice(&[0; 6]);
    for name in names {
        let mut field = vec![0u8; width];
        // The last byte stays NUL.
        for (slot, c) in field.iter_mut().take(width - 1).zip(name.chars()) {
            *slot = u8::try_from(u32::from(c)).unwrap_or(b'?');
        }
        out.extend_from_slice(&field);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::transcript;

    fn header() -> Header {
        Header {
            created: (2026, 12, 7),
            year: 2025,
            depth: 22,
        }
    }

    /// A whole game with a pass in it: moves chosen by a small generator until one has a pass.
    fn game_with_a_pass() -> Game {
        let mut seed = 1u64;
        loop {
            let mut game = Game::new(Position::START);
            loop {
                match game.status() {
                    Status::ToMove(_) => {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        let moves: Vec<Square> = game.position().moves().squares().collect();
                        game.play(moves[(seed >> 33) as usize % moves.len()], None).unwrap();
                    }
                    Status::MustPass(_) => game.pass().unwrap(),
                    Status::Over => break,
                }
            }
            if game
                .turns()
                .iter()
                .any(|turn| matches!(turn, crate::game::Turn::Pass { .. }))
            {
                return game;
            }
        }
    }

    fn read_all(bytes: &[u8]) -> Result<Vec<Record>, WthorError> {
        Games::new(bytes)?.collect()
    }

    #[test]
    fn a_file_written_is_read_back_with_the_same_games_and_numbers() {
        // A whole game with a pass in it, and a game left unfinished.
        let whole = game_with_a_pass();
        let short = transcript::play(Position::START, "f5f6e6f4").unwrap();
        let records = [Record::of(&whole, 3, 1, 2), Record::of(&short, 3, 2, 1)];
        let bytes = write(&header(), &records);
        assert_eq!(bytes.len(), HEADER_BYTES + 2 * GAME_BYTES);
        let games = Games::new(&bytes[..]).unwrap();
        assert_eq!((games.header(), games.announced()), (header(), 2));
        let read = read_all(&bytes).unwrap();
        for (got, wrote) in read.iter().zip(&records) {
            assert_eq!(got.game.turns(), wrote.game.turns(), "passes found again by the rules");
            assert_eq!(
                (got.tournament, got.black, got.white, got.black_discs, got.theoretical),
                (
                    wrote.tournament,
                    wrote.black,
                    wrote.white,
                    wrote.black_discs,
                    wrote.theoretical
                )
            );
        }
        assert!(read[0].game.is_over() && !read[1].game.is_over());
        assert_eq!(write(&header(), &read), bytes, "the same bytes again");
    }

    #[test]
    fn a_bad_file_names_the_game_and_the_byte() {
        let game = transcript::play(Position::START, "f5d6c3").unwrap();
        let good = write(&header(), &[Record::of(&game, 0, 0, 0), Record::of(&game, 0, 0, 0)]);
        let second = HEADER_BYTES + GAME_BYTES;
        let with = |at: usize, value: u8| {
            let mut bytes = good.clone();
            bytes[at] = value;
            read_all(&bytes).unwrap_err()
        };
        // a1 (11) as the second game's first move.
        assert_eq!(
            with(second + 8, 11),
            WthorError::Illegal {
                game: 2,
                byte: second + 8,
                ply: 1,
                square: "a1".to_string()
            }
        );
        assert_eq!(
            with(second + 9, 19),
            WthorError::NotASquare {
                game: 2,
                byte: second + 9,
                ply: 2,
                value: 19
            }
        );
        assert_eq!(
            with(second + 20, 11),
            WthorError::AfterEnd {
                game: 2,
                byte: second + 20,
                ply: 13
            }
        );
        assert_eq!(
            read_all(&good[..good.len() - 5]).unwrap_err(),
            WthorError::Truncated { game: 2, byte: second }
        );
        assert_eq!(read_all(&good[..10]).unwrap_err(), WthorError::Short { bytes: 10 });
        let mut more = good.clone();
        more[4] = 3;
        assert_eq!(read_all(&more).unwrap_err(), WthorError::Count { said: 3, held: 2 });
    }

    #[test]
    fn names_are_read_back_and_cut_to_their_width() {
        let names = vec![
            "Tastet Marc".to_string(),
            "Un nom bien trop long pour vingt".to_string(),
        ];
        let bytes = write_names(&names, PLAYER_NAME_BYTES, (2026, 12, 7));
        assert_eq!(bytes.len(), HEADER_BYTES + 2 * PLAYER_NAME_BYTES);
        assert_eq!(
            read_names(&bytes, PLAYER_NAME_BYTES).unwrap(),
            ["Tastet Marc", "Un nom bien trop lo"]
        );
        assert!(read_names(&bytes[..30], PLAYER_NAME_BYTES).is_err());
    }
}

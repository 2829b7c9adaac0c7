//! GGF, the Generic Game Format of GGS and NBoard: `(;GM[Othello]PB[..]PW[..]TY[8]BO[8 <64 squares>
//! <side>]B[f5//0.01]W[d6]...;)`. Squares are `-` empty, `*` black, `O` white; a move is a square or
//! `PA`, optionally followed by `/eval/time`.

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::game::{Game, Turn};
use crate::notation::transcript::{self, TranscriptError, Written};
use crate::position::Position;
use crate::square::Square;

/// One game of a GGF file.
#[derive(Clone, Debug)]
pub struct GgfGame {
    pub black: String,
    pub white: String,
    pub game: Game,
    /// The clock of each side (`TI`), if the game has one.
    pub time: Option<GgfTime>,
    /// Seconds each side's moves took, by colour index (the third part of `B[f5/eval/time]`).
    pub used: [f64; 2],
}

/// `TI[main/increment/extension]`: each side's time for the game and what each move adds (GGS's
/// extension is not read). A time is `h:mm:ss`, `mm:ss` or seconds; `TI[0]` is an untimed game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgfTime {
    pub main: f64,
    pub increment: f64,
}

impl GgfTime {
    fn parse(text: &str) -> Option<GgfTime> {
        let mut parts = text.split('/');
        let main = seconds(parts.next()?)?;
        let increment = parts
            .next()
            .filter(|t| !t.trim().is_empty())
            .map_or(Some(0.0), seconds)?;
        // `TI[0]`: no time at all is an untimed game, as NBoard writes one.
        (main > 0.0 || increment > 0.0).then_some(GgfTime { main, increment })
    }
}

/// `h:mm:ss`, `mm:ss` or `ss`, each part a number (the last may have a fraction).
fn seconds(text: &str) -> Option<f64> {
    text.trim()
        .split(':')
        .try_fold(0.0, |total: f64, part| {
            Some(total * 60.0 + part.trim().parse::<f64>().ok()?)
        })
        .filter(|s| s.is_finite() && *s >= 0.0)
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GgfError {
    #[error("no GGF game: a game starts with (; and ends with ;)")]
    NoGame,
    #[error("game {game}: a property is not closed by ]")]
    Unclosed { game: usize },
    #[error("game {game}: only 8x8 Othello is read, and TY is {kind:?}")]
    NotEightByEight { game: usize, kind: String },
    #[error("game {game}: BO[{board}] is not \"8\", 64 squares from -*O and the side to move (* or O)")]
    BadBoard { game: usize, board: String },
    #[error("game {game}: {move_text:?} is not a move: expected a square a1..h8 or PA")]
    BadMove { game: usize, move_text: String },
    #[error("game {game}: {error}")]
    Rules { game: usize, error: TranscriptError },
}

/// Every game in `text`.
pub fn parse(text: &str) -> Result<Vec<GgfGame>, GgfError> {
    let mut games = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("(;") {
        let body = &rest[start + 2..];
        let end = body.find(";)").unwrap_or(body.len());
        games.push(parse_game(&body[..end], games.len() + 1)?);
        rest = &body[(end + 2).min(body.len())..];
    }
    if games.is_empty() {
        return Err(GgfError::NoGame);
    }
    Ok(games)
}

/// Properties in order: `NAME[value]`.
fn properties(body: &str, game: usize) -> Result<Vec<(&str, &str)>, GgfError> {
    let mut found = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('[') {
        let name = rest[..open].trim_matches(|c: char| c.is_whitespace() || c == ';');
        let close = rest[open..].find(']').ok_or(GgfError::Unclosed { game })? + open;
        found.push((name, &rest[open + 1..close]));
        rest = &rest[close + 1..];
    }
    Ok(found)
}

fn parse_game(body: &str, number: usize) -> Result<GgfGame, GgfError> {
    let mut black = String::new();
    let mut white = String::new();
    let mut game = Game::new(Position::START);
    let mut moves = 0;
    let mut time = None;
    let mut used = [0.0; 2];
    for (name, value) in properties(body, number)? {
        match name {
            "PB" => black = value.to_string(),
            "PW" => white = value.to_string(),
            // A clock that cannot be read is no clock: the game itself is still good.
            "TI" => time = GgfTime::parse(value),
            "TY" if !value.trim_start_matches(['s', 'k', 'r', 'a', 'b']).starts_with('8') => {
                return Err(GgfError::NotEightByEight {
                    game: number,
                    kind: value.to_string(),
                });
            }
            "BO" => {
                game = Game::new(board(value).ok_or_else(|| GgfError::BadBoard {
                    game: number,
                    board: value.to_string(),
                })?)
            }
            "B" | "W" => {
                moves += 1;
                let move_text = value.split('/').next().unwrap_or("").trim();
                let written = if move_text.eq_ignore_ascii_case("pa") || move_text.eq_ignore_ascii_case("pass") {
                    Written::Pass
                } else {
                    Written::Square(Square::from_a1(move_text).ok_or_else(|| GgfError::BadMove {
                        game: number,
                        move_text: value.to_string(),
                    })?)
                };
                transcript::play_one(&mut game, written, moves)
                    .map_err(|error| GgfError::Rules { game: number, error })?;
                let side = if name == "B" { Color::Black } else { Color::White };
                used[side.index()] += value.split('/').nth(2).and_then(seconds).unwrap_or(0.0);
            }
            _ => {}
        }
    }
    Ok(GgfGame {
        black,
        white,
        game,
        time,
        used,
    })
}

/// `8 <64 squares> <side>`, spaces anywhere.
fn board(text: &str) -> Option<Position> {
    let compact: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    let (&size, rest) = compact.split_first()?;
    if size != '8' || rest.len() != 65 {
        return None;
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (i, c) in rest[..64].iter().enumerate() {
        match c {
            '*' => black |= 1 << i,
            'O' | 'o' => white |= 1 << i,
            '-' | '.' => {}
            _ => return None,
        }
    }
    let to_move = match rest[64] {
        '*' => Color::Black,
        'O' | 'o' => Color::White,
        _ => return None,
    };
    Some(Position::from_discs(Bitboard(black), Bitboard(white), to_move))
}

/// A game in GGF, one line, with its players and its final score as the result.
pub fn format(game: &Game, black: &str, white: &str) -> String {
    let start = game.start();
    let squares: String = Square::all()
        .map(|square| match start.at(square) {
            Some(Color::Black) => '*',
            Some(Color::White) => 'O',
            None => '-',
        })
        .collect();
    let side = if start.to_move == Color::Black { '*' } else { 'O' };
    let clean = |name: &str| name.replace([']', '['], "");
    let mut out = format!(
        "(;GM[Othello]PC[othello]PB[{}]PW[{}]TY[8]BO[8 {squares} {side}]",
        clean(black),
        clean(white)
    );
    for turn in game.turns() {
        let tag = if turn.side() == Color::Black { 'B' } else { 'W' };
        match turn {
            Turn::Move { square, .. } => out += &format!("{tag}[{}]", square),
            Turn::Pass { .. } => out += &format!("{tag}[PA]"),
        }
    }
    if game.is_over() {
        let (b, w) = game.position().counts();
        out += &format!("RE[{:+}]", b as i32 - w as i32);
    }
    out + ";)"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game as NBoard writes one (a start position given in BO, moves with evaluations and times).
    #[test]
    fn ggf_games_read_and_write_back() {
        let text = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[Ntest]PW[Edax]RE[?]TI[5:00]TY[8]\
            BO[8 ---------------------------O*------*O--------------------------- *]\
            B[F5//1.2]W[d6/-1.00/0.5]B[C3]W[D3]B[C4];)";
        let games = parse(text).unwrap();
        assert_eq!(games.len(), 1);
        let GgfGame {
            black,
            white,
            game,
            time,
            used,
        } = &games[0];
        assert_eq!((black.as_str(), white.as_str()), ("Ntest", "Edax"));
        assert_eq!(
            *time,
            Some(GgfTime {
                main: 300.0,
                increment: 0.0
            })
        );
        assert_eq!(*used, [1.2, 0.5]);
        assert_eq!(transcript::format(game), "f5d6c3d3c4");
        let again = parse(&format(game, "Ntest", "Edax")).unwrap();
        assert_eq!(again[0].game.turns(), game.turns());
        assert_eq!(again[0].game.start(), game.start());
    }

    #[test]
    fn ggf_clocks_read_in_every_form() {
        let time = |text: &str| GgfTime::parse(text).map(|t| (t.main, t.increment));
        assert_eq!(time("15:00//2:00"), Some((900.0, 0.0)));
        assert_eq!(time("1:00:00/5/0"), Some((3600.0, 5.0)));
        assert_eq!(time("90.5"), Some((90.5, 0.0)));
        assert_eq!(time("five minutes"), None);
        assert_eq!(time("0"), None, "no time: untimed");
        let game = &parse("(;GM[Othello]TY[8]TI[soon]B[f5];)").unwrap()[0];
        assert_eq!(game.time, None, "an unreadable clock is no clock");
    }

    #[test]
    fn bad_ggf_names_the_problem() {
        assert_eq!(parse("hello").unwrap_err(), GgfError::NoGame);
        let bad_move = parse("(;GM[Othello]TY[8]B[z9];)").unwrap_err();
        assert_eq!(
            bad_move.to_string(),
            "game 1: \"z9\" is not a move: expected a square a1..h8 or PA"
        );
        let illegal = parse("(;GM[Othello]TY[8]B[a1];)").unwrap_err();
        assert_eq!(
            illegal.to_string(),
            "game 1: move 1, a1, is illegal: black can play d3 c4 f5 e6"
        );
        assert!(matches!(
            parse("(;TY[10]BO[8 x];)"),
            Err(GgfError::NotEightByEight { .. })
        ));
    }
}

//! Condensed transcripts of the course's later labs: a whole game as one word, two characters a move,
//! `_` before a one-digit move and `-1` for a pass (`4445_9-157` is 44, 45, 9, pass, 57).

use std::fmt;

use crate::square::Square;

/// One entry of a condensed transcript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Move(Square),
    /// `-1`.
    Pass,
    /// `-2` to `-9`: the course's moderators mark a failed move this way (time-out, illegal move, ...).
    Code(u8),
}

/// Why a word is not a condensed transcript.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CondensedError {
    #[error("a condensed transcript has two characters a move, and this has an odd length ({0})")]
    OddLength(usize),
    #[error("entry {position}, {entry:?}, is not a move: expected 10..63, _0.._9 or -1")]
    BadEntry { position: usize, entry: String },
    #[error("an empty condensed transcript")]
    Empty,
}

/// Reads a condensed transcript.
pub fn parse(text: &str) -> Result<Vec<Entry>, CondensedError> {
    if text.is_empty() {
        return Err(CondensedError::Empty);
    }
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) || !text.is_ascii() {
        return Err(CondensedError::OddLength(text.chars().count()));
    }
    bytes
        .chunks(2)
        .enumerate()
        .map(|(k, pair)| {
            entry(pair).ok_or_else(|| CondensedError::BadEntry {
                position: k + 1,
                entry: String::from_utf8_lossy(pair).into_owned(),
            })
        })
        .collect()
}

fn entry(pair: &[u8]) -> Option<Entry> {
    let digit = |b: u8| b.is_ascii_digit().then(|| b - b'0');
    match *pair {
        [b'_', d] => Some(Entry::Move(Square::from_index(digit(d)?))),
        [b'-', b'1'] => Some(Entry::Pass),
        [b'-', d] => Some(Entry::Code(digit(d).filter(|&d| d >= 2)?)),
        // A two-digit entry never starts with 0: one-digit moves are written with `_`.
        [tens @ b'1'..=b'6', units] => Square::new(10 * (tens - b'0') + digit(units)?).map(Entry::Move),
        _ => None,
    }
}

/// Whether a word has the shape of a condensed transcript (it may still hold a bad entry): pairs of
/// `_d`, `dd` or `-d`. A single `dd` is a plain move, and is left to the caller.
pub fn has_shape(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len().is_multiple_of(2)
        && !bytes.is_empty()
        && bytes.chunks(2).all(|pair| match pair {
            [b'_' | b'-', d] => d.is_ascii_digit(),
            [a, b] => a.is_ascii_digit() && b.is_ascii_digit(),
            _ => false,
        })
}

/// The condensed form of a sequence of entries.
pub fn format(entries: &[Entry]) -> String {
    entries.iter().map(ToString::to_string).collect()
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::Move(square) if square.index() < 10 => write!(f, "_{}", square.index()),
            Entry::Move(square) => write!(f, "{}", square.index()),
            Entry::Pass => f.write_str("-1"),
            Entry::Code(code) => write!(f, "-{code}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(indices: &[u8]) -> Vec<Entry> {
        indices.iter().map(|&i| Entry::Move(Square::from_index(i))).collect()
    }

    #[test]
    fn the_handouts_example_reads_and_writes_back() {
        let mut expected = moves(&[44, 45, 9]);
        expected.push(Entry::Pass);
        expected.extend(moves(&[57]));
        assert_eq!(parse("4445_9-157").unwrap(), expected);
        assert_eq!(format(&expected), "4445_9-157");
    }

    #[test]
    fn every_square_round_trips() {
        let all: Vec<Entry> = (0..64).map(|i| Entry::Move(Square::from_index(i))).collect();
        assert_eq!(parse(&format(&all)).unwrap(), all);
        assert_eq!(parse("-3").unwrap(), [Entry::Code(3)]);
    }

    #[test]
    fn bad_entries_are_named() {
        for (text, fragment) in [
            ("4445_", "odd length"),
            ("4464", "entry 2, \"64\""),
            ("0019", "entry 1, \"00\""),
            ("19-0", "entry 2, \"-0\""),
            ("19ab", "entry 2, \"ab\""),
            ("", "empty"),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.contains(fragment), "{text}: {error}");
        }
        assert!(has_shape("4464") && has_shape("_9-1") && !has_shape("d3e4") && !has_shape("445"));
    }
}

/// Why a condensed transcript is not a legal game from the start position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Form(#[from] CondensedError),
    #[error("entry {step}, {square} ({}), is illegal for {}: {why}", square.index(), side.lab_char())]
    Illegal {
        step: usize,
        square: Square,
        side: crate::color::Color,
        why: String,
    },
    #[error("entry {step} passes, but {} has a move or the game is over", side.lab_char())]
    Pass { step: usize, side: crate::color::Color },
    #[error("entry {step} comes after a failure code")]
    AfterCode { step: usize },
}

/// A condensed transcript played from the start position: every move legal, `-1` only where a pass
/// is forced (a forced pass may also go unwritten), a failure code only at the end. The game, and
/// the side that failed with its code, if one did.
pub fn play(text: &str) -> Result<(crate::game::Game, Option<(crate::color::Color, u8)>), PlayError> {
    use crate::game::{Game, Status};
    let entries = parse(text)?;
    let mut game = Game::new(crate::position::Position::START);
    let mut ended_by = None;
    for (k, entry) in entries.iter().enumerate() {
        let step = k + 1;
        if ended_by.is_some() {
            return Err(PlayError::AfterCode { step });
        }
        if matches!(entry, Entry::Move(_)) && matches!(game.status(), Status::MustPass(_)) {
            game.pass().expect("the pass is forced");
        }
        let side = game.position().to_move;
        match *entry {
            Entry::Move(square) => {
                game.play(square, None).map_err(|why| PlayError::Illegal {
                    step,
                    square,
                    side,
                    why: why.to_string(),
                })?;
            }
            Entry::Pass => game.pass().map_err(|_| PlayError::Pass { step, side }).map(|_| ())?,
            Entry::Code(code) => ended_by = Some((side, code)),
        }
    }
    Ok((game, ended_by))
}

//! Classifies the lab mode's arguments by their content, in any order: board, token, moves, options.

use std::sync::LazyLock;

use regex::Regex;

use othello_core::bitboard::Bitboard;
use othello_core::color::Color;
use othello_core::notation::condensed::{self, Entry};
use othello_core::notation::lab_board;
use othello_core::square::Square;

/// What the lab mode was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabRequest {
    /// (black, white) discs of the given board, if one was given.
    pub board: Option<(Bitboard, Bitboard)>,
    /// The side to play first, if given.
    pub token: Option<Color>,
    /// The non-negative moves, in order; negative numbers are already left out.
    pub moves: Vec<Square>,
    /// Othello 1's first snapshot: the token keeps the turn even when it cannot move.
    pub lab1: bool,
    /// Lab 4: `My preferred move is: N` after the last snapshot.
    pub lab4: bool,
    /// Lab 5: also the exact `Min score` line when fewer than `holes` squares are empty.
    pub lab5: bool,
    pub holes: u32,
}

/// Lab 5 solves exactly when fewer than this many squares are empty, unless `--holes` says otherwise.
pub(crate) const DEFAULT_HOLES: u32 = 11;

/// An argument the lab mode cannot use; the message says what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad argument {argument:?}: {expected}")]
pub struct BadArgument {
    pub argument: String,
    pub expected: String,
}

const EXPECTED_ANY: &str = "expected a board (64 characters from xXoO.), a token (x or o), \
     a move (0..63 or a1..h8) or a negative number (ignored)";

/// One pattern, one group per kind of argument, so that a single match classifies.
static CLASSIFIER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?P<board>[xXoO.]{64})|(?P<token>[xXoO])|(?P<negative>-[0-9]+)|(?P<index>[0-9]+)|(?P<a1>[a-hA-H][1-8]))$",
    )
    .expect("the classifier pattern is valid")
});

impl Default for LabRequest {
    fn default() -> LabRequest {
        LabRequest {
            board: None,
            token: None,
            moves: Vec::new(),
            lab1: false,
            lab4: false,
            lab5: false,
            holes: DEFAULT_HOLES,
        }
    }
}

impl LabRequest {
    /// Classifies every argument; the first one that fits nowhere is the error.
    pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<LabRequest, BadArgument> {
        let mut request = LabRequest::default();
        let mut holes_given = None;
        let mut args = args.iter().map(AsRef::as_ref);
        while let Some(argument) = args.next() {
            // `HL12`: the later labs' way to give the hole limit, the same as `--holes 12`.
            if let Some(value) = argument
                .strip_prefix("HL")
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
            {
                request.holes = value.parse().ok().filter(|&n| n <= 64).ok_or_else(|| BadArgument {
                    argument: argument.to_string(),
                    expected: "HLn takes a number of empty squares, 0..64".to_string(),
                })?;
                holes_given = Some(argument);
                continue;
            }
            if argument == "--holes" {
                let value = args.next().ok_or_else(|| BadArgument {
                    argument: argument.to_string(),
                    expected: "--holes takes a number of empty squares after it".to_string(),
                })?;
                request.holes = value.parse().ok().filter(|&n| n <= 64).ok_or_else(|| BadArgument {
                    argument: value.to_string(),
                    expected: "--holes takes a number of empty squares, 0..64".to_string(),
                })?;
                holes_given = Some(argument);
                continue;
            }
            request.add(argument)?;
        }
        if let Some(argument) = holes_given
            && !request.lab5
        {
            return Err(BadArgument {
                argument: argument.to_string(),
                expected: format!(
                    "{} only goes with --lab5",
                    if argument.starts_with("HL") { "HLn" } else { "--holes" }
                ),
            });
        }
        Ok(request)
    }

    fn add(&mut self, argument: &str) -> Result<(), BadArgument> {
        let bad = |expected: &str| BadArgument {
            argument: argument.to_string(),
            expected: expected.to_string(),
        };
        let flag = match argument {
            "--lab1" => Some(&mut self.lab1),
            "--lab4" => Some(&mut self.lab4),
            "--lab5" => Some(&mut self.lab5),
            _ => None,
        };
        if let Some(flag) = flag {
            *flag = true;
            return Ok(());
        }
        let Some(captures) = CLASSIFIER.captures(argument) else {
            if condensed::has_shape(argument) {
                return self.add_condensed(argument);
            }
            return Err(bad(&explain_unclassified(argument)));
        };
        if captures.name("board").is_some() {
            if self.board.is_some() {
                return Err(bad("a second board: only one board may be given"));
            }
            self.board = Some(lab_board::parse(argument).map_err(|e| bad(&e.to_string()))?);
        } else if captures.name("token").is_some() {
            if let Some(token) = self.token {
                return Err(bad(&format!(
                    "a second token: the token was already given as {}",
                    token.lab_char()
                )));
            }
            self.token = Color::from_lab_char(argument.chars().next().unwrap_or_default());
        } else if captures.name("negative").is_none() {
            // Index or A1 notation; the square parser gives the range error for `64` and beyond. A
            // longer run of digits such as `4445` is a condensed transcript when it reads as one.
            match argument.parse::<Square>() {
                Ok(square) => self.moves.push(square),
                Err(_) if argument.len() >= 4 && condensed::has_shape(argument) => {
                    self.add_condensed(argument)?;
                }
                Err(_) => return Err(bad("a move is 0..63 or a1..h8")),
            }
        }
        Ok(())
    }

    /// A condensed transcript's moves, as if given one by one: its passes and codes are ignored like
    /// negative numbers (the lab detects passes itself).
    fn add_condensed(&mut self, argument: &str) -> Result<(), BadArgument> {
        let entries = condensed::parse(argument).map_err(|error| BadArgument {
            argument: argument.to_string(),
            expected: format!("a move is 0..63 or a1..h8; as a condensed transcript, {error}"),
        })?;
        self.moves.extend(entries.into_iter().filter_map(|entry| match entry {
            Entry::Move(square) => Some(square),
            Entry::Pass | Entry::Code(_) => None,
        }));
        Ok(())
    }
}

/// The most helpful thing to say about an argument that matched no kind.
fn explain_unclassified(argument: &str) -> String {
    if argument.is_empty() {
        return format!("an empty argument; {EXPECTED_ANY}");
    }
    // An Edax or FFO position (`---...OX... X;`), as other commands take it.
    let squares: String = argument.chars().take(64).collect();
    let side = argument.chars().skip(64).collect::<String>();
    if squares.chars().count() == 64
        && squares.contains('-')
        && squares.chars().all(|c| "xXoO-".contains(c))
        && matches!(side.trim().trim_end_matches(';').trim(), "" | "X" | "O" | "x" | "o")
    {
        return "an OBF board (X, O and -, as Edax writes it): the lab mode takes the course's 64-character boards (xXoO.); othello solve and othello analyze read OBF".to_string();
    }
    if argument.starts_with("--") {
        return "unknown option; the lab mode takes --lab1, --lab4, --lab5 and --holes N (see othello --help)"
            .to_string();
    }
    let condensed_characters = argument.chars().all(|c| c.is_ascii_digit() || c == '_' || c == '-');
    if condensed_characters
        && (argument.contains('_') || argument[1..].contains('-'))
        && let Err(error) = condensed::parse(argument)
    {
        return format!("not a condensed transcript: {error}");
    }
    if let Err(error) = argument.parse::<Square>()
        && !matches!(error, othello_core::square::ParseSquareError::Malformed(_))
    {
        return error
            .to_string()
            .split_once(": ")
            .map_or(EXPECTED_ANY.to_string(), |(_, why)| format!("not a move: {why}"));
    }
    let length = argument.chars().count();
    if argument.chars().all(|c| "xXoO.".contains(c)) {
        return format!("expected a token (x or o) or a board of exactly 64 characters from xXoO. (this has {length})");
    }
    if length == 64
        && let Err(error) = lab_board::parse(argument)
    {
        return error.to_string();
    }
    EXPECTED_ANY.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_classified_in_any_order() {
        let board = lab_board::DEFAULT_BOARD;
        let request = LabRequest::parse(&["19", "O", "-5", "e6", board, "--lab1", "-0000"]).unwrap();
        assert_eq!(request.token, Some(Color::White));
        assert_eq!(request.moves, [Square::from_index(19), Square::from_index(44)]);
        assert!(request.board.is_some() && request.lab1);
    }

    #[test]
    fn a_condensed_transcript_is_its_moves_one_by_one() {
        let condensed = LabRequest::parse(&["x", "4445_9-157", "-1-1", "_0"]).unwrap();
        let one_by_one = LabRequest::parse(&["x", "44", "45", "9", "-1", "57", "0"]).unwrap();
        assert_eq!(condensed, one_by_one);
        // Plain moves keep their meaning: leading zeros, and a negative number however long.
        let plain = LabRequest::parse(&["0019", "-157"]).unwrap();
        assert_eq!(plain.moves, [Square::from_index(19)]);
    }

    #[test]
    fn every_bad_kind_is_named() {
        let board = lab_board::DEFAULT_BOARD;
        for (args, fragment) in [
            (vec!["64"], "0..63"),
            (vec!["i9"], "columns are a-h"),
            (vec!["a0"], "rows 1-8"),
            (vec!["+3"], "expected a board"),
            (vec!["xo"], "this has 2"),
            (vec!["1.5"], "expected a board"),
            (vec![""], "an empty argument"),
            (vec![&board[1..]], "this has 63"),
            (vec![board, board], "a second board"),
            (vec!["x", "o"], "already given as x"),
            (vec!["--lab9"], "unknown option"),
            (vec!["--lab5", "--holes", "x"], "0..64"),
            (vec!["--lab5", "--holes"], "after it"),
            (
                vec!["4464"],
                "0..63 or a1..h8; as a condensed transcript, entry 2, \"64\"",
            ),
            (vec!["1900"], "entry 2, \"00\""),
            (
                vec!["_9_"],
                "not a condensed transcript: a condensed transcript has two characters a move",
            ),
            (vec!["1934_a41"], "expected a board"),
            (vec!["19-"], "odd length"),
        ] {
            let error = LabRequest::parse(&args).unwrap_err();
            assert!(error.to_string().contains(fragment), "{args:?}: {error}");
            assert_eq!(&error.argument, args.last().unwrap());
        }
        // The later labs' HLn is --holes n.
        let hl = LabRequest::parse(&["--lab5", "HL12"]).unwrap();
        assert_eq!(hl.holes, 12);
        assert_eq!(
            LabRequest::parse(&["HL12"]).unwrap_err().expected,
            "HLn only goes with --lab5"
        );
        assert!(LabRequest::parse(&["--lab5", "HL99"]).is_err());
        let error = LabRequest::parse(&["--holes", "4"]).unwrap_err();
        assert_eq!(
            (error.argument.as_str(), error.expected.as_str()),
            ("--holes", "--holes only goes with --lab5")
        );
    }
}

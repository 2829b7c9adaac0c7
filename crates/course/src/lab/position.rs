//! A position given on a command line as the commands other than the lab mode take it: the lab's
//! board, an OBF board (as Edax and the FFO files write it) or a GGF game record, and a token.

use othello_core::position::Position;

use super::LabRequest;
use super::args::BadArgument;

/// A command line's position that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PositionArgError {
    #[error("bad argument {0:?}: a GGF game already says whose turn it is")]
    TokenWithGgf(String),
    #[error("bad GGF game: {0}")]
    Ggf(othello_core::notation::ggf::GgfError),
    #[error("bad argument: {0} GGF games where one was expected")]
    GgfCount(usize),
    #[error("bad argument {0:?}: the OBF line already names the side to move")]
    TokenWithObf(String),
    #[error(
        "bad argument {board:?}: a board has 64 characters, of xXoO. as in the lab mode or of X, O and - as in OBF (this one has {count})"
    )]
    Length { board: String, count: usize },
    #[error(
        "bad argument {board:?}: expected a board: 64 characters, of xXoO. as in the lab mode or of X, O and - as in OBF (this one has {count})"
    )]
    NotBoard { board: String, count: usize },
    #[error("bad argument {0:?}: expected a token: x or o, the side to move")]
    Token(String),
    #[error(transparent)]
    Lab(#[from] BadArgument),
    #[error("bad argument {0:?}: expected a board of 64 characters from xXoO. (or X, O and - as in OBF)")]
    BoardOnly(String),
}

/// A position from a `BOARD [TOKEN]` pair as the commands other than the lab mode take it, by one
/// rule in every command: the lab's board (`xXoO.`), an OBF board as Edax and the FFO files write
/// it (`X`, `O`, `-`, its side after it in the same argument, `... X;`, or as the token), or a GGF
/// game record (the position where it ends). A token given is the side asked about, even one that
/// must pass; without one, the lab's rule picks the side (by parity, then the other side if that
/// one cannot move). The lab mode itself stays strict.
pub fn parse(board: &str, token: Option<&str>) -> Result<Position, PositionArgError> {
    // A GGF game record: the position where it ends (its side to move is the game's).
    if board.trim_start().starts_with("(;") {
        if let Some(token) = token {
            return Err(PositionArgError::TokenWithGgf(token.to_string()));
        }
        let games = othello_core::notation::ggf::parse(board.trim()).map_err(PositionArgError::Ggf)?;
        return match games.as_slice() {
            [one] => Ok(one.game.position()),
            _ => Err(PositionArgError::GgfCount(games.len())),
        };
    }
    let (board, token) = match obf_board(board) {
        Some((lab_board, side)) => {
            if let (Some(_), Some(token)) = (side, token) {
                return Err(PositionArgError::TokenWithObf(token.to_string()));
            }
            (std::borrow::Cow::Owned(lab_board), side.or(token))
        }
        None if board.contains('-') && !board.starts_with('-') => {
            return Err(PositionArgError::Length {
                board: board.to_string(),
                count: board.chars().count(),
            });
        }
        None => (std::borrow::Cow::Borrowed(board), token),
    };
    // The lab's own message lists moves and negative numbers, which a command's board is not.
    if LabRequest::parse(&[board.as_ref()]).map_or(true, |request| request.board.is_none()) {
        return Err(PositionArgError::NotBoard {
            board: board.to_string(),
            count: board.chars().count(),
        });
    }
    if let Some(token) = token.filter(|token| !matches!(*token, "x" | "X" | "o" | "O")) {
        return Err(PositionArgError::Token(token.to_string()));
    }
    let mut words = vec![board.as_ref()];
    words.extend(token);
    let request = LabRequest::parse(&words)?;
    if request.board.is_none() || !request.moves.is_empty() {
        return Err(PositionArgError::BoardOnly(board.to_string()));
    }
    let position = super::start_position(&request);
    Ok(match request.token {
        Some(_) => position,
        None => position.after_forced_pass(),
    })
}

/// Whether a word is a board, of the lab's or OBF's (for commands that also take a game: a GGF
/// record is a game to them).
pub fn is_board(word: &str) -> bool {
    (word.len() == 64 && word.chars().all(|c| "xXoO.".contains(c))) || obf_board(word).is_some()
}

/// An OBF board (`-` for empty squares, perhaps with the rest of its line after it) as the lab's board
/// and the side it names; `None` for anything else (a lab board is read as it is).
fn obf_board(text: &str) -> Option<(String, Option<&str>)> {
    let text = text.trim();
    let (board, rest) = text.split_at_checked(64)?;
    if !board.contains('-') || !board.chars().all(|c| "XOxo-.".contains(c)) {
        return None;
    }
    // A whole OBF line may follow with its scored moves (`X; A2:+38; ...`): only the side counts.
    let side = rest.split(';').next().unwrap_or_default().trim();
    let side = match side {
        "" => None,
        "X" | "x" | "O" | "o" => Some(side),
        _ => return None,
    };
    Some((board.replace('-', "."), side))
}

//! Building the opening book from the engine's own searches: breadth first from the start,
//! following the moves near the best and the positions games have played, each position's moves
//! searched to a fixed depth.

use std::collections::HashMap;

use crate::search::book::{Book, BookValue, canonical};
use crate::search::engine::{Budget, Engine, EngineStyle};
use crate::settings::EngineSettings;
use othello_core::board::Board;
use othello_core::game::Game;

/// How a book is built: from the start, every position reached within `plies` plies by moves at
/// most `width` discs worse than the best (by the searches), then every position of those plies
/// that at least `min_games` of the [`Played`] games reached, most played first; at most
/// `positions` expanded; each expanded position's children searched `depth` plies by the
/// full-width engine of `engine`'s weights.
#[derive(Clone, Copy, Debug)]
pub struct BuildConfig {
    pub plies: u32,
    pub depth: u32,
    pub width: i32,
    pub positions: usize,
    pub min_games: u32,
    pub engine: EngineSettings,
}

/// The most positions [`Played`] counts (about 40 bytes each): the 126,406 games of WTHOR's 44
/// years reach 454,554 distinct positions in their first 20 plies (42 MB in all, counted in 4.2 s).
pub const MAX_PLAYED: usize = 4_000_000;

/// How many games reached each position of a book's first plies (a position's ply is its discs
/// less the 4 of the start, so games from any start count): the lines people play, for the book to
/// value beside the engine's own best ones.
#[derive(Clone, Debug, Default)]
pub struct Played {
    plies: u32,
    positions: HashMap<(u64, u64), (Board, u32)>,
    /// Positions passed over because [`MAX_PLAYED`] were counted already.
    pub uncounted: u64,
}

impl Played {
    /// Counts the positions of the first `plies` plies.
    pub fn new(plies: u32) -> Played {
        Played {
            plies,
            ..Played::default()
        }
    }

    /// Counts the positions of one game where a move was made (each once a game, whatever its
    /// symmetry).
    ///
    /// ```
    /// use othello_core::board::Board;
    /// use othello_core::notation::transcript;
    /// use othello_core::position::Position;
    /// use othello_engine::training::book::Played;
    ///
    /// let mut played = Played::new(3);
    /// // d3c5 is f5d6 reflected: the same positions, played twice.
    /// for line in ["f5d6c3", "d3c5f6", "f5f6e6"] {
    ///     played.add_game(&transcript::play(Position::START, line).unwrap());
    /// }
    /// assert_eq!(played.at_ply(0, 3), vec![Board::START]);
    /// let f5 = Board::START.play("f5".parse().unwrap());
    /// assert_eq!(played.at_ply(1, 3), vec![f5]);
    /// assert_eq!(played.at_ply(2, 2), vec![f5.play("d6".parse().unwrap())]);
    /// // The position after each game's last move had no move made in it.
    /// assert!(played.at_ply(3, 1).is_empty());
    /// ```
    pub fn add_game(&mut self, game: &Game) {
        let mut this_game = std::collections::HashSet::new();
        let mut position = game.start();
        for square in game.moves() {
            position = position.after_forced_pass();
            let board = position.board;
            position = position.play(square);
            if Self::ply(board).is_none_or(|ply| ply >= self.plies) {
                continue;
            }
            let key = canonical(board);
            if !this_game.insert(key) {
                continue;
            }
            let len = self.positions.len();
            match self.positions.entry(key) {
                std::collections::hash_map::Entry::Occupied(mut seen) => seen.get_mut().1 += 1,
                std::collections::hash_map::Entry::Vacant(_) if len >= MAX_PLAYED => self.uncounted += 1,
                std::collections::hash_map::Entry::Vacant(new) => {
                    new.insert((board, 1));
                }
            }
        }
    }

    /// A position's ply from its discs, if it has at least the start's four.
    fn ply(board: Board) -> Option<u32> {
        (board.player.count() + board.opponent.count()).checked_sub(4)
    }

    /// The positions of `ply` plies that at least `min_games` games reached, most played first (in
    /// the order of their symmetric form where as many games did).
    pub fn at_ply(&self, ply: u32, min_games: u32) -> Vec<Board> {
        let mut found: Vec<((u64, u64), Board, u32)> = self
            .positions
            .iter()
            .filter(|&(_, &(board, games))| games >= min_games && Self::ply(board) == Some(ply))
            .map(|(&key, &(board, games))| (key, board, games))
            .collect();
        found.sort_by_key(|&(key, _, games)| (std::cmp::Reverse(games), key));
        found.into_iter().map(|(_, board, _)| board).collect()
    }

    /// The positions counted.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// Builds a book on `threads` threads (the same book on any number), calling `on_level` with the
/// book so far after each ply (a checkpoint) and the positions expanded.
pub fn build(
    config: BuildConfig,
    played: &Played,
    threads: usize,
    mut on_level: impl FnMut(&Book, u32, usize),
) -> Book {
    let mut book = Book::default();
    let mut frontier = vec![Board::START];
    let mut expanded = 0;
    for ply in 0..config.plies {
        let mut seen = std::collections::HashSet::new();
        let positions: Vec<Board> = frontier
            .into_iter()
            .chain(played.at_ply(ply, config.min_games.max(1)))
            .filter(|&board| !board.moves().is_empty() && book.moves(board).is_none() && seen.insert(canonical(board)))
            .take(config.positions.saturating_sub(expanded))
            .collect();
        if positions.is_empty() {
            break;
        }
        expanded += positions.len();
        let mut next = Vec::new();
        othello_plumbing::parallel::ordered(
            positions.len(),
            threads,
            |i| {
                // A fresh engine for each position: the same values whatever thread searches it.
                let mut engine =
                    Engine::with_style(Budget::Depth(config.depth), EngineStyle::FULL_WIDTH, &config.engine);
                let board = positions[i];
                board
                    .moves()
                    .squares()
                    .map(|square| {
                        let child = board.play(square);
                        let (value, _) = engine.value(child);
                        (
                            child,
                            BookValue {
                                discs: value.number(),
                                depth: config.depth,
                            },
                        )
                    })
                    .collect::<Vec<_>>()
            },
            |_, children| {
                let best = children.iter().map(|(_, value)| -value.discs).max().unwrap_or(0);
                for &(child, value) in &children {
                    if book.get(child).is_none() {
                        book.insert(child, value);
                    }
                    if -value.discs >= best - config.width {
                        next.push(child);
                    }
                }
                true
            },
        );
        frontier = next;
        book.negamax(Board::START);
        on_level(&book, ply + 1, expanded);
    }
    book
}

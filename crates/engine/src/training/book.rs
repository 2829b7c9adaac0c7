//! Building the opening book from the engine's own searches: breadth first from the start,
//! following the moves near the best, each position's moves searched to a fixed depth.

use crate::search::book::{Book, BookValue, canonical};
use crate::search::engine::{Budget, Engine, EngineStyle};
use crate::settings::EngineSettings;
use othello_core::board::Board;

/// How a book is built: from the start, every position reached within `plies` plies by moves at
/// most `width` discs worse than the best (by the searches), at most `positions` expanded; each
/// expanded position's children searched `depth` plies by the full-width engine of `engine`'s
/// weights.
#[derive(Clone, Copy, Debug)]
pub struct BuildConfig {
    pub plies: u32,
    pub depth: u32,
    pub width: i32,
    pub positions: usize,
    pub engine: EngineSettings,
}

/// Builds a book on `threads` threads (the same book on any number), calling `on_level` with the
/// book so far after each ply (a checkpoint) and the positions expanded.
pub fn build(config: BuildConfig, threads: usize, mut on_level: impl FnMut(&Book, u32, usize)) -> Book {
    let mut book = Book::default();
    let mut frontier = vec![Board::START];
    let mut expanded = 0;
    for ply in 0..config.plies {
        let mut seen = std::collections::HashSet::new();
        let positions: Vec<Board> = frontier
            .into_iter()
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

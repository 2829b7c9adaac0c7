//! What a front end gives every engine it builds: the weights of the trained evaluation and the
//! opening book of timed searches. A value passed to constructors, never a process-wide default:
//! one process may hold engines of different weights at once.

use crate::patterns::{self, LoadedWeights, Weights};
use crate::search::book::Book;

/// The engines' settings (`--weights FILE`, `--book FILE`, `--book-deviation DISCS`); the default
/// is the built-in weights and no book.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineSettings {
    /// Weights of a file for the trained evaluation; none: the built-in ones.
    pub weights: Option<&'static LoadedWeights>,
    /// The book a timed engine plays from, and how many discs from its best move it may stray.
    pub book: Option<(&'static Book, i32)>,
}

impl EngineSettings {
    /// The weights searches use: the file's, or the built-in ones (read on first use).
    ///
    /// ```
    /// use othello_engine::settings::EngineSettings;
    ///
    /// let weights = EngineSettings::default().weights();
    /// assert!(std::ptr::eq(weights, othello_engine::patterns::builtin()));
    /// ```
    pub fn weights(&self) -> &'static Weights {
        self.weights.map_or_else(patterns::builtin, |loaded| &loaded.weights)
    }
}

// Two settings are the same when they name the same weights file and the very same book.
impl PartialEq for EngineSettings {
    fn eq(&self, other: &EngineSettings) -> bool {
        let same_book = match (self.book, other.book) {
            (Some((a, x)), Some((b, y))) => std::ptr::eq(a, b) && x == y,
            (None, None) => true,
            _ => false,
        };
        self.weights == other.weights && same_book
    }
}

impl Eq for EngineSettings {}

//! The evaluation and search of the `othello` workspace: the evaluations ([`eval`]: discs, weights,
//! mobility; [`stability`]; [`patterns`]: the trained pattern evaluation and its built-in weights),
//! the searches ([`search`]: perft, minimax, alpha-beta, the engine with Multi-ProbCut, the exact
//! endgame solver, the opening book, the analysis of a game) and what trains them ([`training`]).
//!
//! Solve a position near the end to the last disc:
//!
//! ```
//! use othello_core::{Color, Position};
//! use othello_engine::search::endgame::Solver;
//!
//! let (black, white) = othello_core::notation::lab_board::parse(
//!     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxoooooooooooooooooooo....",
//! )
//! .unwrap();
//! let near_end = Position::from_discs(black, white, Color::Black);
//! let solution = Solver::new().solve(near_end.board).unwrap();
//! assert!((-64..=64).contains(&solution.score));
//! ```

pub mod eval;
pub mod patterns;
pub mod search;
pub mod settings;
pub mod stability;
pub mod training;

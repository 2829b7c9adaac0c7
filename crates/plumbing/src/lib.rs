//! The plumbing under the `othello` workspace's tools, knowing nothing of Othello: [`files`] reads
//! inputs safely (regular files only, bounded sizes and lines, which paths are the same file),
//! [`printable`] makes others' text safe to print, [`scratch`] names scratch folders by their
//! process and sweeps those of runs that are gone, and [`parallel`] works on several threads and
//! hands the results back in order.
//!
//! ```
//! // Squares on four threads, handed back in order as they finish.
//! let mut seen = Vec::new();
//! othello_plumbing::parallel::ordered(10, 4, |i| i * i, |i, square| {
//!     seen.push((i, square));
//!     true
//! });
//! assert_eq!(seen, (0..10).map(|i| (i, i * i)).collect::<Vec<_>>());
//! ```

pub mod files;
pub mod parallel;
pub mod printable;
pub mod scratch;

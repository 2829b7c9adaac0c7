//! The public game collections, read a game at a time for the commands that learn from games:
//! WTHOR databases (`.wtb`) and Logistello's `.gam` lines, either of them gzipped (`.gz`).

use std::path::Path;

use anyhow::{Context, Result, bail};

use othello_core::game::Game;
use othello_core::notation::{gam, wthor};
use othello_engine::training::collections::{Ending, Theoretical};
use othello_plumbing::files::{self, Lines};

/// The forms of collection read here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Wthor,
    Gam,
}

/// The form `path`'s name gives it (`.wtb`, `.gam`, either with `.gz` after), if it is one.
pub(super) fn kind(path: &Path) -> Option<Kind> {
    let extension = files::inner_extension(path)?;
    if extension.eq_ignore_ascii_case("wtb") {
        Some(Kind::Wthor)
    } else if extension.eq_ignore_ascii_case("gam") {
        Some(Kind::Gam)
    } else {
        None
    }
}

/// One game of a collection.
pub(super) struct Collected {
    /// Its place in the file, from 0.
    pub(super) index: u64,
    pub(super) game: Game,
    pub(super) ending: Ending,
    /// A WTHOR game's indices into WTHOR.JOU (black, white); none for a `.gam` line.
    pub(super) players: Option<(u16, u16)>,
}

/// Calls `each` with every game of the collection at `path` in file order, stopping at the first
/// error (its own, or the file's: one line naming the file, the game or line, and the byte).
pub(super) fn for_each(path: &Path, mut each: impl FnMut(Collected) -> Result<()>) -> Result<()> {
    let Some(kind) = kind(path) else {
        bail!(
            "{}: not a game collection (expected .wtb or .gam, gzipped or not)",
            path.display()
        );
    };
    let reader = files::stream(path)?;
    match kind {
        Kind::Wthor => {
            let bad = || format!("bad WTHOR file {}", path.display());
            let games = wthor::Games::new(reader).with_context(bad)?;
            let depth = u32::from(games.header().depth);
            for (index, record) in (0u64..).zip(games) {
                let record = record.with_context(bad)?;
                // Depth 0 means no perfect-play score was computed (a database written from logs).
                let theoretical = (depth > 0).then(|| Theoretical {
                    empties: depth,
                    black_margin: margin(record.theoretical),
                });
                each(Collected {
                    index,
                    game: record.game,
                    ending: Ending {
                        black_margin: margin(record.black_discs),
                        theoretical,
                    },
                    players: Some((record.black, record.white)),
                })?;
            }
        }
        Kind::Gam => {
            let mut lines = Lines::new(reader, path);
            let mut index = 0;
            while let Some((number, line)) = lines.next_line()? {
                let line = line.trim();
                if line.is_empty() {
                    continue;
                }
                let read =
                    gam::parse(line).with_context(|| format!("bad .gam file {} line {number}", path.display()))?;
                each(Collected {
                    index,
                    game: read.game,
                    ending: Ending {
                        black_margin: read.black_margin.clamp(-64, 64) as i8,
                        theoretical: None,
                    },
                    players: None,
                })?;
                index += 1;
            }
        }
    }
    Ok(())
}

/// A disc difference from black's discs out of 64 (a count past 64 is held there).
fn margin(black_discs: u8) -> i8 {
    (2 * i16::from(black_discs.min(64)) - 64) as i8
}

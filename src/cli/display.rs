//! For people at a terminal: boards (drawn by `notation::board_text`), counts in words, a progress
//! bar on stderr.

use std::io::{IsTerminal, Write as _};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use crate::notation::board_text::board;

/// `--color WHEN`, for every command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set (to anything but nothing) or TERM is `dumb`.
    #[default]
    Auto,
    Always,
    Never,
}

static COLOR: OnceLock<ColorChoice> = OnceLock::new();

/// Records the command line's `--color` (once, before any output).
pub fn set_color(choice: ColorChoice) {
    let _ = COLOR.set(choice);
}

/// Whether what goes to stdout may be coloured: `--color always` or `never` as told (a choice on
/// the command line beats the environment, as no-color.org asks); otherwise only on a terminal,
/// without NO_COLOR and not a dumb one.
pub fn colour_stdout() -> bool {
    match COLOR.get().copied().unwrap_or_default() {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
                && std::env::var_os("TERM").is_none_or(|term| term != "dumb")
        }
    }
}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
pub struct Progress {
    total: usize,
    unit: &'static str,
    done: AtomicUsize,
    visible: bool,
}

impl Progress {
    pub fn new(total: usize, unit: &'static str) -> Progress {
        Progress {
            total,
            unit,
            done: AtomicUsize::new(0),
            visible: std::io::stderr().is_terminal(),
        }
    }

    pub fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if self.visible {
            let width = 40;
            let filled = (done * width) / self.total.max(1);
            let bar = format!(
                "{}{}",
                "#".repeat(filled.min(width)),
                ".".repeat(width - filled.min(width))
            );
            let _ = write!(std::io::stderr(), "\r[{bar}] {done}/{} {}", self.total, self.unit);
        }
    }

    /// Clears the bar, so that what follows starts on a clean line.
    pub fn finish(&self) {
        if self.visible {
            let _ = write!(std::io::stderr(), "\r{}\r", " ".repeat(70));
        }
    }
}

/// `1 move`, `2 moves`: a count with its noun.
pub fn counted(count: impl Into<u64>, one: &str, many: &str) -> String {
    let count = count.into();
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `Black` or `White`, to begin a sentence.
pub fn capitalised(color: crate::color::Color) -> &'static str {
    match color {
        crate::color::Color::Black => "Black",
        crate::color::Color::White => "White",
    }
}

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

static QUIET: OnceLock<bool> = OnceLock::new();

/// Records `-q/--quiet` (once, before any output).
pub fn set_quiet(quiet: bool) {
    let _ = QUIET.set(quiet);
}

/// Whether `-q/--quiet` was given: no progress, and no running score lines either.
pub fn quiet() -> bool {
    QUIET.get().copied().unwrap_or(false)
}

/// Whether progress may be shown on stderr: a terminal, and no `--quiet`.
pub fn progress_visible() -> bool {
    !quiet() && std::io::stderr().is_terminal()
}

/// A one-line progress bar on stderr with the elapsed time, the rate and an estimate of the time
/// left, drawn only when stderr is a terminal (and not `--quiet`), at most ten times a second.
pub struct Progress {
    total: usize,
    unit: &'static str,
    done: AtomicUsize,
    visible: bool,
    start: std::time::Instant,
    /// Milliseconds since `start` of the last drawing.
    drawn: std::sync::atomic::AtomicU64,
}

impl Progress {
    pub fn new(total: usize, unit: &'static str) -> Progress {
        Progress {
            total,
            unit,
            done: AtomicUsize::new(0),
            visible: progress_visible(),
            start: std::time::Instant::now(),
            drawn: std::sync::atomic::AtomicU64::new(0),
        }
    }

    pub fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if !self.visible {
            return;
        }
        let elapsed = self.start.elapsed();
        let now = elapsed.as_millis() as u64;
        let last = self.drawn.load(Ordering::Relaxed);
        if done < self.total && now < last + 100 {
            return;
        }
        self.drawn.store(now, Ordering::Relaxed);
        let _ = write!(
            std::io::stderr(),
            "\r{}\x1b[K",
            progress_line(done, self.total, self.unit, elapsed)
        );
    }

    /// Clears the bar, so that what follows starts on a clean line.
    pub fn finish(&self) {
        if self.visible {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

/// A line on stderr saying what runs and for how long, redrawn five times a second until dropped:
/// progress for work whose end cannot be estimated (a deep search). Shown as `Progress` is.
pub struct Ticker {
    done: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    pub fn new(label: String) -> Ticker {
        if !progress_visible() {
            return Ticker {
                done: None,
                thread: None,
            };
        }
        let (done, stop) = std::sync::mpsc::channel::<()>();
        let start = std::time::Instant::now();
        let thread = std::thread::spawn(move || {
            // The first second shows nothing: quick work stays quiet.
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                stop.recv_timeout(std::time::Duration::from_millis(200))
            {
                let elapsed = start.elapsed().as_secs_f64();
                if elapsed >= 1.0 {
                    let _ = write!(std::io::stderr(), "\r{label}: {}\x1b[K", duration(elapsed));
                }
            }
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        });
        Ticker {
            done: Some(done),
            thread: Some(thread),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        drop(self.done.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `[########........] 12/100 games, 3.2 s, 3.7 a second, about 24 s left`.
fn progress_line(done: usize, total: usize, unit: &str, elapsed: std::time::Duration) -> String {
    let width = 24;
    let filled = (done * width / total.max(1)).min(width);
    let seconds = elapsed.as_secs_f64();
    let rate = done as f64 / seconds.max(1e-9);
    let mut line = format!(
        "[{}{}] {done}/{total} {unit}, {}",
        "#".repeat(filled),
        ".".repeat(width - filled),
        duration(seconds)
    );
    if seconds >= 1.0 && done > 0 {
        line += &format!(", {rate:.1} a second");
        if done < total {
            line += &format!(", about {} left", duration((total - done) as f64 / rate));
        }
    }
    line
}

/// `0.8 s`, `42 s`, `3 min 5 s`, `2 h 10 min`.
pub fn duration(seconds: f64) -> String {
    match seconds {
        s if s < 10.0 => format!("{s:.1} s"),
        s if s < 60.0 => format!("{s:.0} s"),
        s if s < 3600.0 => format!("{} min {} s", (s / 60.0) as u64, (s % 60.0) as u64),
        s => format!("{} h {} min", (s / 3600.0) as u64, ((s % 3600.0) / 60.0) as u64),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_progress_line_gives_the_count_the_time_the_rate_and_what_is_left() {
        assert_eq!(
            progress_line(25, 100, "games", Duration::from_secs(5)),
            "[######..................] 25/100 games, 5.0 s, 5.0 a second, about 15 s left"
        );
        // Before a second there is no rate worth giving.
        assert_eq!(
            progress_line(1, 4, "cases", Duration::from_millis(300)),
            "[######..................] 1/4 cases, 0.3 s"
        );
        assert_eq!(duration(185.0), "3 min 5 s");
        assert_eq!(duration(7800.0), "2 h 10 min");
    }
}

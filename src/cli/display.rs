//! For people at a terminal: boards (drawn by `notation::board_text`), counts in words, a progress
//! bar on stderr.

use std::fmt;
use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

pub use othello_core::notation::board_text::board;

/// `--color WHEN`, for every command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set (to anything but nothing), CLICOLOR is 0 or TERM is
    /// `dumb`; off one with CLICOLOR_FORCE.
    #[default]
    Auto,
    Always,
    Never,
}

/// How a command talks to people (`--color`, `--quiet`): a value each command is given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub color: ColorChoice,
    /// No progress, and no running score lines either.
    pub quiet: bool,
}

impl Output {
    /// Whether what goes to stdout may be coloured: `--color always` or `never` as told (a choice
    /// on the command line beats the environment, as no-color.org asks); otherwise as anstream
    /// reads the environment: only on a terminal that is not a dumb one, without NO_COLOR, and as
    /// CLICOLOR and CLICOLOR_FORCE say.
    pub fn colour_stdout(&self) -> bool {
        match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never,
        }
    }

    /// Whether progress may be shown on stderr: a terminal, and no `--quiet`.
    pub fn progress_visible(&self) -> bool {
        !self.quiet && std::io::stderr().is_terminal()
    }
}

/// A progress bar on stderr (indicatif's) with the elapsed time, the rate and an estimate of the
/// time left, drawn only when stderr is a terminal (and not `--quiet`), at most ten times a second;
/// a line wider than the terminal wraps and is cleared whole.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new(total: usize, unit: &'static str, output: &Output) -> Progress {
        if !output.progress_visible() {
            return Progress {
                bar: ProgressBar::hidden(),
            };
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr_with_hz(10));
        // `[########........] 12/100 games, 3.2 s, 3.7 a second, about 24 s left`.
        let style = ProgressStyle::with_template("[{bar:24}] {pos}/{len} {unit}, {took}{rate}").map(|style| {
            style
                .progress_chars("##.")
                .with_key("unit", move |_: &ProgressState, w: &mut dyn fmt::Write| {
                    let _ = w.write_str(unit);
                })
                .with_key("took", |state: &ProgressState, w: &mut dyn fmt::Write| {
                    let _ = w.write_str(&duration(state.elapsed().as_secs_f64()));
                })
                .with_key("rate", |state: &ProgressState, w: &mut dyn fmt::Write| {
                    let _ = w.write_str(&rate_and_rest(state.pos(), state.len(), state.elapsed().as_secs_f64()));
                })
        });
        if let Ok(style) = style {
            bar.set_style(style);
        }
        Progress { bar }
    }

    pub fn tick(&self) {
        self.bar.inc(1);
        // The last count is always shown, however soon after the one before it comes.
        if Some(self.bar.position()) == self.bar.length() {
            self.bar.force_draw();
        }
    }

    /// Runs `print` with the bar cleared, then draws it again below what it printed.
    pub fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        self.bar.suspend(print)
    }

    /// Clears the bar for good, so that what follows starts on a clean line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// `, 3.7 a second, about 24 s left`, once a second has passed.
fn rate_and_rest(done: u64, total: Option<u64>, seconds: f64) -> String {
    if seconds < 1.0 || done == 0 {
        return String::new();
    }
    let rate = done as f64 / seconds;
    let mut text = format!(", {rate:.1} a second");
    if let Some(total) = total.filter(|&total| done < total) {
        text += &format!(", about {} left", duration((total - done) as f64 / rate));
    }
    text
}

/// A line on stderr saying what runs and for how long, redrawn five times a second until dropped:
/// progress for work whose end cannot be estimated (a deep search). Shown as `Progress` is; the
/// first second shows nothing, so that quick work stays quiet.
pub struct Ticker {
    bar: ProgressBar,
}

impl Ticker {
    pub fn new(label: String, output: &Output) -> Ticker {
        Ticker {
            bar: status_line(output, move |seconds| {
                (seconds >= 1.0).then(|| format!("{label}: {}", duration(seconds)))
            }),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A status line on stderr redrawn five times a second with what `line` says for the seconds so
/// far (nothing while it says None); hidden unless progress may be shown.
fn status_line(output: &Output, line: impl Fn(f64) -> Option<String> + Send + Sync + Clone + 'static) -> ProgressBar {
    let bar = status_bar(output, "{line}", move |style| {
        style.with_key("line", move |state: &ProgressState, w: &mut dyn fmt::Write| {
            let _ = w.write_str(&line(state.elapsed().as_secs_f64()).unwrap_or_default());
        })
    });
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// A bar with no length drawn from `template` (and the keys `keys` adds) on stderr, or a hidden one
/// unless progress may be shown.
fn status_bar(output: &Output, template: &str, keys: impl FnOnce(ProgressStyle) -> ProgressStyle) -> ProgressBar {
    if !output.progress_visible() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(10));
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(keys(style));
    }
    bar
}

/// A line on stderr saying where some work stands, redrawn as `set` changes it (at most ten times
/// a second) when progress may be shown; `clear` takes it away.
#[derive(Clone)]
pub struct StatusLine {
    bar: ProgressBar,
}

impl StatusLine {
    pub fn new(output: &Output) -> StatusLine {
        StatusLine {
            bar: status_bar(output, "{msg}", |style| style),
        }
    }

    pub fn set(&self, text: String) {
        self.bar.set_message(text);
    }

    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
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
pub fn capitalised(color: othello_core::color::Color) -> &'static str {
    match color {
        othello_core::color::Color::Black => "Black",
        othello_core::color::Color::White => "White",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_gives_the_rate_and_what_is_left_after_a_second() {
        assert_eq!(rate_and_rest(25, Some(100), 5.0), ", 5.0 a second, about 15 s left");
        assert_eq!(rate_and_rest(100, Some(100), 5.0), ", 20.0 a second");
        // Before a second there is no rate worth giving.
        assert_eq!(rate_and_rest(1, Some(4), 0.3), "");
        assert_eq!(duration(185.0), "3 min 5 s");
        assert_eq!(duration(7800.0), "2 h 10 min");
    }
}

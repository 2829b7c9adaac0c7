//! The sample file `othello selfplay` writes and a trainer reads: a header naming the settings, then
//! per game one line per position and a `#done GAME` line. A game counts only once its `#done` line
//! is there, so a run stopped at any moment leaves a file whose complete games are all usable, and
//! a rerun with the same settings cuts off the unfinished tail and goes on from there.
//!
//! ```text
//! # othello selfplay 2: player=engine:nodes=20000 weights=a13b6456fbcf3d9f opening=2..12 random=5% exact=16 seed=1 shard=0/1
//! 7 0000001008000000 0000000810000000 +6 r -2
//! ...
//! #done 7
//! ```
//! A position line: game, the side to move's discs and the other side's (hex bitboards, bit 0 = a1),
//! the final disc difference for the side to move, `x` if exact for this position or `r` if it is
//! the game's result from its first solved position, and the player's search value of the position
//! for the side to move in discs (`-` where there is none: a solved position, a player that gives
//! no value). Version 1 files, from before the values, end their lines after the `x` or `r`.

use crate::selfplay::{Sample, SelfPlayConfig, SelfPlayGame};
use othello_core::bitboard::Bitboard;
use othello_core::board::Board;

/// The version this program writes; the trainer reads this one and version 1.
pub const VERSION: u32 = 2;

/// Whether `line` is the first line of a sample file this program reads.
pub(crate) fn is_header(line: &str) -> bool {
    ["# othello selfplay 1:", "# othello selfplay 2:"]
        .iter()
        .any(|start| line.starts_with(start))
}

/// The first line of a file made with `config` as shard `k` of `n` (games k, k + n, ...).
pub fn header(config: &SelfPlayConfig, (k, n): (u64, u64)) -> String {
    format!("# othello selfplay {VERSION}: {} shard={k}/{n}\n", config.describe())
}

/// A finished game's lines, its `#done` line last.
pub fn format_game(game: &SelfPlayGame) -> String {
    let mut text = String::with_capacity(48 * (game.samples.len() + 1));
    for sample in &game.samples {
        text += &format!(
            "{} {:016x} {:016x} {:+} {} {}\n",
            game.index,
            sample.board.player.0,
            sample.board.opponent.0,
            sample.score,
            if sample.exact { 'x' } else { 'r' },
            sample.value.map_or("-".to_string(), |v| format!("{v:+}"))
        );
    }
    text += &format!("#done {}\n", game.index);
    text
}

/// Why a sample file cannot be read or continued.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SamplesError {
    #[error("it was made with other settings: {found:?}, not {expected:?}; write to another file")]
    OtherSettings { found: String, expected: String },
    #[error("line {line}: {why}")]
    BadLine { line: usize, why: String },
}

/// Why the games of a sample file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadGamesError {
    #[error(transparent)]
    Read(#[from] othello_plumbing::files::ReadError),
    #[error("{} is not a sample file of othello selfplay", .0.display())]
    NotSamples(std::path::PathBuf),
    #[error("{} line {number}: {why}", .path.display())]
    BadLine {
        path: std::path::PathBuf,
        number: usize,
        why: String,
    },
}

/// Calls `game(index, samples)` for each complete game of a sample file, in file order, stopping
/// at its first error (the caller's, or the file's). Only a regular file is read, line by line
/// (lines of bounded length), so an endless input cannot hang it.
pub fn read_games<E: From<ReadGamesError>>(
    path: &std::path::Path,
    mut game: impl FnMut(u64, Vec<Sample>) -> Result<(), E>,
) -> Result<(), E> {
    let mut lines = othello_plumbing::files::Lines::open(path).map_err(ReadGamesError::from)?;
    let mut current: Vec<(u64, Sample)> = Vec::new();
    let bad = |number, why: String| ReadGamesError::BadLine {
        path: path.to_path_buf(),
        number,
        why,
    };
    while let Some((number, line)) = lines.next_line().map_err(ReadGamesError::from)? {
        let line = line.trim_end_matches(['\n', '\r']);
        if number == 1 {
            if !is_header(line) {
                return Err(ReadGamesError::NotSamples(path.to_path_buf()).into());
            }
            continue;
        }
        if line.starts_with("#done ") {
            if let Some(&(index, _)) = current.first() {
                game(index, current.drain(..).map(|(_, sample)| sample).collect())?;
            }
            continue;
        }
        let sample = parse_line(line).ok_or_else(|| bad(number, format!("not a sample: {line:?}")))?;
        current.push(sample);
        // A game has at most 60 positions: more without a #done line is not a sample file.
        if current.len() > 128 {
            return Err(bad(number, "a game of more than 128 positions".to_string()).into());
        }
    }
    Ok(())
}

/// What a file already holds: the bytes of its complete games (and header), how many games they
/// are and the last one's index.
#[derive(Debug, PartialEq, Eq)]
pub struct Existing {
    /// Everything after this many bytes belongs to an unfinished game and is cut off.
    pub complete_bytes: u64,
    pub games: u64,
    pub last: Option<u64>,
}

/// Reads an existing file line by line (each line with its newline), made with the settings of
/// `header` (no line at all is a new file); memory does not grow with the file.
pub fn existing<E: From<SamplesError>>(
    mut next_line: impl FnMut() -> Result<Option<String>, E>,
    header: &str,
) -> Result<Existing, E> {
    let mut found = Existing {
        complete_bytes: 0,
        games: 0,
        last: None,
    };
    let Some(first) = next_line()? else {
        return Ok(found);
    };
    if first != header {
        return Err(SamplesError::OtherSettings {
            found: first.trim_end().to_string(),
            expected: header.trim_end().to_string(),
        }
        .into());
    }
    found.complete_bytes = first.len() as u64;
    let mut offset = found.complete_bytes;
    let mut number = 1;
    while let Some(line) = next_line()? {
        number += 1;
        offset += line.len() as u64;
        // A last line without its newline was cut off in the middle.
        if !line.ends_with('\n') {
            break;
        }
        if let Some(index) = line.strip_prefix("#done ") {
            let index = index.trim_end().parse().map_err(|_| SamplesError::BadLine {
                line: number,
                why: format!("{:?} is not a game's #done line", line.trim_end()),
            })?;
            found.games += 1;
            found.last = Some(index);
            found.complete_bytes = offset;
        }
    }
    Ok(found)
}

/// Up to `wanted` positions drawn uniformly (reservoir sampling, seeded: the same ones for a seed)
/// among those `keep` keeps of the complete games of `paths`, in memory bounded by `wanted`; and
/// how many were kept in all.
pub fn draw_positions(
    paths: &[std::path::PathBuf],
    wanted: usize,
    seed: u64,
    keep: impl Fn(&Board) -> bool,
) -> Result<(Vec<Board>, u64), ReadGamesError> {
    let mut rng = othello_core::rng::SeededRng::new(seed);
    let mut drawn: Vec<Board> = Vec::with_capacity(wanted);
    let mut seen = 0u64;
    for path in paths {
        read_games::<ReadGamesError>(path, |_, samples| {
            for sample in samples.iter().filter(|s| keep(&s.board)) {
                seen += 1;
                if drawn.len() < wanted {
                    drawn.push(sample.board);
                } else {
                    let slot = rng.below(seen) as usize;
                    if slot < wanted {
                        drawn[slot] = sample.board;
                    }
                }
            }
            Ok(())
        })?;
    }
    Ok((drawn, seen))
}

/// Parses a position line (of either version) into its game index and sample.
pub fn parse_line(line: &str) -> Option<(u64, Sample)> {
    let mut fields = line.split_ascii_whitespace();
    let game = fields.next()?.parse().ok()?;
    let player = u64::from_str_radix(fields.next()?, 16).ok()?;
    let opponent = u64::from_str_radix(fields.next()?, 16).ok()?;
    let score: i8 = fields.next()?.parse().ok()?;
    let exact = match fields.next()? {
        "x" => true,
        "r" => false,
        _ => return None,
    };
    let value = match fields.next() {
        None | Some("-") => None,
        Some(word) => Some(word.parse::<i8>().ok().filter(|v| (-64..=64).contains(v))?),
    };
    if fields.next().is_some() || player & opponent != 0 || !(-64..=64).contains(&score) {
        return None;
    }
    let board = Board::new(Bitboard(player), Bitboard(opponent));
    Some((
        game,
        Sample {
            board,
            score,
            exact,
            value,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SelfPlayConfig {
        SelfPlayConfig {
            player: "greedy".parse().unwrap(),
            opening_plies: 0..=4,
            random_percent: 0,
            exact_empties: 12,
            seed: 5,
            value_player: None,
            replay: None,
            recorded_values: false,
            engine: othello_engine::settings::EngineSettings::default(),
        }
    }

    fn game(index: u64) -> SelfPlayGame {
        crate::selfplay::play_game(&config(), index).unwrap()
    }

    #[test]
    fn games_read_back_line_by_line() {
        let game = game(2);
        let text = format_game(&game);
        let samples: Vec<Sample> = text
            .lines()
            .filter(|line| !line.starts_with('#'))
            .map(|line| parse_line(line).unwrap())
            .map(|(index, sample)| {
                assert_eq!(index, 2);
                sample
            })
            .collect();
        assert_eq!(samples, game.samples);
        assert_eq!(parse_line("1 00ff 00ff +3 x"), None, "overlapping discs");
        assert_eq!(parse_line("1 00ff ff00 +3 q"), None);
        assert_eq!(parse_line("1 00ff ff00 +3 r +70"), None, "a value beyond 64 discs");
        assert_eq!(parse_line("1 00ff ff00 +3 r -5 7"), None);
        // Version 1 lines have no value; version 2 ones a value or `-`.
        assert_eq!(parse_line("1 00ff ff00 +3 r").unwrap().1.value, None);
        assert_eq!(parse_line("1 00ff ff00 +3 r -").unwrap().1.value, None);
        assert_eq!(parse_line("1 00ff ff00 +3 r -5").unwrap().1.value, Some(-5));
    }

    /// `existing` over a text, as a file's lines.
    fn existing_in(text: &str, header: &str) -> Result<Existing, SamplesError> {
        let mut lines = text.split_inclusive('\n').map(str::to_string);
        existing(|| Ok::<_, SamplesError>(lines.next()), header)
    }

    #[test]
    fn an_unfinished_tail_is_cut_off_and_other_settings_refused() {
        let header = header(&config(), (0, 1));
        let complete = header.clone() + &format_game(&game(0)) + &format_game(&game(1));
        let unfinished = format_game(&game(2));
        for cut in [0, 10, unfinished.len() - 3, unfinished.len() - 1] {
            let text = complete.clone() + &unfinished[..cut];
            let found = existing_in(&text, &header).unwrap();
            assert_eq!(found.complete_bytes, complete.len() as u64, "cut at {cut}");
            assert_eq!((found.games, found.last), (2, Some(1)));
        }
        let whole = complete.clone() + &unfinished;
        assert_eq!(existing_in(&whole, &header).unwrap().last, Some(2));
        let other = SelfPlayConfig { seed: 6, ..config() };
        for other in [super::header(&other, (0, 1)), super::header(&config(), (1, 2))] {
            assert!(matches!(
                existing_in(&complete, &other),
                Err(SamplesError::OtherSettings { .. })
            ));
        }
        assert_eq!(existing_in("", &header).unwrap().games, 0);
    }
}

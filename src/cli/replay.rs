//! `othello replay FILE`: checks a game log (one JSON object) or a match log (JSON Lines) against the
//! rules and prints where each game ended.

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow};
use clap::Args;

use super::{display, write_stdout};
use crate::bitboard::Bitboard;
use crate::game::Game;
use crate::log::GameLog;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A log written by `othello play --log` or `othello match --log`
    file: PathBuf,
}

/// One game read back: its log, the game rebuilt from it, and where it came from in the file.
struct Replayed {
    line: usize,
    log: GameLog,
    game: Game,
}

pub fn run(args: ReplayArgs) -> Result<()> {
    let path = &args.file;
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let games = read_games(&text).with_context(|| format!("bad log {}", path.display()))?;
    let mut out = String::new();
    if let [single] = games.as_slice() {
        let last = single.game.moves().last();
        out += &display::board(single.game.position(), Bitboard::EMPTY, last, false);
        out += &summary(single);
    } else {
        for replayed in &games {
            out += &format!("line {}: {}", replayed.line, summary(replayed));
        }
    }
    write_stdout(&out)
}

/// A whole-file JSON object, or JSON Lines when the first line is a complete object by itself.
fn read_games(text: &str) -> Result<Vec<Replayed>> {
    let first_line = text
        .lines()
        .position(|line| !line.trim().is_empty())
        .ok_or_else(|| anyhow!("the file is empty"))?;
    let is_json_lines = serde_json::from_str::<serde_json::Value>(text.lines().nth(first_line).unwrap_or("")).is_ok();
    if !is_json_lines {
        let log: GameLog =
            serde_json::from_str(text).map_err(|e| anyhow!("line {}, column {}: {e}", e.line(), e.column()))?;
        let line = first_line + 1;
        let game = log.replay().map_err(|e| anyhow!("game starting on line {line}: {e}"))?;
        return Ok(vec![Replayed { line, log, game }]);
    }
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            let number = index + 1;
            let log: GameLog = serde_json::from_str(line).map_err(|e| anyhow!("line {number}: {e}"))?;
            let game = log.replay().map_err(|e| anyhow!("line {number}: {e}"))?;
            Ok(Replayed {
                line: number,
                log,
                game,
            })
        })
        .collect()
}

fn summary(replayed: &Replayed) -> String {
    let (log, game) = (&replayed.log, &replayed.game);
    let (black, white) = game.position().counts();
    let verdict = match log.result.winner.as_str() {
        "draw" => "a draw".to_string(),
        "unfinished" => "unfinished".to_string(),
        winner => format!("{winner} wins"),
    };
    let moves = game.moves().count();
    let passes = game.turns().len() - moves;
    format!(
        "{} (black) vs {} (white): black {black}, white {white}, {verdict}; {moves} moves and {passes} passes, all legal\n",
        log.black, log.white,
    )
}

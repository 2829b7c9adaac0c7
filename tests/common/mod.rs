//! Helpers shared by the integration tests: the mailbox reference and driving the binary.
// Each test binary uses only part of these helpers.
#![allow(dead_code)]

pub mod mailbox;

use assert_cmd::Command;

/// The `othello` binary with these arguments.
pub fn othello<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut command = Command::cargo_bin("othello").expect("the othello binary is built");
    command.args(args);
    command
}

/// The exact value of `board` for its side to move by visiting every line of play, with `final_score`
/// valuing finished games: the reference the solvers are checked against.
pub fn exhaustive(board: othello::Board, final_score: fn(othello::Board) -> i32) -> i32 {
    let moves = board.moves();
    if moves.is_empty() {
        return if board.opponent_moves().is_empty() {
            final_score(board)
        } else {
            -exhaustive(board.pass(), final_score)
        };
    }
    moves
        .squares()
        .map(|square| -exhaustive(board.play(square), final_score))
        .max()
        .unwrap()
}

/// Plays a two-game match of `a` against `b` logged in `dir`: the log's path and its text.
pub fn logged_games(dir: &std::path::Path, a: &str, b: &str) -> (std::path::PathBuf, String) {
    let log = dir.join("games.jsonl");
    othello(["match", a, b, "--games", "2", "--log", log.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&log).unwrap();
    (log, text)
}

/// Plays a two-game match (random against greedy) logged in `dir`: the log's path and its first game.
pub fn logged_match(dir: &std::path::Path) -> (std::path::PathBuf, serde_json::Value) {
    let (log, text) = logged_games(dir, "random", "greedy");
    let first = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    (log, first)
}

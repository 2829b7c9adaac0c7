//! `othello play` driven through stdin, its game log, and `othello replay` of it.

use crate::common;

use othello_core::game::Game;
use othello_core::{Color, Position};
use othello_course::strategy::StrategySpec;
use othello_engine::settings::EngineSettings;
use serde_json::Value;

/// The moves black makes when `weighted` plays black against `greedy`, computed with the library:
/// typed by a "person", they must give the very same game through the binary.
fn weighted_moves_against_greedy() -> (Vec<String>, Game) {
    let settings = EngineSettings::default();
    let (mut black, mut white) = (
        StrategySpec::Weighted.build(0, &settings),
        StrategySpec::Greedy.build(0, &settings),
    );
    let mut game = Game::new(Position::START);
    game.play_out(&mut [black.as_mut(), white.as_mut()]).unwrap();
    let moves = game
        .turns()
        .iter()
        .filter_map(|turn| match turn {
            othello_core::game::Turn::Move {
                side: Color::Black,
                square,
                ..
            } => Some(square.to_string()),
            _ => None,
        })
        .collect();
    (moves, game)
}

#[test]
fn a_played_game_logs_and_replays() {
    let (moves, expected) = weighted_moves_against_greedy();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("game.json");
    // Upper case and index notation are accepted too; hint and help do not change the game.
    let mut input = String::from("help\nhint\n");
    for (i, square) in moves.iter().enumerate() {
        let typed = match i % 3 {
            0 => square.clone(),
            1 => square.to_uppercase(),
            _ => square.parse::<othello_core::Square>().unwrap().index().to_string(),
        };
        input += &format!("{typed}\n");
    }
    let output = common::othello(["play", "--white", "greedy", "--log", log.to_str().unwrap()])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let (black, white) = expected.position().counts();
    assert!(
        stdout.contains(&format!("Game over: black {black}, white {white}.")),
        "{stdout}"
    );
    assert!(!stdout.contains('\x1b'), "no colour when stdout is not a terminal");

    let logged: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(
        (logged["black"].as_str(), logged["white"].as_str()),
        (Some("human"), Some("greedy"))
    );
    assert_eq!(logged["result"]["black"], black);
    let turns = logged["moves"].as_array().unwrap();
    assert_eq!(turns.len(), expected.turns().len());
    let computer_move = turns
        .iter()
        .find(|t| t["side"] == "white" && t["pass"].is_null())
        .unwrap();
    assert!(computer_move["nodes"].is_u64() && computer_move["ms"].is_f64() && computer_move["flipped"].is_array());
    assert!(logged["start_time"].as_str().unwrap().ends_with('Z'));

    let replay = common::othello(["replay", log.to_str().unwrap()]).output().unwrap();
    assert!(replay.status.success());
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(
        text.contains(&format!("black {black}, white {white}")) && text.contains("all legal"),
        "{text}"
    );
}

#[test]
fn end_of_input_leaves_the_game_unfinished_and_undo_takes_back_a_move() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("left.json");
    let output = common::othello(["play", "--white", "greedy", "--log", log.to_str().unwrap()])
        .write_stdin("d3\nc4\nundo\nz9\nd4\n")
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("End of input"));
    assert!(stdout.contains("d4 is not legal: the square is occupied"), "{stdout}");
    let logged: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(logged["result"]["winner"], "unfinished");
    // d3, greedy's reply; c4 and its reply were taken back.
    assert_eq!(logged["moves"].as_array().unwrap().len(), 2);
    common::othello(["replay", log.to_str().unwrap()]).assert().success();
}

#[test]
fn computers_play_each_other_with_announced_passes() {
    let output = common::othello([
        "play",
        "--black",
        "alphabeta:2:corners",
        "--white",
        "alphabeta:1:corners",
    ])
    .write_stdin("")
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    // This game (also seed 001's first check) has a forced pass.
    assert!(stdout.contains("has no legal move and passes."), "{stdout}");
    assert!(stdout.contains("Game over: black 56, white 8. Black wins."), "{stdout}");
    // Issue 12: after the pass the board is drawn again with the moves of the side that has them.
    let pass = stdout.find("has no legal move and passes.\n").unwrap();
    let after = &stdout[pass..];
    assert!(
        after.lines().nth(1).unwrap().starts_with("   a b c d e f g h"),
        "{after}"
    );
}

#[test]
fn corrupt_logs_are_reported_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.jsonl");
    common::othello([
        "match",
        "random",
        "random",
        "--games",
        "3",
        "--log",
        good.to_str().unwrap(),
    ])
    .assert()
    .success();
    let text = std::fs::read_to_string(&good).unwrap();
    let lines: Vec<&str> = text.lines().collect();

    let truncated = dir.path().join("truncated.jsonl");
    std::fs::write(
        &truncated,
        format!("{}\n{}\n{}\n", lines[0], lines[1], &lines[2][..lines[2].len() / 2]),
    )
    .unwrap();
    common::othello(["replay", truncated.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::is_match("^othello: bad log .*: line 3: ").unwrap());

    // The first move moved onto an occupied centre square.
    let mut game: Value = serde_json::from_str(lines[1]).unwrap();
    game["moves"][0]["square"] = Value::from(27);
    game["moves"][0]["name"] = Value::Null;
    let tampered = dir.path().join("tampered.jsonl");
    std::fs::write(&tampered, format!("{}\n{}\n", lines[0], game)).unwrap();
    common::othello(["replay", tampered.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(
            predicates::str::is_match("line 2: turn 1: 27 \\(d4\\) is illegal for black: the square is occupied")
                .unwrap(),
        );
}

/// Issue 12: a game started from a transcript, hints with values, undo and redo that say what they
/// did, move numbers and the moves so far, and a record of the console that holds what was shown.
#[test]
fn play_starts_from_a_transcript_and_hints_give_values() {
    let dir = tempfile::tempdir().unwrap();
    let console = dir.path().join("console.txt");
    let output = common::othello([
        "play",
        "--moves",
        "f5d6c3",
        "--black",
        "greedy",
        "--white",
        "human",
        "--record",
        console.to_str().unwrap(),
    ])
    .write_stdin("hint\nd3\nundo\nredo\nredo\nquit\n")
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(stdout.contains("Move 4; so far: f5d6c3\n"), "{stdout}");
    let hint = stdout.lines().find(|l| l.contains("hint, best first: ")).unwrap();
    assert!(hint.contains(" discs (estimate, depth 10)"), "{hint}");
    // Every legal move, none left out.
    let legal = othello_core::notation::transcript::play(othello_core::Position::START, "f5d6c3")
        .unwrap()
        .position()
        .moves()
        .count();
    assert_eq!(hint.matches("; ").count() + 1, legal as usize, "{hint}");
    assert!(stdout.contains("Took back d3 (white), "), "{stdout}");
    assert!(stdout.contains("Played again d3 (white), "), "{stdout}");
    assert!(stdout.contains("There is nothing to redo."));
    assert!(stdout.contains("No log was kept (--log FILE keeps one)."));
    assert!(stdout.contains("Transcript: f5d6c3d3"), "{stdout}");
    // The record: everything shown, with the lines typed after their prompts.
    let kept = std::fs::read_to_string(&console).unwrap();
    assert_eq!(
        kept.replace("> hint\n", "> ")
            .replace("> d3\n", "> ")
            .replace("> undo\n", "> ")
            .replace("> redo\n", "> ")
            .replace("> quit\n", "> "),
        stdout
    );
}

#[test]
fn replay_shows_a_game_board_by_board() {
    let output = common::othello(["replay", "1918", "--boards"]).output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        text.matches("   a b c d e f g h").count(),
        3,
        "the start and two moves: {text}"
    );
    assert!(text.contains("move 1: x plays d3 (19)\n") && text.contains("move 2: o plays c3 (18)\n"));
    // The last move in upper case, the next side's moves as `*`.
    assert!(text.contains("3  . * O x . . . ."), "{text}");
    assert!(text.ends_with("x 3, o 3, unfinished; 2 moves and 0 passes, all legal\n"));
}

#[test]
fn play_keeps_its_log_current_when_input_is_not_text_or_the_game_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("game.json");
    common::othello(["play", "--log", log.to_str().unwrap()])
        .write_stdin(b"d3\n\xff\xfe\n".to_vec())
        .assert()
        .success();
    let replayed = common::othello(["replay", log.to_str().unwrap()]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&replayed.stdout).contains("2 moves"),
        "d3 and the reply were kept"
    );

    // Left by a signal mid-game: the moves made so far are in the log already.
    let log = dir.path().join("left.json");
    let mut child = common::Running(
        common::othello_std()
            .args(["play", "--log"])
            .arg(&log)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    use std::io::Write as _;
    child.stdin.as_mut().unwrap().write_all(b"d3\n").unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !std::fs::read_to_string(&log).is_ok_and(|t| t.contains("\"d3\"") && t.matches("\"side\"").count() >= 2) {
        assert!(std::time::Instant::now() < deadline, "the log never showed the moves");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    child.wait().unwrap();
    common::othello(["replay", log.to_str().unwrap()]).assert().success();
}

#[test]
fn play_writes_its_log_through_special_files_or_fails() {
    let output = common::othello(["play", "--black", "random", "--white", "random", "--log", "/dev/stdout"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let log_start = stdout.find("{\n").expect("the log is on stdout");
    let log: Value = serde_json::Deserializer::from_str(&stdout[log_start..])
        .into_iter()
        .next()
        .unwrap()
        .unwrap();
    assert!(!log["moves"].as_array().unwrap().is_empty());

    for option in ["--log", "--record"] {
        let output = common::othello(["play", "--black", "random", "--white", "random", option, "/dev/full"])
            .write_stdin("")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{option}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("cannot write /dev/full: No space left on device"),
            "{option}"
        );
        if option == "--record" {
            assert_eq!(output.stdout, b"", "nothing shown before the record failed");
        }
    }
}

#[test]
fn game_logs_carry_each_board_and_the_flips_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (log, mut game) = common::logged_match(dir.path());
    let first = &game["moves"][0];
    assert_eq!(first["board"].as_str().unwrap().len(), 64);
    assert_eq!(
        first["flipped_names"].as_array().unwrap().len(),
        first["flipped"].as_array().unwrap().len()
    );
    assert!(first["flipped_names"][0].as_str().unwrap().len() == 2, "{first}");
    // A board that is not the one the moves give is caught.
    let board = game["moves"][3]["board"].as_str().unwrap().replacen('.', "x", 1);
    game["moves"][3]["board"] = Value::String(board);
    std::fs::write(&log, format!("{game}\n")).unwrap();
    common::othello(["replay", log.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("turn 4: the board after it is"));
}

#[test]
fn logged_values_carry_their_kind_and_replay_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let (log, text) = common::logged_games(dir.path(), "engine:nodes=20000", "alphabeta:3:weights");
    let mut kinds = std::collections::BTreeSet::new();
    for line in text.lines() {
        let game: Value = serde_json::from_str(line).unwrap();
        for turn in game["moves"].as_array().unwrap() {
            if let Some(kind) = turn.get("value_kind") {
                kinds.insert(kind.as_str().unwrap().to_string());
                assert!(turn["depth"].is_u64(), "{turn}");
                assert_eq!(turn["exact"], Value::from(kind == "exact"), "{turn}");
            }
        }
    }
    // The engine ends every game with exact values, and estimates before; the seed strategy scores.
    assert!(
        kinds.contains("exact") && kinds.contains("estimate") && kinds.contains("score"),
        "{kinds:?}"
    );
    common::othello(["replay", log.to_str().unwrap()]).assert().success();
    // A value whose kind is unknown is a broken log.
    std::fs::write(&log, text.replacen("\"estimate\"", "\"guess\"", 1)).unwrap();
    common::othello(["replay", log.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not a value"));
}

#[test]
fn a_log_whose_last_line_a_kill_cut_off_replays_without_that_game() {
    let dir = tempfile::tempdir().unwrap();
    let (log, text) = common::logged_games(dir.path(), "random", "greedy");
    std::fs::write(&log, &text[..text.len() - 100]).unwrap();
    let output = common::othello(["replay", log.to_str().unwrap()]).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("line 2 is cut off"));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("all legal") && !stdout.contains("line 2"), "{stdout}");
    // A line cut in the middle of the file is an error, not a game to leave out.
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&log, format!("{}\n{}\n", &lines[0][..50], lines[1])).unwrap();
    common::othello(["replay", log.to_str().unwrap()]).assert().code(2);
}

/// Drives `othello ARGS...` through a pseudo-terminal: for each (text, keys), waits until the
/// terminal has shown `text` (counting from where the last wait ended) and types `keys`; then reads
/// to the end. Returns (what the terminal showed, the exit status).
fn at_a_terminal(args: &[&str], script: &[(&str, &[u8])]) -> (String, i32) {
    const DRIVER: &str = r#"
import os, pty, select, sys, time
steps = [(bytes.fromhex(w), bytes.fromhex(k)) for w, k in (s.split(":") for s in sys.argv[1].split(","))]
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
out = b""
seen = 0
def read(text):
    global out, seen
    end = time.time() + 60
    while (text is None or out.find(text, seen) < 0) and time.time() < end:
        if not select.select([fd], [], [], 0.1)[0]:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return
        if not chunk:
            return
        out += chunk
    if text is not None and out.find(text, seen) >= 0:
        seen = out.find(text, seen) + len(text)
for wait, keys in steps:
    read(wait)
    time.sleep(0.2)
    os.write(fd, keys)
read(None)
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
print("\nSTATUS", os.waitstatus_to_exitcode(status))
"#;
    let binary = assert_cmd::cargo::cargo_bin("othello");
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let steps: Vec<String> = script
        .iter()
        .map(|(wait, keys)| format!("{}:{}", hex(wait.as_bytes()), hex(keys)))
        .collect();
    let output = common::dies_with_test(std::process::Command::new("python3"))
        .args(["-c", DRIVER, &steps.join(",")])
        .arg(&binary)
        .args(args)
        .env("TERM", "xterm")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let (shown, status) = text.rsplit_once("\nSTATUS ").expect("the driver ran to the end");
    (shown.to_string(), status.trim().parse().unwrap())
}

/// At a terminal the prompt is a line editor: an arrow key moves the cursor instead of being read
/// as a square, the history recalls a move, and Ctrl-C leaves the game with a word and status 130.
#[test]
fn at_a_terminal_play_edits_lines_and_ctrl_c_leaves_with_status_130() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("game.json");
    let (shown, status) = at_a_terminal(
        &["play", "--white", "greedy", "--log", log.to_str().unwrap()],
        // Left arrow in the middle of a move, then the move; then Ctrl-C at the next prompt.
        &[("to move> ", b"3\x1b[Dd\r"), ("Move 3; so far: d3", b"\x03")],
    );
    assert_eq!(status, 130, "{shown}");
    assert!(!shown.contains("is not a square"), "{shown}");
    assert!(shown.contains("Interrupted: the game is left unfinished."), "{shown}");
    assert!(shown.contains("Transcript: d3"), "{shown}");
    let kept: serde_json::Value = serde_json::from_slice(&std::fs::read(&log).unwrap()).unwrap();
    assert_eq!(kept["moves"][0]["name"], "d3", "the log keeps the game");
}

/// `replay --html`: one page holding every game of a log, a GGF file or a transcript, each position
/// after each turn, and nothing fetched from elsewhere (it works offline, from a file).
#[test]
fn replay_writes_one_self_contained_page_of_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = common::logged_games(dir.path(), "engine:nodes=3000", "greedy");
    let page = dir.path().join("games.html");
    let output = common::othello(["replay", log.to_str().unwrap(), "--html", page.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    let data = html
        .split("<script type=\"application/json\" id=\"data\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .unwrap();
    let games: serde_json::Value = serde_json::from_str(data).unwrap();
    let logged: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(games.as_array().unwrap().len(), logged.len());
    for (game, logged) in games.as_array().unwrap().iter().zip(&logged) {
        let plies = game["plies"].as_array().unwrap();
        let turns = logged["moves"].as_array().unwrap();
        assert_eq!(plies.len(), turns.len() + 1, "the start, then a position a turn");
        for (ply, turn) in plies[1..].iter().zip(turns) {
            assert_eq!(ply["board"], turn["board"], "{}", ply["label"]);
        }
        // The engine logs its values in discs: the graph has them.
        assert!(plies.iter().any(|ply| ply["value"].is_i64()));
    }
    // Nothing from a network: the only address is SVG's namespace.
    assert_eq!(
        html.matches("http").count(),
        html.matches("http://www.w3.org/2000/svg").count()
    );

    for (what, input) in [("a transcript", "f5d6c3d3c4"), ("a condensed transcript", "4445_9-157")] {
        let output = common::othello(["replay", input, "--html", page.to_str().unwrap()])
            .output()
            .unwrap();
        // The condensed example is not a legal game: refused by name, the page from before untouched.
        if what == "a condensed transcript" {
            assert_eq!(output.status.code(), Some(2), "{what}");
        } else {
            assert!(
                output.status.success(),
                "{what}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert_eq!(
                String::from_utf8_lossy(&output.stdout),
                format!("1 game on one page: {}\n", page.display())
            );
        }
    }
}

/// A match's log written as a WTHOR database (with its names file) and read back: the same games,
/// the same players; the same through Logistello's `.gam` lines.
#[test]
fn a_log_written_as_wthor_and_as_gam_lines_reads_back_as_the_same_games() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = common::logged_games(dir.path(), "greedy", "weighted");
    let text = |args: &[&str]| {
        let output = common::othello(args).output().unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let log = log.to_str().unwrap();
    let database = dir.path().join("db").join("GAMES.wtb");
    let said = text(&["replay", log, "--wthor-out", database.to_str().unwrap()]);
    assert!(said.starts_with("2 games written to "), "{said}");
    for beside in ["WTHOR.JOU", "WTHOR.TRN"] {
        assert!(dir.path().join("db").join(beside).is_file(), "{beside}");
    }
    let database = database.to_str().unwrap();
    assert_eq!(
        text(&["replay", database, "--to", "transcript"]),
        text(&["replay", log, "--to", "transcript"])
    );
    let summary = text(&["replay", database]);
    assert!(
        summary.starts_with("game 1: greedy (black) vs weighted (white): "),
        "{summary}"
    );
    assert!(
        summary.contains("game 2: weighted (black) vs greedy (white): "),
        "{summary}"
    );
    // analyze reads the database too.
    let analysed = text(&[
        "analyze",
        database,
        "--game",
        "2",
        "--depth",
        "2",
        "--exact-empties",
        "8",
    ]);
    assert!(
        analysed.starts_with("weighted (black) vs greedy (white), "),
        "{analysed}"
    );
    // Logistello's lines, written and read back, by replay and analyze.
    let gam = dir.path().join("games.gam");
    std::fs::write(&gam, text(&["replay", log, "--to", "gam"])).unwrap();
    assert_eq!(
        text(&["replay", gam.to_str().unwrap(), "--to", "transcript"]),
        text(&["replay", log, "--to", "transcript"])
    );
    let analysed = text(&[
        "analyze",
        gam.to_str().unwrap(),
        "--game",
        "1",
        "--depth",
        "2",
        "--exact-empties",
        "8",
    ]);
    assert!(analysed.starts_with("black (black) vs white (white), "), "{analysed}");
    // A second database into the same folder would overwrite its names: refused, nothing written.
    let second = dir.path().join("db").join("MORE.wtb");
    common::othello(["replay", log, "--wthor-out", second.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("WTHOR.JOU is already there"));
    assert!(!second.exists());
}

/// A damaged database: one line naming the file, the game and the byte; exit 2.
#[test]
fn a_bad_wthor_file_names_its_game_and_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = common::logged_games(dir.path(), "greedy", "weighted");
    let database = dir.path().join("GAMES.wtb");
    common::othello([
        "replay",
        log.to_str().unwrap(),
        "--wthor-out",
        database.to_str().unwrap(),
    ])
    .assert()
    .success();
    let mut bytes = std::fs::read(&database).unwrap();
    // The second game's fifth move (header 16, a game 68, its moves from byte 8) made a1.
    let at = 16 + 68 + 8 + 4;
    bytes[at] = 11;
    std::fs::write(&database, &bytes).unwrap();
    let output = common::othello(["replay", database.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("GAMES.wtb") && stderr.contains(&format!("game 2 (byte {at}): move 5 a1 is not legal")),
        "{stderr}"
    );
    std::fs::write(&database, &bytes[..100]).unwrap();
    let output = common::othello(["replay", database.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("game 2 (byte 84): the file ends inside it"));
}

//! `othello analyze`, and the transcripts and GGF games it and `best`/`solve --moves` read.

use crate::common;

use common::othello;
use serde_json::Value as Json;

/// A whole game of engine:nodes=20000 against engine:nodes=20000:handmade (seed 7), with a forced
/// pass for white after move 57, written as a transcript leaves it: passes implied.
const GAME: &str = "d3c3c4e3c2c5c6b3f2c1d6f3d2e6b4a4b5f1a5a6f7e1d1e2a3a2b6e7f6d7e8f5c7c8d8a7b8g6g5g7f4f8g4h5h4a8b7g2g3h3h6h7h8g8g1h1h2b1a1b2";

fn json_of(args: &[&str]) -> Json {
    let output = othello(args).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&output).expect("one JSON object")
}

/// The check: at 16 empty squares every move is exact and equal to `solve` on the position
/// it leads to.
#[test]
fn every_moves_value_at_16_empties_is_the_solve_of_its_child() {
    let moves = &GAME[..2 * 44];
    let analysis = json_of(&["analyze", "--moves", moves, "--json"]);
    assert_eq!(analysis["empties"], 16);
    let listed = analysis["moves"].as_array().unwrap();
    assert!(listed.len() >= 2);
    let mut previous = i64::MAX;
    for entry in listed {
        assert_eq!(entry["value_kind"], "exact");
        assert_eq!(entry["depth"], 16);
        let value = entry["value"].as_i64().unwrap();
        assert!(value <= previous, "best first");
        previous = value;
        let child = format!("{moves}{}", entry["move"].as_str().unwrap());
        let solved = json_of(&["solve", "--moves", &child, "--json"]);
        assert_eq!(value, -solved["score"].as_i64().unwrap(), "{}", entry["move"]);
    }
    let solved = json_of(&["solve", "--moves", moves, "--json"]);
    assert_eq!(listed[0]["value"], solved["score"]);
}

#[test]
fn exact_values_are_the_same_on_one_thread_and_on_three() {
    // 21 empties: every move is solved (20 empties: with the selective search first), the threads
    // on shared tables.
    let moves = &GAME[..2 * 39];
    let values = |threads: &str| -> Vec<(String, i64)> {
        let analysis = json_of(&[
            "analyze",
            "--moves",
            moves,
            "--exact-empties",
            "20",
            "-j",
            threads,
            "--json",
        ]);
        analysis["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| {
                assert_eq!(entry["value_kind"], "exact");
                (
                    entry["move"].as_str().unwrap().to_string(),
                    entry["value"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    let one = values("1");
    assert!(one.len() >= 2);
    assert_eq!(values("3"), one);
}

#[test]
fn a_position_with_many_empties_gets_estimates_of_one_depth() {
    let analysis = json_of(&["analyze", "--moves", "f5d6c3", "--depth", "4", "--json"]);
    assert_eq!(analysis["to_move"], "white");
    let listed = analysis["moves"].as_array().unwrap();
    let position = othello_core::notation::transcript::play(othello_core::Position::START, "f5d6c3")
        .unwrap()
        .position();
    assert_eq!(listed.len(), position.moves().count() as usize);
    for entry in listed {
        assert_eq!(entry["value_kind"], "estimate");
        assert_eq!(entry["depth"], 5);
        assert_eq!(entry["unit"], "discs");
    }
    let text = othello(["analyze", "--moves", "f5d6c3", "--depth", "4"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).into_owned();
    assert!(
        text.starts_with("White to move, 57 empty squares; exact from 18 empty squares, else estimates at depth 5\n")
    );
    assert!(text.contains("discs (estimate, depth 5)"), "{text}");
}

#[test]
fn a_game_given_as_a_transcript_is_analysed_move_by_move_with_a_graph() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("game.svg");
    let out = othello(["analyze", GAME, "--depth", "2", "--svg", svg.to_str().unwrap()])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("black (black) vs white (white), 60 moves;"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("  1. Black d3  "), "{}", lines[1]);
    // White passes after move 57, black moves again.
    assert!(
        text.contains(" 57. Black h2  ") && text.contains(" 58. Black b1  "),
        "{text}"
    );
    assert!(text.contains(" 60. Black b2  "));
    assert!(text.contains("black's value before each move, "));
    let graph = std::fs::read_to_string(&svg).unwrap();
    assert!(graph.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    let points = graph.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
    assert_eq!(points.split(' ').count(), 60);
    assert!(graph.trim_end().ends_with("</svg>"));

    let analysis = json_of(&["analyze", GAME, "--depth", "2", "--json"]);
    let moves = analysis["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 60);
    assert_eq!(analysis["transcript"], GAME);
    for entry in moves {
        let loss = entry["best"]["value"].as_i64().unwrap() - entry["played"]["value"].as_i64().unwrap();
        assert_eq!(entry["loss"].as_i64().unwrap(), loss);
        let verdict = match loss {
            10.. => "blunder",
            4.. => "mistake",
            _ => "good",
        };
        assert_eq!(entry["verdict"], verdict);
    }
    // The last 18 moves leave at most 17 empties: exact.
    assert!(moves[42..].iter().all(|m| m["played"]["value_kind"] == "exact"));
}

#[test]
fn logs_and_ggf_files_are_games_too() {
    let dir = tempfile::tempdir().unwrap();
    let (log, text) = common::logged_games(dir.path(), "greedy", "random");
    let second: Json = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let analysis = json_of(&[
        "analyze",
        log.to_str().unwrap(),
        "--game",
        "2",
        "--depth",
        "1",
        "--json",
    ]);
    assert_eq!(analysis["black"], second["black"]);
    let played = second["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m.get("name").is_some())
        .count();
    assert_eq!(analysis["moves"].as_array().unwrap().len(), played);

    let ggf = dir.path().join("game.ggf");
    std::fs::write(
        &ggf,
        "(;GM[Othello]PC[NBoard]PB[Ntest]PW[Edax]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//1.2]W[d6/-1.00/0.5]B[C3];)",
    )
    .unwrap();
    let analysis = json_of(&["analyze", ggf.to_str().unwrap(), "--depth", "1", "--json"]);
    assert_eq!(
        (analysis["black"].as_str(), analysis["white"].as_str()),
        (Some("Ntest"), Some("Edax"))
    );
    assert_eq!(analysis["transcript"], "f5d6c3");
}

#[test]
fn bad_games_and_positions_are_named_and_refused() {
    let cases: [(&[&str], i32, &str); 5] = [
        (&["analyze", "f5d6a1"], 2, "move 3, a1, is illegal: black can play"),
        (
            &["analyze", "no-such-game.txt"],
            2,
            "not a board of 64 characters, a transcript such as f5d6c3 or 1934_41, or a file",
        ),
        (
            &["analyze", "f5d6", "--svg", "/nonexistent-folder/x.svg"],
            2,
            "/nonexistent-folder/x.svg",
        ),
        (
            &["analyze", "--moves", "f5", "--svg", "/nonexistent-folder/p.svg"],
            2,
            "/nonexistent-folder/p.svg",
        ),
        (
            &["analyze", "f5d6", "--game", "2"],
            2,
            "--game 2 is out of range: the file holds 1",
        ),
    ];
    for (args, status, message) in cases {
        let out = othello(args).assert().code(status);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(out.get_output().stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn best_and_solve_start_from_a_transcript() {
    let moves = &GAME[..2 * 46];
    let position = othello_core::notation::transcript::play(othello_core::Position::START, moves)
        .unwrap()
        .position();
    let board = othello_core::notation::lab_board::format(position);
    let token = if position.to_move == othello_core::Color::Black {
        "x"
    } else {
        "o"
    };
    let from_moves = json_of(&["solve", "--moves", moves, "--json"]);
    let from_board = json_of(&["solve", &board, token, "--json"]);
    assert_eq!(from_moves["score"], from_board["score"]);
    assert_eq!(from_moves["best"], from_board["best"]);
    let best = json_of(&["best", "--moves", moves, "--depth", "3", "--json"]);
    let best_board = json_of(&["best", &board, token, "--depth", "3", "--json"]);
    assert_eq!(best["move"], best_board["move"]);
}

/// Issue 12: `replay` reads GGF files and plain transcripts, and writes any game it reads as either.
#[test]
fn replay_converts_logs_ggf_and_transcripts_into_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = common::logged_games(dir.path(), "greedy", "random");
    let ggf = othello(["replay", log.to_str().unwrap(), "--to", "ggf"])
        .assert()
        .success();
    let ggf = String::from_utf8_lossy(&ggf.get_output().stdout).into_owned();
    assert_eq!(ggf.lines().count(), 2);
    assert!(ggf.lines().all(|l| l.starts_with("(;GM[Othello]") && l.ends_with(";)")));
    let ggf_file = dir.path().join("games.ggf");
    std::fs::write(&ggf_file, &ggf).unwrap();
    let from_log = othello(["replay", log.to_str().unwrap(), "--to", "transcript"])
        .assert()
        .success();
    let from_ggf = othello(["replay", ggf_file.to_str().unwrap(), "--to", "transcript"])
        .assert()
        .success();
    assert_eq!(from_log.get_output().stdout, from_ggf.get_output().stdout);
    let checked = othello(["replay", ggf_file.to_str().unwrap()]).assert().success();
    let checked = String::from_utf8_lossy(&checked.get_output().stdout).into_owned();
    assert!(
        checked.starts_with("game 1: greedy (black) vs random (white): "),
        "{checked}"
    );
    assert!(checked.contains("all legal"));
    let one = othello(["replay", GAME]).assert().success();
    let one = String::from_utf8_lossy(&one.get_output().stdout).into_owned();
    assert!(
        one.ends_with(
            "black (black) vs white (white): black 28, white 36, white wins; 60 moves and 1 pass, all legal\n"
        ),
        "{one}"
    );
}

/// `analyze POSITION --svg`: the board with every legal move's value on its square (a picture
/// that parses as XML), and a game's graph marks where its values turn exact.
#[test]
fn pictures_show_a_positions_move_values_and_where_a_games_values_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("position.svg");
    let output = common::othello([
        "analyze",
        "--moves",
        "f5d6c3d3c4",
        "--json",
        "--svg",
        svg.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    let picture = roxmltree::Document::parse(&text).unwrap();
    let titles: Vec<String> = picture
        .descendants()
        .filter(|n| n.has_tag_name("title"))
        .map(|n| n.text().unwrap().to_string())
        .collect();
    let moves = report["moves"].as_array().unwrap();
    assert_eq!(titles.len(), moves.len(), "a value on each legal square: {titles:?}");
    for m in moves {
        assert!(titles.iter().any(|t| t.starts_with(m["move"].as_str().unwrap())), "{m}");
    }
    // Nine discs drawn: the four of the start and one a move.
    assert_eq!(
        picture
            .descendants()
            .filter(|n| n.has_tag_name("circle") && n.attribute("fill") != Some("none"))
            .count(),
        9
    );

    let game = dir.path().join("game.svg");
    let (log, _) = common::logged_games(dir.path(), "alphabeta:2", "greedy");
    common::othello([
        "analyze",
        log.to_str().unwrap(),
        "--depth",
        "2",
        "--exact-empties",
        "12",
    ])
    .arg("--svg")
    .arg(&game)
    .assert()
    .success();
    let graph = std::fs::read_to_string(&game).unwrap();
    roxmltree::Document::parse(&graph).unwrap();
    assert!(
        graph.contains(">exact from move "),
        "the graph marks where values turn exact"
    );
}

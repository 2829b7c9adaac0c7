//! Seed 004's bestMove(K) and fullGame(K) through the binary, on positions small enough to check by
//! hand (the reasoning is in the comments), read both from input.txt files and as lab boards.

use crate::common;

use serde_json::Value;

const GAME_ENDS_INSIDE: &str = ".ox....................................x.......x.......o........";
const PASS_INSIDE: &str = ".ox....x.......x.......x.......x.......x.......x.......o........";

fn fixture(name: &str) -> String {
    format!("{}/fixtures/seed004/{name}.txt", env!("CARGO_MANIFEST_DIR"))
}

fn json(args: &[&str]) -> Value {
    let output = common::othello(args).arg("--json").output().expect("the binary runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

fn best(depth: u32, source: &[&str]) -> (i64, i64) {
    let depth = depth.to_string();
    let mut args = vec!["best", "--depth", &depth];
    args.extend_from_slice(source);
    let value = json(&args);
    (value["move"].as_i64().unwrap(), value["score"].as_i64().unwrap())
}

// x (black) to move: x c1, h5, h6; o b1, h7. x can take a1 (flipping b1) or h8 (flipping h7).
// - a1: o's only reply is h4 (flipping h5, h6); then neither side can move: x 3, o 4, score -1.
// - h8: o's only reply is d1 (flipping c1); then neither side can move: x 4, o 3, score +1.
// Depth 1 sees +4 after either move and takes the smaller index, a1 (0); from depth 2 on, the game
// ends inside the look-ahead and h8 (63) is worth +1.
#[test]
fn best_move_when_the_game_ends_inside_the_lookahead() {
    for source in [
        vec!["--input", &fixture("game-ends-inside")],
        vec![GAME_ENDS_INSIDE, "x"],
    ] {
        assert_eq!(best(1, &source), (0, 4));
        assert_eq!(best(2, &source), (63, 1));
        assert_eq!(best(3, &source), (63, 1));
        assert_eq!(best(6, &source), (63, 1));
    }
}

// x to move: x c1, h1-h6; o b1, h7. x can take a1 (flipping b1) or h8 (flipping h7).
// - a1: o (h7 only) has no move, since h6-h1 run to the edge, so o passes; x then takes h8 and o has
//   no disc left: x 11, o 0. After a1 and the pass, a depth-2 search stops at x 9, o 1: +8.
// - h8: o replies d1 (flipping c1), and the game is over: x 8, o 3, +5.
// Depth 1: both moves give x 9, o 1, +8: a1 by index. Depth 2: a1 +8 (the pass took a ply) against
// h8 +5. Depth 3: a1 +11.
#[test]
fn best_move_when_a_pass_falls_inside_the_lookahead() {
    for source in [vec!["--input", &fixture("pass-inside")], vec![PASS_INSIDE, "x"]] {
        assert_eq!(best(1, &source), (0, 8));
        assert_eq!(best(2, &source), (0, 8));
        assert_eq!(best(3, &source), (0, 11));
    }
}

#[test]
fn full_games_on_the_small_positions() {
    let game = json(&["fullgame", "--depth", "3", "--input", &fixture("pass-inside")]);
    assert_eq!(
        game["moves"],
        serde_json::json!([0, 63]),
        "the pass is left out of the moves"
    );
    assert_eq!(
        (game["black"].as_i64(), game["white"].as_i64(), game["winner"].as_i64()),
        (Some(11), Some(0), Some(0))
    );
    let game = json(&["fullgame", "--depth", "2", GAME_ENDS_INSIDE, "x"]);
    assert_eq!(game["moves"], serde_json::json!([63, 3]));
    assert_eq!(
        (game["black"].as_i64(), game["white"].as_i64(), game["winner"].as_i64()),
        (Some(4), Some(3), Some(0))
    );
    assert_eq!(game["board"][0], serde_json::json!([-1, 1, 1, 1, -1, -1, -1, -1]));
    assert_eq!(game["board"][7][7], 0);
}

#[test]
fn best_from_the_start_takes_the_smallest_index_among_equals() {
    // Every first move flips one disc and the position is symmetric: all four are worth the same.
    assert_eq!(best(1, &[]), (19, 3));
    let value = json(&["best", "--depth", "1"]);
    assert_eq!(value["square"], "d3");
    assert_eq!(value["depth"], 1);
    assert!(value["nodes"].as_u64().unwrap() >= 5);
}

#[test]
fn a_malformed_input_file_names_its_line_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input.txt");
    std::fs::write(&path, "1\n-1 -1 -1 -1 -1 -1 -1 -1\n-1 -1 -1 -1 -1 -1 -1 x\n").unwrap();
    common::othello(["best", "--depth", "2", "--input", path.to_str().unwrap()])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains(
            "line 3: column 8: expected -1, 0 or 1, found \"x\"",
        ));
}

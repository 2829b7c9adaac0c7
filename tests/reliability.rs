//! Regression tests for the defects of the outside audit (issue 10), each named after what it fixes.

mod common;

use serde_json::Value;

/// The fixture board where parity names o, o cannot move, and x can.
fn blocked_board() -> String {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lab/default-token-passes-when-blocked.args");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn solve_time_limits_out_of_range_are_refused_not_a_panic() {
    for value in ["1e19", "1e20", "-1", "0", "nan", "inf"] {
        common::othello(["solve", "--time-limit", value, &blocked_board(), "x"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains("seconds"));
    }
    common::othello([
        "solve",
        "--time-limit",
        "1e19",
        "--obf",
        "fixtures/ffo/fforum-40-59.obf",
    ])
    .assert()
    .code(2);
}

#[test]
fn solve_answers_for_the_side_asked_even_one_that_must_pass() {
    let board = blocked_board();
    let output = common::othello(["solve", &board, "o", "--json"]).output().unwrap();
    let o: Value = serde_json::from_slice(&output.stdout).unwrap();
    let output = common::othello(["solve", &board, "x", "--json"]).output().unwrap();
    let x: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (o["side"].as_str(), o["pass_first"].as_bool()),
        (Some("white"), Some(true))
    );
    assert_eq!(
        (x["side"].as_str(), x["pass_first"].as_bool()),
        (Some("black"), Some(false))
    );
    assert_eq!(o["score"].as_i64().unwrap(), -x["score"].as_i64().unwrap());
    assert_eq!(o["pv"][0], "pass");
    common::othello(["solve", &board, "o"])
        .assert()
        .success()
        .stdout(predicates::str::starts_with(
            "score -42 for o (white), which must pass first",
        ));
}

#[test]
fn unfinished_solves_exit_1_with_a_board_and_with_obf_and_the_start_position_needs_a_limit() {
    let far = "...................x.......xx.....xoo....x......................";
    common::othello(["solve", "--time-limit", "0.01", far, "o"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("not solved within the time limit"));
    common::othello([
        "solve",
        "--time-limit",
        "0.01",
        "--obf",
        "fixtures/ffo/fforum-40-59.obf",
    ])
    .assert()
    .code(1)
    .stdout(predicates::str::contains("unfinished"));
    common::othello(["solve"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("60 empty squares"));
}

#[test]
fn perft_picks_the_default_side_by_the_same_rule_as_every_command() {
    let board = blocked_board();
    // Parity names o, who cannot move: x moves, as in the lab mode, solve and best.
    let leaves = |args: &[&str]| {
        let output = common::othello(args).output().unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        report["leaves"].as_u64().unwrap()
    };
    assert_eq!(
        leaves(&["perft", "1", &board, "--json"]),
        leaves(&["perft", "1", &board, "x", "--json"])
    );
    assert_eq!(
        leaves(&["perft", "1", &board, "o", "--json"]),
        1,
        "o asked for: its pass is the one leaf"
    );
    let best = common::othello(["best", "--depth", "1", &board]).output().unwrap();
    assert!(String::from_utf8_lossy(&best.stdout).starts_with("best move for x"));
}

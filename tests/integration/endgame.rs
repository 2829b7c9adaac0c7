//! The endgame solver against an exhaustive minimax on positions with up to 10 empty squares (forced
//! passes and finished games included), its principal variations, its null-window bounds, and the
//! FFO suite's known scores.

use crate::common;
use serde_json::Value;

use othello_core::rng::SeededRng;
use othello_core::{Board, Position, Square};
use othello_engine::search::endgame::Solver;

/// Exact score by visiting every line of play: the reference.
fn exhaustive(board: Board) -> i32 {
    let moves = board.moves();
    if moves.is_empty() {
        return if board.opponent_moves().is_empty() {
            board.final_score()
        } else {
            -exhaustive(board.pass())
        };
    }
    moves
        .squares()
        .map(|square| -exhaustive(board.play(square)))
        .max()
        .unwrap()
}

/// A position from a random game stopped at `empties` empty squares (or earlier, if the game ended).
fn random_position(rng: &mut SeededRng, empties: u32) -> Board {
    let mut position = Position::START;
    while position.board.empty_count() > empties && !position.is_game_over() {
        position = position.after_forced_pass();
        position = position.play(rng.pick_square(position.moves()));
    }
    // Sometimes hand the turn to a side that must pass.
    if rng.below(4) == 0 {
        position.pass().board
    } else {
        position.board
    }
}

/// Plays a principal variation and returns the final score from the root side's view.
fn play_out(mut board: Board, pv: &[Option<Square>]) -> i32 {
    let mut sign = 1;
    for step in pv {
        board = match step {
            Some(square) => board.try_play(*square).expect("the PV is legal"),
            None => {
                assert!(board.moves().is_empty(), "a pass in the PV is forced");
                board.pass()
            }
        };
        sign = -sign;
    }
    assert!(board.is_game_over(), "the PV goes to the end of the game");
    sign * board.final_score()
}

#[test]
fn solver_matches_exhaustive_search_up_to_ten_empties() {
    let mut rng = SeededRng::new(404);
    let mut solver = Solver::with_table_bits(16);
    let (mut passes, mut finished) = (0, 0);
    for i in 0..400 {
        // Empties 0 plays the game to its end: finished positions, full or not.
        let empties = if i < 380 { i % 9 } else { 9 + (i % 2) };
        let board = random_position(&mut rng, empties);
        passes += usize::from(board.must_pass() || board.moves().is_empty());
        finished += usize::from(board.is_game_over());
        let expected = exhaustive(board);
        let solution = solver.solve(board).unwrap();
        assert_eq!(solution.score, expected, "position {i}: {board:?}");
        assert_eq!(
            play_out(board, &solution.pv),
            expected,
            "position {i}: the PV reaches the score"
        );
        match solution.best {
            Some(best) => {
                assert_eq!(solution.pv.first(), Some(&Some(best)));
                assert_eq!(
                    -exhaustive(board.play(best)),
                    expected,
                    "position {i}: the best move is best"
                );
            }
            None => assert!(board.moves().is_empty()),
        }
    }
    assert!(
        passes > 50 && finished > 0,
        "the sample includes passes ({passes}) and finished games ({finished})"
    );
}

#[test]
fn null_windows_return_sound_bounds() {
    let mut rng = SeededRng::new(5);
    let mut solver = Solver::with_table_bits(16);
    for _ in 0..200 {
        let empties = 4 + rng.below(7) as u32;
        let board = random_position(&mut rng, empties);
        let exact = exhaustive(board);
        let alpha = rng.below(129) as i32 - 64;
        let beta = alpha + 1 + rng.below(8) as i32;
        let bound = solver.search_window(board, alpha, beta).unwrap();
        if bound <= alpha {
            assert!(exact <= bound, "fail low {bound} above the exact {exact}");
        } else if bound >= beta {
            assert!(exact >= bound, "fail high {bound} below the exact {exact}");
        } else {
            assert_eq!(bound, exact);
        }
    }
}

fn ffo_positions() -> Vec<othello_core::notation::obf::ObfPosition> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/ffo/fforum-40-59.obf")).unwrap();
    othello_core::notation::obf::parse(&text).unwrap()
}

// About 14 s in the test profile: kept in the suite.
#[test]
fn ffo_40_to_44_are_solved_exactly() {
    let mut solver = Solver::new();
    for (i, position) in ffo_positions().iter().take(5).enumerate() {
        let solution = solver.solve(position.position.board).unwrap();
        assert_eq!(Some(solution.score), position.best_score(), "FFO #{}", 40 + i);
        assert_eq!(
            position.is_best_move(solution.best.unwrap()),
            Some(true),
            "FFO #{}",
            40 + i
        );
    }
}

#[test]
fn every_thread_count_finds_the_same_exact_scores() {
    let mut rng = SeededRng::new(45);
    let mut one = Solver::with_table_bits(18);
    let mut two = Solver::with_table_bits(18);
    two.set_threads(2);
    let mut three = Solver::with_table_bits(18);
    three.set_threads(3);
    for _ in 0..24 {
        let board = random_position(&mut rng, 17);
        let expected = one.solve(board).unwrap();
        for solver in [&mut two, &mut three] {
            let solution = solver.solve(board).unwrap();
            assert_eq!(solution.score, expected.score, "{board:?}");
            // Whichever best move a thread count finds, it reaches the score.
            assert_eq!(play_out(board, &solution.pv), expected.score, "{board:?}");
        }
    }
    // And a real test of strength, on two threads: FFO #40 and #41.
    let mut solver = Solver::new();
    solver.set_threads(2);
    for (i, position) in ffo_positions().iter().take(2).enumerate() {
        let solution = solver.solve(position.position.board).unwrap();
        assert_eq!(Some(solution.score), position.best_score(), "FFO #{}", 40 + i);
    }
}

#[test]
fn solve_reports_obf_positions_and_their_agreement() {
    // FFO #40 (20 empties, under a second), once with its answers and once with a wrong one.
    let dir = tempfile::tempdir().unwrap();
    let obf = dir.path().join("one.obf");
    let board = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X--------";
    std::fs::write(&obf, format!("{board} X; A2:+38; C7:+36;\n{board} X; C7:+36;\n")).unwrap();
    let output = common::othello(["solve", "--obf", obf.to_str().unwrap(), "--first-number", "40"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("#40  20 empties: score +38 (ok), best a2 (ok)"),
        "{stdout}"
    );
    assert!(stdout.contains("#41  20 empties: score +38 (MISMATCH)"), "{stdout}");
    assert!(
        stdout.contains("total: 2/2 solved, scores 1/2 and best moves 1/2 agree"),
        "{stdout}"
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "a contradicted answer is reported with status 1"
    );

    let json = common::othello([
        "solve",
        board.replace('-', ".").replace('O', "o").replace('X', "x").as_str(),
        "x",
        "--json",
    ])
    .output()
    .unwrap();
    assert!(json.status.success());
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["score"], 38);
    assert_eq!(value["move"], "a2");
    assert!(value["pv"].as_array().unwrap().contains(&serde_json::json!("pass")));
    assert!(value["nodes"].as_u64().unwrap() > 1000 && value["seconds"].is_f64());
}

#[test]
fn the_engine_plays_exactly_when_it_can_solve_in_time() {
    // FFO #40 after a2 b1 c1, a pass and b6: 16 empties, solved in milliseconds.
    let mut board = ffo_positions()[0].position.board;
    for square in ["a2", "b1", "c1"] {
        board = board.play(square.parse().unwrap());
    }
    board = board.pass().play("b6".parse().unwrap());
    let exact = Solver::new().solve(board).unwrap().score;
    let position = othello_core::Position {
        board,
        to_move: othello_core::Color::White,
    };
    let lab_board = othello_core::notation::lab_board::format(position);
    let output = common::othello(["best", "--strategy", "engine:2000", &lab_board, "o", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["score"], exact);
    let chosen: Square = value["square"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        -Solver::new().solve(board.play(chosen)).unwrap().score,
        exact,
        "the engine's move keeps the score"
    );
}

#[test]
fn the_engine_beats_a_shallow_search() {
    let output = common::othello([
        "match",
        "engine:20",
        "alphabeta:2:weights",
        "--games",
        "4",
        "--openings",
        "6",
        "--json",
    ])
    .output()
    .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(report["points"].as_f64().unwrap() >= 3.0, "{report}");
}

/// A constructed position where black has 34 legal moves, more than any game reaches.
const MOBILE: &str = ".oxxo...xooo..ox.....xo...x..ox.xo.o..o..xxx.xo..ooooxo.........";

#[test]
fn regression_positions_with_more_than_32_moves_do_not_overflow_the_move_lists() {
    assert_eq!(
        othello_core::notation::lab_board::parse(MOBILE).map(|(b, w)| Board::new(b, w).moves().count()),
        Ok(34)
    );
    common::othello(["best", "--strategy", "engine:50", MOBILE, "x"])
        .assert()
        .success();
    common::othello(["solve", MOBILE, "x", "--time-limit", "0.2"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("not solved within the time limit"));
}

/// Scores near a wipe-out make the root's tests stride instead of stepping by 2 (FFO #59 is +64):
/// the result must stay exact, whichever side is winning.
#[test]
fn regression_near_wipe_outs_the_striding_tests_still_find_the_exact_score() {
    let mut rng = SeededRng::new(59);
    let mut checked = 0;
    while checked < 12 {
        // One side plays the move that leaves the other fewest replies: lopsided games.
        let mut position = Position::START;
        while position.board.empty_count() > 10 && !position.is_game_over() {
            position = position.after_forced_pass();
            let moves = position.moves();
            let square = if position.to_move == othello_core::Color::Black {
                moves
                    .squares()
                    .min_by_key(|&s| position.play(s).board.moves().count())
                    .unwrap()
            } else {
                rng.pick_square(moves)
            };
            position = position.play(square);
        }
        let board = position.board;
        let expected = exhaustive(board);
        if expected.abs() < 40 {
            continue;
        }
        let solution = Solver::new().solve(board).unwrap();
        assert_eq!(solution.score, expected, "{board:?}");
        let flipped = Solver::new().solve(board.pass()).unwrap();
        assert_eq!(flipped.score, exhaustive(board.pass()), "{:?}", board.pass());
        checked += 1;
    }
}

#[test]
fn solve_time_limits_out_of_range_are_refused_not_a_panic() {
    for value in ["1e19", "1e20", "-1", "0", "nan", "inf"] {
        common::othello(["solve", "--time-limit", value, &common::blocked_board(), "x"])
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
    let board = common::blocked_board();
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
    // 40 empty squares: the most solve tries, and only with a limit.
    let far = "f5d6c3d3c4f4f6f3e6e7f7c5b6g6e3e2f1d2g4g5";
    common::othello(["solve", "--time-limit", "0.01", "--moves", far])
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
fn an_obf_file_with_a_byte_order_mark_reads_like_one_without() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("fixtures/ffo/fforum-40-59.obf").unwrap();
    let first = text
        .lines()
        .find(|l| !l.starts_with('%') && !l.trim().is_empty())
        .unwrap();
    let path = dir.path().join("bom.obf");
    std::fs::write(&path, format!("\u{feff}{first}\n")).unwrap();
    common::othello(["solve", "--obf", path.to_str().unwrap(), "--first-number", "40"])
        .assert()
        .success()
        .stdout(predicates::str::contains("#40  20 empties: score +38 (ok)"));
}

/// FFO #40 (20 empties, black to move) in the lab's board form.
const FFO_40: &str = "o..oooox.ooooooxooxxoooxooxoooxxooooooxx...oooox....o..x........";

#[test]
fn regression_14_lab5_with_many_empties_comes_from_the_solver() {
    // The fixed-depth alpha-beta took more than a minute here; the solver takes about a second.
    let output = common::othello([FFO_40, "x", "--lab5", "--holes", "64"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let expected_line = "Min score: 38; move sequence: \
        [63, -1, 40, 62, 58, 60, 59, -1, 56, 54, 53, 42, 61, 51, 57, 50, 48, 49, 41, -1, 2, 1, 8]";
    assert!(
        stdout.ends_with(&format!("My preferred move is: 8\n{expected_line}\n")),
        "{stdout}"
    );
}

#[test]
fn regression_12_an_unfinished_solve_stops_at_its_node_limit() {
    // The solver checked its limits only when its node count landed exactly on a multiple of
    // 4,096, which the small searches' counting mostly stepped over: a limit ran tens of thousands
    // of nodes late. FFO #40 needs 23.5 million nodes; stopped at 100,000 it must stop near there.
    use othello_engine::search::endgame::Solver;
    let (black, white) = othello_core::notation::lab_board::parse(FFO_40).unwrap();
    let board = othello_core::Position::from_discs(black, white, othello_core::Color::Black).board;
    let mut solver = Solver::with_table_bits(16);
    solver.set_node_limit(Some(100_000));
    assert!(solver.solve(board).is_err());
    assert!(solver.nodes() < 100_000 + 4_096 + 64, "{} nodes", solver.nodes());
}

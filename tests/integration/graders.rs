//! Tools for graders through the binary: `othello diff` (pairs that must agree and pairs that must
//! not, one of each kind of difference), `othello cases`, and the later labs' outputs.

use crate::common;

use std::path::Path;

const HANDOUT: &str = include_str!("../../fixtures/lab/handout-19-34-41.out");

fn diff(expected: &str, actual: &str, tolerant: bool) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let (e, a) = (dir.path().join("expected.txt"), dir.path().join("actual.txt"));
    std::fs::write(&e, expected).unwrap();
    std::fs::write(&a, actual).unwrap();
    let mut command = common::othello(["diff", e.to_str().unwrap(), a.to_str().unwrap()]);
    if tolerant {
        command.arg("--tolerant");
    }
    let output = command.output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// Changes the handout transcript the way a student's output might differ harmlessly.
fn harmless_variants() -> Vec<(&'static str, String)> {
    vec![
        ("asterisks as dots", HANDOUT.replace('*', ".")),
        ("upper-case discs", HANDOUT.lines().map(|l| if l.len() == 8 { l.to_uppercase() } else { l.to_string() } + "\n").collect()),
        ("spaced board rows", HANDOUT.lines().map(|l| if l.len() == 8 { l.chars().map(|c| format!("{c} ")).collect::<String>() } else { l.to_string() } + "\n").collect()),
        ("1D spacing and case", HANDOUT.replace("  2/2", " 2 / 2").replace("  4/1", "4/1").replace("ox..", "OX..")),
        ("moves punctuation and order", HANDOUT.replace("19, 26, 37, 44", "[44 37,26;19]")),
        ("moves to", HANDOUT.replace("plays to", "moves to")),
        ("no empty lines", HANDOUT.lines().filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect()),
        ("counts on their own line", HANDOUT.replace("  2/2\n", "\n2/2\n").replace("  3/3\n", "\n 3 / 3\n")),
        ("row labels", HANDOUT.replace("\n...xo*..\n", "\n5 |...xo*..|\n")),
        ("No moves possible where no line is due", game_over_handout() + "No moves possible\n"),
    ]
}

/// The handout's transcript as if its last snapshot ended the game (no part E).
fn game_over_handout() -> String {
    HANDOUT.replacen("Possible moves for o: 11, 18, 20, 21, 33\n\n", "", 1)
}

#[test]
fn tolerant_diff_accepts_what_graders_accept() {
    for (what, variant) in harmless_variants() {
        let expected = if what.starts_with("No moves") {
            game_over_handout()
        } else {
            HANDOUT.to_string()
        };
        assert_eq!(diff(&expected, &variant, true), (0, String::new()), "{what}");
        if what.starts_with("No moves") {
            continue;
        }
        let (status, report) = diff(HANDOUT, &variant, false);
        assert_eq!(status, 1, "strict mode sees {what}");
        assert!(
            report.contains("expected:") && report.contains("actual:"),
            "{what}: {report}"
        );
    }
}

#[test]
fn tolerant_diff_reports_every_kind_of_real_difference() {
    let cases = [
        (
            "a disc in a board row",
            HANDOUT.replacen("..*ox...", "..*xx...", 1),
            "snapshot 1, part B, row 4",
        ),
        (
            "the 1D board",
            HANDOUT.replacen("......ox......", "......xx......", 1),
            "snapshot 1, part D",
        ),
        (
            "the counts",
            HANDOUT.replacen("  4/1", "  4/2", 1),
            "snapshot 2, part D",
        ),
        (
            "a missing possible move",
            HANDOUT.replacen("18, 20, 34", "18, 20", 1),
            "snapshot 2, part E",
        ),
        (
            "the move played",
            HANDOUT.replacen("o plays to 34", "o plays to 33", 1),
            "snapshot 3, part A",
        ),
        (
            "the side that played",
            HANDOUT.replacen("x plays to 41", "o plays to 41", 1),
            "snapshot 4, part A",
        ),
        (
            "a missing snapshot",
            HANDOUT[..HANDOUT.find("x plays to 41").unwrap()].to_string(),
            "expected: 4 snapshots",
        ),
        (
            "a game-over snapshot",
            HANDOUT.replacen("Possible moves for o: 11, 18, 20, 21, 33\n", "", 1),
            "snapshot 4, part E",
        ),
    ];
    for (what, changed, location) in cases {
        let (status, report) = diff(HANDOUT, &changed, true);
        assert_eq!(status, 1, "{what}");
        assert!(report.contains(location), "{what}: {report}");
    }
}

#[test]
fn strict_diff_names_snapshot_part_and_line_and_sees_whitespace() {
    let (status, report) = diff(HANDOUT, &HANDOUT.replacen("..*X*...\n", "..*X*... \n", 1), false);
    assert_eq!(status, 1);
    assert!(report.starts_with("snapshot 2, part B, row 3 (line 16):"), "{report}");
    assert!(report.contains(r#"actual:   "..*X*... \n""#), "{report}");
    let (status, report) = diff(HANDOUT, HANDOUT.trim_end(), false);
    assert_eq!(status, 1);
    assert!(report.contains("snapshot 4, part E"), "{report}");
    assert_eq!(diff(HANDOUT, HANDOUT, false), (0, String::new()));
}

#[test]
fn diff_reads_stdin_and_rejects_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let expected = dir.path().join("expected.txt");
    std::fs::write(&expected, HANDOUT).unwrap();
    common::othello(["diff", expected.to_str().unwrap(), "-"])
        .write_stdin(HANDOUT)
        .assert()
        .success();
    common::othello(["diff", "-", "-"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("only one of the two"));
    common::othello(["diff", expected.to_str().unwrap(), "/no/such/file"])
        .assert()
        .code(2)
        .stdout("");
}

fn read_case(dir: &Path, name: &str) -> (Vec<String>, String) {
    let args = std::fs::read_to_string(dir.join(format!("{name}.args"))).unwrap();
    let args = if args.is_empty() {
        Vec::new()
    } else {
        args.trim_end_matches('\n').split('\n').map(String::from).collect()
    };
    (args, std::fs::read_to_string(dir.join(format!("{name}.out"))).unwrap())
}

#[test]
fn generated_cases_are_reproducible_varied_and_right() {
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for dir in [&first, &second] {
        common::othello(["cases", "--count", "120", "--seed", "7", dir.path().to_str().unwrap()])
            .assert()
            .success();
    }
    let mut names: Vec<String> = std::fs::read_dir(first.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|name| name.strip_suffix(".args").map(String::from))
        .collect();
    names.sort();
    assert_eq!(names.len(), 120);
    let (mut passes, mut game_overs, mut upper_boards, mut a1_moves, mut negatives, mut no_board) = (0, 0, 0, 0, 0, 0);
    for name in &names {
        let (args, out) = read_case(first.path(), name);
        assert_eq!(
            (args.clone(), out.clone()),
            read_case(second.path(), name),
            "{name}: the same seed writes the same case"
        );
        // Each expected output is what the lab mode prints for those arguments.
        common::othello(&args).assert().success().stdout(out.clone());
        let players: Vec<&str> = out
            .lines()
            .filter_map(|l| l.split(" plays to ").next().filter(|_| l.contains(" plays to ")))
            .collect();
        passes += usize::from(players.windows(2).any(|w| w[0] == w[1]));
        game_overs += usize::from(!out.trim_end().ends_with(|c: char| c.is_ascii_digit()) || !out.ends_with("\n\n"));
        upper_boards += usize::from(
            args.iter()
                .any(|a| a.len() == 64 && a.chars().any(|c| c == 'X' || c == 'O')),
        );
        a1_moves += usize::from(
            args.iter()
                .any(|a| a.len() == 2 && a.as_bytes()[0].is_ascii_alphabetic()),
        );
        negatives += usize::from(args.iter().any(|a| a.starts_with('-')));
        no_board += usize::from(args.iter().all(|a| a.len() != 64));
    }
    for (what, count) in [
        ("forced passes", passes),
        ("finished games", game_overs),
        ("upper-case boards", upper_boards),
        ("A1 moves", a1_moves),
        ("negative numbers", negatives),
        ("the default board", no_board),
    ] {
        assert!(count >= 3, "only {count} cases with {what}");
    }
}

#[test]
fn the_lab4_preferred_move_takes_three_quarters_of_the_discs_from_random() {
    let output = common::othello([
        "match",
        "preferred",
        "random",
        "--games",
        "200",
        "--seed",
        "4",
        "--json",
    ])
    .output()
    .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(report["disc_share"].as_f64().unwrap() >= 0.75, "{report}");
}

/// Lab 5's value by visiting every line: token difference at the end, empties counting for nobody.
fn exhaustive_tokens(board: othello_core::Board) -> i32 {
    common::exhaustive(board, othello_core::Board::disc_difference)
}

#[test]
fn lab5_min_score_and_sequence_are_exact_up_to_ten_empties() {
    let mut rng = othello_core::rng::SeededRng::new(55);
    for i in 0..150 {
        let mut position = othello_core::Position::START;
        let empties = 1 + (i % 10);
        while position.board.empty_count() > empties && !position.is_game_over() {
            position = position.after_forced_pass();
            position = position.play(rng.pick_square(position.moves()));
        }
        let position = position.after_forced_pass();
        if position.is_game_over() {
            continue;
        }
        let args = [
            othello_core::notation::lab_board::format(position),
            position.to_move.lab_char().to_string(),
            "--lab5".into(),
        ];
        let output = common::othello(&args).output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let line = stdout.lines().last().unwrap();
        let (score, sequence) = line
            .strip_prefix("Min score: ")
            .and_then(|rest| rest.split_once("; move sequence: ["))
            .unwrap_or_else(|| panic!("no Min score line in {stdout}"));
        let expected = exhaustive_tokens(position.board);
        assert_eq!(score.parse::<i32>().unwrap(), expected, "{args:?}");
        // Played from its end backwards, the sequence is legal, optimal at every step, and ends the game.
        let mut board = position.board;
        let mut sign = 1;
        for step in sequence
            .trim_end_matches(']')
            .split(", ")
            .collect::<Vec<_>>()
            .iter()
            .rev()
        {
            let value = sign * exhaustive_tokens(board);
            assert_eq!(value, expected, "{args:?}: the line stays optimal");
            board = match step.parse::<i32>().unwrap() {
                -1 => {
                    assert!(board.moves().is_empty(), "{args:?}: a pass only when forced");
                    board.pass()
                }
                index => board
                    .try_play(othello_core::Square::from_index(index as u8))
                    .expect("a legal move"),
            };
            sign = -sign;
        }
        assert!(board.is_game_over(), "{args:?}: the sequence ends the game");
        assert_eq!(sign * board.disc_difference(), expected);
        let preferred = stdout
            .lines()
            .find_map(|l| l.strip_prefix("My preferred move is: "))
            .unwrap();
        assert_eq!(
            Some(preferred),
            sequence.trim_end_matches(']').split(", ").last(),
            "the preferred move starts the line"
        );
    }
}

#[test]
fn diff_reports_every_difference_not_only_the_first() {
    let changed = HANDOUT
        .replacen("..*ox...", "..*xx...", 1)
        .replacen("  4/1", "  4/2", 1)
        .replacen("11, 18, 20, 21, 33", "11, 18", 1);
    let (status, report) = diff(HANDOUT, &changed, true);
    assert_eq!(status, 1);
    for place in [
        "snapshot 1, part B, row 4 (d4)",
        "snapshot 2, part D, the counts",
        "snapshot 4, part E",
    ] {
        assert!(report.contains(place), "{place}: {report}");
    }
    assert!(report.ends_with("3 differences (judge tolerant)\n"), "{report}");
}

#[test]
fn the_course_judge_reads_only_the_last_board_and_moves() {
    let dir = tempfile::tempdir().unwrap();
    let (e, a) = (dir.path().join("e.txt"), dir.path().join("a.txt"));
    std::fs::write(&e, HANDOUT).unwrap();
    let course = |actual: &str| {
        std::fs::write(&a, actual).unwrap();
        let output = common::othello(["diff", e.to_str().unwrap(), a.to_str().unwrap(), "--judge", "course"])
            .output()
            .unwrap();
        (
            output.status.code().unwrap(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    // A wrong count and an earlier wrong board are not read; the last board and moves are.
    assert_eq!(
        course(
            &HANDOUT
                .replacen("  4/1", "  9/9", 1)
                .replacen("..*ox...", "..*xx...", 1)
        )
        .0,
        0
    );
    let (status, report) = course(&HANDOUT.replacen(".X......\n", ".XX.....\n", 1));
    assert_eq!(status, 1);
    assert!(
        report.contains("the last 2D board, not anywhere in the output (row 6 (c6)"),
        "{report}"
    );
    let (status, report) = course(&HANDOUT.replacen("11, 18, 20, 21, 33", "[33, 21, 20, 18]", 1));
    assert_eq!(status, 1);
    assert!(report.contains("expected: [11, 18, 20, 21, 33]"), "{report}");
    assert_eq!(
        course(&HANDOUT.replacen("11, 18, 20, 21, 33", "[33, 21, 20, 18, 11]", 1)).0,
        0
    );
}

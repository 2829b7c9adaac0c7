//! Regression tests for the defects of the outside audit (issue 10), each named after what it fixes.

use crate::common;

use std::os::unix::fs::FileTypeExt;

use predicates::prelude::*;
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

#[test]
fn negative_values_of_numeric_options_name_the_option_and_the_range() {
    for (args, message) in [
        (
            vec!["best", "--depth", "-9"],
            "'-9' for '--depth <DEPTH>': -9 is not in 1..=30",
        ),
        (
            vec!["match", "random", "random", "--games", "-1"],
            "'--games <GAMES>': -1 is not in 1..",
        ),
        (
            vec!["match", "random", "random", "--seed", "-1"],
            "\"-1\" is not a seed: expected a whole number 0..",
        ),
        (
            vec!["solve", "--time-limit", "-1", "--obf", "x.obf"],
            "'--time-limit <SECONDS>'",
        ),
        (vec!["perft", "-1"], "'<DEPTH>': -1 is not in 0..=30"),
        (
            vec!["solve", "--first-number", "18446744073709551615", "--obf", "x.obf"],
            "'--first-number <N>'",
        ),
        (
            vec!["match", "engine:99999999999", "random"],
            "engine[:MILLISECONDS, 1..3600000]",
        ),
        (
            vec!["best", "--eval", "mobility", "--strategy", "random"],
            "'--eval <EVAL>' cannot be used with '--strategy <SPEC>'",
        ),
    ] {
        common::othello(&args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains(message));
    }
}

#[test]
fn version_and_help_work_wherever_they_are_asked_for() {
    common::othello(["19", "--version"])
        .assert()
        .success()
        .stdout(predicates::str::starts_with("othello "));
    common::othello(["help", "--help"])
        .assert()
        .success()
        .stdout(predicates::str::contains("Usage"));
    common::othello(["match", "--help"])
        .assert()
        .success()
        .stdout(predicates::str::contains("preferred").and(predicates::str::contains("engine[:MS]")));
}

#[test]
fn error_lines_stay_one_line_and_short() {
    let output = common::othello(["replay", "no\nsuch\nfile"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no\\nsuch\\nfile"), "{stderr}");
    let huge = "q".repeat(100_000);
    let output = common::othello([huge.as_str()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr.len() < 1000 && stderr.lines().count() == 1,
        "{} bytes",
        stderr.len()
    );
    assert!(
        stderr.contains("characters left out") && stderr.trim_end().ends_with("(ignored)"),
        "{stderr}"
    );
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

#[test]
fn counts_of_one_are_singular() {
    common::othello(["perft", "1", &blocked_board(), "o"])
        .assert()
        .stdout(predicates::str::starts_with("perft 1: 1 leaf in"));
    common::othello(["replay", "193441"])
        .assert()
        .stdout("x 5, o 2, unfinished; 3 moves and 0 passes, all legal\n");
    common::othello(["match", "alphabeta:3", "random", "--games", "1"])
        .assert()
        .stdout(
            predicates::str::contains("1 game (seed 1)").and(predicates::str::contains("0 wins, 0 draws, 1 loss:")),
        );
}

#[test]
fn logs_write_through_fifos_and_follow_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    common::othello([
        "match",
        "random",
        "random",
        "--games",
        "2",
        "--log",
        fifo.to_str().unwrap(),
    ])
    .assert()
    .success();
    let written = reader.join().unwrap();
    assert_eq!(written.lines().count(), 2, "both games went through the FIFO");
    assert!(
        std::fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "the FIFO is still a FIFO"
    );

    let target = dir.path().join("real.jsonl");
    std::fs::write(&target, "old\n").unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink("real.jsonl", &link).unwrap();
    common::othello([
        "match",
        "random",
        "random",
        "--games",
        "2",
        "--log",
        link.to_str().unwrap(),
    ])
    .assert()
    .success();
    assert!(
        std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(),
        "the link stays a link"
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap().lines().count(),
        2,
        "its target holds the log"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn outputs_are_checked_before_any_game_is_played() {
    let started = std::time::Instant::now();
    common::othello([
        "match",
        "random",
        "random",
        "--games",
        "100000",
        "--log",
        "/no/such/dir/x.jsonl",
    ])
    .assert()
    .code(2)
    .stdout("")
    .stderr(predicates::str::contains("cannot write /no/such/dir/x.jsonl"));
    common::othello(["play", "--log", "/no/such/dir/g.json"])
        .write_stdin("d3\n")
        .assert()
        .code(2)
        .stdout("");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "nothing was played first"
    );
}

/// The resident memory of a process, in kB.
fn resident_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_match_of_four_billion_games_streams_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    let mut child = common::Running(
        common::othello_std()
            .args([
                "match",
                "random",
                "random",
                "--games",
                "4294967295",
                "--threads",
                "1",
                "--log",
            ])
            .arg(&log)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let early = resident_kb(child.id());
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let late = resident_kb(child.id());
    assert!(child.try_wait().unwrap().is_none(), "still playing, not aborted");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(late < 64 * 1024, "{late} kB resident");
    assert!(late < early + 8 * 1024, "memory grew from {early} kB to {late} kB");
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

/// The names in a folder that look like temporary files.
fn temporaries(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp") || name.starts_with(".othello"))
        .collect()
}

#[test]
fn a_match_stopped_even_by_sigkill_keeps_every_finished_game_in_its_log_and_record() {
    let dir = tempfile::tempdir().unwrap();
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGKILL] {
        let log = dir.path().join(format!("games-{signal}.jsonl"));
        let record = dir.path().join(format!("record-{signal}.txt"));
        std::fs::write(&record, "OLD\n").unwrap();
        let mut child = common::spawn(
            common::othello_std()
                .args([
                    "match",
                    "random",
                    "random",
                    "--games",
                    "4000000000",
                    "--threads",
                    "1",
                    "--log",
                ])
                .arg(&log)
                .arg("--record")
                .arg(&record)
                .stdout(std::process::Stdio::null()),
        );
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::fs::read_to_string(&log).map_or(0, |t| t.lines().count()) < 20 {
            assert!(
                std::time::Instant::now() < deadline,
                "signal {signal}: the log did not grow"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        unsafe { libc::kill(child.id() as i32, signal) };
        child.wait().unwrap();
        assert_eq!(temporaries(dir.path()), Vec::<String>::new(), "signal {signal}");
        let kept = std::fs::read_to_string(&log).unwrap();
        // Every line is a whole game; a line cut by the kill would fail the replay.
        let whole = kept.lines().count();
        assert!(whole >= 20, "signal {signal}: {whole} games kept");
        common::othello(["replay", log.to_str().unwrap()]).assert().success();
        let record = std::fs::read_to_string(&record).unwrap();
        assert!(record.starts_with("game 1: "), "signal {signal}: {record:.40}");
        assert!(record.lines().count() >= 20, "signal {signal}");
    }
}

#[test]
fn what_a_killed_run_left_behind_is_removed_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    // A pid above the kernel's limit (4194304) never runs: these were left by dead runs.
    let stale_cases = dir.path().join(".othello-cases-9999999-AbCdEf");
    std::fs::create_dir(&stale_cases).unwrap();
    std::fs::write(stale_cases.join("case-001.args"), "").unwrap();
    let stale_report = dir.path().join(".r.csv.9999999-AbCdEf.tmp");
    std::fs::write(&stale_report, "half").unwrap();
    common::othello(["cases", "--count", "2"])
        .arg(dir.path().join("cases"))
        .assert()
        .success();
    assert!(!stale_cases.exists(), "the half-written case set was removed");
    common::othello(["grade", "--csv"])
        .arg(dir.path().join("r.csv"))
        .arg(dir.path().join("cases"))
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin("othello"))
        .assert()
        .success();
    assert!(!stale_report.exists(), "the half-written report was removed");
    assert!(dir.path().join("r.csv").is_file());
}

#[test]
fn cases_that_cannot_be_written_leave_nothing_half_made() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    // Files may hold 4 kB at most: a whole game's transcript is longer, so a write fails midway.
    let script = format!(
        "trap '' XFSZ; ulimit -f 8; exec {} cases --count 200 {}",
        assert_cmd::cargo::cargo_bin("othello").display(),
        cases.display()
    );
    let output = std::process::Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!cases.exists(), "no case folder");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "and nothing beside it"
    );
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
fn the_engine_values_a_forced_move_instead_of_reporting_zero() {
    use othello::search::engine::{Budget, Engine};
    let mut rng = othello::rng::SeededRng::new(11);
    let mut found = 0;
    while found < 5 {
        let mut position = othello::Position::START;
        while !position.is_game_over() {
            position = position.after_forced_pass();
            if position.moves().count() == 1 && position.board.empty_count() > 24 {
                let choice = Engine::with_budget(Budget::Nodes(20_000)).choose(position.board);
                assert!(choice.nodes > 0 && choice.value.depth() >= Some(1), "{choice:?}");
                found += 1;
                break;
            }
            if position.is_game_over() {
                break;
            }
            position = position.play(rng.pick_square(position.moves()));
        }
    }
}

#[test]
fn a_node_budget_makes_the_engine_reproducible() {
    let games = |threads: &str| {
        let output = common::othello([
            "match",
            "engine:nodes=5000",
            "alphabeta:3",
            "--games",
            "4",
            "--openings",
            "4",
            "--threads",
            threads,
            "--json",
        ])
        .output()
        .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["reproducible"], true);
        (report["a_discs"].clone(), report["b_discs"].clone())
    };
    assert_eq!(games("1"), games("2"));
    common::othello(["match", "engine:nodes=0", "random"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("engine:nodes=N"));
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
fn regression_17_every_cpu_level_gives_the_same_answers() {
    // 16 empties, o to move (FFO #40 after a2 b1 c1 b6). The search is deterministic, so every
    // level must visit the same nodes and give the same line; levels the CPU lacks fall back.
    let board = "ooxxxxxxxoxxxxxxooxoxooxooxxooxxooxoooxx.x.oooox....o..x........";
    let answer = |level: &str| {
        let output = common::othello(["solve", board, "o", "--json"])
            .env("OTHELLO_CPU", level)
            .output()
            .unwrap();
        assert!(output.status.success(), "{level}");
        let mut json: Value = serde_json::from_slice(&output.stdout).unwrap();
        json.as_object_mut().unwrap().remove("seconds");
        json
    };
    let portable = answer("portable");
    assert_eq!(portable["finished"], true);
    for level in ["avx2", "avx512"] {
        assert_eq!(answer(level), portable, "{level}");
    }
    let perft = |level: &str| {
        let output = common::othello(["perft", "8", "--json"])
            .env("OTHELLO_CPU", level)
            .output()
            .unwrap();
        let mut json: Value = serde_json::from_slice(&output.stdout).unwrap();
        json.as_object_mut().unwrap().remove("seconds");
        json
    };
    let expected = perft("portable");
    assert_eq!(expected["leaves"], 390_216);
    for level in ["avx2", "avx512"] {
        assert_eq!(perft(level), expected, "{level}");
    }
}

#[test]
fn an_unknown_cpu_level_is_named_and_the_best_one_used() {
    common::othello(["perft", "3"])
        .env("OTHELLO_CPU", "sse9")
        .assert()
        .success()
        .stdout(predicates::str::contains("perft 3: 56 leaves"))
        .stderr(predicates::str::contains(
            "OTHELLO_CPU=sse9 is not one of portable, avx2, avx512",
        ));
    common::othello(["--version"])
        .env("OTHELLO_CPU", "portable")
        .assert()
        .success()
        .stdout(predicates::str::contains("searches run with portable instructions"));
}

#[test]
fn regression_11_engine_values_are_discs_and_say_their_kind() {
    // 16 empties: the engine's solver finishes within its nodes, and says so.
    let board = "ooxxxxxxxoxxxxxxooxoxooxooxxooxxooxoooxx.x.oooox....o..x........";
    let output = common::othello(["best", "--strategy", "engine:nodes=3000000", board, "o", "--json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (
            &json["score"],
            &json["exact"],
            &json["depth"],
            &json["value_kind"],
            &json["unit"]
        ),
        (
            &Value::from(-38),
            &Value::from(true),
            &Value::from(16),
            &Value::from("exact"),
            &Value::from("discs")
        )
    );
    common::othello(["best", "--strategy", "engine:nodes=3000000", board, "o"])
        .assert()
        .success()
        .stdout(predicates::str::contains(", loses by 38 (exact);"));
    // From the start: an estimate in discs, with the depth it reached.
    let output = common::othello(["best", "--strategy", "engine:nodes=100000", "--json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (&json["exact"], &json["value_kind"]),
        (&Value::from(false), &Value::from("estimate"))
    );
    assert!(json["depth"].as_u64().unwrap() >= 4, "{json}");
    assert!(json["score"].as_i64().unwrap().abs() <= 64, "{json}");
    // A seed strategy's score keeps its own unit.
    let output = common::othello(["best", "--strategy", "alphabeta:4:mobility", "--json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (&json["unit"], &json["depth"]),
        (&Value::from("mobility"), &Value::from(4))
    );
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
fn regression_12_an_unfinished_solve_stops_at_its_node_limit() {
    // The solver checked its limits only when its node count landed exactly on a multiple of
    // 4,096, which the small searches' counting mostly stepped over: a limit ran tens of thousands
    // of nodes late. FFO #40 needs 23.5 million nodes; stopped at 100,000 it must stop near there.
    use othello::search::endgame::Solver;
    let (black, white) = othello::notation::lab_board::parse(FFO_40).unwrap();
    let board = othello::Position::from_discs(black, white, othello::Color::Black).board;
    let mut solver = Solver::with_table_bits(16);
    solver.set_node_limit(Some(100_000));
    assert!(solver.solve(board).is_err());
    assert!(solver.nodes() < 100_000 + 4_096 + 64, "{} nodes", solver.nodes());
}

/// The othello binary's path, for commands that run it as the program graded.
fn othello_path() -> String {
    assert_cmd::cargo::cargo_bin("othello").display().to_string()
}

#[test]
fn an_output_that_is_an_input_or_another_output_is_refused_and_nothing_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    common::othello(["selfplay", &path("d.txt"), "--games", "4", "--player", "greedy"])
        .assert()
        .success();
    let data = std::fs::read(path("d.txt")).unwrap();
    std::os::unix::fs::symlink(path("d.txt"), path("link")).unwrap();
    for out in ["d.txt", "link"] {
        common::othello(["train", &path("d.txt"), "--out", &path(out)])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "bad argument --out {}: that file is the training data {}",
                path(out),
                path("d.txt")
            )));
    }
    assert_eq!(
        std::fs::read(path("d.txt")).unwrap(),
        data,
        "the training data is intact"
    );

    common::othello(["cases", &path("cases"), "--count", "2"])
        .assert()
        .success();
    let expected = std::fs::read(path("cases/case-001.out")).unwrap();
    common::othello([
        "grade",
        &path("cases"),
        "--json",
        &path("cases/case-001.out"),
        "--",
        &othello_path(),
    ])
    .assert()
    .code(2)
    .stderr(predicates::str::contains("that file is the case file"));
    assert_eq!(std::fs::read(path("cases/case-001.out")).unwrap(), expected);

    std::fs::write(path("X"), "OLD\n").unwrap();
    common::othello([
        "match",
        "greedy",
        "random",
        "--log",
        &path("X"),
        "--record",
        &path("./X"),
    ])
    .assert()
    .code(2)
    .stdout("")
    .stderr(predicates::str::contains("give each output its own file"));
    assert_eq!(std::fs::read_to_string(path("X")).unwrap(), "OLD\n");

    let player = path("player.py");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/players/quickmove_player.py"),
        &player,
    )
    .unwrap();
    let source = std::fs::read(&player).unwrap();
    common::othello(["lab4", &format!("quickmove:{player}"), "--games", "2", "--log", &player])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("that file is the player's file"));
    assert_eq!(
        std::fs::read(&player).unwrap(),
        source,
        "the student's program is intact"
    );
}

#[test]
fn endless_or_special_inputs_are_refused_before_a_byte_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let fifo = fifo.to_str().unwrap();
    let w = dir.path().join("w.bin");
    let w = w.to_str().unwrap();
    for args in [
        vec!["train", "/dev/zero", "--out", w],
        vec!["train", fifo, "--out", w],
        vec!["probcut", "/dev/zero"],
        vec!["selfplay", "/dev/full", "--games", "1"],
        vec!["selfplay", fifo, "--games", "1"],
        vec!["analyze", "/dev/zero"],
        vec!["replay", fifo],
        vec!["diff", "/dev/zero", "/dev/zero"],
        vec!["solve", "--obf", "/dev/zero"],
    ] {
        common::othello(&args)
            .timeout(std::time::Duration::from_secs(30))
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains("regular file"));
    }
    assert!(!std::path::Path::new(w).exists());

    // One endless line in an otherwise good file.
    let big = dir.path().join("big.txt");
    std::fs::write(&big, format!("# othello selfplay 1: x\n{}\n", "0".repeat(1 << 20))).unwrap();
    common::othello(["train", big.to_str().unwrap(), "--out", w])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("line 2: longer than 64 KiB"));
}

#[test]
fn a_case_folder_with_a_special_dangling_or_impossible_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    common::othello(["cases", cases.to_str().unwrap(), "--count", "2"])
        .assert()
        .success();
    let file = |name: &str| cases.join(name);
    let grade = || {
        let mut command = common::othello(["grade", cases.to_str().unwrap(), "--", &othello_path()]);
        command.timeout(std::time::Duration::from_secs(30));
        command
    };
    let out = std::fs::read(file("case-001.out")).unwrap();
    std::fs::remove_file(file("case-001.out")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", file("case-001.out")).unwrap();
    grade().assert().code(2).stderr(predicates::str::contains(
        "case-001.out: it is a device, not a regular file",
    ));
    std::fs::remove_file(file("case-001.out")).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(file("case-001.out"))
            .status()
            .unwrap()
            .success()
    );
    grade()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("case-001.out: it is a FIFO"));
    std::fs::remove_file(file("case-001.out")).unwrap();
    std::fs::write(file("case-001.out"), out).unwrap();

    std::os::unix::fs::symlink("nowhere.args", file("case-003.args")).unwrap();
    grade().assert().code(2).stderr(predicates::str::contains(
        "case-003.args: a link to a file that does not exist",
    ));
    std::fs::remove_file(file("case-003.args")).unwrap();

    for status in ["256", "-1"] {
        std::fs::write(file("case-001.status"), status).unwrap();
        grade().assert().code(2).stderr(predicates::str::contains(format!(
            "case-001.status: \"{status}\" is not an exit status"
        )));
    }
    std::fs::remove_file(file("case-001.status")).unwrap();

    let args = std::fs::read(file("case-002.args")).unwrap();
    std::fs::write(file("case-002.args"), b"a\0b\n").unwrap();
    grade()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("case-002.args: an argument holds a NUL byte"));
    let many: String = (0..200_000).map(|n| format!("{n}\n")).collect();
    std::fs::write(file("case-002.args"), many).unwrap();
    grade()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("case-002.args: 200000 arguments"));
    std::fs::write(file("case-002.args"), args).unwrap();
    grade().assert().success();
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
fn an_error_names_its_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let output = common::othello([
        "grade",
        dir.path().join("nowhere").to_str().unwrap(),
        "--",
        &othello_path(),
    ])
    .output()
    .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.matches("No such file or directory").count(), 1, "{stderr}");
    let cases = dir.path().join("cases");
    common::othello(["cases", cases.to_str().unwrap(), "--count", "1"])
        .assert()
        .success();
    std::fs::remove_file(cases.join("case-001.out")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", cases.join("case-001.out")).unwrap();
    let output = common::othello(["grade", cases.to_str().unwrap(), "--", &othello_path()])
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.matches("not a regular file").count(), 1, "{stderr}");
}

#[test]
fn a_test_child_dies_with_its_test_however_the_test_ends() {
    // A test that fails between spawning and killing its child: the thread ends by a panic.
    let started = std::thread::spawn(|| {
        let child = common::othello_std()
            .args(["match", "random", "random", "--games", "4000000000", "--threads", "1"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id() as libc::pid_t;
        std::mem::forget(child);
        std::panic::panic_any(pid);
    })
    .join();
    let pid = *started.unwrap_err().downcast::<libc::pid_t>().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let mut status = 0;
        // SAFETY: waitpid on our own child, with a valid pointer.
        if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid {
            assert!(libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL);
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the match outlived its test");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    // A guard that goes out of scope kills and reaps its child.
    let pid = {
        let running = common::spawn(
            common::othello_std()
                .args(["match", "random", "random", "--games", "4000000000"])
                .stdout(std::process::Stdio::null()),
        );
        running.id() as libc::pid_t
    };
    // SAFETY: kill with signal 0 only asks whether the process exists.
    assert_eq!(unsafe { libc::kill(pid, 0) }, -1, "reaped and gone");
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

#[test]
fn requests_that_could_never_finish_are_refused_with_the_range_that_can() {
    for (args, said) in [
        (
            vec!["perft", "30"],
            "bad argument DEPTH 30: 30 plies from a position with 60 empty squares would not end",
        ),
        (vec!["best", "--depth", "30"], "bad argument --depth 30: 30 plies"),
        (vec!["fullgame", "--depth", "30"], "bad argument --depth 30: 30 plies"),
        (
            vec!["--lab5", "--holes", "64"],
            "bad argument --holes 64: the position after the moves has 60 empty squares",
        ),
        (
            vec!["--lab5", "HL64", "f5"],
            "the position after the moves has 59 empty squares",
        ),
        (
            vec!["solve", "--time-limit", "86400"],
            "the position has 60 empty squares: no time limit would see an exact solve end",
        ),
    ] {
        common::othello(&args)
            .timeout(std::time::Duration::from_secs(30))
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains(said));
    }
    // Deep requests that end are still answered: the limit counts only plies the position has.
    let near_end = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxoooooooooooooooooooo....";
    common::othello(["perft", "30", near_end, "x"]).assert().success();
    common::othello(["best", "--depth", "30", near_end, "x"])
        .assert()
        .success();
    common::othello(["--lab5", "--holes", "64", near_end, "x"])
        .assert()
        .success()
        .stdout(predicates::str::contains("Min score: "));
}

#[test]
fn a_shrinkage_that_would_write_nan_weights_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.txt");
    let out = dir.path().join("w.bin");
    common::othello(["selfplay", data.to_str().unwrap(), "--games", "2", "--player", "greedy"])
        .assert()
        .success();
    for value in ["NaN", "-1", "inf", "1e30"] {
        common::othello([
            "train",
            data.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--shrinkage",
            value,
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!("\"{value}\" is not a shrinkage")));
    }
    assert!(!out.exists(), "no weights written");
}

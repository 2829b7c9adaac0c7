//! Matches through the binary: the seeds' claims about strategies, reproducibility across thread
//! counts, and match logs that replay.

use crate::common;

use serde_json::Value;

fn match_json(args: &[&str]) -> Value {
    let output = common::othello(["match"])
        .args(args)
        .arg("--json")
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

fn share_of_points(report: &Value) -> f64 {
    report["points"].as_f64().unwrap() / report["games"].as_f64().unwrap()
}

// Seed 001's first test: a deeper CornersBot beats a shallower one, here over 50 random 8-move
// openings played with both colours.
#[test]
fn corners_at_depth_2_beats_corners_at_depth_1() {
    let report = match_json(&[
        "alphabeta:2:corners",
        "alphabeta:1:corners",
        "--games",
        "100",
        "--openings",
        "8",
    ]);
    assert_eq!(report["games"], 100);
    assert!(share_of_points(&report) > 0.5, "{report}");
}

// Seed 001's second test: CornersBot beats GreedyBot (disc difference) at depth 4.
#[test]
fn corners_beats_discs_at_depth_4() {
    let report = match_json(&[
        "alphabeta:4:corners",
        "alphabeta:4:discs",
        "--games",
        "100",
        "--openings",
        "8",
    ]);
    assert!(share_of_points(&report) > 0.5, "{report}");
}

// Over 2,000 games (seed 7) the rate is about 93-94%; the default seed's first 100 games give 97.
#[test]
fn weighted_alphabeta_at_depth_4_beats_random() {
    let report = match_json(&["alphabeta:4:weights", "random", "--games", "100", "--seed", "1"]);
    assert!(report["wins"].as_u64().unwrap() >= 95, "{report}");
    assert_eq!(report["a"]["strategy"], "alphabeta:4:weights");
    assert!(report["a"]["nodes_per_move"].as_f64().unwrap() > 1.0);
    assert!(report["disc_share"].as_f64().unwrap() > 0.5);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut outcomes = Vec::new();
    for threads in ["1", "2", "3"] {
        let log = dir.path().join(format!("match-{threads}.jsonl"));
        let args = [
            "random",
            "greedy",
            "--games",
            "12",
            "--openings",
            "4",
            "--seed",
            "9",
            "--threads",
            threads,
        ];
        let report = match_json(&[&args[..], &["--log", log.to_str().unwrap()]].concat());
        let games: Vec<Value> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).expect("each line is one complete game"))
            .collect();
        let score = ["wins", "draws", "losses", "a_discs", "b_discs"].map(|key| report[key].clone());
        outcomes.push((score, squares_only(&games)));
    }
    assert_eq!(outcomes[0], outcomes[1]);
    assert_eq!(outcomes[0], outcomes[2]);
}

/// The squares of every game in order: what must not change with the thread count (times may).
fn squares_only(games: &[Value]) -> Vec<Vec<Value>> {
    games
        .iter()
        .map(|game| {
            game["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["square"].clone())
                .collect()
        })
        .collect()
}

#[test]
fn a_match_log_replays_and_openings_are_shared_by_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("match.jsonl");
    let log_arg = log.to_str().unwrap();
    match_json(&[
        "greedy",
        "weighted",
        "--games",
        "4",
        "--openings",
        "6",
        "--seed",
        "5",
        "--log",
        log_arg,
    ]);
    let games: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(games.len(), 4);
    let opening = |game: &Value| squares_only(std::slice::from_ref(game))[0][..6].to_vec();
    assert_eq!(
        opening(&games[0]),
        opening(&games[1]),
        "both colours play the same opening"
    );
    assert_ne!(
        opening(&games[0]),
        opening(&games[2]),
        "the next pair has its own opening"
    );
    assert_eq!(
        (games[0]["black"].as_str(), games[1]["black"].as_str()),
        (Some("greedy"), Some("weighted"))
    );
    let replay = common::othello(["replay", log_arg]).output().unwrap();
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    assert_eq!(
        String::from_utf8_lossy(&replay.stdout)
            .lines()
            .filter(|l| l.ends_with("all legal"))
            .count(),
        4
    );
}

#[test]
fn unknown_strategies_are_bad_arguments() {
    common::othello(["match", "alphabeta:4:pieces", "random"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("unknown strategy \"alphabeta:4:pieces\""));
}

/// Issue 12: `match --record` writes a line for each game as it finishes, with a transcript
/// that plays back to the discs it gives, then the report that stdout shows.
#[test]
fn match_records_hold_a_line_per_game_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("match.txt");
    let output = common::othello([
        "match",
        "greedy",
        "random",
        "--games",
        "3",
        "--record",
        file.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(output.status.success());
    let kept = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = kept.lines().collect();
    for (k, line) in lines[..3].iter().enumerate() {
        assert!(line.starts_with(&format!("game {}: ", k + 1)), "{line}");
        let (head, moves) = line.rsplit_once("; ").unwrap();
        let game = othello_core::notation::transcript::play(othello_core::Position::START, moves).unwrap();
        let (black, white) = game.position().counts();
        assert!(head.contains(&format!(" {black}-{white} ")), "{line}");
        assert!(game.is_over());
    }
    assert_eq!(
        kept[kept.find("greedy vs random").unwrap()..],
        *String::from_utf8_lossy(&output.stdout)
    );
}

/// `--record` was called `--transcript` (a word that means a move list everywhere else): scripts
/// that still say `--transcript` get the same file.
#[test]
fn the_old_transcript_option_still_records() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.txt"), dir.path().join("new.txt"));
    for (option, file) in [("--transcript", &old), ("--record", &new)] {
        common::othello([
            "match",
            "greedy",
            "weighted",
            "--games",
            "2",
            option,
            file.to_str().unwrap(),
        ])
        .assert()
        .success();
    }
    let (old, new) = (
        std::fs::read_to_string(old).unwrap(),
        std::fs::read_to_string(new).unwrap(),
    );
    let games = |text: &str| text.lines().take(2).map(str::to_string).collect::<Vec<_>>();
    assert!(old.starts_with("game 1: "), "{old}");
    assert_eq!(games(&old), games(&new));
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
        // A match the signal did not stop would fill the disk: it gets 30 s, then SIGKILL.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("signal {signal}: the match played on");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
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

#[test]
fn a_match_plays_the_openings_of_a_file_in_order_each_with_both_colours() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("openings.txt");
    std::fs::write(
        &openings,
        "# judged even\nf5d6c3d3c4 +0\n\nf5f6e6f4 -1  # a comment\nc4e3f6e6f5\n",
    )
    .unwrap();
    let file = dir.path().join("match.txt");
    let output = common::othello([
        "match",
        "greedy",
        "random",
        "--games",
        "4",
        "--opening-file",
        openings.to_str().unwrap(),
        "--skip",
        "1",
        "--record",
        file.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("4 games (seed 1) from openings 2-3 of {}", openings.display())),
        "{stdout}"
    );
    let kept = std::fs::read_to_string(&file).unwrap();
    let games: Vec<&str> = kept.lines().take(4).collect();
    for (line, opening) in games.iter().zip(["f5f6e6f4", "f5f6e6f4", "c4e3f6e6f5", "c4e3f6e6f5"]) {
        let (_, moves) = line.rsplit_once("; ").unwrap();
        assert!(moves.starts_with(opening), "{line} should start with {opening}");
    }
    // greedy is black in the first game of a pair, white in the second.
    assert!(games[0].contains("greedy (black)") && games[1].contains("greedy (white)"));
    let report = match_json(&[
        "greedy",
        "random",
        "--games",
        "3",
        "--opening-file",
        openings.to_str().unwrap(),
    ]);
    assert_eq!(report["openings"], 0);
    assert_eq!(report["opening_file"]["skip"], 0);
    assert_eq!(report["opening_file"]["count"], 2);
}

#[test]
fn a_bad_opening_file_is_refused_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("match.txt");
    let refused = |text: &str, games: &str| {
        let openings = dir.path().join("openings.txt");
        std::fs::write(&openings, text).unwrap();
        let output = common::othello([
            "match",
            "greedy",
            "random",
            "--games",
            games,
            "--opening-file",
            openings.to_str().unwrap(),
            "--record",
            record.to_str().unwrap(),
        ])
        .output()
        .unwrap();
        assert_eq!(output.status.code(), Some(2));
        assert!(output.stdout.is_empty());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let illegal = refused("f5d6\nf5f5\n", "4");
    assert!(
        illegal.contains("openings.txt, line 2: move 2, f5, is illegal"),
        "{illegal}"
    );
    let long = refused(&format!("{}\n", "f5".repeat(3000)), "2");
    assert!(long.contains("openings.txt, line 1: longer than 4096 bytes"), "{long}");
    let short = refused("f5d6\n", "3");

    assert!(
        short.contains("has 1 openings after the 0 skipped, expected at least 2"),
        "{short}"
    );
    let missing = common::othello(["match", "greedy", "random", "--opening-file", "no-such-file.txt"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read the opening file no-such-file.txt"));
    assert!(!record.exists(), "no game was played");
}

/// `match alphabeta:3 greedy --games 10` played 2 distinct games five times each, silently: two
/// players that would play one game over and over start from the built-in balanced openings
/// unless `--openings` says otherwise, and the summary says how many games were distinct.
#[test]
fn two_deterministic_players_draw_their_openings_and_distinct_games_are_counted() {
    let text = |args: &[&str]| {
        let output = common::othello(["match"]).args(args).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let drawn = text(&["alphabeta:3", "greedy", "--games", "10"]);
    assert!(
        drawn.contains("10 games (seed 1) from openings 1-5 of the built-in balanced openings"),
        "{drawn}"
    );
    assert!(drawn.contains("; 10 distinct games of 10\n"), "{drawn}");
    let report = match_json(&["alphabeta:3", "greedy", "--games", "10"]);
    assert_eq!(report["opening_file"]["count"], 5, "{report}");
    assert_eq!(
        (&report["distinct_games"], &report["distinct_at_least"]),
        (&10.into(), &false.into())
    );
    // Told otherwise: from the start, and the repeats are said.
    let start = text(&["alphabeta:3", "greedy", "--games", "10", "--openings", "0"]);
    assert!(start.contains("from the start position"), "{start}");
    assert!(start.contains("; 2 distinct games of 10\n"), "{start}");
    // A random player makes every game its own: from the start, as before.
    let random = text(&["random", "greedy", "--games", "10"]);
    assert!(
        random.contains("from the start position") && random.contains("; 10 distinct games of 10\n"),
        "{random}"
    );
    // More games than the openings give twice: again from the first, and the count shows it.
    let again = text(&["greedy", "weighted", "--games", "300"]);
    assert!(again.contains("again from the first once all were played"), "{again}");
    assert!(again.contains("; 256 distinct games of 300\n"), "{again}");
}

//! The match scripts of scripts/ driven as a tester runs them: openings judged near even by
//! balanced-openings.py, and engine-match.py playing the openings of such a file.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script(name: &str) -> Command {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join(name);
    let mut command = common::dies_with_test(Command::new("python3"));
    command.arg(path);
    command
}

fn balanced(out: &Path, count: u32, nodes: u32) -> Output {
    script("balanced-openings.py")
        .arg(out)
        .args([
            "--count",
            &count.to_string(),
            "--within",
            "2",
            "--nodes",
            &nodes.to_string(),
        ])
        .args(["--othello", &common::othello_path()])
        .output()
        .expect("python3 runs")
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn quick_engine() -> String {
    format!("gtp={} gtp --move-time 0.01 --threads 1", common::othello_path())
}

fn engine_match(openings: &Path, skip: u32, games: u32, record: &PathBuf) -> Output {
    script("engine-match.py")
        .args(["--games", &games.to_string(), "--skip", &skip.to_string()])
        .arg("--opening-file")
        .arg(openings)
        .arg("--record")
        .arg(record)
        .args([quick_engine(), quick_engine()])
        .output()
        .expect("python3 runs")
}

#[test]
fn balanced_openings_are_near_even_and_a_second_run_goes_on_after_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("openings.txt");
    let first = balanced(&out, 2, 20_000);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let kept = lines(&out);
    assert_eq!(
        kept[0],
        "# balanced openings: plies=8 within=2 judge=engine:nodes=20000 seed=1"
    );
    assert_eq!(kept.len(), 3, "{kept:?}");
    let mut last_pair = -1;
    for line in &kept[1..] {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields[0].len(), 16, "{line}");
        assert!(fields[1].parse::<i32>().unwrap().abs() <= 2, "{line}");
        let pair: i64 = fields[3].parse().unwrap();
        assert!(pair > last_pair, "{line}");
        last_pair = pair;
    }
    let second = balanced(&out, 3, 20_000);
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stderr));
    let more = lines(&out);
    assert_eq!(more.len(), 4);
    assert_eq!(more[..3], kept[..]);
    // Other settings would mix two sets in one file: refused, the file as it was.
    let other = balanced(&out, 4, 30_000);
    assert_eq!(other.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&other.stderr).contains("other settings"));
    assert_eq!(lines(&out), more);
}

#[test]
fn engine_match_plays_each_opening_of_the_file_with_both_colours_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("openings.txt");
    std::fs::write(
        &openings,
        "# three openings\nf5d6c3d3c4f4\nf5f6e6f4  # a comment\n\nc4e3f6e6f5\n",
    )
    .unwrap();
    let record = dir.path().join("record.txt");
    let output = engine_match(&openings, 1, 4, &record);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("4 games from openings 2-3 of {}", openings.display())),
        "{stdout}"
    );
    let games = lines(&record);
    assert_eq!(games.len(), 4);
    for (game, opening) in games.iter().zip(["f5f6e6f4", "f5f6e6f4", "c4e3f6e6f5", "c4e3f6e6f5"]) {
        let moves = game.split_whitespace().nth(3).unwrap();
        assert!(moves.starts_with(opening), "{game} should start with {opening}");
        assert!(moves.len() > 100, "a whole game: {game}");
    }
    assert!(games[0].contains("A=black") && games[1].contains("A=white"));
}

#[test]
fn engine_match_refuses_a_bad_opening_file_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.txt");
    let illegal = dir.path().join("illegal.txt");
    std::fs::write(&illegal, "f5d6c3\nf5f5\n").unwrap();
    let output = engine_match(&illegal, 0, 2, &record);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("illegal.txt:2: f5 (move 2) is illegal"), "{stderr}");
    let short = dir.path().join("short.txt");
    std::fs::write(&short, "f5d6c3\n").unwrap();
    let output = engine_match(&short, 0, 4, &record);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("has 1 openings after --skip 0, expected at least 2 for 4 games"),
        "{stderr}"
    );
    assert!(!record.exists(), "nothing recorded");
}

#[test]
fn regression_engine_match_reads_an_opening_file_a_bounded_line_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.txt");
    let endless = dir.path().join("endless.txt");
    std::fs::write(&endless, format!("f5d6c3\n{}", "f5d6".repeat(1_000_000))).unwrap();
    let output = engine_match(&endless, 0, 2, &record);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("endless.txt:2: a line of more than 4096 characters"),
        "{stderr}"
    );
    assert!(!record.exists(), "nothing recorded");
}

#[test]
fn engine_match_puts_both_players_on_a_clock_and_reports_what_each_used() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("openings.txt");
    std::fs::write(&openings, "f5d6c3d3c4f4\n").unwrap();
    let timed = format!("gtp={} gtp --threads 1", common::othello_path());
    let output = script("engine-match.py")
        .args(["--games", "1", "--clock", "2", "--clock-b", "2", "--opening-file"])
        .arg(&openings)
        .args([&timed, &timed])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("on a 2 s clock\nB: gtp=")
            && stdout.contains("s of wall time a move; the longest ")
            && stdout.ends_with(" s of wall time\n"),
        "{stdout}"
    );
    let game = stdout
        .lines()
        .find(|line| line.starts_with("game 1:"))
        .expect("a game line");
    // Each side's clock, as the referee measured it: spent, and within the 2 s unless lost on time.
    for side in ["A's clock used ", "B's clock used "] {
        let used: f64 = game
            .split(side)
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .unwrap()
            .parse()
            .unwrap();
        assert!(used > 0.5 && (used <= 2.0 || game.contains("LOST ON TIME")), "{game}");
    }
    assert!(stdout.contains("lost on time, B "), "{stdout}");
}

//! What every command keeps to: one short error line naming the bad value and the range, help and
//! version anywhere, singular counts of one, the same default side, and requests that could never
//! finish refused up front.

use crate::common;
use predicates::prelude::*;
use serde_json::Value;
use std::path::Path;

#[test]
fn perft_picks_the_default_side_by_the_same_rule_as_every_command() {
    let board = common::blocked_board();
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
fn counts_of_one_are_singular() {
    common::othello(["perft", "1", &common::blocked_board(), "o"])
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
fn an_error_names_its_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let output = common::othello([
        "grade",
        dir.path().join("nowhere").to_str().unwrap(),
        "--",
        &common::othello_path(),
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
    let output = common::othello(["grade", cases.to_str().unwrap(), "--", &common::othello_path()])
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.matches("not a regular file").count(), 1, "{stderr}");
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

/// How many colour codes `othello play` (two computers) prints, its stdout a pipe or, with
/// `terminal`, a pseudo-terminal; `env` added to its environment.
fn colour_codes(args: &[&str], env: &[(&str, &str)], terminal: bool) -> usize {
    let binary = assert_cmd::cargo::cargo_bin("othello");
    let mut command = if terminal {
        let mut command = common::dies_with_test(std::process::Command::new("python3"));
        command
            .args(["-c", "import pty, sys; pty.spawn(sys.argv[1:])"])
            .arg(&binary);
        command
    } else {
        common::dies_with_test(std::process::Command::new(&binary))
    };
    command
        .args(["play", "--black", "random", "--white", "random"])
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CI")
        .env("TERM", "xterm")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null());
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    output.stdout.iter().filter(|&&byte| byte == 0x1b).count()
}

#[test]
fn colour_follows_the_terminal_no_color_clicolor_term_and_the_color_option() {
    assert!(colour_codes(&[], &[], true) > 0, "a terminal gets colour");
    assert_eq!(colour_codes(&[], &[], false), 0, "a pipe does not");
    assert_eq!(colour_codes(&[], &[("NO_COLOR", "1")], true), 0, "NO_COLOR");
    assert!(
        colour_codes(&[], &[("NO_COLOR", "")], true) > 0,
        "an empty NO_COLOR is unset"
    );
    assert_eq!(colour_codes(&[], &[("TERM", "dumb")], true), 0, "a dumb terminal");
    // CLICOLOR and CLICOLOR_FORCE (bixense.com/clicolors), read as anstream reads them.
    assert!(
        colour_codes(&[], &[("CLICOLOR_FORCE", "1")], false) > 0,
        "CLICOLOR_FORCE colours a pipe"
    );
    assert_eq!(colour_codes(&[], &[("CLICOLOR", "0")], true), 0, "CLICOLOR=0");
    assert_eq!(colour_codes(&["--color", "never"], &[], true), 0, "--color never");
    assert!(
        colour_codes(&["--color", "always"], &[("NO_COLOR", "1")], false) > 0,
        "--color always"
    );
}

/// A progress bar wider than the terminal wraps; each redraw and the last clearing take all of its
/// rows, so that the report ends on a clean screen (a narrow terminal once kept a row of every bar).
#[test]
fn a_progress_bar_wider_than_the_terminal_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 6, 3);
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/lab_reference.py");
    let (rows, cols) = (60, 40);
    let output = common::dies_with_test(std::process::Command::new("python3"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/pty_run.py"))
        .args([rows.to_string(), cols.to_string()])
        .arg(assert_cmd::cargo::cargo_bin("othello"))
        .arg("grade")
        .arg(&cases)
        // Slow enough for the bar to be drawn between cases.
        .args(["--", "sh", "-c", "sleep 0.3; exec python3 \"$0\" \"$@\""])
        .arg(&reference)
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
    let written = String::from_utf8_lossy(&output.stdout);
    assert!(
        written.contains("] 3/6 cases, "),
        "the bar was never drawn: {written:?}"
    );
    let mut terminal = vt100::Parser::new(rows, cols, 0);
    terminal.process(&output.stdout);
    let screen = terminal.screen().contents();
    assert!(screen.contains("tolerant 6/6;"), "{screen}");
    assert!(
        !screen.contains("[#") && !screen.contains("[.") && !screen.contains(" cases, "),
        "a bar left on the screen:\n{screen}"
    );
}

#[test]
fn a_mistyped_command_gets_the_command_it_is_close_to() {
    common::othello(["analyse", "f5d6"]).assert().code(2).stdout("").stderr(
        "othello: unknown command \"analyse\": did you mean `othello analyze`? (othello --help lists the commands)\n",
    );
    common::othello(["grde", "cases"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("did you mean `othello grade`?"));
    // Lab arguments are never words: they keep the lab mode's own message.
    common::othello(["19", "zz"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("bad argument \"zz\""));
}

#[test]
fn the_root_help_lists_every_command_under_its_users() {
    let output = common::othello(["--help"]).output().unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    let position = |text: &str| help.find(text).unwrap_or_else(|| panic!("no {text:?} in:\n{help}"));
    assert!(position("For teachers:") < position("  grade "));
    assert!(position("  grade ") < position("For players:"));
    assert!(position("For players:") < position("  play "));
    assert!(position("For the engine:") < position("  solve "));
    assert!(position("  solve ") < position("Lab mode"));
}

#[test]
fn completions_and_the_manual_page_come_from_the_same_definitions() {
    let output = common::othello(["completions", "bash"]).output().unwrap();
    assert!(output.status.success());
    let script = String::from_utf8(output.stdout).unwrap();
    for command in ["grade", "lab4", "analyze", "solve", "completions"] {
        assert!(script.contains(command), "bash completions without {command}");
    }
    // The script is one bash can read.
    let mut check = common::dies_with_test(std::process::Command::new("bash"));
    let checked = check.args(["-n", "-c", &script]).status().unwrap();
    assert!(checked.success());
    common::othello(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("tcsh"));

    let page = common::othello(["man"]).output().unwrap();
    let page = String::from_utf8(page.stdout).unwrap();
    assert!(page.starts_with(".ie") || page.contains(".TH othello 1"), "{page:.200}");
    assert!(
        page.contains("othello\\-grade(1)"),
        "the main page names the commands' pages"
    );
    let grade = common::othello(["man", "grade"]).output().unwrap();
    let grade = String::from_utf8(grade.stdout).unwrap();
    assert!(grade.contains(".TH othello-grade 1"), "{grade:.300}");
    assert!(grade.contains("\\-\\-judge"));
    common::othello(["man", "bogus"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("\"bogus\""));
}

/// FFO #40 as its OBF line gives it, and as the lab writes the same board.
const FFO_40_OBF: &str = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X; A2:+38; C7:+36;";
const FFO_40_LAB: &str = "o..oooox.ooooooxooxxoooxooxoooxxooooooxx...oooox....o..x........";

#[test]
fn obf_boards_are_read_wherever_a_board_is_but_in_the_lab_mode() {
    let obf_board = &FFO_40_OBF[..64];
    let same = |args_obf: &[&str], args_lab: &[&str]| {
        let obf = common::othello(args_obf).output().unwrap();
        let lab = common::othello(args_lab).output().unwrap();
        assert!(
            lab.status.success(),
            "{args_lab:?}: {}",
            String::from_utf8_lossy(&lab.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&obf.stderr),
            String::from_utf8_lossy(&lab.stderr),
            "{args_obf:?}"
        );
        let text = |bytes: &[u8]| {
            // Times differ from run to run; the rest must not.
            String::from_utf8_lossy(bytes)
                .lines()
                .filter(|line| !line.contains(" s (") && !line.contains(" s,") && !line.contains(" ms"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(text(&obf.stdout), text(&lab.stdout), "{args_obf:?}");
    };
    same(&["solve", FFO_40_OBF], &["solve", FFO_40_LAB, "x"]);
    same(&["solve", obf_board, "X"], &["solve", FFO_40_LAB, "x"]);
    same(
        &["best", "--depth", "3", obf_board, "O"],
        &["best", "--depth", "3", FFO_40_LAB, "o"],
    );
    same(&["perft", "3", obf_board, "X"], &["perft", "3", FFO_40_LAB, "x"]);
    same(
        &["analyze", FFO_40_OBF, "--exact-empties", "20"],
        &["analyze", FFO_40_LAB, "x", "--exact-empties", "20"],
    );
    same(
        &["fullgame", "--depth", "2", obf_board, "X"],
        &["fullgame", "--depth", "2", FFO_40_LAB, "x"],
    );
    same(
        &["play", "--black", "random", "--white", "greedy", obf_board, "X"],
        &["play", "--black", "random", "--white", "greedy", FFO_40_LAB, "x"],
    );
    // A side twice, a board one short: named, exit 2.
    common::othello(["solve", FFO_40_OBF, "o"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("already names the side"));
    common::othello(["solve", &FFO_40_OBF[..63], "X"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("this one has 63"));
    // The lab mode keeps its contract: `-` is not one of its characters.
    common::othello([obf_board, "x"]).assert().code(2).stdout("");
}

/// What `othello ARGS` shows on a pseudo-terminal (stdout and stderr together), or on stderr when
/// piped.
fn shown(args: &[&str], terminal: bool) -> String {
    let binary = assert_cmd::cargo::cargo_bin("othello");
    let output = if terminal {
        common::dies_with_test(std::process::Command::new("python3"))
            .args(["-c", "import pty, sys; pty.spawn(sys.argv[1:])"])
            .arg(&binary)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    } else {
        common::dies_with_test(std::process::Command::new(&binary))
            .args(args)
            .output()
            .unwrap()
    };
    String::from_utf8_lossy(if terminal { &output.stdout } else { &output.stderr }).into_owned()
}

#[test]
fn progress_shows_on_a_terminal_and_never_in_a_pipe_or_with_quiet() {
    let matched = ["match", "random", "greedy", "--games", "300"];
    assert!(
        shown(&matched, true).contains("300/300 games, "),
        "a bar with the count and the time"
    );
    assert_eq!(shown(&matched, false), "", "nothing on a piped stderr");
    let quiet = ["match", "random", "greedy", "--games", "300", "--quiet"];
    assert!(!shown(&quiet, true).contains("games, "));
    assert!(!shown(&["-q", "match", "random", "greedy", "--games", "30"], true).contains("games, "));
    // A solve shows each test narrowing the score.
    let solve = [
        "solve",
        "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X",
    ];
    let terminal = shown(&solve, true);
    assert!(terminal.contains("#1: score +"), "{terminal}");
    assert!(terminal.contains(" nodes, "), "{terminal}");
    assert_eq!(shown(&solve, false), "");
    // perft counts its subtrees; the count is the same either way.
    let terminal = shown(&["perft", "8"], true);
    assert!(terminal.contains(" subtrees, "), "{terminal}");
    assert!(terminal.contains("perft 8: 390216 leaves"), "{terminal}");
    // A deep search whose end cannot be estimated says what runs and for how long, after a second.
    let clock = std::time::Instant::now();
    let terminal = shown(&["best", "--depth", "16"], true);
    if clock.elapsed() > std::time::Duration::from_millis(1500) {
        assert!(terminal.contains("searching 16 plies: 1."), "{terminal}");
    }
    assert_eq!(shown(&["best", "--depth", "16"], false), "");
    // Whole-game analysis as JSON has a bar too.
    assert!(shown(&["analyze", "f5d6c3d3c4f4", "--depth", "2", "--json"], true).contains("6/6 moves"));
}

/// A GGF game record stands for the position where it ends, wherever a board is taken.
#[test]
fn a_ggf_game_stands_for_its_last_position() {
    let ggf = "(;GM[Othello]PC[test]PB[a]PW[b]TY[8]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[F5]W[D6]B[C3]W[D3]B[C4];)";
    let best = |args: &[&str]| {
        let output = common::othello(["best", "--depth", "3"]).args(args).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let text = String::from_utf8(output.stdout).unwrap();
        text.split(';').next().unwrap().to_string()
    };
    assert_eq!(best(&[ggf]), best(&["--moves", "f5d6c3d3c4"]));
    common::othello(["solve", ggf, "x"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("already says whose turn"));
}

/// The output rule of docs/outputs.md: `-j` in every command that runs things at once, `--json`
/// alone to stdout in grade as elsewhere.
#[test]
fn short_options_and_json_alone_work_the_same_everywhere() {
    for command in ["match", "tournament", "lab4", "selfplay", "probcut", "grade"] {
        let help = common::othello([command, "--help"]).output().unwrap();
        let help = String::from_utf8(help.stdout).unwrap();
        assert!(help.contains("  -j, --"), "{command} has -j");
        assert!(help.contains("  -q, --quiet"), "{command} has -q");
    }
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 1, 5);
    let output = common::othello(["grade", cases.to_str().unwrap(), "-j", "1", "--json", "--"])
        .arg(assert_cmd::cargo::cargo_bin("othello"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout
            .lines()
            .all(|line| line.starts_with("{\"format\":\"othello-grade\"")),
        "{stdout}"
    );
}

/// The root help lists `--color` and `-q` above the lab mode's usage, but `othello --color never
/// 19` said "unknown option" and `othello -q 19` "expected a board": the lab mode takes them (its
/// output is the same), refuses the options that would choose its moves by name, names an OBF
/// board as one, and takes `--` as the end of options; the root `-h` is a summary.
#[test]
fn the_lab_mode_takes_the_root_options_its_help_lists() {
    let run = |args: &[&str]| {
        let output = common::othello(args).output().unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (status, plain, _) = run(&["19", "34"]);
    assert_eq!(status, Some(0));
    for args in [
        &["--color", "never", "19", "34"][..],
        &["--color=always", "19", "34"],
        &["-q", "19", "--quiet", "34"],
        &["--", "19", "34"],
        &["-q", "--", "19", "34"],
    ] {
        assert_eq!(run(args), (Some(0), plain.clone(), String::new()), "{args:?}");
    }
    let board = "---------------------------OX------XO--------------------------- X;";
    for (args, message) in [
        (
            &["--color", "sometimes", "19"][..],
            "othello: bad argument --color \"sometimes\": expected auto, always or never\n",
        ),
        (
            &["--weights", "w.bin", "19"],
            "othello: bad argument \"--weights\": the lab mode prints what the course's labs ask, with no evaluation or book to choose; give --weights to a command that plays (othello play, match, ...)\n",
        ),
        (
            &["--", "--lab4", "19"],
            "othello: bad argument \"--lab4\": after `--` come a board, a token and moves only (an option goes before `--`)\n",
        ),
        (
            &[board],
            "othello: bad argument \"---------------------------OX------XO--------------------------- X;\": an OBF board (X, O and -, as Edax writes it): the lab mode takes the course's 64-character boards (xXoO.); othello solve and othello analyze read OBF\n",
        ),
    ] {
        assert_eq!(run(args), (Some(2), String::new(), message.to_string()), "{args:?}");
    }
    // An OBF board after `--` is a board, not an option.
    assert!(run(&["--", board]).2.contains("an OBF board"));
    let (_, short, _) = run(&["-h"]);
    let (_, long, _) = run(&["--help"]);
    assert!(short.contains("Print help (see more with '--help')"), "{short}");
    assert!(long.contains("Print help (see a summary with '-h')"), "{long}");
    assert!(short.lines().count() < long.lines().count());
}

/// Only the first line of clap's message was kept, and with it went its tip: `--game` now gets
/// "a similar argument exists: '--games'", on the same one line.
#[test]
fn a_mistyped_option_keeps_the_tip_of_the_one_meant() {
    for (args, expected) in [
        (
            &["match", "greedy", "random", "--game", "3"][..],
            "othello: unexpected argument '--game' found; a similar argument exists: '--games'\n",
        ),
        (
            &["tournament", "--swis", "3", "greedy", "random"],
            "othello: unexpected argument '--swis' found; a similar argument exists: '--swiss'\n",
        ),
    ] {
        let output = common::othello(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&output.stderr), expected);
    }
}

/// The man page's EXTRA section (the command lists and examples) ran together into one paragraph
/// under `man -l`, and its VERSION named the build machine's CPU: the section is kept as laid out
/// (no-fill, no line read as a roff request), and the version is the version alone.
#[test]
fn the_manual_page_keeps_its_lists_as_laid_out_and_names_no_cpu() {
    for args in [&["man"][..], &["man", "grade"]] {
        let page = String::from_utf8(common::othello(args).output().unwrap().stdout).unwrap();
        let extra = page
            .split_once(".SH EXTRA\n")
            .unwrap_or_else(|| panic!("{args:?}: no EXTRA section"))
            .1;
        let (kept, after) = extra
            .strip_prefix(".nf\n")
            .and_then(|extra| extra.split_once(".fi\n"))
            .unwrap_or_else(|| panic!("{args:?}: EXTRA is not kept as laid out: {extra:.300}"));
        assert!(kept.lines().all(|line| !line.starts_with(['.', '\''])), "{kept}");
        assert_eq!(
            after,
            format!(".SH VERSION\nv{}\n", env!("CARGO_PKG_VERSION")),
            "{args:?}"
        );
    }
    let page = String::from_utf8(common::othello(["man"]).output().unwrap().stdout).unwrap();
    assert!(
        page.contains("\n  grade        Run a program, or a whole class,"),
        "{page}"
    );
    assert!(!page.contains("avx") && !page.contains("CPU supports"), "{page}");
}

/// The README's completions line failed on a fresh account (no such folder): its install lines for
/// completions and the man page run as written, in an empty home.
#[test]
fn the_readme_install_lines_work_in_a_fresh_home() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let lines: Vec<&str> = readme
        .lines()
        .filter(|line| {
            line.starts_with("mkdir -p ~/")
                || line.starts_with("othello completions")
                || line.starts_with("othello man >")
        })
        .map(|line| line.split("  #").next().unwrap().trim())
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    let home = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("othello");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = common::dies_with_test(std::process::Command::new("sh"))
        .args(["-euc", &lines.join("\n")])
        .env("HOME", home.path())
        .env("PATH", path)
        .current_dir(home.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{lines:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let script = std::fs::read_to_string(home.path().join(".local/share/bash-completion/completions/othello")).unwrap();
    assert!(script.contains("othello"));
    assert!(
        std::fs::read_to_string(home.path().join("othello.1"))
            .unwrap()
            .contains(".TH othello 1")
    );
}

/// `analyze` refused the condensed transcripts lab4 reports and logs hold, which `replay` reads:
/// one as a word, and a file of them a game a line.
#[test]
fn analyze_reads_the_condensed_transcripts_lab4_writes() {
    let condensed = "1934412137424310_1492018564511_412292213144438_5464826312352303325_2_3_05354615963321750394057_82451_616_962604755_71558";
    let output = common::othello(["analyze", condensed, "--depth", "2", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["moves"].as_array().unwrap().len(), 60, "{report}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("games.txt");
    std::fs::write(&file, format!("{condensed}\n1920\n")).unwrap();
    let output = common::othello(["analyze"])
        .arg(&file)
        .args(["--game", "2", "--depth", "2", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["moves"].as_array().unwrap().len(), 2, "{report}");
}

/// `-q` silenced the progress bar but not lab4's running score (`after 25 games: ...`).
#[test]
fn quiet_silences_the_running_score_of_lab4() {
    let loud = common::othello(["lab4", "greedy", "--games", "50"]).output().unwrap();
    assert!(String::from_utf8_lossy(&loud.stderr).contains("after 25 games: "));
    let quiet = common::othello(["-q", "lab4", "greedy", "--games", "50"])
        .output()
        .unwrap();
    assert!(quiet.status.success());
    assert_eq!(String::from_utf8_lossy(&quiet.stderr), "");
    // The same report, but for the times it measured.
    let untimed = |out: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(out)
            .lines()
            .filter(|l| !l.starts_with("Time used"))
            .map(String::from)
            .collect()
    };
    assert_eq!(untimed(&quiet.stdout), untimed(&loud.stdout));
}

/// "on 1 cases", and `solve zz` answered with the lab mode's list of moves and negative numbers.
#[test]
fn one_case_is_one_and_a_commands_bad_board_gets_its_own_message() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 1, 2);
    let output = common::othello(["grade"])
        .arg(&cases)
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin("othello"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("grading 1 program on 1 case of "));
    for (args, message) in [
        (
            &["solve", "zz"][..],
            "othello: bad argument \"zz\": expected a board: 64 characters, of xXoO. as in the lab mode or of X, O and - as in OBF (this one has 2)\n",
        ),
        (
            &[
                "solve",
                "...........................ox......xo...........................",
                "q",
            ],
            "othello: bad argument \"q\": expected a token: x or o, the side to move\n",
        ),
    ] {
        let output = common::othello(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&output.stderr), message);
    }
}

//! Students' programs as players through the binary, in the course's three forms (argv:, quickmove:,
//! strategy:): test players of our own that play legally, play an occupied square, print no integer,
//! hang, crash, run out of time only sometimes, fail to import or import slowly. Each gets the course's
//! code, a failure ends the test or forfeits the game as asked, and no process is left behind.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// Python: the legal moves of `board` (64 characters of .xo) for `token`.
const LEGAL: &str = r#"
def legal(board, token):
    other = 'o' if token == 'x' else 'x'
    found = []
    for sq in range(64):
        if board[sq] != '.':
            continue
        r, c = divmod(sq, 8)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                rr, cc, n = r + dr, c + dc, 0
                while (dr or dc) and 0 <= rr < 8 and 0 <= cc < 8 and board[rr * 8 + cc] == other:
                    rr, cc, n = rr + dr, cc + dc, n + 1
                if n and 0 <= rr < 8 and 0 <= cc < 8 and board[rr * 8 + cc] == token and sq not in found:
                    found.append(sq)
    return found
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `othello lab4 PLAYER ARGS... --json`: (exit status, the report).
fn lab4(player: &str, args: &[&str]) -> (i32, Value) {
    let output = common::othello(["lab4", player, "--json"]).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report = serde_json::from_str(&stdout).unwrap_or_else(|_| {
        panic!(
            "no JSON from {player}: {stdout} {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap(), report)
}

#[test]
fn argv_players_get_the_course_codes() {
    let dir = tempfile::tempdir().unwrap();
    let othello = assert_cmd::cargo::cargo_bin("othello");
    let legal = format!(
        "{} best --strategy random \"$1\" \"$2\" --json | sed 's/.*\"move\":\\([0-9]*\\).*/\\1/'\n",
        othello.display()
    );
    // Slow only where an odd number of squares is empty: some moves in time, then a time-out.
    let sometimes_slow = format!("case $(printf %s \"$1\" | tr -cd . | wc -c) in *[13579]) sleep 2;; esac\n{legal}");
    for (name, script, code) in [
        ("occupied", "echo 'my move:'; echo 27\n".to_string(), -3),
        ("no_integer", "echo 'I pass on this one'\n".to_string(), -4),
        // Only ASCII digits are digits, and a number no square can be is no move.
        ("arabic_digit", "echo '\u{663}'\n".to_string(), -4),
        ("huge", "echo 18446744073709551635\n".to_string(), -4),
        ("hang", "sleep 31.4159 &\nsleep 31.4159\n".to_string(), -2),
        ("crash", "echo 'Traceback: boom' >&2; exit 3\n".to_string(), -5),
        ("sometimes_slow", sometimes_slow, -2),
    ] {
        let path = write(dir.path(), &format!("{name}.sh"), &script);
        let player = format!("argv:sh {}", path.display());
        // The course's rule: the first failure ends the test. The players ask the othello binary for
        // their legal moves: it is shown to them.
        let visible = othello.to_str().unwrap();
        let (status, report) = lab4(&player, &["--games", "3", "--move-time", "0.5", "--visible", visible]);
        assert_eq!(status, 1, "{name}: {report}");
        let ended = &report["ended_by"];
        let transcript = ended["transcript"].as_str().unwrap();
        assert!(transcript.ends_with(&code.to_string()), "{name}: {transcript}");
        assert_eq!(report["played"], 1, "{name}: the test stops at the failing game");
        if name == "crash" {
            assert!(ended["failure"].as_str().unwrap().contains("boom"), "{report}");
        }
        if name == "sometimes_slow" {
            assert!(
                transcript.len() > 4,
                "{name} made some moves in time first: {transcript}"
            );
        }
        // As an option, a failure forfeits the game and the test goes on.
        if name == "occupied" {
            let (status, report) = lab4(&player, &["--games", "3", "--forfeit"]);
            assert_eq!(status, 0);
            assert_eq!(
                (report["played"].as_u64(), report["forfeits"].as_u64()),
                (Some(3), Some(3))
            );
            assert_eq!(report["share"].as_f64(), Some(0.0));
        }
    }
    assert_eq!(
        common::processes_with("31.4159").len(),
        0,
        "the hanging player's group was killed whole"
    );

    let path = write(dir.path(), "legal.sh", &legal);
    let (status, report) = lab4(
        &format!("argv:sh {}", path.display()),
        &[
            "--games",
            "4",
            "--worst",
            "4",
            "--move-time",
            "5",
            "--visible",
            othello.to_str().unwrap(),
        ],
    );
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["played"], 4);
    assert_eq!(report["worst"].as_array().unwrap().len(), 4);
    assert_eq!(report["reproducible"], false, "a program is not ours to reproduce");
}

#[test]
fn quickmove_players_are_imported_once_and_timed() {
    let dir = tempfile::tempdir().unwrap();
    let first_legal = format!("{LEGAL}\ndef quickMove(brd, tkn):\n    return legal(brd, tkn)[0]\n");
    let players = [
        (
            "legal",
            format!("{first_legal}\nif __name__ == '__main__':\n    raise SystemExit('main must not run')\n"),
            0,
        ),
        (
            "chatty",
            format!("print('hello from the import')\n{first_legal}\ndef noisy():\n    print('noise')\n"),
            0,
        ),
        (
            "occupied",
            "def quickMove(brd, tkn):\n    return brd.index('x')\n".to_string(),
            -3,
        ),
        ("none", "def quickMove(brd, tkn):\n    return None\n".to_string(), -4),
        (
            "raises",
            "def quickMove(brd, tkn):\n    raise KeyError('oops')\n".to_string(),
            -5,
        ),
        (
            "sometimes_slow",
            format!(
                "import time\n{LEGAL}\ndef quickMove(brd, tkn):\n    if brd.count('.') < 50:\n        end = time.process_time() + 0.2\n        while time.process_time() < end:\n            pass\n    return legal(brd, tkn)[0]\n"
            ),
            -2,
        ),
    ];
    for (name, program, code) in players {
        let path = write(dir.path(), &format!("{name}.py"), &program);
        let (status, report) = lab4(&format!("quickmove:{}", path.display()), &["--games", "20"]);
        if code == 0 {
            assert_eq!(status, 0, "{name}: {report}");
            assert_eq!(report["played"], 20);
            assert!(report["share"].as_f64().unwrap() > 0.2, "{name}: {report}");
        } else {
            assert_eq!(status, 1, "{name}: {report}");
            let transcript = report["ended_by"]["transcript"].as_str().unwrap();
            assert!(transcript.ends_with(&code.to_string()), "{name}: {transcript}");
        }
    }
    // Sleeping is not thinking: the course's moderator counts the CPU time, and so does the sandbox
    // (0.05 s asleep a move is over a second of wall time a game, against the game's 0.3 s).
    let sleeper = write(
        dir.path(),
        "sleeper.py",
        &format!(
            "import time\n{LEGAL}\ndef quickMove(brd, tkn):\n    time.sleep(0.05)\n    return legal(brd, tkn)[0]\n"
        ),
    );
    let (status, report) = lab4(&format!("quickmove:{}", sleeper.display()), &["--games", "2"]);
    assert_eq!(status, 0, "{report}");
    assert!(report["player_seconds"].as_f64().unwrap() < 0.3, "CPU time: {report}");
    // A file that does not import, or imports too slowly, is refused before any game.
    let broken = write(dir.path(), "broken.py", "import no_such_module_here\n");
    common::othello(["lab4", &format!("quickmove:{}", broken.display())])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("no_such_module_here"));
    let slow = write(
        dir.path(),
        "slow.py",
        "import time\nend = time.process_time() + 30\nwhile time.process_time() < end:\n    pass\ndef quickMove(b, t):\n    return 19\n",
    );
    common::othello(["lab4", &format!("quickmove:{}", slow.display()), "--import-time", "0.5"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("the import took more than 0.5 s"));
    let missing = dir.path().join("missing.py");
    common::othello(["lab4", &format!("quickmove:{}", missing.display())])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no such file"));
}

#[test]
fn a_hundred_quickmove_games_are_quick_and_their_log_replays() {
    let dir = tempfile::tempdir().unwrap();
    let player = write(
        dir.path(),
        "player.py",
        &format!("{LEGAL}\ndef quickMove(brd, tkn):\n    return legal(brd, tkn)[-1]\n"),
    );
    let log = dir.path().join("games.jsonl");
    let (status, report) = lab4(
        &format!("quickmove:{}", player.display()),
        &["--log", log.to_str().unwrap(), "--worst", "3", "--games", "100"],
    );
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["played"], 100);
    let worst = report["worst"].as_array().unwrap();
    assert_eq!(worst.len(), 3);
    assert!(worst[0]["share"].as_f64() <= worst[2]["share"].as_f64());
    common::othello(["replay", log.to_str().unwrap()]).assert().success();
    // Each worst game's condensed transcript replays in the lab mode to the tokens it reports.
    for game in worst {
        let output = common::othello([game["transcript"].as_str().unwrap()])
            .output()
            .unwrap();
        let last = String::from_utf8_lossy(&output.stdout)
            .lines()
            .rfind(|l| l.contains('/'))
            .unwrap()
            .to_string();
        let counts = last.split_whitespace().last().unwrap();
        let (x, o) = counts.split_once('/').unwrap();
        let (tokens, theirs) = if game["color"] == "black" { (x, o) } else { (o, x) };
        assert_eq!(
            (tokens, theirs),
            (
                game["tokens"].to_string().as_str(),
                game["opponent_tokens"].to_string().as_str()
            )
        );
    }
}

#[test]
fn strategy_players_run_as_the_tournament_server_runs_them() {
    let dir = tempfile::tempdir().unwrap();
    // (Waiting on still_running is tested with CPU time: a_strategy_that_thinks_until_told_to_stop.)
    let good = format!(
        "{LEGAL}\nclass Strategy:\n    def best_strategy(self, board, player, best_move, still_running, time_limit):\n        for move in legal(board, player):\n            best_move.value = move\n"
    );
    let silent =
        "class Strategy:\n    def best_strategy(self, board, player, best_move, still_running):\n        pass\n";
    let wild = "class Strategy:\n    def best_strategy(self, board, player, best_move, still_running):\n        best_move.value = 99\n";
    for (name, program, code) in [("good", good.as_str(), 0), ("silent", silent, -4), ("wild", wild, -3)] {
        let path = write(dir.path(), &format!("{name}.py"), program);
        let (status, report) = lab4(
            &format!("strategy:{}", path.display()),
            &["--games", "2", "--move-time", "1"],
        );
        if code == 0 {
            assert_eq!((status, report["played"].as_u64()), (0, Some(2)), "{report}");
        } else {
            assert_eq!(status, 1, "{name}: {report}");
            assert!(
                report["ended_by"]["transcript"]
                    .as_str()
                    .unwrap()
                    .ends_with(&code.to_string())
            );
        }
    }
}

#[test]
fn a_round_robin_of_programs_and_strategies_prints_standings() {
    let dir = tempfile::tempdir().unwrap();
    let quick = write(
        dir.path(),
        "quick.py",
        &format!("{LEGAL}\ndef quickMove(brd, tkn):\n    return legal(brd, tkn)[0]\n"),
    );
    let strategy = write(
        dir.path(),
        "strat.py",
        &format!(
            "{LEGAL}\nclass Strategy:\n    def best_strategy(self, board, player, best_move, still_running):\n        best_move.value = legal(board, player)[-1]\n"
        ),
    );
    let log = dir.path().join("games.jsonl");
    let output = common::othello([
        "tournament",
        &format!("quickmove:{}", quick.display()),
        &format!("strategy:{}", strategy.display()),
        "alphabeta:3:weights",
        "random",
        "--openings",
        "2",
        // CPU time: the standings must not depend on how busy the machine is.
        "--move-time",
        "0.2",
        "--cpu-time",
        "--json",
        "--log",
        log.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["games"], 12, "six pairs, both colours");
    let standings = report["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 4);
    let points: f64 = standings.iter().map(|s| s["points"].as_f64().unwrap()).sum();
    assert_eq!(points, 12.0);
    assert!(
        standings
            .windows(2)
            .all(|w| w[0]["points"].as_f64() >= w[1]["points"].as_f64())
    );
    assert!(standings.iter().all(|s| s["games"] == 6 && s["forfeits"] == 0));
    assert_eq!(report["reproducible"], false);
    common::othello(["replay", log.to_str().unwrap()]).assert().success();
    // Built-in strategies alone: the same standings on one thread as on three.
    let table = |threads: &str| {
        common::othello([
            "tournament",
            "random",
            "greedy",
            "alphabeta:2",
            "--rounds",
            "2",
            "--openings",
            "3",
        ])
        .args(["--threads", threads])
        .output()
        .unwrap()
        .stdout
    };
    let one = table("1");
    assert_eq!(one, table("3"));
    assert!(!String::from_utf8_lossy(&one).contains("may not give the same games"));
}

#[test]
fn condensed_transcripts_replay_with_their_codes() {
    common::othello(["replay", "4445_9-157"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("entry 3"));
    common::othello(["replay", "193441-3"])
        .assert()
        .success()
        .stdout("x 5, o 2, o failed with code -3; 3 moves and 0 passes, all legal\n");
    common::othello(["replay", "19-1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("passes"));
}

#[test]
fn logs_carry_the_condensed_transcript_and_replay_checks_it() {
    let dir = tempfile::tempdir().unwrap();
    let (log, first) = common::logged_match(dir.path());
    let text = std::fs::read_to_string(&log).unwrap();
    let transcript = first["transcript"].as_str().unwrap().to_string();
    // The transcript alone replays to the same end as the log.
    let from_transcript = common::othello(["replay", &transcript]).output().unwrap();
    let (x, o) = (
        first["result"]["black"].as_u64().unwrap(),
        first["result"]["white"].as_u64().unwrap(),
    );
    assert!(String::from_utf8_lossy(&from_transcript.stdout).starts_with(&format!("x {x}, o {o}, ")));
    // A transcript that does not match the moves is caught.
    let swapped = if transcript.starts_with("19") { "26" } else { "19" };
    let tampered = text.replacen(
        &format!("\"transcript\":\"{}", &transcript[..2]),
        &format!("\"transcript\":\"{swapped}"),
        1,
    );
    std::fs::write(&log, tampered).unwrap();
    common::othello(["replay", log.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not the moves'"));
}

#[test]
fn a_missing_python_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "p.py", "def quickMove(b, t):\n    return 19\n");
    common::othello(["lab4", &format!("quickmove:{}", file.display())])
        .env("PATH", dir.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("python3 is not installed"));
}

#[test]
fn the_example_players_play_the_same_games_in_all_three_forms() {
    let players = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/players");
    let report = |player: String| {
        let (status, report) = lab4(&player, &["--games", "2", "--worst", "2"]);
        assert_eq!(status, 0, "{report}");
        (report["tokens"].clone(), report["worst"].clone())
    };
    let quick = report(format!("quickmove:{}", players.join("quickmove_player.py").display()));
    // The argv and strategy players import the quickmove player from their folder. (Time is not
    // what this test is about: 5 s a move, on a busy machine too.)
    let whole = |player: String| {
        let (status, report) = lab4(
            &player,
            &["--games", "2", "--worst", "2", "--whole-folder", "--move-time", "5"],
        );
        assert_eq!(status, 0, "{report}");
        (report["tokens"].clone(), report["worst"].clone())
    };
    let argv = whole(format!("argv:python3 {}", players.join("argv_player.py").display()));
    let strategy = whole(format!("strategy:{}", players.join("strategy_player.py").display()));
    // Without its folder, the file alone is refused before any game.
    common::othello([
        "lab4",
        &format!("strategy:{}", players.join("strategy_player.py").display()),
    ])
    .assert()
    .code(2)
    .stderr(predicates::str::contains("No module named 'quickmove_player'"));
    assert_eq!(quick, argv);
    assert_eq!(quick, strategy);
}

#[test]
fn a_strategy_that_thinks_until_told_to_stop_gets_its_cpu_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "thinker.py",
        &format!(
            "{LEGAL}\nclass Strategy:\n    def best_strategy(self, board, player, best_move, still_running):\n        best_move.value = legal(board, player)[0]\n        while still_running.value:\n            pass\n"
        ),
    );
    let (status, report) = lab4(
        &format!("strategy:{}", path.display()),
        &["--games", "1", "--move-time", "0.2", "--cpu-time"],
    );
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["forfeits"], 0, "{report}");
    assert_eq!(report["player_clock"], "cpu");
    // Each move thinks for 0.9 of its 0.2 s of CPU time (the server's margin), then answers.
    let per_move = report["player_seconds"].as_f64().unwrap() / report["player_moves"].as_f64().unwrap();
    assert!(
        (0.15..0.4).contains(&per_move),
        "{per_move} s of CPU time a move: {report}"
    );
}

#[test]
fn timing_printed_after_the_move_is_not_the_move() {
    // As the course's moderators read it: decimals are deleted, then the last integer is the move.
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "timed.py",
        &format!(
            "import sys, time\n{LEGAL}\nstart = time.time()\nprint(legal(sys.argv[1], sys.argv[2])[0])\nprint('took %.2f s' % (time.time() - start + 0.27))\n"
        ),
    );
    let (status, report) = lab4(
        &format!("argv:python3 {}", path.display()),
        &["--games", "2", "--move-time", "5"],
    );
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["played"], 2);
    assert_eq!(report["forfeits"], 0);
}

#[test]
fn each_kind_of_player_has_its_own_clock() {
    let dir = tempfile::tempdir().unwrap();
    let argv = write(
        dir.path(),
        "slowish.py",
        &format!("import sys, time\n{LEGAL}\ntime.sleep(0.1)\nprint(legal(sys.argv[1], sys.argv[2])[0])\n"),
    );
    let quick = write(
        dir.path(),
        "quick.py",
        &format!("{LEGAL}\ndef quickMove(brd, tkn):\n    return legal(brd, tkn)[0]\n"),
    );
    let argv = format!("argv:python3 {}", argv.display());
    let quick = format!("quickmove:{}", quick.display());
    // A game clock is a quickmove program's alone: the argv player's 0.1 s a move over a game of
    // 30 moves is far beyond --game-time, and it plays on (3 s a move of its own).
    let output = common::othello([
        "match",
        &argv,
        &quick,
        "--games",
        "1",
        "--move-time",
        "argv=3",
        "--game-time",
        "0.5",
        "--json",
    ])
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["forfeits"], 0, "{report}");
    // The second player named gets its own time; a game time for an argv player is refused.
    let output = common::othello(["match", &quick, &argv, "--games", "1", "--move-time", "2=0.1", "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["forfeits"], 1, "0.1 s for the argv player: {report}");
    common::othello(["match", &quick, &argv, "--game-time", "2=3"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("only those have a game clock"));
}

/// Python: the legal moves on the server's 10x10 board (a border of '?'), as 10x10 indices.
const LEGAL_10X10: &str = r#"
def legal10(board, token):
    other = 'o' if token == 'x' else 'x'
    found = []
    for sq in range(100):
        if board[sq] != '.':
            continue
        for d in (-11, -10, -9, -1, 1, 9, 10, 11):
            i, n = sq + d, 0
            while board[i] == other:
                i, n = i + d, n + 1
            if n and board[i] == token:
                found.append(sq)
                break
    return found
"#;

#[test]
fn the_strategy_form_is_run_as_the_tournament_server_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    // Constructed once a game, before any clock: a constructor of 0.8 s does not slow the moves.
    let slow_init = write(
        dir.path(),
        "slow_init.py",
        &format!(
            "import time\n{LEGAL}\nclass Strategy:\n    def __init__(self):\n        end = time.process_time() + 0.8\n        while time.process_time() < end:\n            pass\n    def best_strategy(self, board, player, best_move, still_running):\n        best_move.value = legal(board, player)[0]\n"
        ),
    );
    let (status, report) = lab4(&format!("strategy:{}", slow_init.display()), &["--games", "2"]);
    assert_eq!((status, &report["forfeits"]), (0, &Value::from(0)), "{report}");
    let per_move = report["player_seconds"].as_f64().unwrap() / report["player_moves"].as_f64().unwrap();
    assert!(per_move < 0.5, "{per_move} s a move: the constructor is not in it");
    // The 10x10 board and moves, and time_limit as an int, as the server gives them.
    let ten = write(
        dir.path(),
        "ten.py",
        &format!(
            "{LEGAL_10X10}\nclass Strategy:\n    uses_10x10_board = True\n    uses_10x10_moves = True\n    def best_strategy(self, board, player, best_move, still_running, time_limit):\n        assert len(board) == 100 and board[:11] == '?' * 11, board\n        assert isinstance(time_limit, int), time_limit\n        best_move.value = legal10(board, player)[0]\n"
        ),
    );
    let (status, report) = lab4(
        &format!("strategy:{}", ten.display()),
        &["--games", "2", "--move-time", "1.5"],
    );
    assert_eq!((status, &report["forfeits"]), (0, &Value::from(0)), "{report}");
    // An exception before best_move is stored is a program error (-5), not "no move" (-4).
    let raises = write(
        dir.path(),
        "raises.py",
        "class Strategy:\n    def best_strategy(self, board, player, best_move, still_running):\n        raise ValueError('no idea')\n",
    );
    let (status, report) = lab4(&format!("strategy:{}", raises.display()), &["--games", "1"]);
    assert_eq!(status, 1, "{report}");
    assert_eq!(report["ended_by"]["code"], -5, "{report}");
    assert!(report["ended_by"]["transcript"].as_str().unwrap().ends_with("-5"));
}

#[test]
fn the_quickmove_form_is_run_as_the_course_moderator_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    // sys.argv is [FILE] at import: a file that looks at its arguments imports as it does there.
    let checks_argv = write(
        dir.path(),
        "checks_argv.py",
        &format!(
            "import sys\n{LEGAL}\nif len(sys.argv) > 1:\n    raise SystemExit('run from the command line: ' + repr(sys.argv))\ndef quickMove(brd, tkn):\n    return legal(brd, tkn)[0]\n"
        ),
    );
    let (status, report) = lab4(&format!("quickmove:{}", checks_argv.display()), &["--games", "2"]);
    assert_eq!((status, &report["played"]), (0, &Value::from(2)), "{report}");
    // The later labs' hole limit: quickMove('', N) once before the games.
    let hole_limit = write(
        dir.path(),
        "hole_limit.py",
        &format!(
            "{LEGAL}\nHOLELIMIT = None\ndef quickMove(brd, tkn):\n    global HOLELIMIT\n    if not brd:\n        HOLELIMIT = tkn\n        return\n    assert HOLELIMIT == 12, HOLELIMIT\n    return legal(brd, tkn)[0]\n"
        ),
    );
    let spec = format!("quickmove:{}", hole_limit.display());
    let (status, report) = lab4(&spec, &["--games", "2", "--hole-limit", "12"]);
    assert_eq!((status, &report["played"]), (0, &Value::from(2)), "{report}");
    let (status, report) = lab4(&spec, &["--games", "2"]);
    assert_eq!(
        (status, &report["ended_by"]["code"]),
        (1, &Value::from(-5)),
        "no hole limit given: {report}"
    );
    // A string is not a move: illegal, as the moderator calls it.
    let string = write(
        dir.path(),
        "string.py",
        &format!("{LEGAL}\ndef quickMove(brd, tkn):\n    return str(legal(brd, tkn)[0])\n"),
    );
    let (status, report) = lab4(&format!("quickmove:{}", string.display()), &["--games", "1"]);
    assert_eq!(status, 1, "{report}");
    assert_eq!(report["ended_by"]["code"], -3, "{report}");
    assert_eq!(
        report["ended_by"]["server_code"], -2,
        "READ_INVALID on the server: {report}"
    );
    // The 2018 moderators sent the board in upper case: an option.
    let upper = write(
        dir.path(),
        "upper.py",
        &format!(
            "{LEGAL}\ndef quickMove(brd, tkn):\n    assert brd == brd.upper(), brd\n    return legal(brd.lower(), tkn)[0]\n"
        ),
    );
    let (status, report) = lab4(
        &format!("quickmove:{}", upper.display()),
        &["--games", "2", "--upper-board"],
    );
    assert_eq!((status, &report["played"]), (0, &Value::from(2)), "{report}");
}

#[test]
fn the_course_years_rules_are_presets() {
    let dir = tempfile::tempdir().unwrap();
    let quick = write(
        dir.path(),
        "quick.py",
        &format!("{LEGAL}\ndef quickMove(brd, tkn):\n    return legal(brd, tkn)[-1]\n"),
    );
    // 2023-24: 500 games, the three lowest shown (the default for a quickmove program).
    let (status, report) = lab4(&format!("quickmove:{}", quick.display()), &["--rules", "lab4-2024"]);
    assert_eq!(status, 0, "{report}");
    assert_eq!(
        (report["played"].as_u64(), report["rules"].as_str()),
        (Some(500), Some("lab4-2024"))
    );
    assert_eq!(report["worst"].as_array().unwrap().len(), 3);
    // 2021: an argv program that hoards time (prints its move, then goes on thinking past the limit)
    // keeps the move it printed; by the 2023-24 rules that time-out ends the test.
    let hoarder = write(
        dir.path(),
        "hoarder.py",
        // It hoards on its first two moves only, so that the test stays short.
        &format!(
            "import sys, time\n{LEGAL}\nprint(legal(sys.argv[1], sys.argv[2])[0], flush=True)\nif sys.argv[1].count('.') > 56:\n    time.sleep(5)\n"
        ),
    );
    let argv = format!("argv:python3 {}", hoarder.display());
    // A second a move, not the course's half: a Python start on a busy machine must fit in it.
    let (status, report) = lab4(&argv, &["--rules", "lab4-2021", "--games", "1", "--move-time", "1"]);
    assert_eq!((status, &report["forfeits"]), (0, &Value::from(0)), "{report}");
    assert_eq!(report["worst"].as_array().unwrap().len(), 1, "one game played");
    let (status, report) = lab4(&argv, &["--rules", "lab4-2024", "--games", "1", "--move-time", "1"]);
    assert_eq!((status, &report["ended_by"]["code"]), (1, &Value::from(-2)), "{report}");
    // The server allows at most 15 s a move.
    let strategy = write(
        dir.path(),
        "strategy.py",
        &format!(
            "{LEGAL}\nclass Strategy:\n    def best_strategy(self, board, player, best_move, still_running):\n        best_move.value = legal(board, player)[0]\n"
        ),
    );
    common::othello(["lab4", &format!("strategy:{}", strategy.display()), "--move-time", "16"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("the server rules allow at most 15 s a move"));
}

#[test]
fn tournament_standings_say_why_a_player_forfeited() {
    let dir = tempfile::tempdir().unwrap();
    let occupied = write(
        dir.path(),
        "occupied.py",
        "import sys\ndef quickMove(brd, tkn):\n    print('thinking', file=sys.stderr)\n    return brd.index('x')\n",
    );
    let csv = dir.path().join("standings.csv");
    let output = common::othello([
        "tournament",
        &format!("quickmove:{}", occupied.display()),
        "random",
        "--json",
        "--csv",
        csv.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let standing = report["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["forfeits"] == 2)
        .unwrap_or_else(|| panic!("{report}"));
    let reasons = standing["forfeit_reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 2);
    assert_eq!(
        (reasons[0]["code"].as_i64(), reasons[0]["server_code"].as_i64()),
        (Some(-3), Some(-3))
    );
    assert_eq!(reasons[0]["stderr"], "thinking");
    assert!(reasons[0]["move"].as_u64().unwrap() <= 2, "the first move of its side");
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",forfeit_reasons"));
    assert!(csv.contains("illegal move") && csv.contains("(code -3)"), "{csv}");
}

/// Programs whose every game is decided by who moves first: `crash` raises before it stores a
/// move (the course server's code -2), `illegal` plays the occupied square 27 (-3), `hang` is a
/// quickmove that never returns (a time-out, -4); the black side fails first.
fn failing_programs(dir: &Path) -> [String; 4] {
    let strategy = |body: &str| {
        format!(
            "class Strategy:\n    def best_strategy(self, board, player, best_move, still_running):\n        {body}\n"
        )
    };
    let crash = write(dir, "crash.py", &strategy("raise ValueError('no')"));
    let crash_b = write(dir, "crash_b.py", &strategy("raise ValueError('no')"));
    let illegal = write(dir, "illegal.py", &strategy("best_move.value = 27"));
    let hang = write(
        dir,
        "hang.py",
        "def quickMove(brd, tkn):\n    while True:\n        pass\n",
    );
    [
        format!("strategy:{}", crash.display()),
        format!("strategy:{}", crash_b.display()),
        format!("strategy:{}", illegal.display()),
        format!("quickmove:{}", hang.display()),
    ]
}

/// A standing's player, points and cumulative points.
type Line = (String, f64, f64);

/// (player, points, cumulative) best first, and each player's failures' server codes.
fn standings_of(report: &Value, dir: &Path) -> (Vec<Line>, Vec<Vec<i64>>) {
    let standings = report["standings"].as_array().unwrap();
    let short = |name: &str| name.replace(&format!("{}/", dir.display()), "");
    (
        standings
            .iter()
            .map(|s| {
                (
                    short(s["player"].as_str().unwrap()),
                    s["points"].as_f64().unwrap(),
                    s["cumulative"].as_f64().unwrap(),
                )
            })
            .collect(),
        standings
            .iter()
            .map(|s| {
                s["forfeit_reasons"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["server_code"].as_i64().unwrap())
                    .collect()
            })
            .collect(),
    )
}

/// The expected standings were computed by hand from the course server's rules (its
/// tasks.py and pairings.py): see `tournament::tests` in the course crate for the sums.
#[test]
fn tournament_scoring_course_server_reproduces_the_servers_codes_tie_break_and_pairing() {
    let dir = tempfile::tempdir().unwrap();
    let [crash, crash_b, illegal, hang] = failing_programs(dir.path());
    // A round robin under the server's rules, each pair once in each colour: the hang's
    // time-outs tie.
    let output = common::othello(["tournament", "--rules", "server", "--rounds", "1", "--json"])
        .args([&crash, &hang, &illegal, "greedy"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["scoring"], "course-server");
    let (table, codes) = standings_of(&report, dir.path());
    let s = |name: &str, points, cumulative| (name.to_string(), points, cumulative);
    assert_eq!(
        table,
        [
            s("greedy", 5.0, 17.5),
            s("quickmove:hang.py", 4.0, 15.0),
            s("strategy:illegal.py", 1.5, 8.0),
            s("strategy:crash.py", 1.5, 5.5),
        ]
    );
    assert_eq!(codes, [vec![], vec![-4; 4], vec![-3; 4], vec![-2; 4]]);
    // A Swiss of five over three rounds (< players - 1: by points, each with the next one not
    // met), the odd one out playing the bye opponent: round 1 crash-illegal, greedy-crash_b,
    // illegal_b-bye; round 2 greedy-crash, illegal-crash_b, illegal_b-bye; round 3
    // greedy-illegal, crash-crash_b, illegal_b-bye. illegal ends level with crash and crash_b on
    // 2 points, above them on cumulative points (9 against 6 and 6).
    let illegal_b = illegal.replace("illegal.py", "illegal_b.py");
    std::fs::copy(dir.path().join("illegal.py"), dir.path().join("illegal_b.py")).unwrap();
    let log = dir.path().join("swiss.jsonl");
    let output = common::othello([
        "tournament",
        "--scoring",
        "course-server",
        "--swiss",
        "3",
        "--json",
        "--log",
    ])
    .arg(&log)
    .args([&crash, &illegal, "greedy", &crash_b, &illegal_b])
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let (table, _) = standings_of(&report, dir.path());
    assert_eq!(
        table,
        [
            s("greedy", 6.0, 21.0),
            s("strategy:illegal.py", 2.0, 9.0),
            s("strategy:crash.py", 2.0, 6.0),
            s("strategy:crash_b.py", 2.0, 6.0),
            s("strategy:illegal_b.py", 0.0, 0.0),
        ]
    );
    let short = |name: &str| {
        name.replace(&format!("{}/", dir.path().display()), "")
            .replace("strategy:", "")
    };
    let pairings: Vec<(String, String)> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .step_by(2)
        .map(|game| {
            (
                short(game["black"].as_str().unwrap()),
                short(game["white"].as_str().unwrap()),
            )
        })
        .collect();
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    let bye = "bye opponent (random)";
    assert_eq!(
        pairings,
        [
            pair("crash.py", "illegal.py"),
            pair("greedy", "crash_b.py"),
            pair("illegal_b.py", bye),
            pair("greedy", "crash.py"),
            pair("illegal.py", "crash_b.py"),
            pair("illegal_b.py", bye),
            pair("greedy", "illegal.py"),
            pair("crash.py", "crash_b.py"),
            pair("illegal_b.py", bye),
        ]
    );
    // --rules server asks for the course server's scoring, and its round robin: each pair twice
    // in each colour.
    let output = common::othello(["tournament", "--rules", "server", "--json", "random", "greedy"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (report["scoring"].as_str(), report["games"].as_u64()),
        (Some("course-server"), Some(4))
    );
    // othello's scoring by default: every failure loses, and the standings say so.
    let output = common::othello(["tournament", "--rounds", "1", &crash, &hang, &illegal, "greedy"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.lines().nth(1)
            == Some("othello's scoring: a failure loses 0 to 64; ties broken by disc margin, then head-to-head points"),
        "{text}"
    );
}

/// A class of three quickmove students: one that plays, one that plays an occupied square, one
/// whose file does not import.
fn quickmove_class(dir: &Path) -> PathBuf {
    let class = dir.join("class");
    std::fs::create_dir(&class).unwrap();
    write(
        &class,
        "alice.py",
        &format!("{LEGAL}\ndef quickMove(brd, tkn):\n    return legal(brd, tkn)[0]\n"),
    );
    write(
        &class,
        "bob.py",
        "def quickMove(brd, tkn):\n    return brd.index('x')\n",
    );
    write(&class, "carol.py", "import no_such_module_here\n");
    class
}

#[test]
fn a_class_takes_the_lab4_test_in_one_command() {
    let dir = tempfile::tempdir().unwrap();
    let class = quickmove_class(dir.path());
    let (csv, html) = (dir.path().join("g.csv"), dir.path().join("r.html"));
    let output = common::othello(["lab4", "--class", class.to_str().unwrap(), "--games", "10"])
        .args(["--csv", csv.to_str().unwrap(), "--html", html.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "bob and carol did not finish");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("alice: ") && text.contains("in 10 games"), "{text}");
    assert!(
        text.contains("bob: ") && text.contains("ended at game 1 (code -3)"),
        "{text}"
    );
    assert!(
        text.contains("carol: could not play: ") && text.contains("no_such_module_here"),
        "{text}"
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(csv.lines().nth(2).unwrap().starts_with("bob,"), "{csv}");
    let html = std::fs::read_to_string(&html).unwrap();
    for name in ["alice", "bob", "carol"] {
        assert!(html.contains(&format!(">{name}</a>")), "{name} in the table");
    }
    assert!(html.contains("class=\"board\"") && html.contains("illegal move"));
    assert!(!html.contains("http"), "no outside resource");
    // JSON Lines: one object per student.
    let output = common::othello(["lab4", "--class", class.to_str().unwrap(), "--games", "2", "--json"])
        .output()
        .unwrap();
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["played"], 2);
    assert!(
        lines[2]["could_not_play"]
            .as_str()
            .unwrap()
            .contains("no_such_module_here")
    );
}

#[test]
fn a_tournament_of_a_class_folder_names_who_was_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let class = quickmove_class(dir.path());
    let html = dir.path().join("t.html");
    let output = common::othello([
        "tournament",
        "random",
        "--class",
        class.to_str().unwrap(),
        "--form",
        "quickmove",
    ])
    .args(["--json", "--html", html.to_str().unwrap()])
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["players"].as_array().unwrap().len(),
        3,
        "random, alice, bob: {report}"
    );
    assert!(report["left_out"][0].as_str().unwrap().starts_with("carol: "));
    let html = std::fs::read_to_string(&html).unwrap();
    // Named by their files, as lab4 --class names them (no `quickmove:/tmp/...` path).
    assert!(html.contains("<td>bob</td>") || html.contains("bob: "), "{html}");
    assert!(!html.contains(">quickmove:"), "{html}");
    assert!(html.contains("forfeited</h2>"));
}

#[test]
fn runoff_carries_unused_time_over_as_the_server_does() {
    let dir = tempfile::tempdir().unwrap();
    // It answers at once; it raises if it is ever given more than the base second.
    let path = write(
        dir.path(),
        "quick_strategy.py",
        &format!(
            "{LEGAL}\nclass Strategy:\n    def best_strategy(self, board, player, best_move, still_running, time_limit):\n        if time_limit > 1:\n            raise ValueError('given %d s' % time_limit)\n        best_move.value = legal(board, player)[0]\n"
        ),
    );
    let player = format!("strategy:{}", path.display());
    let (status, report) = lab4(&player, &["--games", "1", "--move-time", "1"]);
    assert_eq!((status, &report["forfeits"]), (0, &Value::from(0)), "{report}");
    // With runoff its second move has 1 s plus the first's unused second, as a whole number.
    let (status, report) = lab4(&player, &["--games", "1", "--move-time", "1", "--runoff"]);
    assert_eq!(status, 1, "{report}");
    assert_eq!(report["ended_by"]["code"], -5);
    assert!(
        report["ended_by"]["failure"].as_str().unwrap().contains("given 2 s"),
        "{report}"
    );
}

/// `tournament ... --swiss 3` paired the same two players in rounds 1 and 3 although a round 3
/// without a rematch existed (greedy pairing, five players, every seed tried): no pair meets
/// twice now.
#[test]
fn a_swiss_tournament_pairs_nobody_twice_where_it_need_not() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    for seed in ["1", "2", "3"] {
        common::othello(["tournament", "greedy", "random", "weighted", "preferred", "alphabeta:1"])
            .args(["--swiss", "3", "--seed", seed, "--log"])
            .arg(&log)
            .assert()
            .success();
        let text = std::fs::read_to_string(&log).unwrap();
        let mut pairs: Vec<(String, String)> = text
            .lines()
            .step_by(2)
            .map(|line| {
                let game: serde_json::Value = serde_json::from_str(line).unwrap();
                let mut pair = [game["black"].as_str().unwrap(), game["white"].as_str().unwrap()];
                pair.sort();
                (pair[0].to_string(), pair[1].to_string())
            })
            .collect();
        assert_eq!(pairs.len(), 6, "two pairings a round: {pairs:?}");
        pairs.sort();
        let before = pairs.len();
        pairs.dedup();
        assert_eq!(pairs.len(), before, "seed {seed}: a rematch in {pairs:?}");
    }
}

#[test]
fn a_tournament_gives_every_forfeit_reason_in_json_and_csv_and_its_text_says_what_it_left_out() {
    // `true` ends without a move: it forfeits every game it plays (8: two opponents, both colours,
    // two rounds).
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("standings.csv");
    let run = |extra: &[&str]| {
        let output = common::othello(["tournament", "random", "greedy", "argv:true", "--rounds", "2"])
            .args(extra)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let report: Value = serde_json::from_str(&run(&["--json"])).unwrap();
    let failing = report["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["player"] == "argv:true")
        .unwrap()
        .clone();
    assert_eq!(failing["forfeits"], 8, "{failing}");
    let reasons = failing["forfeit_reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 8, "every one: {failing}");
    // No move: the handout's -4, and the -2 (READ_INVALID) the course's server records.
    assert!(
        reasons
            .iter()
            .all(|r| r["failure"].as_str().unwrap().contains("no move") && r["code"] == -4 && r["server_code"] == -2),
        "{failing}"
    );
    run(&["--csv", csv.to_str().unwrap()]);
    let table = std::fs::read_to_string(&csv).unwrap();
    let row = table.lines().find(|line| line.contains("argv:true")).unwrap();
    assert_eq!(row.matches("round ").count(), 8, "{row}");
    let text = run(&[]);
    assert!(
        text.contains("... and 3 more (--json and --csv give every one)"),
        "{text}"
    );
    // A crash before a move: the handout's -5, and -2 again on the course's server.
    let output = common::othello(["tournament", "random", "argv:false", "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let crashed = &report["standings"][1]["forfeit_reasons"][0];
    assert_eq!(
        (&crashed["code"], &crashed["server_code"]),
        (&json!(-5), &json!(-2)),
        "{report}"
    );
}

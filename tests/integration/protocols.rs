//! `othello nboard` and `othello gtp` driven by a test script as a GUI or a controller would: whole
//! games against a simple player, passes both ways, hints, a ping during a search, and lines the
//! engine does not know.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Stdio};

use othello_core::game::{Game, Status};
use othello_core::notation::transcript;
use othello_core::{Position, Square};

/// The first 56 moves of a game in which white must pass after black's h2 (move 57).
const BEFORE_PASS: &str =
    "d3c3c4e3c2c5c6b3f2c1d6f3d2e6b4a4b5f1a5a6f7e1d1e2a3a2b6e7f6d7e8f5c7c8d8a7b8g6g5g7f4f8g4h5h4a8b7g2g3h3h6h7h8g8g1h1";

/// The engine as a child process, talked to line by line.
struct Engine {
    child: common::Running,
    input: ChildStdin,
    /// Lines read by a thread of their own, so that an engine that never answers fails the test.
    output: std::sync::mpsc::Receiver<String>,
}

/// How long a test waits for any one line of the engine (a busy machine included).
const LINE_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = common::Running(
            common::othello_std()
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let input = child.stdin.take().unwrap();
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let (lines, output) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                if lines.send(std::mem::take(&mut line)).is_err() {
                    break;
                }
            }
        });
        Engine { child, input, output }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    fn line(&mut self) -> String {
        match self.output.recv_timeout(LINE_WAIT) {
            Ok(line) => line.trim_end().to_string(),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("no line from the engine in {LINE_WAIT:?}"),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("the engine ended its output"),
        }
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.line();
            let done = line.starts_with(prefix);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// A GTP answer: its lines up to the empty line that ends it.
    fn answer(&mut self, command: &str) -> String {
        self.send(command);
        let mut lines = Vec::new();
        loop {
            let line = self.line();
            if line.is_empty() {
                return lines.join("\n");
            }
            lines.push(line);
        }
    }

    fn finish(mut self) {
        drop(self.input);
        assert!(self.child.wait().unwrap().success());
    }
}

/// The script's own player: the legal move with the lowest index.
fn first_move(game: &Game) -> Square {
    game.position().moves().first().unwrap()
}

fn name(square: Square) -> String {
    String::from_utf8_lossy(&square.a1()).to_uppercase()
}

fn ggf(game: &Game) -> String {
    othello_core::notation::ggf::format(game, "script", "othello")
}

/// The engine plays `engine_side` with `go`, the script the other side, from `game` to the end;
/// every move goes to the engine as `move`, passes as `PA`. Returns the passes each way.
fn nboard_game(engine: &mut Engine, mut game: Game, engine_side: othello_core::Color) -> (usize, usize) {
    engine.send(&format!("set game {}", ggf(&game)));
    let (mut engine_passes, mut script_passes) = (0, 0);
    while !game.is_over() {
        let to_move = game.position().to_move;
        if to_move == engine_side {
            engine.send("go");
            let reply = engine.until("=== ").pop().unwrap();
            let chosen = reply.trim_start_matches("=== ").split('/').next().unwrap().to_string();
            if chosen == "PA" {
                assert_eq!(game.status(), Status::MustPass(to_move));
                game.pass().unwrap();
                engine_passes += 1;
            } else {
                let square = Square::from_a1(&chosen).unwrap();
                game.play(square, None).expect("the engine's move is legal");
            }
            engine.send(&format!("move {chosen}"));
        } else if game.status() == Status::MustPass(to_move) {
            game.pass().unwrap();
            script_passes += 1;
            engine.send("move PA");
        } else {
            let square = first_move(&game);
            game.play(square, None).unwrap();
            engine.send(&format!("move {}/0.00/0.1", name(square)));
        }
    }
    // The engine's game is the script's: a ping answered means it has read every move.
    engine.send("ping 99");
    engine.until("pong 99");
    (engine_passes, script_passes)
}

#[test]
fn an_nboard_session_plays_whole_games_with_passes_both_ways() {
    let mut engine = Engine::start(&["nboard"]);
    engine.send("nboard 2");
    assert_eq!(engine.line(), "set myname othello");
    engine.send("set depth 3");
    assert_eq!(engine.line(), "set myname othello3");
    // From the start, the engine white: the whole game.
    nboard_game(&mut engine, Game::new(Position::START), othello_core::Color::White);
    // Where white must pass after h2: the engine passes (=== PA), then the script.
    let before = transcript::play(Position::START, BEFORE_PASS).unwrap();
    let mut after_h2 = before.clone();
    after_h2.play(Square::from_a1("h2").unwrap(), None).unwrap();
    let (engine_passes, _) = nboard_game(&mut engine, after_h2, othello_core::Color::White);
    assert_eq!(engine_passes, 1);
    // The engine black from the same position: h2 (-8) is exactly best, b2 loses by 46; after h2
    // the script, white, must pass.
    let (_, script_passes) = nboard_game(&mut engine, before, othello_core::Color::Black);
    assert_eq!(script_passes, 1);
    engine.send("learn");
    assert_eq!(engine.line(), "learned");
    engine.send("quit");
    engine.finish();
}

#[test]
fn nboard_hints_give_the_best_moves_with_values_for_the_side_to_move() {
    let mut engine = Engine::start(&["nboard"]);
    engine.send("nboard 2");
    // Depth 10: moves into positions of at most 14 empty squares are solved.
    engine.send("set depth 10");
    let game = transcript::play(Position::START, &BEFORE_PASS[..2 * 46]).unwrap();
    engine.send(&format!("set game {}", ggf(&game)));
    engine.send("hint 3");
    let mut lines = Vec::new();
    while lines.last().is_none_or(|l: &String| l != "status") {
        lines.push(engine.line());
    }
    let lines = engine_lines_after(lines, "status analysing");
    let searches: Vec<&String> = lines.iter().filter(|l| l.starts_with("search ")).collect();
    // `hint 3`: the three best moves, best first (the position has more).
    let legal = game.position().moves().count() as usize;
    assert!(legal > 3, "{legal}");
    assert_eq!(searches.len(), 3, "{searches:?}");
    let values: Vec<f64> = searches
        .iter()
        .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
        .collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
    // 14 empties after each move: exact, equal to the solver's value.
    for line in searches {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[3], "0");
        assert_eq!(words[5], "exact");
        let square = Square::from_a1(words[1]).unwrap();
        let child = game.position().board.play(square);
        let solved = othello_engine::search::endgame::Solver::new().solve(child).unwrap();
        assert_eq!(words[2].parse::<f64>().unwrap(), -solved.score as f64, "{line}");
    }
    engine.send("quit");
    engine.finish();
}

/// Lines after the one equal to `marker` (there may be status lines before it).
fn engine_lines_after(lines: Vec<String>, marker: &str) -> Vec<String> {
    let start = lines.iter().position(|l| l == marker).expect("the marker line");
    lines[start + 1..].to_vec()
}

#[test]
fn a_ping_during_a_search_stops_it_and_is_answered() {
    let mut engine = Engine::start(&["nboard"]);
    engine.send("nboard 2");
    engine.send("set depth 30");
    engine
        .send("set game (;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *];)");
    engine.send("go");
    assert_eq!(engine.until("status thinking").pop().unwrap(), "status thinking");
    engine.send("ping 7");
    let lines = engine.until("pong 7");
    assert!(
        lines.iter().all(|l| !l.starts_with("=== ")),
        "a stopped go gives no move: {lines:?}"
    );
    // Unknown and malformed lines are ignored; the session goes on.
    engine.send("frobnicate 12");
    engine.send("move Z9");
    assert!(engine.line().starts_with("status ignored move Z9: "));
    engine.send("set depth banana");
    assert!(engine.line().starts_with("status ignored "));
    engine.send("set depth 2");
    assert_eq!(engine.line(), "set myname othello2");
    engine.send("go");
    let reply = engine.until("=== ").pop().unwrap();
    let square = Square::from_a1(reply[4..6].to_string().to_lowercase().as_str()).unwrap();
    assert!(Position::START.moves().contains(square), "{reply}");
    engine.send("quit");
    engine.finish();
}

/// The engine plays `engine_side` with `genmove`, the script the other with `play`; passes are
/// `pass` both ways. Returns the passes the engine made and the script made.
fn gtp_game(engine: &mut Engine, mut game: Game, engine_side: othello_core::Color) -> (usize, usize) {
    let letter = |color: othello_core::Color| if color == othello_core::Color::Black { "b" } else { "w" };
    let (mut engine_passes, mut script_passes) = (0, 0);
    while !game.is_over() {
        let to_move = game.position().to_move;
        if to_move == engine_side {
            let answer = engine.answer(&format!("genmove {}", letter(to_move)));
            let vertex = answer.strip_prefix("= ").unwrap_or_else(|| panic!("{answer}"));
            if vertex == "pass" {
                game.pass().expect("the engine passes only when it must");
                engine_passes += 1;
            } else {
                game.play(Square::from_a1(vertex).unwrap(), None).expect("legal");
            }
        } else if game.status() == Status::MustPass(to_move) {
            assert_eq!(engine.answer(&format!("play {} pass", letter(to_move))), "=");
            game.pass().unwrap();
            script_passes += 1;
        } else {
            let square = first_move(&game);
            game.play(square, None).unwrap();
            assert_eq!(
                engine.answer(&format!("play {} {}", letter(to_move), name(square))),
                "="
            );
        }
    }
    let (black, white) = game.position().counts();
    let expected = match black.cmp(&white) {
        std::cmp::Ordering::Greater => format!("= B+{}", black - white),
        std::cmp::Ordering::Less => format!("= W+{}", white - black),
        std::cmp::Ordering::Equal => "= 0".to_string(),
    };
    assert_eq!(engine.answer("final_score"), expected);
    (engine_passes, script_passes)
}

#[test]
fn a_gtp_session_plays_whole_games_with_passes_both_ways() {
    let mut engine = Engine::start(&["gtp", "--move-time", "0.02"]);
    assert_eq!(engine.answer("1 protocol_version"), "=1 2");
    assert_eq!(engine.answer("boardsize 8"), "=");
    assert!(engine.answer("boardsize 19").starts_with("? unacceptable size"));
    assert_eq!(engine.answer("clear_board"), "=");
    assert_eq!(engine.answer("time_settings 1 0 0"), "=");
    gtp_game(&mut engine, Game::new(Position::START), othello_core::Color::Black);
    // From the position where white must pass after h2: the script plays black's h2, the engine
    // passes for white.
    assert_eq!(engine.answer("clear_board"), "=");
    let before = transcript::play(Position::START, BEFORE_PASS).unwrap();
    for turn in before.turns() {
        if let othello_core::game::Turn::Move { side, square, .. } = turn {
            let letter = if *side == othello_core::Color::Black { "b" } else { "w" };
            assert_eq!(engine.answer(&format!("play {letter} {}", name(*square))), "=");
        }
    }
    let mut after_h2 = before.clone();
    after_h2.play(Square::from_a1("h2").unwrap(), None).unwrap();
    assert_eq!(engine.answer("play b h2"), "=");
    let (engine_passes, _) = gtp_game(&mut engine, after_h2, othello_core::Color::White);
    assert_eq!(engine_passes, 1);
    // The engine black there: it plays h2, exactly best, and the script must pass.
    assert_eq!(engine.answer("clear_board"), "=");
    for turn in before.turns() {
        if let othello_core::game::Turn::Move { side, square, .. } = turn {
            let letter = if *side == othello_core::Color::Black { "b" } else { "w" };
            assert_eq!(engine.answer(&format!("play {letter} {}", name(*square))), "=");
        }
    }
    let (_, script_passes) = gtp_game(&mut engine, before, othello_core::Color::Black);
    assert_eq!(script_passes, 1);
    // Undo, showboard, known and unknown commands; nothing ends the session but quit.
    assert_eq!(engine.answer("undo"), "=");
    assert!(engine.answer("showboard").starts_with("=\n   a b c d e f g h"));
    assert_eq!(engine.answer("known_command genmove"), "= true");
    assert_eq!(engine.answer("known_command frobnicate"), "= false");
    assert!(engine.answer("list_commands").contains("\ngenmove\n"));
    assert_eq!(engine.answer("frobnicate"), "? unknown command");
    assert!(engine.answer("play b z9").starts_with("? invalid vertex"));
    assert!(engine.answer("play").starts_with("? missing color"));
    assert_eq!(engine.answer("7 quit"), "=7");
    engine.finish();
}

/// GTP `undo` after a move that followed an implied pass takes back both: the position is the one
/// before the move, and the pass is made again when it is needed.
#[test]
fn gtp_undo_takes_back_an_implied_pass_with_the_move() {
    let mut engine = Engine::start(&["gtp"]);
    let before = transcript::play(Position::START, BEFORE_PASS).unwrap();
    for turn in before.turns() {
        if let othello_core::game::Turn::Move { side, square, .. } = turn {
            let letter = if *side == othello_core::Color::Black { "b" } else { "w" };
            assert_eq!(engine.answer(&format!("play {letter} {}", name(*square))), "=");
        }
    }
    assert_eq!(engine.answer("play b h2"), "=");
    // White must pass; black plays again without the controller saying so.
    assert_eq!(engine.answer("play b b1"), "=");
    let after = engine.answer("showboard");
    assert_eq!(engine.answer("undo"), "=");
    assert_eq!(engine.answer("play b b1"), "=");
    assert_eq!(engine.answer("showboard"), after);
    assert_eq!(engine.answer("undo"), "=");
    assert_eq!(engine.answer("play w pass"), "=");
    assert_eq!(engine.answer("play b b1"), "=");
    assert_eq!(engine.answer("showboard"), after);
    assert_eq!(engine.answer("quit"), "=");
    engine.finish();
}

const NBOARD_GAME: &str = "(;GM[Othello]PC[x]PB[a]PW[b]RE[?]TI[0]TY[8]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[F5]W[D6]B[C3]W[D3]B[C4];)";

#[test]
fn nboard_commands_during_a_search_wait_for_it_and_go_still_answers() {
    let mut engine = Engine::start(&["nboard"]);
    engine.send("nboard 2");
    engine.send("set depth 10");
    engine.send(&format!("set game {NBOARD_GAME}"));
    engine.send("go");
    // Before the answer: a setting, a hint and a new depth. None of them may stop the go.
    engine.send("set contempt 0");
    engine.send("hint 2");
    engine.send("set depth 4");
    let lines = engine.until("=== ");
    let answer = lines.last().unwrap();
    assert!(!answer.starts_with("=== PA"), "{lines:?}");
    let nodes: u64 = lines
        .iter()
        .find_map(|l| l.strip_prefix("nodestats "))
        .and_then(|l| l.split(' ').next()?.parse().ok())
        .unwrap();
    assert!(nodes > 1000, "a whole search, not a stopped one: {nodes} nodes");
    // Then the hint, for the same position, and the depth.
    let hint = engine.until("set myname othello4");
    assert!(
        hint.iter().filter(|l| l.starts_with("search ")).count() >= 2,
        "{hint:?}"
    );
    engine.send("quit");
    engine.finish();
}

#[test]
fn nboard_refuses_to_go_after_a_set_game_it_cannot_read() {
    let mut engine = Engine::start(&["nboard"]);
    engine.send("nboard 2");
    engine.send("set depth 2");
    engine.send(&format!("set game {NBOARD_GAME}"));
    engine.send("set game (;GM[Othello]BO[8 zz];)");
    engine.until("set myname othello2");
    assert!(engine.line().starts_with("status cannot read set game: "));
    engine.send("go");
    let refusal = engine.line();
    assert!(
        refusal.starts_with("status cannot go: the last set game could not be read"),
        "{refusal}"
    );
    engine.send("move F5");
    assert!(engine.line().starts_with("status ignored move F5"));
    // A game that can be read ends the refusal.
    engine.send(&format!("set game {NBOARD_GAME}"));
    engine.send("go");
    assert!(engine.until("=== ").last().unwrap().starts_with("=== "));
    engine.send("quit");
    engine.finish();
}

#[test]
fn gtp_stops_searching_when_its_input_ends_and_answers_its_best_move() {
    // A day's clock: on today's main this search ran for most of an hour after the input ended.
    let output = common::othello(["gtp"])
        .write_stdin("1 time_settings 86400 0 0\n2 play b d3\n3 genmove w\n")
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let answer = text
        .lines()
        .find(|l| l.starts_with("=3 "))
        .expect("an answer to genmove");
    let square = Square::from_a1(&answer[3..].to_lowercase()).unwrap();
    let after_d3 = othello_core::notation::transcript::play(Position::START, "d3")
        .unwrap()
        .position();
    assert!(after_d3.moves().contains(square), "{answer}");
}

#[test]
fn nboard_plays_on_the_clock_of_the_game_it_is_given() {
    let mut engine = Engine::start(&["nboard"]);
    engine.send("nboard 2");
    engine.send("set depth 20");
    // Three seconds a side; white, to move after c4, used 2.9 of them on d6 and d3.
    let game = NBOARD_GAME
        .replace("TI[0]", "TI[0:03]")
        .replace("W[D6]", "W[D6/0/2.5]")
        .replace("W[D3]", "W[D3//0.4]");
    engine.send(&format!("set game {game}"));
    let started = std::time::Instant::now();
    engine.send("go");
    let lines = engine.until("=== ");
    let took = started.elapsed();
    assert!(lines.iter().any(|l| l.contains("on the clock")), "{lines:?}");
    // Depth 20 takes minutes; the clock leaves a tenth of a second for all of white's moves (a
    // loaded machine may delay the answer, never the engine's own deadline).
    assert!(took < std::time::Duration::from_millis(1500), "{took:?}: {lines:?}");
    engine.send("quit");
    engine.finish();
}

/// `hint N` streamed every move whatever N, and a `go` still thinking when a piped session's input
/// ended got no `===`: `hint` alone streams every move, and the piped `go` is answered with the
/// best move found so far (as GTP's genmove is).
#[test]
fn nboard_hint_without_a_count_streams_every_move_and_a_piped_go_is_answered() {
    let mut engine = Engine::start(&["nboard"]);
    engine.send("nboard 2");
    engine.send("set depth 3");
    engine.send("hint");
    let mut lines = Vec::new();
    while lines.last().is_none_or(|l: &String| l != "status") {
        lines.push(engine.line());
    }
    let searches = engine_lines_after(lines, "status analysing")
        .into_iter()
        .filter(|l| l.starts_with("search "))
        .count();
    assert_eq!(searches, 4, "every move of the start position");
    engine.send("quit");
    engine.finish();
    let output = common::othello(["nboard"])
        .write_stdin("nboard 2\nset depth 30\ngo\n")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let reply = text
        .lines()
        .find(|l| l.starts_with("=== "))
        .unwrap_or_else(|| panic!("no move for a piped go: {text}"));
    let square = Square::from_a1(&reply[4..6].to_lowercase()).unwrap();
    assert!(Position::START.moves().contains(square), "{reply}");
}

//! The NBoard protocol (NBoard, the GUI by Chris Welty; also spoken by Edax and NTest): the GUI
//! sends `nboard 2`, `set depth N`, `set game GGF`, `move F5/eval/time`, `hint N`, `go`, `ping N`,
//! `learn`, `quit`; the engine answers `=== F5/eval/time` to `go`, streams `search F5 eval 0 depth`
//! lines to `hint`, `pong N` once it has stopped thinking, and `learned`. Evaluations are in discs
//! from the point of view of the side to move; a pass is written `PA` both ways. Lines it does not
//! know, or cannot read, are ignored (a `status` line says why), never the end of the session. As in
//! NTest, commands that arrive during a search wait for it; only `ping`, `quit` and the end of the
//! input stop it (a stopped `go` answers nothing).

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use othello_core::game::{Game, Status};
use othello_core::notation::ggf;
use othello_core::notation::transcript::{self, Written};
use othello_core::position::Position;
use othello_core::square::Square;
use othello_core::value::Value;
use othello_engine::search::analysis::{Analyst, MoveValue, Settings};
use othello_engine::search::engine::{Budget, Engine, EngineStyle};
use othello_engine::search::time::Clock;
use othello_engine::settings::EngineSettings;

/// The midgame depth until the GUI sets one.
pub const DEFAULT_DEPTH: u32 = 10;

/// A move's time for the timed engine if a clock is set without one (never: it always plays on the
/// clock it is given).
const CLOCKLESS_MOVE_TIME: Duration = Duration::from_secs(1);

/// The engine's name, as `set myname` reports it.
const NAME: &str = "othello";

/// Moves into positions with at most this many empties are solved exactly, for a midgame `depth`.
fn exact_empties(depth: u32) -> u32 {
    (depth + 4).min(20)
}

/// What a search returns to the session: its analyst and engine back, and the line to send if it
/// finished.
type Finished = (Analyst, Engine, Option<String>);

struct Session<W: Write + Send + 'static> {
    output: Arc<Mutex<W>>,
    game: Game,
    depth: u32,
    /// Kept between searches (its tables carry over); rebuilt when the depth changes.
    analyst: Option<Analyst>,
    /// The timed engine that plays on the game's clock, kept between moves too, and its threads.
    engine: super::Prepared<Engine>,
    threads: usize,
    /// The weights and book of its searches.
    settings: EngineSettings,
    /// The game's clock (GGF's `TI`), and what each side's moves took by the GUI's `move` times.
    clock: Option<ggf::GgfTime>,
    used: [f64; 2],
    /// Why the last `set game` could not be read: until a game is set, `go` and `hint` refuse rather
    /// than answer for the position before it.
    unreadable: Option<String>,
}

/// The timed engine of a session, on the game's clock or else `CLOCKLESS_MOVE_TIME` a move.
fn new_engine(threads: usize, settings: &EngineSettings) -> Engine {
    let mut engine = Engine::with_style(Budget::Time(CLOCKLESS_MOVE_TIME), EngineStyle::default(), settings);
    engine.set_threads(threads);
    engine
}

/// Lines that may wait during a search; a controller that sends more is not read until it ends.
const MAX_WAITING: usize = 10_000;

/// Runs a session until `quit` or the end of the input, its engine of `settings`' weights and book.
pub fn run<R, W>(input: R, output: W, threads: usize, settings: EngineSettings) -> io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let lines = super::lines_of(input);
    let mut session = Session {
        output: Arc::new(Mutex::new(output)),
        game: Game::new(Position::START),
        depth: DEFAULT_DEPTH,
        analyst: None,
        engine: super::Prepared::build(move || new_engine(threads, &settings)),
        threads,
        settings,
        clock: None,
        used: [0.0; 2],
        unreadable: None,
    };
    let mut waiting: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    loop {
        let line = match waiting.pop_front() {
            Some(line) => line,
            None => match lines.recv() {
                Ok(line) => line,
                Err(_) => return Ok(()),
            },
        };
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else { continue };
        let rest: Vec<&str> = words.collect();
        let search = match command {
            "go" => Some(SearchKind::Go),
            // `hint N`: the N best moves (every move is valued; without N, all of them).
            "hint" => Some(SearchKind::Hint(rest.first().and_then(|n| n.parse::<usize>().ok()))),
            "quit" => return Ok(()),
            _ => {
                session.handle(command, &rest, &line)?;
                None
            }
        };
        let Some(kind) = search else { continue };
        if let Some(why) = &session.unreadable {
            session.say(&format!(
                "status cannot {command}: the last set game could not be read ({why}); set a game first\n"
            ))?;
            continue;
        }
        // The search runs on its own thread; lines that come meanwhile wait for it, and only a
        // ping, quit or the end of the input stop it (the protocol: "stop thinking and respond").
        let stop = Arc::new(AtomicBool::new(false));
        let worker = session.start(kind, stop.clone());
        // A ping or quit silences the search's answer; the end of the input does not: a piped
        // `go` is answered with the best move found so far, as GTP's `genmove` is.
        let (mut stopped, mut ended) = (false, false);
        while !worker.is_finished() {
            if waiting.len() >= MAX_WAITING {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            match lines.recv_timeout(Duration::from_millis(5)) {
                Ok(line) => {
                    if matches!(line.split_whitespace().next(), Some("ping" | "quit")) {
                        stop.store(true, Ordering::Relaxed);
                        stopped = true;
                    }
                    waiting.push_back(line);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    stop.store(true, Ordering::Relaxed);
                    ended = true;
                    break;
                }
            }
        }
        let (analyst, engine, reply) = worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        session.analyst = Some(analyst);
        session.engine.put(engine);
        if let Some(reply) = reply.filter(|_| !stopped) {
            session.say(&reply)?;
        }
        session.say("status\n")?;
        if ended && waiting.is_empty() {
            return Ok(());
        }
    }
}

#[derive(Clone, Copy)]
enum SearchKind {
    Go,
    /// The best N moves, or every move.
    Hint(Option<usize>),
}

impl<W: Write + Send + 'static> Session<W> {
    fn say(&self, text: &str) -> io::Result<()> {
        let mut output = self.output.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        super::send(&mut *output, text)
    }

    fn handle(&mut self, command: &str, rest: &[&str], line: &str) -> io::Result<()> {
        match command {
            "nboard" => self.say(&format!("set myname {NAME}\n")),
            "set" => match rest.first().copied() {
                Some("depth") => match rest
                    .get(1)
                    .and_then(|d| d.parse::<u32>().ok())
                    .filter(|d| (1..=60).contains(d))
                {
                    Some(depth) => {
                        if depth != self.depth {
                            self.analyst = None;
                        }
                        self.depth = depth;
                        self.say(&format!("set myname {NAME}{depth}\n"))
                    }
                    None => self.say(&format!("status ignored {line:?}: a depth is 1..60\n")),
                },
                Some("game") => {
                    let text = line.split_once("game").map_or("", |(_, ggf)| ggf.trim());
                    match ggf::parse(text) {
                        Ok(mut games) => {
                            let set = games.swap_remove(0);
                            self.game = set.game;
                            self.clock = set.time;
                            self.used = set.used;
                            self.unreadable = None;
                            Ok(())
                        }
                        Err(error) => {
                            let why = error.to_string().replace(['\n', '\r'], " ");
                            let said = self.say(&format!(
                                "status cannot read set game: {why}; go and hint refuse until a game is set\n"
                            ));
                            self.unreadable = Some(why);
                            said
                        }
                    }
                }
                // Contempt changes nothing here: draws are valued as draws.
                Some("contempt") => Ok(()),
                _ => Ok(()),
            },
            "move" => self.play(rest.first().copied().unwrap_or("")),
            "ping" => self.say(&format!("pong {}\n", rest.first().copied().unwrap_or("0"))),
            "learn" => self.say("learned\n"),
            // NBoard 1.1 sent a bare move.
            word if word.len() == 2 => self.play(word),
            _ => Ok(()),
        }
    }

    /// `move F5/eval/time` or `move PA`.
    fn play(&mut self, text: &str) -> io::Result<()> {
        if self.unreadable.is_some() {
            return self.say(&format!(
                "status ignored move {text}: the last set game could not be read\n"
            ));
        }
        let name = text.split('/').next().unwrap_or("");
        let written = if name.eq_ignore_ascii_case("pa") {
            Some(Written::Pass)
        } else {
            Square::from_a1(name).map(Written::Square)
        };
        let number = self.game.moves().count() + 1;
        let side = self.game.position().to_move;
        let result = match written {
            Some(written) => transcript::play_one(&mut self.game, written, number).map_err(|e| e.to_string()),
            None => Err(format!("{name:?} is not a move: expected a square such as F5, or PA")),
        };
        match result {
            Ok(()) => {
                let seconds = text.split('/').nth(2).and_then(|t| t.trim().parse::<f64>().ok());
                self.used[side.index()] += seconds.filter(|s| s.is_finite() && *s >= 0.0).unwrap_or(0.0);
                Ok(())
            }
            Err(why) => self.say(&format!("status ignored move {text}: {why}\n")),
        }
    }

    fn start(&mut self, kind: SearchKind, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Finished> {
        let depth = self.depth;
        let threads = self.threads;
        let settings = self.settings;
        let mut analyst = self.analyst.take().unwrap_or_else(|| {
            let mut analyst = Analyst::new(
                Settings {
                    exact_empties: exact_empties(depth),
                    depth: depth.saturating_sub(1).max(1),
                },
                &settings,
            );
            analyst.set_threads(threads);
            analyst
        });
        analyst.set_stop(stop.clone());
        // The first move may wait here for the engine still being made: that is its time too.
        let asked = Instant::now();
        let mut engine = self.engine.take(|| new_engine(threads, &settings));
        engine.count_time_from(asked);
        engine.set_stop(stop);
        let side = self.game.position().to_move;
        // The increments of the moves made are not counted back: the clock errs on the safe side.
        let game_clock = self.clock.map(|time| Clock {
            left: Duration::from_secs_f64((time.main - self.used[side.index()]).max(0.0)),
            per_move: Duration::from_secs_f64(time.increment),
        });
        let game = self.game.clone();
        let output = self.output.clone();
        std::thread::spawn(move || {
            let say = |text: &str| {
                let mut output = output.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                let _ = super::send(&mut *output, text);
            };
            let clock = asked;
            let status = game.status();
            let board = game.position().board;
            let reply = match (kind, status) {
                (SearchKind::Go, Status::MustPass(_)) => Some("=== PA\n".to_string()),
                (_, Status::Over) => {
                    say("status the game is over\n");
                    None
                }
                (SearchKind::Hint(_), Status::MustPass(_)) => Some("search PA 0.00 0 0 pass\n".to_string()),
                (SearchKind::Go, Status::ToMove(_)) if game_clock.is_some() => {
                    // On a clock, the timed engine: the depth is for hints.
                    say("status thinking on the clock\n");
                    engine.set_clock(game_clock);
                    let choice = engine.choose(board);
                    let seconds = clock.elapsed().as_secs_f64();
                    say(&format!("nodestats {} {seconds:.2}\n", choice.nodes));
                    Some(format!(
                        "=== {}/{:.2}/{seconds:.1}\n",
                        upper(choice.best),
                        choice.value.number() as f64
                    ))
                }
                (SearchKind::Go, Status::ToMove(_)) => {
                    say("status thinking\n");
                    let moves = analyst.moves(board);
                    let nodes: u64 = moves.iter().map(|m| m.nodes).sum();
                    say(&format!("nodestats {nodes} {:.2}\n", clock.elapsed().as_secs_f64()));
                    // Stopped before any move was valued: the first legal one, worth nothing known.
                    let (square, value) = moves.first().map_or_else(
                        || (board.moves().squares().next().expect("a side to move has a move"), 0.0),
                        |best| (best.square, best.value.number() as f64),
                    );
                    Some(format!(
                        "=== {}/{value:.2}/{:.1}\n",
                        upper(square),
                        clock.elapsed().as_secs_f64()
                    ))
                }
                (SearchKind::Hint(wanted), Status::ToMove(_)) => {
                    say("status analysing\n");
                    match wanted.filter(|&n| n < board.moves().count() as usize) {
                        // Every move, streamed as it is valued: the GUI shows the best of them.
                        None => {
                            analyst.moves_with(board, |m| say(&search_line(m)));
                        }
                        // The best few, once all are valued.
                        Some(n) => {
                            for m in analyst.moves(board).iter().take(n) {
                                say(&search_line(m));
                            }
                        }
                    }
                    None
                }
            };
            (analyst, engine, reply)
        })
    }
}

/// `search F5 +2.00 0 10 estimate`: the move (the pv), its value for the side to move, 0, the depth,
/// and the value's kind.
fn search_line(m: &MoveValue) -> String {
    let depth = m.value.depth().unwrap_or(0);
    let kind = match m.value {
        Value::Exact { .. } => "exact",
        Value::Proven { .. } => "proven",
        _ => "estimate",
    };
    format!(
        "search {} {:.2} 0 {depth} {kind}\n",
        upper(m.square),
        m.value.number() as f64
    )
}

fn upper(square: Square) -> String {
    square.to_string().to_uppercase()
}

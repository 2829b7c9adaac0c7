//! GTP, the Go Text Protocol, as Othello engines speak it (Egaroucid and others): `boardsize 8`,
//! `clear_board`, `play b e3`, `genmove w`, `undo`, `showboard`, `time_settings`, `time_left`,
//! `list_commands`, `quit`... Each command may start with a number, echoed in its answer; an answer
//! is `= result` or `? error`, then an empty line. Unknown or malformed commands get an error answer
//! and the session goes on. A search ends early when the input ends (the controller is gone, or a
//! script sent all it had): it answers with the best move found so far.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use othello_core::color::Color;
use othello_core::game::{Game, Status, Turn};
use othello_core::position::Position;
use othello_core::square::Square;
use othello_engine::search::engine::{Budget, Engine, EngineStyle};
use othello_engine::search::time::Clock;
use othello_engine::settings::EngineSettings;

/// The commands this engine knows, as `list_commands` gives them.
const COMMANDS: [&str; 17] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "time_settings",
    "time_left",
    "final_score",
    "set_position",
];

/// Time a move by default, when no time settings came.
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_millis(1000);

/// About the most a move may take from a clock, however long the clock: a day's clock shared over
/// the moves would give each an hour, which buys nothing on 8x8 and leaves a controller waiting.
pub(crate) const MAX_MOVE_TIME: Duration = Duration::from_secs(60);

struct Session {
    game: Game,
    /// A move's time without time settings, and the threads a move is searched on.
    move_time: Duration,
    threads: usize,
    /// Main time per side and byo-yomi (time, stones) from `time_settings`, and what `time_left` said.
    main_time: Option<Duration>,
    byo_yomi: Option<(Duration, u32)>,
    left: [Option<Duration>; 2],
    /// Stones `time_left` said are still to play in the byo-yomi period (0: main time).
    stones: [u32; 2],
    /// What each side's moves took, by this engine's watch: its clock when `time_left` is not sent.
    used: [Duration; 2],
    /// Kept from move to move (its tables carry over); away while it searches.
    engine: super::Prepared<Engine>,
    settings: EngineSettings,
    /// The controller's lines, and those that came during a search and wait for their turn.
    lines: Receiver<String>,
    waiting: VecDeque<String>,
    input_ended: bool,
}

/// Runs a session until `quit` or the end of the input; `move_time` is the time a move without
/// time settings; the engine plays with `settings`' weights and book.
pub fn run(
    input: impl BufRead + Send + 'static,
    mut output: impl Write,
    move_time: Duration,
    threads: usize,
    settings: EngineSettings,
) -> io::Result<()> {
    let mut session = Session {
        game: Game::new(Position::START),
        move_time,
        threads,
        settings,
        main_time: None,
        byo_yomi: None,
        left: [None, None],
        stones: [0, 0],
        used: [Duration::ZERO; 2],
        engine: super::Prepared::build(move || new_engine(move_time, threads, &settings)),
        lines: super::lines_of(input),
        waiting: VecDeque::new(),
        input_ended: false,
    };
    while let Some(line) = session.next_line() {
        // Comments and empty lines get no answer.
        let line = line.split('#').next().unwrap_or("").trim().to_string();
        if line.is_empty() {
            continue;
        }
        let mut words: Vec<&str> = line.split_whitespace().collect();
        let id = words[0].parse::<u64>().ok();
        if id.is_some() {
            words.remove(0);
        }
        let Some((&command, arguments)) = words.split_first() else {
            continue;
        };
        let answer = session.answer(command, arguments);
        let id = id.map_or(String::new(), |id| id.to_string());
        let text = match &answer {
            Ok(result) if result.is_empty() => format!("={id}\n\n"),
            Ok(result) => format!("={id} {result}\n\n"),
            Err(error) => format!("?{id} {error}\n\n"),
        };
        super::send(&mut output, &text)?;
        if command == "quit" {
            break;
        }
    }
    Ok(())
}

/// The engine of a session: `move_time` a move unless a clock says otherwise.
fn new_engine(move_time: Duration, threads: usize, settings: &EngineSettings) -> Engine {
    let mut engine = Engine::with_style(Budget::Time(move_time), EngineStyle::default(), settings);
    engine.set_threads(threads);
    engine
}

fn color(word: Option<&&str>) -> Result<Color, String> {
    match word.map(|w| w.to_ascii_lowercase()) {
        Some(w) if w == "b" || w == "black" => Ok(Color::Black),
        Some(w) if w == "w" || w == "white" => Ok(Color::White),
        Some(w) => Err(format!("invalid color {w:?}: expected b or w")),
        None => Err("missing color: expected b or w".to_string()),
    }
}

impl Session {
    /// The next line: one that waited, or the next from the controller (None at the end).
    fn next_line(&mut self) -> Option<String> {
        self.waiting.pop_front().or_else(|| self.lines.recv().ok())
    }

    /// Runs `work` with a stop flag that is set when the input ends; lines that come meanwhile wait.
    fn until_input_ends<T: Send>(&mut self, work: impl FnOnce(Arc<AtomicBool>) -> T + Send) -> T {
        let stop = Arc::new(AtomicBool::new(self.input_ended));
        std::thread::scope(|scope| {
            let worker = scope.spawn({
                let stop = stop.clone();
                move || work(stop)
            });
            while !worker.is_finished() && !self.input_ended {
                match self.lines.recv_timeout(Duration::from_millis(5)) {
                    Ok(line) if self.waiting.len() < 10_000 => self.waiting.push_back(line),
                    Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => {
                        self.input_ended = true;
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
            worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    fn answer(&mut self, command: &str, arguments: &[&str]) -> Result<String, String> {
        match command {
            "protocol_version" => Ok("2".to_string()),
            "name" => Ok("othello".to_string()),
            "version" => Ok(env!("CARGO_PKG_VERSION").to_string()),
            "known_command" => Ok(COMMANDS.contains(arguments.first().unwrap_or(&"")).to_string()),
            "list_commands" => Ok(COMMANDS.join("\n")),
            "quit" => Ok(String::new()),
            "boardsize" => match arguments.first() {
                Some(&"8") => {
                    self.game = Game::new(Position::START);
                    Ok(String::new())
                }
                _ => Err("unacceptable size: Othello is played on 8x8".to_string()),
            },
            "clear_board" => {
                self.game = Game::new(Position::START);
                // A new game, a new clock: what the last one's moves took no longer counts.
                self.used = [Duration::ZERO; 2];
                self.left = [None, None];
                self.stones = [0, 0];
                Ok(String::new())
            }
            "komi" => Ok(String::new()),
            "play" => self.play(arguments),
            "genmove" => self.genmove(arguments),
            "undo" => {
                let undone = self.game.undo().ok_or("cannot undo: no move has been played")?;
                // A pass forced before the move undone goes with it: it was never the controller's
                // move, and `play` or `genmove` makes it again when it is needed.
                if matches!(undone, Turn::Move { .. }) && matches!(self.game.turns().last(), Some(Turn::Pass { .. })) {
                    self.game.undo();
                }
                Ok(String::new())
            }
            "showboard" => Ok(format!("\n{}", board_text(self.game.position()).trim_end())),
            "time_settings" => {
                let numbers: Vec<u64> = arguments.iter().filter_map(|a| a.parse().ok()).collect();
                let [main, byo, stones] = numbers[..] else {
                    return Err("syntax error: time_settings MAIN_SECONDS BYO_YOMI_SECONDS STONES".to_string());
                };
                self.main_time = Some(Duration::from_secs(main));
                self.byo_yomi = (byo > 0 && stones > 0).then(|| (Duration::from_secs(byo), stones as u32));
                self.left = [None, None];
                self.stones = [0, 0];
                self.used = [Duration::ZERO; 2];
                Ok(String::new())
            }
            "time_left" => {
                let side = color(arguments.first())?;
                let number = |i: usize| {
                    arguments
                        .get(i)
                        .and_then(|s| s.parse::<u32>().ok())
                        .ok_or("syntax error: time_left COLOR SECONDS STONES")
                };
                // Whole seconds in GTP; a fraction is taken too (scripts/engine-match.py sends one).
                let seconds = arguments
                    .get(1)
                    .and_then(|s| s.parse::<f64>().ok())
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                    .ok_or("syntax error: time_left COLOR SECONDS STONES")?;
                // The stones are optional: some controllers send only the seconds.
                let stones = if arguments.len() > 2 { number(2)? } else { 0 };
                self.left[side.index()] = Some(seconds);
                self.stones[side.index()] = stones;
                Ok(String::new())
            }
            "final_score" => {
                let (black, white) = self.game.position().counts();
                Ok(match black.cmp(&white) {
                    std::cmp::Ordering::Greater => format!("B+{}", black - white),
                    std::cmp::Ordering::Less => format!("W+{}", white - black),
                    std::cmp::Ordering::Equal => "0".to_string(),
                })
            }
            "set_position" => {
                // Not standard GTP: a lab board and the side to move, for tests and scripts.
                let board = arguments.first().ok_or("syntax error: set_position BOARD COLOR")?;
                let side = color(arguments.get(1))?;
                let (black, white) = othello_core::notation::lab_board::parse(board).map_err(|e| e.to_string())?;
                self.game = Game::new(Position::from_discs(black, white, side));
                Ok(String::new())
            }
            _ => Err("unknown command".to_string()),
        }
    }

    /// Brings the game to `side`'s turn: a forced pass of the other side is played.
    fn turn_of(&mut self, side: Color) -> Result<(), String> {
        if self.game.position().to_move != side && self.game.status() == Status::MustPass(!side) {
            self.game.pass().map_err(|e| e.to_string())?;
        }
        if self.game.position().to_move != side {
            return Err(format!("it is not {side}'s turn"));
        }
        Ok(())
    }

    fn play(&mut self, arguments: &[&str]) -> Result<String, String> {
        let side = color(arguments.first())?;
        let vertex = arguments.get(1).ok_or("syntax error: play COLOR MOVE")?;
        if vertex.eq_ignore_ascii_case("pass") {
            if self.game.position().to_move == side && self.game.status() == Status::MustPass(side) {
                self.game.pass().map_err(|e| e.to_string())?;
                return Ok(String::new());
            }
            // A pass for a side that is not to move, or that has a move, is refused.
            return Err(format!("illegal move: {side} cannot pass here"));
        }
        let square =
            Square::from_a1(vertex).ok_or_else(|| format!("invalid vertex {vertex:?}: expected a1..h8 or pass"))?;
        self.turn_of(side).map_err(|e| format!("illegal move: {e}"))?;
        self.game
            .play(square, None)
            .map(|_| String::new())
            .map_err(|e| format!("illegal move: {e}"))
    }

    fn genmove(&mut self, arguments: &[&str]) -> Result<String, String> {
        let side = color(arguments.first())?;
        if self.game.is_over() {
            return Ok("pass".to_string());
        }
        if self.game.position().to_move == side && self.game.status() == Status::MustPass(side) {
            self.game.pass().map_err(|e| e.to_string())?;
            return Ok("pass".to_string());
        }
        self.turn_of(side)?;
        let asked = std::time::Instant::now();
        let (move_time, threads, settings) = (self.move_time, self.threads, self.settings);
        // The first move may wait here for the engine still being made: that is its time too.
        let mut engine = self.engine.take(|| new_engine(move_time, threads, &settings));
        engine.count_time_from(asked);
        engine.set_clock(self.clock_for(side));
        let board = self.game.position().board;
        let (engine, choice) = self.until_input_ends(move |stop| {
            engine.set_stop(stop);
            let choice = engine.choose(board);
            (engine, choice)
        });
        self.engine.put(engine);
        self.used[side.index()] += asked.elapsed();
        self.game.play(choice.best, None).map_err(|e| e.to_string())?;
        Ok(choice.best.to_string().to_uppercase())
    }

    /// The clock of `side`'s next move: what `time_left` last said, else the main time less what
    /// its moves took here; none without time settings (the engine then has its time a move).
    fn clock_for(&self, side: Color) -> Option<Clock> {
        let own_moves = self.game.position().board.empty_count().div_ceil(2).max(1);
        let watched = self.main_time.map(|main| main.saturating_sub(self.used[side.index()]));
        let (left, stones) = match (self.left[side.index()], self.stones[side.index()]) {
            // Whole seconds, as GTP has them, most likely cut down from the controller's clock: the
            // engine's own watch, where it lies within the second they name. Taken as they come, a
            // clock spent to its last seconds would leave every move a second short, and the last
            // moves none (at 0.9 s left, `time_left b 0 0`).
            (Some(left), 0) if left.subsec_nanos() == 0 => (
                watched
                    .filter(|watched| (left..left.saturating_add(Duration::from_secs(1))).contains(watched))
                    .unwrap_or(left),
                0,
            ),
            (Some(left), stones) => (left, stones),
            (None, _) => (watched?, 0),
        };
        let clock = if stones > 0 {
            // In a byo-yomi period: its time for its stones, a move at a time.
            Clock {
                left: Duration::ZERO,
                per_move: left / stones,
            }
        } else {
            Clock {
                left,
                per_move: self
                    .byo_yomi
                    .map_or(Duration::ZERO, |(time, stones)| time / stones.max(1)),
            }
        };
        Some(Clock {
            left: clock.left.min(MAX_MOVE_TIME * own_moves),
            per_move: clock.per_move.min(MAX_MOVE_TIME),
        })
    }
}

/// The board with its coordinates, the side to move's moves marked `*`.
fn board_text(position: Position) -> String {
    othello_core::notation::board_text::board(position, position.moves(), None, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_engine::search::time::MoveTime;

    fn session() -> Session {
        Session {
            game: Game::new(Position::START),
            move_time: DEFAULT_MOVE_TIME,
            threads: 1,
            main_time: None,
            byo_yomi: None,
            left: [None, None],
            stones: [0, 0],
            used: [Duration::ZERO; 2],
            engine: super::super::Prepared::Absent,
            settings: EngineSettings::default(),
            lines: super::super::lines_of(io::empty()),
            waiting: VecDeque::new(),
            input_ended: false,
        }
    }

    #[test]
    fn a_long_clock_gives_a_move_at_most_about_a_minute() {
        let mut session = session();
        assert_eq!(
            session.clock_for(Color::Black),
            None,
            "no time settings: the time a move"
        );
        assert_eq!(session.answer("time_settings", &["86400", "0", "0"]), Ok(String::new()));
        let clock = session.clock_for(Color::Black).unwrap();
        assert_eq!(clock.left, MAX_MOVE_TIME * 30);
        // No iteration starts after a minute; one under way may run on to three.
        let time = MoveTime::from_clock(clock, 60);
        assert!(time.start_before <= MAX_MOVE_TIME && time.limit <= MAX_MOVE_TIME * 3);
        assert_eq!(session.answer("time_left", &["b", "300", "0"]), Ok(String::new()));
        assert_eq!(session.clock_for(Color::Black).unwrap().left, Duration::from_secs(300));
    }

    #[test]
    fn without_time_left_the_clock_is_the_main_time_less_what_the_moves_took() {
        let mut session = session();
        session.answer("time_settings", &["60", "0", "0"]).unwrap();
        session.used[Color::Black.index()] = Duration::from_secs(20);
        assert_eq!(session.clock_for(Color::Black).unwrap().left, Duration::from_secs(40));
        assert_eq!(session.clock_for(Color::White).unwrap().left, Duration::from_secs(60));
    }

    #[test]
    fn regression_time_left_in_whole_seconds_is_read_to_the_fraction_by_the_engines_watch() {
        let mut session = session();
        session.answer("time_settings", &["15", "0", "0"]).unwrap();
        session.used[Color::Black.index()] = Duration::from_millis(14_100);
        // 0.9 s left, as a controller that cuts it to whole seconds says it: not no time at all.
        session.answer("time_left", &["b", "0", "0"]).unwrap();
        assert_eq!(
            session.clock_for(Color::Black).unwrap().left,
            Duration::from_millis(900)
        );
        // A watch that disagrees with the controller's second is not believed.
        session.used[Color::Black.index()] = Duration::from_millis(12_500);
        assert_eq!(session.clock_for(Color::Black).unwrap().left, Duration::ZERO);
        // A fraction is taken as it is.
        session.answer("time_left", &["b", "0.25", "0"]).unwrap();
        assert_eq!(
            session.clock_for(Color::Black).unwrap().left,
            Duration::from_millis(250)
        );
        for bad in ["-1", "NaN", "inf", "x", "1e300"] {
            assert!(session.answer("time_left", &["b", bad, "0"]).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_byo_yomi_period_is_shared_over_its_stones() {
        let mut session = session();
        session.answer("time_settings", &["0", "30", "5"]).unwrap();
        assert_eq!(
            session.clock_for(Color::White).unwrap().per_move,
            Duration::from_secs(6)
        );
        session.answer("time_left", &["w", "20", "4"]).unwrap();
        let clock = session.clock_for(Color::White).unwrap();
        assert_eq!((clock.left, clock.per_move), (Duration::ZERO, Duration::from_secs(5)));
    }
}

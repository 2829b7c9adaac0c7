//! Students' programs as players, in the course's three forms: `argv:COMMAND` (run once a move with the
//! board and the token, Lab 4 of 2020), `quickmove:FILE.py` (imported once, `quickMove(board, token)`
//! called a move, Lab 4 of 2023) and `strategy:FILE.py` (the tournament server's `Strategy` class).
//! Every failure becomes one of the course's codes; nothing a program does can hang the caller.

use std::sync::Arc;
use std::time::{Duration, Instant};

pub mod rules;
pub mod setup;

use othello_core::notation::lab_board;
use othello_core::player::{Decision, Failed, Failure, Strategy};
use othello_core::position::Position;
use othello_core::square::Square;
use othello_plumbing::printable::escape;
use othello_sandbox::{self as runner, Ending, Job, Limits, Session, Silence, Timing, Word};
use rules::Rules;

/// The helper that imports a Python file and answers for it (see the file itself).
const HELPER: &str = include_str!("player_helper.py");

/// How the course runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramForm {
    Argv,
    QuickMove,
    Strategy,
}

impl std::str::FromStr for ProgramForm {
    type Err = String;

    fn from_str(text: &str) -> Result<ProgramForm, String> {
        match text {
            "argv" => Ok(ProgramForm::Argv),
            "quickmove" => Ok(ProgramForm::QuickMove),
            "strategy" => Ok(ProgramForm::Strategy),
            _ => Err(format!("unknown form {text:?}: expected argv, quickmove or strategy")),
        }
    }
}

impl ProgramForm {
    pub fn prefix(self) -> &'static str {
        match self {
            ProgramForm::Argv => "argv:",
            ProgramForm::QuickMove => "quickmove:",
            ProgramForm::Strategy => "strategy:",
        }
    }
}

/// The time a program has. A quickmove program's time is CPU time, as the course's moderator
/// measures it (`time.process_time()`); argv and strategy programs have wall time, as the course's
/// Lab 4 moderator and tournament server give it, unless `cpu_time`. Without the sandbox, every
/// time is wall time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Per move; `None`: only the game's time counts.
    pub move_time: Option<Duration>,
    /// Per game, the moves' times added up (quickmove only).
    pub game_time: Option<Duration>,
    /// CPU time for a Python file to import.
    pub import_time: Duration,
    /// CPU time for argv and strategy programs too.
    pub cpu_time: bool,
}

impl Clock {
    /// How a form's time is measured with this clock (in a sandbox).
    pub fn timing(&self, form: ProgramForm) -> Timing {
        if form == ProgramForm::QuickMove || self.cpu_time {
            Timing::Cpu
        } else {
            Timing::Wall
        }
    }
}

impl std::fmt::Display for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Only a quickmove clock has a game time; the others never carry one (see ClockArgs).
        match (self.move_time, self.game_time) {
            (Some(m), Some(g)) => write!(f, "{} s a move, {} s a game", m.as_secs_f64(), g.as_secs_f64()),
            (Some(m), None) => write!(f, "{} s a move", m.as_secs_f64()),
            (None, Some(g)) => write!(f, "{} s a game", g.as_secs_f64()),
            (None, None) => f.write_str("no time limit"),
        }
    }
}

/// A program as a player: its form, what to run (a command line, or a Python file), and its clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramSpec {
    pub form: ProgramForm,
    pub target: String,
    pub clock: Clock,
    /// Each run gets a copy of the whole folder of the program's file (a student's own folder, with
    /// their other modules), not of the file alone.
    pub whole_folder: bool,
    /// For a quickmove file: `quickMove('', N)` once before its games, as the later labs' moderators
    /// pass the hole limit.
    pub hole_limit: Option<u32>,
    /// The board in upper case (`.XO`), as the 2018 moderators sent it; lower case otherwise.
    pub upper_board: bool,
    /// The course's rules it plays by (its clock's defaults, what a time-out is).
    pub rules: Rules,
    /// Unused time carried over to the next move, in whole seconds, as the server's runoff does.
    pub runoff: bool,
    /// A class member's entry by its own bytes (a name need not be UTF-8, and a file named
    /// `python3` is a student's like any other), with the `--run` template's words for argv (`{}`
    /// stands for the entry): what is run. `target` is then only its text for people.
    pub member: Option<(std::path::PathBuf, Vec<String>)>,
    /// How its runs are kept apart (a sandbox with the default resources unless the front end
    /// says otherwise).
    pub isolation: runner::Isolation,
    /// Python helpers with the file imported, waiting for their next game.
    helpers: HelperPool,
}

/// Idle helpers: a file is imported once and plays game after game (a helper that failed is not
/// kept). Not part of what a spec is: copies start empty and all pools compare equal.
#[derive(Default)]
struct HelperPool(std::sync::Mutex<Vec<Helper>>);

impl HelperPool {
    fn take(&self) -> Option<Helper> {
        self.0.lock().ok()?.pop()
    }

    fn give_back(&self, helper: Helper) {
        if let Ok(mut idle) = self.0.lock() {
            idle.push(helper);
        }
    }
}

impl Clone for HelperPool {
    fn clone(&self) -> HelperPool {
        HelperPool::default()
    }
}

impl PartialEq for HelperPool {
    fn eq(&self, _: &HelperPool) -> bool {
        true
    }
}

impl Eq for HelperPool {}

impl std::fmt::Debug for HelperPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HelperPool")
    }
}

/// A program that cannot play at all; found before the first game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{spec}: {why}")]
pub struct ProgramError {
    pub spec: String,
    pub why: String,
}

impl ProgramSpec {
    pub fn new(form: ProgramForm, target: &str) -> ProgramSpec {
        ProgramSpec {
            form,
            target: target.to_string(),
            clock: Rules::for_form(form).clock(form, false),
            whole_folder: false,
            hole_limit: None,
            upper_board: false,
            rules: Rules::for_form(form),
            runoff: false,
            member: None,
            isolation: runner::Isolation::default(),
            helpers: HelperPool::default(),
        }
    }

    /// What its clock measures here: CPU time or wall time (always wall time without the sandbox).
    pub fn timing(&self) -> Timing {
        if self.isolation.is_sandbox() {
            self.clock.timing(self.form)
        } else {
            Timing::Wall
        }
    }

    /// Its clock as reports give it: `0.3 s a game, CPU time`.
    pub fn clock_text(&self) -> String {
        let measure = match self.timing() {
            Timing::Cpu => "CPU time",
            Timing::Wall => "wall time",
        };
        format!("{}, {measure}", self.clock)
    }

    fn error(&self, why: impl Into<String>) -> ProgramError {
        ProgramError {
            spec: escape(&format!("{}{}", self.form.prefix(), self.target)).into_owned(),
            why: why.into(),
        }
    }

    /// The command and its arguments (for `argv`), or the Python helper's (for the others).
    fn words(&self) -> Result<Vec<Word>, ProgramError> {
        match self.form {
            ProgramForm::Argv => {
                if let Some((entry, template)) = &self.member {
                    return Ok(runner::template_words(template, entry));
                }
                let words = shell_words::split(&self.target)
                    .map_err(|e| self.error(format!("cannot read the command: {e}")))?;
                if words.is_empty() {
                    return Err(self.error("an empty command"));
                }
                Ok(runner::command_line(&words, self.whole_folder))
            }
            ProgramForm::QuickMove | ProgramForm::Strategy => {
                let mode = if self.form == ProgramForm::QuickMove {
                    "quickmove"
                } else {
                    "strategy"
                };
                let copy = match &self.member {
                    Some((entry, _)) => Word::copy_resolved(entry, false, "{}"),
                    None => {
                        let file = std::path::absolute(&self.target).map_err(|e| self.error(e.to_string()))?;
                        Word::copy_of(&file, self.whole_folder)
                    }
                };
                let mut words = vec![
                    Word::text("python3"),
                    Word::text("-u"),
                    Word::text("-c"),
                    Word::text(HELPER),
                    Word::text(mode),
                    copy,
                ];
                if let (ProgramForm::QuickMove, Some(holes)) = (self.form, self.hole_limit) {
                    words.push(Word::text(holes.to_string()));
                }
                Ok(words)
            }
        }
    }

    fn job(&self, extra: &[String]) -> Result<Job, ProgramError> {
        let mut command = self.words()?;
        command.extend(extra.iter().map(Word::text));
        Ok(Job {
            command,
            // Python keeps printed lines in a buffer when stdout is a pipe: a program cut off at its
            // time limit would lose the move it had already printed.
            env: vec![("PYTHONUNBUFFERED".to_string(), "1".to_string())],
        })
    }

    /// Checks, before any game, that the program can play: its command exists, or its file imports in
    /// time and defines what the form needs.
    pub fn check(&self) -> Result<(), ProgramError> {
        match self.form {
            ProgramForm::Argv => {
                let words = match &self.member {
                    Some((_, template)) => template.clone(),
                    None => shell_words::split(&self.target)
                        .map_err(|e| self.error(format!("cannot read the command: {e}")))?,
                };
                match words.first() {
                    // The member's own entry, there when the class was listed.
                    Some(first) if first.contains("{}") => Ok(()),
                    None => Err(self.error("an empty command")),
                    Some(first) if !runner::is_runnable(first) => Err(self.error(format!("no such program: {first}"))),
                    // A class member's script is its entry, there when the class was listed.
                    Some(_) if self.member.is_some() => Ok(()),
                    Some(_) => match runner::command_refused(&words) {
                        Some(why) => Err(self.error(why)),
                        None => Ok(()),
                    },
                }
            }
            ProgramForm::QuickMove | ProgramForm::Strategy => {
                let file = self
                    .member
                    .as_ref()
                    .map_or_else(|| std::path::PathBuf::from(&self.target), |(entry, _)| entry.clone());
                if !file.is_file() {
                    return Err(self.error("no such file"));
                }
                Helper::start(self)
                    .map(|helper| self.helpers.give_back(helper))
                    .map_err(|failed| {
                        let mut why = failed.failure.to_string();
                        // Its last line of stderr, unless the message has it already or it is a traceback's frame.
                        let telling = |last: &&String| {
                            !why.contains(last.as_str())
                                && !last.starts_with(char::is_whitespace)
                                && !last.starts_with("Traceback")
                        };
                        if let Some(last) = failed.stderr_tail.last().filter(telling) {
                            why.push_str(&format!(" ({last})"));
                        }
                        self.error(why)
                    })
            }
        }
    }
}

/// A program playing one game (a new player is built for each game).
pub struct ProgramPlayer {
    spec: Arc<ProgramSpec>,
    helper: Option<Helper>,
    /// Time used in this game so far.
    used: Duration,
    /// With runoff: the unused time of its last move, added to the next one's.
    carried: Duration,
    /// The last lines of stderr its last argv run wrote, for a failure found after the move.
    stderr_tail: Vec<String>,
}

impl ProgramPlayer {
    pub fn new(spec: Arc<ProgramSpec>) -> ProgramPlayer {
        ProgramPlayer {
            spec,
            helper: None,
            used: Duration::ZERO,
            carried: Duration::ZERO,
            stderr_tail: Vec::new(),
        }
    }

    /// The time this move may take: the move's limit, within what is left of the game's (a quickmove
    /// program's only: the other forms have no game clock).
    fn limit(&self) -> Result<Duration, Failure> {
        let clock = self.spec.clock;
        let game_time = clock.game_time.filter(|_| self.spec.form == ProgramForm::QuickMove);
        let left = game_time.map(|game| game.saturating_sub(self.used));
        if left == Some(Duration::ZERO) {
            return Err(Failure::TimedOut);
        }
        let move_time = clock.move_time.map(|per_move| per_move + self.carried);
        Ok(match (move_time, left) {
            (Some(per_move), Some(left)) => per_move.min(left),
            (Some(per_move), None) => per_move,
            (None, Some(left)) => left,
            (None, None) => Duration::from_secs(3600),
        })
    }

    /// The board as the program gets it: 64 characters, in the case the course's moderator sends.
    fn board_text(&self, position: Position) -> String {
        let board = lab_board::format(position);
        if self.spec.upper_board {
            board.to_ascii_uppercase()
        } else {
            board.to_ascii_lowercase()
        }
    }

    fn argv_move(&mut self, position: Position, limit: Duration) -> Result<(Option<i64>, Duration), Failed> {
        let board = self.board_text(position);
        let token = position.to_move.lab_char().to_string();
        let job = self
            .spec
            .job(&[board, token])
            .map_err(|e| Failed::from(Failure::Crashed(e.why)))?;
        let limits = Limits {
            time: limit,
            timing: self.spec.clock.timing(ProgramForm::Argv),
            stdout: 64 << 10,
            stderr: 16 << 10,
            isolation: self.spec.isolation.clone(),
        };
        let run = runner::run(&job, &limits);
        self.stderr_tail = run.stderr_tail(5);
        let failed = |failure| Failed {
            failure,
            stderr_tail: run.stderr_tail(5),
        };
        // The course's rule: the last integer printed before the program ends or is cut off.
        let last = last_integer(&String::from_utf8_lossy(&run.stdout));
        let time = run.time(&limits);
        let hoarding = self.spec.rules.hoarding();
        match (&run.ending, last) {
            // The 2021 rule: a time-out is not an error, the last integer printed is the move.
            (Ending::TimedOut, Some(_)) if hoarding => Ok((last, time)),
            (Ending::TimedOut, Some(_)) => Err(failed(Failure::TimedOut)),
            (Ending::Exited(0) | Ending::OutputLimit, Some(_)) => Ok((last, time)),
            (ending, None) if ending.is_time_out() => Err(failed(Failure::TimedOut)),
            (Ending::Exited(0) | Ending::OutputLimit, None) => Err(failed(Failure::NoMove)),
            (ending, _) => Err(failed(Failure::Crashed(ending.describe(&limits)))),
        }
    }

    fn helper_move(&mut self, position: Position, limit: Duration) -> Result<(Option<i64>, Duration), Failed> {
        if self.helper.is_none() {
            self.helper = Some(match self.spec.helpers.take() {
                Some(helper) => helper,
                None => Helper::start(&self.spec)?,
            });
        }
        let board = self.board_text(position);
        let helper = self.helper.as_mut().expect("started above");
        let timing = self.spec.timing();
        let request = format!(
            "move {} {} {:.6}{}",
            board,
            position.to_move.lab_char(),
            limit.as_secs_f64(),
            if timing == Timing::Cpu { " cpu" } else { "" }
        );
        // The strategy form stops its child at the limit itself: allow for that, then the helper is
        // stopped too. A quickMove call has the limit and nothing more.
        let grace = match self.spec.form {
            ProgramForm::Strategy => Duration::from_millis(500),
            _ => Duration::ZERO,
        };
        // In a sandbox its init stops the helper at the limit, measured as the form's rule says;
        // without one, the wall clock does.
        let before = helper.session.limit(Some(limit + grace), timing);
        let wait = match (before, timing) {
            (Some(_), Timing::Cpu) => runner::wall_backstop(limit + grace),
            _ => limit + grace,
        };
        let started = Instant::now();
        let answer = if helper.session.send(&request) {
            // A second line already there with the answer is a flood too; so is one soon after an
            // answer the helper would never give (the student's code writing the answers' pipe).
            helper.session.receive(wait).and_then(|answer| {
                let garbled = || {
                    !well_formed(&answer)
                        && matches!(
                            helper.session.receive(Duration::from_millis(50)),
                            Ok(_) | Err(Silence::Flooded)
                        )
                };
                if helper.session.unasked() || garbled() {
                    Err(Silence::Flooded)
                } else {
                    Ok(answer)
                }
            })
        } else if helper.session.unasked() {
            Err(Silence::Flooded)
        } else {
            Err(Silence::Ended)
        };
        let wall = started.elapsed();
        let after = helper.session.limit(None, timing);
        let elapsed = match (before, after, timing) {
            (Some(before), Some(after), Timing::Cpu) => after.saturating_sub(before),
            _ => wall,
        };
        let fail = |helper: &Helper, failure| Failed {
            failure,
            stderr_tail: helper.session.stderr_tail(5),
        };
        let answer = match answer {
            Ok(answer) => answer,
            Err(silence) => {
                let mut helper = self.helper.take().expect("started above");
                let failure = match silence {
                    Silence::Flooded => Failure::Crashed(Silence::flood_text()),
                    Silence::TimedOut => Failure::TimedOut,
                    Silence::Ended => match helper.session.ending() {
                        Some(ending) if ending.is_time_out() => Failure::TimedOut,
                        Some(ending) if ending.is_resource_limit() => Failure::Crashed(ending.describe(&Limits {
                            isolation: self.spec.isolation.clone(),
                            ..Limits::default()
                        })),
                        _ => Failure::Crashed("the program ended".to_string()),
                    },
                };
                return Err(fail(&helper, failure));
            }
        };
        if self.spec.form == ProgramForm::QuickMove && elapsed > limit {
            return Err(fail(helper, Failure::TimedOut));
        }
        match answer.split_once(' ') {
            Some(("move", number)) => match number.trim().parse::<i64>() {
                Ok(-1) if self.spec.form == ProgramForm::Strategy => Err(fail(helper, Failure::NoMove)),
                Ok(move_) => Ok((Some(move_), elapsed)),
                Err(_) => Err(fail(helper, Failure::NoMove)),
            },
            Some(("error", message)) => Err(fail(helper, Failure::Crashed(escape(message).into_owned()))),
            Some(("illegal", text)) => Err(fail(helper, Failure::NotAMove(escape(text).into_owned()))),
            _ if answer == "none" => Err(fail(helper, Failure::NoMove)),
            _ => Err(fail(
                helper,
                Failure::Crashed(format!("an answer the helper cannot give: {answer:?}")),
            )),
        }
    }
}

/// Whether a line is one the helper answers with (`move N`, `none`, `illegal TEXT`, `error TEXT`).
fn well_formed(answer: &str) -> bool {
    match answer.split_once(' ') {
        Some(("move", number)) => number.parse::<i64>().is_ok(),
        Some(("illegal" | "error", _)) => true,
        _ => answer == "none",
    }
}

/// The move in a program's output: the last integer once decimals are deleted (one too large for
/// i64 reads as i64::MAX, an illegal move either way).
fn last_integer(text: &str) -> Option<i64> {
    othello_core::notation::numbers::last_move_number(text)
}

impl Strategy for ProgramPlayer {
    fn choose(&mut self, position: Position) -> Result<Decision, Failed> {
        let limit = self.limit()?;
        let (number, elapsed) = match self.spec.form {
            ProgramForm::Argv => self.argv_move(position, limit)?,
            ProgramForm::QuickMove | ProgramForm::Strategy => self.helper_move(position, limit)?,
        };
        self.used += elapsed;
        if self.spec.runoff {
            // The server rounds the unused time to whole seconds.
            let unused = limit.saturating_sub(elapsed).as_secs_f64().round();
            self.carried = Duration::from_secs_f64(unused);
        }
        // The program's stderr is read only for a failure: a helper's takes a moment to catch up.
        let failed = |failure| Failed {
            failure,
            stderr_tail: self.tail(),
        };
        let number = number.ok_or_else(|| failed(Failure::NoMove))?;
        let square = u8::try_from(number)
            .ok()
            .and_then(Square::new)
            .filter(|&square| position.moves().contains(square))
            .ok_or_else(|| failed(Failure::Illegal(number)))?;
        Ok(Decision {
            square,
            value: None,
            nodes: 0,
            time: Some(elapsed),
        })
    }

    fn stderr_tail(&mut self) -> Vec<String> {
        self.tail()
    }
}

impl ProgramPlayer {
    /// The last lines of stderr of its helper, or of its last argv run.
    fn tail(&self) -> Vec<String> {
        match &self.helper {
            Some(helper) => helper.session.stderr_tail(5),
            None => self.stderr_tail.clone(),
        }
    }
}

impl Drop for ProgramPlayer {
    /// A quickmove helper plays game after game (the 2023 moderator imports the file once); a
    /// strategy's helper is not used again (the server imports the file, and constructs its Strategy,
    /// anew for every game).
    fn drop(&mut self) {
        if let Some(helper) = self.helper.take()
            && self.spec.form == ProgramForm::QuickMove
        {
            self.spec.helpers.give_back(helper);
        }
    }
}

/// The Python helper with a student's file imported.
struct Helper {
    session: Session,
}

impl Helper {
    fn start(spec: &ProgramSpec) -> Result<Helper, Failed> {
        let job = spec.job(&[]).map_err(|e| Failed::from(Failure::Crashed(e.why)))?;
        let limits = Limits {
            time: spec.clock.import_time,
            timing: Timing::Cpu,
            stderr: 16 << 10,
            isolation: spec.isolation.clone(),
            ..Limits::default()
        };
        let mut session = Session::start(&job, &limits).map_err(|error| {
            Failed::from(Failure::Crashed(if error.starts_with("no such program") {
                "python3 is not installed (or not in PATH)".to_string()
            } else {
                format!("cannot start python3: {error}")
            }))
        })?;
        let failed = |session: &Session, why: String| Failed {
            failure: Failure::Crashed(why),
            stderr_tail: session.stderr_tail(5),
        };
        // CPU time to import in a sandbox, with its wall-clock backstop; wall time without one.
        let wait = if limits.isolation.is_sandbox() {
            runner::wall_backstop(spec.clock.import_time)
        } else {
            spec.clock.import_time
        };
        match session.receive(wait) {
            Ok(line) if line == "ready" => {
                // Idle in the pool until its first move: no limit then.
                session.limit(None, Timing::Cpu);
                Ok(Helper { session })
            }
            Ok(line) => Err(failed(
                &session,
                format!(
                    "import failed: {}",
                    escape(line.strip_prefix("error ").unwrap_or(&line))
                ),
            )),
            Err(Silence::TimedOut) => Err(failed(
                &session,
                format!("the import took more than {} s", spec.clock.import_time.as_secs_f64()),
            )),
            Err(Silence::Flooded) => Err(failed(&session, format!("{} during the import", Silence::flood_text()))),
            Err(Silence::Ended) => {
                let why = match session.ending() {
                    Some(ending) if ending.is_time_out() => format!(
                        "the import took more than {} s of CPU time",
                        spec.clock.import_time.as_secs_f64()
                    ),
                    Some(Ending::NotStarted(why)) => why,
                    Some(ending) if ending.is_resource_limit() => {
                        format!("{} during the import", ending.describe(&limits))
                    }
                    _ => "python3 ended before the import was done".to_string(),
                };
                Err(failed(&session, why))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_integer_is_the_move() {
        assert_eq!(last_integer("thinking 19\nbetter: 26\n"), Some(26));
        assert_eq!(last_integer("my move is -1"), Some(-1));
        assert_eq!(last_integer("no digits"), None);
        // A number too large for any square is no move (-4), not an illegal one.
        assert_eq!(last_integer("99999999999999999999999"), None);
        // Timing after the move is not the move, as the course's moderators read it.
        assert_eq!(last_integer("27\ntook 0.27 s\n"), Some(27));
        assert_eq!(last_integer("move 19, in .5 s (3.25 ms a node)"), Some(19));
        assert_eq!(last_integer("my move is 27."), Some(27));
    }
}

//! How a run's players are set up before their first game: each program's clock by the course's
//! rules and the teacher's options (times for every player, one form's, or the Nth named), its
//! copy and board settings, how it is isolated; a timed engine's game clock; and a check that it
//! can play at all. A value any front end fills in (the command line's options, a server's rules).

use std::time::Duration;

use super::rules::Rules;
use super::{ProgramError, ProgramForm};
use crate::strategy::StrategySpec;
use othello_sandbox::Isolation;

/// A number of seconds: positive, finite, at most a day.
pub fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(value) if value > 0.0 && value <= 86_400.0 => Ok(Duration::from_secs_f64(value)),
        _ => Err(format!("{text:?} is not a number of seconds in (0, 86400]")),
    }
}

/// A time given to some players: all of them, every player of one form (`argv=3`), or the Nth player
/// named (`2=1`: the second).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeFor {
    who: Who,
    time: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    All,
    Form(ProgramForm),
    Nth(usize),
}

impl TimeFor {
    /// How closely it names a player (the closest setting wins), or None if it does not; a
    /// built-in strategy has no form.
    fn fits(&self, form: Option<ProgramForm>, nth: usize) -> Option<u8> {
        match self.who {
            Who::All => Some(0),
            Who::Form(f) if Some(f) == form => Some(1),
            Who::Nth(n) if n == nth => Some(2),
            _ => None,
        }
    }
}

impl std::str::FromStr for TimeFor {
    type Err = String;

    /// `SECONDS`, `FORM=SECONDS` or `N=SECONDS`.
    fn from_str(text: &str) -> Result<TimeFor, String> {
        let Some((who, time)) = text.split_once('=') else {
            return Ok(TimeFor {
                who: Who::All,
                time: seconds(text)?,
            });
        };
        let who = match who {
            "argv" => Who::Form(ProgramForm::Argv),
            "quickmove" => Who::Form(ProgramForm::QuickMove),
            "strategy" => Who::Form(ProgramForm::Strategy),
            number => match number.parse::<usize>() {
                Ok(n) if n >= 1 => Who::Nth(n),
                _ => {
                    return Err(format!(
                        "{who:?} names no player: expected argv, quickmove, strategy or a player's place (1, 2, ...)"
                    ));
                }
            },
        };
        Ok(TimeFor {
            who,
            time: seconds(time)?,
        })
    }
}

/// The setting among `settings` that names this player most closely.
fn closest(settings: &[TimeFor], form: Option<ProgramForm>, nth: usize) -> Option<Duration> {
    settings
        .iter()
        .filter_map(|s| s.fits(form, nth).map(|closeness| (closeness, s.time)))
        .max_by_key(|(closeness, _)| *closeness)
        .map(|(_, time)| time)
}

/// What players are given besides their spec; every field's default leaves the course's rules as
/// they are.
#[derive(Clone, Debug, Default)]
pub struct PlayerSetup {
    /// One year's rules for every program (else each program's form's most recent).
    pub rules: Option<Rules>,
    pub move_time: Vec<TimeFor>,
    /// A quickmove program's clock for a game; a timed engine's game clock of wall time.
    pub game_time: Vec<TimeFor>,
    pub import_time: Option<Duration>,
    /// CPU time for argv and strategy programs too.
    pub cpu_time: bool,
    pub whole_folder: bool,
    pub hole_limit: Option<u32>,
    pub upper_board: bool,
    pub runoff: bool,
    /// A tournament: the server's rules give it 1 s a move.
    pub tournament: bool,
    /// How the programs run.
    pub isolation: Isolation,
}

/// Why a player cannot be set up so.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(
        "bad argument --game-time: player {nth} ({spec}) is not a quickmove program, and only those have a game clock"
    )]
    GameClockOfProgram { nth: usize, spec: String },
    #[error(
        "bad argument --game-time: player {nth} ({spec}) has no clock: only a timed engine (engine[:MS]) and quickmove programs have one"
    )]
    NoClock { nth: usize, spec: String },
    #[error("bad argument --move-time {time}: the {rules} rules allow at most {max} s a move")]
    MoveTime { time: f64, rules: Rules, max: f64 },
    #[error(transparent)]
    Program(#[from] ProgramError),
}

impl PlayerSetup {
    /// `spec` with these settings, checked that it can play at all (a program's command exists,
    /// its file imports); `nth` is its place among the players named, from 1.
    pub fn prepare(&self, spec: &StrategySpec, nth: usize) -> Result<StrategySpec, SetupError> {
        if let StrategySpec::Program(program) = spec {
            let named = self
                .game_time
                .iter()
                .any(|s| s.fits(Some(program.form), nth).is_some_and(|closeness| closeness > 0));
            if named && program.form != ProgramForm::QuickMove {
                return Err(SetupError::GameClockOfProgram {
                    nth,
                    spec: spec.to_string(),
                });
            }
        }
        let mut spec = spec.clone();
        if let StrategySpec::Engine { game_time, .. } = &mut spec {
            *game_time = closest(&self.game_time, None, nth);
        } else if !matches!(spec, StrategySpec::Program(_))
            && self.game_time.iter().any(|s| s.fits(None, nth) == Some(2))
        {
            return Err(SetupError::NoClock {
                nth,
                spec: spec.to_string(),
            });
        }
        let spec = spec.with_program(|program| {
            program.isolation = self.isolation.clone();
            if let Some(rules) = self.rules {
                program.rules = rules;
            }
            program.clock = program.rules.clock(program.form, self.tournament);
            program.runoff |= self.runoff;
            program.whole_folder |= self.whole_folder;
            program.upper_board |= self.upper_board;
            if self.hole_limit.is_some() {
                program.hole_limit = self.hole_limit;
            }
            let form = program.form;
            let clock = &mut program.clock;
            if self.cpu_time {
                clock.cpu_time = true;
            }
            if let Some(time) = closest(&self.move_time, Some(form), nth) {
                clock.move_time = Some(time);
            }
            if let Some(time) = closest(&self.game_time, Some(form), nth).filter(|_| form == ProgramForm::QuickMove) {
                clock.game_time = Some(time);
            }
            if let Some(time) = self.import_time {
                clock.import_time = time;
            }
        });
        if let StrategySpec::Program(program) = &spec
            && let (Some(max), Some(time)) = (program.rules.max_move_time(), program.clock.move_time)
            && time > max
        {
            return Err(SetupError::MoveTime {
                time: time.as_secs_f64(),
                rules: program.rules,
                max: max.as_secs_f64(),
            });
        }
        spec.check()?;
        Ok(spec)
    }

    /// The rules asked for, or the most recent rules of this player's form (lab4-2024 for a
    /// built-in strategy: the most recent course).
    pub fn rules_for(&self, spec: &StrategySpec) -> Rules {
        self.rules.unwrap_or(match spec {
            StrategySpec::Program(program) => program.rules,
            _ => Rules::Lab4_2024,
        })
    }
}

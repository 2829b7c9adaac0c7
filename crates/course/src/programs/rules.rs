//! The course's rules by year: how each of its moderators ran students' programs (the form, the
//! clock, the number of games, what ends a test), named after what they reproduce, so that a teacher
//! can grade as the course did in a given year.

use std::time::Duration;

use super::{Clock, ProgramForm};

/// A set of the course's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// Lab 4 of 2021: argv programs, 0.5 s of wall time a move, 100 games, the first error ends the
    /// test, the two lowest games shown; a time-out is not an error (the last integer printed counts).
    Lab4_2021,
    /// Lab 4 of 2023-24: quickMove, 0.3 s of CPU time a game, 500 games, any error and even a
    /// time-out ends the test, the three lowest games shown.
    Lab4_2024,
    /// The tournament server (tjcsl/othello-tourney): Strategy classes, 5 s a move in games and 1 s in
    /// tournaments (at most 15), unused time carried over when runoff is on, 1 s to import.
    Server,
}

impl Rules {
    pub const ALL: [Rules; 3] = [Rules::Lab4_2021, Rules::Lab4_2024, Rules::Server];

    pub fn name(self) -> &'static str {
        match self {
            Rules::Lab4_2021 => "lab4-2021",
            Rules::Lab4_2024 => "lab4-2024",
            Rules::Server => "server",
        }
    }

    /// Where the rules come from.
    pub fn source(self) -> &'static str {
        match self {
            Rules::Lab4_2021 => "the 2021 Othello Lab 4 handout and its moderator",
            Rules::Lab4_2024 => "the 2023-24 Othello Lab 4 handouts and their quickMove moderator",
            Rules::Server => "the tournament server, tjcsl/othello-tourney (settings, tasks.py, jailed_runners.py)",
        }
    }

    /// The most recent rules for a form of program: what the course last used it with.
    pub fn for_form(form: ProgramForm) -> Rules {
        match form {
            ProgramForm::Argv => Rules::Lab4_2021,
            ProgramForm::QuickMove => Rules::Lab4_2024,
            ProgramForm::Strategy => Rules::Server,
        }
    }

    /// Games a Lab 4 test plays.
    pub fn games(self) -> u32 {
        match self {
            Rules::Lab4_2021 | Rules::Server => 100,
            Rules::Lab4_2024 => 500,
        }
    }

    /// The lowest-scoring games a Lab 4 report shows.
    pub fn worst(self) -> u32 {
        match self {
            Rules::Lab4_2024 => 3,
            Rules::Lab4_2021 | Rules::Server => 2,
        }
    }

    /// Whether a program stopped at its time limit still moves with the last integer it printed
    /// (2021: "timeout is not considered an error"); otherwise a time-out is a failure.
    pub fn hoarding(self) -> bool {
        self == Rules::Lab4_2021
    }

    /// The clock these rules give a form of program; `tournament`: a tournament rather than games.
    pub fn clock(self, form: ProgramForm, tournament: bool) -> Clock {
        let per_move = |seconds: f64| Some(Duration::from_secs_f64(seconds));
        let (move_time, game_time, import) = match (self, form) {
            (_, ProgramForm::QuickMove) => (None, Some(Duration::from_millis(300)), 10.0),
            (Rules::Server, _) => (per_move(if tournament { 1.0 } else { 5.0 }), None, 1.0),
            // The 2021 lab's half second; a strategy outside the server, the server's tournament second.
            (_, ProgramForm::Argv) => (per_move(0.5), None, 10.0),
            (_, ProgramForm::Strategy) => (per_move(1.0), None, 10.0),
        };
        Clock {
            move_time,
            game_time,
            import_time: Duration::from_secs_f64(import),
            cpu_time: false,
        }
    }

    /// The longest time a move may be given (the server's limit), if any.
    pub fn max_move_time(self) -> Option<Duration> {
        (self == Rules::Server).then_some(Duration::from_secs(15))
    }
}

impl std::str::FromStr for Rules {
    type Err = String;

    fn from_str(text: &str) -> Result<Rules, String> {
        Rules::ALL.into_iter().find(|r| r.name() == text).ok_or_else(|| {
            let names: Vec<&str> = Rules::ALL.iter().map(|r| r.name()).collect();
            format!("unknown rules {text:?}: expected {}", names.join(", "))
        })
    }
}

impl std::fmt::Display for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_defaults_to_the_rules_that_last_used_it() {
        assert_eq!(Rules::for_form(ProgramForm::QuickMove).games(), 500);
        assert_eq!(
            Rules::for_form(ProgramForm::Argv)
                .clock(ProgramForm::Argv, false)
                .move_time,
            Some(Duration::from_millis(500))
        );
        let server = Rules::for_form(ProgramForm::Strategy);
        assert_eq!(
            server.clock(ProgramForm::Strategy, false).move_time,
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            server.clock(ProgramForm::Strategy, true).move_time,
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            server.clock(ProgramForm::Strategy, true).import_time,
            Duration::from_secs(1)
        );
        for rules in Rules::ALL {
            assert_eq!(rules.name().parse::<Rules>(), Ok(rules));
        }
        assert!(
            "lab4-2019"
                .parse::<Rules>()
                .unwrap_err()
                .contains("lab4-2021, lab4-2024, server")
        );
    }
}

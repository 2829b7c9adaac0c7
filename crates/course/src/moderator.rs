//! The course's Lab 4 moderator: a player's games against an opponent (random by default), colours
//! alternating, scored by the player's share of all tokens; the worst games kept as condensed
//! transcripts with the course's codes. A failure ends the test, as the course rules, or forfeits
//! that game only.

use std::time::{Duration, Instant};

use crate::matches::{MatchConfig, PlayedGame, play_game};
use crate::strategy::StrategySpec;
use othello_core::color::Color;
use othello_core::game::Turn;
use othello_engine::settings::EngineSettings;

/// What to run.
#[derive(Clone, Debug)]
pub struct Lab4Config {
    pub player: StrategySpec,
    pub opponent: StrategySpec,
    pub games: u32,
    pub seed: u64,
    /// The course's rule: a failure ends the test. Otherwise it forfeits that game (0 tokens to 64).
    pub stop_on_failure: bool,
    /// The rules the test is played by (for reports: the players carry their own clocks).
    pub rules: crate::programs::rules::Rules,
    /// How many games are shown, worst first.
    pub worst: usize,
    pub threads: usize,
    /// The weights and book of the engines among the players.
    pub engine: EngineSettings,
}

/// One game as the report shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameLine {
    /// 1-based.
    pub number: u32,
    /// The player's colour.
    pub color: Color,
    pub tokens: u32,
    pub opponent_tokens: u32,
    /// Two characters a move, `-1` a pass, and the failure's code last when the player failed.
    pub transcript: String,
    /// The player's failure, with its stderr, when it ended the game.
    pub failure: Option<String>,
    /// Its code in the Lab 4 handout's list (-2..-5) and in the tournament server's (-1..-5).
    pub codes: Option<(i32, i32)>,
}

impl GameLine {
    /// The player's share of the game's tokens.
    pub fn share(&self) -> f64 {
        let all = self.tokens + self.opponent_tokens;
        if all == 0 {
            0.0
        } else {
            f64::from(self.tokens) / f64::from(all)
        }
    }
}

/// The results so far.
#[derive(Clone, Debug, Default)]
pub struct Lab4Tally {
    pub games: u32,
    pub tokens: u64,
    pub all_tokens: u64,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub forfeits: u32,
    /// The worst games, lowest share first (ties: the earlier game).
    pub worst: Vec<GameLine>,
    /// The game whose failure ended the test.
    pub ended_by: Option<GameLine>,
    pub player_moves: u64,
    pub player_seconds: f64,
    pub longest_move: f64,
    pub elapsed: Duration,
}

impl Lab4Tally {
    pub fn share(&self) -> f64 {
        if self.all_tokens == 0 {
            0.0
        } else {
            self.tokens as f64 / self.all_tokens as f64
        }
    }
}

/// The condensed transcript of a game, with the failure's code after its last move.
pub fn transcript(played: &PlayedGame) -> String {
    let code = played
        .forfeit
        .as_ref()
        .map(|forfeit| forfeit.failed.failure.code().unsigned_abs() as u8);
    othello_core::log::transcript(played.game.turns(), code)
}

/// Plays the test; `on_game` sees each game in order with the tally after it.
pub fn run(config: &Lab4Config, mut on_game: impl FnMut(&PlayedGame, &Lab4Tally)) -> Lab4Tally {
    let started = Instant::now();
    let match_config = MatchConfig {
        a: config.player.clone(),
        b: config.opponent.clone(),
        games: config.games,
        seed: config.seed,
        openings: crate::matches::Openings::Random(0),
        engine: config.engine,
    };
    let mut tally = Lab4Tally::default();
    othello_plumbing::parallel::ordered(
        config.games as usize,
        config.threads,
        |index| play_game(&match_config, index as u32),
        |_, played| {
            let line = record(&mut tally, &played, config.worst);
            let failed = played.forfeit.as_ref().is_some_and(|f| f.side == played.a_color);
            if failed && config.stop_on_failure {
                tally.ended_by = Some(line);
            }
            tally.elapsed = started.elapsed();
            on_game(&played, &tally);
            tally.ended_by.is_none()
        },
    );
    tally.elapsed = started.elapsed();
    tally
}

fn record(tally: &mut Lab4Tally, played: &PlayedGame, worst: usize) -> GameLine {
    let (tokens, opponent_tokens) = played.discs();
    tally.games += 1;
    tally.tokens += u64::from(tokens);
    tally.all_tokens += u64::from(tokens + opponent_tokens);
    match tokens.cmp(&opponent_tokens) {
        std::cmp::Ordering::Greater => tally.wins += 1,
        std::cmp::Ordering::Equal => tally.draws += 1,
        std::cmp::Ordering::Less => tally.losses += 1,
    }
    tally.forfeits += u32::from(played.forfeit.is_some());
    for turn in played.game.turns() {
        if let Turn::Move {
            side,
            stats: Some(stats),
            ..
        } = turn
            && *side == played.a_color
        {
            tally.player_moves += 1;
            tally.player_seconds += stats.seconds;
            tally.longest_move = tally.longest_move.max(stats.seconds);
        }
    }
    let line = GameLine {
        number: played.index + 1,
        color: played.a_color,
        tokens,
        opponent_tokens,
        transcript: transcript(played),
        failure: played
            .forfeit
            .as_ref()
            .map(|f| format!("{} failed: {}", f.side.lab_char(), f.failed.describe())),
        codes: played
            .forfeit
            .as_ref()
            .map(|f| (f.failed.failure.code(), f.failed.failure.server_code())),
    };
    // Only the worst few are kept, so that memory does not grow with the number of games.
    let at = tally
        .worst
        .iter()
        .position(|kept| line.share() < kept.share())
        .unwrap_or(tally.worst.len());
    if at < worst {
        tally.worst.insert(at, line.clone());
        tally.worst.truncate(worst);
    }
    line
}

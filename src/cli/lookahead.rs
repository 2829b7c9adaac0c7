//! `othello best` and `othello fullgame`: seed 004's bestMove(K) and fullGame(K).

use std::path::PathBuf;

use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use othello_course::json;

use super::{Refused, write_stdout};
use othello_core::bitboard::Bitboard;
use othello_core::game::{Game, Status};
use othello_core::notation::{input_txt, transcript};
use othello_core::position::Position;
use othello_core::value::Value;
use othello_course::lab::render::board_2d;
use othello_course::strategy::{MAX_DEPTH, StrategySpec};
use othello_engine::eval::Eval;
use othello_engine::search::Scoring;
use othello_engine::search::alphabeta::alphabeta;

/// Where the position comes from: seed 004's input file, a lab board and token, or the start.
/// The deepest `best` that ends within minutes (14 plies after ten moves: 7 s; each ply about 4
/// times as long).
const MAX_BEST_PLIES: u32 = 16;
/// The deepest `fullgame`: every move of a game is such a search.
const MAX_FULLGAME_PLIES: u32 = 13;

#[derive(Args, Debug)]
pub struct PositionArgs {
    /// Seed 004's input.txt: the turn (0 black, 1 white), then 8 lines of 8 integers (-1, 0, 1)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["board", "token"])]
    input: Option<PathBuf>,
    /// The board: 64 characters from xXoO. as in the lab mode, or from X, O and - as in Edax's OBF
    /// (its side may follow in the same argument: "BOARD X;") (default: the start position)
    board: Option<String>,
    /// The side to move, x or o (default: as in the lab mode)
    token: Option<String>,
    /// Play these moves first, from the board given or the start: a transcript such as f5d6c3
    /// (forced passes left out)
    #[arg(long, value_name = "TRANSCRIPT")]
    moves: Option<String>,
}

impl PositionArgs {
    pub fn position(&self) -> Result<Position> {
        Ok(self.game()?.position())
    }

    /// The start position and the moves played from it (none without --moves).
    pub fn game(&self) -> Result<Game> {
        let start = self.start()?;
        match &self.moves {
            Some(moves) => transcript::play(start, moves).with_context(|| format!("bad --moves {moves:?}")),
            None => Ok(Game::new(start)),
        }
    }

    fn start(&self) -> Result<Position> {
        if let Some(path) = &self.input {
            let text = othello_plumbing::files::read_text(path)?;
            return input_txt::parse(&text).with_context(|| format!("bad input file {}", path.display()));
        }
        match &self.board {
            Some(board) => Ok(othello_course::lab::position::parse(board, self.token.as_deref())?),
            None if self.token.is_some() => bail!("a token needs a board before it"),
            None => Ok(Position::START),
        }
    }
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("searcher").required(true).args(["depth", "strategy"])))]
pub struct BestArgs {
    /// Plies to look ahead (a pass consumes one): seed 004's bestMove(K)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    depth: Option<u32>,
    /// The evaluation at the horizon with --depth: discs (h1, the default), weights (h2), mobility
    /// (h3), corners; a strategy names its own (alphabeta:6:mobility)
    #[arg(long, conflicts_with = "strategy")]
    eval: Option<Eval>,
    /// Ask a strategy instead (alphabeta:8:weights, ...), with its value, nodes and time
    #[arg(long, value_name = "SPEC", conflicts_with = "depth")]
    strategy: Option<StrategySpec>,
    #[command(flatten)]
    position: PositionArgs,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    clock: super::ClockArgs,
}

pub fn run_best(args: BestArgs, settings: &super::Settings) -> Result<()> {
    let (engine, output) = (&settings.engine, &settings.output);
    let eval = args.eval.unwrap_or(Eval::Discs);
    let position = args.position.position()?;
    let side = position.to_move;
    if position.is_game_over() {
        return Err(Refused(anyhow::anyhow!("the game is over: {side} has no move to choose")).into());
    }
    let mut clock = Instant::now();
    let (best, score, nodes, searcher) = match (&args.strategy, args.depth) {
        (Some(spec), _) if position.moves().is_empty() => (None, None, 0, spec.to_string()),
        (Some(spec), _) => {
            let spec = args.clock.prepare(spec, 1)?;
            let _ticker = super::display::Ticker::new(format!("{spec} thinking"), output);
            // Made before the clock starts, as a game's player is: a timed engine maps its tables
            // here (a tenth of a second or more at engine:1000), outside the move's time.
            let mut player = spec.build(0, engine);
            clock = Instant::now();
            let decision = player
                .choose(position)
                .map_err(|failed| Refused(anyhow::anyhow!("{spec} gave no move: {}", failed.describe())))?;
            (Some(decision.square), decision.value, decision.nodes, spec.to_string())
        }
        (None, depth) => {
            let depth = depth.expect("clap requires --depth or --strategy");
            super::within_reach(
                "--depth",
                depth,
                position.board.empty_count(),
                MAX_BEST_PLIES,
                "14 take 7 s here",
            )?;
            let scoring = Scoring::lookahead(eval);
            let ticker = super::display::Ticker::new(format!("searching {depth} plies"), output);
            let result = alphabeta(position.board, depth, scoring);
            drop(ticker);
            (
                result.best,
                Some(scoring.value(result.value, depth)),
                result.nodes,
                format!("lookahead {depth} ({eval})"),
            )
        }
    };
    let seconds = clock.elapsed().as_secs_f64();
    let (index, name) = match best {
        Some(square) => (square.index() as i64, square.to_string()),
        None => (-1, "pass".to_string()),
    };
    let nodes_per_second = nodes as f64 / seconds.max(1e-9);
    let text = if args.json {
        // `score` is the value's number, in `unit`; `exact` and `depth` say how far it is known.
        json::line(&json::BestMove {
            index,
            square: name,
            side: side.name(),
            score: score.map(Value::number),
            value_kind: score.map(Value::kind),
            exact: score.map(Value::is_exact),
            depth: score.and_then(Value::depth),
            unit: score.map(Value::unit),
            eval: args.depth.map(|_| eval.name()),
            strategy: args.strategy.as_ref().map(|spec| spec.to_string()),
            nodes,
            seconds,
            nodes_per_second,
        })
    } else {
        let what = if index < 0 {
            "must pass".to_string()
        } else {
            format!("{index} ({name})")
        };
        // Seed 004's lookahead says `score N`; a strategy says what kind of value it has.
        let score = match score {
            Some(score) if args.strategy.is_none() => format!(", score {}", score.number()),
            Some(value) => format!(", {value}"),
            None => String::new(),
        };
        format!(
            "best move for {} by {searcher}: {what}{score}; {nodes} nodes in {:.3} s ({:.1} million/s)\n",
            side.lab_char(),
            seconds,
            nodes_per_second / 1e6
        )
    };
    write_stdout(&text)
}

#[derive(Args, Debug)]
pub struct FullGameArgs {
    /// Plies each side looks ahead (a pass consumes one)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    depth: u32,
    #[command(flatten)]
    position: PositionArgs,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

pub fn run_fullgame(args: FullGameArgs, settings: &super::Settings) -> Result<()> {
    let (engine, output) = (&settings.engine, &settings.output);
    let start = args.position.position()?;
    super::within_reach(
        "--depth",
        args.depth,
        start.board.empty_count(),
        MAX_FULLGAME_PLIES,
        "a game at 12 takes under a minute here",
    )?;
    let spec = StrategySpec::Lookahead { depth: args.depth };
    let (mut black, mut white) = (spec.build(0, engine), spec.build(0, engine));
    let mut game = Game::new(start);
    let ticker = super::display::Ticker::new(format!("playing lookahead {} against itself", args.depth), output);
    game.play_out(&mut [black.as_mut(), white.as_mut()])
        .expect("built-in strategies always move");
    drop(ticker);
    debug_assert_eq!(game.status(), Status::Over);
    let end = game.position();
    let moves: Vec<usize> = game.moves().map(|square| square.index()).collect();
    let (black_count, white_count) = end.counts();
    let winner = end.leader().map_or(-1, |color| color.index() as i64);
    let text = if args.json {
        json::line(&json::FullGame {
            moves: moves.iter().map(|&index| index as i64).collect(),
            winner,
            black: black_count,
            white: white_count,
            board: input_txt::board_rows(end),
        })
    } else {
        let mut text = String::from("moves:");
        for index in &moves {
            text += &format!(" {index}");
        }
        text.push('\n');
        board_2d(&mut text, end, Bitboard::EMPTY, None);
        let verdict = match end.leader() {
            Some(color) => format!("{color} wins"),
            None => "draw".to_string(),
        };
        text += &format!("black {black_count}, white {white_count}: {verdict} (winner {winner})\n");
        text
    };
    write_stdout(&text)
}

//! `othello solve`: exact endgame scores, best moves and principal variations, for one position or
//! every position of an OBF file (checked against the file's own answers).

use othello_engine::settings::EngineSettings;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use clap::Args;
use othello_course::json;

use super::lookahead::PositionArgs;
use super::{Refused, write_stdout};
use othello_core::notation::obf::{self, ObfPosition};
use othello_core::square::Square;
use othello_engine::search::endgame::{Bounds, Solution, Solver};

#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Solve every position of an OBF file (Edax's format, as the FFO suite comes)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["board", "token", "input", "moves"])]
    obf: Option<PathBuf>,
    /// Number the OBF positions from N (40 for the FFO file #40-#59)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=1_000_000_000))]
    first_number: u32,
    /// Give up a position after this many seconds and report it unfinished (exit status 1)
    #[arg(long, value_name = "SECONDS", value_parser = super::seconds, allow_hyphen_values = true)]
    time_limit: Option<Duration>,
    /// Print one JSON object per position (JSON Lines)
    #[arg(long)]
    json: bool,
    /// Threads to solve on (default: all cores): the same scores on any number; the node counts,
    /// every thread's added up, vary from run to run on more than one
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
}

/// The most empty squares `solve` takes on without --time-limit (FFO #59 has 34; #40-#49 take seconds
/// to minutes at 20-26).
const UNLIMITED_EMPTIES: u32 = 36;
/// The most empty squares `solve` tries at all: beyond, even a day's --time-limit ends unfinished
/// (a time limit is a promise to stop, not to answer).
const LIMITED_EMPTIES: u32 = 40;

/// Whether a position's exact solve ends within a second's nodes (a wipe-out at hand), however many
/// squares are empty.
fn ends_soon(board: othello_core::board::Board, engine: &EngineSettings) -> bool {
    let mut solver = Solver::new();
    solver.set_weights(engine.weights());
    solver.set_node_limit(Some(20_000_000));
    solver.solve(board).is_ok()
}

/// One line of work: where the position came from and what the file says of it.
struct Job {
    number: usize,
    expected: Option<ObfPosition>,
    position: othello_core::position::Position,
}

/// The positions to solve: an OBF file's, with its answers, or the one given (refused when no
/// exact solve of it would end).
fn jobs(args: &SolveArgs, engine: &EngineSettings) -> Result<Vec<Job>> {
    Ok(match &args.obf {
        Some(path) => {
            let text = othello_plumbing::files::read_text(path)?;
            let positions = obf::parse(&text).with_context(|| format!("bad OBF file {}", path.display()))?;
            if positions.is_empty() {
                return Err(anyhow!("bad OBF file {}: it holds no position", path.display()));
            }
            positions
                .into_iter()
                .enumerate()
                .map(|(i, p)| Job {
                    number: args.first_number as usize + i,
                    position: p.position,
                    expected: Some(p),
                })
                .collect()
        }
        None => {
            let position = args.position.position()?;
            if position.board.empty_count() > LIMITED_EMPTIES && !ends_soon(position.board, engine) {
                return Err(anyhow!(
                    "the position has {} empty squares: no time limit would see an exact solve end; give a position with at most {LIMITED_EMPTIES} (or use othello analyze for an estimate)",
                    position.board.empty_count()
                ));
            }
            // Beyond this, an exact solve takes longer than anyone waits: ask for a limit first.
            if position.board.empty_count() > UNLIMITED_EMPTIES && args.time_limit.is_none() {
                return Err(anyhow!(
                    "the position has {} empty squares: an exact solve would not end; give a position with at most {UNLIMITED_EMPTIES} (BOARD [TOKEN], --input FILE, --obf FILE), or --time-limit SECONDS to try",
                    position.board.empty_count()
                ));
            }
            vec![Job {
                number: 1,
                position,
                expected: None,
            }]
        }
    })
}

pub fn run(args: SolveArgs, settings: &super::Settings) -> Result<()> {
    let engine = &settings.engine;
    let jobs = jobs(&args, engine)?;
    let limit = args.time_limit;
    let mut solver = Solver::new();
    solver.set_weights(engine.weights());
    solver.set_threads(super::threads_or_cores(args.threads));
    let mut totals = Totals::default();
    let single = args.obf.is_none();
    for job in &jobs {
        let clock = Instant::now();
        solver.set_deadline(limit.map(|limit| clock + limit));
        // Each test of the search narrows the score: shown as it goes, on one line.
        let status = super::display::StatusLine::new(&settings.output);
        solver.set_observer(Some(narrowing(status.clone(), job.number, clock)));
        let outcome = solver.solve(job.position.board);
        status.clear();
        let seconds = clock.elapsed().as_secs_f64();
        let text = match outcome {
            Ok(solution) => {
                let agreement = Agreement::of(job, &solution);
                totals.add(&solution, seconds, agreement);
                if args.json {
                    json_line(job, &solution, seconds, agreement)
                } else if single {
                    single_text(job, &solution, seconds)
                } else {
                    obf_line(job, &solution, seconds, agreement)
                }
            }
            Err(_) => {
                totals.unfinished += 1;
                let empties = job.position.board.empty_count();
                if args.json {
                    json::line(&json::Solved {
                        number: job.number,
                        empties,
                        finished: false,
                        seconds,
                        solution: None,
                    })
                } else {
                    format!(
                        "#{:<3} {empties:>2} empties: unfinished after {seconds:.1} s\n",
                        job.number
                    )
                }
            }
        };
        write_stdout(&text)?;
    }
    if !single && !args.json {
        write_stdout(&totals.line(jobs.len()))?;
    }
    if totals.disagreements > 0 {
        return Err(Refused(anyhow!(
            "{} positions disagree with the file's answers",
            totals.disagreements
        ))
        .into());
    }
    if totals.unfinished > 0 {
        return Err(Refused(anyhow!(
            "{} of {} position{} not solved within the time limit",
            totals.unfinished,
            jobs.len(),
            if jobs.len() == 1 { " was" } else { "s were" }
        ))
        .into());
    }
    Ok(())
}

/// Shows each test's bounds on `status` as the solve of position `number` narrows them.
fn narrowing(status: super::display::StatusLine, number: usize, clock: Instant) -> Box<dyn FnMut(Bounds) + Send> {
    Box::new(move |bounds: Bounds| {
        let mut range = if bounds.lower == bounds.upper {
            format!("{:+}", bounds.lower)
        } else {
            format!("{:+} to {:+}", bounds.lower, bounds.upper)
        };
        if bounds.likely {
            range = format!("likely {range} (selective search)");
        }
        status.set(format!(
            "#{number}: score {range}, {} nodes, {}",
            bounds.nodes,
            super::display::duration(clock.elapsed().as_secs_f64())
        ));
    })
}

/// Whether a solution agrees with the file's score and best moves (None: the file does not say).
#[derive(Clone, Copy, Default)]
struct Agreement {
    score: Option<bool>,
    best_move: Option<bool>,
}

impl Agreement {
    fn of(job: &Job, solution: &Solution) -> Agreement {
        let Some(expected) = &job.expected else {
            return Agreement::default();
        };
        Agreement {
            score: expected.best_score().map(|score| score == solution.score),
            best_move: solution.best.and_then(|square| expected.is_best_move(square)),
        }
    }
}

#[derive(Default)]
struct Totals {
    solved: usize,
    unfinished: usize,
    nodes: u64,
    seconds: f64,
    scores_checked: usize,
    scores_agreeing: usize,
    moves_checked: usize,
    moves_agreeing: usize,
    disagreements: usize,
}

impl Totals {
    fn add(&mut self, solution: &Solution, seconds: f64, agreement: Agreement) {
        self.solved += 1;
        self.nodes += solution.nodes;
        self.seconds += seconds;
        if let Some(agrees) = agreement.score {
            self.scores_checked += 1;
            self.scores_agreeing += usize::from(agrees);
        }
        if let Some(agrees) = agreement.best_move {
            self.moves_checked += 1;
            self.moves_agreeing += usize::from(agrees);
        }
        if agreement.score == Some(false) || agreement.best_move == Some(false) {
            self.disagreements += 1;
        }
    }

    fn line(&self, positions: usize) -> String {
        format!(
            "total: {}/{positions} solved, scores {}/{} and best moves {}/{} agree with the file; {} nodes in {:.2} s ({:.1} million nodes/s){}\n",
            self.solved,
            self.scores_agreeing,
            self.scores_checked,
            self.moves_agreeing,
            self.moves_checked,
            self.nodes,
            self.seconds,
            self.nodes as f64 / self.seconds.max(1e-9) / 1e6,
            if self.unfinished > 0 {
                format!(", {} unfinished", self.unfinished)
            } else {
                String::new()
            }
        )
    }
}

fn name(square: Option<Square>) -> String {
    square.map_or("pass".to_string(), |s| s.to_string())
}

fn pv_names(solution: &Solution) -> Vec<String> {
    solution.pv.iter().map(|&step| name(step)).collect()
}

fn verdict(agrees: Option<bool>) -> &'static str {
    match agrees {
        Some(true) => "ok",
        Some(false) => "MISMATCH",
        None => "-",
    }
}

fn obf_line(job: &Job, solution: &Solution, seconds: f64, agreement: Agreement) -> String {
    let mut line = format!(
        "#{:<3} {:>2} empties: score {:+3} ({}), best {} ({}), {:>12} nodes, {:8.3} s, {:6.1} M nodes/s",
        job.number,
        job.position.board.empty_count(),
        solution.score,
        verdict(agreement.score),
        name(solution.best),
        verdict(agreement.best_move),
        solution.nodes,
        seconds,
        solution.nodes as f64 / seconds.max(1e-9) / 1e6
    );
    let _ = writeln!(line, "; pv {}", pv_names(solution).join(" "));
    line
}

/// Whether the side asked about must pass before anything else happens.
fn pass_first(job: &Job) -> bool {
    job.position.board.must_pass()
}

fn single_text(job: &Job, solution: &Solution, seconds: f64) -> String {
    let side = job.position.to_move;
    format!(
        "score {:+} for {} ({side}){}, best move {}\npv: {}\n{} nodes in {:.3} s ({:.1} million nodes/s)\n",
        solution.score,
        side.lab_char(),
        if pass_first(job) { ", which must pass first" } else { "" },
        name(solution.best),
        pv_names(solution).join(" "),
        solution.nodes,
        seconds,
        solution.nodes as f64 / seconds.max(1e-9) / 1e6
    )
}

fn json_line(job: &Job, solution: &Solution, seconds: f64, agreement: Agreement) -> String {
    json::line(&json::Solved {
        number: job.number,
        empties: job.position.board.empty_count(),
        finished: true,
        seconds,
        solution: Some(json::SolutionJson {
            side: job.position.to_move.name(),
            pass_first: pass_first(job),
            score: solution.score,
            best: solution.best.map(|s| s.to_string()),
            pv: pv_names(solution),
            nodes: solution.nodes,
            file_score: job.expected.as_ref().and_then(ObfPosition::best_score),
            score_agrees: agreement.score,
            move_agrees: agreement.best_move,
        }),
    })
}

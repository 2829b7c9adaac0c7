//! The `engine[:MILLISECONDS]` player: iterative-deepening principal variation search with a
//! transposition table and fastest-first ordering in the midgame, and the endgame solver as soon as
//! the position can be solved in the time left (a timed engine, a few empty squares earlier, for its
//! selective searches to the end alone). It keeps to its time per move.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;

use crate::eval::{Eval, weighted_score};
use crate::patterns::{self, Features, LoadedWeights, Weights};
use crate::search::book::Book;
use crate::search::endgame::Solver;
use crate::search::limits::Limits;
use crate::search::ordering::fastest_first;
use crate::search::probcut;
use crate::search::table::{NO_MOVE, Packed, Table};
use crate::search::threads::{self, Busy};
use crate::search::time::{Clock, MoveTime};
use crate::search::{WIN, best_child};
use crate::settings::EngineSettings;
use othello_core::board::Board;
use othello_core::cpu::{Cpu, at_level, with_cpu};
use othello_core::rng::SeededRng;
use othello_core::square::Square;
use othello_core::value::Value;

mod config;
mod settings;

pub use config::{Budget, DEFAULT_MILLISECONDS, EngineChoice, EngineEval, EngineStyle};
use settings::*;

/// A midgame result: bounds on the value, and the best move found.
#[derive(Clone, Copy)]
struct Entry {
    best: u8,
    lower: i32,
    upper: i32,
}

/// A bound in 24 bits: every value a search returns fits (evaluations, and wins and losses near
/// `WIN`), and only `INFINITY` does not: it is kept as the largest.
const BOUND_BITS: u32 = 24;
const BOUND_MAX: i32 = (1 << (BOUND_BITS - 1)) - 1;

impl Packed for Entry {
    #[inline(always)]
    fn pack(self) -> u64 {
        let bound = |value: i32| (value.clamp(-BOUND_MAX, BOUND_MAX) as u32 & ((1 << BOUND_BITS) - 1)) as u64;
        u64::from(self.best) | bound(self.lower) << 8 | bound(self.upper) << (8 + BOUND_BITS)
    }

    #[inline(always)]
    fn unpack(bits: u64) -> Entry {
        let bound = |bits: u64| {
            let value = ((bits as u32) << (32 - BOUND_BITS)) as i32 >> (32 - BOUND_BITS);
            match value {
                BOUND_MAX => INFINITY,
                value if value == -BOUND_MAX => -INFINITY,
                value => value,
            }
        };
        Entry {
            best: bits as u8,
            lower: bound(bits >> 8),
            upper: bound(bits >> (8 + BOUND_BITS)),
        }
    }
}

/// The hand-made evaluation of `board` as an estimate in discs, without search (for comparisons).
pub fn static_estimate(board: Board) -> i32 {
    let eval = EngineEval::HandMade;
    midgame_value(
        eval,
        with_cpu!(C => evaluate::<C>(eval, patterns::builtin(), board)),
        0,
        board.empty_count(),
    )
    .number()
}

/// Up to how many empties the engine tries to solve a position exactly, and up to how many it runs
/// the solver's selective searches, with `time` for the move (none: a node budget, which solves
/// from a fixed count and never stops at a selective result) on `threads` threads.
fn solve_empties(time: Option<MoveTime>, threads: usize) -> (u32, u32) {
    let Some(time) = time else {
        return (NODES_SOLVE_EMPTIES, NODES_SOLVE_EMPTIES);
    };
    let solver_seconds = time.limit.as_secs_f64() * (1.0 - MIDGAME_SHARE_BEFORE_SOLVING) * solve_speedup(threads);
    // Where a search whose median time is `seconds` at `empties` and grows by `growth` an empty
    // square still fits.
    let reach = |empties: u32, seconds: f64, growth: f64| {
        let more = (solver_seconds / seconds).ln() / growth.ln();
        (f64::from(empties) + more)
            .floor()
            .clamp(f64::from(MIN_SOLVE_EMPTIES), f64::from(MAX_SOLVE_EMPTIES)) as u32
    };
    let exact = reach(SOLVE_EMPTIES, SOLVE_SECONDS, SOLVE_GROWTH);
    (
        exact,
        reach(SELECTIVE_EMPTIES, SELECTIVE_SECONDS, SELECTIVE_GROWTH).max(exact),
    )
}

/// The value of a midgame search to `depth` from a root with `empties` empty squares.
fn midgame_value(eval: EngineEval, value: i32, depth: u32, empties: u32) -> Value {
    if value.abs() >= WIN / 2 {
        return Value::Proven {
            margin: value - value.signum() * WIN,
            depth,
        };
    }
    if eval == EngineEval::Patterns {
        let discs = (value + value.signum() * patterns::SCALE / 2) / patterns::SCALE;
        return Value::Estimate {
            discs: discs.clamp(-64, 64),
            depth,
        };
    }
    let stage = match empties {
        50.. => 0,
        40..=49 => 1,
        30..=39 => 2,
        25..=29 => 3,
        _ => 4,
    };
    let thousandths = i64::from(value) * ESTIMATE_SCALES[stage];
    // Rounded to the nearest disc, and never beyond what a game can end with.
    let discs = (thousandths + 500 * thousandths.signum()) / 1000;
    Value::Estimate {
        discs: discs.clamp(-64, 64) as i32,
        depth,
    }
}

/// What an engine is, fixed when it is built (or set between moves): the searches read it and
/// never change it.
#[derive(Clone, Copy)]
struct Config {
    budget: Budget,
    eval: EngineEval,
    weights: &'static Weights,
    /// Multi-ProbCut in the midgame search (`crate::search::probcut`).
    selective: bool,
    /// Threads a move is searched on.
    threads: usize,
    /// The opening book a timed engine plays from, and how many discs it may stray from its best
    /// move.
    book: Option<(&'static Book, i32)>,
}

/// The `engine` player: its configuration, and the state of its searches (tables kept from move to
/// move, the iteration under way, the clock of the next move).
pub struct Engine {
    config: Config,
    /// Shared with the helpers of a search on several threads.
    table: Arc<Table<Entry>>,
    solver: Solver,
    nodes: u64,
    limits: Limits,
    /// A game clock for the next move, if it plays on one: it then replaces a time a move.
    clock: Option<Clock>,
    /// When the controller asked for the next move, if that was before its search starts.
    asked: Option<Instant>,
    /// The root of the iteration under way, and the best move it finished if it was cut off.
    root: Board,
    root_depth: u32,
    root_partial: Option<(u8, i32)>,
    /// While a move is searched on several threads, what they are searching.
    busy: Option<Arc<Busy>>,
    /// The draws among the book's moves near the best.
    rng: SeededRng,
}

impl Engine {
    pub fn new(milliseconds: u64) -> Engine {
        Engine::with_budget(Budget::Time(Duration::from_millis(milliseconds)))
    }

    pub fn with_budget(budget: Budget) -> Engine {
        Engine::with_style(budget, EngineStyle::default(), &EngineSettings::default())
    }

    /// An engine of `style` on `budget`, its weights the style's if it names some, else the
    /// settings'; a timed one plays from the settings' book.
    pub fn with_style(budget: Budget, style: EngineStyle, settings: &EngineSettings) -> Engine {
        let eval = style.eval;
        // Tables in proportion to what a move may visit: a small budget does not pay for touching
        // (and the system for zeroing) pages of a big table it never fills, game after game.
        let nodes = match budget {
            Budget::Time(time) => (time.as_secs_f64() * NODES_PER_SECOND) as u64,
            Budget::Nodes(nodes) => nodes,
            Budget::Depth(depth) => 1 << (2 * depth).min(40),
        };
        let bits = (u64::BITS - nodes.leading_zeros()).clamp(MIN_TABLE_BITS, TABLE_BITS);
        let weights = style
            .weights
            .map_or_else(|| settings.weights(), |loaded| &loaded.weights);
        // Mapping the tables' pages costs a timed engine's moves time they cannot spare (on a game
        // clock, games); a node or depth budget pays for it in nodes it never misses.
        let timed = matches!(budget, Budget::Time(_));
        let (table, mut solver) = if timed {
            (Table::new_mapped(bits), Solver::with_mapped_table(bits + 1))
        } else {
            (Table::new(bits), Solver::with_table_bits(bits + 1))
        };
        solver.set_weights(weights);
        solver.set_names_roots(timed);
        Engine {
            config: Config {
                budget,
                eval,
                weights,
                selective: style.selective && eval == EngineEval::Patterns && !matches!(budget, Budget::Depth(_)),
                threads: 1,
                book: match budget {
                    Budget::Time(_) => settings.book,
                    _ => None,
                },
            },
            table: Arc::new(table),
            solver,
            nodes: 0,
            limits: Limits::new(CHECK_EVERY),
            clock: None,
            asked: None,
            root: Board::START,
            root_depth: 0,
            root_partial: None,
            busy: None,
            rng: SeededRng::new(1),
        }
    }

    /// Seeds the draws among book moves (a match gives each game's player its own seed).
    pub fn set_seed(&mut self, seed: u64) {
        self.rng = SeededRng::new(seed);
    }

    /// Plays from `book` (a timed engine takes its settings' book when built), straying up to `deviation`
    /// discs from the best move; none: searches from the first move.
    pub fn set_book(&mut self, book: Option<(&'static Book, i32)>) {
        self.config.book = book;
    }

    /// The book's move for `board`, if it has the position: the best, or one drawn among those
    /// within the deviation.
    fn book_move(&mut self, board: Board) -> Option<EngineChoice> {
        let (book, deviation) = self.config.book?;
        let moves = book.moves(board)?;
        let best = moves[0].1.discs;
        let near = moves
            .iter()
            .take_while(|(_, value)| value.discs >= best - deviation)
            .count();
        let (square, value) = moves[self.rng.below(near as u64) as usize];
        Some(EngineChoice {
            best: square,
            value: Value::Estimate {
                discs: value.discs,
                depth: value.depth,
            },
            nodes: 0,
        })
    }

    /// Plays the next move on a game clock (`None`: on the budget again). Only a timed engine does;
    /// a node or depth budget keeps its games whatever the clock says.
    pub fn set_clock(&mut self, clock: Option<Clock>) {
        self.clock = clock;
    }

    /// Counts the next move's time from `asked`, when the controller asked for it, rather than
    /// from the search's start: what the front end spends first (a session waiting for the engine
    /// it is still making) comes out of the move's own time, not on top of it.
    pub fn count_time_from(&mut self, asked: Instant) {
        self.asked = Some(asked);
    }

    /// The time for a move in a position with `empties` empty squares, if the engine is timed.
    fn move_time(&self, empties: u32) -> Option<MoveTime> {
        match (self.config.budget, self.clock) {
            (Budget::Time(_), Some(clock)) => Some(MoveTime::from_clock(clock, empties)),
            (Budget::Time(time), None) => Some(MoveTime::fixed(time)),
            _ => None,
        }
    }

    /// The values of full-width searches of `board` to depths `1..=max_depth`, in discs, `None`
    /// where a search found the game's end (a proven value): what ProbCut's fit compares.
    pub fn depth_values(&mut self, board: Board, max_depth: u32) -> Vec<Option<f64>> {
        let selective = std::mem::replace(&mut self.config.selective, false);
        self.limits.deadline = None;
        self.limits.node_limit = None;
        self.limits.resume();
        self.name_root(board);
        let values = (1..=max_depth)
            .map(|depth| {
                let value =
                    with_cpu!(C => self.search::<C>(board, &Features::of(board), depth, -INFINITY, INFINITY, false));
                (value.abs() < WIN / 2).then(|| f64::from(value) / f64::from(patterns::SCALE))
            })
            .collect();
        self.config.selective = selective;
        values
    }

    /// The engine's move in a position where the side to move has one. With a single legal move the
    /// engine still searches, briefly, so that it can say what the position is worth.
    pub fn choose(&mut self, board: Board) -> EngineChoice {
        let asked = self.asked.take();
        if let Some(choice) = self.book_move(board) {
            return choice;
        }
        let start = asked.map_or_else(Instant::now, |asked| asked.min(Instant::now()));
        let moves = board.moves();
        let first = moves.first().expect("the engine is only asked when a move exists");
        let empties = board.empty_count();
        let forced = if moves.count() == 1 { FORCED_SHARE } else { 1.0 };
        let time = self.move_time(empties).map(|time| MoveTime {
            start_before: time.start_before.mul_f64(forced),
            limit: time.limit.mul_f64(forced),
        });
        let usable_nodes = match self.config.budget {
            Budget::Nodes(nodes) => (nodes as f64 * NODES_USABLE_SHARE * forced) as u64,
            _ => u64::MAX,
        };
        let max_depth = match self.config.budget {
            Budget::Depth(depth) => depth,
            _ => u32::MAX,
        };
        self.nodes = 0;
        let mut choice = EngineChoice {
            best: first,
            value: midgame_value(
                self.config.eval,
                with_cpu!(C => evaluate::<C>(self.config.eval, self.config.weights, board)),
                0,
                board.empty_count(),
            ),
            nodes: 0,
        };
        let (exact_empties, selective_empties) = solve_empties(time, self.config.threads);
        let solving = empties <= selective_empties && max_depth == u32::MAX;
        let midgame_share = if solving { MIDGAME_SHARE_BEFORE_SOLVING } else { 1.0 };
        let midgame_nodes = (usable_nodes as f64 * midgame_share) as u64;
        self.limits.deadline = time.map(|time| start + time.limit.mul_f64(midgame_share));
        self.limits.node_limit = Some(midgame_nodes);
        self.limits.restart();
        self.name_root(board);
        let mut helper_nodes = 0;
        let helpers = self.start_helpers(board, max_depth);
        for depth in 1..=empties.max(1).min(max_depth) {
            let (best, value, finished) = match self.root(board, depth) {
                Root::Finished(best, value) => (best, value, true),
                // A move that beat the last iteration's best before time ran out is the better one.
                Root::CutOff(best, value) if best != choice.best => (best, value, false),
                _ => break,
            };
            choice = EngineChoice {
                best,
                value: midgame_value(self.config.eval, value, depth, empties),
                nodes: 0,
            };
            // An iteration takes several times the last one: a node budget, or a clock's planned
            // time, does not start what cannot finish. A fixed time a move is spent to its end.
            let time_is_short = time.is_some_and(|time| start.elapsed() > time.start_before.mul_f64(midgame_share));
            if !finished || time_is_short || self.nodes.saturating_mul(3) > midgame_nodes {
                break;
            }
        }
        if let Some((done, helpers)) = helpers {
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            helper_nodes = helpers.into_iter().map(|helper| helper.join().unwrap_or(0)).sum();
            self.busy = None;
        }
        let mut nodes = self.nodes + helper_nodes;
        if solving {
            self.solver.set_deadline(time.map(|time| start + time.limit));
            // Where the exact search is out of reach, climb to a likely result that is.
            let out_of_reach = empties > exact_empties;
            self.solver
                .set_selective_levels(out_of_reach.then_some(&SELECTIVE_LEVELS[..]));
            self.solver
                .set_node_limit((usable_nodes != u64::MAX).then(|| usable_nodes.saturating_sub(nodes)));
            match self.solver.solve(board) {
                Ok(solution) => {
                    if let Some(best) = solution.best {
                        choice = EngineChoice {
                            best,
                            value: Value::Exact {
                                discs: solution.score,
                                empties,
                            },
                            nodes: 0,
                        };
                    }
                }
                // Cut off in the exact search: its selective search to the end, if that finished,
                // guesses better than a quarter of the time's midgame search. (A node budget keeps
                // the midgame search's move: its games stay the ones it has always played.)
                Err(_) => {
                    if time.is_some()
                        && let Some((discs, best)) = self.solver.likely()
                    {
                        choice = EngineChoice {
                            best,
                            value: Value::Estimate { discs, depth: empties },
                            nodes: 0,
                        };
                    }
                }
            }
            nodes += self.solver.nodes();
        }
        choice.nodes = nodes;
        choice
    }

    /// Tells the table the position the engine plays from, so that the entries of positions the
    /// game can no longer reach give way to the search under way. Only a timed engine does: a
    /// node budget keeps the rule its games were played with (training data rests on them), and an
    /// analysis searches the children of its position, whose siblings' entries it needs again.
    fn name_root(&self, board: Board) {
        self.table
            .set_root(matches!(self.config.budget, Budget::Time(_)).then_some(board));
    }

    /// Searches on `threads` threads (at least 1) when the budget is a time: the same moves are
    /// not promised then, nor by a timed engine on one thread. A node or depth budget keeps one
    /// thread, so that its games and values stay the same everywhere.
    pub fn set_threads(&mut self, threads: usize) {
        if matches!(self.config.budget, Budget::Time(_)) {
            self.config.threads = threads.max(1);
            self.solver.set_threads(self.config.threads);
        }
    }

    /// Threads beside this one that deepen the same root on the same table until `done` (or this
    /// search's deadline or stop): what they find, this one reads there. Their node counts come
    /// back when they are joined. None on one thread.
    fn start_helpers(
        &mut self,
        board: Board,
        max_depth: u32,
    ) -> Option<(Arc<AtomicBool>, Vec<std::thread::JoinHandle<u64>>)> {
        if self.config.threads <= 1 {
            return None;
        }
        let done = Arc::new(AtomicBool::new(false));
        let busy = Arc::new(Busy::new());
        self.busy = Some(busy.clone());
        let handles = (1..self.config.threads)
            .map(|_| {
                let mut limits = Limits::new(CHECK_EVERY);
                limits.deadline = self.limits.deadline;
                limits.stop = Some(done.clone());
                let mut helper = Engine {
                    config: Config {
                        threads: 1,
                        book: None,
                        ..self.config
                    },
                    table: self.table.clone(),
                    // A helper never solves: the smallest table.
                    solver: Solver::with_table_bits(1),
                    nodes: 0,
                    limits,
                    clock: None,
                    asked: None,
                    root: board,
                    root_depth: 0,
                    root_partial: None,
                    busy: Some(busy.clone()),
                    rng: SeededRng::new(1),
                };
                let outer_stop = self.limits.stop.clone();
                std::thread::spawn(move || {
                    for depth in 1..=board.empty_count().max(1).min(max_depth) {
                        if outer_stop
                            .as_ref()
                            .is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed))
                            || !matches!(helper.root(board, depth), Root::Finished(..))
                        {
                            break;
                        }
                    }
                    helper.nodes
                })
            })
            .collect();
        Some((done, handles))
    }

    /// Lets another thread end searches early by setting `stop`: a search stopped so returns what it
    /// had (a choice from the last finished iteration, the first move if none).
    pub fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.solver.set_stop(stop.clone());
        self.limits.stop = Some(stop);
    }

    /// What `board` is worth to its side to move, searched as for a move: exact for a finished
    /// game, through the pass when the side to move has none.
    pub fn value(&mut self, board: Board) -> (Value, u64) {
        if board.moves().is_empty() {
            if board.opponent_moves().is_empty() {
                let value = Value::Exact {
                    discs: board.final_score(),
                    empties: board.empty_count(),
                };
                return (value, 0);
            }
            // A pass is not a ply of its own: the depth stays.
            let (value, nodes) = self.value(board.pass());
            return (value.negated(), nodes);
        }
        let choice = self.choose(board);
        (choice.value, choice.nodes)
    }

    /// One iteration at the root; the table holds the previous iteration's best move, which the
    /// search tries first, and receives this one's.
    fn root(&mut self, board: Board, depth: u32) -> Root {
        (self.root, self.root_depth, self.root_partial) = (board, depth, None);
        let features = Features::of(board);
        let value = with_cpu!(C => self.search::<C>(board, &features, depth, -INFINITY, INFINITY, false));
        if self.limits.stopped() {
            return match self
                .root_partial
                .and_then(|(best, value)| Some((Square::new(best)?, value)))
            {
                Some((best, value)) => Root::CutOff(best, value),
                None => Root::Nothing,
            };
        }
        match self.table.probe(board).and_then(|(entry, _)| Square::new(entry.best)) {
            Some(best) => Root::Finished(best, value),
            None => Root::Nothing,
        }
    }

    /// Principal variation search to `depth` plies; a pass does not use up a ply here. `features`
    /// are `board`'s, carried down from the root.
    #[inline(always)]
    fn search<C: Cpu>(
        &mut self,
        board: Board,
        features: &Features,
        depth: u32,
        alpha: i32,
        beta: i32,
        passed: bool,
    ) -> i32 {
        at_level!(C, self: Engine => search_body(board: Board, features: &Features, depth: u32, alpha: i32, beta: i32, passed: bool) -> i32)
    }

    /// [`Engine::search`] of `child`, a move from `board`, whose features are derived from
    /// `board`'s inside the level's wrapper: the closures that call it are compiled out of line at
    /// the build's plain x86-64 level when LLVM chooses, and the features' vector additions there
    /// cost a sixth of the search's time.
    #[inline(always)]
    fn search_child<C: Cpu>(
        &mut self,
        board: Board,
        features: &Features,
        child: Board,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        at_level!(C, self: Engine => search_child_body(board: Board, features: &Features, child: Board, depth: u32, alpha: i32, beta: i32) -> i32)
    }

    #[inline(always)]
    fn search_child_body<C: Cpu>(
        &mut self,
        board: Board,
        features: &Features,
        child: Board,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        self.search::<C>(child, &features.after(board, child), depth, alpha, beta, false)
    }

    #[inline(always)]
    fn search_body<C: Cpu>(
        &mut self,
        board: Board,
        features: &Features,
        depth: u32,
        mut alpha: i32,
        mut beta: i32,
        passed: bool,
    ) -> i32 {
        self.nodes += 1;
        if self.limits.reached(self.nodes) {
            return 0;
        }
        let moves = board.moves();
        if moves.is_empty() {
            if passed {
                return terminal_value(board.pass());
            }
            if board.opponent_moves().is_empty() {
                return terminal_value(board);
            }
            return -self.search::<C>(board.pass(), &features.passed(), depth, -beta, -alpha, true);
        }
        if depth == 0 {
            return match self.config.eval {
                EngineEval::Patterns => self.config.weights.evaluate_features::<C>(board, moves, features),
                EngineEval::HandMade => evaluate::<C>(self.config.eval, self.config.weights, board),
            };
        }
        let mut hinted = NO_MOVE;
        if let Some((entry, searched)) = self.table.probe(board) {
            hinted = entry.best;
            if searched >= depth {
                if entry.lower >= beta {
                    return entry.lower;
                }
                if entry.upper <= alpha {
                    return entry.upper;
                }
                alpha = alpha.max(entry.lower);
                beta = beta.min(entry.upper);
            }
        }
        if self.config.selective && depth >= probcut::MIN_DEPTH {
            if let Some(value) = self.probcut::<C>(board, features, depth, alpha, beta) {
                return value;
            }
            // The shallow searches leave their best move in the table: a first move to try.
            if hinted == NO_MOVE
                && let Some((entry, _)) = self.table.probe(board)
            {
                hinted = entry.best;
            }
        }
        let original = (alpha, beta);
        // At most 64 moves fit on a board; the list is not initialised beyond what is pushed.
        let mut keyed: ArrayVec<(i32, Square, Board), 64> = ArrayVec::new();
        for square in moves {
            let child = board.play_on::<C>(square);
            // Every child that is not a leaf probes the table first: each probe is a miss to
            // memory, which the cache can be fetching while the others are generated and ordered.
            if depth > 1 {
                self.table.prefetch(child);
            }
            let key = if square.index() as u8 == hinted || depth < 3 {
                i32::MIN + keyed.len() as i32
            } else if self.config.eval == EngineEval::Patterns && depth >= EVAL_ORDERING_DEPTH {
                // Deep enough, the trained evaluation pays for itself in the ordering: the child's
                // value for the opponent, plus two discs a reply.
                let value = self
                    .config
                    .weights
                    .pattern_value(child, child.moves(), &features.after(board, child));
                fastest_first(child) * ORDERING_REPLY + value
            } else {
                fastest_first(child)
            };
            keyed.push((key, square, child));
        }
        if depth >= 3 {
            keyed.sort_unstable_by_key(|&(key, _, _)| key);
        } else if let Some(first) = keyed.iter().position(|&(_, square, _)| square.index() as u8 == hinted) {
            // Too shallow to pay for ordering, but the table's move still goes first.
            keyed.swap(0, first);
        }
        let children = keyed.iter().map(|&(_, square, child)| (square, child));
        // Only on several threads, and only where subtrees are big: an Arc clone a node.
        let busy = if depth >= SHARED_DEPTH { self.busy.clone() } else { None };
        let found = best_child(
            children,
            alpha,
            beta,
            -INFINITY,
            |child| threads::is_busy(busy.as_deref(), child),
            |child, a, b| {
                let value = threads::marked(busy.as_deref(), child, || {
                    self.search_child::<C>(board, features, child, depth - 1, a, b)
                });
                (!self.limits.stopped()).then_some(value)
            },
        );
        let (best_value, best_move) = match found {
            Ok(found) => found,
            Err((value, best)) => {
                // Only a value above the window's floor is a lower bound; below it, every move
                // finished has failed low, and the highest of their upper bounds ranks nothing.
                if depth == self.root_depth && board == self.root && best != NO_MOVE && value > original.0 {
                    self.root_partial = Some((best, value));
                }
                return 0;
            }
        };
        // An exact value inside the window bounds both ways; a cut-off only one way.
        let lower = if best_value > original.0 { best_value } else { -INFINITY };
        let upper = if best_value < original.1 { best_value } else { INFINITY };
        self.table.store(
            board,
            depth,
            Entry {
                best: best_move,
                lower,
                upper,
            },
        );
        best_value
    }

    /// Multi-ProbCut: `Some(bound)` when a shallow search says the deep one would almost surely
    /// fail beyond the window (high or low).
    #[inline(always)]
    fn probcut<C: Cpu>(&mut self, board: Board, features: &Features, depth: u32, alpha: i32, beta: i32) -> Option<i32> {
        let shallow = probcut::shallow_depth(depth);
        let margin = probcut::margin(board.empty_count(), shallow, depth);
        // Only estimates are predicted: a window with a proven bound on the cut's side is never
        // cut, since a shallow estimate far above a proven loss by 10 says nothing of whether the
        // loss is by 10 or by 14 (docs/history.md, "Proven values and ProbCut").
        let high = beta.saturating_add(margin);
        if beta > -WIN / 2
            && high < WIN / 2
            && self.search::<C>(board, features, shallow, high - 1, high, false) >= high
        {
            return Some(beta);
        }
        let low = alpha.saturating_sub(margin);
        if alpha < WIN / 2 && low > -WIN / 2 && self.search::<C>(board, features, shallow, low, low + 1, false) <= low {
            return Some(alpha);
        }
        // Time may have run out in a shallow search: the caller's next check sees it.
        None
    }
}

const INFINITY: i32 = i32::MAX - 1;

/// What an iteration at the root found.
enum Root {
    /// The best move and the root's value.
    Finished(Square, i32),
    /// Cut off by the clock: the best of the moves it finished, and its value (a lower bound).
    CutOff(Square, i32),
    Nothing,
}

/// The evaluation at the horizon: the trained patterns (in 1/32 discs), or mobility and stability
/// (h3) plus the square weights (h2).
#[inline(always)]
fn evaluate<C: Cpu>(eval: EngineEval, weights: &Weights, board: Board) -> i32 {
    match eval {
        EngineEval::Patterns => weights.evaluate_at::<C>(board),
        EngineEval::HandMade => {
            crate::eval::evaluate(Eval::Mobility, board) + weighted_score(board.player, board.opponent)
        }
    }
}

/// A finished game: a win beyond any evaluation, by its margin.
#[inline(always)]
fn terminal_value(board: Board) -> i32 {
    let score = board.final_score();
    score.signum() * WIN + score
}

#[cfg(test)]
mod tests;

//! Generating lab test cases from random legal games: arguments and the expected output, in the case
//! format `othello grade` reads. The same seed writes the same cases; every set starts with one case
//! of each kind the course tests, the rest are drawn at random.

use othello_core::color::Color;
use othello_core::notation::condensed::{self, Entry};
use othello_core::notation::lab_board;
use othello_core::position::Position;
use othello_core::rng::SeededRng;
use othello_core::square::Square;

use super::lab::{LabRequest, run};

/// The shape of the arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The handout's form: board (when given), token (when given), then moves as integers without
    /// leading zeros or as A1 names, now and then a negative number.
    Handout,
    /// Anything the lab mode accepts: the token after the moves, leading zeros (`019`).
    Varied,
    /// Othello 1: a board and a token only; the expected output is the `--lab1` snapshot.
    Lab1,
    /// Lab 5: a board with 1 to 10 empty squares and the token to play; the expected output is the
    /// lab mode's with `--lab5`.
    Lab5,
}

/// How many empty squares Lab 5's boards have, case by case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lab5Mix {
    /// The 2021 handout's: ten boards with 1 to 10 empty squares, then boards with 1 to 9 in turn
    /// ("the 10th test is the only one with 10 free spots"): a hundred has ten of each count from 1
    /// to 9 beyond the first ten.
    Course,
    /// 1 to 10 in turn: a hundred has ten of each count.
    Uniform,
}

impl Lab5Mix {
    /// The empty squares of case `index` (from 0).
    pub fn holes(self, index: u64) -> u32 {
        match self {
            Lab5Mix::Course if index < 10 => index as u32 + 1,
            Lab5Mix::Course => 1 + ((index - 10) % 9) as u32,
            Lab5Mix::Uniform => 1 + (index % 10) as u32,
        }
    }
}

/// How to generate a set.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub form: Form,
    /// The moves as one condensed transcript (`4445_9-157`), passes written as `-1`.
    pub condensed: bool,
    /// At most this many moves per random case (one in eight plays its game to the end).
    pub max_moves: u32,
    /// The empty squares of Lab 5's boards.
    pub lab5_mix: Lab5Mix,
}

/// One generated case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub args: Vec<String>,
    pub stdout: String,
}

/// What the first cases of every set test, one each, in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The start position, no board and no token given.
    Start,
    /// The start position given as a board, with its token.
    StartGiven,
    /// A forced pass among the moves.
    ForcedPass,
    /// No token, and the side that parity names cannot move: the other side moves.
    DefaultTokenPasses,
    /// A token given that cannot move.
    TokenCannotMove,
    /// Played to the end, the board full.
    EndsFull,
    /// Played to the end with empty squares left.
    EndsWithEmpties,
}

const KINDS: [Kind; 7] = [
    Kind::Start,
    Kind::StartGiven,
    Kind::ForcedPass,
    Kind::DefaultTokenPasses,
    Kind::TokenCannotMove,
    Kind::EndsFull,
    Kind::EndsWithEmpties,
];

/// A case before it is written out: the board given (if any), the token given (if any), the moves.
struct Plan {
    board: Option<Position>,
    token: Option<Color>,
    moves: Vec<Square>,
}

/// Case `index` of the set seeded with `seed`.
pub fn generate(seed: u64, index: u64, options: Options) -> Case {
    let mut rng = SeededRng::for_item(seed, index);
    if options.form == Form::Lab5 {
        return lab5_case(&mut rng, options.lab5_mix.holes(index));
    }
    let plan = match KINDS.get(index as usize) {
        Some(&kind) => planned(&mut rng, kind, options.form),
        None => random_plan(&mut rng, options),
    };
    let args = match options.form {
        Form::Lab1 => lab1_args(&mut rng, &plan),
        Form::Handout | Form::Varied | Form::Lab5 => args(&mut rng, &plan, options),
    };
    let mut request = LabRequest::parse(&args).expect("generated arguments are valid");
    request.lab1 = options.form == Form::Lab1;
    let mut stdout = String::new();
    run(&request, &mut stdout).expect("generated moves are legal");
    Case { args, stdout }
}

/// A Lab 5 case: a position from a random game with `holes` empty squares, where the side to move
/// (given as the token) has a move.
fn lab5_case(rng: &mut SeededRng, holes: u32) -> Case {
    let position = loop {
        let game = random_game(rng);
        let found = game
            .plies
            .iter()
            .map(|&(position, _)| position)
            .find(|position| position.board.empty_count() == holes);
        if let Some(position) = found {
            break position;
        }
    };
    let args = vec![
        lab_board::format(position).to_ascii_lowercase(),
        position.to_move.lab_char().to_string(),
    ];
    let mut request = LabRequest::parse(&args).expect("generated arguments are valid");
    request.lab5 = true;
    let mut stdout = String::new();
    run(&request, &mut stdout).expect("no move is played");
    Case { args, stdout }
}

/// A random game from the start: every move with the position it was played from (after any forced
/// pass), the plies that followed a pass, and the final position.
struct RandomGame {
    plies: Vec<(Position, Square)>,
    passes: Vec<usize>,
    end: Position,
}

fn random_game(rng: &mut SeededRng) -> RandomGame {
    let (mut plies, mut passes) = (Vec::new(), Vec::new());
    let mut position = Position::START;
    loop {
        if position.board.must_pass() {
            passes.push(plies.len());
            position = position.pass();
        }
        if position.is_game_over() {
            return RandomGame {
                plies,
                passes,
                end: position,
            };
        }
        let square = rng.pick_square(position.moves());
        plies.push((position, square));
        position = position.play(square);
    }
}

/// Random games until one fits; a set of any seed finds each kind long before the bound.
fn find_game(rng: &mut SeededRng, fits: impl Fn(&RandomGame) -> bool) -> RandomGame {
    let mut game = random_game(rng);
    for _ in 0..100_000 {
        if fits(&game) {
            break;
        }
        game = random_game(rng);
    }
    game
}

fn squares(plies: &[(Position, Square)]) -> Vec<Square> {
    plies.iter().map(|&(_, square)| square).collect()
}

/// The position where the side to move must pass, just before the game's first forced pass.
fn before_first_pass(game: &RandomGame) -> Option<(Position, usize)> {
    let &pass = game.passes.first()?;
    let (position, square) = *game.plies.get(pass.checked_sub(1)?)?;
    Some((position.play(square), pass))
}

fn planned(rng: &mut SeededRng, kind: Kind, form: Form) -> Plan {
    let few = |rng: &mut SeededRng| 1 + rng.below(4) as usize;
    match kind {
        Kind::Start => {
            let game = random_game(rng);
            let count = few(rng);
            Plan {
                board: (form == Form::Lab1).then_some(Position::START),
                token: (form == Form::Lab1).then_some(Color::Black),
                moves: squares(&game.plies[..count]),
            }
        }
        Kind::StartGiven => {
            let game = random_game(rng);
            let count = few(rng);
            Plan {
                board: Some(Position::START),
                token: Some(Color::Black),
                moves: squares(&game.plies[..count]),
            }
        }
        Kind::ForcedPass => {
            let game = find_game(rng, |g| g.passes.iter().any(|&p| p >= 2 && p < g.plies.len()));
            let pass = game.passes.iter().copied().find(|&p| p >= 2).unwrap_or(1);
            let start = pass - 1 - rng.below(2) as usize;
            let end = (pass + 2).min(game.plies.len());
            Plan {
                board: Some(game.plies[start].0),
                token: Some(game.plies[start].0.to_move),
                moves: squares(&game.plies[start..end]),
            }
        }
        Kind::DefaultTokenPasses | Kind::TokenCannotMove => {
            // Before the first pass, parity names the side to move: the one that cannot.
            let game = find_game(rng, |g| before_first_pass(g).is_some_and(|(_, p)| p < g.plies.len()));
            let Some((position, pass)) = before_first_pass(&game) else {
                return random_plan_from(rng, Position::START, 3);
            };
            let end = (pass + few(rng)).min(game.plies.len());
            Plan {
                board: Some(position),
                token: (kind == Kind::TokenCannotMove).then_some(position.to_move),
                moves: squares(&game.plies[pass..end]),
            }
        }
        Kind::EndsFull | Kind::EndsWithEmpties => {
            let full = kind == Kind::EndsFull;
            let game = find_game(rng, |g| (g.end.board.empty_count() == 0) == full);
            if form == Form::Lab1 {
                return Plan {
                    board: Some(game.end),
                    token: Some(game.end.to_move),
                    moves: Vec::new(),
                };
            }
            let start = game.plies.len().saturating_sub(4 + rng.below(8) as usize);
            Plan {
                board: Some(game.plies[start].0),
                token: Some(game.plies[start].0.to_move),
                moves: squares(&game.plies[start..]),
            }
        }
    }
}

/// A case drawn at random: the start position (given or not) or a position from a random game,
/// a token or none, and a few moves or a whole game.
fn random_plan(rng: &mut SeededRng, options: Options) -> Plan {
    let mut position = Position::START;
    let board_given = options.form == Form::Lab1 || rng.below(3) != 0;
    if board_given && rng.below(4) != 0 {
        let plies = 1 + rng.below(54);
        for _ in 0..plies {
            let next = position.after_forced_pass();
            if next.is_game_over() {
                break;
            }
            position = next.play(rng.pick_square(next.moves()));
        }
    }
    let token_given = options.form == Form::Lab1 || rng.below(2) == 0;
    let token = token_given.then(|| {
        // Any token is valid: one that cannot move hands the turn over, as the lab says.
        if rng.below(4) == 0 {
            !position.to_move
        } else {
            position.to_move
        }
    });
    let start = match token {
        Some(token) => position.with_to_move(token),
        None => position.with_to_move(Position::parity_side(position.board.empty_count())),
    };
    let count = if rng.below(8) == 0 {
        u32::MAX
    } else {
        rng.below(u64::from(options.max_moves) + 1) as u32
    };
    let mut plan = random_plan_from(rng, start, count);
    plan.board = board_given.then_some(position);
    plan.token = token;
    plan
}

/// Up to `count` random moves from `start` (the lab's forced passes applied).
fn random_plan_from(rng: &mut SeededRng, start: Position, count: u32) -> Plan {
    let mut moves = Vec::new();
    let mut current = start.after_forced_pass();
    while (moves.len() as u32) < count && !current.is_game_over() {
        let square = rng.pick_square(current.moves());
        moves.push(square);
        current = current.play(square).after_forced_pass();
    }
    Plan {
        board: Some(start),
        token: Some(start.to_move),
        moves,
    }
}

/// The arguments of a plan, in the handout's form or the varied one.
fn args(rng: &mut SeededRng, plan: &Plan, options: Options) -> Vec<String> {
    let varied = options.form == Form::Varied;
    let mut args = Vec::new();
    if let Some(board) = plan.board {
        args.push(in_random_case(rng, &lab_board::format(board)));
    }
    let token = plan
        .token
        .map(|token| in_random_case(rng, &token.lab_char().to_string()));
    let moves = if options.condensed {
        condensed_moves(plan)
    } else {
        plan.moves
            .iter()
            .flat_map(|&square| {
                let negative = (rng.below(10) == 0).then(|| format!("-{}", 1 + rng.below(99)));
                negative.into_iter().chain([move_text(rng, square, varied)])
            })
            .collect()
    };
    // The varied form now and then puts the token after the moves: arguments are read by content.
    match token {
        Some(token) if varied && rng.below(5) == 0 => {
            args.extend(moves);
            args.push(token);
        }
        token => {
            args.extend(token);
            args.extend(moves);
        }
    }
    args
}

/// The moves as one condensed word, with `-1` where a side had to pass between two moves.
fn condensed_moves(plan: &Plan) -> Vec<String> {
    if plan.moves.is_empty() {
        return Vec::new();
    }
    let start = start_of(plan);
    let mut entries = Vec::new();
    let mut position = start.after_forced_pass();
    for (k, &square) in plan.moves.iter().enumerate() {
        entries.push(Entry::Move(square));
        position = position.play(square);
        if position.board.must_pass() && k + 1 < plan.moves.len() {
            entries.push(Entry::Pass);
        }
        position = position.after_forced_pass();
    }
    vec![condensed::format(&entries)]
}

/// The position the lab mode starts a plan from (before its forced-pass rule).
fn start_of(plan: &Plan) -> Position {
    let board = plan.board.unwrap_or(Position::START);
    board.with_to_move(
        plan.token
            .unwrap_or_else(|| Position::parity_side(board.board.empty_count())),
    )
}

fn lab1_args(rng: &mut SeededRng, plan: &Plan) -> Vec<String> {
    let start = start_of(plan);
    vec![
        in_random_case(rng, &lab_board::format(start)),
        in_random_case(rng, &start.to_move.lab_char().to_string()),
    ]
}

fn in_random_case(rng: &mut SeededRng, text: &str) -> String {
    match rng.below(3) {
        0 => text.to_ascii_uppercase(),
        1 => text
            .chars()
            .map(|c| if rng.below(2) == 0 { c.to_ascii_uppercase() } else { c })
            .collect(),
        _ => text.to_string(),
    }
}

fn move_text(rng: &mut SeededRng, square: Square, varied: bool) -> String {
    match rng.below(6) {
        0 => square.to_string(),
        1 => square.to_string().to_ascii_uppercase(),
        2 if varied => format!("0{}", square.index()),
        _ => square.index().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(form: Form, condensed: bool) -> Options {
        Options {
            form,
            condensed,
            max_moves: 10,
            lab5_mix: Lab5Mix::Course,
        }
    }

    #[test]
    fn lab5_cases_follow_the_courses_mix() {
        let holes: Vec<u32> = (0..100).map(|i| Lab5Mix::Course.holes(i)).collect();
        assert_eq!(holes[..10], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(holes.iter().filter(|&&h| h == 10).count(), 1, "only the 10th has 10");
        for count in 1..=9 {
            assert_eq!(holes.iter().filter(|&&h| h == count).count(), 11, "{count}");
        }
        let uniform: Vec<u32> = (0..100).map(|i| Lab5Mix::Uniform.holes(i)).collect();
        assert_eq!(uniform.iter().filter(|&&h| h == 10).count(), 10);
        // The generated boards have those counts of empty squares.
        for index in [0, 9, 10, 18] {
            let case = generate(7, index, options(Form::Lab5, false));
            let empty = case.args[0].chars().filter(|&c| c == '.').count() as u32;
            assert_eq!(empty, Lab5Mix::Course.holes(index));
        }
    }

    /// The sides named by `Possible moves for S` lines, and whether the game ended.
    fn sides_and_end(stdout: &str) -> (Vec<char>, bool) {
        let sides = stdout
            .lines()
            .filter_map(|l| l.strip_prefix("Possible moves for "))
            .filter_map(|rest| rest.chars().next())
            .collect();
        (sides, !stdout.ends_with("\n\n"))
    }

    #[test]
    fn every_kind_is_found_whatever_the_seed() {
        for seed in 0..40 {
            for (index, &kind) in KINDS.iter().enumerate() {
                let case = generate(seed, index as u64, options(Form::Handout, false));
                let (sides, over) = sides_and_end(&case.stdout);
                let last_line = case.stdout.lines().last().unwrap();
                let token = case
                    .args
                    .iter()
                    .find(|a| a.len() == 1 && a.chars().all(char::is_alphabetic))
                    .map(|t| t.to_ascii_lowercase());
                let board = case.args.iter().find(|a| a.len() == 64);
                let players: Vec<&str> = case
                    .stdout
                    .lines()
                    .filter(|l| l.contains(" plays to "))
                    .map(|l| &l[..1])
                    .collect();
                let ok = match kind {
                    Kind::Start => board.is_none() && token.is_none() && !case.args.is_empty(),
                    Kind::StartGiven => board.is_some_and(|b| b.eq_ignore_ascii_case(lab_board::DEFAULT_BOARD)),
                    Kind::ForcedPass => players.windows(2).any(|w| w[0] == w[1]),
                    Kind::DefaultTokenPasses => {
                        let empties = board.unwrap().chars().filter(|&c| c == '.').count();
                        let parity = if empties % 2 == 0 { 'x' } else { 'o' };
                        token.is_none() && sides[0] != parity
                    }
                    Kind::TokenCannotMove => token.is_some_and(|t| !t.starts_with(sides[0])),
                    Kind::EndsFull => over && !last_line.contains('.'),
                    Kind::EndsWithEmpties => over && last_line.contains('.'),
                };
                assert!(ok, "seed {seed}, {kind:?}: {case:?}");
                let lab1 = generate(seed, index as u64, options(Form::Lab1, false));
                assert_eq!(lab1.args.len(), 2, "{lab1:?}");
                let blocked = matches!(
                    kind,
                    Kind::DefaultTokenPasses | Kind::TokenCannotMove | Kind::EndsFull | Kind::EndsWithEmpties
                );
                assert_eq!(
                    lab1.stdout.contains("No moves possible"),
                    blocked,
                    "seed {seed}, {kind:?}: {lab1:?}"
                );
            }
        }
    }

    #[test]
    fn handout_form_keeps_the_order_and_writes_no_leading_zero() {
        for index in 0..300 {
            let case = generate(5, index, options(Form::Handout, false));
            let kinds: Vec<u8> = case
                .args
                .iter()
                .map(|a| match a.len() {
                    64 => 0,
                    1 if a.chars().all(char::is_alphabetic) => 1,
                    _ => 2,
                })
                .collect();
            assert!(kinds.is_sorted(), "{:?}", case.args);
            for arg in &case.args {
                assert!(!(arg.len() > 1 && arg.starts_with('0')), "{:?}", case.args);
            }
        }
    }

    #[test]
    fn condensed_cases_print_what_the_moves_one_by_one_print() {
        for index in 0..200 {
            let condensed = generate(8, index, options(Form::Handout, true));
            let plain = generate(8, index, options(Form::Handout, false));
            assert_eq!(condensed.stdout, plain.stdout, "{:?}", condensed.args);
            assert!(condensed.args.iter().filter(|a| a.len() != 64 && a.len() != 1).count() <= 1);
        }
    }
}

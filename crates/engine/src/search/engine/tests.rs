use super::*;
use othello_core::notation::transcript;
use othello_core::position::Position;

/// A position after 20 moves of a real game (40 empties): a midgame where ProbCut acts.
fn midgame() -> Board {
    let game = transcript::play(Position::START, "e6f6d3c3c4e3f5c5f3g3b4a3d2f4e2d6c6b6g4f1").unwrap();
    game.position().board
}

#[test]
fn probcut_reaches_the_same_depth_with_fewer_nodes_and_a_close_value() {
    let board = midgame();
    let mut full = Engine::with_budget(Budget::Depth(10));
    assert!(!full.config.selective, "a fixed depth searches full width");
    let full_choice = full.choose(board);
    let mut selective = Engine::with_budget(Budget::Depth(10));
    selective.config.selective = true;
    let selective_choice = selective.choose(board);
    assert!(
        selective_choice.nodes * 2 < full_choice.nodes,
        "{} nodes with ProbCut, {} without",
        selective_choice.nodes,
        full_choice.nodes
    );
    let discs = |value: Value| value.number();
    assert!((discs(selective_choice.value) - discs(full_choice.value)).abs() <= 4);
}

/// ProbCut predicts estimates only: a shallow value far from a window of estimates cuts, but
/// never a window whose bound on the cut's side is a proven win or loss, whose margin a
/// shallow estimate knows nothing of.
#[test]
fn probcut_never_bounds_a_proven_value() {
    let board = midgame();
    let features = Features::of(board);
    let mut engine = Engine::with_budget(Budget::Depth(10));
    engine.config.selective = true;
    let mut cut = |alpha: i32, beta: i32| with_cpu!(C => engine.probcut::<C>(board, &features, 10, alpha, beta));
    // The position is worth about +25 discs to the side to move.
    let (below, above) = (-10 * patterns::SCALE, 60 * patterns::SCALE);
    assert_eq!(
        cut(below - 1, below),
        Some(below),
        "an estimate far below the position's cuts high"
    );
    assert_eq!(cut(above, above + 1), Some(above), "an estimate far above it cuts low");
    assert_eq!(
        cut(-WIN - 11, -WIN - 10),
        None,
        "a proven loss of 10 is not a bound to cut on"
    );
    assert_eq!(cut(WIN + 10, WIN + 11), None, "nor a proven win of 10");
}

/// The solver is tried where its median solve fits the time left after the midgame search's
/// share: 22 empties at a second a move on one thread, fewer with less time, more with more
/// time or threads; its selective searches alone where the least sure one most likely finishes
/// (26 at a second). A node budget keeps its 24 for both.
#[test]
fn the_solver_is_tried_where_it_most_likely_finishes() {
    let time = |seconds: f64| Some(MoveTime::fixed(Duration::from_secs_f64(seconds)));
    assert_eq!(solve_empties(time(1.0), 1), (22, 26));
    assert_eq!(solve_empties(time(0.1), 1), (19, 22));
    assert_eq!(solve_empties(time(10.0), 1), (25, MAX_SOLVE_EMPTIES));
    assert_eq!(solve_empties(time(1.0), 2), (23, 27));
    assert_eq!(solve_empties(time(0.001), 1), (MIN_SOLVE_EMPTIES, MIN_SOLVE_EMPTIES));
    assert_eq!(solve_empties(time(1e6), 1), (MAX_SOLVE_EMPTIES, MAX_SOLVE_EMPTIES));
    assert_eq!(solve_empties(None, 1), (24, 24));
}

#[test]
fn entries_keep_their_bounds_through_the_table() {
    for (lower, upper) in [
        (-INFINITY, INFINITY),
        (-WIN - 64, WIN + 3),
        (-1234, 987),
        (0, 0),
        (WIN, INFINITY),
    ] {
        let entry = Entry { best: 37, lower, upper };
        let back = Entry::unpack(entry.pack());
        assert!(entry.pack() < 1 << 56);
        assert_eq!((back.best, back.lower, back.upper), (37, lower, upper));
    }
}

/// Regression: an iteration cut off at the root reported the best of the moves it had
/// finished even when each had failed low, below a floor that a table entry (a helper
/// thread's, or the previous move's search's) had raised the root's window to: their values
/// are then upper bounds only, and the highest of them says nothing about which move is best.
#[test]
fn a_cut_off_iteration_reports_no_move_that_only_failed_low() {
    let board = midgame();
    let floor = WIN / 2;
    let engine_with_floor = || {
        let engine = Engine::with_budget(Budget::Depth(8));
        let entry = Entry {
            best: NO_MOVE,
            lower: floor,
            upper: INFINITY,
        };
        engine.table.store(board, 30, entry);
        engine
    };
    let mut whole = engine_with_floor();
    assert!(matches!(whole.root(board, 6), Root::Finished(..)));
    let mut cut = engine_with_floor();
    // Stopped late in the iteration: most moves have failed low by then.
    cut.limits.node_limit = Some(whole.nodes * 3 / 4);
    match cut.root(board, 6) {
        Root::CutOff(best, value) => panic!("{best} reported at {value}, below the floor {floor}"),
        Root::Finished(..) => panic!("the iteration was not cut off"),
        Root::Nothing => {}
    }
}

#[test]
fn the_hand_made_engine_is_never_selective() {
    let asked = EngineStyle {
        eval: EngineEval::HandMade,
        selective: true,
        weights: None,
    };
    let settings = EngineSettings::default();
    assert!(
        !Engine::with_style(Budget::Nodes(1000), asked, &settings)
            .config
            .selective
    );
    assert!(
        !Engine::with_style(Budget::Nodes(1000), EngineStyle::HANDMADE, &settings)
            .config
            .selective
    );
    assert!(Engine::with_budget(Budget::Nodes(1000)).config.selective);
    assert!(
        !Engine::with_style(Budget::Nodes(1000), EngineStyle::FULL_WIDTH, &settings)
            .config
            .selective
    );
}

/// A move's time counts from when it was asked for: a session that waited for its engine (being
/// made on another thread) has that much less to search, and a move asked for longer ago than its
/// whole time is answered at once, with a legal move.
#[test]
fn a_move_asked_for_before_its_search_started_has_only_what_is_left_of_its_time() {
    let board = midgame();
    let mut engine = Engine::with_budget(Budget::Time(Duration::from_secs(30)));
    let asked = Instant::now()
        .checked_sub(Duration::from_secs(60))
        .expect("a minute since the machine started");
    let started = Instant::now();
    engine.count_time_from(asked);
    let choice = engine.choose(board);
    assert!(board.moves().contains(choice.best));
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
    // Only that move: the next one has its whole time again.
    assert!(engine.asked.is_none());
}

use super::*;

/// FFO #40 followed along its principal variation to 12 empties: quick to solve.
fn twelve_empties() -> Board {
    on_the_line(12)
}

/// FFO #40 (20 empties) followed along its principal variation to `empties` empties.
fn on_the_line(empties: u32) -> Board {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/ffo/fforum-40-59.obf"
    ))
    .expect("the FFO fixture");
    let mut board = othello_core::notation::obf::parse(&text).expect("the FFO fixture parses")[0]
        .position
        .board;
    let solution = Solver::with_table_bits(16).solve(board).expect("no limit");
    for step in &solution.pv {
        if board.empty_count() == empties {
            break;
        }
        board = match step {
            Some(square) => board.play(*square),
            None => board.pass(),
        };
    }
    assert_eq!(board.empty_count(), empties);
    board
}

/// A solve cut off after its selective search keeps that search's score and move; one cut
/// off before it, or below `SELECTIVE_FROM` empties, has none.
#[test]
fn a_solve_cut_off_in_its_exact_search_keeps_the_selective_result() {
    let board = on_the_line(18);
    let last_likely = Arc::new(std::sync::Mutex::new(None));
    let mut solver = Solver::with_table_bits(16);
    let seen = last_likely.clone();
    solver.set_observer(Some(Box::new(move |bounds: Bounds| {
        if bounds.likely {
            *seen.lock().unwrap() = Some(bounds);
        }
    })));
    let exact = solver.solve(board).expect("no limit");
    let selective = last_likely.lock().unwrap().expect("a selective search from 16 empties");
    assert_eq!(selective.lower, selective.upper);
    assert!(
        exact.nodes > selective.nodes + 2 * CHECK_EVERY,
        "the exact search costs something"
    );
    let mut cut = Solver::with_table_bits(16);
    cut.set_node_limit(Some(selective.nodes + CHECK_EVERY));
    assert!(cut.solve(board).is_err());
    let (score, best) = cut.likely().expect("the selective search finished");
    assert_eq!(score, selective.lower);
    assert!(board.moves().contains(best));
    let mut early = Solver::with_table_bits(16);
    early.set_node_limit(Some(CHECK_EVERY));
    assert!(early.solve(board).is_err());
    assert_eq!(early.likely(), None);
    let mut small = Solver::with_table_bits(16);
    small.solve(twelve_empties()).expect("no limit");
    assert_eq!(small.likely(), None);
}

/// Selective searches climbing in sureness each converge (the surer ones not stopped by the
/// less sure ones' entries) and the exact search after them finds the same score as ever.
#[test]
fn a_solve_climbing_selective_levels_ends_exact() {
    let board = on_the_line(18);
    let exact = Solver::with_table_bits(16).solve(board).expect("no limit").score;
    let converged = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut solver = Solver::with_table_bits(16);
    solver.set_selective_levels(Some(&[0.5, 1.0, 2.0]));
    let seen = converged.clone();
    solver.set_observer(Some(Box::new(move |bounds: Bounds| {
        if bounds.likely && bounds.lower == bounds.upper {
            seen.lock().unwrap().push(bounds.nodes);
        }
    })));
    assert_eq!(solver.solve(board).expect("no limit").score, exact);
    let converged = converged.lock().unwrap();
    assert_eq!(converged.len(), 3, "one result a level");
    assert!(
        converged.windows(2).all(|pair| pair[1] > pair[0] + 100),
        "each level searched: {converged:?}"
    );
    assert!(solver.likely().is_some());
}

#[test]
fn the_exact_search_never_takes_a_selective_entrys_bounds() {
    let board = twelve_empties();
    let exact = Solver::with_table_bits(16).solve(board).expect("no limit").score;
    // Every position two plies on "likely" wins everything for its mover, with a move it
    // cannot play: the exact search must see through both.
    let solver = Solver::with_table_bits(16);
    let lie = Entry {
        lower: MAX_SCORE as i8,
        upper: MAX_SCORE as i8,
        best: 0,
        confidence: PROBABLE_CUT_TENTHS,
    };
    for square in board.moves() {
        let child = board.play(square);
        solver.table.store(child, 11, lie);
        for reply in child.moves() {
            solver.table.store(child.play(reply), 10, lie);
        }
    }
    let mut solver = solver;
    assert_eq!(solver.solve(board).expect("no limit").score, exact);
}

#[test]
fn a_surer_record_over_a_less_sure_entry_starts_from_no_bounds() {
    let table = Table::new(8);
    let board = twelve_empties();
    record(&table, board, 12, -65, 65, 10, 3, 15);
    let (entry, _) = table.probe(board).expect("stored");
    assert_eq!((entry.lower, entry.upper, entry.confidence), (10, 10, 15));
    // A proven fail-low at 0: only the upper bound is known, and the move hint is kept.
    record(&table, board, 12, 0, 1, -4, NO_MOVE, PROVEN);
    let (entry, _) = table.probe(board).expect("stored");
    assert_eq!(
        (entry.lower, entry.upper, entry.best, entry.confidence),
        (-64, -4, 3, PROVEN)
    );
    // A selective result never overwrites a proven one.
    record(&table, board, 12, -65, 65, 20, 5, 15);
    let (entry, _) = table.probe(board).expect("stored");
    assert_eq!(
        (entry.lower, entry.upper, entry.best, entry.confidence),
        (-64, -4, 3, PROVEN)
    );
    // Between selective results, the surer one wins the same way.
    let other = board.play(board.moves().first().expect("a move"));
    record(&table, other, 11, -65, 65, 8, 7, 10);
    record(&table, other, 11, 0, 1, -6, NO_MOVE, 20);
    let (entry, _) = table.probe(other).expect("stored");
    assert_eq!(
        (entry.lower, entry.upper, entry.best, entry.confidence),
        (-64, -6, 7, 20)
    );
    record(&table, other, 11, -65, 65, 12, 9, 10);
    let (entry, _) = table.probe(other).expect("stored");
    assert_eq!(
        (entry.lower, entry.upper, entry.best, entry.confidence),
        (-64, -6, 7, 20)
    );
}

use super::*;
use othello_core::rng::SeededRng;

#[test]
fn patterns_have_the_instances_of_their_symmetries() {
    let layout = Layout::get();
    let counts: Vec<usize> = layout.instances.iter().map(Vec::len).collect();
    assert_eq!(counts, [4, 4, 8, 4, 4, 4, 2, 4, 4, 4, 4, 4, 4]);
    // A row read backwards is the same configuration; a 2x5 block has no such reading.
    let row2 = 3;
    let forwards = 1; // a2 the player's, the rest empty
    let backwards = 3usize.pow(7);
    assert_eq!(layout.canonical[row2][forwards], layout.canonical[row2][backwards]);
    assert!(layout.canonical[2].iter().enumerate().all(|(i, &c)| c as usize == i));
}

fn random_weights(seed: u64) -> Weights {
    let layout = Layout::get();
    let mut rng = SeededRng::new(seed);
    let mut stages = Vec::new();
    for _ in 0..STAGES {
        let mut table: Vec<i16> = (0..layout.stage_len)
            .map(|_| {
                if rng.below(3) == 0 {
                    0
                } else {
                    rng.below(2001) as i16 - 1000
                }
            })
            .collect();
        for (p, canon) in layout.canonical.iter().enumerate() {
            for (config, &c) in canon.iter().enumerate() {
                table[layout.offsets[p] + config] = table[layout.offsets[p] + c as usize];
            }
        }
        stages.push(table);
    }
    Weights::new(stages, Some(crate::patterns::network::tests::random_network(seed)))
}

pub(crate) fn random_boards(seed: u64, count: usize) -> Vec<Board> {
    let mut rng = SeededRng::new(seed);
    (0..count)
        .map(|_| {
            let mut board = Board::START;
            let plies = rng.below(58);
            for _ in 0..plies {
                if board.is_game_over() {
                    break;
                }
                board = if board.moves().is_empty() {
                    board.pass()
                } else {
                    board.play(rng.pick_square(board.moves()))
                };
            }
            board
        })
        .collect()
}

/// Features carried move by move through whole random games, passes too, are the ones read
/// afresh, and evaluate as the position does.
#[test]
fn features_kept_move_by_move_are_the_ones_read_afresh() {
    let weights = random_weights(9);
    let mut rng = SeededRng::new(10);
    let mut positions = 0;
    for _ in 0..40 {
        let mut board = Board::START;
        let mut features = Features::of(board);
        while !board.is_game_over() {
            assert_eq!(features, Features::of(board), "{board:?}");
            assert_eq!(features, Features::of_squares(board), "{board:?}");
            let moves = board.moves();
            assert_eq!(
                weights.evaluate_features::<othello_core::cpu::Portable>(board, moves, &features),
                weights.evaluate_by_squares(board)
            );
            positions += 1;
            if moves.is_empty() {
                (board, features) = (board.pass(), features.passed());
            } else {
                let child = board.play(rng.pick_square(moves));
                (board, features) = (child, features.after(board, child));
            }
        }
    }
    assert!(positions > 2000);
}

#[test]
fn the_evaluation_is_the_same_on_all_eight_symmetric_boards() {
    let weights = random_weights(1);
    for board in random_boards(2, 300) {
        let value = weights.evaluate(board);
        for g in 1..8 {
            assert_eq!(
                weights.evaluate(symmetric_board(board, g)),
                value,
                "symmetry {g} of {board:?}"
            );
        }
    }
}

/// Packed extraction and lookup agree with reading each square, at every level this CPU has.
#[test]
fn the_fast_evaluation_agrees_with_reading_square_by_square() {
    let weights = random_weights(7);
    for board in random_boards(8, 500) {
        let expected = weights.evaluate_by_squares(board);
        assert_eq!(weights.evaluate_at::<othello_core::cpu::Portable>(board), expected);
        #[cfg(target_arch = "x86_64")]
        if othello_core::cpu::Level::detected() >= othello_core::cpu::Level::Avx2 {
            assert_eq!(weights.evaluate_at::<othello_core::cpu::Avx2>(board), expected);
        }
        assert_eq!(weights.evaluate(board), expected);
    }
    // Instances that read their squares in the same order share one table, so that the tables
    // stay small enough for a first-level data cache: 46 instances took 24 KB, the 54 of 13
    // patterns take 38 KB, within the 48 KB of AMD Zen 5 and Intel cores since Ice Lake but
    // not the 32 KB of older cores (the searches read them only where they compute Features
    // afresh, so the bound guards the growth rather than a fit).
    let layout = Layout::get();
    let tables: std::collections::BTreeSet<u32> = layout.readers.iter().map(|r| r.ternary).collect();
    assert!(tables.len() < layout.readers.len(), "{} tables", tables.len());
    assert!(
        layout.ternary.len() * 2 <= 40 * 1024,
        "{} entries",
        layout.ternary.len()
    );
}

#[test]
fn the_built_in_weights_load_and_score_a_won_position_above_a_lost_one() {
    let weights = builtin();
    // x holds three corners and most edges with 10 squares left; o the mirror image.
    let (black, white) =
        othello_core::notation::lab_board::parse("xxxxxxxxxoooooxxxo.ooo.xxoo.o..xxo.oo..xxoooo.oxxoooooxxxxxxxxxo")
            .unwrap();
    let winning = Board::new(black, white);
    let losing = Board::new(white, black);
    assert!(weights.evaluate(winning) > weights.evaluate(losing) + 10 * SCALE);
    for board in random_boards(5, 100) {
        let value = weights.evaluate(board);
        for g in 1..8 {
            assert_eq!(weights.evaluate(symmetric_board(board, g)), value);
        }
    }
}

#[test]
fn weights_survive_writing_and_reading() {
    let weights = random_weights(3);
    let bytes = weights.to_bytes();
    let read = Weights::from_bytes(&bytes).unwrap();
    assert!(read.stages == weights.stages);
    assert!(Weights::from_bytes(&bytes[..bytes.len() - 1]).is_none());
    assert!(Weights::from_bytes(b"othello patterns 2\n").is_none());
}

#[test]
fn a_file_of_the_first_patterns_reads_with_the_later_ones_at_zero() {
    let layout = Layout::get();
    // The round-6 weights, built in before the triangle and the edge block, have 11 patterns;
    // the round-8 ones 13, and no count tables.
    assert_eq!(layout.written_len(11, 0), 167_267);
    assert_eq!(layout.written_len(13, 0), 285_365);
    // Round 15's have the first four count tables.
    assert_eq!(layout.written_len(13, 4), 285_365 + 4 * COUNT_VALUES);
    let fewer = PATTERNS.len() - 1;
    let mut weights = random_weights(4);
    for table in &mut weights.stages {
        table[layout.offsets[fewer]..layout.global(CONSTANT)].fill(0);
    }
    let weights = Weights::new(weights.stages, weights.network);
    let older = weights.to_bytes_of(fewer, COUNTS);
    let header = format!("othello patterns 1 stages=12 len={}\n", layout.offsets[fewer] + GLOBALS);
    assert!(older.starts_with(header.as_bytes()));
    let read = Weights::from_bytes(&older).unwrap();
    assert!(read.stages == weights.stages);
    // A length that no count of patterns has is refused.
    let mut odd = format!(
        "othello patterns 1 stages=12 len={}\n",
        layout.offsets[fewer] + GLOBALS + 1
    )
    .into_bytes();
    odd.extend_from_slice(&older[older.iter().position(|&b| b == b'\n').unwrap() + 1..]);
    assert!(Weights::from_bytes(&odd).is_none());
}

#[test]
fn a_file_of_the_first_count_tables_reads_with_the_later_ones_at_zero() {
    let layout = Layout::get();
    // Round 8's file has none, round 15's the first four.
    for counts in [0, 4] {
        let mut weights = random_weights(6);
        for table in &mut weights.stages {
            table[layout.global(globals_with(counts))..].fill(0);
        }
        // Made again, so that the network's lines hold the changed weights.
        let weights = Weights::new(weights.stages, weights.network);
        let older = weights.to_bytes_of(PATTERNS.len(), counts);
        let header = format!(
            "othello patterns 1 stages=12 len={}\n",
            layout.stage_len - GLOBALS + COUNT_TABLES + counts * COUNT_VALUES
        );
        assert!(older.starts_with(header.as_bytes()));
        assert!(older.len() < weights.to_bytes().len());
        let read = Weights::from_bytes(&older).unwrap();
        assert!(read.stages == weights.stages);
        // Its value is what it holds alone.
        let board = random_boards(7, 1)[0];
        assert_eq!(read.evaluate(board), weights.evaluate(board));
    }
}

#[test]
fn no_two_shapes_of_file_share_a_stage_length() {
    let layout = Layout::get();
    let mut lengths: Vec<usize> = (1..=PATTERNS.len())
        .flat_map(|patterns| (0..=COUNTS).map(move |counts| layout.written_len(patterns, counts)))
        .collect();
    let shapes = lengths.len();
    lengths.sort_unstable();
    lengths.dedup();
    assert_eq!(lengths.len(), shapes);
}

/// The counts as a reference reads them: each square looked at by itself.
pub(super) fn count_globals_by_squares(board: Board) -> [usize; COUNTS] {
    let neighbours = |s: usize, discs: u64| {
        let (row, col) = ((s / 8) as i32, (s % 8) as i32);
        (-1..=1).any(|dr| {
            (-1..=1).any(|dc| {
                let (r, c) = (row + dr, col + dc);
                (dr, dc) != (0, 0) && (0..8).contains(&r) && (0..8).contains(&c) && discs >> (r * 8 + c) & 1 != 0
            })
        })
    };
    let empty: Vec<usize> = (0..64)
        .filter(|&s| (board.player.0 | board.opponent.0) >> s & 1 == 0)
        .collect();
    let legal = |b: Board| {
        empty
            .iter()
            .filter(|&&s| !b.flips(othello_core::square::Square::from_index(s as u8)).is_empty())
            .count()
    };
    let count = |n: usize| n.min(COUNT_VALUES - 1);
    let empties: u64 = empty.iter().map(|&s| 1u64 << s).sum();
    let frontier = |discs: u64| {
        (0..64)
            .filter(|&s| discs >> s & 1 != 0 && neighbours(s, empties))
            .count()
    };
    [
        COUNT_TABLES + count(legal(board)),
        COUNT_TABLES + COUNT_VALUES + count(legal(board.pass())),
        COUNT_TABLES + 2 * COUNT_VALUES + count(empty.iter().filter(|&&s| neighbours(s, board.opponent.0)).count()),
        COUNT_TABLES + 3 * COUNT_VALUES + count(empty.iter().filter(|&&s| neighbours(s, board.player.0)).count()),
        COUNT_TABLES + 4 * COUNT_VALUES + count(frontier(board.player.0)),
        COUNT_TABLES + 5 * COUNT_VALUES + count(frontier(board.opponent.0)),
    ]
}

#[test]
fn the_counts_are_what_the_squares_say() {
    for board in random_boards(9, 500) {
        let moves = board.moves();
        assert_eq!(
            count_globals(board, moves, board.opponent_moves()),
            count_globals_by_squares(board)
        );
    }
    // The start: 4 moves each, 10 empty squares beside each side's two discs, every disc on
    // the frontier.
    let start = count_globals(Board::START, Board::START.moves(), Board::START.opponent_moves());
    assert_eq!(
        start,
        [2 + 4, 2 + 64 + 4, 2 + 128 + 10, 2 + 192 + 10, 2 + 256 + 2, 2 + 320 + 2]
    );
}

/// A run of zeros claims 65,535 values in 4 bytes: a small file must not unpack into gigabytes.
#[test]
fn a_file_of_endless_zero_runs_is_refused_before_it_is_unpacked() {
    let mut bytes = random_weights(5).to_bytes();
    let header = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes.truncate(header);
    for _ in 0..1_000_000 {
        bytes.extend_from_slice(&[0, 0, 0xff, 0xff]);
    }
    assert!(Weights::from_bytes(&bytes).is_none());
}

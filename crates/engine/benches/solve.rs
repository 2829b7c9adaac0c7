//! Endgame solving speed: FFO #40 after its first four best moves (16 empties), from an empty table.

use criterion::{Criterion, criterion_group, criterion_main};
use othello_core::notation::obf;
use othello_engine::search::endgame::Solver;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let text = include_str!("../../../fixtures/ffo/fforum-40-59.obf");
    let mut board = obf::parse(text).expect("the FFO file parses")[0].position.board;
    for square in ["a2", "b1", "c1"] {
        board = board.play(square.parse().expect("a square"));
    }
    // White has no move after c1: black plays again.
    board = board.pass().play("b6".parse().expect("a square"));
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    group.bench_function(
        format!("FFO #40 after 4 moves ({} empties)", board.empty_count()),
        |b| {
            b.iter(|| {
                Solver::with_table_bits(20)
                    .solve(black_box(board))
                    .expect("no deadline")
                    .score
            })
        },
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

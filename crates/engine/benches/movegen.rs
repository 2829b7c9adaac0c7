//! Move generation speed: perft from the start (every leaf of the last ply counted by popcount) and
//! the two primitives, legal moves and flips, and the pattern evaluation, over positions from a
//! fixed random game.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use othello_core::board::{flips, legal_moves};
use othello_core::rng::SeededRng;
use othello_core::{Board, Position};
use othello_engine::search::perft::perft;
use std::hint::black_box;

fn sample_positions() -> Vec<Board> {
    let mut rng = SeededRng::new(7);
    let mut boards = Vec::new();
    let mut position = Position::START;
    while !position.is_game_over() {
        position = position.after_forced_pass();
        boards.push(position.board);
        position = position.play(rng.pick_square(position.moves()));
    }
    boards
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (depth, leaves) in [(8u32, 390_216u64), (9, 3_005_288)] {
        group.throughput(Throughput::Elements(leaves));
        group.bench_function(format!("start depth {depth}"), |b| {
            b.iter(|| perft(black_box(Board::START), depth))
        });
    }
    group.finish();

    let boards = sample_positions();
    let mut group = c.benchmark_group("primitives");
    group.throughput(Throughput::Elements(boards.len() as u64));
    group.bench_function("legal_moves", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|board| legal_moves(black_box(board.player.0), board.opponent.0))
                .fold(0, |a, m| a ^ m)
        })
    });
    group.bench_function("flips of every legal move", |b| {
        b.iter(|| {
            let mut acc = 0;
            for board in &boards {
                for square in board.moves() {
                    acc ^= flips(black_box(board.player.0), board.opponent.0, square);
                }
            }
            acc
        })
    });
    // One pattern evaluation (issue 11) with the built-in weights: every instance's configuration
    // read from the board and looked up.
    let weights = othello_engine::patterns::builtin();
    group.bench_function("pattern evaluation", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|board| weights.evaluate(black_box(*board)))
                .sum::<i32>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

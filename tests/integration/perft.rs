//! Perft from the start position against the published counts in fixtures/perft/start.txt.

use othello_core::Board;
use othello_engine::search::perft::perft;

fn table() -> Vec<(u32, u64)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/perft/start.txt"))
        .expect("fixtures/perft/start.txt is readable");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (depth, leaves) = line.split_once(' ').expect("a line is `depth leaves`");
            (depth.parse().expect("depth"), leaves.trim().parse().expect("leaves"))
        })
        .collect()
}

fn check(depths: std::ops::RangeInclusive<u32>) {
    let rows: Vec<_> = table()
        .into_iter()
        .filter(|(depth, _)| depths.contains(depth))
        .collect();
    assert_eq!(
        rows.len(),
        depths.clone().count(),
        "the fixture covers depths {depths:?}"
    );
    for (depth, leaves) in rows {
        assert_eq!(perft(Board::START, depth), leaves, "perft {depth}");
    }
}

#[test]
fn perft_from_the_start_to_depth_11() {
    check(1..=11);
}

#[test]
#[ignore = "seconds to a minute; run with --ignored or scripts/bench-perft.sh"]
fn perft_from_the_start_depths_12_and_13() {
    check(12..=13);
}

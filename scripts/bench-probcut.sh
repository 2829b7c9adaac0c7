#!/usr/bin/env bash
# What Multi-ProbCut buys: the depth the engine reaches with the same node budget (NODES, default
# 4,000,000) with and without it, at every fourth move from 12 to 36 of a fixed game, one thread.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
nodes=${NODES:-4000000}
game=e6f6d3c3c4e3f5c5f3g3b4a3d2f4e2d6c6b6g4f1e1d1c1b1g5f2c2h3h4h6h5g6d7c8e7f7f8
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
for plies in 12 16 20 24 28 32 36; do
    moves=${game:0:$((2 * plies))}
    for style in "" ":fullwidth"; do
        printf 'move %2d  %-30s ' "$((plies + 1))" "engine:nodes=$nodes$style"
        "$root/target/release/othello" best --strategy "engine:nodes=$nodes$style" --moves "$moves" |
            sed -E 's/.*: ([0-9]+ \([a-h][1-8]\)), (.*); ([0-9]+) nodes in ([0-9.]+ s).*/\1  \2  \3 nodes  \4/'
    done
done

#!/usr/bin/env bash
# Solves FFO endgame positions exactly, one thread unless THREADS says, and prints per-position time, nodes and speed
# with a total line; every score and best move is checked against the file's answers.
#
#   scripts/bench-ffo.sh            # FFO #40-#49
#   scripts/bench-ffo.sh 40 59      # any range within #40-#59
#   TIME_LIMIT=300 scripts/bench-ffo.sh   # give up a position after that many seconds (default 600)
#   THREADS=2 scripts/bench-ffo.sh 45 49  # on two threads (default one)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
first=${1:-40}
last=${2:-49}
if [ "$first" -lt 40 ] || [ "$last" -gt 59 ] || [ "$first" -gt "$last" ]; then
  echo "usage: $0 [FIRST LAST] with 40 <= FIRST <= LAST <= 59" >&2; exit 2
fi
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
selection=$(mktemp)
trap 'rm -f "$selection"' EXIT
sed -n "$((first - 39)),$((last - 39))p" "$root/fixtures/ffo/fforum-40-59.obf" > "$selection"
"$root/target/release/othello" solve --obf "$selection" --first-number "$first" --time-limit "${TIME_LIMIT:-600}" \
  --threads "${THREADS:-1}"

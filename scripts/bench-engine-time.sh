#!/usr/bin/env bash
# How well engine:MS keeps its time, on an idle or a loaded machine: engine:MS against
# alphabeta:4:weights over GAMES games (default 8), THREADS games at once (default 1), with LOAD
# busy loops (default 0) running meanwhile; prints the engine's moves, their mean time and its share
# of the budget (over all moves, and over those made before the exact result was known), how many
# went over the budget and the longest, for each budget given.
#
#   scripts/bench-engine-time.sh                 # budgets 10, 50 and 100 ms, idle
#   LOAD=2 scripts/bench-engine-time.sh 10 100   # with both cores of a 2-core machine kept busy
#   OPPONENT=engine:nodes=200000 scripts/bench-engine-time.sh 1000   # a stronger opponent
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
games=${GAMES:-8}
threads=${THREADS:-1}
load=${LOAD:-0}
budgets=${*:-10 50 100}
opponent=${OPPONENT:-alphabeta:4:weights}
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
log=$(mktemp)
pids=()
cleanup() {
  rm -f "$log"
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
for _ in $(seq "$load"); do
  (while :; do :; done) &
  pids+=($!)
done
grep -m1 'model name' /proc/cpuinfo 2>/dev/null || true
echo "$games games a budget, $threads at once, $load busy loops"
for ms in $budgets; do
  "$root/target/release/othello" match "engine:$ms" "$opponent" --games "$games" --openings 6 \
    --threads "$threads" --log "$log" > /dev/null
  python3 - "$log" "$ms" <<'PY'
import json, sys
budget = float(sys.argv[2])
moves = [m for line in open(sys.argv[1]) for g in [json.loads(line)]
         for m in g["moves"] if "ms" in m and g[m["side"]].startswith("engine")]
times = [m["ms"] for m in moves]
open_times = [m["ms"] for m in moves if not m.get("exact")]
over = [t for t in times if t > budget]
print("engine:%g: %d moves, mean %.1f ms (%.0f%% of the budget; %.0f%% over the %d moves made before "
      "the exact result was known), %d over the budget, longest %.1f ms (%.1f%% of it)"
      % (budget, len(times), sum(times) / len(times), 100 * sum(times) / len(times) / budget,
         100 * sum(open_times) / max(1, len(open_times)) / budget, len(open_times), len(over),
         max(times), 100 * max(times) / budget))
PY
done

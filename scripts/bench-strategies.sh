#!/usr/bin/env bash
# Speed of the game-playing strategies, one thread:
# - alphabeta:8 with weights and with mobility: nodes per second from the start position (best of
#   RUNS runs) and over whole self-play games (ms and nodes per move);
# - the notebook's test game, alphabeta:4:corners against alphabeta:4:discs (hyperfine if installed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
othello="$root/target/release/othello"
runs=${RUNS:-20}

for spec in alphabeta:8:weights alphabeta:8:mobility; do
  best=$(for _ in $(seq "$runs"); do "$othello" best --strategy "$spec" --json; done |
    python3 -c 'import json,sys; r=[json.loads(l) for l in sys.stdin]; b=max(r,key=lambda x:x["nodes_per_second"]); print("%d nodes, %.3f ms, %.1f million nodes/s" % (b["nodes"], b["seconds"]*1e3, b["nodes_per_second"]/1e6))')
  echo "$spec from the start position: $best (best of $runs)"
  "$othello" match "$spec" "$spec" --games 2 --threads 1 --json |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["a"]; print("  self-play, 2 games: %.2f ms and %.0f nodes per move: %.1f million nodes/s" % (r["seconds_per_move"]*1e3, r["nodes_per_move"], r["nodes_per_move"]/r["seconds_per_move"]/1e6))'
done

game=("$othello" match alphabeta:4:corners alphabeta:4:discs --games 1 --threads 1)
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 5 --runs 50 "${game[*]}"
else
  python3 - "${game[@]}" <<'PY'
import statistics, subprocess, sys, time
times = []
for _ in range(50):
    t = time.perf_counter(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); times.append(time.perf_counter() - t)
print("notebook test game: median %.2f ms over 50 runs" % (statistics.median(times) * 1e3))
PY
fi

#!/usr/bin/env bash
# Times whole invocations of the lab mode, the cost a lab test script pays once per case:
# `othello 19 34 41` and a 60-move full game. Uses hyperfine when installed, otherwise repeated runs
# timed here (median of RUNS, default 300).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
othello="$root/target/release/othello"
game=$(tr '\n' ' ' < "$root/fixtures/lab/full-game-with-pass.args")
runs=${RUNS:-300}

if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 20 --runs "$runs" "$othello 19 34 41" "$othello $game"
  exit
fi

for args in "19 34 41" "$game"; do
  python3 - "$othello" "$runs" $args <<'PY'
import statistics, subprocess, sys, time
cmd, runs = [sys.argv[1]] + sys.argv[3:], int(sys.argv[2])
times = []
for _ in range(runs):
    t = time.perf_counter(); subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True); times.append(time.perf_counter() - t)
print("%-40s median %.2f ms, min %.2f ms over %d runs (includes Python's spawn cost)" % (
    " ".join(sys.argv[3:])[:40], statistics.median(times) * 1e3, min(times) * 1e3, runs))
PY
done

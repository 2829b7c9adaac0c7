#!/usr/bin/env bash
# Measures what `othello grade` itself costs per case, beyond the program it runs: 200 cases against
# othello (--jobs 1 and --jobs 2) and against a trivial shell script. Uses hyperfine when installed,
# otherwise the median of RUNS timed runs (default 10).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
othello="$root/target/release/othello"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$othello" cases --count 200 --seed 3 "$work/cases" >/dev/null
printf '#!/bin/sh\nexit 0\n' > "$work/trivial.sh"
chmod +x "$work/trivial.sh"
runs=${RUNS:-10}

commands=(
  "$othello grade $work/cases --judge strict --jobs 1 -- $othello"
  "$othello grade $work/cases --judge strict --jobs 2 -- $othello"
  "$othello grade $work/cases --judge strict,tolerant,course --jobs 2 -- $othello"
  "$othello grade $work/cases --jobs 1 -- $work/trivial.sh"
  "$othello grade $work/cases --jobs 2 -- $work/trivial.sh"
)
if command -v hyperfine >/dev/null; then
  # Exit status 1 (the trivial script fails every case) is expected.
  hyperfine -N -i --warmup 2 --runs "$runs" "${commands[@]}"
  exit
fi
for command in "${commands[@]}"; do
  python3 - "$runs" $command <<'PY'
import statistics, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
times = []
for _ in range(runs):
    t = time.perf_counter(); subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); times.append(time.perf_counter() - t)
print("median %.3f s, min %.3f s over %d runs: %s" % (statistics.median(times), min(times), runs, " ".join(cmd[1:]).replace(sys.argv[2], "othello")))
PY
done

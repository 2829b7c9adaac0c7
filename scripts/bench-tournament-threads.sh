#!/usr/bin/env bash
# A round robin of 30 programs (ten of each form: the course's example players of fixtures/players/)
# by `othello tournament` under the tournament server's rules, with the programs' clocks in CPU time,
# played 2 at a time (one a core on a 2-core machine) and 4 at a time (as the course's server runs
# four games at once, unpinned), alternated ROUNDS times (default 1): each run's games an hour and the
# programs' CPU time a game, from its log (each move's time by its player's clock). Long: about 8
# minutes a run on a 2-core machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-1}
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
othello="$root/target/release/othello"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
players=()
for k in $(seq 1 30); do
  case $((k % 3)) in
    0) form=quickmove ;;
    1) form=argv ;;
    2) form=strategy ;;
  esac
  cp "$root/fixtures/players/${form}_player.py" "$work/p$k.py"
  if [ "$form" = argv ]; then players+=("argv:python3 $work/p$k.py"); else players+=("$form:$work/p$k.py"); fi
done
grep -m1 'model name' /proc/cpuinfo | sed 's/.*: /CPU: /'
echo "cores: $(nproc)"
for round in $(seq 1 "$rounds"); do
for threads in 2 4; do
  start=$(date +%s.%N)
  "$othello" tournament --rules server --cpu-time --rounds 1 --threads "$threads" --log "$work/log-$threads.jsonl" \
      --json "${players[@]}" > "$work/standings-$threads.json" 2>/dev/null
  end=$(date +%s.%N)
  python3 - "$work/log-$threads.jsonl" "$threads" "$start" "$end" <<'PY'
import json, sys
log, threads, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
cpu, longest, games = [], 0.0, 0
for line in open(log):
    game = json.loads(line)
    games += 1
    ms = [move.get("ms") or 0.0 for move in game["moves"]]
    cpu.append(sum(ms) / 1e3)
    longest = max([longest] + ms)
cpu.sort()
wall = end - start
print("--threads %s: %d games in %.1f s, %.0f games an hour; the programs' CPU a game mean %.3f s, median %.3f s; the longest move %.3f s"
      % (threads, games, wall, games * 3600 / wall, sum(cpu) / len(cpu), cpu[len(cpu) // 2], longest / 1e3))
PY
done
done

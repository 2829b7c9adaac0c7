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
# Each program whole in one file, as the server's uploads are (and its load test's): the quickmove
# player; the argv program that prints its move; the strategy with the module it imports pasted in.
python3 - "$root/fixtures/players" "$work" <<'PY'
import pathlib, sys
fixtures, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
quickmove = (fixtures / "quickmove_player.py").read_text()
strategy = "\n".join(line for line in (fixtures / "strategy_player.py").read_text().split("\n")
                     if not line.startswith("from quickmove_player"))
programs = {
    "quickmove": quickmove,
    "argv": quickmove + "\nimport sys\nprint(quickMove(sys.argv[1], sys.argv[2]))\n",
    "strategy": quickmove + "\n" + strategy,
}
for k in range(1, 31):
    form = ["quickmove", "argv", "strategy"][k % 3]
    (work / f"p{k:02}-{form}.py").write_text(programs[form])
PY
players=()
for file in "$work"/p*.py; do
  form=${file##*-}; form=${form%.py}
  if [ "$form" = argv ]; then players+=("argv:python3 $file"); else players+=("$form:$file"); fi
done
grep -m1 'model name' /proc/cpuinfo | sed 's/.*: /CPU: /'
echo "cores: $(nproc)"
for round in $(seq 1 "$rounds"); do
for threads in 2 4; do
  start=$(date +%s.%N)
  "$othello" tournament --rules server --cpu-time --rounds 1 --threads "$threads" --log "$work/log-$threads.jsonl" \
      --json "${players[@]}" > "$work/standings-$threads.json" 2> "$work/stderr-$threads" \
      || { cat "$work/stderr-$threads" >&2; exit 1; }
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

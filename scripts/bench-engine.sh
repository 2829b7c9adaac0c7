#!/usr/bin/env bash
# The engine's strength and time keeping: engine:MS (default 100) against alphabeta:6:mobility over
# GAMES games (default 8) from random 6-move openings, one thread, then the longest time any engine
# move took against its budget (the engine must stay within 110% of it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ms=${MS:-100}
games=${GAMES:-8}
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$root/target/release/othello" match "engine:$ms" alphabeta:6:mobility --games "$games" --openings 6 --threads 1 --log "$log"
python3 - "$log" "$ms" <<'PY'
import json, sys
budget = float(sys.argv[2])
times = [m["ms"] for line in open(sys.argv[1]) for g in [json.loads(line)]
         for m in g["moves"] if "ms" in m and g["black" if m["side"] == "black" else "white"].startswith("engine")]
worst = max(times)
print("engine moves: %d, mean %.1f ms, longest %.1f ms = %.0f%% of the %g ms budget (limit 110%%)"
      % (len(times), sum(times) / len(times), worst, 100 * worst / budget, budget))
sys.exit(0 if worst <= 1.1 * budget else 1)
PY

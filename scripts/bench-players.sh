#!/usr/bin/env bash
# What the moderator costs per move beyond the player's own work: 100 Lab 4 games against random of
# (a) an argv player, a shell script that asks othello for a random legal move, whose own cost per
#     move is measured alone first (the othello binary is --visible to it in the sandbox), and (b) the
#     example quickmove player of fixtures/players/, which answers at once (a corner, else the most
#     flips); both in the sandbox, then with --no-sandbox.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
othello="$root/target/release/othello"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/player.sh" <<SH
$othello best --strategy random "\$1" "\$2" --json | sed 's/.*"move":\([0-9]*\).*/\1/'
SH
board=...........................ox......xo...........................
python3 - "$work/player.sh" "$board" <<'PY'
import subprocess, sys, time
start = time.perf_counter()
for _ in range(200):
    subprocess.run(["sh", sys.argv[1], sys.argv[2], "x"], stdout=subprocess.DEVNULL, check=True)
print("the argv player alone, 200 runs: %.2f ms a move" % ((time.perf_counter() - start) * 1e3 / 200))
PY
for mode in --visible=$othello --no-sandbox; do
for player in "argv:sh $work/player.sh" "quickmove:$root/fixtures/players/quickmove_player.py"; do
  "$othello" lab4 "$player" --games 100 --json "$mode" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("%s (%s): 100 games in %.2f s, %d moves of the player, %.2f ms a move by its clock" % (
    sys.argv[1].split(":")[0], sys.argv[2], r["seconds"], r["player_moves"], 1e3 * r["player_seconds"] / r["player_moves"]))
' "$player" "$mode"
done
done

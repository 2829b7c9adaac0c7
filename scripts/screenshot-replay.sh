#!/usr/bin/env bash
# Renders the page `othello replay LOG --html` writes in headless Chromium and saves a screenshot, to
# look at after changing the page (not run in CI: it needs a browser).
#
#   scripts/screenshot-replay.sh [OUT.png]     # default: target/replay.png
#
# Needs chromium (Debian: apt install chromium). The page shows game 2 at ply 40 (a URL fragment).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/target/replay.png}
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
othello="$root/target/release/othello"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$othello" match engine:nodes=20000 alphabeta:3 --games 3 --log "$work/games.jsonl" > /dev/null
"$othello" replay "$work/games.jsonl" --html "$work/replay.html"
chromium --headless --no-sandbox --disable-gpu --window-size=1000,800 \
  --screenshot="$out" "file://$work/replay.html#game=2&ply=40" 2> /dev/null
echo "screenshot: $out"

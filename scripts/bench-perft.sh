#!/usr/bin/env bash
# Perft from the start position at depths 10 to 13 (or the depths given), one thread, with the
# counts checked against fixtures/perft/start.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
depths=${*:-10 11 12 13}
status=0
for depth in $depths; do
  line=$("$root/target/release/othello" perft "$depth")
  echo "$line"
  expected=$(awk -v d="$depth" '$1 == d { print $2 }' "$root/fixtures/perft/start.txt")
  got=$(echo "$line" | awk '{ print $3 }')
  if [ -n "$expected" ] && [ "$got" != "$expected" ]; then
    echo "MISMATCH at depth $depth: expected $expected" >&2; status=1
  fi
done
exit $status

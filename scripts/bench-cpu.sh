#!/usr/bin/env bash
# The portable build (which picks its instruction set at run time) against a build for this very
# CPU (`-C target-cpu=native`), and the portable build at each level this CPU has
# (OTHELLO_CPU=portable|avx2|avx512): perft 11 and FFO #40-#44 exact, one thread, runs alternated.
#
#   scripts/bench-cpu.sh          # 3 rounds
#   ROUNDS=5 scripts/bench-cpu.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-3}
native_target="$root/target/native"
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
RUSTFLAGS="-C target-cpu=native" cargo build --quiet --release --manifest-path "$root/Cargo.toml" \
  --target-dir "$native_target"
portable="$root/target/release/othello"
native="$native_target/release/othello"
selection=$(mktemp)
trap 'rm -f "$selection"' EXIT
sed -n 1,5p "$root/fixtures/ffo/fforum-40-59.obf" > "$selection"

grep -m1 'model name' /proc/cpuinfo 2>/dev/null || true
"$portable" --version | sed -n 2p
levels="portable"
case $("$portable" --version | sed -n 2p) in
  *"supports up to avx2"*) levels="portable avx2" ;;
  *"supports up to avx512"*) levels="portable avx2 avx512" ;;
esac

# One measurement: the seconds perft 11 and the FFO selection took.
measure() {
  local perft ffo
  perft=$("$@" perft 11 | sed -E 's/.* in ([0-9.]+) s.*/\1/')
  ffo=$("$@" solve --obf "$selection" --first-number 40 --time-limit 600 | tail -1 | sed -E 's/.* in ([0-9.]+) s.*/\1/')
  echo "$perft $ffo"
}

printf '%-28s %10s %14s\n' "build and level" "perft 11" "FFO #40-#44"
for round in $(seq "$rounds"); do
  read -r p f < <(measure "$native")
  printf '%-28s %9ss %13ss\n' "native build" "$p" "$f"
  read -r p f < <(measure "$portable")
  printf '%-28s %9ss %13ss\n' "portable build, detected" "$p" "$f"
  for level in $levels; do
    read -r p f < <(measure env OTHELLO_CPU="$level" "$portable")
    printf '%-28s %9ss %13ss\n' "portable build, $level" "$p" "$f"
  done
done

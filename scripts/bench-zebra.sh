#!/usr/bin/env bash
# FFO positions solved exactly by othello and by Zebra, one thread each, alternating position by
# position in one run: a Markdown table of each program's CPU time (user + system, of the whole
# process) and nodes per position, with totals and the ratio; othello's score is checked against the
# file's answer (the `score` column says `ok` or the wrong score, and the script then exits 1). Zebra is a measuring instrument
# built outside the project (../shared/anchors/README.md): ZEBRA_DIR names its folder (with
# scrzebra and coeffs2.bin).
#
#   ZEBRA_DIR=/work/anchors/zebra scripts/bench-zebra.sh 40 49
#   ZEBRA_DIR=... scripts/bench-zebra.sh 40-54 56-59         # ranges and single positions, in one run
#   THREADS=2 ZEBRA_DIR=... scripts/bench-zebra.sh 45 49   # ours on two threads (Zebra has one)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: $0 [FIRST LAST | N|A-B ...] with positions within 40-59"
# Two plain numbers are a range (as bench-ffo.sh takes them); otherwise each word is N or A-B.
if [ $# -eq 0 ]; then
  set -- 40-49
elif [ $# -eq 2 ] && [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]]; then
  set -- "$1-$2"
fi
positions=()
for word in "$@"; do
  if [[ $word =~ ^([0-9]+)-([0-9]+)$ ]]; then
    a=${BASH_REMATCH[1]}; b=${BASH_REMATCH[2]}
  elif [[ $word =~ ^[0-9]+$ ]]; then
    a=$word; b=$word
  else
    echo "$word: $usage" >&2; exit 2
  fi
  if [ "$a" -lt 40 ] || [ "$b" -gt 59 ] || [ "$a" -gt "$b" ]; then
    echo "$word: $usage" >&2; exit 2
  fi
  positions+=($(seq "$a" "$b"))
done
zebra=${ZEBRA_DIR:?set ZEBRA_DIR to the folder of a Zebra build (see ../shared/anchors/README.md)}
if [ ! -x "$zebra/scrzebra" ] || [ ! -f "$zebra/coeffs2.bin" ]; then
  echo "$zebra has no scrzebra or coeffs2.bin" >&2; exit 2
fi
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/^/<!-- /; s/$/ -->/' || true
echo "| # | empties | score | othello s | othello nodes | Zebra s | Zebra nodes | ratio |"
echo "|---|---|---|---|---|---|---|---|"
ours_total=0; zebra_total=0; wrong=0
for n in "${positions[@]}"; do
  line=$(sed -n "$((n - 39))p" "$root/fixtures/ffo/fforum-40-59.obf")
  board=$(echo "$line" | awk '{print $1}')
  side=$(echo "$line" | awk '{print $2}' | tr -d ';')
  empties=$(echo "$board" | tr -cd '-' | wc -c)
  /usr/bin/time -f '%U %S' -o "$work/ours.time" "$root/target/release/othello" solve --threads "${THREADS:-1}" --json -- \
    "$board $side;" > "$work/ours.json"
  ours_nodes=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"])' "$work/ours.json")
  ours_score=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["score"])' "$work/ours.json")
  # The file's first answer is the best move's score, written with its sign (+38, -2, +0).
  answer=$(echo "$line" | awk -F';' '{print $2}' | sed 's/.*://; s/+//')
  if [ "$ours_score" -eq "$answer" ]; then score=ok; else score="$ours_score, not $answer"; wrong=1; fi
  echo "$board $side" > "$work/zebra.in"
  (cd "$zebra" && /usr/bin/time -f '%U %S' -o "$work/zebra.time" ./scrzebra -b 0 -h 22 -script "$work/zebra.in" \
    "$work/zebra.out" > "$work/zebra.log" 2>&1)
  zebra_nodes=$(grep -m1 'Total nodes' "$work/zebra.log" | awk '{print $3}')
  ours_s=$(awk '{printf "%.2f", $1 + $2}' "$work/ours.time")
  zebra_s=$(awk '{printf "%.2f", $1 + $2}' "$work/zebra.time")
  ours_total=$(echo "$ours_total $ours_s" | awk '{printf "%.2f", $1 + $2}')
  zebra_total=$(echo "$zebra_total $zebra_s" | awk '{printf "%.2f", $1 + $2}')
  ratio=$(echo "$ours_s $zebra_s" | awk '{printf "%.2f", $1 / ($2 > 0 ? $2 : 0.01)}')
  echo "| $n | $empties | $score | $ours_s | $ours_nodes | $zebra_s | $zebra_nodes | $ratio |"
done
ratio=$(echo "$ours_total $zebra_total" | awk '{printf "%.2f", $1 / $2}')
echo "| all | | | $ours_total | | $zebra_total | | $ratio |"
exit "$wrong"

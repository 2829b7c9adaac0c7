#!/usr/bin/env bash
# Rewrites golden lab transcripts from the current binary, after you have reviewed the change.
#
#   tests/support/update-golden.sh fixtures/lab/NAME [more cases...]
#
# For each case (NAME or NAME.args), shows the diff between the stored and the new output, then
# writes NAME.out (and NAME.status when the exit status is not 0) through a temporary file. NAME.err,
# a hand-written pattern, is never rewritten: a warning says when stderr no longer matches it.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 fixtures/lab/NAME..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
cargo build --quiet --release --manifest-path "$root/Cargo.toml"
othello="$root/target/release/othello"

for case in "$@"; do
  name=${case%.args}; name=${name%.out}
  [ -f "$name.args" ] || { echo "$0: $name.args does not exist" >&2; exit 2; }
  mapfile -t args < "$name.args"
  new_out=$(mktemp "$name.out.XXXXXX"); new_err=$(mktemp)
  status=0
  "$othello" "${args[@]}" > "$new_out" 2> "$new_err" || status=$?
  if [ -f "$name.out" ] && cmp -s "$name.out" "$new_out"; then
    echo "$name: unchanged"
  else
    diff -u --label "$name.out (stored)" --label "$name.out (new)" "$name.out" "$new_out" || true
  fi
  mv "$new_out" "$name.out"
  if [ "$status" -ne 0 ]; then echo "$status" > "$name.status"; else rm -f "$name.status"; fi
  if [ -f "$name.err" ] && ! grep -Eq -- "$(cat "$name.err")" "$new_err"; then
    echo "warning: $name.err no longer matches stderr: $(cat "$new_err")" >&2
  fi
  rm -f "$new_err"
done

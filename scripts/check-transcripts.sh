#!/usr/bin/env bash
# Checks every lab case in a folder against a command and prints a readable diff for each failure.
#
#   scripts/check-transcripts.sh DIR [-- COMMAND ARGS...]
#
# A case is NAME.args (one argument per line; an empty line is an empty argument), NAME.out (the
# expected stdout, byte for byte), optionally NAME.status (the expected exit status, 0 if absent) and
# NAME.err (an extended regular expression that stderr must match). Without a command, the project's
# release binary is built and used. Exit status: 0 all cases pass, 1 some fail, 2 bad usage.
set -uo pipefail

usage() { echo "usage: $0 DIR [-- COMMAND ARGS...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
dir=$1; shift
[ -d "$dir" ] || { echo "$0: $dir is not a folder" >&2; exit 2; }
if [ $# -gt 0 ]; then
  [ "$1" = "--" ] || usage
  shift
  [ $# -gt 0 ] || usage
  command=("$@")
else
  root=$(cd "$(dirname "$0")/.." && pwd)
  cargo build --quiet --release --manifest-path "$root/Cargo.toml" || exit 2
  command=("$root/target/release/othello")
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0; failed=0; failed_names=()
shopt -s nullglob
cases=("$dir"/*.args)
[ ${#cases[@]} -gt 0 ] || { echo "$0: no *.args files in $dir" >&2; exit 2; }

for args_file in "${cases[@]}"; do
  name=${args_file%.args}
  label=$(basename "$name")
  mapfile -t args < "$args_file"
  "${command[@]}" "${args[@]}" > "$work/stdout" 2> "$work/stderr" < /dev/null
  status=$?
  expected_status=0
  [ -f "$name.status" ] && expected_status=$(tr -d '[:space:]' < "$name.status")
  problems=()
  if ! cmp -s "$name.out" "$work/stdout"; then
    problems+=("stdout differs (- expected, + actual):")
    problems+=("$(diff -u --label expected --label actual "$name.out" "$work/stdout" | tail -n +3 | head -n 60 | sed 's/^/  /; 1!s/^/  /')")
  fi
  if [ "$status" != "$expected_status" ]; then
    problems+=("exit status $status, expected $expected_status")
  fi
  if [ -f "$name.err" ] && ! grep -Eq -- "$(cat "$name.err")" "$work/stderr"; then
    problems+=("stderr does not match /$(cat "$name.err")/: $(head -c 300 "$work/stderr")")
  fi
  if [ ${#problems[@]} -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); failed_names+=("$label")
    printf 'FAIL %s (args: %s)\n' "$label" "${args[*]}"
    printf '  %s\n' "${problems[@]}"
    echo
  fi
done

echo "$passed passed, $failed failed (${#cases[@]} cases in $dir)"
[ "$failed" -eq 0 ] || { printf 'failed: %s\n' "${failed_names[*]}"; exit 1; }

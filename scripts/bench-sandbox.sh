#!/usr/bin/env bash
# The sandbox's own cost per run: `othello grade` of 200 cases, one at a time, with a trivial shell
# script and a trivial Python program, each in the sandbox (with its control group, and with
# --per-process-limits) and with --no-sandbox; beside it, 200 plain starts of the same programs from
# a loop. Median of RUNS runs (default 5). OTHELLO=PATH times that binary instead of a fresh build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${OTHELLO:-}" ]; then
  cargo build --quiet --release --manifest-path "$root/Cargo.toml"
fi
othello=${OTHELLO:-$root/target/release/othello}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/cases"
for i in $(seq -w 1 200); do
  : > "$work/cases/c$i.args"
  echo ok > "$work/cases/c$i.out"
done
echo 'echo ok' > "$work/trivial.sh"
echo 'print("ok")' > "$work/trivial.py"
python=$(python3 -c 'import sys; print(sys.executable)')
runs=${RUNS:-5}
python3 - "$runs" "$othello" "$work" "$python" <<'PY'
import statistics, subprocess, sys, time
runs, othello, work, python = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]

def median(command, times=runs):
    spent = []
    for _ in range(times):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        spent.append(time.perf_counter() - start)
    return statistics.median(spent)

def loop(program):
    start = time.perf_counter()
    for _ in range(200):
        subprocess.run(program, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start

for name, program in [("sh trivial.sh", ["sh", work + "/trivial.sh"]), ("python3 trivial.py", [python, work + "/trivial.py"])]:
    alone = statistics.median(loop(program) for _ in range(runs))
    grade = [othello, "grade", work + "/cases", "--judge", "strict", "--jobs", "1"]
    sandboxed = median(grade + ["--", *program])
    per_process = median(grade + ["--per-process-limits", "--", *program])
    plain = median(grade + ["--no-sandbox", "--", *program])
    print("%-20s 200 starts from a loop %.3f s (%.2f ms each); grade --no-sandbox %.3f s (%.2f ms a case); "
          "grade in the sandbox %.3f s (%.2f ms a case), with --per-process-limits %.3f s (%.2f ms a case): "
          "the sandbox adds %.2f ms a run, its control group %.2f ms"
          % (name, alone, alone * 5, plain, plain * 5, sandboxed, sandboxed * 5, per_process, per_process * 5,
             (sandboxed - plain) * 5, (sandboxed - per_process) * 5))
PY

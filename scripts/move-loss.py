#!/usr/bin/env python3
"""How many discs a strategy's moves give away against perfect play, on positions of real games.

Every position at the given empty-square counts of every game (a line ending in a transcript, as
`scripts/engine-match.py --record` writes them, or a transcript alone) is given to `othello best
--strategy SPEC`, and the move it chooses is scored by exact solves (`othello solve --threads 1`)
of the position and of the position after the move: the loss is the difference, 0 for a perfect
move. Solves are kept in a cache file, so that other strategies on the same positions cost only
their own moves. A timed strategy's choices depend on the machine's load: compare strategies in
runs side by side, one a core.

    # engine:1000 of this build on positions of 23-26 empties of two recorded NTest matches
    scripts/move-loss.py --empties 23-26 ntest-s2.rec ntest-s3.rec
    # another build's engine on the same positions, the solves cached
    scripts/move-loss.py --bin /tmp/othello-old --cache loss.cache ntest-s2.rec ntest-s3.rec
    # only the positions where the record's player A (ours, in engine-match.py's records) moves
    scripts/move-loss.py --only A --cache loss.cache ntest-s2.rec ntest-s3.rec
"""
import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BIN = os.path.join(HERE, "..", "target", "release", "othello")
TRANSCRIPT = re.compile(r"^([a-h][1-8])+$")


def positions(files, low, high):
    """(name, transcript up to the position, empties, A's colour or None) for each game's positions
    in the range."""
    for path in files:
        with open(path) as lines:
            for number, line in enumerate(lines, 1):
                fields = line.split()
                if not fields or not TRANSCRIPT.match(fields[-1]):
                    continue
                moves = fields[-1]
                a_side = next((f[2:] for f in fields if f in ("A=black", "A=white")), None)
                for empties in range(high, low - 1, -1):
                    played = 60 - empties
                    if played * 2 <= len(moves):
                        yield f"{os.path.basename(path)}:{number}", moves[: 2 * played], empties, a_side


class Exact:
    """Exact scores for the side to move after a transcript, solved once and cached on disk."""

    def __init__(self, solver, cache):
        self.solver, self.cache, self.known = solver, cache, {}
        if cache and os.path.exists(cache):
            with open(cache) as lines:
                for line in lines:
                    moves, score, side = line.split()
                    self.known[moves] = (int(score), side)

    def score(self, moves):
        if moves not in self.known:
            run = subprocess.run(
                [self.solver, "solve", "--moves", moves, "--threads", "1", "-q", "--color", "never"],
                capture_output=True, text=True, stdin=subprocess.DEVNULL,
            )
            found = re.search(r"score ([-+]?\d+) for ([xo])", run.stdout)
            if not found:
                sys.exit(f"move-loss: no score from the solver after {moves}: {run.stderr.strip()}")
            self.known[moves] = (int(found.group(1)), found.group(2))
            if self.cache:
                with open(self.cache, "a") as out:
                    out.write(f"{moves} {found.group(1)} {found.group(2)}\n")
        return self.known[moves]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="recorded games: lines ending in a transcript")
    parser.add_argument("--bin", default=DEFAULT_BIN, help="the othello whose strategy is asked")
    parser.add_argument("--solver", help="the othello that solves (default: --bin)")
    parser.add_argument("--strategy", default="engine:1000", help="the strategy asked (default engine:1000)")
    parser.add_argument("--empties", default="23-26", help="empty squares of the positions, A-B (default 23-26)")
    parser.add_argument("--cache", help="a file keeping exact scores between runs")
    parser.add_argument("--only", choices=["A", "B"],
                        help="only the positions where this player of the record (its A=COLOUR field) moves")
    args = parser.parse_args()
    try:
        low, high = sorted(int(part) for part in args.empties.split("-"))
    except ValueError:
        sys.exit(f"move-loss: --empties {args.empties!r}: expected A-B, such as 23-26")
    exact = Exact(args.solver or args.bin, args.cache)
    totals = defaultdict(lambda: [0, 0, 0])
    for name, moves, empties, a_side in positions(args.files, low, high):
        asked = subprocess.run(
            [args.bin, "best", "--strategy", args.strategy, "--moves", moves, "-q", "--color", "never", "--json"],
            capture_output=True, text=True, stdin=subprocess.DEVNULL,
        )
        if asked.returncode == 1:
            continue  # the game ended before this many empties: no position
        if asked.returncode != 0:
            sys.exit(f"move-loss: {args.bin} best after {moves}: {asked.stderr.strip()}")
        choice = json.loads(asked.stdout)
        if choice.get("square") is None:
            continue  # the side to move must pass: nothing to choose
        if args.only and a_side is None:
            sys.exit(f"move-loss: --only {args.only}, but {name} names no player A (A=black or A=white)")
        if args.only and (choice["side"] == a_side) != (args.only == "A"):
            continue
        best, side = exact.score(moves)
        after, next_side = exact.score(moves + choice["square"])
        loss = best - (after if next_side == side else -after)
        total = totals[empties]
        total[0], total[1], total[2] = total[0] + loss, total[1] + 1, total[2] + (loss > 0)
        print(f"{name} {empties} empties: {choice['square']} ({choice['value_kind']}) loses {loss}", flush=True)
    count = sum(total[1] for total in totals.values())
    lost = sum(total[0] for total in totals.values())
    if count == 0:
        sys.exit("move-loss: no position in the range")
    parts = ", ".join(f"{e}: {t[0]} in {t[1]} ({t[2]} not best)" for e, t in sorted(totals.items()))
    print(f"{args.strategy}: {lost} discs lost in {count} positions ({lost / count:.3f} a move); by empties {parts}")


if __name__ == "__main__":
    main()

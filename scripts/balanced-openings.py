#!/usr/bin/env python3
"""Openings judged near even, for matches that show the players rather than the draw of the
opening: scripts/engine-match.py's random openings (the same draw: pair k of seed S), each valued
by a search of a fixed number of nodes (`othello best --strategy engine:nodes=N`, the same value on
any machine), kept when that value lies within --within discs of even and no earlier kept opening
reaches the same position up to symmetry.

Each kept opening is appended to OUT as it is found, `TRANSCRIPT VALUE DEPTH K` (the value for
black in discs, the depth the search reached, the pair it was drawn as), under a first line that
names the settings; scripts/engine-match.py --opening-file reads the transcripts. A run stopped at
any point keeps what it found, and the same command again goes on after the last pair it kept
(with other settings it is refused).

    scripts/balanced-openings.py openings.txt --count 128 --plies 8 --within 2 \\
        --nodes 5000000 --seed 1 --othello target/release/othello
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys

_spec = importlib.util.spec_from_file_location(
    "engine_match", os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine-match.py"))
rules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rules)

ESTIMATE = re.compile(r"best move for ([xo]) by \S+: \d+ \(\w+\), ([+-]\d+) discs \(estimate, depth (\d+)\)")


def canonical(squares):
    """The least of the 8 symmetric forms of the board the moves lead to, with its side to move."""
    board, side = list(rules.START), "x"
    for square in squares:
        if not rules.legal_moves(board, side):
            side = "o" if side == "x" else "x"
        board, side = rules.play(board, square, side), "o" if side == "x" else "x"
    if not rules.legal_moves(board, side):
        side = "o" if side == "x" else "x"
    forms = []
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                cells = []
                for r in range(8):
                    for c in range(8):
                        rr, cc = (c, r) if transpose else (r, c)
                        rr, cc = (7 - rr if flip_rows else rr), (7 - cc if flip_cols else cc)
                        cells.append(board[rr * 8 + cc])
                forms.append("".join(cells))
    return min(forms) + side


def judge(othello, nodes, transcript):
    """The search's value of the opening for black, and its depth; None where it is not an
    estimate (a proven win or loss is no even opening)."""
    out = subprocess.run([othello, "best", "--strategy", f"engine:nodes={nodes}", "--moves", transcript, "-q"],
                         capture_output=True, text=True, check=True).stdout
    found = ESTIMATE.search(out)
    if not found:
        return None
    value = int(found.group(2))
    return (value if found.group(1) == "x" else -value), int(found.group(3))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the file of openings: created, or continued if it has the same settings")
    parser.add_argument("--count", type=int, default=64, help="openings to keep in all")
    parser.add_argument("--plies", type=int, default=8, help="random plies of each opening")
    parser.add_argument("--within", type=int, default=2, help="keep openings valued within this many discs of even")
    parser.add_argument("--nodes", type=int, default=5000000, help="nodes of each opening's search")
    parser.add_argument("--seed", type=int, default=1, help="the seed of engine-match.py's random openings")
    parser.add_argument("--othello", default="othello", help="the othello binary that judges")
    args = parser.parse_args()
    for name in ("count", "plies", "within", "nodes"):
        if getattr(args, name) < (0 if name == "within" else 1):
            print(f"balanced-openings: --{name} {getattr(args, name)}: expected a positive number", file=sys.stderr)
            return 2
    try:
        subprocess.run([args.othello, "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"balanced-openings: --othello {args.othello}: cannot run it ({error})", file=sys.stderr)
        return 2
    header = (f"# balanced openings: plies={args.plies} within={args.within} judge=engine:nodes={args.nodes} "
              f"seed={args.seed}\n")
    kept, seen, pair = 0, set(), 0
    if os.path.exists(args.out):
        with open(args.out) as existing:
            lines = existing.read().splitlines(keepends=True)
        if not lines or lines[0] != header:
            print(f"balanced-openings: {args.out} was made with other settings, or is no opening file "
                  f"(its first line is not {header.strip()!r})", file=sys.stderr)
            return 2
        for line in lines[1:]:
            fields = line.split()
            if len(fields) != 4 or not line.endswith("\n"):
                print(f"balanced-openings: {args.out}: {line.strip()!r} is not a line this script writes "
                      f"(TRANSCRIPT VALUE DEPTH K)", file=sys.stderr)
                return 2
            seen.add(canonical(rules.random_opening(args.seed, int(fields[3]), args.plies)))
            kept, pair = kept + 1, int(fields[3]) + 1
        out = open(args.out, "a")
    else:
        out = open(args.out, "w")
        out.write(header)
        out.flush()
    while kept < args.count:
        squares = rules.random_opening(args.seed, pair, args.plies)
        key = canonical(squares)
        transcript = "".join(rules.name(s) for s in squares)
        judged = judge(args.othello, args.nodes, transcript) if key not in seen else None
        if judged is not None and abs(judged[0]) <= args.within:
            seen.add(key)
            out.write(f"{transcript} {judged[0]:+d} {judged[1]} {pair}\n")
            out.flush()
            kept += 1
        pair += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Games of Zebra against itself from random openings, as transcripts for `othello selfplay --replay`:
training data from another, stronger player than the engine's own self-play.

Game k's opening (A to B random legal plies, A..B drawn per game) depends only on the seed and k;
Zebra, with no book and no randomness, plays the rest at a fixed depth, so the same Zebra build gives
the same games on any machine. Each finished game is appended to OUT as one line, `k transcript`,
as soon as it ends; a run stopped at any point keeps them, and the same command again goes on after
the last one. With --values each line ends with Zebra's value of every position it moved from
(side to move, discs, comma-separated, `-` for the opening's plies), which `othello selfplay
--replay` takes as those positions' values. Zebra is built as ../shared/anchors/README.md says (its
directory holds coeffs2.bin).

    scripts/zebra-games.py zebra-games.txt --games 20000 --zebra /work/anchors/zebra \\
        --depth 8 --exact 16 --opening 8..16 --seed 1 --shard 0/2 --values
"""
import argparse
import importlib.util
import os
import random
import subprocess
import sys
import tempfile

_spec = importlib.util.spec_from_file_location(
    "engine_match", os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine-match.py"))
rules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rules)


def opening(seed, k, plies):
    """Game k's random opening: a list of squares with no pass, or None if the draw met one."""
    rng = random.Random(f"{seed}:{k}")
    count = rng.randint(*plies)
    board, side, moves = list(rules.START), "x", []
    for _ in range(count):
        legal = rules.legal_moves(board, side)
        if not legal:
            return None
        square = rng.choice(legal)
        board, side = rules.play(board, square, side), "o" if side == "x" else "x"
        moves.append(square)
    return moves if rules.legal_moves(board, side) else None


def zebra_values(log_text, transcript, first):
    """Zebra's value of each position it moved from, for the side to move, read from its
    zebra.log: one block per move it searched, the last `-->` line of a block naming the depth, the
    value and the line it chose. Plies before `first` (the opening it was given) get None."""
    values = [None] * (len(transcript) // 2)
    ply = first
    for block in log_text.split("a b c d e f g h")[1:]:
        searched = [line.split() for line in block.splitlines() if line.startswith("-->")]
        if not searched:
            continue
        fields = searched[-1]
        if ply >= len(values) or transcript[2 * ply:2 * ply + 2] != fields[4]:
            raise RuntimeError(f"zebra.log does not follow the game at ply {ply}")
        values[ply] = fields[2]
        ply += 1
    if ply != len(values):
        raise RuntimeError(f"zebra.log names {ply - first} moves, the game has {len(values) - first}")
    return values


def zebra_game(zebra, work, moves, depth, exact, with_values=False):
    """Zebra's game from `moves`, both sides at `depth` plies, exact from `exact` empties (with its
    value of each position it moved from, if asked)."""
    log = os.path.join(work, "game.log")
    for old in (log, os.path.join(work, "zebra.log")):
        if os.path.exists(old):
            os.remove(old)
    levels = f"{depth} {exact} {exact}"
    command = [os.path.join(zebra, "zebra"), "-l", *levels.split(), *levels.split(), "-b", "0", "-r", "0",
               "-w", "0", "-e", "0", "-p", "0", "-log", log,
               "-seq", "".join(rules.name(square) for square in moves)]
    subprocess.run(command, cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, timeout=600)
    with open(log) as text:
        lines = [line.strip() for line in text if line.strip() and not line.startswith("#")]
    if not lines:
        raise RuntimeError("Zebra wrote no game")
    if not with_values:
        return lines[-1]
    with open(os.path.join(work, "zebra.log")) as text:
        values = zebra_values(text.read(), lines[-1], len(moves))
    return f"{lines[-1]} {','.join(v or '-' for v in values)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--games", type=int, required=True, help="games in all shards together")
    parser.add_argument("--shard", default="0/1", help="K/N: this run makes games k with k mod N = K")
    parser.add_argument("--zebra", required=True, help="Zebra's directory (its binary and coeffs2.bin)")
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--exact", type=int, default=16, help="Zebra solves from this many empties")
    parser.add_argument("--opening", default="8..16", help="random plies, A..B")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--values", action="store_true",
                        help="add Zebra's value of each position it moved from (side to move, discs)")
    args = parser.parse_args()
    k0, n = (int(x) for x in args.shard.split("/"))
    plies = tuple(int(x) for x in args.opening.split(".."))
    if not (0 <= k0 < n) or len(plies) != 2 or not 0 <= plies[0] <= plies[1] <= 59:
        sys.exit(f"--shard {args.shard} --opening {args.opening}: expected K/N with K < N and A..B")
    if not os.path.exists(os.path.join(args.zebra, "coeffs2.bin")):
        sys.exit(f"--zebra {args.zebra}: no coeffs2.bin there; build Zebra as ../shared/anchors/README.md says")
    done = -1
    if os.path.exists(args.out):
        with open(args.out) as existing:
            for line in existing:
                if line.endswith("\n") and line.split():
                    done = int(line.split()[0])
        # A line cut off by a stop is dropped: the file keeps whole games only.
        with open(args.out, "rb+") as existing:
            data = existing.read()
            existing.truncate(data.rfind(b"\n") + 1)
    with tempfile.TemporaryDirectory() as work, open(args.out, "a") as out:
        os.symlink(os.path.join(os.path.abspath(args.zebra), "coeffs2.bin"), os.path.join(work, "coeffs2.bin"))
        for k in range(k0, args.games, n):
            if k <= done:
                continue
            moves = opening(args.seed, k, plies)
            if moves is None:
                continue
            transcript = zebra_game(args.zebra, work, moves, args.depth, args.exact, args.values)
            out.write(f"{k} {transcript}\n")
            out.flush()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fits the scale that turns the engine's hand-made evaluation into discs.

Plays engine:nodes=N:handmade against itself from random openings (`othello match`, reproducible by seed),
takes every engine move whose value is an evaluation (not exact, not a proven win or loss), and
fits, per stage of empty squares, final disc difference ~ scale x value by least squares through
the origin, with each stage's number of positions and its error in discs.

The engine's values are discs since ESTIMATE_SCALES in crates/engine/crates/engine/src/search/engine.rs: on today's build the
scales come out near 1, which checks the calibration. The scales themselves were fitted on the raw
evaluation, by this script with `--binary` a build of the commit just before them
(`git log -S ESTIMATE_SCALES`).

    scripts/calibrate-engine.py                  # 400 games, engine:nodes=20000:handmade, seed 1
    scripts/calibrate-engine.py --games 1000 --nodes 50000 --seed 2
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIN = 1_000_000
# Stages by empty squares before the move: (lowest, highest), as in ESTIMATE_SCALES.
STAGES = [(50, 60), (40, 49), (30, 39), (25, 29), (0, 24)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--nodes", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log", help="keep the games here (JSON Lines)")
    parser.add_argument("--binary", help="an othello binary to use instead of building this one")
    parser.add_argument("--evaluation", choices=["handmade", "patterns"], default="handmade",
                        help="the engine's evaluation (the patterns' values are discs already)")
    args = parser.parse_args()

    binary = args.binary
    if binary is None:
        subprocess.run(["cargo", "build", "--quiet", "--release", "--manifest-path",
                        os.path.join(ROOT, "Cargo.toml")], check=True)
        binary = os.path.join(ROOT, "target", "release", "othello")
    log = args.log or tempfile.mktemp(suffix=".jsonl")
    engine = f"engine:nodes={args.nodes}" + (":handmade" if args.evaluation == "handmade" else "")
    subprocess.run([binary, "match", engine, engine, "--games", str(args.games), "--openings", "8",
                    "--seed", str(args.seed), "--log", log], check=True, stdout=sys.stderr)

    samples = {stage: [] for stage in STAGES}
    with open(log) as games:
        for line in games:
            game = json.loads(line)
            result = game["result"]
            final = {"black": result["black"] - result["white"], "white": result["white"] - result["black"]}
            empties_to_winner = 64 - result["black"] - result["white"]
            for side in final:
                if final[side] > 0:
                    final[side] += empties_to_winner
                elif final[side] < 0:
                    final[side] -= empties_to_winner
            empties = 60
            for move in game["moves"]:
                before = empties
                if not move.get("pass"):
                    empties -= 1
                value = move.get("value")
                if value is None or abs(value) >= WIN // 2:
                    continue
                kind = move.get("value_kind")
                # Logs before value kinds: below 25 empties a value may be the solver's exact score.
                if kind is None and before < 25 or kind not in (None, "estimate"):
                    continue
                for stage in STAGES:
                    if stage[0] <= before <= stage[1]:
                        samples[stage].append((value, final[move["side"]]))
    if args.log is None:
        os.unlink(log)

    print(f"{args.games} games of {engine} against itself, random 8-ply openings, seed {args.seed}")
    print(f"{'empties':>8} {'positions':>9} {'scale':>8} {'rmse discs':>10} {'rmse if 0':>9} {'corr':>6}")
    scales = []
    for stage in STAGES:
        points = samples[stage]
        if not points:
            scales.append(0)
            continue
        vv = sum(v * v for v, _ in points)
        vd = sum(v * d for v, d in points)
        scale = vd / vv if vv else 0.0
        rmse = math.sqrt(sum((d - scale * v) ** 2 for v, d in points) / len(points))
        rmse0 = math.sqrt(sum(d * d for _, d in points) / len(points))
        n = len(points)
        mv = sum(v for v, _ in points) / n
        md = sum(d for _, d in points) / n
        cov = sum((v - mv) * (d - md) for v, d in points)
        sv = math.sqrt(sum((v - mv) ** 2 for v, _ in points))
        sd = math.sqrt(sum((d - md) ** 2 for _, d in points))
        corr = cov / (sv * sd) if sv and sd else 0.0
        scales.append(round(scale * 1000))
        print(f"{stage[0]:>3}-{stage[1]:<4} {n:>9} {scale:>8.4f} {rmse:>10.2f} {rmse0:>9.2f} {corr:>6.3f}")
    print("ESTIMATE_SCALES (thousandths):", scales)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks WTHOR's theoretical scores against `othello solve`: COUNT games sampled (with SEED) from the
WTHOR files of FOLDER (default ../shared/data/wthor), each read here from its bytes (the header's
depth, the game's moves and black's theoretical score), the position at the header's depth of empty
squares solved by `othello solve --moves`, and black's perfect-play discs (empty squares to the
winner) compared with the file's. Prints a line a game and exits 1 if any disagrees.

    scripts/wthor-theoretical.py [FOLDER] [COUNT] [SEED]
"""
import json, pathlib, random, struct, subprocess, sys

root = pathlib.Path(__file__).resolve().parent.parent
folder = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root.parent / "shared" / "data" / "wthor"
count = int(sys.argv[2]) if len(sys.argv) > 2 else 20
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
subprocess.run(["cargo", "build", "--quiet", "--release", "--manifest-path", str(root / "Cargo.toml")], check=True)
othello = str(root / "target" / "release" / "othello")

files = sorted(folder.glob("*.wtb"))
rng = random.Random(seed)
disagreements = 0
checked = 0
seen = set()
while checked < count:
    path = rng.choice(files)
    data = path.read_bytes()
    games, depth = struct.unpack_from("<I", data, 4)[0], data[14]
    index = rng.randrange(games)
    if (path.name, index) in seen:
        continue  # twenty different games
    seen.add((path.name, index))
    record = data[16 + 68 * index: 16 + 68 * (index + 1)]
    theoretical = record[7]
    moves = [m for m in record[8:] if m]
    if len(moves) < 60 - depth:
        continue  # ended before the depth: no theoretical position
    transcript = "".join("abcdefgh"[m % 10 - 1] + str(m // 10) for m in moves[: 60 - depth])
    solved = subprocess.run([othello, "solve", "--moves", transcript, "--json", "--quiet"],
                            capture_output=True, text=True, check=True)
    answer = json.loads(solved.stdout.splitlines()[-1])
    # The score is the side to move's disc difference with the empty squares to the winner.
    margin = answer["score"] if answer["side"] == "black" else -answer["score"]
    black = (64 + margin) // 2
    agree = black == theoretical
    disagreements += not agree
    checked += 1
    print("%s game %d: %d empties, WTHOR %d, solve %d (%s nodes): %s" % (
        path.name, index + 1, depth, theoretical, black, answer["nodes"], "agree" if agree else "DISAGREE"))
print("%d of %d games agree" % (checked - disagreements, checked))
sys.exit(1 if disagreements else 0)

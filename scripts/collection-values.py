#!/usr/bin/env python3
"""The search values of a labelled collection, kept small: what `othello selfplay --replay
COLLECTION` spent its time on (a search of every position before the solved stage), without the
games themselves, which stay in the collection (never copied into the project).

    # the values of a sample file, a line a game: its index in the collection and its values
    scripts/collection-values.py extract WTH_2009.txt | gzip -9 > data/values/WTH_2009.values.gz
    # the games again, with their values, as `othello selfplay --replay` reads them (K TRANSCRIPT
    # VALUES): labelling them again searches nothing, only solves the last empty squares
    scripts/collection-values.py games ../shared/data/wthor/WTH_2009.wtb data/values/WTH_2009.values.gz > games.txt
    othello selfplay WTH_2009.txt --replay games.txt --games 1000000

A values file starts with `#` lines (the sample file's header: how the values were made); each
other line is `K V,V,...`, the search values (side to move, discs) of game K's positions in the
order played, up to the first solved one. `games` writes `-` (no value) for the positions after.
"""
import gzip
import os
import subprocess
import sys


def extract(paths):
    out = sys.stdout
    for path in paths:
        values = {}
        with open(path) as samples:
            for number, line in enumerate(samples, 1):
                if line.startswith("# othello selfplay"):
                    out.write(line if number == 1 else "")
                    continue
                if line.startswith("#done "):
                    index = line.split()[1]
                    out.write(f"{index} {','.join(values.pop(index, []))}\n")
                    continue
                fields = line.split()
                if len(fields) != 6:
                    raise SystemExit(f"{path} line {number}: not a sample line of version 2: {line.strip()!r}")
                values.setdefault(fields[0], [])
                if fields[4] == "r":
                    values[fields[0]].append(fields[5])


def games(collection, values_path):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    othello = os.environ.get("OTHELLO", os.path.join(root, "target", "release", "othello"))
    transcripts = subprocess.run([othello, "replay", collection, "--to", "transcript"], check=True,
                                 capture_output=True, text=True).stdout.split()
    opener = gzip.open if values_path.endswith(".gz") else open
    with opener(values_path, "rt") as lines:
        for number, line in enumerate(lines, 1):
            if line.startswith("#"):
                continue
            index, _, values = line.strip().partition(" ")
            if not index.isdigit() or int(index) >= len(transcripts):
                raise SystemExit(f"{values_path} line {number}: {index!r} is not a game of {collection}")
            transcript = transcripts[int(index)]
            moves = sum(1 for k in range(0, len(transcript), 2) if transcript[k:k + 2].lower() != "pa")
            known = values.split(",") if values else []
            if len(known) > moves:
                raise SystemExit(f"{values_path} line {number}: {len(known)} values for {moves} moves")
            sys.stdout.write(f"{index} {transcript} {','.join(known + ['-'] * (moves - len(known)))}\n")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "extract":
        extract(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "games":
        games(sys.argv[2], sys.argv[3])
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

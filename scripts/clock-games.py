#!/usr/bin/env python3
"""Games on a game clock through a protocol, refereed from outside: `othello gtp` or `othello nboard`
plays on a clock of CLOCK seconds against `othello gtp` at a fixed time a move; this script keeps
the rules and the clock (wall time from sending the request to reading the answer, pipes and
start-up included), and reports the losses on time and how much of the clock each game used.

    scripts/clock-games.py --protocol gtp --clock 300 --games 32
    scripts/clock-games.py --protocol nboard --clock 20 --games 8 --opponent-time 0.05
"""
import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(board, square, side):
    """The discs `side` turns over by playing `square` (row * 8 + col), empty if it is illegal."""
    if board[square] != ".":
        return []
    other = "o" if side == "x" else "x"
    row, col = divmod(square, 8)
    turned = []
    for dr, dc in DIRECTIONS:
        r, c, line = row + dr, col + dc, []
        while 0 <= r < 8 and 0 <= c < 8 and board[r * 8 + c] == other:
            line.append(r * 8 + c)
            r, c = r + dr, c + dc
        if line and 0 <= r < 8 and 0 <= c < 8 and board[r * 8 + c] == side:
            turned += line
    return turned


def moves(board, side):
    return [s for s in range(64) if flips(board, s, side)]


def play(board, square, side):
    board = list(board)
    for s in flips(board, square, side) + [square]:
        board[s] = side
    return board


def name(square):
    return "abcdefgh"[square % 8] + str(square // 8 + 1)


def parse(text):
    text = text.strip().lower()
    if text in ("pass", "pa"):
        return None
    return (int(text[1]) - 1) * 8 + "abcdefgh".index(text[0])


class Process:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, accept):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the engine closed its output")
            if accept(line.rstrip("\n")):
                return line.rstrip("\n")

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


class Gtp(Process):
    def ask(self, command):
        self.send(command)
        answer = self.read_until(lambda line: line.startswith("=") or line.startswith("?"))
        self.proc.stdout.readline()  # the empty line after an answer
        if answer.startswith("?"):
            raise RuntimeError(f"{command!r} refused: {answer}")
        return answer[1:].strip()


def ggf(moves_made, clock):
    start = "-" * 27 + "O*------*O" + "-" * 27
    body = "".join(f"{'B' if side == 'x' else 'W'}[{name(sq).upper() if sq is not None else 'PA'}//{t:.3f}]"
                   for side, sq, t in moves_made)
    return f"(;GM[Othello]PC[clock-games]PB[a]PW[b]TI[{clock}]TY[8]BO[8 {start} *]{body};)"


def game(args, index, opening):
    ours_side = "x" if index % 2 == 0 else "o"
    othello = str(args.bin)
    opponent = Gtp([othello, "gtp", "--move-time", str(args.opponent_time)])
    if args.protocol == "gtp":
        ours = Gtp([othello, "gtp"])
        ours.ask(f"time_settings {args.clock} 0 0")
    else:
        ours = Process([othello, "nboard"])
        ours.send("nboard 2")
        ours.send(f"set game {ggf([], args.clock)}")
    board = ["."] * 64
    board[27], board[28], board[35], board[36] = "o", "x", "x", "o"
    side, passes, left, made, longest = "x", 0, float(args.clock), [], 0.0
    lost_on_time = False
    plies = 0
    while passes < 2:
        legal = moves(board, side)
        if not legal:
            square, seconds = None, 0.0
            passes += 1
        else:
            passes = 0
            if plies < len(opening):
                square, seconds = opening[plies], 0.0
            elif side == ours_side:
                color = "b" if side == "x" else "w"
                began = time.monotonic()
                if args.protocol == "gtp":
                    ours.ask(f"time_left {color} {int(left)} 0")
                    square = parse(ours.ask(f"genmove {color}"))
                else:
                    ours.send("go")
                    square = parse(ours.read_until(lambda line: line.startswith("===")).split()[1].split("/")[0])
                seconds = time.monotonic() - began
                left -= seconds
                longest = max(longest, seconds)
                if left < 0:
                    lost_on_time = True
                    break
            else:
                square = parse(opponent.ask(f"genmove {'b' if side == 'x' else 'w'}"))
                seconds = 0.0
            if square not in legal:
                raise RuntimeError(f"game {index}: {side} played {square} where {legal} are legal")
        # Each engine hears every move but those it made itself; a GTP engine passes by itself.
        color = "b" if side == "x" else "w"
        text = name(square) if square is not None else "pass"
        chosen = plies >= len(opening) and square is not None
        if square is not None:
            if not (chosen and side != ours_side):
                opponent.ask(f"play {color} {text}")
            if args.protocol == "gtp" and not (chosen and side == ours_side):
                ours.ask(f"play {color} {text}")
        if args.protocol == "nboard":
            ours.send(f"move {text.upper() if square is not None else 'PA'}//{seconds:.3f}")
        made.append((side, square, seconds))
        if square is not None:
            board = play(board, square, side)
            plies += 1
        side = "o" if side == "x" else "x"
    ours.close()
    opponent.close()
    mine = board.count(ours_side)
    theirs = board.count("o" if ours_side == "x" else "x")
    return mine, theirs, lost_on_time, args.clock - left, longest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", choices=["gtp", "nboard"], default="gtp")
    parser.add_argument("--clock", type=int, default=300, help="seconds for all of our engine's moves")
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--openings", type=int, default=6, help="random plies, each opening played with both colours")
    parser.add_argument("--opponent-time", type=float, default=0.1, help="the opponent's seconds a move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bin", type=Path, default=Path(__file__).resolve().parent.parent / "target/release/othello")
    args = parser.parse_args()
    print(f"{args.games} games, othello {args.protocol} on a {args.clock} s clock against othello gtp at "
          f"{args.opponent_time} s a move, random openings of {args.openings} plies", flush=True)
    wins = draws = losses = timeouts = 0
    used_all = []
    for index in range(args.games):
        rng = random.Random(args.seed * 1000 + index // 2)
        board, side, opening = ["."] * 64, "x", []
        board[27], board[28], board[35], board[36] = "o", "x", "x", "o"
        for _ in range(args.openings):
            legal = moves(board, side)
            square = rng.choice(legal)
            opening.append(square)
            board = play(board, square, side)
            side = "o" if side == "x" else "x"
        mine, theirs, lost_on_time, used, longest = game(args, index, opening)
        timeouts += lost_on_time
        if lost_on_time or mine < theirs:
            losses += 1
        elif mine > theirs:
            wins += 1
        else:
            draws += 1
        used_all.append(used)
        print(f"game {index + 1}: {mine}-{theirs}{' LOST ON TIME' if lost_on_time else ''}, "
              f"clock used {used:.1f} of {args.clock} s, longest move {longest:.2f} s", flush=True)
    print(f"{wins} wins, {draws} draws, {losses} losses; {timeouts} lost on time; clock used "
          f"{min(used_all):.1f}-{max(used_all):.1f} s of {args.clock} (mean {sum(used_all) / len(used_all):.1f})")
    return 1 if timeouts else 0


if __name__ == "__main__":
    sys.exit(main())

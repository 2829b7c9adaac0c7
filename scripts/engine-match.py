#!/usr/bin/env python3
"""A match between two engines that speak GTP or NBoard, refereed from outside: this script keeps
the rules, the openings and the clock, and reports the score, the disc share, each side's CPU time
a move (of its process, from /proc) and, for a side on a clock, its time used and any loss on time.

A player is PROTOCOL[@DEPTH]=COMMAND, run by the shell (so `cd DIR && exec ./ntest x a1` works):
gtp=... (GTP: play, genmove, time_left), nboard@N=... (NBoard: `set depth N`, set game, move, go),
zebra@D[,E,W]=... (Zebra's console game: the command gets `-l` for its side, the other side human,
searching D plies, exact from E empties and win/loss/draw from W, both D unless given, and `-seq`
with the opening; it runs on a pseudo-terminal, or its prompts would stay in its output buffer,
and its moves are read off the boards it prints).

    # our GTP engine on a 5-minute clock against ours at 0.1 s a move
    scripts/engine-match.py --clock 300 'gtp=target/release/othello gtp' \\
        'gtp=target/release/othello gtp --move-time 0.1 --threads 1'
    # two builds of ours, each on a 15 s clock
    scripts/engine-match.py --clock 15 --clock-b 15 'gtp=target/release/othello gtp --threads 1' \\
        'gtp=old/othello gtp --threads 1'
    # NTest at 1 s a move (a1: NBoard's depth 1) against engine:1000 through NBoard's clockless go
    scripts/engine-match.py 'gtp=target/release/othello gtp --threads 1' \\
        'nboard@1=cd /work/anchors/ntest/run && exec ../build/ntest x a1'
    # Zebra at depth 12, exact from 20 empties, no book, no randomness, against engine:1000
    scripts/engine-match.py 'gtp=target/release/othello gtp --threads 1' \\
        'zebra@12,20,22=cd /work/anchors/zebra && exec ./zebra -b 0 -r 0 -w 0 -e 1 -p 0'
    # the same from the 17th to 32nd openings of a set judged near even (scripts/balanced-openings.py)
    scripts/engine-match.py --opening-file fixtures/engine/balanced-openings.txt --skip 16 ...

Random openings of 8 plies are mostly decided by the draw: of the 64 of four anchor matches the
engine's search valued 45 at 6 discs or more for one side, and in 41 of those pairs against NTest,
42 against Zebra, the colour it favoured won both games (the other colour never did;
docs/history.md), so a match of such openings shows little of the players. An opening file
gives each pair of games an opening from the file instead, in order.
"""
import argparse
import os
import pty
import random
import re
import select
import subprocess
import sys
import time
import tty

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
START = "." * 27 + "ox" + "." * 6 + "xo" + "." * 27


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


def legal_moves(board, side):
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


def cpu_seconds(pid):
    """User + system time of a process so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0


def engine(spec, clock, side, opening):
    """The player `spec` for one game, playing `side` from `opening`."""
    if spec.startswith("zebra"):
        return ZebraConsole(spec, side, opening)
    return Engine(spec, clock)


class ZebraConsole:
    """Zebra's console game for one game: Zebra plays one side, the other side is its "human", whose
    moves are typed at its prompts. Zebra says its own moves only on the boards it prints, so each
    board is compared with the one before: the square newly filled is the move."""

    PROMPT = re.compile(r"(Black|White) move: $")
    ROW = re.compile(r"^ {6}([1-8]) {2}((?:[ *O] ){7}[ *O])")

    def __init__(self, spec, side, opening):
        kind, command = spec.split("=", 1)
        levels = [int(x) for x in kind.partition("@")[2].split(",") if x] or [12]
        if len(levels) == 1:
            levels *= 3
        if len(levels) != 3:
            raise SystemExit(f"zebra@{kind.partition('@')[2]}: expected zebra@DEPTH or zebra@DEPTH,EXACT,WLD")
        ours = " ".join(map(str, levels))
        sides = f"{ours} 0" if side == "x" else f"0 {ours}"
        self.protocol = "zebra"
        args = f" -l {sides}"
        if opening:
            args += " -seq " + "".join(name(square) for square in opening)
        # A raw terminal: no echo of what is typed, no carriage returns added.
        self.terminal, child = pty.openpty()
        tty.setraw(child)
        self.proc = subprocess.Popen(["bash", "-c", command + args], stdin=child, stdout=child,
                                     stderr=subprocess.DEVNULL)
        os.close(child)
        self.pending = b""
        self.board = {}           # the last board printed, square -> "x" or "o"
        self.rows = {}            # the board being printed
        self.expected = list(opening)  # moves Zebra will print that are not its own choice
        self.chosen = []          # Zebra's moves not yet asked for
        self.prompted = False
        self.opening, self.heard = len(opening), 0

    def pump(self, until):
        """Reads Zebra's output until `until()` holds, answering its pass prompts."""
        while not until():
            ready, _, _ = select.select([self.terminal], [], [], 600)
            try:
                chunk = os.read(self.terminal, 65536) if ready else b""
            except OSError:  # the terminal's other end closed
                chunk = b""
            if not chunk:
                raise RuntimeError("Zebra closed its output or said nothing for 10 minutes")
            self.pending += chunk
            *lines, self.pending = self.pending.split(b"\n")
            for line in lines:
                self.line(line.decode("latin-1"))
            tail = self.pending.decode("latin-1")
            if self.PROMPT.search(tail):
                self.pending = b""
                self.prompted = True

    def line(self, text):
        if "You must pass" in text:
            self.send("")
            return
        row = self.ROW.match(text)
        if not row:
            return
        cells = row.group(2)[::2]
        self.rows[int(row.group(1))] = cells
        if len(self.rows) < 8 or int(row.group(1)) != 8:
            return
        board = {}
        for number, cells in self.rows.items():
            for col, cell in enumerate(cells):
                if cell != " ":
                    board[(number - 1) * 8 + col] = "x" if cell == "*" else "o"
        self.rows = {}
        new = [square for square in board if square not in self.board]
        self.board = board
        if len(new) != 1:
            return  # the start, or the same board again (the end of the game)
        if self.expected and self.expected[0] == new[0]:
            self.expected.pop(0)
        else:
            self.chosen.append(new[0])

    def send(self, line):
        os.write(self.terminal, (line + "\n").encode())

    def choose(self, side, left):
        self.pump(lambda: self.chosen)
        return self.chosen.pop(0)

    def hear(self, side, square, seconds, chosen):
        """The other side's moves are typed at Zebra's prompt; its own, the opening's and passes need
        nothing (Zebra passes for its human itself, after an Enter)."""
        if square is None:
            return
        self.heard += 1
        if chosen or self.heard <= self.opening:  # its own move, or the opening, which -seq gave
            return
        self.pump(lambda: self.prompted)
        self.prompted = False
        self.expected.append(square)
        self.send(name(square))

    def close(self):
        self.proc.kill()
        self.proc.wait()
        os.close(self.terminal)


class Engine:
    """One engine process for one game."""

    def __init__(self, spec, clock):
        kind, command = spec.split("=", 1)
        self.protocol, _, depth = kind.partition("@")
        self.clock = clock
        self.proc = subprocess.Popen(["bash", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        if self.protocol == "gtp":
            if clock:
                self.ask(f"time_settings {clock} 0 0")
        elif self.protocol == "nboard":
            self.send("nboard 2")
            if depth:
                self.send(f"set depth {depth}")
            self.send(f"set game {ggf(clock)}")
            self.send("ping 1")
            self.read_until(lambda line: line.startswith("pong"))
        else:
            raise SystemExit(f"unknown protocol {self.protocol!r}: expected gtp or nboard")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, accept):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("an engine closed its output")
            if accept(line.rstrip("\n")):
                return line.rstrip("\n")

    def ask(self, command):
        self.send(command)
        answer = self.read_until(lambda line: line.startswith("=") or line.startswith("?"))
        self.proc.stdout.readline()  # the empty line after an answer
        if answer.startswith("?"):
            raise RuntimeError(f"{command!r} refused: {answer}")
        return answer[1:].strip()

    def choose(self, side, left):
        """The engine's move for `side`, with `left` seconds on its clock."""
        color = "b" if side == "x" else "w"
        if self.protocol == "gtp":
            if self.clock:
                # To the millisecond: GTP has whole seconds, othello's gtp takes a fraction, and a
                # clock cut down to whole seconds costs a short game's last moves all their time.
                self.ask(f"time_left {color} {max(0.0, left):.3f} 0")
            return parse(self.ask(f"genmove {color}"))
        self.send("go")
        return parse(self.read_until(lambda line: line.startswith("===")).split()[1].split("/")[0])

    def hear(self, side, square, seconds, chosen):
        """A move of the game; a GTP engine already played the ones it chose, and passes alone."""
        color = "b" if side == "x" else "w"
        if self.protocol == "gtp":
            if square is not None and not chosen:
                self.ask(f"play {color} {name(square)}")
        else:
            self.send(f"move {name(square).upper() if square is not None else 'PA'}//{seconds:.3f}")

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def random_opening(seed, pair, plies):
    """The random opening of the `pair`-th pair of games: `plies` legal moves drawn by a generator
    seeded by the match's seed and the pair (a pass is never drawn: an opening that meets one is
    cut short there)."""
    rng = random.Random(seed * 1000 + pair)
    board, side, opening = list(START), "x", []
    for _ in range(plies):
        legal = legal_moves(board, side)
        if not legal:
            break
        square = rng.choice(legal)
        opening.append(square)
        board = play(board, square, side)
        side = "o" if side == "x" else "x"
    return opening


MAX_LINE = 4096


def read_openings(path, wanted=None):
    """The first `wanted` openings (all, if None) of an opening file: the transcript that starts
    each line (blank lines and what follows # are left out). Every line is checked move by move,
    the ones not kept too; raises ValueError naming the line. A line is read at most MAX_LINE
    characters at a time, so that a file with no line ends is refused rather than read whole."""
    openings = []
    with open(path) as lines:
        for number, line in enumerate(iter(lambda: lines.readline(MAX_LINE + 1), ""), 1):
            if len(line) > MAX_LINE:
                raise ValueError(f"{path}:{number}: a line of more than {MAX_LINE} characters (expected a transcript)")
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            text, board, side, opening = fields[0].lower(), list(START), "x", []
            if len(text) % 2 or not re.fullmatch(r"([a-h][1-8])*", text):
                raise ValueError(f"{path}:{number}: {fields[0]!r} is not a transcript (expected moves like f5d6c3)")
            for i in range(0, len(text), 2):
                if not legal_moves(board, side):
                    side = "o" if side == "x" else "x"
                square = parse(text[i:i + 2])
                if square not in legal_moves(board, side):
                    raise ValueError(f"{path}:{number}: {text[i:i + 2]} (move {i // 2 + 1}) is illegal")
                board = play(board, square, side)
                opening.append(square)
                side = "o" if side == "x" else "x"
            if wanted is None or len(openings) < wanted:
                openings.append(opening)
    return openings


def ggf(clock):
    board = "".join({".": "-", "x": "*", "o": "O"}[c] for c in START)
    return f"(;GM[Othello]PC[engine-match]PB[a]PW[b]TI[{clock or 0}]TY[8]BO[8 {board} *];)"


def game(args, index, opening):
    """Plays game `index`: A is black in even games. Returns A's and B's discs and their costs."""
    a_side = "x" if index % 2 == 0 else "o"
    b_side = "o" if a_side == "x" else "x"
    clocks = {a_side: args.clock, b_side: args.clock_b}
    engines = {side: engine(spec, clocks[side], side, opening) for side, spec in ((a_side, args.a), (b_side, args.b))}
    board, side, passes, plies = list(START), "x", 0, 0
    played = []
    left = {side: float(clock or 0) for side, clock in clocks.items()}
    # moves, CPU seconds, wall seconds, and the longest move's CPU and wall seconds
    cost = {"x": [0, 0.0, 0.0, 0.0, 0.0], "o": [0, 0.0, 0.0, 0.0, 0.0]}
    lost_on_time = None
    while passes < 2:
        legal = legal_moves(board, side)
        chosen, seconds = False, 0.0
        if not legal:
            square = None
            passes += 1
        else:
            passes = 0
            if plies < len(opening):
                square = opening[plies]
            else:
                player = engines[side]
                cpu = cpu_seconds(player.proc.pid)
                began = time.monotonic()
                square = player.choose(side, left[side])
                seconds = time.monotonic() - began
                cost[side][0] += 1
                cpu = cpu_seconds(player.proc.pid) - cpu
                cost[side][1] += cpu
                cost[side][2] += seconds
                cost[side][3] = max(cost[side][3], cpu)
                cost[side][4] = max(cost[side][4], seconds)
                chosen = True
                if clocks[side]:
                    left[side] -= seconds
                    if left[side] < 0:
                        lost_on_time = side
                        break
                if square not in legal:
                    raise RuntimeError(f"game {index + 1}: {side} played {square} where {legal} are legal")
        for listener, player in engines.items():
            player.hear(side, square, seconds, chosen and listener == side)
        if square is not None:
            board = play(board, square, side)
            played.append(name(square))
            plies += 1
        side = "o" if side == "x" else "x"
    for player in engines.values():
        player.close()
    if lost_on_time:
        a, b = (0, 64) if lost_on_time == a_side else (64, 0)
    else:
        a, b = board.count(a_side), board.count(b_side)
    used = {key: float(clocks[side] or 0) - left[side] for key, side in (("a", a_side), ("b", b_side))}
    loser = {a_side: "A", b_side: "B"}.get(lost_on_time)
    return a, b, cost[a_side], cost[b_side], loser, used, "".join(played)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="player A, PROTOCOL[@DEPTH]=COMMAND")
    parser.add_argument("b", help="player B")
    parser.add_argument("--clock", type=int, help="seconds of wall time for all of A's moves in a game")
    parser.add_argument("--clock-b", type=int, help="the same for B (a GTP or NBoard player)")
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--openings", type=int, default=8, help="random plies, each opening played with both colours")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--record", help="a file to append each game's line to, as it ends: its number, A's colour, "
                        "the discs, A's first (A=white 40-24: A, white, has 40), and the moves (a transcript `othello analyze --moves` reads)")
    parser.add_argument("--opening-file", help="openings, a transcript at the start of each line (# begins a comment), "
                        "taken in order instead of random ones")
    parser.add_argument("--skip", type=int, default=0, help="with --opening-file, the lines of openings to pass over")
    args = parser.parse_args()
    openings = None
    if args.opening_file:
        try:
            openings = read_openings(args.opening_file, args.skip + (args.games + 1) // 2)[args.skip:]
        except (OSError, ValueError) as error:
            print(f"engine-match: {error}", file=sys.stderr)
            return 2
        pairs = (args.games + 1) // 2
        if len(openings) < pairs:
            print(f"engine-match: {args.opening_file} has {len(openings)} openings after --skip {args.skip}, "
                  f"expected at least {pairs} for {args.games} games", file=sys.stderr)
            return 2
        source = f"openings {args.skip + 1}-{args.skip + pairs} of {args.opening_file}"
    else:
        source = f"random openings of {args.openings} plies (seed {args.seed})"
    record = open(args.record, "a") if args.record else None
    clock = {key: f" on a {seconds} s clock" if seconds else "" for key, seconds in (("a", args.clock), ("b", args.clock_b))}
    print(f"A: {args.a}{clock['a']}\nB: {args.b}{clock['b']}\n{args.games} games from {source}, each opening with both "
          "colours", flush=True)
    points = a_discs = b_discs = 0
    timeouts = {"A": 0, "B": 0}
    totals = {"a": [0, 0.0, 0.0, 0.0, 0.0], "b": [0, 0.0, 0.0, 0.0, 0.0]}
    for index in range(args.games):
        if openings is None:
            opening = random_opening(args.seed, index // 2, args.openings)
        else:
            opening = openings[index // 2]
        a, b, a_cost, b_cost, lost_on_time, used, moves = game(args, index, opening)
        points += 1.0 if a > b else 0.5 if a == b else 0.0
        a_discs, b_discs = a_discs + a, b_discs + b
        if lost_on_time:
            timeouts[lost_on_time] += 1
        for key, cost in (("a", a_cost), ("b", b_cost)):
            totals[key] = [t + c for t, c in zip(totals[key][:3], cost[:3])] + [
                max(t, c) for t, c in zip(totals[key][3:], cost[3:])]
        colour = "black" if index % 2 == 0 else "white"
        if record:
            record.write(f"{index + 1} A={colour} {a}-{b} {moves}\n")
            record.flush()
        used_text = "".join(f", {key.upper()}'s clock used {used[key]:.1f} s"
                            for key, seconds in (("a", args.clock), ("b", args.clock_b)) if seconds)
        lost_text = f" {lost_on_time} LOST ON TIME" if lost_on_time else ""
        print(f"game {index + 1}: A ({colour}) {a}-{b}{lost_text}{used_text}; "
              f"CPU a move A {a_cost[1] / max(1, a_cost[0]):.2f} s, B {b_cost[1] / max(1, b_cost[0]):.2f} s",
              flush=True)
    print(f"A: {points:g} of {args.games} points ({100 * points / args.games:.1f}%), "
          f"{100 * a_discs / max(1, a_discs + b_discs):.1f}% of the discs; {timeouts['A']} lost on time"
          + (f", B {timeouts['B']}" if args.clock_b else ""))
    for key in ("a", "b"):
        moves, cpu, wall, longest_cpu, longest_wall = totals[key]
        print(f"{key.upper()}: {moves} moves, {cpu / max(1, moves):.3f} s of CPU and {wall / max(1, moves):.3f} s "
              f"of wall time a move; the longest {longest_cpu:.2f} s of CPU, {longest_wall:.3f} s of wall time")
    return 1 if any(timeouts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

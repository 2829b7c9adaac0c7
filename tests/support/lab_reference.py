#!/usr/bin/env python3
"""An independent, deliberately plain Python implementation of the lab mode (docs/lab-format.md).

It exists to cross-check the golden transcripts in fixtures/lab/ (two implementations written
apart must agree), and it is the honest student of the grading tests:

    othello grade fixtures/lab --judge strict -- python3 tests/support/lab_reference.py
"""
import re
import sys

DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
DEFAULT = "." * 27 + "ox" + "." * 6 + "xo" + "." * 27


def flips(board, side, sq):
    if board[sq] != ".":
        return []
    other = "o" if side == "x" else "x"
    row, col = divmod(sq, 8)
    result = []
    for dr, dc in DIRS:
        line, r, c = [], row + dr, col + dc
        while 0 <= r < 8 and 0 <= c < 8 and board[r * 8 + c] == other:
            line.append(r * 8 + c)
            r, c = r + dr, c + dc
        if line and 0 <= r < 8 and 0 <= c < 8 and board[r * 8 + c] == side:
            result += line
    return result


def moves(board, side):
    return [sq for sq in range(64) if flips(board, side, sq)]


def snapshot(board, side, last, lab1=False):
    out = []
    if last is not None:
        out.append("%s plays to %d" % (last[0], last[1]))
    over = not moves(board, side) and not moves(board, "o" if side == "x" else "x")
    marks = [] if over else moves(board, side)
    for row in range(8):
        line = ""
        for col in range(8):
            sq = row * 8 + col
            ch = "*" if sq in marks else board[sq]
            line += ch.upper() if last is not None and sq == last[1] else ch
        out.append(line)
    out.append("")
    out.append("".join(board) + "  %d/%d" % (board.count("x"), board.count("o")))
    if lab1 and not marks:
        out += ["No moves possible", ""]
    elif not over:
        out += ["Possible moves for %s: %s" % (side, ", ".join(map(str, marks))), ""]
    return "".join(line + "\n" for line in out)


def fail(arg, why):
    sys.stderr.write("bad argument %r: %s\n" % (arg, why))
    sys.exit(2)


def main(args):
    board, token, seq, lab1 = None, None, [], False
    for arg in args:
        if arg == "--lab1":
            lab1 = True
        elif re.fullmatch(r"[xXoO.]{64}", arg):
            if board is not None:
                fail(arg, "a second board")
            board = list(arg.lower())
        elif re.fullmatch(r"[xXoO]", arg):
            if token is not None:
                fail(arg, "a second token")
            token = arg.lower()
        elif re.fullmatch(r"-[0-9]+", arg):
            pass
        elif re.fullmatch(r"[0-9]+", arg) and int(arg) < 64:
            seq.append(int(arg))
        elif re.fullmatch(r"[a-hA-H][1-8]", arg):
            seq.append((int(arg[1]) - 1) * 8 + "abcdefgh".index(arg[0].lower()))
        elif len(arg) >= 2 and re.fullmatch(r"(_[0-9]|[1-5][0-9]|6[0-3]|-[1-9])+", arg):
            # A condensed transcript: two characters a move, _ before one digit, -1 a pass (ignored).
            for k in range(0, len(arg), 2):
                pair = arg[k:k + 2]
                if not pair.startswith("-"):
                    seq.append(int(pair.lstrip("_")))
        else:
            fail(arg, "expected a board, a token or a move")
    board = board or list(DEFAULT)
    side = token or ("x" if board.count(".") % 2 == 0 else "o")
    other = lambda s: "o" if s == "x" else "x"
    if lab1:
        sys.stdout.write(snapshot(board, side, None, lab1=True))
    if not moves(board, side) and moves(board, other(side)):
        side = other(side)
    if not lab1:
        sys.stdout.write(snapshot(board, side, None))
    for sq in seq:
        flipped = flips(board, side, sq)
        if not flipped:
            sys.stdout.flush()
            sys.stderr.write("illegal move %d for %s\n" % (sq, side))
            sys.exit(1)
        for f in flipped + [sq]:
            board[f] = side
        mover = side
        if moves(board, other(side)):
            side = other(side)
        sys.stdout.write(snapshot(board, side, (mover, sq)))


if __name__ == "__main__":
    main(sys.argv[1:])

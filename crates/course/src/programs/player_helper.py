# The helper othello starts to play a student's Python file as the course's graders do: it imports the
# file once, then answers one request a line. It ships inside the othello binary.
#
#   python3 -c HELPER quickmove FILE [HOLES]  calls quickMove(board, token) for each move (Lab 4, 2023),
#                                             with sys.argv = [FILE] at import as the moderator sets it;
#                                             with HOLES, quickMove('', HOLES) once first (the later
#                                             labs' hole limit)
#   python3 -c HELPER strategy FILE           constructs Strategy() once, at import, as the tournament
#                                             server does (a new helper a game), then runs
#                                             best_strategy(board, player, best_move, still_running
#                                             [, time_limit]) in a child process for each move and stops
#                                             it at the time limit; the class's uses_10x10_board and
#                                             uses_10x10_moves flags are honoured as the server does
#
# Requests on stdin: `move BOARD TOKEN SECONDS [cpu]` (BOARD: 64 characters of .xo or .XO; with `cpu`,
# a strategy's SECONDS are its child's CPU time, not wall time), `quit`.
# Answers on the original stdout: `ready`, `move N`, `none` (no move), `illegal TEXT` (not an integer),
# `error MESSAGE`. Whatever the student's code prints goes to stderr, so that it cannot garble them.
import importlib.util
import inspect
import operator
import os
import sys
import traceback

answers = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr

# The server's 10x10 board: the 8x8 board inside a border of '?', and its indices.
MOVES_10X10 = {i + 11 + 2 * (i // 8): i for i in range(64)}


def board_10x10(board):
    return "?" * 11 + "??".join(board[i : i + 8] for i in range(0, 64, 8)) + "?" * 11


def answer(text):
    answers.write(text + "\n")
    answers.flush()


def one_line(error):
    return ("%s: %s" % (type(error).__name__, error)).replace("\n", " ")[:300]


def load(path, argv):
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    sys.argv = argv
    spec = importlib.util.spec_from_file_location("student", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_move(value):
    """`move N` for an integer; `none` for None (or a bool); `illegal ...` for anything else (a string
    such as '19' included: the course's moderator calls that illegal)."""
    if value is None or isinstance(value, bool):
        return "none"
    try:
        return "move %d" % operator.index(value)
    except TypeError:
        return "illegal " + repr(value).replace("\n", " ")[:100]


class QuickMove:
    def __init__(self, module, holes):
        if not callable(getattr(module, "quickMove", None)):
            raise AttributeError("the file defines no function quickMove(board, token)")
        self.module = module
        if holes is not None:
            module.quickMove("", holes)

    def play(self, board, token, seconds, cpu):
        return as_move(self.module.quickMove(board, token))


def run_strategy(strategy, nargs, board, player, best_move, running, time_limit, failed):
    try:
        if nargs >= 5:
            strategy.best_strategy(board, player, best_move, running, time_limit)
        else:
            strategy.best_strategy(board, player, best_move, running)
    except BaseException:
        traceback.print_exc()
        failed.value = 1


def cpu_seconds(pid):
    # utime and stime, fields 14 and 15 of /proc/PID/stat (the first two after the state).
    try:
        with open("/proc/%d/stat" % pid) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def wait(child, seconds, cpu):
    # Until the child ends or has used `seconds`: of wall time, or of its CPU time.
    if not cpu:
        child.join(seconds)
        return
    while child.is_alive():
        used = cpu_seconds(child.pid)
        if used is None or used >= seconds:
            return
        child.join(min(0.005, max(seconds - used, 0.001)))


class Strategy:
    def __init__(self, module):
        import multiprocessing

        if not callable(getattr(module, "Strategy", None)):
            raise AttributeError("the file defines no class Strategy")
        # Everything the moves need is made now, before any clock, as the server does at import.
        self.context = multiprocessing.get_context("fork")
        self.strategy = module.Strategy()
        self.nargs = len(inspect.signature(self.strategy.best_strategy).parameters)
        self.board_10x10 = getattr(self.strategy, "uses_10x10_board", False)
        self.moves_10x10 = getattr(self.strategy, "uses_10x10_moves", False)

    def play(self, board, token, seconds, cpu):
        best_move = self.context.Value("i", -1)
        running = self.context.Value("i", 1)
        failed = self.context.Value("i", 0)
        if self.board_10x10:
            board = board_10x10(board)
        # The server gives the time limit as a whole number of seconds.
        time_limit = max(1, int(round(seconds)))
        child = self.context.Process(
            target=run_strategy,
            args=(self.strategy, self.nargs, board, token, best_move, running, time_limit, failed),
        )
        child.start()
        # still_running drops shortly before the limit, then the process is stopped.
        wait(child, max(seconds * 0.9, seconds - 0.05), cpu)
        running.value = 0
        wait(child, max(seconds * 0.1, 0.0) + 0.001, cpu)
        if child.is_alive():
            child.kill()
        child.join()
        move = best_move.value
        if self.moves_10x10:
            move = MOVES_10X10.get(move, move)
        if move == -1 and failed.value:
            return "error best_strategy raised an exception before it stored a move"
        return "move %d" % move


def main():
    mode, path = sys.argv[1], sys.argv[2]
    holes = int(sys.argv[3]) if len(sys.argv) > 3 else None
    try:
        module = load(path, [path] if mode == "quickmove" else sys.argv[:])
        player = QuickMove(module, holes) if mode == "quickmove" else Strategy(module)
    except BaseException as error:
        traceback.print_exc()
        answer("error " + one_line(error))
        return 1
    answer("ready")
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        board, token, seconds = words[1], words[2], float(words[3])
        cpu = words[4:5] == ["cpu"]
        try:
            answer(player.play(board, token, seconds, cpu))
        except BaseException as error:
            traceback.print_exc()
            answer("error " + one_line(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())

# The helper othello starts to play a student's Python file as the course's graders do: it imports the
# file once, then answers one request a line. It ships inside the othello binary and is written to a
# temporary file when needed.
#
#   python3 player_helper.py quickmove FILE   calls quickMove(board, token) for each move (Lab 4, 2023)
#   python3 player_helper.py strategy FILE    runs Strategy().best_strategy(board, player, best_move,
#                                             still_running[, time_limit]) in a child process, as the
#                                             tournament server does, and stops it at the time limit
#
# Requests on stdin: `move BOARD TOKEN SECONDS [cpu]` (BOARD: 64 characters of .xo; with `cpu`, a
# strategy's SECONDS are its child's CPU time, not wall time), `quit`.
# Answers on the original stdout: `ready`, `move N`, `none` (no integer), `error MESSAGE`. Whatever the
# student's code prints goes to stderr, so that it cannot garble the answers.
import importlib.util
import inspect
import os
import sys
import traceback

answers = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr


def answer(text):
    answers.write(text + "\n")
    answers.flush()


def one_line(error):
    return ("%s: %s" % (type(error).__name__, error)).replace("\n", " ")[:300]


def load(path):
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("student", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_move(value):
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def quick_move(module, board, token, seconds, cpu=False):
    move = as_move(module.quickMove(board, token))
    return "none" if move is None else "move %d" % move


def run_strategy(module, board, player, best_move, running, seconds):
    strategy = module.Strategy()
    parameters = inspect.signature(strategy.best_strategy).parameters
    if len(parameters) >= 5:
        strategy.best_strategy(board, player, best_move, running, seconds)
    else:
        strategy.best_strategy(board, player, best_move, running)


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


def strategy_move(module, board, token, seconds, cpu=False):
    import multiprocessing

    context = multiprocessing.get_context("fork")
    best_move = context.Value("i", -1)
    running = context.Value("i", 1)
    child = context.Process(target=run_strategy, args=(module, board, token, best_move, running, seconds))
    child.start()
    # The server lowers still_running shortly before the limit, then stops the process.
    wait(child, max(seconds * 0.9, seconds - 0.05), cpu)
    running.value = 0
    wait(child, max(seconds * 0.1, 0.0) + 0.001, cpu)
    if child.is_alive():
        child.kill()
        child.join()
    return "move %d" % best_move.value


def main():
    mode, path = sys.argv[1], sys.argv[2]
    try:
        module = load(path)
        if mode == "quickmove" and not callable(getattr(module, "quickMove", None)):
            raise AttributeError("the file defines no function quickMove(board, token)")
        if mode == "strategy" and not callable(getattr(module, "Strategy", None)):
            raise AttributeError("the file defines no class Strategy")
    except BaseException as error:
        traceback.print_exc()
        answer("error " + one_line(error))
        return 1
    play = quick_move if mode == "quickmove" else strategy_move
    answer("ready")
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        board, token, seconds = words[1], words[2], float(words[3])
        cpu = words[4:5] == ["cpu"]
        try:
            answer(play(module, board, token, seconds, cpu))
        except BaseException as error:
            traceback.print_exc()
            answer("error " + one_line(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())

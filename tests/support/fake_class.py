#!/usr/bin/env python3
"""Writes a class of fake students into a folder, to try `othello grade` on (and for its tests).

    python3 tests/support/fake_class.py students/
    othello grade cases/ --class students/ --run 'python3 {}' --judge strict,tolerant,course

Most students carry tests/support/lab_reference.py (the project's independent Python lab) inside their own
file, as a real student's file is whole, and change its output the way real students' programs differ:
some harmlessly, some wrongly. Others hang, crash, print
without end, or keep state in a file of their working folder. One hands in a folder (with __main__.py)
instead of a file. EXPECTED gives each one's verdict under the strict, tolerant and course judges.
"""
import os
import sys

REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lab_reference.py")

WRAPPER = """import contextlib, io, re, sys
REFERENCE = %r
buffer, code = io.StringIO(), 0
with contextlib.redirect_stdout(buffer):
    try:
        exec(compile(REFERENCE, "lab_reference.py", "exec"), {"__name__": "__main__"})
    except SystemExit as stop:
        code = stop.code or 0
text = buffer.getvalue()
%s
sys.stdout.write(text)
sys.exit(code)
"""

# name: (how its output differs from the reference, or a whole program; verdicts strict, tolerant, course)
STUDENTS = {
    "honest": ("", ("pass", "pass", "pass")),
    "counts_own_line": (
        r'text = re.sub(r"(?m)^([xo.]{64})  (\d+/\d+)$", r"\1\n\2", text)',
        ("fail", "pass", "pass"),
    ),
    "spaced_upper": (
        r'text = re.sub(r"(?m)^[xXoO.*]{8}$", lambda m: " ".join(m.group(0).upper()), text)',
        ("fail", "pass", "pass"),
    ),
    "bracketed_moves": (
        r'text = re.sub(r"(?m)^(Possible moves for [xo]): (.*)$", '
        r'lambda m: m.group(1) + ": [" + ",".join(reversed(m.group(2).split(", "))) + "]", text)',
        ("fail", "pass", "pass"),
    ),
    "wrong_flip": (
        # The last board's first o becomes an x.
        "lines = text.split('\\n')\n"
        "rows = [i for i, l in enumerate(lines) if re.fullmatch(r'[xXoO.*]{8}', l)]\n"
        "for i in rows[-8:]:\n"
        "    if 'o' in lines[i]:\n"
        "        lines[i] = lines[i].replace('o', 'x', 1)\n"
        "        break\n"
        "text = '\\n'.join(lines)",
        ("fail", "fail", "fail"),
    ),
    "missing_move": (
        r'text = re.sub(r"(?m)^(Possible moves for [xo]: .*?)(, \d+)$", r"\1", text)',
        ("fail", "fail", "fail"),
    ),
    "wrong_count": (
        r'text = re.sub(r"(?m)^([xo.]{64})  (\d+)/", lambda m: m.group(1) + "  " + str(int(m.group(2)) + 1) + "/", text)',
        ("fail", "fail", "pass"),
    ),
    "no_moves_at_end": (
        r'text = text if text.endswith("\n\n") else text + "No moves possible\n"',
        ("fail", "pass", "pass"),
    ),
    "writes_files": (
        # Counts its runs in a file of its working folder: a folder shared between runs would make it lie.
        "with open('runs.txt', 'a') as f:\n"
        "    f.write('run\\n')\n"
        "if open('runs.txt').read() != 'run\\n':\n"
        "    text = 'another run was here\\n'",
        ("pass", "pass", "pass"),
    ),
}

PROGRAMS = {
    "hangs": ("import time\nprint('thinking...', flush=True)\ntime.sleep(600)\n", ("timeout",) * 3),
    "crashes": (
        "import sys\nprint('........')\n\ndef parse(args):\n    return {}['board']\n\nparse(sys.argv[1:])\n",
        ("crash",) * 3,
    ),
    "floods": ("while True:\n    print('x' * 100)\n", ("fail",) * 3),
}

# A student who hands in a folder: `python3 FOLDER` runs its __main__.py.
FOLDERS = {"writes_files"}

EXPECTED = {name: verdicts for name, (_, verdicts) in {**STUDENTS, **PROGRAMS}.items()}


def main(folder):
    os.makedirs(folder, exist_ok=True)
    with open(REFERENCE) as f:
        reference = f.read()
    programs = {name: WRAPPER % (reference, change) for name, (change, _) in STUDENTS.items()}
    programs.update({name: program for name, (program, _) in PROGRAMS.items()})
    for name, program in sorted(programs.items()):
        if name in FOLDERS:
            os.makedirs(os.path.join(folder, name), exist_ok=True)
            path = os.path.join(folder, name, "__main__.py")
        else:
            path = os.path.join(folder, name + ".py")
        with open(path, "w") as f:
            f.write(program)
    print("wrote %d students to %s" % (len(programs), folder))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: fake_class.py FOLDER\n")
        sys.exit(2)
    main(sys.argv[1])

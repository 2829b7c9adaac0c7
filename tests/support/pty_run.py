"""Runs a command on a pseudo-terminal of ROWS x COLS (its stdin, stdout and stderr) and prints all
it wrote there, escape codes and all: what a terminal of that size would be sent.

    python3 pty_run.py ROWS COLS COMMAND [ARG...]
"""
import fcntl
import os
import struct
import subprocess
import sys
import termios

rows, cols = int(sys.argv[1]), int(sys.argv[2])
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
child = subprocess.Popen(sys.argv[3:], stdin=slave, stdout=slave, stderr=slave)
os.close(slave)
written = bytearray()
while True:
    try:
        data = os.read(master, 65536)
    except OSError:  # EIO: every writer has closed the terminal
        break
    if not data:
        break
    written += data
sys.stdout.buffer.write(written)
sys.exit(child.wait())

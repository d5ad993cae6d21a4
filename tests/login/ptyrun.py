#!/usr/bin/env python3
"""tests/login/ptyrun.py TRANSCRIPT ANSWERS ARGV...: run ARGV on a new pty (its
controlling terminal) and answer each prompt that ends in 'code:' (or Duo's '(1-3):') after a
"second factor" banner with the next of the comma-separated ANSWERS.
Everything the program wrote to the terminal goes to TRANSCRIPT; exits with
the program's status (124 if it ran longer than 120 s)."""
import os, pty, select, sys, time

transcript, answers, argv = sys.argv[1], sys.argv[2].split(','), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
out = b''
asked = 0          # prompts answered so far
pos = 0            # where the last answered prompt ended
deadline = time.time() + 120
status = None
while time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.5)
    if fd in r:
        try:
            d = os.read(fd, 4096)
        except OSError:
            d = b''
        if not d:
            break
        out += d
        tail = out[pos:]
        if b'second factor' in out and tail.rstrip(b' ').endswith((b'code:', b'(1-3):')) and asked < len(answers):
            os.write(fd, answers[asked].encode() + b'\n')
            asked += 1
            pos = len(out)
if time.time() >= deadline:
    os.kill(pid, 9)
    status = 124
_, st = os.waitpid(pid, 0)
with open(transcript, 'wb') as f:
    f.write(out)
sys.exit(status if status is not None else os.waitstatus_to_exitcode(st))

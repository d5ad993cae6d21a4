#!/usr/bin/env python3
"""bench/keylat.py SOCKET TARGET N REGEX OUT [KEYS]: key-to-screen latency
through tmux control mode, with no process started per key.

One `tmux -L SOCKET -C attach` client (the server's one session) for the
whole run.  For each of N presses (KEYS in turn, default "j k") to the pane
TARGET (":0", ":floor"): the pane's line matching REGEX
(the first such line) is read with capture-pane, then the clock starts and
`send-keys` goes to tmux over the client's stdin; every `%output`
notification of the pane that follows is answered with a capture-pane over
the same client, until the line differs (only TARGET's notifications count:
the session's other window may be drawing too).  The press's time ends at the
arrival of the last %output read before that capture's reply: tmux writes a
pane's output notifications in the order it read the bytes, so that one
carried the bytes that changed the line.  This is key -> bytes of the new
frame in tmux; the captures are tmux commands, not processes.

OUT gets one line per press: "ms outputs" (milliseconds, and how many
%output notifications were looked at).  A press whose line did not change
within 5 s is "5000 timeout".  Exit 1 if tmux went away.
"""
import os
import re
import select
import subprocess
import sys
import time


def main():
    sock, target, n, regex, out = sys.argv[1:6]
    keys = (sys.argv[6] if len(sys.argv) > 6 else "j k").split()
    pat = re.compile(regex)
    p = subprocess.Popen(["tmux", "-L", sock, "-C", "attach"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         bufsize=0)
    fd = p.stdout.fileno()
    pend = b""
    lines = []      # (arrival time, line) read and not yet looked at

    def fill(timeout):
        nonlocal pend
        r, _, _ = select.select([fd], [], [], timeout)
        if not r:
            return False
        b = os.read(fd, 1 << 16)
        if not b:
            sys.exit(1)
        t = time.monotonic()
        pend += b
        *whole, pend = pend.split(b"\n")
        lines.extend((t, x) for x in whole)
        return True

    def send(cmd):
        p.stdin.write(cmd.encode() + b"\n")

    def reply(deadline):
        """The next command reply's lines; (reply, last %output time)."""
        body, inside, last = [], False, None
        while True:
            while not lines:
                if not fill(max(0.0, deadline - time.monotonic())):
                    return None, last
            t, x = lines.pop(0)
            if inside:
                if x.startswith(b"%end ") or x.startswith(b"%error "):
                    return body, last
                body.append(x)
            elif x.startswith(b"%begin "):
                inside = True
            elif x.startswith(mine):
                last = t

    def sel(deadline):
        send("capture-pane -p -t " + target)
        body, last = reply(deadline)
        if body is None:
            return None, last
        for x in body:
            s = x.decode("utf-8", "replace")
            if pat.search(s):
                return s, last
        return "", last

    # The attach's own reply, then the notifications it brings.
    mine = b"%output "      # any pane's until the target's id is known
    reply(time.monotonic() + 5)
    # Only the target pane's output counts (the other window's clock).
    send("display-message -p -t %s '#{pane_id}'" % target)
    body, _ = reply(time.monotonic() + 5)
    if body:
        mine = b"%output " + body[0].strip() + b" "
    with open(out, "w") as f:
        for i in range(int(n)):
            time.sleep(0.05)
            before, _ = sel(time.monotonic() + 5)
            # Output from before the key (the clock's frame) is not ours.
            while fill(0):
                pass
            lines[:] = [x for x in lines if not x[1].startswith(mine)]
            t0 = time.monotonic()
            deadline = t0 + 5
            send("send-keys -t %s %s" % (target, keys[i % len(keys)]))
            seen, t1 = 0, None

            def wait_output():
                while True:
                    while not lines:
                        if not fill(max(0.0, deadline - time.monotonic())):
                            return None
                    t, x = lines.pop(0)
                    if x.startswith(mine):
                        return t

            # The send-keys reply comes first; then the pane's output.
            out_t = wait_output()
            while out_t is not None:
                seen += 1
                now, last = sel(deadline)
                if now is None:
                    break
                if now != before:
                    t1 = last if last is not None else out_t
                    break
                # Output read while tmux answered: look again at once.
                out_t = last if last is not None else wait_output()
            if t1 is None:
                f.write("5000 timeout\n")
            else:
                f.write("%.1f %d\n" % ((t1 - t0) * 1e3, seen))
            f.flush()
    p.stdin.close()
    p.wait()


if __name__ == "__main__":
    main()

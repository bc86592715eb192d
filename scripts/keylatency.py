#!/usr/bin/python3
"""keylatency.py: keypress-to-frame latency of a terminal program, measured
from the pseudo-terminal's side, with no screen polling.

Runs COMMAND in a pseudo-terminal of fixed size, feeds everything it writes
into a terminal emulator (pyte: apt-get install python3-pyte), and answers
the terminal queries a real terminal answers (the synchronized-output mode
query, so a Bubble Tea v2 program wraps each frame in ESC[?2026h ...
ESC[?2026l; the background colour; the cursor position). Then:

  1. waits until the screen matches --ready (the first frame), and reports
     the time from process start;
  2. sends --pre keys one at a time, each followed by a wait for
     --pre-ready;
  3. presses KEY (default j) --keys times. For each press it records
     - first: the first output byte after the key was written;
     - frame: the end of the first frame after the key whose screen shows
       the change (row --row differs from before the key; a frame ends at
       ESC[?2026l when the program uses synchronized output, else at the
       read that made the change visible);
     and waits --gap ms between keys, so one key's frame never merges with
     the next.

Prints one line per key with --verbose, then the median, p90 and worst of
both figures in milliseconds. Frames that arrive between keys for other
reasons (a spinner, progress) are counted and ignored: a key's frame is
the first one whose --row changed.

  scripts/keylatency.py --ready '^Store ' --pre 3 --pre-ready '^Entries [0-9a-f]' \\
      --row 1 --keys 50 -- memscope inspect snapshot.db --log log --trust trust.keys
"""

import argparse
import fcntl
import os
import pty
import re
import select
import signal
import statistics
import struct
import sys
import termios
import time

try:
    import pyte
except ImportError:
    sys.exit("keylatency.py needs pyte: apt-get install python3-pyte")

SYNC_END = b"\x1b[?2026l"


class Term:
    def __init__(self, argv, cols, rows, env):
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.cols, self.rows = cols, rows
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.execvpe(argv[0], argv, env)
            except OSError as e:
                os.write(2, ("exec %s: %s\n" % (argv[0], e)).encode())
            os._exit(127)
        self.t0 = time.monotonic()
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.tail = b""  # the end of the last read, to find sequences split across reads
        self.sync = False  # the program asked for synchronized output
        self.frames = 0  # frames completed (ESC[?2026l seen), for reporting
        self.total = 0

    def line(self, n):
        return self.screen.display[n]

    def text(self):
        return "\n".join(self.screen.display)

    def answer(self, data):
        """Answer the queries a terminal answers. Without an answer to the
        mode-2026 query Bubble Tea draws frames without the synchronized
        output markers; without the colour answer it keeps its default."""
        buf = self.tail + data
        if b"\x1b[?2026$p" in buf:
            os.write(self.fd, b"\x1b[?2026;2$y")  # supported, now reset
        if b"\x1b[?2027$p" in buf:
            os.write(self.fd, b"\x1b[?2027;0$y")  # not recognised
        if b"\x1b]11;?" in buf:
            os.write(self.fd, b"\x1b]11;rgb:0000/0000/0000\x1b\\")
        if b"\x1b[6n" in buf:
            y, x = self.screen.cursor.y + 1, self.screen.cursor.x + 1
            os.write(self.fd, b"\x1b[%d;%dR" % (y, x))

    def read(self, timeout):
        """One read of at most 64 KiB. Returns (time, frame_ended) or None
        on timeout; raises EOFError when the program is gone."""
        r, _, _ = select.select([self.fd], [], [], max(timeout, 0))
        if not r:
            return None
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            raise EOFError
        if not data:
            raise EOFError
        t = time.monotonic()
        self.total += len(data)
        self.answer(data)
        buf = self.tail + data
        if b"\x1b[?2026h" in buf:
            self.sync = True
        ended = SYNC_END in buf
        if ended:
            self.frames += buf.count(SYNC_END) - self.tail.count(SYNC_END)
        self.tail = buf[-16:]
        self.stream.feed(data)
        return t, ended

    def wait(self, pred, limit):
        """Read until pred(self) holds; returns the time of the read that
        made it hold."""
        end = time.monotonic() + limit
        if pred(self):
            return time.monotonic()
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("timed out; screen:\n" + self.text())
            got = self.read(left)
            if got and pred(self):
                return got[0]

    def drain(self, secs):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            self.read(end - time.monotonic())

    def close(self):
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def stats(name, xs):
    xs = sorted(xs)
    p90 = xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]
    return "%s: median %.1f ms, p90 %.1f, worst %.1f, best %.1f (%d keys)" % (
        name, statistics.median(xs), p90, xs[-1], xs[0], len(xs))


def main():
    try:
        run()
    except EOFError:
        sys.exit("keylatency.py: the program exited or closed its terminal")
    except TimeoutError as e:
        sys.exit("keylatency.py: %s" % e)


def run():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cols", type=int, default=120)
    ap.add_argument("--rows", type=int, default=40)
    ap.add_argument("--ready", required=True, help="regex a screen line matches once the first frame is drawn")
    ap.add_argument("--pre", default="", help="keys to send before measuring, one at a time")
    ap.add_argument("--pre-ready", default="", help="regex a screen line matches after the --pre keys")
    ap.add_argument("--key", default="j")
    ap.add_argument("--keys", type=int, default=50)
    ap.add_argument("--row", type=int, default=1, help="screen row (0-based) that a key must change")
    ap.add_argument("--settle", type=float, default=0.3, help="seconds to let the program run before the first key")
    ap.add_argument("--gap", type=float, default=60, help="ms to wait after each key's frame")
    ap.add_argument("--timeout", type=float, default=60, help="seconds to wait for any one frame")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")
    env = dict(os.environ)
    env["TERM"] = "xterm-256color"
    env["COLUMNS"], env["LINES"] = str(a.cols), str(a.rows)
    for k in ("TERM_PROGRAM", "SSH_TTY", "TMUX"):
        env.pop(k, None)

    ready = re.compile(a.ready, re.M)
    term = Term(cmd, a.cols, a.rows, env)
    try:
        t = term.wait(lambda s: ready.search(s.text()), a.timeout)
        print("first frame: %.1f ms from process start" % ((t - term.t0) * 1000))
        if a.pre:
            pre_ready = re.compile(a.pre_ready or a.ready, re.M)
            for k in a.pre:
                os.write(term.fd, k.encode())
                term.drain(0.05)
            t = term.wait(lambda s: pre_ready.search(s.text()), a.timeout)
            print("ready to measure: %.1f ms from process start" % ((t - term.t0) * 1000))
        term.drain(a.settle)
        firsts, frames, others = [], [], 0
        for i in range(a.keys):
            before = term.line(a.row)
            f0 = term.frames
            tk = time.monotonic()
            os.write(term.fd, a.key.encode())
            first = None
            end = tk + a.timeout
            while True:
                got = term.read(end - time.monotonic())
                if got is None:
                    raise TimeoutError("key %d: row %d did not change; screen:\n%s" % (i, a.row, term.text()))
                t, ended = got
                if first is None:
                    first = t
                if term.line(a.row) != before and (ended or not term.sync):
                    break
            firsts.append((first - tk) * 1000)
            frames.append((t - tk) * 1000)
            others += max(0, term.frames - f0 - 1)
            if a.verbose:
                print("key %3d: first byte %6.2f ms, frame %6.2f ms  %s" % (i, firsts[-1], frames[-1], term.line(a.row)[:60].rstrip()))
            term.drain(a.gap / 1000)
        print("synchronized output: %s; frames in between that were not the key's: %d" % (term.sync, others))
        print(stats("key -> first output byte", firsts))
        print(stats("key -> end of the frame showing it", frames))
    finally:
        term.close()


if __name__ == "__main__":
    main()

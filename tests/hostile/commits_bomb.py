#!/usr/bin/env python3
"""commits_bomb.py SOLBOOK - a git history that parses into much memory.

`solbook commits import` reads a whole file (up to 256 MiB) or standard
input, then holds a record, parents and ordering arrays per commit: 250
MB of 43-byte root-commit lines once took 1,072 MB of RSS, and standard
input had no bound at all. Each of these must be refused in one line,
keep the peak RSS under 512 MiB, and leave the history stored before
whole: the bomb as a file and on standard input, 300 MB of NUL bytes on
standard input. A history of 200,000 commits is still stored.
"""
import os
import shutil
import sqlite3
import sys
import tempfile

from peak_rss import LIMIT_KB, peak_kb, sanitized

SOLBOOK = sys.argv[1]
# A sanitizer's shadow memory is part of the process's RSS, so the bound
# is the plain build's to check; a sanitizer build checks each refusal.
SANITIZED = sanitized(SOLBOOK)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)



def stored(db):
    con = sqlite3.connect(db)
    n = con.execute("select count(*) from commits").fetchone()[0]
    con.close()
    return n


work = tempfile.mkdtemp(prefix="sb_commits_bomb_")
try:
    db = os.path.join(work, "c.db")
    good = os.path.join(work, "good.txt")
    with open(good, "w") as f:
        prev = None
        for i in range(200000):
            sha = "%040x" % (i * 2654435761 + 1)
            f.write("%s%s %d\n" % (sha, " " + prev if prev else "", 1600000000 + i))
            prev = sha
    rc, out, kb = peak_kb([SOLBOOK, "commits", "import", "--db", db, good])
    if rc != 0 or stored(db) != 200000:
        fail("a history of 200,000 commits: exit %d, %d stored: %s" % (rc, stored(db), out[-300:]))
    bomb = os.path.join(work, "bomb.txt")
    lines = (250 << 20) // 43
    with open(bomb, "w") as f:
        for start in range(0, lines, 1 << 16):
            f.write("".join("%040x 1\n" % n for n in range(start, min(start + (1 << 16), lines))))
    zeros = os.path.join(work, "zeros")
    with open(zeros, "wb") as f:
        f.truncate(300 * 1000 * 1000)
    for label, args, stdin, name in (("the bomb as a file", [bomb], None, bomb),
                                     ("the bomb on standard input", ["-"], bomb, "<stdin>"),
                                     ("300 MB of NUL bytes on standard input", ["-"], zeros, "<stdin>")):
        rc, out, kb = peak_kb([SOLBOOK, "commits", "import", "--db", db] + args, stdin)
        lines = out.strip().splitlines()
        print("%s: exit %d, peak %.1f MiB: %s" % (label, rc, kb / 1024, lines[0][:160] if lines else "(no line)"))
        if not SANITIZED and kb > LIMIT_KB:
            fail("%s: peak RSS %.1f MiB, over 512 MiB" % (label, kb / 1024))
        if rc != 2 or len(lines) != 1 or name not in lines[0] or "more than" not in lines[0]:
            fail("%s: not refused in one line naming it (exit %d): %s" % (label, rc, out[-400:]))
        if stored(db) != 200000:
            fail("%s: the stored history changed (%d commits)" % (label, stored(db)))
finally:
    shutil.rmtree(work, ignore_errors=True)
print("peak RSS bound of 512 MiB: %s" % ("not checked, a sanitizer build" if SANITIZED else "held"))
print("ok")

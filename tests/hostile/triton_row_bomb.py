#!/usr/bin/env python3
"""triton_row_bomb.py SOLBOOK - a Triton perf_report CSV row of 4,095 provider columns.

Each column of a row is a run, and every run of the row has the row's
line as its source row. Looking for an earlier import of the same run
(the format records no time, so the file's modification time stands in)
parsed every run stored before it with that file name and row, those of
the same row included: the square of the columns. Two such rows (an
8 KB file) took over 100 s of CPU each; 100 of them, hours.

Imported again with another modification time, each run parsed the
4,095 runs of its row from the first import: over 300 s.

Here each import must finish within 60 s of CPU (RLIMIT_CPU; each takes
a second or two): the first stores all 8,190 runs, the second (another
modification time) finds every run a duplicate, and a third, with one
cell changed, stores that one run alone.

A file whose rows times provider columns pass 1,000,000 runs (245 rows
of 4,095 columns: 2 MB making 1,003,275 runs) is refused in one line
before a run is made, and stores nothing.
"""
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile

SOLBOOK = sys.argv[1]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def cpu_bound():
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))


def ingest(db, path):
    return subprocess.run([SOLBOOK, "ingest", "--db", db, "--format", "triton-perf-csv", "--y-unit", "ms",
                           "--y-stat", "median", path], capture_output=True, text=True, preexec_fn=cpu_bound)


with tempfile.TemporaryDirectory(prefix="sb-triton-row-") as tmp:
    cols = 4095
    path = os.path.join(tmp, "wide-performance.csv")
    with open(path, "w") as f:
        f.write("N," + ",".join("p%d" % i for i in range(cols)) + "\n")
        for n in (1024, 2048):
            f.write("%d," % n + ",".join(["1.5"] * cols) + "\n")
    db = os.path.join(tmp, "t.db")
    r = ingest(db, path)
    if r.returncode != 0:
        fail("import exited %d (-9 or -24: killed at the CPU bound): %s" % (r.returncode, (r.stdout + r.stderr)[-400:]))
    with sqlite3.connect(db) as c:
        stored = c.execute("SELECT count(*) FROM runs").fetchone()[0]
    if stored != 2 * cols:
        fail("%d runs stored, expected %d" % (stored, 2 * cols))
    os.utime(path, (1767225600, 1767225600))
    r = ingest(db, path)
    if r.returncode != 0 or "0 stored, %d duplicates" % (2 * cols) not in r.stdout:
        fail("imported again: not all duplicates: exit %d: %s" % (r.returncode, (r.stdout + r.stderr)[-300:]))
    with open(path) as f:
        lines = f.readlines()
    lines[1] = lines[1].replace(",1.5,", ",1.6,", 1)
    with open(path, "w") as f:
        f.writelines(lines)
    r = ingest(db, path)
    if r.returncode != 0 or "1 stored, %d duplicates" % (2 * cols - 1) not in r.stdout:
        fail("one cell changed: not one run stored: exit %d: %s" % (r.returncode, (r.stdout + r.stderr)[-300:]))
    big = os.path.join(tmp, "many-performance.csv")
    with open(big, "w") as f:
        f.write("N," + ",".join("p%d" % i for i in range(cols)) + "\n")
        for n in range(245):
            f.write("%d," % (n + 1) + ",".join(["1.5"] * cols) + "\n")
    db2 = os.path.join(tmp, "t2.db")
    r = ingest(db2, big)
    errs = [l for l in r.stderr.splitlines() if "many-performance.csv" in l]
    if r.returncode == 0 or len(errs) != 1 or "245 rows of 4095 provider columns make more than 1000000 runs" not in errs[0]:
        fail("1,003,275 runs from one file: not refused in one line: exit %d: %s" % (r.returncode, r.stderr[-400:]))
    with sqlite3.connect(db2) as c:
        if c.execute("SELECT count(*) FROM runs").fetchone()[0] != 0:
            fail("the refused file stored runs")
    print("ok: two 4,095-column rows: %d runs stored, again all duplicates, one changed cell one run,"
          " each within 60 s of CPU; 1,003,275 runs from one file refused, none stored" % stored)

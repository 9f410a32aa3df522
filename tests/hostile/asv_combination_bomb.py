#!/usr/bin/env python3
"""asv_combination_bomb.py SOLBOOK - asv benchmarks whose params name too many combinations.

An asv benchmark that failed for every combination has a null "result",
and each combination of its params (the product of the lists' lengths)
became a skipped run: a 2 KB file of three 100-value lists stored
1,000,000 runs (2.9 GB of database, 2 minutes); five lists of 1,000
(35 KB) name 10^15 and never end; eight lists of 256 wrap a 64-bit
product to 0. Each must be refused in one line, unparsed into runs,
at little memory and CPU (RLIMIT_CPU 60 s), with nothing stored; a file
of 1,000 combinations is still stored whole.
"""
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile

from peak_rss import LIMIT_KB, peak_kb

SOLBOOK = sys.argv[1]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def asv_file(path, lists):
    """lists: for each benchmark, the lengths of its params lists."""
    results = {}
    for k, lens in enumerate(lists):
        params = [[str(v) for v in range(n)] for n in lens]
        results["b.T.time_%d" % k] = [None, params, "v1", 1730160963546, 0.2]
    json.dump({"commit_hash": "0123abcd" * 5, "env_name": "py", "date": 1729957230000,
               "params": {"machine": "box"}, "requirements": {}, "env_vars": {},
               "result_columns": ["result", "params", "version", "started_at", "duration"],
               "results": results, "durations": {}, "version": 2}, open(path, "w"))


resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
with tempfile.TemporaryDirectory(prefix="sb-asv-combos-") as tmp:
    box = os.path.join(tmp, "results", "box")
    os.makedirs(box)
    db = os.path.join(tmp, "a.db")
    cases = [("1e6+1", [[1000, 1000], [1]]), ("1e15", [[1000] * 5]), ("2^64", [[256] * 8]),
             ("2^64+2", [[256] * 8, [2]]), ("many", [[300, 300]] * 12)]
    for name, lists in cases:
        path = os.path.join(box, "%s-py.json" % name)
        asv_file(path, lists)
        code, out, kb = peak_kb([SOLBOOK, "ingest", "--db", db, "--format", "asv-json", path])
        if code != 1 or "combinations (runs)" not in out or ": refused" not in out:
            fail("%s: not refused in one line: exit %d: %s" % (name, code, out[-400:]))
        if kb > LIMIT_KB:
            fail("%s: peak RSS %d KB" % (name, kb))
        with sqlite3.connect(db) as c:
            if c.execute("SELECT count(*) FROM runs").fetchone()[0] != 0:
                fail("%s: runs stored from a refused file" % name)
    path = os.path.join(box, "fine-py.json")
    asv_file(path, [[10, 10], [10, 10], [100, 3], [200]])
    code, out, kb = peak_kb([SOLBOOK, "ingest", "--db", db, "--format", "asv-json", path])
    with sqlite3.connect(db) as c:
        n = c.execute("SELECT count(*) FROM runs WHERE status = 'skipped'").fetchone()[0]
    if code != 0 or n != 700:
        fail("a file of 700 combinations: exit %d, %d skipped runs: %s" % (code, n, out[-300:]))
    print("ok: %d files past 1,000,000 combinations refused, nothing stored; 700 combinations stored" % len(cases))

#!/usr/bin/env python3
"""import_bombs.py SOLBOOK - small import files that parse into much memory.

`solbook ingest --format` reads a whole file (up to 256 MiB) and parses
it before converting. Bytes do not bound what a parse takes: jansson's
tree of "{}," repeated is about 78 times the text, and a CSV of empty
records ("," lines) about 28 times, kept as records. Generated here: a
9 MiB JSON text of empty objects given to each JSON importer, and a
20 MiB CSV of empty records given to both CSV importers, and 576,204
Google Benchmark entries whose last is bad. Each must be
refused in one line naming the file, store nothing, and keep the peak
RSS of the process under 512 MiB (before the bounds: 733 MB and 600 MB).
"""
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from peak_rss import LIMIT_KB, peak_kb, sanitized

SOLBOOK = sys.argv[1]
# A sanitizer's shadow memory and quarantine are part of the process's
# RSS, so the memory bound is the plain build's to check (parse_bombs.py);
# a sanitizer build checks every refusal alone.
SANITIZED = sanitized(SOLBOOK)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)



work = tempfile.mkdtemp(prefix="sb_import_bombs_")
try:
    objs = os.path.join(work, "objs.json")
    with open(objs, "w") as f:
        f.write('{"context": {}, "benchmarks": [' + ",".join(["{}"] * (3 << 20)) + "]}")
    rows = os.path.join(work, "rows.csv")
    with open(rows, "w") as f:
        f.write("kernel_name,kernel_provider,kernel_operation_mode,metric_name,y_value_50\n")
        f.write(",\n" * (10 << 20))
    cases = [(objs, fmt) for fmt in ("auto", "gbench-json", "nvbench-json", "pytest-benchmark-json",
                                     "hyperfine-json", "asv-json", "torch-benchmark-json")]
    cases += [(rows, "liger-csv"), (rows, "triton-perf-csv")]
    # What a converter holds per entry counts beside the parsed tree: 576,204
    # small Google Benchmark entries parse within the bound, and a table of
    # 512-byte names for them took 775 MiB before the last entry refused
    # the file.
    entries = os.path.join(work, "entries.json")
    with open(entries, "w") as f:
        f.write('{"context": {"date": "2024-01-01T00:00:00+00:00"}, "benchmarks": [')
        f.write(",".join('{"name":"B/%d","real_time":1}' % i for i in range(576204)))
        f.write(',{"name":"B/x","real_time":-1}]}')
    cases += [(entries, "gbench-json")]
    for path, fmt in cases:
        db = os.path.join(work, "b.db")
        if os.path.exists(db):
            os.unlink(db)
        cmd = [SOLBOOK, "ingest", "--db", db, "--format", fmt]
        if fmt == "triton-perf-csv":
            cmd += ["--y-unit", "ms", "--y-stat", "median"]
        rc, out, kb = peak_kb(cmd + [path])
        lines = [l for l in out.splitlines() if l.startswith("solbook:")]
        print("%s as %s: exit %d, peak %.1f MiB: %s" % (os.path.basename(path), fmt, rc, kb / 1024,
                                                        lines[0][:140] if lines else "(no line)"))
        if not SANITIZED and kb > LIMIT_KB:
            fail("%s as %s: peak RSS %.1f MiB, over 512 MiB" % (path, fmt, kb / 1024))
        if rc != 1 or len(lines) != 1 or not lines[0].startswith("solbook: " + path + ": "):
            fail("%s as %s: not refused in one line naming the file (exit %d): %s" % (path, fmt, rc, out[-400:]))
        if "refused" not in lines[0] and path != entries:  # a bad entry is named, not "refused"
            fail("%s as %s: the line does not say it is refused: %s" % (path, fmt, lines[0]))
        con = sqlite3.connect(db)
        n = con.execute("select count(*) from runs").fetchone()[0]
        con.close()
        if n:
            fail("%s as %s: %d runs stored" % (path, fmt, n))
finally:
    shutil.rmtree(work, ignore_errors=True)
print("peak RSS bound of 512 MiB: %s" % ("not checked, a sanitizer build" if SANITIZED else "held"))
print("ok")

#!/usr/bin/env python3
"""check_ingest_many.py SOLBOOK DATA_DIR - an archive of many small results
(tests/data/schemas/result.valid.gemm.json, 30,000 copies of it with their
own run_uuid and M, as one .jsonl.gz of about 600 KB) ingested in one call:

1. every run is stored and has a stored plausibility verdict, and the
   implausible count ingest prints is the count in the table;
2. ingest's peak memory (its maximum resident set) stays under 120 MiB,
   SQLite's 64 MiB page cache included: the verdicts are judged a window
   of run ids at a time, where reading every run stored at once took
   memory in proportion to their number (144 MiB for these 30,000 runs,
   577 MiB for 200,000). A sanitized build (third argument "sanitized")
   prints its peak without holding it to the bound;
3. the runs a later ingest adds, past a gap of forgotten ids, are judged
   too."""
import gzip
import json
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile

solbook, data = sys.argv[1:3]
sanitized = sys.argv[3:4] == ["sanitized"]
N = 30000
work = tempfile.mkdtemp()
db = os.path.join(work, "many.db")


def fail(msg):
    sys.exit("FAIL: " + msg)


base = json.load(open(os.path.join(data, "schemas", "result.valid.gemm.json")))


def archive(path, first, n):
    with gzip.open(path, "wt", compresslevel=6) as f:
        for i in range(first, first + n):
            base["run_uuid"] = "%032x" % (0x7000000 + i)
            base["config"]["shape"]["M"] = 1 + i
            f.write(json.dumps(base) + "\n")


def ingest(path, to=db):
    """ingest's output, and the highest peak of the children so far (KiB)."""
    p = subprocess.run([solbook, "ingest", "--db", to, path], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"ingest exited {p.returncode}: {p.stderr[-500:]}")
    return p.stdout, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def table():
    c = sqlite3.connect(db)
    runs = c.execute("SELECT count(*) FROM runs WHERE schema = 'solbook.result.v1'").fetchone()[0]
    judged = c.execute("SELECT count(*) FROM run_verdicts").fetchone()[0]
    bad = c.execute("SELECT count(*) FROM run_verdicts WHERE verdict = 'implausible'").fetchone()[0]
    c.close()
    return runs, judged, bad


try:
    a = os.path.join(work, "many.jsonl.gz")
    archive(a, 0, N)
    out, peak = ingest(a)
    runs, judged, bad = table()
    if runs != N or judged != N:
        fail(f"{runs} runs stored, {judged} verdicts, {N} expected of each")
    m = re.search(r"plausibility: (\d+) new runs judged, (\d+) implausible", out)
    if not m or int(m.group(1)) != N or int(m.group(2)) != bad:
        fail(f"the count line says {m.group(0) if m else 'nothing'}, the table {N} judged and {bad} implausible")
    if out.count("\nimplausible: ") + out.startswith("implausible: ") != bad:
        fail("not every implausible run is named once")
    mib = peak / 1024
    if mib >= 120 and not sanitized:
        fail(f"peak memory {mib:.0f} MiB for {N} runs, 120 MiB allowed")
    print(f"ok: {N} runs from a {os.path.getsize(a) // 1024} KB archive stored and judged in one ingest, "
          f"{bad} implausible named and counted; peak memory {mib:.0f} MiB"
          + (" (sanitized build: not held to the bound)" if sanitized else " (bound 120 MiB)"))

    # Forget a span of ids, then add runs past it: judged as well.
    c = sqlite3.connect(db)
    last = c.execute("SELECT max(id) FROM runs").fetchone()[0]
    c.close()
    p = subprocess.run([solbook, "forget", "--db", db, *[str(i) for i in range(last - 4999, last + 1)]],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"forget exited {p.returncode}: {p.stderr[-300:]}")
    b = os.path.join(work, "more.jsonl.gz")
    archive(b, N, 5000)
    out, _ = ingest(b)
    runs, judged, bad = table()
    if runs != N or judged != N:
        fail(f"after forgetting 5,000 and adding 5,000: {runs} runs, {judged} verdicts, {N} expected")
    print(f"ok: 5,000 runs forgotten and 5,000 added past their ids: every one of the {N} has its verdict")
finally:
    shutil.rmtree(work)

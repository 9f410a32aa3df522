#!/usr/bin/env python3
"""archive_floods.py SOLBOOK - archives whose members or lines are refused
one after another (issue 47): 400 KB of `{}` lines inflate to millions,
each a refusal and a line of output. Ingest stops reading such an archive
at its 1,000th refusal with one line saying so, drops what it had read of
it ahead, stores nothing after it from that archive, and goes on with the
other files given. Checked for a .jsonl.gz, a .tar.gz of bad members and
a short archive that stays under the bound (every refusal said)."""
import gzip
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time

SOLBOOK = sys.argv[1]
TOP = os.environ.get("SOLBOOK_HOME", os.path.join(os.path.dirname(__file__), "..", ".."))
BOUND = 1000


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def result(uuid):
    d = json.load(open(os.path.join(TOP, "examples/h100/rmsnorm-fwd-ncu/fused.json")))
    d["run_uuid"] = "%032x" % uuid
    return json.dumps(d, separators=(",", ":"))


def ingest(work, name, *paths):
    db = os.path.join(work, name + ".db")
    t0 = time.time()
    p = subprocess.run([SOLBOOK, "ingest", "--db", db] + list(paths), capture_output=True, text=True,
                       timeout=600)
    took = time.time() - t0
    runs = sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0]
    return p, runs, took


def check_flood(work, name, archive, loose, stop_word):
    p, runs, took = ingest(work, name, archive, loose)
    lines = p.stderr.splitlines()
    refusals = [l for l in lines if "solbook: " + archive + ":" in l]
    stop = [l for l in refusals if "members or lines refused: the rest of it is not read" in l]
    print("%s: exit %d, %d stderr lines, %d runs stored, %.1f s" % (name, p.returncode, len(lines), runs, took))
    if p.returncode != 1:
        fail("%s: exit %d, expected 1 (files refused)" % (name, p.returncode))
    if len(stop) != 1 or "%d of its members or lines refused" % BOUND not in stop[0]:
        fail("%s: no single stop line naming the archive: %s" % (name, stop[:2]))
    if len(refusals) != BOUND + 1:
        fail("%s: %d lines about the archive, expected %d refusals and the stop" % (name, len(refusals), BOUND))
    if stop_word not in refusals[0]:
        fail("%s: the first refusal does not name its %s: %s" % (name, stop_word, refusals[0]))
    # the loose result beside it is stored; the good document at the
    # archive's end (after the stop) is not
    if runs != 1:
        fail("%s: %d runs stored, expected only the loose one" % (name, runs))
    summary = [l for l in p.stdout.splitlines() if l.startswith("ingest:")]
    if not summary or "1 stored" not in summary[0]:
        fail("%s: summary %s" % (name, summary))


work = tempfile.mkdtemp(prefix="sb_archive_floods_")
try:
    loose_dir = os.path.join(work, "loose")
    os.mkdir(loose_dir)
    loose = os.path.join(loose_dir, "good.json")
    open(loose, "w").write(result(0x4710))

    # a JSON Lines flood: 2 million `{}` lines (about 10 KB gzipped), then
    # a good document
    jl = os.path.join(work, "flood.jsonl.gz")
    with gzip.open(jl, "wb", compresslevel=9) as g:
        g.write(b"{}\n" * 2000000)
        g.write(result(0x4711).encode() + b"\n")
    print("flood.jsonl.gz: %d bytes" % os.path.getsize(jl))
    check_flood(work, "jsonl", jl, loose, ":1:")

    # a tar of 3,000 members that are no result, then a good one
    tg = os.path.join(work, "flood.tar.gz")
    with tarfile.open(tg, "w:gz") as t:
        for i in range(3000):
            ti = tarfile.TarInfo("m/%05d.json" % i)
            ti.size = 2
            t.addfile(ti, io.BytesIO(b"{}"))
        data = result(0x4712).encode()
        ti = tarfile.TarInfo("m/zz-good.json")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    check_flood(work, "tar", tg, loose, "m/00000.json")

    # under the bound every refusal is said and the good line is stored
    few = os.path.join(work, "few.jsonl.gz")
    with gzip.open(few, "wb") as g:
        g.write(b"{}\n" * (BOUND - 1))
        g.write(result(0x4713).encode() + b"\n")
    p, runs, took = ingest(work, "few", few)
    refusals = [l for l in p.stderr.splitlines() if "solbook: " + few + ":" in l]
    print("few: exit %d, %d refusals, %d runs" % (p.returncode, len(refusals), runs))
    if len(refusals) != BOUND - 1 or runs != 1 or any("not read" in l for l in refusals):
        fail("few: %d refusals and %d runs, expected %d and 1, no stop" % (len(refusals), runs, BOUND - 1))
    print("checked: floods of refused members and lines stop at %d with one line; the rest is unread" % BOUND)
finally:
    shutil.rmtree(work, ignore_errors=True)

#!/usr/bin/env python3
"""archive_sidecar_total.py - the sidecars of one ingest together hold at
most --max-sidecar-rows-total values, an archive's among them: three
documents of one archive, each with an Nsight Compute sidecar of 400
values, at a bound of 1000 store the first two (800 values) and refuse
the third with its document, in one line naming the sidecar and the
option; at the default bound all three are stored. An archive of many
small compressible sidecars (a 220 KB .tar.gz of them stored a 1 GB
database while only each sidecar was bounded) stays at the bound.

usage: archive_sidecar_total.py SOLBOOK TOP"""
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import uuid

COLS = 400


def sidecar():
    head = '"ID","Kernel Name",' + ",".join('"m__v%d"' % i for i in range(COLS))
    units = '"","",' + ",".join('""' for _ in range(COLS))
    row = '"0","k",' + ",".join("1" for _ in range(COLS))
    return ("%s\n%s\n%s\n" % (head, units, row)).encode()


def pack(path, base, name, n):
    """A .tar.gz of n copies of the result base (NAME.json), each with a
    sidecar() beside it (NAME.ncu.csv)."""
    with tarfile.open(path, "w:gz") as t:
        for i in range(n):
            doc = dict(base, run_uuid=uuid.uuid4().hex)
            for suffix, data in ((".json", json.dumps(doc).encode()), (".ncu.csv", sidecar())):
                ti = tarfile.TarInfo(name % i + suffix)
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))


def counts(db):
    c = sqlite3.connect(db)
    return (c.execute("SELECT count(*) FROM runs").fetchone()[0],
            c.execute("SELECT count(*) FROM profiler_metrics").fetchone()[0])


def main():
    solbook, top = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="sb_archive_sidecars_")
    try:
        base = json.load(open(os.path.join(top, "examples/h100/rmsnorm-fwd-ncu/fused.json")))
        archive = os.path.join(tmp, "profiles.tar.gz")
        pack(archive, base, "r%d", 3)
        db = os.path.join(tmp, "bound.db")
        p = subprocess.run([solbook, "ingest", "--db", db, "--max-sidecar-rows-total", "1000", archive],
                           capture_output=True, text=True)
        lines = [l for l in p.stderr.splitlines() if l.startswith("solbook: ")]
        want = ("solbook: %s:r2.ncu.csv: Nsight Compute sidecar: this ingest's sidecars would store more than "
                "1000 rows (--max-sidecar-rows-total 1000): refused with its document" % archive)
        if p.returncode != 1 or lines != [want]:
            sys.exit("FAIL: exit %d, lines %r; want 1 and %r" % (p.returncode, lines, want))
        got = counts(db)
        if got != (2, 800):
            sys.exit("FAIL: %d runs and %d values stored, want 2 and 800" % got)
        print("ok: at --max-sidecar-rows-total 1000 two documents and 800 values stored, the third refused in one line")
        db = os.path.join(tmp, "default.db")
        p = subprocess.run([solbook, "ingest", "--db", db, archive], capture_output=True, text=True)
        if p.returncode != 0 or counts(db) != (3, 1200):
            sys.exit("FAIL: at the default bound: exit %d, %r stored: %s" % (p.returncode, counts(db), p.stderr))
        print("ok: at the default bound all three documents and 1200 values stored")
        # the bomb: twenty sidecars of 2,600 values each at a bound of
        # 10,000: the database holds at most the bound
        global COLS
        COLS = 2600
        bomb = os.path.join(tmp, "bomb.tar.gz")
        pack(bomb, base, "b%02d", 20)
        db = os.path.join(tmp, "bomb.db")
        subprocess.run([solbook, "ingest", "--db", db, "--max-sidecar-rows-total", "10000", bomb], capture_output=True)
        runs, values = counts(db)
        if values > 10000 or runs != 3:
            sys.exit("FAIL: the bomb stored %d runs and %d values, want 3 and at most 10000" % (runs, values))
        print("ok: an archive of twenty sidecars stored %d values of %d, the bound" % (values, 20 * 2600))
    finally:
        shutil.rmtree(tmp)


main()

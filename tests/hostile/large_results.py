#!/usr/bin/env python3
"""large_results.py SOLBOOK - many valid results near the document bound.

The threaded ingest reads at most 8 MiB of document text ahead of the
storer, and the storer waits for batches of 8 prepared documents. With
results of about 1 MiB, fewer than 8 fit ahead: a storer waiting for a
batch the reader could not fill, and a reader waiting for the storer,
once slept for ever (in about half of the ingests of 40 such files on
two CPUs). Generated here: 40 copies of a real result padded to 1,048,000
bytes, then 30 padded to 1,500,000 with --max-doc-mb 2 (5 fit ahead),
each set ingested from a folder 10 times and from a .tar.gz 3 times.
Every ingest must end within its time limit, exit 0 and store them all.
"""
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

SOLBOOK = sys.argv[1]
HOME = os.environ.get("SOLBOOK_HOME", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BASE = os.path.join(HOME, "examples", "h100", "rmsnorm-fwd-ncu", "fused.json")
LIMIT_S = 60


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def documents(n, size):
    with open(BASE) as f:
        base = json.load(f)
    for i in range(n):
        d = dict(base)
        d["run_uuid"] = uuid.uuid4().hex
        text = json.dumps(d)
        yield "r%03d.json" % i, (text + " " * (size - len(text))).encode()


def ingest(what, args, n, db):
    if os.path.exists(db):
        os.remove(db)
    try:
        p = subprocess.run([SOLBOOK, "ingest", "--db", db] + args, capture_output=True, text=True,
                           timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        fail("%s: ingest did not end within %d s (it stores %d results in about a second)" % (what, LIMIT_S, n))
    stored = sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0]
    if p.returncode != 0 or stored != n:
        fail("%s: exit %d, %d of %d stored: %s" % (what, p.returncode, stored, n, p.stderr.strip()[:300]))


work = tempfile.mkdtemp(prefix="sb_large_")
try:
    db = os.path.join(work, "l.db")
    for n, size, extra in ((40, 1048000, []), (30, 1500000, ["--max-doc-mb", "2"])):
        folder = os.path.join(work, "d%d" % size)
        os.makedirs(folder)
        archive = os.path.join(work, "d%d.tar.gz" % size)
        with tarfile.open(archive, "w:gz", compresslevel=1) as t:
            for name, data in documents(n, size):
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(data)
                info = tarfile.TarInfo("r/" + name)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        for k in range(10):
            ingest("%d results of %d bytes, folder, ingest %d" % (n, size, k + 1), extra + [folder], n, db)
        for k in range(3):
            ingest("%d results of %d bytes, .tar.gz, ingest %d" % (n, size, k + 1), extra + [archive], n, db)
        print("ok: %d results of %d bytes: 10 ingests of the folder and 3 of a .tar.gz, each ended and stored "
              "all %d" % (n, size, n))
finally:
    shutil.rmtree(work, ignore_errors=True)

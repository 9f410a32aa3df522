#!/usr/bin/env python3
"""archive_passed_over.py - members of a tar archive that look like data but
are not read from there (a CSV that is no sidecar, JSON Lines, an archive
inside the archive), and members named as results that are no regular file
(a symbolic link, to another member or outside, a hard link, a FIFO) are
each named in one line on stderr, escaped, with what to do instead or why;
no link is followed; the archive's result documents are stored as usual, the exit
status stays 0 and the summary counts only the documents. A log or text
member is passed over without a word.

usage: archive_passed_over.py SOLBOOK TOP"""
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile

SOLBOOK, TOP = sys.argv[1], sys.argv[2]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


work = tempfile.mkdtemp(prefix="sb_passed_over_")
try:
    base = json.load(open(os.path.join(TOP, "examples/h100/rmsnorm-fwd-ncu/fused.json")))
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w:gz") as t:
        data = json.dumps(dict(base, run_uuid="%032x" % 0x47b01)).encode()
        ti = tarfile.TarInfo("nested.json")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    members = [
        ("r/run.json", json.dumps(dict(base, run_uuid="%032x" % 0x47b02)).encode()),
        ("r/card\x1b[31m.csv", b"a,b\n1,2\n"),
        ("r/more.jsonl", b"{}\n"),
        ("r/more.jsonl.gz", b""),
        ("r/old.tar.gz", inner.getvalue()),
        ("r/log.txt", b"a log\n"),
    ]
    links = [
        ("r/same.json", tarfile.SYMTYPE, "run.json"),
        ("r/passwd.json", tarfile.SYMTYPE, "/etc/passwd"),
        ("r/hard.json", tarfile.LNKTYPE, "r/run.json"),
        ("r/pipe.json", tarfile.FIFOTYPE, ""),
    ]
    archive = os.path.join(work, "a.tar.gz")
    with tarfile.open(archive, "w:gz") as t:
        for name, data in members:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
        for name, kind, target in links:
            ti = tarfile.TarInfo(name)
            ti.type = kind
            ti.linkname = target
            t.addfile(ti)
    db = os.path.join(work, "x.db")
    p = subprocess.run([SOLBOOK, "ingest", "--db", db, archive], capture_output=True)
    out, err = p.stdout.decode(), p.stderr.decode()
    if p.returncode != 0:
        fail("ingest exited %d: %s" % (p.returncode, err))
    lines = [l for l in err.splitlines() if "passed over" in l]
    want = {
        "r/card\\e[31m.csv": "a CSV member is not read from an archive",
        "r/more.jsonl": "a JSON Lines member is not read from an archive",
        "r/more.jsonl.gz": "a JSON Lines member is not read from an archive",
        "r/old.tar.gz": "an archive inside an archive is not read",
        "r/same.json": "a symbolic link inside an archive is not followed",
        "r/passwd.json": "a symbolic link inside an archive is not followed",
        "r/hard.json": "a hard link inside an archive is not followed",
        "r/pipe.json": "not a regular file",
    }
    for member, why in want.items():
        hits = [l for l in lines if archive in l and (member + ":") in l and why in l]
        if len(hits) != 1:
            fail("not one line for %s (%s):\n%s" % (member, why, err))
    if len(lines) != len(want):
        fail("%d passed-over lines, want %d:\n%s" % (len(lines), len(want), err))
    if "\x1b" in err or "log.txt" in err or "root:" in out + err:
        fail("a raw escape or the log member in stderr:\n%r" % err)
    if "1 files, 1 stored" not in out + err:
        fail("the summary does not count the one document:\n%s%s" % (out, err))
    con = sqlite3.connect(db)
    n = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    con.close()
    if n != 1:
        fail("%d runs stored, want 1" % n)
    print("ok: %d members passed over, each named in one line; 1 run stored, exit 0" % len(want))
finally:
    shutil.rmtree(work, ignore_errors=True)

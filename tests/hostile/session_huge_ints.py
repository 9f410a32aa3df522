#!/usr/bin/env python3
"""session_huge_ints.py SOLBOOK SESSION.tar.gz - a session whose protocol.iters is 1e308.

The schema takes an integral number of any size as an integer, so a
result with "iters": 1e308 (or session.rounds 1e308) is stored; jansson
holds it as a real. The packet's reproduce script needs integers for
session.py's --iters and --rounds. One such session stopped every
findings packet (exit 2) and the site's packets. Generated here: a copy
of a real session with iters 1e308 beside the real session; the liger
packet must be written (exit 0), its reproduce.sh must name that session
in a comment and measure the real one again, and pass `bash -n`.
"""
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

SOLBOOK, SESSION = sys.argv[1], sys.argv[2]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


work = tempfile.mkdtemp(prefix="sb_session_huge_ints_")
try:
    bad = os.path.join(work, "huge.tar.gz")
    with tarfile.open(SESSION) as src, tarfile.open(bad, "w:gz") as dst:
        for m in src.getmembers():
            doc = json.load(src.extractfile(m))
            doc["session"]["id"] = "f" * 32
            doc.pop("run_uuid", None)
            text = json.dumps(doc).replace('"iters": %d' % doc["protocol"]["iters"], '"iters": 1e308')
            if '"iters": 1e308' not in text:
                fail("no protocol.iters to change in " + m.name)
            body = text.encode()
            info = tarfile.TarInfo(m.name)
            info.size = len(body)
            dst.addfile(info, io.BytesIO(body))
    db = os.path.join(work, "s.db")
    for path in (SESSION, bad):
        p = subprocess.run([SOLBOOK, "ingest", "--db", db, "--quiet", path], capture_output=True, text=True)
        if p.returncode != 0:
            fail("ingest %s: exit %d: %s" % (path, p.returncode, p.stderr[-400:]))
    out = os.path.join(work, "packet")
    p = subprocess.run([SOLBOOK, "packet", "--target", "liger", "--db", db, "--out", out],
                       capture_output=True, text=True)
    print("packet --target liger: exit %d: %s" % (p.returncode, p.stderr.strip()[-200:]))
    if p.returncode != 0:
        fail("the packet is not written (exit %d): %s" % (p.returncode, p.stderr[-400:]))
    with open(os.path.join(out, "reproduce.sh")) as f:
        script = f.read()
    if "# session ffffffff is not measured again" not in script:
        fail("reproduce.sh does not name the session with iters 1e308 in a comment")
    if "--out sessions/ffffffff" in script or "1e308" in script:
        fail("reproduce.sh measures the session with iters 1e308")
    if script.count("python3 bench/scripts/session.py --out sessions/") == 0:
        fail("reproduce.sh measures no session again")
    if subprocess.run(["bash", "-n", os.path.join(out, "reproduce.sh")]).returncode != 0:
        fail("reproduce.sh is not valid bash")
finally:
    shutil.rmtree(work, ignore_errors=True)
print("ok")

#!/usr/bin/env python3
"""outside_links.py SOLBOOK - links that lead out of the folder ingested.

A folder's results are read from inside it only. Generated here: a folder
with a result linked from outside it, a linked folder outside it, a
result whose .ncu.csv sidecar is a link to a CSV outside, and a link to a
result of the folder itself; and a second folder whose result's sidecar
is a hard link to that outside CSV (a name inside the folder for a file
outside it). `solbook ingest DIR` and `ingest --fleet
DIR` must store no byte of the outside files, say so in one line per
link, and still store what the folder holds itself.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import uuid

SOLBOOK = sys.argv[1]
HOME = os.environ.get("SOLBOOK_HOME", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXAMPLE = os.path.join(HOME, "examples", "h100", "rmsnorm-fwd-ncu")
MARK = "OUTSIDE-" + uuid.uuid4().hex


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def result(path, note):
    with open(os.path.join(EXAMPLE, "fused.json")) as f:
        d = json.load(f)
    d["run_uuid"] = uuid.uuid4().hex
    d["notes"] = note
    with open(path, "w") as f:
        json.dump(d, f)


work = tempfile.mkdtemp(prefix="sb_links_")
try:
    outside, tree = os.path.join(work, "outside"), os.path.join(work, "tree")
    os.makedirs(os.path.join(outside, "more"))
    os.makedirs(tree)
    result(os.path.join(outside, "secret.json"), MARK)
    result(os.path.join(outside, "more", "other.json"), MARK)
    with open(os.path.join(EXAMPLE, "fused.ncu.csv")) as f:
        csv = f.read()
    with open(os.path.join(outside, "secret.ncu.csv"), "w") as f:
        f.write(csv.replace("rmsnorm", "rmsnorm" + MARK, 1))
    result(os.path.join(tree, "own.json"), "inside")
    result(os.path.join(tree, "profiled.json"), "inside, with a linked sidecar")
    os.symlink("../outside/secret.ncu.csv", os.path.join(tree, "profiled.ncu.csv"))
    os.symlink("../outside/secret.json", os.path.join(tree, "link.json"))
    os.symlink("../outside/more", os.path.join(tree, "sub"))
    os.symlink("own.json", os.path.join(tree, "again.json"))
    for mode in ([], ["--fleet"]):
        db = os.path.join(work, "l%d.db" % len(mode))
        p = subprocess.run([SOLBOOK, "ingest", "--db", db] + mode + [tree], capture_output=True, text=True)
        c = sqlite3.connect(db)
        stored = c.execute("SELECT count(*) FROM runs").fetchone()[0]
        leaked = c.execute("SELECT count(*) FROM runs WHERE raw_json LIKE ?", ("%" + MARK + "%",)).fetchone()[0]
        leaked += c.execute("SELECT count(*) FROM ncu_metrics WHERE value LIKE ? OR kernel LIKE ?",
                            ("%" + MARK + "%", "%" + MARK + "%")).fetchone()[0] \
            if c.execute("SELECT count(*) FROM sqlite_master WHERE name='ncu_metrics'").fetchone()[0] else 0
        blob = open(db, "rb").read()
        what = "ingest %s" % " ".join(mode + ["DIR"])
        if leaked or MARK.encode() in blob:
            fail("%s: bytes of a file outside the folder are in the database" % what)
        # the folder walk takes own.json once (again.json is the same
        # file); --fleet takes no link at all and holds own.json and
        # profiled.json, one case twice, as duplicates: nothing is stored
        want = 0 if mode else 1
        if stored != want:
            fail("%s: %d runs stored, not %d: %s" % (what, stored, want, (p.stdout + p.stderr).strip()))
        err = p.stdout + p.stderr
        if ("profiled.ncu.csv: symbolic link: not followed" if mode else
                "profiled.ncu.csv: sidecar is a symbolic link: refused") not in err:
            fail("%s: the linked sidecar is not refused in one line: %r" % (what, err))
        if not mode and ("link.json: symbolic link out of the folder given: not followed" not in err or
                         "sub: symbolic link out of the folder given: not followed" not in err):
            fail("%s: the links out of the folder are not named: %r" % (what, err))
        if mode and "link.json: symbolic link: not followed" not in err:
            fail("%s: the linked result is not named: %r" % (what, err))
        print("ok: %s: %d run(s) stored, no byte of the outside files, each link refused in one line"
              % (what, stored))
    # A hard link is a name inside the folder for bytes outside it: the
    # sidecar refuses its document (nsys too), whatever --fleet says.
    hard = os.path.join(work, "hard")
    os.makedirs(hard)
    result(os.path.join(hard, "profiled.json"), "inside, with a hard-linked sidecar")
    os.link(os.path.join(outside, "secret.ncu.csv"), os.path.join(hard, "profiled.ncu.csv"))
    result(os.path.join(hard, "summary.json"), "inside, with a hard-linked nsys summary")
    with open(os.path.join(hard, "summary.json")) as f:
        d = json.load(f)
    d["config"]["shape"]["M"] = 8192  # another case: --fleet would hold the two as duplicates
    with open(os.path.join(hard, "summary.json"), "w") as f:
        json.dump(d, f)
    with open(os.path.join(outside, "kern_sum.csv"), "w") as f:
        f.write(open(os.path.join(HOME, "tests", "data", "ingest", "nsys", "kern_sum.csv")).read()
                .replace("solbook_rmsnorm_fwd_kernel", "solbook_rmsnorm_fwd_kernel" + MARK, 1))
    os.link(os.path.join(outside, "kern_sum.csv"), os.path.join(hard, "summary.nsys.csv"))
    for mode in ([], ["--fleet"]):
        db = os.path.join(work, "h%d.db" % len(mode))
        p = subprocess.run([SOLBOOK, "ingest", "--db", db] + mode + [hard], capture_output=True, text=True)
        what = "ingest %s of hard-linked sidecars" % " ".join(mode + ["DIR"])
        c = sqlite3.connect(db)
        stored = c.execute("SELECT count(*) FROM runs").fetchone()[0]
        profiles = c.execute("SELECT count(*) FROM profiler_metrics").fetchone()[0]
        kernels = c.execute("SELECT count(*) FROM kernel_summaries").fetchone()[0]
        c.close()
        if MARK.encode() in open(db, "rb").read() or stored or profiles or kernels:
            fail("%s: %d runs, %d metric values, %d kernels stored: %r" % (what, stored, profiles, kernels,
                                                                        (p.stdout + p.stderr).strip()))
        want = ["solbook: %s/%s: sidecar is a hard link (2 names): refused (read only as a file of its own "
                "beside its document)" % (hard, name) for name in ("profiled.ncu.csv", "summary.nsys.csv")]
        lines = p.stderr.splitlines()
        if p.returncode != 1 or [l for l in lines if "hard link" in l] != want:
            fail("%s: exit %d, not the two lines %r: %r" % (what, p.returncode, want, lines))
        print("ok: %s: both documents refused, each in one line naming its sidecar; nothing stored, no "
              "byte of the outside files" % what)
finally:
    shutil.rmtree(work, ignore_errors=True)

#!/usr/bin/env python3
"""ingest_races.py SOLBOOK [ROUNDS] - names swapped while a folder is ingested.

`solbook ingest DIR` lists the folder first and reads its files after; a
folder others write can change between the two. Generated here: a folder
of results, each with an Nsight Compute sidecar, a sub-folder of results
and a tar archive of results, and outside it a result, a sidecar and an
archive that carry a mark. While the ingest runs, other threads swap the
folder's names, again and again, for a symbolic link to the outside file
(results, sidecars, the archive, the sub-folder), for a hard link to it
(sidecars) and for a FIFO (results, sidecars), each time putting the
folder's own file back.

Each round, by `solbook ingest DIR` and by `ingest --fleet DIR` in turn,
must end (a FIFO read waits for a writer that never comes), store no byte
of an outside file (the mark is looked for in every table), and leave the
database whole. Whether a swap lands between the listing
and the read is chance: before the reads were checked on the descriptor
opened, 9 of 10 single rounds stored the mark or hung (and 5 of 5 without
the FIFOs stored the mark); `ingest --fleet`, which read its gathered
files by name after the gathering, stored an outside result in 2 of 4
tries of such swaps, and stopped with exit 2 when a name it had listed
was gone.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import uuid

SOLBOOK = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 4
HOME = os.environ.get("SOLBOOK_HOME", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXAMPLE = os.path.join(HOME, "examples", "h100", "rmsnorm-fwd-ncu")
MARK = "OUTSIDE" + uuid.uuid4().hex
N = 150  # results with a sidecar in the folder


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


with open(os.path.join(EXAMPLE, "fused.json")) as f:
    BASE = json.load(f)
with open(os.path.join(EXAMPLE, "fused.ncu.csv")) as f:
    CSV = f.read()


def result(path, note, m=None):
    d = json.loads(json.dumps(BASE))
    d["run_uuid"] = uuid.uuid4().hex
    d["notes"] = note
    if m is not None:  # a case of its own (ingest --fleet takes one result a case)
        d["config"]["shape"]["M"] = m
    with open(path, "w") as f:
        json.dump(d, f)


def build(work):
    outside, tree = os.path.join(work, "outside"), os.path.join(work, "tree")
    keep = os.path.join(work, "keep")
    for d in (outside, os.path.join(outside, "sub"), tree, os.path.join(tree, "sub"), keep, os.path.join(work, "tmp")):
        os.makedirs(d)
    result(os.path.join(outside, "secret.json"), MARK)
    for i in range(20):
        result(os.path.join(outside, "sub", "s%02d.json" % i), MARK)
    with open(os.path.join(outside, "secret.ncu.csv"), "w") as f:
        f.write(CSV.replace("rmsnorm", MARK).replace("RMSNorm", MARK))
    with tarfile.open(os.path.join(outside, "secret.tar"), "w") as t:
        t.add(os.path.join(outside, "secret.json"), arcname="x/secret.json")
    for i in range(N):
        result(os.path.join(tree, "r%03d.json" % i), "own", 100000 + i)
        with open(os.path.join(tree, "r%03d.ncu.csv" % i), "w") as f:
            f.write(CSV)
    for i in range(20):
        result(os.path.join(tree, "sub", "s%02d.json" % i), "own", 200000 + i)
    for i in range(3):
        result(os.path.join(keep, "a%d.json" % i), "own", 300000 + i)
    with tarfile.open(os.path.join(tree, "a.tar"), "w") as t:
        for i in range(3):
            t.add(os.path.join(keep, "a%d.json" % i), arcname="a/a%d.json" % i)
    for name in sorted(os.listdir(tree)):
        p = os.path.join(tree, name)
        if os.path.isfile(p):
            shutil.copyfile(p, os.path.join(keep, name))
    return outside, tree, keep


def swapper(tree, outside, keep, names, kind, tag, stop):
    """Swaps each name for kind (link, hard, fifo) and back until stop."""
    k = 0
    while not stop.is_set():
        for name in names:
            p, tmp = os.path.join(tree, name), os.path.join(tree, "..", "tmp", "t-%s-%d" % (tag, k))
            k += 1
            target = os.path.join(outside, "secret" + name[name.index("."):]) if "." in name else outside + "/sub"
            try:
                if kind == "link":
                    os.symlink(target, tmp)
                elif kind == "hard":
                    os.link(target, tmp)
                else:
                    os.mkfifo(tmp)
                os.rename(tmp, p)
                time.sleep(0.0005)
                back = tmp + ".own"
                shutil.copyfile(os.path.join(keep, name), back)
                os.rename(back, p)
            except OSError:
                pass


def dir_swapper(tree, outside, stop):
    sub, real = os.path.join(tree, "sub"), os.path.join(tree, "..", "tmp", "sub-real")
    while not stop.is_set():
        try:
            os.rename(sub, real)
            os.symlink(os.path.join(outside, "sub"), sub)
            time.sleep(0.001)
            os.unlink(sub)
            os.rename(real, sub)
        except OSError:
            pass


def one_round(work, r, fleet):
    outside, tree, keep = build(os.path.join(work, "r%d" % r))
    db = os.path.join(work, "r%d.db" % r)
    docs = ["r%03d.json" % i for i in range(N)]
    sides = ["r%03d.ncu.csv" % i for i in range(N)]
    stop = threading.Event()
    threads = [threading.Thread(target=swapper, args=(tree, outside, keep, docs[0::3], "link", "1", stop)),
               threading.Thread(target=swapper, args=(tree, outside, keep, docs[1::3], "fifo", "2", stop)),
               threading.Thread(target=swapper, args=(tree, outside, keep, sides[0::3] + ["a.tar"], "link", "3", stop)),
               threading.Thread(target=swapper, args=(tree, outside, keep, sides[1::3], "hard", "4", stop)),
               threading.Thread(target=swapper, args=(tree, outside, keep, sides[2::3], "fifo", "5", stop)),
               threading.Thread(target=dir_swapper, args=(tree, outside, stop))]
    for t in threads:
        t.start()
    time.sleep(0.05)
    try:
        p = subprocess.run([SOLBOOK, "ingest", "--db", db] + (["--fleet"] if fleet else []) + [tree],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        stop.set()
        fail("round %d: the ingest did not end in 60 s (a swapped-in FIFO waited for a writer)" % r)
    finally:
        stop.set()
        for t in threads:
            t.join()
    if p.returncode not in (0, 1):
        fail("round %d: exit %d: %s" % (r, p.returncode, p.stderr[-500:]))
    for line in p.stderr.splitlines():
        if line.startswith("solbook:") and "\n" in line:
            fail("round %d: a refusal over two lines" % r)
    con = sqlite3.connect(db)
    if con.execute("pragma integrity_check").fetchone()[0] != "ok":
        fail("round %d: database not whole" % r)
    dump = "\n".join(con.iterdump())
    runs = con.execute("select count(*) from runs").fetchone()[0]
    con.close()
    if MARK in dump:
        fail("round %d: an outside file's bytes are in the database" % r)
    if runs < 10:
        fail("round %d: only %d runs stored of the folder's own" % (r, runs))
    return runs, sum(1 for line in p.stderr.splitlines() if line.startswith("solbook:"))


work = tempfile.mkdtemp(prefix="sb_races_")
try:
    for r in range(2 * ROUNDS):
        fleet = r % 2 == 1
        runs, refused = one_round(work, r, fleet)
        print("round %d%s: %d runs stored, %d lines of refusal, no outside byte" %
              (r, " (--fleet)" if fleet else "", runs, refused))
finally:
    shutil.rmtree(work, ignore_errors=True)
print("ok")

#!/usr/bin/env python3
"""csv_cells.py - the CSV a spreadsheet opens or a terminal shows holds
no formula and no terminal escape from data: a result whose Nsight
Compute sidecar names its kernel =HYPERLINK(...) with an escape sequence
(the site's run CSV), and measuring-session runs whose card uuid is such
text (`solbook report geomean --format csv` on standard output). Each
such cell starts with an apostrophe and shows the escape as text.

usage: csv_cells.py SOLBOOK TOP"""
import csv
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

HOSTILE = '=HYPERLINK("http://evil.example","click")\x1b]8;;http://evil.example\x07\x1b[2J'
WANT = "'" + HOSTILE.replace("\x1b", "\\e").replace("\x07", "\\x07")


def run(*args):
    p = subprocess.run(args, capture_output=True)
    if p.returncode != 0:
        sys.exit("FAIL: %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr.decode(errors="replace")))
    return p.stdout


def check_cells(where, text, column):
    if b"\x1b" in text or b"\x07" in text:
        sys.exit("FAIL: %s holds a raw terminal escape" % where)
    rows = list(csv.DictReader(io.StringIO(text.decode())))
    cells = [r[column] for r in rows if "HYPERLINK" in r[column]]
    if not cells or any(c != WANT for c in cells):
        sys.exit("FAIL: %s: %s cells %r, want %r" % (where, column, cells[:2], WANT))
    for r in rows:
        for v in r.values():
            if v and v[0] in "=+-@":
                sys.exit("FAIL: %s: a cell starts a formula: %r" % (where, v))
    return len(cells)


def main():
    solbook, top = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="sb_csv_cells_")
    try:
        # the site's run CSV of a profile
        res = os.path.join(tmp, "res")
        os.mkdir(res)
        src = os.path.join(top, "examples/h100/rmsnorm-fwd-ncu")
        shutil.copy(os.path.join(src, "fused.json"), os.path.join(res, "r.json"))
        rows = list(csv.reader(open(os.path.join(src, "fused.ncu.csv"), newline="")))
        k = rows[0].index("Kernel Name")
        for r in rows[2:]:
            r[k] = HOSTILE
        with open(os.path.join(res, "r.ncu.csv"), "w", newline="") as f:
            csv.writer(f, quoting=csv.QUOTE_ALL).writerows(rows)
        db = os.path.join(tmp, "a.db")
        run(solbook, "ingest", "--db", db, res)
        run(solbook, "site", "--db", db, "--out", os.path.join(tmp, "site"))
        text = gzip.open(os.path.join(tmp, "site", "runs", "0-ncu.csv.gz")).read()
        n = check_cells("the site's runs/0-ncu.csv.gz", text, "kernel_name")
        print("ok: %d kernel_name cells of the run CSV are text, no escape" % n)
        # the geomean CSV of measuring sessions, on standard output
        sess = os.path.join(tmp, "sess")
        with tarfile.open(os.path.join(top, "examples/h100/sessions/2026-12-06-perkernel-1-b8e7e832.tar.gz")) as t:
            t.extractall(sess, filter="data")
        for name in os.listdir(sess):
            p = os.path.join(sess, name)
            doc = json.load(open(p))
            doc["provenance"]["device"]["uuid"] = HOSTILE
            json.dump(doc, open(p, "w"))
        db = os.path.join(tmp, "b.db")
        run(solbook, "ingest", "--db", db, sess)
        text = run(solbook, "report", "geomean", "--db", db, "--format", "csv")
        n = check_cells("report geomean --format csv", text, "gpu_uuid")
        print("ok: %d gpu_uuid cells of the geomean CSV are text, no escape" % n)
    finally:
        shutil.rmtree(tmp)


main()

#!/usr/bin/env python3
"""session_runs.py SOLBOOK - one odd run of a measuring session stops no report.

A real session (the LayerNorm case of examples/h100/sessions' aa-1: every
provider twice a round) is stored twice: once whole, once with one run
changed as an attacker would, keeping the document schema-valid. Then
`packet --target liger`, `report weekly` of the session's week and `site`
run. Checked: none exits 2 or finds a figure resting on a run it does not
cite, and the packet cites the whole session and not the changed run.

The changes:
- stats.median 0, -0 or 5e-324 (subnormal) while the samples' rounds are
  ordinary: a median that is not its samples' is refused at ingest in one
  line naming it, and the rest of the session is stored and reported;
- provenance.device.sku another card's SKU (h200-sxm-141gb, h100-pcie-80gb)
  on the session's GPU UUID: a pair's figure is stated on one SKU, so the
  run pairs with none of its session.
- provenance.device.uuid empty, or with a multi-byte character across the
  packet's 12-byte GPU label; driver_version empty; compute_capability
  "unknown" (no CUDA architecture): the packet's lists of cards, drivers
  and architectures once looped forever on an empty item and refused a
  label cut inside a character.
"""
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile

SOLBOOK = sys.argv[1]
HOME = os.environ["SOLBOOK_HOME"]
ARCHIVE = glob.glob(os.path.join(HOME, "examples", "h100", "sessions", "2026-12-06-aa-1-*.tar.gz"))[0]
CASE = "layernorm-bf16-fwd-16384x4096-"
WEEK = "2026-W49"  # the session's runs started on 2026-12-06


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def session_docs():
    docs = {}
    with tarfile.open(ARCHIVE) as t:
        for m in t.getmembers():
            name = os.path.basename(m.name)
            if name.startswith(CASE) and name.endswith(".json") and m.isfile():
                docs[name] = json.load(t.extractfile(m))
    if len(docs) < 4 or not any(n.endswith("-fused-aa0.json") for n in docs):
        fail("%s holds no LayerNorm session with fused copy 0" % ARCHIVE)
    return docs


def set_median(v):
    def fn(d):
        d["timing"]["stats"]["median"] = v
    return fn


def set_sku(v):
    def fn(d):
        d["provenance"]["device"]["sku"] = v
    return fn


def set_device(key, v, where="device", every=False):
    def fn(d):
        d["provenance"][where][key] = v
    fn.every = every  # a GPU's UUID is the same in every run of its session
    return fn


# The third item: the SKU no figure may be stated on; None where the run
# must be refused at ingest, "" where it is cited as any other.
CASES = [
    ("stats.median 0", set_median(0.0), None),
    ("stats.median -0", set_median(-0.0), None),
    ("stats.median 5e-324", set_median(5e-324), None),
    ("device.sku h200-sxm-141gb", set_sku("h200-sxm-141gb"), "h200-sxm-141gb"),
    ("device.sku h100-pcie-80gb", set_sku("h100-pcie-80gb"), "h100-pcie-80gb"),
    ("device.uuid empty", set_device("uuid", "", every=True), ""),
    ("device.uuid cut in a character", set_device("uuid", "GPU-abcdefg\u00e9\u202e", every=True), ""),
    ("driver_version empty", set_device("driver_version", "", "software"), ""),
    ("compute_capability unknown", set_device("compute_capability", "unknown"), ""),
]


def run(args, what):
    try:
        p = subprocess.run([SOLBOOK] + args, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        fail("%s: %s ran past 60 s" % (what, " ".join(args[:2])))
    if p.returncode == 2 or "does not cite" in p.stderr:
        fail("%s: %s exited %d: %s" % (what, " ".join(args[:2]), p.returncode, p.stderr.strip()[:400]))
    return p


def one_case(work, docs, label, fn, sku, k):
    src = os.path.join(work, "in%d" % k)
    os.makedirs(src)
    bad_uuid = None
    for copy in (0, 1):
        sid = "%032x" % (0x5e5510 + 2 * k + copy)
        for i, (name, doc) in enumerate(sorted(docs.items())):
            d = json.loads(json.dumps(doc))
            d["session"]["id"] = sid
            d["run_uuid"] = "%032x" % (0xa11000 + 100 * (2 * k + copy) + i)
            if copy == 1 and name.endswith("-fused-aa0.json"):
                fn(d)
                bad_uuid = d["run_uuid"]
            elif copy == 1 and getattr(fn, "every", False):
                fn(d)
            with open(os.path.join(src, "%d-%s" % (copy, name)), "w") as f:
                json.dump(d, f)
    db = os.path.join(work, "s%d.db" % k)
    p = subprocess.run([SOLBOOK, "ingest", "--db", db, src], capture_output=True, text=True)
    refused = sku is None
    if refused:
        lines = p.stderr.strip().splitlines()
        if p.returncode != 1 or len(lines) != 1 or "/timing/stats/median: " not in lines[0] \
                or "is not the median of its" not in lines[0]:
            fail("%s: ingest exited %d, expected 1 with one line refusing the median: %s"
                 % (label, p.returncode, p.stderr.strip()[:400]))
    elif p.returncode != 0:
        fail("%s: ingest exited %d: %s" % (label, p.returncode, p.stderr.strip()[:400]))
    con = sqlite3.connect(db)
    row = con.execute("SELECT id FROM runs WHERE run_uuid = ?", (bad_uuid,)).fetchone()
    stored = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    con.close()
    if refused:
        if row:
            fail("%s: the refused run is stored" % label)
        if stored != 2 * len(docs) - 1:
            fail("%s: %d runs stored, expected every other run of the two sessions (%d)"
                 % (label, stored, 2 * len(docs) - 1))
        what = "%s (refused)" % label
        run(["packet", "--target", "liger", "--db", db, "--out", os.path.join(work, "packet%d" % k)], what)
        run(["report", "weekly", "--week", WEEK, "--db", db, "--out", os.path.join(work, "wk%d" % k)], what)
        run(["site", "--db", db, "--out", os.path.join(work, "site%d" % k)], what)
        return
    if not row:
        fail("%s: the changed run is not stored" % label)
    bad_id = row[0]
    what = "%s (run %d)" % (label, bad_id)
    pk = os.path.join(work, "packet%d" % k)
    p = run(["packet", "--target", "liger", "--db", db, "--out", pk], what)
    if p.returncode != 0:
        fail("%s: packet exited %d: %s" % (what, p.returncode, p.stderr.strip()[:400]))
    with tarfile.open(os.path.join(pk, "data.tar.gz")) as t:
        cited = [os.path.basename(m.name) for m in t.getmembers() if m.name.startswith("data/results/")]
    # a packet cites every run of a session it draws on (its A/A copies
    # set thresholds), so a run of another SKU may be cited, but no figure
    # may be stated on its SKU; a run left out for its time is not cited
    if sku is None and "run-%d.json" % bad_id in cited:
        fail("%s: the packet cites the changed run" % what)
    with open(os.path.join(pk, "DISCUSSION.md")) as f:
        stated = [line for line in f if sku and sku in line and ("x (" in line or line.startswith("### "))]
    if stated:
        fail("%s: the packet states a figure on %s: %s" % (what, sku, stated[0].strip()[:200]))
    if len(cited) < len(docs):
        fail("%s: the packet cites %d runs, fewer than the whole session's %d" % (what, len(cited), len(docs)))
    run(["report", "weekly", "--week", WEEK, "--db", db, "--out", os.path.join(work, "wk%d" % k)], what)
    run(["site", "--db", db, "--out", os.path.join(work, "site%d" % k)], what)


def main():
    docs = session_docs()
    work = tempfile.mkdtemp(prefix="sb_session_runs_")
    try:
        for k, (label, fn, sku) in enumerate(CASES):
            one_case(work, docs, label, fn, sku, k)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok: %d changed session runs; packet, weekly and site build, no figure rests on them" % len(CASES))


main()

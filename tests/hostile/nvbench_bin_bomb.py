#!/usr/bin/env python3
"""nvbench_bin_bomb.py SOLBOOK - an nvbench sample file that declares 100 million values.

An nvbench JSON names its per-sample files (FILE-bin/N.bin) with the
number of values each holds. A 400 MB file of zeros costs no disk when
sparse; read whole, converted and stored it took 5 GB. Generated here: a
state recording 100,000,000 cold samples and clocks with sparse files of
that length. The import must stay under 512 MiB of RSS, store the run
from its summaries only, and its notes must say the file was not read.
A state with a sample file of 1,000 values still has its samples read.
"""
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

from peak_rss import LIMIT_KB, peak_kb, sanitized

SOLBOOK = sys.argv[1]
SANITIZED = sanitized(SOLBOOK)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def nvbench_doc(name, count):
    def item(n, t, v):
        return {"name": n, "type": t, "value": v}

    def summ(tag, data):
        return {"tag": tag, "name": tag, "data": data}

    state = {
        "name": "Device=0 Elements=2^20",
        "device": 0,
        "type_config_index": 0,
        "axis_values": [{"name": "Elements", "type": "int64", "value": "1048576"}],
        "is_skipped": False,
        "summaries": [
            summ("nv/cold/sample_size", [item("value", "int64", str(count))]),
            summ("nv/cold/time/gpu/mean", [item("value", "float64", "1e-05")]),
            summ("nv/json/bin:nv/cold/sample_times",
                 [item("filename", "string", name + "-bin/0.bin"), item("size", "int64", str(count))]),
            summ("nv/json/freqs-bin:nv/cold/sample_freqs",
                 [item("filename", "string", name + "-freqs-bin/0.bin"), item("size", "int64", str(count))]),
        ],
    }
    return {
        "meta": {"version": {"json": {"string": "1.0.0"}, "nvbench": {"string": "0.1.0"}}},
        "devices": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "sm_version": 900}],
        "benchmarks": [{"name": "copy", "index": 0, "axes": [{"name": "Elements", "type": "int64"}],
                        "states": [state]}],
    }


def write_case(work, name, count, sparse):
    with open(os.path.join(work, name), "w") as f:
        json.dump(nvbench_doc(name, count), f)
    for sub, value in (("-bin", 1e-5), ("-freqs-bin", 1.98e9)):
        os.makedirs(os.path.join(work, name + sub))
        with open(os.path.join(work, name + sub, "0.bin"), "wb") as f:
            if sparse:
                f.truncate(4 * count)
            else:
                f.write(struct.pack("<f", value) * count)


work = tempfile.mkdtemp(prefix="sb_nvbench_bin_bomb_")
try:
    write_case(work, "bomb.json", 100_000_000, True)
    write_case(work, "small.json", 1000, False)
    db = os.path.join(work, "b.db")
    rc, out, kb = peak_kb([SOLBOOK, "ingest", "--db", db, "--format", "nvbench-json",
                           os.path.join(work, "bomb.json"), os.path.join(work, "small.json")])
    print("bomb.json (100,000,000 values declared): exit %d, peak %.1f MiB" % (rc, kb / 1024))
    if rc != 0:
        fail("exit %d: %s" % (rc, out[-600:]))
    if not SANITIZED and kb > LIMIT_KB:
        fail("peak RSS %.1f MiB, over 512 MiB" % (kb / 1024))
    con = sqlite3.connect(db)
    n = con.execute("select count(*) from runs").fetchone()[0]
    con.close()
    if n != 2:
        fail("%d runs stored, not 2" % n)
    shown = {}
    for run in ("1", "2"):
        shown[run] = subprocess.run([SOLBOOK, "show", "--db", db, run], capture_output=True, text=True).stdout
    bomb = [t for t in shown.values() if "bomb.json-bin" in t or "100000000" in t]
    small = [t for t in shown.values() if "small.json-bin/0.bin" in t]
    if len(bomb) != 1 or "recorded with 100000000 values, more than the 1000000 read" not in bomb[0]:
        fail("the bomb's run does not say its sample file was not read: %s" % shown)
    if "summaries only" not in bomb[0]:
        fail("the bomb's run is not summary-only: %s" % bomb[0][:800])
    if len(small) != 1 or "1000 samples from small.json-bin/0.bin" not in small[0]:
        fail("the small state's samples were not read: %s" % shown)
finally:
    shutil.rmtree(work, ignore_errors=True)
print("peak RSS bound of 512 MiB: %s" % ("not checked, a sanitizer build" if SANITIZED else "held"))
print("ok")

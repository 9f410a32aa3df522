#!/usr/bin/env python3
"""check_plausible.py SOLBOOK DATA_DIR - real H100/H200 runs
(tests/data/report/plausible/, copied from examples/) against their cards'
newest calibrations, recomputed with Python alone: every passing run faster
than 2% over its card's measured copy ceiling (its read ceiling for an op
that only reads, where the calibration has one) must be explained by
`solbook report plausibility` (listed implausible with a reason, or
cache-resident), a GEMM above the calibration's GEMM probe but under the
datasheet must not be flagged,
and no headline figure (`solbook report geomean`) may use a run above every
measured ceiling of its card unless it is cache-resident. Speedups above
10x must be listed with both times."""
import csv
import glob
import json
import os
import subprocess
import sys
import tempfile

solbook, data = sys.argv[1:3]
home = os.environ["SOLBOOK_HOME"]
work = tempfile.mkdtemp()
db = os.path.join(work, "pl.db")
subprocess.run([solbook, "ingest", "--db", db, data], check=True, stdout=subprocess.DEVNULL)


def fail(msg):
    sys.exit("FAIL: " + msg)


def run(*args):
    return subprocess.run([solbook, *args, "--db", db], check=True, capture_output=True,
                          text=True).stdout


l2 = {r["sku"]: float(r["l2_bytes"]) for r in csv.DictReader(open(os.path.join(home, "data/cache_sizes.csv")))}
# An op whose model reads at least four bytes a byte written is held to the
# read ceiling where its card's newest calibration has one (docs/REPORTS.md).
read_ops = set()
for m in csv.DictReader(open(os.path.join(home, "data/op_models.csv"))):
    if m["read"] and not m["write"]:
        read_ops.add((m["op"], m["mode"]))
ceil, when, runs, tensor = {}, {}, [], []
for path in sorted(glob.glob(os.path.join(data, "*", "*.json"))):
    d = json.load(open(path))
    sku = d["provenance"]["device"]["sku"]
    if d["schema"] == "solbook.calibration.v1":
        at = d["provenance"]["finished_at"]
        if sku in when and when[sku] > at:
            continue  # the SKU's newest calibration counts
        bw = d["bandwidth"]
        ceil[sku] = {k: bw[k]["gbps"] for k in ("copy", "add", "triad", "read") if k in bw}
        when[sku] = at
        continue
    if d["config"]["op"] == "gemm":
        tensor.append(d)
        continue
    if d["status"] != "passed" or not d["correctness"]["passed"]:
        continue
    t = d["timing"]
    ms = t["kernel"]["stats"]["median"] if t.get("kernel") else t["stats"]["median"]
    c = d["config"]
    shape = ",".join(f"{k}={c['shape'][k]}" for k in sorted(c["shape"]))
    runs.append({"key": (c["op"], c["mode"], c["dtype"], shape, c["provider"], sku),
                 "gbps": d["metrics"]["bytes"] / (ms / 1e3) / 1e9, "bytes": d["metrics"]["bytes"],
                 "ms": ms, "path": os.path.basename(path)})

listing = run("report", "plausibility")
flagged = {}
for line in listing.splitlines():
    cells = [x.strip().replace("\\", "") for x in line.strip("|").split("|")]
    if cells and cells[0] in ("implausible", "cache-resident"):
        flagged[tuple(cells[1:7])] = (cells[0], cells[-1])

explained = 0
above = []
held_to_read = 0
for r in runs:
    c = ceil[r["key"][5]]
    copy = c["copy"]
    if r["key"][:2] in read_ops and "read" in c:
        copy = c["read"]
        held_to_read += 1
    if r["gbps"] <= 1.02 * copy:
        continue
    above.append(r)
    if r["key"] not in flagged:
        fail(f"{r['path']}: {r['gbps']:.0f} GB/s is {100 * r['gbps'] / copy:.1f}% of the copy "
             f"ceiling {copy:.0f} and the plausibility report does not explain it")
    state, reason = flagged[r["key"]]
    if state == "implausible" and "GB/s" not in reason:
        fail(f"{r['path']}: implausible without a reason: {reason!r}")
    explained += 1
if not above:
    fail("the fixture holds no run above its copy ceiling: nothing was checked")
if not held_to_read:
    fail("no run of a read-only op on a card with a read ceiling: the read rule was not checked")
# a GEMM above the calibration's GEMM probe but under the datasheet peak is
# not implausible: the probe is two square shapes, not the card's limit
for d in tensor:
    sku = d["provenance"]["device"]["sku"]
    c = d["config"]
    key = (c["op"], c["mode"], c["dtype"], ",".join(f"{k}={c['shape'][k]}" for k in sorted(c["shape"])),
           c["provider"], sku)
    if key in flagged and flagged[key][0] == "implausible":
        fail(f"{key}: {d['metrics']['tflops']:.0f} TFLOP/s flagged implausible: {flagged[key][1]}")
if not any(s == "implausible" for s, _ in flagged.values()):
    fail("no run is flagged implausible")

geo = json.loads(run("report", "geomean", "--format", "json"))
by_key = {(r["op"], r["mode"], r["dtype"], r["sku"], r["provider"], r["baseline"]): r for r in geo["rows"]}
headline_checked = 0
for r in runs:
    op, mode, dtype, shape, provider, sku = r["key"]
    top = max(ceil[sku].values())
    for (o, m, dt, s, p, b), row in by_key.items():
        if (o, m, dt, s) != (op, mode, dtype, sku) or provider not in (p, b):
            continue
        headline_checked += 1
        too_fast = r["gbps"] > 1.02 * top and r["bytes"] > l2.get(sku, 0)
        if too_fast and row["shapes"]:
            fail(f"{r['path']}: {r['gbps']:.0f} GB/s, above every ceiling of {sku}, enters the "
                 f"geomean of {p} over {b} ({row['shapes']} shapes)")
        if too_fast and not row["implausible"]:
            fail(f"geomean row {p} over {b} of {op} {mode} {dtype} on {sku} does not count "
                 f"the implausible case")
if not headline_checked:
    fail("no geomean row holds a fixture case")

# speedups above 10x: each pair listed with both times
big = 0
for a in runs:
    for b in runs:
        if a["key"][:4] + a["key"][5:] != b["key"][:4] + b["key"][5:] or b["key"][4] != "huggingface":
            continue
        if a["key"][4] == "huggingface" or b["ms"] / a["ms"] <= 10:
            continue
        big += 1
        rows = [l for l in listing.splitlines() if "x |" in l and a["key"][4] in l
                and a["key"][3] in l and a["key"][5] in l]
        if not rows:
            fail(f"{a['path']}: {b['ms'] / a['ms']:.1f}x over huggingface is not listed")
        if not any(f"{a['ms']:.4g}" in l and f"{b['ms']:.4g}" in l for l in rows):
            fail(f"{a['path']}: the speedup row lacks both times ({a['ms']:.4g}, {b['ms']:.4g} ms)")

print(f"ok: {len(runs)} passing runs ({held_to_read} held to a read ceiling), {len(tensor)} GEMM runs "
      f"above the measured GEMM probe left plausible; {len(above)} above 102% of their ceiling, each explained "
      f"({', '.join(sorted(set(flagged[r['key']][0] for r in above)))}); {headline_checked} geomean "
      f"rows checked; {big} speedups above 10x listed with both times")

#!/usr/bin/env python3
"""check_note_crossarch.py SOLBOOK DATA_DIR SKUS_CSV - recomputes every figure
of `solbook report note`, of the weekly's cross-arch table and the GEMM
targets of `solbook report evidence` from the result
files of a fixture (real H100/H200 runs in tests/data/report/cards/), with
Python alone (json, csv), and compares them with what solbook wrote after
ingesting the same files. Also checks that each cross-arch row pairs the
same case on both cards and that the note keeps to ten lines."""
import csv
import glob
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

solbook, data, skus_csv = sys.argv[1:4]
work = tempfile.mkdtemp()
db = os.path.join(work, "fx.db")
subprocess.run([solbook, "ingest", "--db", db, data], check=True, stdout=subprocess.DEVNULL)


def fail(msg):
    sys.exit("FAIL: " + msg)


def load(path):
    return json.load(open(path))


peaks = {r["sku"]: float(r["fp16_tflops"]) for r in csv.DictReader(open(skus_csv))}
cards = sorted(os.listdir(data))  # h100, h200: arch order

# ---- the note --------------------------------------------------------------
note = subprocess.run([solbook, "report", "note", "--db", db], check=True,
                      capture_output=True, text=True).stdout
lines = note.rstrip("\n").split("\n")
if len(lines) > 10:
    fail("the note has %d lines" % len(lines))
checked = 0
for arch in cards:
    d = os.path.join(data, arch)
    cub = load(os.path.join(d, "gemm-fp16-fwd-4096x4096x4096-nn-cublas.json"))
    torch = load(os.path.join(d, "gemm-fp16-fwd-4096x4096x4096-nn-torch.json"))
    name = cub["provenance"]["device"]["name"]
    peak = peaks[cub["provenance"]["device"]["sku"]]
    first = [l for l in lines if l.startswith("- %s (" % name)]
    second = [l for l in lines if l.startswith("- %s: " % name)]
    if len(first) != 1 or len(second) != 1:
        fail("no pair of lines for %s in:\n%s" % (name, note))
    want = ["cuBLAS %.1f TFLOP/s" % cub["metrics"]["tflops"],
            "%.1f%% of the %.1f TFLOP/s fp16 datasheet peak" % (100 * cub["metrics"]["tflops"] / peak, peak),
            "torch.matmul %.1f TFLOP/s (%.1f%%)" % (torch["metrics"]["tflops"], 100 * torch["metrics"]["tflops"] / peak),
            "cuBLAS at %.1f%% of it" % (100 * cub["metrics"]["tflops"] / torch["metrics"]["tflops"])]
    spread = cub["timing"]["stats"]["repeat_median_rel_spread"]
    want2 = ["the %d repeat medians spread %.1f%%" % (cub["protocol"]["repeats"], 100 * spread)]
    if spread > 0.01:
        clocks = "/".join(str(c["sm_mhz"]) for c in cub["timing"]["repeat_clocks"])
        want2.append("SM clock per repeat %s MHz" % clocks)
        reasons = sorted({r for c in cub["timing"]["repeat_clocks"] for r in c["throttle_reasons"]})
        if any("power" in r for r in reasons):
            want2.append("held by the %.0f W power cap" % cub["provenance"]["device"]["power_limit_w"])
    else:
        want2.append("(target under 1%)")
    rows = list(csv.reader(open(os.path.join(d, "gemm-fp16-fwd-4096x4096x4096-nn-cublas.ncu.csv"))))
    hdr, body = rows[0], rows[2:]
    col = lambda m: statistics.median(float(r[hdr.index(m)]) for r in body)
    want2.append("Nsight Compute speed-of-light (median of %d profiled launches): SM %.1f%%, memory %.1f%%, "
                 "DRAM %.1f%% of peak, %.1f us" % (
                     len(body), col("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
                     col("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
                     col("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"), col("gpu__time_duration.sum")))
    for w in want:
        if w not in first[0]:
            fail("note line for %s lacks %r:\n%s" % (name, w, first[0]))
    for w in want2:
        if w.replace("_", "\\_") not in second[0] and w not in second[0]:
            fail("note line for %s lacks %r:\n%s" % (name, w, second[0]))
    checked += len(want) + len(want2)
gate = [l for l in lines if l.startswith("- Completion gate:")]
if len(gate) != 1 or "a100: missing" not in gate[0] or "h100: ok" not in gate[0] or "h200: ok" not in gate[0]:
    fail("gate line: %s" % gate)
print("note: %d lines; %d figures recomputed from the result files match" % (len(lines), checked + 1))

# ---- one cross-arch table: rmsnorm fwd bf16 ----------------------------------
out = os.path.join(work, "weekly")
subprocess.run([solbook, "report", "weekly", "--week", "2026-W47", "--db", db, "--out", out],
               check=True, stdout=subprocess.DEVNULL)
md = open(os.path.join(out, "2026-W47.md")).read()
if len(md.encode()) > 65536 or md.count("\n") > 300:
    fail("weekly over its limits")
# the full table is in the appendix; the writeup has a row of it per card
appendix = open(os.path.join(out, "2026-W47-appendix.md")).read()
m = re.search(r"\*\*rmsnorm fwd bf16\*\*.*?\n\n(\|.*?)\n\n", appendix, re.S)
if not m:
    fail("no rmsnorm fwd bf16 cross-arch table")
table = [[c.strip() for c in l.strip("|").split("|")] for l in m.group(1).split("\n")]
head, rows = table[0], table[2:]
copy = {a: load(os.path.join(data, a, "calibration.json"))["bandwidth"]["copy"]["gbps"] for a in cards}


def runs(arch, provider):
    """case (shape, params) -> result, for rmsnorm fwd bf16 of a provider."""
    out = {}
    for f in glob.glob(os.path.join(data, arch, "rmsnorm-*.json")):
        d = load(f)
        c = d["config"]
        prov = {"torch-eager": "huggingface"}.get(c["provider"], c["provider"])
        if prov == provider and d["status"] == "passed":
            out[(tuple(sorted(c["shape"].items())), json.dumps(c.get("params", {}), sort_keys=True))] = d
    return out


fused = {a: runs(a, "fused") for a in cards}
hf = {a: runs(a, "huggingface") for a in cards}
tc = {a: runs(a, "torch-compile") for a in cards}
cases = sorted(set(fused[cards[0]]) | set(fused[cards[1]]),
               key=lambda k: next(iter(fused[a][k] for a in cards if k in fused[a]))["metrics"]["bytes"])
if len(rows) != len(cases) + 1:
    fail("%d rows for %d cases" % (len(rows), len(cases)))
med = lambda d: d["timing"]["stats"]["median"]
cols = {}
for a in cards:
    A = a.upper()
    cols[a] = [head.index("%s ms" % A), head.index("%s x huggingface" % A), head.index("%s x torch-compile" % A),
               head.index("%s %% copy" % A)]
ratio_col, bound_col = head.index("H200/H100 time"), head.index("copy-bound ratio")
geo = {a: [[], [], []] for a in cards}
ratios = []
for row, case in zip(rows, cases):
    shape = ",".join("%s=%d" % kv for kv in case[0])
    params = " ".join("%s=%s" % (k, v if not isinstance(v, float) else "%g" % v)
                      for k, v in json.loads(case[1]).items())
    if row[0].replace("\\", "") != (shape + " " + params).strip():
        fail("row %r is not case %s %s" % (row[0], shape, params))
    for a in cards:
        f = fused[a][case]
        c = cols[a]
        want = ["%.4f" % med(f), "%.2fx" % (med(hf[a][case]) / med(f)), "%.2fx" % (med(tc[a][case]) / med(f)),
                "%.0f%%" % (100 * f["metrics"]["bytes"] / (med(f) * 1e6) / copy[a])]
        got = [row[i] for i in c]
        if got != want:
            fail("%s on %s: %s, recomputed %s" % (row[0], a, got, want))
        geo[a][0].append(med(hf[a][case]) / med(f))
        geo[a][1].append(med(tc[a][case]) / med(f))
        geo[a][2].append(100 * f["metrics"]["bytes"] / (med(f) * 1e6) / copy[a])
    r = med(fused[cards[1]][case]) / med(fused[cards[0]][case])
    ratios.append(r)
    if row[ratio_col] != "%.3f" % r or row[bound_col] != "%.3f" % (copy[cards[0]] / copy[cards[1]]):
        fail("%s: ratio %s / %s, recomputed %.3f / %.3f" % (row[0], row[ratio_col], row[bound_col], r,
                                                             copy[cards[0]] / copy[cards[1]]))
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
foot = rows[-1]
for a in cards:
    c = cols[a]
    want = ["%.2fx" % gm(geo[a][0]), "%.2fx" % gm(geo[a][1]), "%.0f%%" % gm(geo[a][2])]
    if [foot[i] for i in c[1:]] != want:
        fail("geomean row on %s: %s, recomputed %s" % (a, [foot[i] for i in c[1:]], want))
if foot[ratio_col] != "%.3f" % gm(ratios):
    fail("geomean time ratio %s, recomputed %.3f" % (foot[ratio_col], gm(ratios)))
print("cross-arch: rmsnorm fwd bf16, %d rows each pairing one case on %s; %d figures recomputed match" % (
    len(cases), " and ".join(cards), len(cases) * (len(cards) * 4 + 2) + len(cards) * 3 + 1))

# the writeup's row of each card: cases, geomean speedups, the share of the
# copy ceiling (the op model's bytes over the time, cases that fit the L2
# left out) and the time over the first card's
l2 = {r["sku"]: float(r["l2_bytes"]) for r in csv.DictReader(open(os.path.join(os.path.dirname(skus_csv),
                                                                               "cache_sizes.csv")))}
digest = 0
rows_all = re.findall(r"^\| rmsnorm \| fwd \| bf16 \| (\S+) \| (\d+) \| (.*?) \| (.*?) \| (.*?) \|$", md, re.M)
if len(rows_all) != len(cards):
    fail("the writeup has %d rmsnorm fwd bf16 rows for %d cards" % (len(rows_all), len(cards)))
for i, a in enumerate(cards):
    card, n, speed, share, ratio = rows_all[i]
    shares = []
    for f in fused[a].values():
        shp = f["config"]["shape"]
        nbytes = (2 * shp["M"] * shp["N"] + shp["N"]) * 2
        if nbytes <= l2.get(card, 0):
            continue
        shares.append(100 * nbytes / (med(f) * 1e6) / copy[a])
    want_speed = "x huggingface %.2f, x torch-compile %.2f" % (gm(geo[a][0]), gm(geo[a][1]))
    want_ratio = "-" if i == 0 else "%.3f (%.3f)" % (gm(ratios), copy[cards[0]] / copy[cards[1]])
    if int(n) != len(fused[a]) or speed != want_speed or ratio != want_ratio or \
            not share.startswith("%.0f%% of bw.copy" % statistics.median(shares)):
        fail("writeup row on %s: %s, recomputed %d cases, %s, %.0f%% of bw.copy, %s" % (
            a, rows_all[i], len(fused[a]), want_speed, statistics.median(shares), want_ratio))
    digest += 5
print("weekly writeup: a row of rmsnorm fwd bf16 per card, %d figures recomputed match (share of the copy "
      "ceiling over the op model's bytes, cases in L2 left out)" % digest)

# ---- report evidence: the GEMM targets ---------------------------------------
ev = subprocess.run([solbook, "report", "evidence", "--db", db], check=True, capture_output=True,
                    text=True).stdout
n = 0
for arch in cards:
    d = os.path.join(data, arch)
    cub = load(os.path.join(d, "gemm-fp16-fwd-4096x4096x4096-nn-cublas.json"))
    torch = load(os.path.join(d, "gemm-fp16-fwd-4096x4096x4096-nn-torch.json"))
    bw = load(os.path.join(d, "calibration.json"))["bandwidth"]
    r = cub["metrics"]["tflops"] / torch["metrics"]["tflops"]
    c = bw["copy"]["gbps"] / bw["memcpy_d2d"]["gbps"]
    for want in ["- cuBLAS / torch.matmul TFLOP/s: **%.1f%%** (target >= 95%%: %s)" % (100 * r, "met" if r >= 0.95 else "MISSED"),
                 "- measured copy %.0f GB/s against cudaMemcpy D2D %.0f GB/s" % (bw["copy"]["gbps"], bw["memcpy_d2d"]["gbps"]),
                 "**%.1f%%** (target >= 95%%: %s)" % (100 * c, "met" if c >= 0.95 else "MISSED"),
                 "| cublas | %.4f | %.1f |" % (cub["timing"]["stats"]["median"], cub["metrics"]["tflops"])]:
        if want not in ev:
            fail("evidence lacks %r" % want)
        n += 1
print("evidence: %d GEMM target figures recomputed match" % n)

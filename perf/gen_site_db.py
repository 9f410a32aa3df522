#!/usr/bin/env python3
"""gen_site_db.py DB N [--samples S] [--days D] [--markup] [--append] - a solbook
database of N synthetic result runs for `solbook site` performance and size checks.

Rows go straight into SQLite (the schema is db/migrations/*.sql, applied
in order), so making 100,000 runs takes seconds instead of an ingest of
100,000 files. Every run is marked synthetic: source_path
"synthetic/gen_site_db/run-ID.json", notes "synthetic (perf/gen_site_db.py)".
The figures are made up for load testing only; never ship such a database.

Layout: 3 SKUs (a100, h100, h200) x 576 series (6 ops x 2 dtypes x 3
providers x 16 shapes) re-run at successive commits (58 commits for 100,000
runs), one commit per pass over every series, finished over D days from
2026-11-16 (default 12: two ISO weeks); about 2 % of runs fail correctness; 1 % carry ncu metrics; one
calibration run per SKU. --markup puts HTML markup into a GPU name and
the notes of some runs (escaping tests). --append adds N runs to an
existing database of this script: the same series at the commits after
its last one, an hour apart after its newest run (a night's ingest).
"""
import argparse
import calendar
import glob
import hashlib
import json
import os
import random
import sqlite3
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SKUS = [("a100-sxm4-80gb", "a100", "NVIDIA A100-SXM4-80GB", 2.039, 312.0),
        ("h100-sxm5-80gb", "h100", "NVIDIA H100 80GB HBM3", 3.35, 989.0),
        ("h200-sxm-141gb", "h200", "NVIDIA H200", 4.8, 989.0)]
MARKUP_GPU = "<script>alert('gpu')</script><b>H100</b>"
MARKUP_NOTE = "note with <img src=x onerror=alert(1)> & <i>markup</i>"
FLUSH_RUNS = 20000


def series():
    out = []
    gemm_sizes = (256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 5120, 6144, 7168, 8192,
                  10240, 12288, 16384)
    for dtype in ("fp16", "bf16"):
        for prov, speed in (("cublas", 1.0), ("cublaslt", 1.04), ("solbook-mma", 0.7)):
            for m in gemm_sizes:
                out.append(("gemm", "fwd", dtype, prov, speed, {"M": m, "N": m, "K": m}))
    for op in ("rmsnorm", "layernorm", "softmax", "swiglu", "cross_entropy"):
        for dtype in ("bf16", "fp32"):
            for prov, speed in (("reference", 1.0), ("liger", 1.9), ("torch-compile", 1.5)):
                for t in range(16):
                    out.append((op, "fwd", dtype, prov, speed, {"H": 4096, "T": 1024 << (t // 2) if t % 2 == 0 else 1536 << (t // 2)}))
    return out


def model(op, shape, bw_tbps, peak):
    if op == "gemm":
        m, n, k = shape["M"], shape["N"], shape["K"]
        flops = 2.0 * m * n * k
        byts = 2.0 * (m * k + k * n + m * n)
        ms = max(flops / (peak * 0.7e12), byts / (bw_tbps * 0.8e12)) * 1e3 + 0.004
    else:
        flops = 4.0 * shape["H"] * shape["T"]
        byts = 2.0 * 2 * shape["H"] * shape["T"]
        # 40% of the datasheet bandwidth, so the fastest provider (1.9x) stays
        # below it: a faster run would be implausible (report/plausible.h)
        ms = byts / (bw_tbps * 0.4e12) * 1e3 + 0.003
    return flops, byts, ms


class PackSamples:
    """sb_pack_samples(rep, idx, value_ms): the values in (rep, idx) order, <f8."""

    def __init__(self):
        self.rows = []

    def step(self, rep, idx, value=0.0):
        self.rows.append((rep, idx, value))

    def finalize(self):
        vals = [v for _, _, v in sorted(self.rows)]
        return struct.pack("<%dd" % len(vals), *vals)


class RepLengths(PackSamples):
    """sb_rep_lengths(rep, idx): the JSON array of repeat lengths."""

    def finalize(self):
        lens = [0] * (max(r for r, _, _ in self.rows) + 1) if self.rows else []
        for r, _, _ in self.rows:
            lens[r] += 1
        return json.dumps(lens, separators=(",", ":"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("n", type=int)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--markup", action="store_true")
    ap.add_argument("--days", type=float, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--append", action="store_true")
    a = ap.parse_args()
    if a.append != os.path.exists(a.db):
        sys.exit("gen_site_db: %s %s" % (a.db, "does not exist" if a.append
                                           else "exists; give a new path"))
    db = sqlite3.connect(a.db)
    # the page size solbook gives a new database (db/store.c)
    db.execute("PRAGMA page_size = 32768")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = OFF")
    # The aggregates migration 007 calls, as db/sample_blob.c defines them.
    db.create_aggregate("sb_pack_samples", 3, PackSamples)
    db.create_aggregate("sb_rep_lengths", 2, RepLengths)
    # The functions migration 012 calls to cut stored samples out of
    # raw_json: the database is empty while the migrations run, and the
    # runs written here carry no samples in raw_json, so none is cut.
    db.create_function("sb_samples_cut_at", 3, lambda raw, lens, blob: None)
    db.create_function("sb_samples_cut_text", 3, lambda raw, lens, blob: raw)
    ser = series()
    runs, prov, conf, metr, corr, samp, prof, ceil = [], [], [], [], [], [], [], []
    nsamp = 0
    rid = 0
    first_commit = 0
    if a.append:
        rid = db.execute("SELECT max(id) FROM runs").fetchone()[0]
        first_commit = db.execute("SELECT count(DISTINCT git_sha) FROM provenance"
                                  " WHERE git_sha != ?", ("c" * 40,)).fetchone()[0]
        last = db.execute("SELECT max(finished_at) FROM provenance").fetchone()[0]
        a.seed += first_commit
    else:
        migs = sorted(glob.glob(os.path.join(ROOT, "db", "migrations", "*.sql")))
        for m in migs:
            db.executescript(open(m).read())
        db.execute("PRAGMA user_version = %d" % int(os.path.basename(migs[-1]).split("_")[0]))
    rnd = random.Random(a.seed)

    def add_run(schema, status, raw, notes, finished, sha, sku, arch, gpu):
        nonlocal rid
        rid += 1
        text = json.dumps(raw, sort_keys=True, separators=(",", ":"))
        runs.append((rid, hashlib.sha256(text.encode()).hexdigest(), schema, None, status, None,
                     "synthetic/gen_site_db/run-%d.json" % rid, "solbook", "2026-11-20T00:00:00Z",
                     notes, text))
        prov.append((rid, sha, 0, "solbench", "0.1.0", "synthetic-host", "Linux", "synthetic cpu",
                     "580.65", "13.0", "13.0", "gpu", 0, gpu, arch, sku, "9.0", 132, 80 * 2**30,
                     "0x0000", None, 1980, 2619, 700.0, 1, 0, finished, finished, "{}", None, None, None,
                     None))
        return rid

    def flush():
        # Rows go to the file every FLUSH_RUNS runs and the lists are
        # emptied, so memory stays bounded whatever N is (3,000,000 runs
        # held whole took more than 6.5 GB).
        q = lambda n: ",".join("?" * n)
        db.executemany("INSERT INTO runs (id, content_sha256, schema, run_uuid, status, reason,"
                       " source_path, source_format, ingested_at, notes, raw_json) VALUES (%s)"
                       % q(11), runs)
        db.executemany("INSERT INTO provenance VALUES (%s)" % q(33), prov)
        db.executemany("INSERT INTO configs VALUES (%s)" % q(20), conf)
        db.executemany("INSERT INTO metrics VALUES (%s)" % q(27), metr)
        db.executemany("INSERT INTO correctness VALUES (%s)" % q(14), corr)
        db.executemany("INSERT INTO run_samples VALUES (?,?,?)", samp)
        db.executemany("INSERT INTO profiler_metrics VALUES (%s)" % q(7), prof)
        db.executemany("INSERT INTO ceilings VALUES (?,?,?,?)", ceil)
        for rows in (runs, prov, conf, metr, corr, samp, prof, ceil):
            del rows[:]
        # a commit a flush lets SQLite checkpoint the WAL as it goes
        db.commit()

    base = 1794830400  # 2026-11-16T12:00:00Z, Monday of 2026-W47, after the calibrations
    calibrations = 0
    for s, (sku, arch, gpu, bw, peak) in enumerate(SKUS if not a.append else ()):
        calibrations += 1
        r = add_run("solbook.calibration.v1", "passed", {"synthetic": "calibration", "sku": sku},
                    "synthetic (perf/gen_site_db.py)", "2026-11-16T08:00:00Z", "c" * 40, sku, arch,
                    gpu)
        ceil.append((r, "bw.copy", "GB/s", bw * 1000 * 0.9))
        ceil.append((r, "gemm.fp16", "TFLOP/s", peak * 0.75))
        ceil.append((r, "gemm.bf16", "TFLOP/s", peak * 0.74))
    per_commit = len(ser) * len(SKUS)
    commits = max(1, -(-a.n // per_commit))
    span = int(a.days * 86400)
    made = 0
    if a.append:
        base = calendar.timegm(time.strptime(last, "%Y-%m-%dT%H:%M:%SZ")) + 3600
        span = 3600 * commits
    for cidx in range(first_commit, first_commit + commits):
        sha = hashlib.sha1(b"commit %d" % cidx).hexdigest()
        t = base + int(span * (cidx - first_commit) / commits)
        for s, (sku, arch, gpu, bw, peak) in enumerate(SKUS):
            for si, (op, mode, dtype, provname, speed, shape) in enumerate(ser):
                if made >= a.n:
                    break
                if len(runs) >= FLUSH_RUNS:
                    flush()
                made += 1
                t2 = t + s * 600 + si
                fin = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t2))
                flops, byts, ms = model(op, shape, bw, peak)
                ms /= speed
                drift = 1.0 + 0.05 * ((cidx % 7) == 3 and provname == "cublaslt")
                ms *= drift
                failed = rnd.random() < 0.02
                shape_key = ",".join("%s=%d" % (k, shape[k]) for k in sorted(shape))
                params = "{}"
                suite = "synthetic"
                case_key = "|".join([op, mode, dtype, shape_key, params])
                g = gpu
                notes = "synthetic (perf/gen_site_db.py)"
                if a.markup and made % 50 == 1:
                    g = MARKUP_GPU
                    notes = MARKUP_NOTE
                r = add_run("solbook.result.v1", "failed" if failed else "passed",
                            {"synthetic": "result", "n": made, "case": case_key, "sku": sku,
                             "provider": provname, "commit": sha},
                            notes, fin, sha, sku, arch, g)
                conf.append((r, suite, op, mode, provname, "cuda", dtype, shape_key,
                             json.dumps(shape, sort_keys=True, separators=(",", ":")), params,
                             case_key, "cuda-event", 10, None, 10, a.samples // 10 or 1, "warm",
                             1, 0, None))
                vals = sorted(ms * (1 + abs(rnd.gauss(0, 0.01))) for _ in range(a.samples))
                # run_samples: repeats of 10, packed as little-endian binary64
                lens = [min(10, len(vals) - k) for k in range(0, len(vals), 10)]
                samp.append((r, json.dumps(lens, separators=(",", ":")),
                             struct.pack("<%dd" % len(vals), *vals)))
                nsamp += len(vals)
                med = vals[len(vals) // 2]
                metr.append((r, a.samples, 0, vals[0], vals[len(vals) // 5], med,
                             vals[len(vals) * 4 // 5], vals[-1], sum(vals) / len(vals), 0.0, 0.01,
                             0.01, flops, byts, flops / med / 1e9, byts / med / 1e6, "unknown",
                             None, None, None, None, int(byts), None, None, None, None, None))
                corr.append((r, "float64-host", 4096, 1e-3, 1e-3, 1e-4, 1e-4, 2e-3, 0, 1,
                             0 if failed else 1, "%016x" % r, 1, 1))
                if made % 100 == 7:
                    for k, (metric, unit, val) in enumerate((
                            ("gpu__time_duration.sum", "usecond", med * 1000),
                            ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", 71.5),
                            ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "%", 40.2))):
                        prof.append((r, 0, "synthetic_kernel", metric, unit, val, "synthetic.csv"))
    flush()
    # the new result runs join series_latest, as solbook's commits do
    # (db/migrations/011_series_latest.sql)
    db.execute("INSERT INTO series_fold (go) VALUES (1)")
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print("gen_site_db: %s: %s%d result runs (%d commits), %d samples, %d calibration runs"
          % (a.db, "added " if a.append else "", made, commits, nsamp, calibrations))


if __name__ == "__main__":
    main()

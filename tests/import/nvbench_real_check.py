#!/usr/bin/env python3
"""nvbench_real_check.py SOLBOOK DIR - imports every JSON file nvbench wrote
into DIR (its examples' --json or --jsonbin output, with the FILE-bin/
sample files beside them) and checks the stored runs against the files
themselves, state by state:

- one run per state; skipped states skipped, with nvbench's reason;
- every axis value is in the shape (int64 >= 0, or element counts when the
  benchmark has no int64 axis) or in params, type axes also as the dtype
  where solbook has one;
- cold mean (and median, min, max, sample count where written) equal to the
  file's, in ms; bytes = bandwidth x mean when nvbench gave a bandwidth;
- the card's compute capability from sm_version, and an arch other than
  "unknown";
- importing the files again, touched, stores nothing.

Exit 77 (skipped) when DIR holds no JSON files.
"""
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

DTYPES = {"F32": "fp32", "F64": "fp64", "F16": "fp16", "BF16": "bf16", "I8": "int8"}


def summary(state, tag):
    for s in state.get("summaries") or []:
        if s.get("tag") == tag:
            for d in s.get("data") or []:
                if d.get("name") == "value":
                    return float(d["value"])
    return None


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 + 1e-9 * abs(b)


def main():
    solbook, data = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(data, "*.json")))
    if not files:
        print("nvbench_real_check: no nvbench JSON in %s: skipped" % data)
        return 77
    failures = []
    checks = 0
    clock_checks = 0

    def expect(ok, what):
        nonlocal checks
        checks += 1
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        # Copies, so that touching them leaves the originals alone.
        copies = os.path.join(tmp, "files")
        shutil.copytree(data, copies)
        files = sorted(glob.glob(os.path.join(copies, "*.json")))
        db = os.path.join(tmp, "n.db")
        for f in files:
            r = subprocess.run([solbook, "ingest", "--db", db, "--format", "nvbench-json", f],
                               capture_output=True, text=True)
            expect(r.returncode == 0, "%s: import refused: %s" % (f, r.stderr.strip()))
        con = sqlite3.connect(db)
        for f in files:
            root = json.load(open(f, encoding="utf-8"))
            base = os.path.basename(f)
            devices = {d["id"]: d for d in root["devices"]}
            row = 0
            for bench in root["benchmarks"]:
                axes = bench.get("axes") or []
                axis_type = {a["name"]: a["type"] for a in axes} if isinstance(axes, list) else \
                    {k: v["type"] for k, v in axes.items()}
                has_int64 = any(t == "int64" for t in axis_type.values())
                for state in bench["states"]:
                    where = "%s: %s [%s]" % (base, bench["name"], state.get("name", ""))
                    cur = con.execute(
                        "SELECT r.status, r.reason, c.shape_json, c.params_json, c.dtype, m.mean_ms, m.median_ms, "
                        "m.min_ms, m.max_ms, m.sample_count, m.bytes, p.compute_capability, p.arch, r.raw_json "
                        "FROM runs r JOIN configs c ON c.run_id = r.id LEFT JOIN metrics m ON m.run_id = r.id "
                        "JOIN provenance p ON p.run_id = r.id "
                        "WHERE json_extract(r.raw_json, '$.source.file') = ? AND json_extract(r.raw_json, '$.source.row') = ?",
                        (base, row))
                    rows = cur.fetchall()
                    row += 1
                    expect(len(rows) == 1, "%s: %d stored runs, expected 1" % (where, len(rows)))
                    if len(rows) != 1:
                        continue
                    status, reason, shape, params, dtype, mean, median, mn, mx, count, nbytes, cc, arch, raw = rows[0]
                    raw = json.loads(raw)
                    shape, params = json.loads(shape), json.loads(params)
                    dev = devices[state["device"]]
                    sm = dev["sm_version"]
                    expect(cc == "%d.%d" % (sm // 100, (sm % 100) // 10), "%s: compute capability %s for sm %d" % (where, cc, sm))
                    expect(arch != "unknown", "%s: arch unknown for %s" % (where, dev["name"]))
                    if "sm_default_clock_rate" in dev:
                        got = raw["provenance"]["device"].get("clocks", {}).get("sm_max_mhz")
                        expect(got == round(dev["sm_default_clock_rate"] / 1e6),
                               "%s: sm_max_mhz %s, sm_default_clock_rate %s Hz" % (where, got, dev["sm_default_clock_rate"]))
                        clock_checks += 1
                    # several type axes (a conversion In -> Out): the first one
                    # alone names the run's dtype (unknown where its type has
                    # none, I16 -> F32), every one is kept in params
                    first_type = True
                    for av in state.get("axis_values") or []:
                        name, typ, value = av["name"], av["type"], av["value"]
                        if typ == "int64" and int(value) >= 0:
                            expect(shape.get(name) == int(value), "%s: axis %s=%s not in shape %s" % (where, name, value, shape))
                        elif typ == "float64":
                            expect(close(params.get(name), float(value)), "%s: axis %s=%s not in params" % (where, name, value))
                        else:
                            expect(params.get(name) == (int(value) if typ == "int64" else value),
                                   "%s: axis %s=%s not in params %s" % (where, name, value, params))
                            if axis_type.get(name) == "type":
                                if first_type:
                                    expect(dtype == DTYPES.get(value, "unknown"),
                                           "%s: dtype %s for first type %s" % (where, dtype, value))
                                first_type = False
                    if not has_int64:
                        for s in state.get("summaries") or []:
                            if s.get("tag", "").startswith("nv/element_count/"):
                                key = s["tag"][len("nv/element_count/"):]
                                expect(shape.get(key) == int(summary(state, s["tag"])),
                                       "%s: element count %s not in shape %s" % (where, key, shape))
                    if state.get("is_skipped"):
                        expect(status == "skipped" and reason == "skipped by nvbench: " + state.get("skip_reason", ""),
                               "%s: skipped state stored as %s (%s)" % (where, status, reason))
                        continue
                    expect(status == "passed", "%s: status %s" % (where, status))
                    # the measured SM clock and its share of the default, as written
                    run_params = raw["config"].get("run_params", {})
                    for tag, key in (("nv/cold/sm_clock_rate/mean", "sm_clock_rate_mean_hz"),
                                     ("nv/cold/sm_clock_rate/scaling/percent", "sm_clock_rate_scaling")):
                        v = summary(state, tag)
                        if v is not None:
                            expect(run_params.get(key) == v, "%s: %s %s, file %s" % (where, key, run_params.get(key), v))
                            clock_checks += 1
                    m = summary(state, "nv/cold/time/gpu/mean")
                    if m is None:
                        continue
                    has_bin = os.path.isdir(f + "-bin")
                    if not has_bin:
                        expect(close(mean, m * 1e3), "%s: mean %s ms, file %s s" % (where, mean, m))
                        for tag, got in (("median", median), ("min", mn), ("max", mx)):
                            v = summary(state, "nv/cold/time/gpu/" + tag)
                            if v is not None:
                                expect(close(got, v * 1e3), "%s: %s %s ms, file %s s" % (where, tag, got, v))
                        n = summary(state, "nv/cold/sample_size")
                        if n is not None:
                            expect(count == int(n), "%s: count %s, file %s" % (where, count, n))
                    bw = summary(state, "nv/cold/bw/global/bytes_per_second")
                    if bw is not None:
                        expect(nbytes is not None and abs(nbytes - bw * m) <= 1e-6 * bw * m,
                               "%s: bytes %s, bandwidth x mean %s" % (where, nbytes, bw * m))
        before = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        con.close()
        for f in files:
            os.utime(f, None)
            subprocess.run([solbook, "ingest", "--db", db, "--format", "nvbench-json", f], capture_output=True)
        con = sqlite3.connect(db)
        after = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        expect(after == before, "touched re-import stored %d new runs" % (after - before))
        con.close()
    for f in failures:
        print("FAIL: " + f)
    print("nvbench_real_check: %d files, %d checks (%d of SM clocks: sm_max_mhz, sm_clock_rate mean and scaling),"
          " %d failed" % (len(files), checks, clock_checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

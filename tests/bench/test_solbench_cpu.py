#!/usr/bin/env python3
"""End-to-end tests of solbench's CPU path (no GPU needed).

usage: test_solbench_cpu.py SOLBENCH [SOLBOOK]

Runs gemm, stream, suite and roofline with --device cpu at small sizes and
checks the stored JSON: required fields, stats recomputed from the samples,
correctness verdicts, metrics, the forced-failure path (status failed, no
timing or metrics), usage errors, and that outputs appear only complete.
With SOLBOOK given, every written file is also validated against its
schema by `solbook validate`. Prints each check it made.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import check  # noqa: E402 (tests/check.py)
from check import ok  # noqa: E402

SOLBENCH = sys.argv[1]
SOLBOOK = sys.argv[2] if len(sys.argv) > 2 and os.path.exists(sys.argv[2]) else None
written = []


def run(args, expect):
    p = subprocess.run([SOLBENCH] + args, capture_output=True, text=True, timeout=600)
    if p.returncode != expect:
        print("command:", " ".join([SOLBENCH] + args))
        print("stdout:", p.stdout)
        print("stderr:", p.stderr)
    ok(p.returncode == expect, "solbench %s exits %d" % (" ".join(args[:3]), expect))
    return p


def load(path):
    with open(path) as f:
        doc = json.load(f)
    written.append(path)
    return doc


def quantile(s, q):
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_stats(stats, rows, label):
    flat = sorted(x for r in rows for x in r)
    n = len(flat)
    ok(stats["count"] == n, label + ": stats.count equals the number of samples")
    ok(close(stats["min"], flat[0]) and close(stats["max"], flat[-1]), label + ": min/max match the samples")
    ok(close(stats["median"], quantile(flat, 0.5)), label + ": median recomputed from samples")
    ok(close(stats["p20"], quantile(flat, 0.2)) and close(stats["p80"], quantile(flat, 0.8)),
       label + ": p20/p80 recomputed from samples")
    mean = sum(flat) / n
    ok(close(stats["mean"], mean), label + ": mean recomputed")
    sd = math.sqrt(sum((x - mean) ** 2 for x in flat) / (n - 1)) if n > 1 else 0.0
    ok(close(stats["stdev"], sd), label + ": sample stdev (n-1) recomputed")
    ok(close(stats["rel_noise"], sd / mean if mean > 0 else 0.0), label + ": rel_noise = stdev/mean")
    if len(rows) > 1:
        meds = []
        for r in rows:
            s = sorted(r)
            meds.append(quantile(s, 0.5))
        mm = sum(meds) / len(meds)
        spread = math.sqrt(sum((m - mm) ** 2 for m in meds) / (len(meds) - 1)) / mm
        ok(close(stats["repeat_median_rel_spread"], spread), label + ": repeat_median_rel_spread recomputed")


def check_passed(doc, label, iters, repeats):
    for k in ("schema", "run_uuid", "status", "config", "protocol", "timing", "metrics", "correctness",
              "determinism", "memory", "provenance"):
        ok(k in doc, label + ": has " + k)
    ok(doc["schema"] == "solbook.result.v1", label + ": schema id")
    ok(doc["status"] == "passed", label + ": status passed")
    cfg, proto, corr = doc["config"], doc["protocol"], doc["correctness"]
    ok(cfg["backend"] == "cpu" and cfg["provider"] == "cpu", label + ": backend and provider cpu")
    ok(isinstance(cfg["run_params"].get("seed"), int) and "seed" not in cfg["params"],
       label + ": seed recorded in run_params, not in the case's params")
    ok(proto["timer"] == "host-monotonic", label + ": timer host-monotonic")
    ok(proto["iters"] == iters and proto["repeats"] == repeats, label + ": iters and repeats recorded")
    rows = doc["timing"]["samples"]
    ok(len(rows) == repeats and all(len(r) == iters for r in rows), label + ": samples kept per repeat")
    ok(all(x >= 0 for r in rows for x in r), label + ": samples non-negative")
    check_stats(doc["timing"]["stats"], rows, label)
    ok(corr["passed"] is True and corr["finite"] is True and corr["unwritten"] == 0,
       label + ": correctness passed, finite, nothing unwritten")
    ok(corr["checked_elements"] > 0, label + ": elements were checked")
    ok(corr["max_abs_err"] is not None and corr["max_rel_err"] is not None, label + ": errors recorded")
    ok(len(corr["output_checksum"]) == 16 and corr.get("checksum_algorithm") == "sum-mix64",
       label + ": sum-mix64 checksum recorded")
    ok(doc["determinism"]["bitwise_repeatable"] is True, label + ": CPU path bitwise repeatable")
    m = doc["metrics"]
    med = doc["timing"]["stats"]["median"]
    ok(m["bytes"] > 0 and close(m["gbps"], m["bytes"] / (med * 1e-3) / 1e9), label + ": gbps = bytes / median")
    if m["flops"]:
        ok(close(m["tflops"], m["flops"] / (med * 1e-3) / 1e12), label + ": tflops = flops / median")
    ok(doc["memory"]["peak_device_bytes"] > 0, label + ": peak memory recorded")
    dev = doc["provenance"]["device"]
    ok(dev["kind"] == "cpu" and dev["arch"] == "cpu", label + ": provenance device cpu")


with tempfile.TemporaryDirectory() as tmp:
    # --- gemm, one provider, one file
    out = os.path.join(tmp, "gemm.json")
    p = run(["gemm", "--device", "cpu", "--M", "64", "--N", "48", "--K", "40", "--dtype", "fp16",
             "--iters", "4", "--repeats", "3", "--warmup", "1", "--out", out, "--seed", "7"], 0)
    ok("passed" in p.stdout, "gemm prints a summary line")
    doc = load(out)
    check_passed(doc, "gemm fp16", 4, 3)
    ok(doc["config"]["shape"] == {"M": 64, "N": 48, "K": 40}, "gemm shape recorded")
    ok(doc["config"]["params"]["transa"] == "n" and doc["config"]["run_params"]["seed"] == 7, "gemm params recorded")
    ok(doc["metrics"]["flops"] == 2 * 64 * 48 * 40, "gemm flops = 2MNK")
    ok(doc["metrics"]["bytes"] == (64 * 40 + 40 * 48 + 64 * 48) * 2, "gemm bytes = (MK+KN+MN) x 2")
    ok(doc["determinism"]["batch_invariant"] is True, "CPU GEMM batch invariant")
    ok(doc["correctness"]["reference"] == "float64-host", "small GEMM checked on every row")
    ok(not [f for f in os.listdir(tmp) if ".tmp." in f], "no temporary files left")
    checksum = doc["correctness"]["output_checksum"]

    # same seed -> same output checksum; another seed -> another
    out2 = os.path.join(tmp, "gemm2.json")
    run(["gemm", "--device", "cpu", "--M", "64", "--N", "48", "--K", "40", "--dtype", "fp16", "--iters", "2",
         "--repeats", "1", "--out", out2, "--seed", "7"], 0)
    ok(load(out2)["correctness"]["output_checksum"] == checksum, "same seed gives the same output checksum")
    run(["gemm", "--device", "cpu", "--M", "64", "--N", "48", "--K", "40", "--dtype", "fp16", "--iters", "2",
         "--repeats", "1", "--out", out2, "--seed", "8"], 0)
    ok(load(out2)["correctness"]["output_checksum"] != checksum, "another seed gives another checksum")

    # transposes, dtypes, sampled rows, cold L2, warm-up by time
    for dt, ta, tb in (("bf16", "t", "t"), ("fp32", "n", "t"), ("tf32", "t", "n"), ("fp8e4m3", "n", "t")):
        o = os.path.join(tmp, "g-%s.json" % dt)
        run(["gemm", "--device", "cpu", "--M", "33", "--N", "17", "--K", "29", "--dtype", dt, "--transa", ta,
             "--transb", tb, "--iters", "3", "--repeats", "2", "--out", o], 0)
        d = load(o)
        check_passed(d, "gemm %s %s%s" % (dt, ta, tb), 3, 2)
        ok(d["config"]["dtype"] == dt, "dtype %s recorded" % dt)
    o = os.path.join(tmp, "sampled.json")
    run(["gemm", "--device", "cpu", "--M", "96", "--N", "32", "--K", "32", "--check-rows", "8", "--iters", "2",
         "--repeats", "2", "--l2", "cold", "--warmup-ms", "5", "--out", o], 0)
    d = load(o)
    ok(d["correctness"]["reference"] == "float64-host-sampled-rows", "sampled rows named in reference")
    ok(d["correctness"]["checked_elements"] == 8 * 32, "8 sampled rows x 32 columns checked")
    ok(d["protocol"]["l2"] == "cold", "cold L2 recorded")
    ok(d["protocol"]["warmup_ms"] == 5, "warm-up by time recorded")
    ok(d["protocol"]["warmup_iters"] >= 1, "warm-up launches counted")
    ok("settle_ms" not in d["protocol"] and "repeat_clocks" not in d["timing"],
       "no settle phase unless asked; no NVML clocks on the CPU path")
    o = os.path.join(tmp, "settled.json")
    run(["gemm", "--device", "cpu", "--M", "32", "--N", "32", "--K", "32", "--iters", "2", "--repeats", "2",
         "--settle-ms", "30", "--out", o], 0)
    d = load(o)
    ok(d["protocol"]["settle_ms"] == 30 and d["protocol"]["settle_launches"] >= 8
       and d["protocol"]["settle_launches"] % 8 == 0, "settle phase recorded: 30 ms, launches in groups of 8")
    check_passed(d, "gemm settled", 2, 2)
    run(["gemm", "--device", "cpu", "--settle-ms", "-1", "--out", o], 2)
    # --hold queues GPU launches; the CPU path times each call on the host and
    # records no hold
    o2 = os.path.join(tmp, "held.json")
    run(["gemm", "--device", "cpu", "--M", "32", "--N", "32", "--K", "32", "--iters", "2", "--repeats", "2",
         "--hold", "--out", o2], 0)
    d = load(o2)
    ok("launch_hold" not in d["protocol"] and "hold_timeouts" not in d["timing"], "--hold on the CPU path: no hold recorded")
    # FLCE's dW accumulation is a named choice; anything else is refused
    run(["flce", "--device", "cpu", "--BT", "8", "--H", "16", "--V", "32", "--accum", "bf16", "--out", o], 2)
    fo = os.path.join(tmp, "flce.json")
    run(["flce", "--device", "cpu", "--BT", "8", "--H", "16", "--V", "32", "--mode", "full", "--iters", "2",
         "--repeats", "1", "--out", fo], 0)
    ok(load(fo)["config"]["params"].get("accum") == "fp32", "flce records accum, fp32 by default")
    fv = os.path.join(tmp, "flce-vocab.json")
    run(["flce", "--device", "cpu", "--BT", "8", "--H", "16", "--V", "32", "--mode", "full", "--accum", "vocab",
         "--iters", "2", "--repeats", "1", "--out", fv], 0)
    ok(load(fv)["config"]["params"].get("accum") == "vocab", "flce --accum vocab is accepted and recorded")

    # --- a command rebuilt from a stored result (as solbook's reproduce
    # lines are: every shape and params member as --NAME VALUE) reruns and
    # gives the same output; provider-recorded params are accepted
    stored = load(out)
    args = ["gemm", "--device", "cpu", "--dtype", stored["config"]["dtype"], "--iters", "2", "--repeats", "1"]
    for k, v in sorted(stored["config"]["shape"].items()):
        args += ["--" + k, str(v)]
    params = dict(stored["config"]["params"], seed=stored["config"]["run_params"]["seed"],
                  cublas_workspace_bytes=33554432, lt_workspace_bytes=0)
    for k, v in sorted(params.items()):
        args += ["--" + k, str(v)]
    o = os.path.join(tmp, "rerun.json")
    run(args + ["--out", o], 0)
    ok(load(o)["correctness"]["output_checksum"] == checksum, "rerun from stored params reproduces the output")

    # --- forced correctness failure: status failed, reason, no timing/metrics, exit 1
    o = os.path.join(tmp, "failed.json")
    run(["gemm", "--device", "cpu", "--M", "32", "--N", "32", "--K", "32", "--iters", "2", "--repeats", "1",
         "--test-corrupt-output", "--out", o], 1)
    d = load(o)
    ok(d["status"] == "failed", "corrupted output gives status failed")
    ok("timing" not in d and "metrics" not in d, "failed run has no timing and no metrics")
    ok(d["correctness"]["passed"] is False and "outside tolerance" in d["reason"], "failed run has a reason")

    # --- stream op
    o = os.path.join(tmp, "stream.json")
    run(["stream", "--device", "cpu", "--N", "65536", "--kernel", "triad", "--iters", "3", "--repeats", "2",
         "--out", o], 0)
    d = load(o)
    check_passed(d, "stream triad", 3, 2)
    ok(d["metrics"]["bytes"] == 3 * 4 * 65536, "triad bytes = 3 x 4 x N")
    ok(d["metrics"]["flops"] == 2 * 65536, "triad flops = 2N")

    # --- several providers need a directory; a directory gets one file each
    run(["gemm", "--device", "cpu", "--provider", "all", "--M", "16", "--N", "16", "--K", "16", "--iters", "1",
         "--repeats", "1", "--out", os.path.join(tmp, "dir") + "/"], 0)
    files = os.listdir(os.path.join(tmp, "dir"))
    ok(files == ["gemm-fp16-fwd-16x16x16-nn-cpu.json"], "directory output named op-dtype-mode-shape-params-provider")

    # --- usage errors: one line, exit 2, nothing written
    bad = os.path.join(tmp, "bad.json")
    for args, needle in (
        (["gemm", "--device", "cpu", "--dtype", "int3"], "--dtype: not a dtype gemm accepts: 'int3'"),
        (["gemm", "--device", "cpu", "--M", "0"], "--M: expected a positive integer, got '0'"),
        (["gemm", "--device", "cpu", "--transa", "x"], "--transa: expected n|t, got 'x'"),
        (["gemm", "--device", "cpu", "--provider", "cublas"], "provider cublas runs on the GPU"),
        (["gemm", "--device", "cpu", "--spec", "--M", "8"], "--spec fixes"),
        (["gemm", "--device", "cpu", "--bogus"], "unknown option '--bogus' (see solbench gemm --help)"),
        (["gemm", "--device", "cpu", "--iters", "0"], "--iters: expected a count from 1 to 100000, got '0'"),
        (["roofline", "--device", "cpu", "--l2", "cold"], "option '--l2' does not apply here"),
        (["roofline", "--device", "cpu"], "needs --out"),
        (["gemm", "--device", "cpu", "--M", "8", "--N", "8", "--K", "8", "--calibration",
          os.path.join(tmp, "missing.json")], "missing.json"),
    ):
        p = run(args + ["--out", bad] if "--out" not in args and args[0] != "roofline" else args, 2)
        lines = p.stderr.strip().splitlines()
        ok(len(lines) == 1 and lines[0].startswith("solbench: ") and needle in lines[0],
           "one-line error for %s" % " ".join(args[1:]))
        ok(not os.path.exists(bad), "nothing written after the error")

    # --- each command's help is made from its option table: every option once
    import re
    common = ["provider", "warmup", "warmup-ms", "settle-ms", "iters", "repeats", "l2", "hold", "input-sets",
              "check-rows", "device", "calibration", "out", "suite", "seed", "test-corrupt-output"]
    for args, own in ((["gemm"], ["M", "N", "K", "transa", "transb", "dtype", "mode", "spec"]),
                      (["suite"], ["preset", "cases", "only", "list", "gpus"]),
                      (["roofline"], ["bytes", "gemm-size", "warmup", "iters", "repeats", "device", "out", "seed"]),
                      (["provenance"], ["device"])):
        p = run(args + ["--help"], 0)
        listed = re.findall(r"^(?:  -[a-zA-Z], |      )--([A-Za-z][A-Za-z0-9_-]*)", p.stdout, re.M)
        want = own + (common if args[0] in ("gemm", "suite") else [])
        ok(p.stdout.startswith("usage: solbench " + args[0]) and set(want) <= set(listed)
           and len(listed) == len(set(listed)), "solbench %s --help lists each of its options once" % args[0])
    p = run(["roofline", "--help"], 0)
    ok("--l2" not in p.stdout and "--calibration" not in p.stdout, "roofline --help leaves out what does not apply")

    # --- roofline on the CPU, then a run against that calibration
    cal = os.path.join(tmp, "cal.json")
    run(["roofline", "--device", "cpu", "--bytes", "1M", "--gemm-size", "32", "--iters", "3", "--repeats", "2",
         "--warmup", "1", "--out", cal], 0)
    c = load(cal)
    ok(c["schema"] == "solbook.calibration.v1", "calibration schema id")
    ok(set(c["bandwidth"]) == {"copy", "scale", "add", "triad", "read"},
       "CPU bandwidth probes: copy scale add triad read")
    ok(c["bandwidth"]["read"]["bytes"] == (1 << 20) + (1 << 20) // 1024,
       "read bytes = the 1 MiB buffer read + one float written per 1024 read")
    ok(c["bandwidth"]["copy"]["bytes"] == 2 * (1 << 20), "copy bytes = read + write of a 1 MiB buffer")
    ok(c["bandwidth"]["triad"]["bytes"] == 3 * (1 << 20), "triad bytes = 2 reads + 1 write")
    for k, v in c["bandwidth"].items():
        ok(close(v["gbps"], v["bytes"] / (v["median_ms"] * 1e-3) / 1e9), "%s gbps = bytes / median" % k)
        ok(close(v["median_ms"], v["stats"]["median"]), "%s median_ms equals stats.median" % k)
    ok(set(c["gemm_peak"]) == {"fp16", "bf16", "tf32", "fp32"}, "CPU GEMM probes for fp16 bf16 tf32 fp32")
    for k, v in c["gemm_peak"].items():
        ok(v["M"] == 32 and close(v["tflops"], 2 * 32 ** 3 / (v["median_ms"] * 1e-3) / 1e12),
           "gemm %s tflops = 2 N^3 / median" % k)
    ok(c["protocol"]["timer"] == "host-monotonic" and c["protocol"]["buffer_bytes"] == 1 << 20,
       "calibration protocol recorded")
    o = os.path.join(tmp, "withcal.json")
    run(["gemm", "--device", "cpu", "--M", "32", "--N", "32", "--K", "32", "--iters", "2", "--repeats", "1",
         "--calibration", cal, "--out", o], 0)
    d = load(o)
    m = d["metrics"]
    ok(len(m["calibration_sha256"]) == 64, "calibration sha256 recorded")
    import hashlib
    with open(cal, "rb") as f:
        ok(m["calibration_sha256"] == hashlib.sha256(f.read()).hexdigest(), "sha256 is the calibration file's")
    ok(m["bound"] in ("compute", "memory") and m["pct_measured_ceiling"] is not None,
       "bound and % of measured ceiling from the calibration")

    # --- suite: a new timestamped folder with one file per case
    sdir = os.path.join(tmp, "suites")
    os.mkdir(sdir)
    p = run(["suite", "--preset", "smoke", "--device", "cpu", "--iters", "2", "--repeats", "2", "--out", sdir], 0)
    sub = os.listdir(sdir)
    ok(len(sub) == 1 and sub[0].startswith("smoke-") and sub[0].endswith("Z"), "suite folder smoke-<UTC stamp>")
    files = sorted(os.listdir(os.path.join(sdir, sub[0])))
    ok(len(files) == 4, "smoke preset wrote 4 results (%s)" % files)
    for f in files:
        d = load(os.path.join(sdir, sub[0], f))
        ok(d["status"] == "passed" and d["config"]["suite"] == "smoke", "suite result %s passed" % f)
    ok(p.stdout.count("(case ") == 4 and "(case 4 of 4," in p.stdout, "suite prints each case's time")
    whole = {json.dumps(load(os.path.join(sdir, sub[0], f))["config"], sort_keys=True) for f in files}

    # --- suite --cases: a part of the preset, the same cases as in the whole run
    pdir = os.path.join(tmp, "suites-part")
    os.mkdir(pdir)
    p = run(["suite", "--preset", "smoke", "--device", "cpu", "--iters", "2", "--repeats", "2", "--cases", "2-3",
             "--out", pdir], 0)
    psub = os.listdir(pdir)
    pfiles = sorted(os.listdir(os.path.join(pdir, psub[0])))
    part = {json.dumps(load(os.path.join(pdir, psub[0], f))["config"], sort_keys=True) for f in pfiles}
    ok(len(pfiles) == 2 and part <= whole, "--cases 2-3 ran two of the preset's cases (%s)" % pfiles)
    ok("(case 2 of 4," in p.stdout and "(case 3 of 4," in p.stdout and "(case 1 of" not in p.stdout,
       "--cases 2-3 ran cases 2 and 3 only")
    p = run(["suite", "--preset", "smoke", "--device", "cpu", "--cases", "3-2", "--out", pdir], 2)
    ok(p.stderr.count("\n") == 1 and "--cases: expected FROM-TO" in p.stderr and "got '3-2'" in p.stderr,
       "--cases 3-2: one line naming it")
    p = run(["suite", "--preset", "smoke", "--device", "cpu", "--cases", "5-", "--out", pdir], 2)
    ok("only 4 cases" in p.stderr, "--cases past the end: one line saying how many there are")

    # --- suite --only: the cases of one op (and mode), the rest left out
    odir = os.path.join(tmp, "suites-only")
    os.mkdir(odir)
    p = run(["suite", "--preset", "smoke", "--device", "cpu", "--iters", "2", "--repeats", "2", "--only", "stream",
             "--out", odir], 0)
    ofiles = [load(os.path.join(odir, os.listdir(odir)[0], f)) for f in os.listdir(os.path.join(odir, os.listdir(odir)[0]))]
    ok(len(ofiles) >= 1 and all(d["config"]["op"] == "stream" for d in ofiles),
       "--only stream wrote stream results only (%d)" % len(ofiles))
    ok(p.stdout.count("(case ") == len(ofiles), "--only: the other cases were not run")
    p = run(["suite", "--preset", "smoke", "--device", "cpu", "--only", "gemm:bwd", "--out", odir], 2)
    ok(p.stderr.count("\n") == 1 and "--only gemm:bwd" in p.stderr, "--only with no matching case: one line")

    # --- suite --list: the cases that would run, nothing run, no --out needed
    p = run(["suite", "--preset", "memory-bound", "--list", "--only", "rmsnorm:fwd", "--cases", "1-20"], 0)
    lines = p.stdout.split()
    ok(len(lines) == 6 and all(l.startswith("rmsnorm:fwd:bf16:M=") for l in lines) and
       "rmsnorm:fwd:bf16:M=8192,N=4096:eps=1e-6,weight_dtype=fp32" in lines,
       "--list prints OP:MODE:DTYPE:SHAPE:PARAMS of the chosen cases (%d)" % len(lines))
    # torch_ops.py --preset reads that list and leaves out what torch does not compute
    torch_ops = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "scripts",
                             "torch_ops.py")
    p = subprocess.run([sys.executable, torch_ops, "--out", odir, "--preset", "memory-bound", "--only", "rmsnorm:fwd",
                        "--cases", "1-20", "--solbench", SOLBENCH], capture_output=True, text=True)
    left = [l for l in p.stdout.splitlines() if l.startswith("torch_ops.py: left out ")]
    ok(p.returncode == 0 and len(left) == 3 and all("weight_dtype=fp32" in l for l in left),
       "torch_ops.py --preset: the fp32-weight cases left out and named (%s)" % p.stdout.strip()[:200])

    if SOLBOOK:
        p = subprocess.run([SOLBOOK, "validate"] + written, capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout, p.stderr)
        ok(p.returncode == 0, "solbook validate accepts all %d written files" % len(written))
    else:
        print("note: solbook binary not built; schema validation of the written files not run")

print("%d checks passed" % check.passed)

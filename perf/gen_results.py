#!/usr/bin/env python3
"""gen_results.py - writes synthetic, schema-valid solbook.result.v1 files.

For ingest tests and timing only: the numbers are drawn from a seeded
generator and are not measurements. Each file's stats are computed from its
own samples, so stored medians and counts can be checked against the file.
Files share their commit, --files-per-commit at a time (default 1000), as
a fleet's night of runs measures a few commits, not one a file: the
database indexes runs by commit, and a commit of its own for every file
would make each ingested run land on a leaf of that index of its own.

usage: gen_results.py OUTDIR COUNT [--repeats R] [--iters I] [--seed S]
                      [--files-per-commit N]
"""
import argparse
import hashlib
import json
import math
import os
import random

ARCHS = [
    ("a100", "a100-sxm4-80gb", "NVIDIA A100-SXM4-80GB", "8.0", 108, 85899345920, 0x20B210DE),
    ("h100", "h100-sxm5-80gb", "NVIDIA H100 80GB HBM3", "9.0", 132, 85520809984, 0x233010DE),
    ("h200", "h200-sxm-141gb", "NVIDIA H200", "9.0", 132, 150754820096, 0x233510DE),
]
# (suite, op, mode, providers, shape names and sizes, dtype choices)
OPS = [
    ("gemm-spec", "gemm", "fwd", ["cublas", "cublaslt", "solbook-mma"], {"M": [1024, 4096, 8192], "N": [1024, 4096], "K": [1024, 4096]}, ["fp16", "bf16", "tf32"]),
    ("liger-perkernel", "rmsnorm", "fwd", ["liger", "huggingface", "torch-compile"], {"B": [4, 8], "T": [2048, 4096], "H": [4096]}, ["bf16"]),
    ("liger-perkernel", "swiglu", "full", ["liger", "huggingface"], {"B": [4], "T": [2048, 4096], "H": [4096], "I": [11008]}, ["bf16"]),
    ("memory-bound", "copy", "fwd", ["reference", "fused"], {"N": [1 << 24, 1 << 28]}, ["fp32"]),
]


def quantile(sorted_xs, q):
    pos = (len(sorted_xs) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def stats(reps):
    xs = sorted(x for r in reps for x in r)
    n = len(xs)
    mean = sum(xs) / n
    stdev = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    meds = [quantile(sorted(r), 0.5) for r in reps]
    if len(meds) > 1:
        mm = sum(meds) / len(meds)
        spread = math.sqrt(sum((m - mm) ** 2 for m in meds) / (len(meds) - 1)) / mm
    else:
        spread = None
    return {"count": n, "min": xs[0], "p20": quantile(xs, 0.2), "median": quantile(xs, 0.5),
            "p80": quantile(xs, 0.8), "max": xs[-1], "mean": mean, "stdev": stdev,
            "rel_noise": stdev / mean, "repeat_median_rel_spread": spread}


def make(i, rng, repeats, iters, commit):
    arch, sku, gpu, cc, sms, mem, pci = ARCHS[i % len(ARCHS)]
    suite, op, mode, providers, shapes, dtypes = OPS[(i // 3) % len(OPS)]
    provider = providers[i % len(providers)]
    shape = {k: rng.choice(v) for k, v in shapes.items()}
    dtype = rng.choice(dtypes)
    base = rng.uniform(0.05, 5.0)
    reps = [[round(base * (1 + abs(rng.gauss(0, 0.01))), 6) for _ in range(iters)] for _ in range(repeats)]
    st = stats(reps)
    flops = 2.0 * shape.get("M", 1) * shape.get("N", 1) * shape.get("K", 1) if op == "gemm" else None
    nbytes = float(sum(shape.values()) * 4096)
    sec = st["median"] * 1e-3
    return {
        "schema": "solbook.result.v1",
        "run_uuid": "%032x" % rng.getrandbits(128),
        "status": "passed",
        "config": {"suite": suite, "op": op, "mode": mode, "provider": provider, "backend": "cuda",
                   "dtype": dtype, "shape": shape, "params": {"seed": i % 7}},
        "protocol": {"timer": "cuda-event", "warmup_iters": 10, "warmup_ms": None, "iters": iters,
                     "repeats": repeats, "l2": "cold", "input_sets": 2, "graph": False},
        "timing": {"unit": "ms", "samples": reps, "stats": st},
        "metrics": {"flops": flops, "bytes": nbytes,
                    "tflops": flops / sec / 1e12 if flops else None,
                    "gbps": nbytes / sec / 1e9, "bound": "compute" if flops else "memory",
                    "pct_datasheet_peak": None, "pct_measured_ceiling": None},
        "memory": {"peak_device_bytes": int(nbytes)},
        "correctness": {"reference": "float64-host", "checked_elements": 4096, "max_abs_err": 0.0009765625,
                        "max_rel_err": 0.0004, "rel_l2_err": 0.0001, "atol": 0.01, "rtol": 0.01,
                        "unwritten": 0, "finite": True, "passed": True, "output_checksum": "%016x" % rng.getrandbits(64)},
        "determinism": {"bitwise_repeatable": True, "batch_invariant": None},
        "provenance": {
            "git": {"sha": commit, "dirty": False},
            "tool": {"name": "solbench", "version": "0.1.0"},
            "host": {"hostname": "gpu-host-%d" % (i % 4), "os": "Linux 6.8.0", "cpu": "AMD EPYC 9454"},
            "software": {"driver_version": "580.159.04", "cuda_runtime_version": "13.0", "cublas_version": "13.0.2"},
            "device": {"kind": "gpu", "index": i % 8, "name": gpu, "arch": arch, "sku": sku,
                       "compute_capability": cc, "sm_count": sms, "memory_bytes": mem,
                       "pci_device_id": "0x%08X" % pci, "clocks": {"sm_mhz": 1980, "mem_mhz": 2619},
                       "power_limit_w": 700.0, "ecc": True, "mig": False},
            "started_at": "2026-11-%02dT%02d:%02d:00Z" % (1 + i % 28, i % 24, i % 60),
            "finished_at": "2026-11-%02dT%02d:%02d:30Z" % (1 + i % 28, i % 24, i % 60),
        },
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("count", type=int)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files-per-commit", type=int, default=1000)
    a = ap.parse_args()
    if a.files_per_commit < 1:
        ap.error("--files-per-commit must be at least 1")
    os.makedirs(a.outdir, exist_ok=True)
    rng = random.Random(a.seed)
    width = len(str(a.count))
    for i in range(a.count):
        commit = hashlib.sha1(b"gen_results %d %d" % (a.seed, i // a.files_per_commit)).hexdigest()
        doc = make(i, rng, a.repeats, a.iters, commit)
        with open(os.path.join(a.outdir, "run-%0*d.json" % (width, i)), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()

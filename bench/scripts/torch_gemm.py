#!/usr/bin/env python3
"""torch_gemm.py - time torch.matmul under solbench's GEMM protocol and
write a solbook.result.v1 file with provider "torch".

usage: torch_gemm.py [--M 4096 --N 4096 --K 4096] [--dtype fp16|bf16|fp32|tf32]
                     [--transa n|t] [--transb n|t] [--warmup 10 | --warmup-ms X] [--settle-ms X]
                     [--iters 50] [--repeats 5] [--l2 warm|cold] [--seed 42]
                     [--suite NAME] [--spec] [--solbench PATH] [--device N] --out FILE

Same protocol as solbench: row-major C = op(A) op(B), inputs uniform in
[-1, 1) rounded to the dtype (torch's generator, seeded), output poisoned
with NaN before the checked run, sampled rows compared with a float64 host
reference using solbench's tolerance table (`solbench tolerances`), one
CUDA event pair per launch, samples kept per repeat, cold mode writes a
2 x L2 buffer before every sample outside the events. The provenance block
is `solbench provenance` with the tool and software fields replaced.
Exits 0 with a message, writing nothing, where PyTorch or a CUDA device is
missing.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import uuid

from torch_common import find_solbench, stats_of


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--M", type=int, default=4096)
    ap.add_argument("--N", type=int, default=4096)
    ap.add_argument("--K", type=int, default=4096)
    ap.add_argument("--dtype", default="fp16", choices=["fp16", "bf16", "fp32", "tf32"])
    ap.add_argument("--transa", default="n", choices=["n", "t"])
    ap.add_argument("--transb", default="n", choices=["n", "t"])
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--warmup-ms", type=float, default=0.0)
    ap.add_argument("--settle-ms", type=float, default=0.0,
                    help="before the warm-up, run back to back this long so the clocks settle")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--l2", default="warm", choices=["warm", "cold"])
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--suite", default="adhoc")
    ap.add_argument("--spec", action="store_true", help="the gemm-spec case: 4096^3 fp16, 2000 ms settle, 10 + 50 x 5")
    ap.add_argument("--check-rows", type=int, default=256)
    ap.add_argument("--solbench", default=None, help="solbench binary (tolerances and provenance)")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.spec:
        a.M = a.N = a.K = 4096
        a.dtype, a.warmup, a.warmup_ms, a.iters, a.repeats, a.l2 = "fp16", 10, 0.0, 50, 5, "warm"
        a.settle_ms = 2000.0  # solbench's SB_SPEC_SETTLE_MS: the same clocks for both
        if a.suite == "adhoc":
            a.suite = "gemm-spec"
    if min(a.M, a.N, a.K, a.iters, a.repeats) < 1 or a.warmup < 0:
        print("torch_gemm.py: M, N, K, iters and repeats must be positive", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError:
        print("torch_gemm.py: PyTorch is not installed here; nothing to do")
        return 0
    if not torch.cuda.is_available():
        print("torch_gemm.py: PyTorch sees no CUDA device; nothing to do")
        return 0
    solbench = find_solbench(a.solbench)
    if not solbench:
        print("torch_gemm.py: solbench not found (give --solbench PATH); it supplies the tolerance table "
              "and the provenance", file=sys.stderr)
        return 2
    tol = json.loads(subprocess.run([solbench, "tolerances"], check=True, capture_output=True,
                                    text=True).stdout)
    p = subprocess.run([solbench, "provenance", "--device", str(a.device)], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr.strip(), file=sys.stderr)
        return 2
    prov = json.loads(p.stdout)
    out_dir = os.path.dirname(os.path.abspath(a.out))
    if not os.path.isdir(out_dir):
        print("torch_gemm.py: %s: directory %s does not exist" % (a.out, out_dir), file=sys.stderr)
        return 2

    started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000Z"
    dev = torch.device("cuda", a.device)
    torch.cuda.set_device(dev)
    torch.backends.cuda.matmul.allow_tf32 = a.dtype == "tf32"
    storage = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "tf32": torch.float32}[a.dtype]
    gen = torch.Generator(device="cpu").manual_seed(a.seed)

    def rand(shape):
        x = torch.rand(shape, generator=gen, dtype=torch.float64) * 2 - 1
        if a.dtype == "tf32":  # inputs exactly representable in tf32 (10 mantissa bits)
            x = x.to(torch.float32)
            bits = x.view(torch.int32)
            bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~0x1FFF
            return bits.view(torch.float32)
        return x.to(storage)

    base0 = torch.cuda.memory_allocated(dev)
    a_host = rand((a.K, a.M) if a.transa == "t" else (a.M, a.K))
    b_host = rand((a.N, a.K) if a.transb == "t" else (a.K, a.N))
    A, B = a_host.to(dev), b_host.to(dev)
    opA = A.t() if a.transa == "t" else A
    opB = B.t() if a.transb == "t" else B
    C = torch.empty((a.M, a.N), dtype=storage, device=dev)

    def launch():
        torch.matmul(opA, opB, out=C)

    # correctness: poison, run, compare sampled rows with float64
    torch.cuda.reset_peak_memory_stats(dev)
    C.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated(dev)
    out1 = C.clone()
    nrows = min(a.M, a.check_rows)
    rows = [0] if nrows == 1 else [int(i * (a.M - 1) / (nrows - 1)) for i in range(nrows)]
    ridx = torch.tensor(rows)
    a64 = (a_host.t() if a.transa == "t" else a_host).double()[ridx]
    b64 = (b_host.t() if a.transb == "t" else b_host).double()
    ref = a64 @ b64
    scale = a64.abs() @ b64.abs()
    got = out1.cpu().double()
    sampled = got[ridx]
    atol, rtol = tol[a.dtype]["atol"], tol[a.dtype]["rtol"]
    diff = (sampled - ref).abs()
    finite = bool(torch.isfinite(got).all())
    unwritten = int(torch.isnan(got).sum())  # NaN poison still there (matmul writes no NaN from finite inputs)
    bad = ~(diff <= atol * scale + rtol * ref.abs())
    passed = finite and unwritten == 0 and not bool(bad.any())
    raw = out1.cpu().contiguous().view(torch.uint8).numpy().tobytes()
    h = 0xcbf29ce484222325
    # FNV-1a is sequential; in Python it is affordable for outputs up to 1 MiB
    for byte in raw if len(raw) <= (1 << 20) else ():
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    checksum = "%016x" % h if len(raw) <= (1 << 20) else "unknown"
    C.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    def bits(t):
        return t.view(torch.int16 if t.element_size() == 2 else torch.int32)

    repeatable = bool(torch.equal(bits(C), bits(out1)))

    result = {
        "schema": "solbook.result.v1",
        "run_uuid": uuid.uuid4().hex,
        "config": {"suite": a.suite, "op": "gemm", "mode": "fwd", "provider": "torch", "backend": "torch",
                   "dtype": a.dtype, "shape": {"M": a.M, "N": a.N, "K": a.K},
                   "params": {"transa": a.transa, "transb": a.transb},
                   "run_params": {"seed": a.seed, "torch_version": torch.__version__}},
        "protocol": {"timer": "cuda-event", "warmup_iters": None, "warmup_ms": a.warmup_ms or None,
                     "iters": a.iters, "repeats": a.repeats, "l2": a.l2, "input_sets": 1, "graph": False,
                     "launch_hold": "none"},
        "correctness": {"reference": "float64-host-sampled-rows" if nrows < a.M else "float64-host",
                        "checked_elements": nrows * a.N,
                        "max_abs_err": float(diff.max()) if finite else None,
                        "max_rel_err": float((diff / (ref.abs() + atol * scale)).max()) if finite else None,
                        "rel_l2_err": float(diff.norm() / ref.norm()) if finite else None,
                        "atol": atol, "rtol": rtol, "unwritten": unwritten, "finite": finite,
                        "passed": passed, "output_checksum": checksum},
        "determinism": {"bitwise_repeatable": repeatable, "batch_invariant": None},
        # torch's caching allocator: inputs, output and cuBLAS workspace
        "memory": {"peak_device_bytes": int(peak - base0), "peak_device_mb": None},
    }
    result["memory"]["peak_device_mb"] = result["memory"]["peak_device_bytes"] / 1e6
    if not passed:
        result["status"] = "failed"
        result["reason"] = "correctness: %d of %d checked elements outside tolerance, %d unwritten, finite %s" % (
            int(bad.sum()), nrows * a.N, unwritten, finite)
    else:
        flush = None
        if a.l2 == "cold":
            l2 = torch.cuda.get_device_properties(dev).L2_cache_size
            flush = torch.empty(2 * l2, dtype=torch.uint8, device=dev)
        if a.settle_ms > 0:
            # as solbench: run back to back until the clocks hold steady
            t0 = time.monotonic()
            settled = 0
            while (time.monotonic() - t0) * 1e3 < a.settle_ms:
                for _ in range(8):
                    launch()
                torch.cuda.synchronize()
                settled += 8
            result["protocol"]["settle_ms"] = a.settle_ms
            result["protocol"]["settle_launches"] = settled
        if a.warmup_ms > 0:
            t0 = time.monotonic()
            done = 0
            while (time.monotonic() - t0) * 1e3 < a.warmup_ms:
                launch()
                torch.cuda.synchronize()
                done += 1
        else:
            for _ in range(a.warmup):
                launch()
            torch.cuda.synchronize()
            done = a.warmup
        result["protocol"]["warmup_iters"] = done
        samples = []
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(a.iters)]
        stops = [torch.cuda.Event(enable_timing=True) for _ in range(a.iters)]
        rows_out = []
        for r in range(a.repeats):
            for i in range(a.iters):
                if flush is not None:
                    flush.fill_((r * a.iters + i) & 0xFF)
                starts[i].record()
                launch()
                stops[i].record()
            torch.cuda.synchronize()
            rep = [starts[i].elapsed_time(stops[i]) for i in range(a.iters)]
            rows_out.append(rep)
            samples.extend(rep)
        st = stats_of(samples, a.repeats)
        flops = 2.0 * a.M * a.N * a.K
        nbytes = (a.M * a.K + a.K * a.N + a.M * a.N) * A.element_size()
        secs = st["median"] * 1e-3
        result["status"] = "passed"
        result["timing"] = {"unit": "ms", "samples": rows_out, "stats": st}
        result["metrics"] = {"flops": flops, "bytes": float(nbytes), "tflops": flops / secs / 1e12,
                             "gbps": nbytes / secs / 1e9, "bound": "unknown", "pct_datasheet_peak": None,
                             "pct_measured_ceiling": None}
    prov["tool"] = {"name": "torch_gemm.py", "version": torch.__version__}
    prov["software"]["cuda_runtime_version"] = torch.version.cuda or "unknown"
    prov["software"]["cublas_version"] = "unknown"
    prov["software"]["compiler"] = "python %s" % platform.python_version()
    prov["started_at"] = started
    prov["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000Z"
    result["provenance"] = prov
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(a.out) + ".tmp.", dir=out_dir)
    with os.fdopen(fd, "w") as f:
        json.dump(result, f, indent=2, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, a.out)
    s = result.get("timing", {}).get("stats")
    if s:
        print("gemm %s M=%d,N=%d,K=%d torch: passed, median %.4f ms, noise %.2f%%, %.2f TFLOP/s" % (
            a.dtype, a.M, a.N, a.K, s["median"], 100 * s["rel_noise"], result["metrics"]["tflops"]))
    else:
        print("gemm %s torch: %s (%s)" % (a.dtype, result["status"], result.get("reason", "")))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())

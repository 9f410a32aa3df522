"""torch_common.py - what torch_gemm.py and torch_ops.py share: sample
statistics computed the way solbench computes them (bench/harness.c), so the
torch-eager, torch-compile and torch results carry the same stats as
solbench's, and finding the solbench program."""
import json
import math
import os
import shutil
import subprocess
import sys


def stats_of(samples, repeats):
    s = sorted(samples)
    n = len(s)

    def q(p):
        pos = p * (n - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, n - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)

    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0
    out = {"count": n, "min": s[0], "p20": q(0.2), "median": q(0.5), "p80": q(0.8), "max": s[-1],
           "mean": mean, "stdev": sd, "rel_noise": sd / mean if mean > 0 else 0.0,
           "repeat_median_rel_spread": None}
    if repeats > 1 and n % repeats == 0:
        per = n // repeats
        meds = []
        for r in range(repeats):
            g = sorted(samples[r * per:(r + 1) * per])
            pos = 0.5 * (per - 1)
            lo = math.floor(pos)
            hi = min(lo + 1, per - 1)
            meds.append(g[lo] + (g[hi] - g[lo]) * (pos - lo))
        mm = sum(meds) / repeats
        out["repeat_median_rel_spread"] = (math.sqrt(sum((m - mm) ** 2 for m in meds) / (repeats - 1)) / mm
                                           if mm > 0 else 0.0)
    return out


def find_solbench(given):
    if given:
        return given
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "..", "..", "build", "bench", "solbench"), shutil.which("solbench")):
        if cand and os.path.exists(cand):
            return cand
    return None


def open_device(prog, solbench_arg, device):
    """What a program that times on a CUDA device needs before it starts:
    (torch, solbench, solbench's tolerance table, the device's provenance);
    or (None, exit code) with the reason printed: 0 where PyTorch or a CUDA
    device is missing (nothing to do here), 2 where solbench is missing or
    fails."""
    try:
        import torch
    except ImportError:
        print("%s: PyTorch is not installed here; nothing to do" % prog)
        return None, 0
    if not torch.cuda.is_available():
        print("%s: PyTorch sees no CUDA device; nothing to do" % prog)
        return None, 0
    solbench = find_solbench(solbench_arg)
    if not solbench:
        print("%s: solbench not found (give --solbench PATH); it supplies the tolerance table and "
              "the provenance" % prog, file=sys.stderr)
        return None, 2
    tol = json.loads(subprocess.run([solbench, "tolerances"], check=True, capture_output=True, text=True).stdout)
    p = subprocess.run([solbench, "provenance", "--device", str(device)], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr.strip(), file=sys.stderr)
        return None, 2
    return (torch, solbench, tol, json.loads(p.stdout)), 0

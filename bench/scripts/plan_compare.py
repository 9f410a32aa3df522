#!/usr/bin/env python3
"""plan_compare.py - launch plans of one kernel measured side by side on one
card in one run: each case of CASES under every value of an environment
variable that selects the plan (e.g. SOLBENCH_RMSNORM_FWD_PLAN), case by
case and plan by plan in turn, for --rounds rounds, so that the card's
state drifts alike for all; optionally torch.compile of the same case in
the same run (torch_ops.py). Figures for docs/, not a test.

usage: plan_compare.py --solbench PATH --cases FILE --env VAR --plans A,B,...
                       --out DIR [--rounds 2] [--calibration FILE] [--torch]

CASES: one solbench command line a line, without the program, e.g.
"rmsnorm --mode fwd --dtype bf16 --M 16384 --N 7168 --provider fused".
Writes DIR/<case>-<plan>-r<round>.json (solbench results, which record the
plan they ran in run_params) and DIR/torch/ (torch_ops.py results), and
prints per case and plan the median over all rounds' samples, the % of the
STREAM copy of --calibration (as out/EVIDENCE.md counts it; without
--calibration "% ceil", the result's pct_measured_ceiling: the best of the
calibration's bandwidth probes, add or triad, 1-4% above the copy), the
time against the first plan and against torch.compile.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys


def result_path(out, n, plan, r):
    """DIR/<case>-<plan>-r<round>.json, the plan's ':' and '/' (layout:C,
    LAYOUT/hints) as '_' so that it names a file in DIR"""
    return os.path.join(out, "%d-%s-r%d.json" % (n, plan.replace(":", "_").replace("/", "_"), r))


def opt(words, name, default=None):
    return words[words.index(name) + 1] if name in words else default


def torch_spec(words):
    """op:mode:dtype:K=V,... for torch_ops.py --case, or None where the
    torch code does not compute the case (a weight in another dtype)."""
    op = words[0]
    if opt(words, "--weight_dtype", "same") != "same":
        return None
    shape = []
    i = 1
    while i < len(words) - 1:
        w = words[i]
        if w.startswith("--") and len(w) > 2 and w[2:] not in (
                "mode", "dtype", "provider", "weight_dtype", "eps") and words[i + 1].lstrip("-").isdigit():
            shape.append("%s=%s" % (w[2:], words[i + 1]))
            i += 2
        else:
            i += 1
    return "%s:%s:%s:%s" % (op, opt(words, "--mode", "fwd"), opt(words, "--dtype", "bf16"), ",".join(shape))


def copy_gbps(path):
    """the STREAM copy (GB/s) of a calibration file, or None"""
    try:
        with open(path) as fh:
            return json.load(fh)["bandwidth"]["copy"]["gbps"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def samples_of(path):
    try:
        with open(path) as fh:
            d = json.load(fh)
    except (OSError, ValueError):
        return None, None
    if d.get("status") != "passed":
        return d, None
    return d, [x for rep in d["timing"]["samples"] for x in rep]


def torch_times(tdir, cases):
    """case number -> torch-compile median (ms), from torch_ops.py's files"""
    out = {}
    try:
        names = os.listdir(tdir)
    except OSError:
        return out
    for name in names:
        if not name.endswith("-torch-compile.json"):
            continue
        try:
            with open(os.path.join(tdir, name)) as fh:
                d = json.load(fh)
        except (OSError, ValueError):
            continue
        if d.get("status") != "passed":
            continue
        c = d["config"]
        for n, words in enumerate(cases, 1):
            if (words[0] == c["op"] and opt(words, "--mode", "fwd") == c["mode"]
                    and opt(words, "--dtype", "bf16") == c["dtype"] and torch_spec(words)
                    and all(opt(words, "--" + k) == str(v) for k, v in c["shape"].items())):
                out[n] = d["timing"]["stats"]["median"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solbench", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--env", required=True)
    ap.add_argument("--plans", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--calibration", default=None)
    ap.add_argument("--torch", action="store_true", help="torch.compile of each case too (torch_ops.py)")
    ap.add_argument("--summarize", action="store_true",
                    help="run nothing: print the table of the results already in --out")
    a = ap.parse_args()
    plans = [p for p in a.plans.split(",") if p]
    with open(a.cases) as fh:
        cases = [shlex.split(l) for l in fh if l.strip() and not l.lstrip().startswith("#")]
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    for r in range(0 if a.summarize else a.rounds):
        for n, words in enumerate(cases, 1):
            for p in plans:
                path = result_path(a.out, n, p, r)
                cmd = [a.solbench] + words + ["--warmup", "10", "--iters", "20", "--repeats", "5",
                                              "--suite", "plan-compare", "--out", path]
                if a.calibration:
                    cmd += ["--calibration", a.calibration]
                env = dict(os.environ, **{a.env: p})
                res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                if res.returncode != 0:
                    failed += 1
                    print("case %d plan %s failed: %s" % (n, p, res.stdout.strip().splitlines()[-1:]), flush=True)
    torch_ms = torch_times(os.path.join(a.out, "torch"), cases)
    if a.torch and not a.summarize:
        tdir = os.path.join(a.out, "torch")
        os.makedirs(tdir, exist_ok=True)
        here = os.path.dirname(os.path.abspath(__file__))
        for n, words in enumerate(cases, 1):
            spec = torch_spec(words)
            if not spec:
                continue
            res = subprocess.run([sys.executable, os.path.join(here, "torch_ops.py"), "--out", tdir,
                                  "--case", spec, "--providers", "torch-compile", "--repeats", "5",
                                  "--suite", "plan-compare", "--solbench", a.solbench],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if "torch-compile: passed, median" not in res.stdout:
                print("case %d: torch-compile gave no time: %s" % (n, res.stdout.strip().splitlines()[-1:]))
        torch_ms = torch_times(tdir, cases)
    copy = copy_gbps(a.calibration) if a.calibration else None
    print("%-4s %-58s %-10s %10s %7s %8s %8s  %s" % ("case", "command", "plan", "median us",
                                                      "% copy" if copy else "% ceil", "/first", "/torch",
                                                      "plan run"))
    for n, words in enumerate(cases, 1):
        first = None
        for p in plans:
            allx, pct, ran = [], None, "-"
            for r in range(a.rounds):
                d, xs = samples_of(result_path(a.out, n, p, r))
                if xs:
                    allx += xs
                    m = d["metrics"]
                    pct = 100.0 * m["gbps"] / copy if copy and m.get("gbps") else m.get("pct_measured_ceiling")
                    rp = d["config"].get("run_params", {})
                    ran = rp.get("fwd_plan") or rp.get("row_layout") or rp.get("elem_plan") or rp.get("bwd_layout") or ran
            if not allx:
                print("%-4d %-58s %-10s %10s" % (n, " ".join(words)[:58], p, "no result"))
                continue
            med = statistics.median(allx) * 1000.0
            first = first or med
            t = torch_ms.get(n)
            print("%-4d %-58s %-10s %10.2f %7s %8.3f %8s  %s" % (
                n, " ".join(words)[:58], p, med, "%.1f" % pct if pct else "-", med / first,
                "%.3f" % (med / (t * 1000.0)) if t else "-", ran), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

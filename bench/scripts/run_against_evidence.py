#!/usr/bin/env python3
"""run_against_evidence.py - one run's results set against the evidence they
would replace: for each case of RUN (a folder of solbench and torch_ops.py
results, searched to any depth) that PROVIDER ran and passed, its median,
the median of the current result of the same case and provider under
EVIDENCE (examples/<arch>/kernels-full/: the one that finished last, as
scripts/evidence_summary.py reads them) with that result's commit, the
ratio of the two, the ratio to torch.compile in RUN, and the launch the
run recorded (run_params). For a kernel change measured by a full preset
run on another lent card than the evidence's: the ratios mix two cards of
one kind, and say so in the header. Figures for docs/, not a test.

usage: run_against_evidence.py RUN EVIDENCE [--provider fused]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import example_files  # noqa: E402 (results loose or in a folder's results.tar.gz)

LAUNCH_PARAMS = ("bwd_layout", "fwd_plan", "row_layout", "elem_plan")


def case_key(c):
    return (c["suite"], c["op"], c["mode"], c["dtype"], tuple(sorted(c["shape"].items())),
            json.dumps(c.get("params", {}), sort_keys=True))


def results(root, exclude=None):
    """(case key, provider) -> the passed result that finished last under root"""
    best = {}
    for f, read in example_files.files(os.path.join(root, "**", "*.json")):
        if exclude and os.path.abspath(f).startswith(exclude + os.sep):
            continue
        try:
            d = json.loads(read())
        except (OSError, ValueError):
            continue
        if not isinstance(d, dict) or d.get("schema") != "solbook.result.v1" or d.get("status") != "passed":
            continue
        k = (case_key(d["config"]), d["config"]["provider"])
        if k not in best or d["provenance"]["finished_at"] > best[k]["provenance"]["finished_at"]:
            best[k] = d
    return best


def median_us(d):
    return d["timing"]["stats"]["median"] * 1000.0


def device_of(d):
    dv = d["provenance"]["device"]
    return "%s %s" % (dv.get("name", "?"), dv.get("uuid", "?"))


def main():
    ap = argparse.ArgumentParser(description="one run's results against the evidence they would replace")
    ap.add_argument("run")
    ap.add_argument("evidence")
    ap.add_argument("--provider", default="fused")
    a = ap.parse_args()
    for path in (a.run, a.evidence):
        if not os.path.isdir(path):
            print("run_against_evidence.py: %s: not a folder" % path, file=sys.stderr)
            return 2
    run = results(a.run)
    ev = results(a.evidence, exclude=os.path.abspath(a.run))
    mine = sorted(k for k in run if k[1] == a.provider)
    if not mine:
        print("run_against_evidence.py: %s: no passed %s result" % (a.run, a.provider), file=sys.stderr)
        return 1
    runs_on = sorted({device_of(run[k]) for k in mine})
    print("run: %s (%s)" % (a.run, "; ".join(runs_on)))
    print("evidence: %s, the current result of each case (time run/evidence: two cards of one kind "
          "unless the devices match)" % a.evidence)
    print("%-14s %-4s %-5s %-24s %10s %10s %-8s %8s %8s  %s" % (
        "op", "mode", "dtype", "shape", "run us", "evid. us", "commit", "run/ev", "/torch", "launch"))
    for k in mine:
        d = run[k]
        c = d["config"]
        old = ev.get(k)
        tc = run.get((k[0], "torch-compile"))
        shape = ",".join("%s=%s" % kv for kv in sorted(c["shape"].items()))
        w = c.get("params", {}).get("weight_dtype")
        if w and w != "same":
            shape += " w=" + w
        a = c.get("params", {}).get("accum")
        if a and a != "fp32":
            shape += " accum=" + a
        launch = " ".join(c.get("run_params", {}).get(p, "") for p in LAUNCH_PARAMS).strip()
        print("%-14s %-4s %-5s %-24s %10.2f %10s %-8s %8s %8s  %s" % (
            c["op"], c["mode"], c["dtype"], shape, median_us(d),
            "%.2f" % median_us(old) if old else "-",
            old["provenance"]["git"]["sha"][:7] if old else "-",
            "%.3f" % (median_us(d) / median_us(old)) if old else "-",
            "%.3f" % (median_us(d) / median_us(tc)) if tc else "-", launch))
    return 0


if __name__ == "__main__":
    sys.exit(main())

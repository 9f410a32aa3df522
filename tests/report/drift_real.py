#!/usr/bin/env python3
"""drift_real.py SOLBOOK TOP - the regressions history of the real results
in examples/ (the main job's database): the steps of providers the project
does not change, under an unchanged protocol and environment, are A/A
comparisons of their way of timing, and at most 2% of them may pass their
threshold. Each flagged step must pass its threshold, and every threshold
says where it comes from. Prints the rate, by provider."""
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile


def main():
    solbook, top = sys.argv[1], sys.argv[2]
    ex = os.path.join(top, "examples")
    paths = []
    for pattern in ("h1*/gemm", "h1*/kernels", "h2*/gemm", "h2*/kernels", "h*/kernels-full",
                    "h100/gemm-settle", "h*/providers", "h*/training", "fleet", "h*/sessions/*.tar.gz"):
        paths += sorted(glob.glob(os.path.join(ex, pattern)))
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "main.db")
        subprocess.run([solbook, "ingest", "-q", "--db", db] + paths, check=False, capture_output=True)
        out = os.path.join(tmp, "history.json")
        p = subprocess.run([solbook, "report", "regressions", "--history", "--db", db, "--format", "json",
                            "--out", out], capture_output=True, text=True)
        assert p.returncode in (0, 1), p.stderr
        d = json.load(open(out))
    rows = [r for r in d["cases"] if r["cause"] == "environment/noise drift"
            and r["verdict"] in ("regression", "improvement", "no change")]
    flagged = [r for r in rows if r["verdict"] != "no change"]
    assert d["drift"] == {"tested": len(rows), "flagged": len(flagged)}, d["drift"]
    assert len(rows) >= 2000, "only %d drift steps: the examples were not read" % len(rows)
    for r in d["cases"]:
        assert r["threshold_from"] in ("min-effect", "case A/A", "SKU cross-card A/A", "drift class A/A"), r
    for r in flagged:
        assert abs(r["rel_change"]) >= r["threshold"] and r["p_adjusted"] < d["alpha"], r
    by = collections.Counter(r["provider"] for r in rows)
    fl = collections.Counter(r["provider"] for r in flagged)
    rate = len(flagged) / len(rows)
    print("drift_real: %d of %d third-party steps under an unchanged environment flagged (%.1f%%): %s" % (
        len(flagged), len(rows), 100 * rate,
        ", ".join("%s %d of %d" % (k, fl[k], by[k]) for k in sorted(by))))
    print("drift_real: regressions of the project's kernels counted: %d" % d["regressions"])
    assert rate <= 0.02, "drift flagged over 2%%: %.1f%%" % (100 * rate)


if __name__ == "__main__":
    main()

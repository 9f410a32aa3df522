#!/usr/bin/env python3
"""bench/scripts/plan_compare.py end to end on the CPU (no GPU needed).

usage: test_plan_compare.py SOLBENCH

Runs one CPU case under two plan values for two rounds against a CPU
calibration, then checks what it wrote and printed: a result file per case,
plan and round (a plan's ':' and '/' made '_'), the median over both rounds'
samples, "% copy" as the result's GB/s over the calibration's STREAM copy
(not its pct_measured_ceiling), the time against the first plan; and
--summarize without a calibration, which labels the column "% ceil" and
prints pct_measured_ceiling. Prints each check it made.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import check  # noqa: E402 (tests/check.py)
from check import ok  # noqa: E402

SOLBENCH = sys.argv[1]
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "scripts",
                      "plan_compare.py")


def rows_of(out):
    """the table's lines after the header, split on whitespace"""
    lines = out.strip().splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith("case ")]
    ok(len(head) == 1, "one table header")
    return lines[head[0]], [l.split() for l in lines[head[0] + 1:]]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cal = os.path.join(tmp, "cal.json")
        p = subprocess.run([SOLBENCH, "roofline", "--device", "cpu", "--bytes", "1M", "--gemm-size", "32",
                            "--iters", "3", "--repeats", "2", "--warmup", "1", "--out", cal],
                           capture_output=True, text=True, timeout=300)
        ok(p.returncode == 0, "a CPU calibration")
        # the add probe made the best at twice the copy, as add and triad
        # are (by 1-4%) on the H100 and H200, so that the two figures differ
        with open(cal) as fh:
            c = json.load(fh)
        copy = c["bandwidth"]["copy"]["gbps"]
        c["bandwidth"]["add"]["gbps"] = 2.0 * max(v["gbps"] for v in c["bandwidth"].values())
        with open(cal, "w") as fh:
            json.dump(c, fh)
        cases = os.path.join(tmp, "cases.txt")
        with open(cases, "w") as fh:
            fh.write("# a comment line is skipped\n\nstream --device cpu --provider cpu --N 65536 --kernel copy\n")
        out = os.path.join(tmp, "out")
        plans = ["a", "tile:2/128"]
        p = subprocess.run([sys.executable, SCRIPT, "--solbench", SOLBENCH, "--cases", cases, "--env",
                            "SOLBOOK_TEST_PLAN", "--plans", ",".join(plans), "--rounds", "2", "--calibration", cal,
                            "--out", out], capture_output=True, text=True, timeout=600)
        ok(p.returncode == 0, "plan_compare.py exits 0: " + p.stdout[-300:] + p.stderr[-300:])
        names = sorted(os.listdir(out))
        ok(names == ["1-a-r0.json", "1-a-r1.json", "1-tile_2_128-r0.json", "1-tile_2_128-r1.json"],
           "one result a case, plan and round, ':' and '/' as '_': %s" % names)
        res = {}
        for pl, stem in (("a", "1-a"), ("tile:2/128", "1-tile_2_128")):
            ds = []
            for r in (0, 1):
                with open(os.path.join(out, "%s-r%d.json" % (stem, r))) as fh:
                    ds.append(json.load(fh))
            ok(all(d["status"] == "passed" for d in ds), "plan %s: both rounds passed" % pl)
            ok(all(d["config"]["suite"] == "plan-compare" for d in ds), "plan %s: suite plan-compare" % pl)
            samples = [x for d in ds for rep in d["timing"]["samples"] for x in rep]
            ok(len(samples) == 2 * 20 * 5, "plan %s: 20 x 5 samples a round" % pl)
            res[pl] = (statistics.median(samples) * 1000.0, ds[-1]["metrics"])
        header, rows = rows_of(p.stdout)
        ok("% copy" in header, "the column is % copy with a calibration")
        ok(len(rows) == 2 and [r[0] for r in rows] == ["1", "1"], "a row a plan")
        for row, pl in zip(rows, plans):
            med, m = res[pl]
            i = row.index(pl)
            ok(row[i + 1] == "%.2f" % med, "plan %s: median us over both rounds (%s)" % (pl, row[i + 1]))
            want = 100.0 * m["gbps"] / copy
            ok(row[i + 2] == "%.1f" % want, "plan %s: %% copy = GB/s / the STREAM copy (%s)" % (pl, row[i + 2]))
            ok(m["measured_ceiling_name"] == "add" and abs(want - m["pct_measured_ceiling"]) > 0.1 * want,
               "plan %s: not pct_measured_ceiling, which is against add (%.1f)" % (pl, m["pct_measured_ceiling"]))
            first = res[plans[0]][0]
            ok(row[i + 3] == "%.3f" % (med / first), "plan %s: time against the first plan" % pl)
            ok(row[i + 4] == "-" and row[i + 5] == "-", "plan %s: no torch.compile, no plan recorded" % pl)
        # the table again from the files, without a calibration
        p = subprocess.run([sys.executable, SCRIPT, "--solbench", SOLBENCH, "--cases", cases, "--env",
                            "SOLBOOK_TEST_PLAN", "--plans", ",".join(plans), "--rounds", "2", "--out", out,
                            "--summarize"], capture_output=True, text=True, timeout=300)
        ok(p.returncode == 0, "--summarize exits 0")
        ok(sorted(os.listdir(out)) == names, "--summarize runs nothing")
        header, rows = rows_of(p.stdout)
        ok("% ceil" in header and "% copy" not in header, "without a calibration the column is % ceil")
        for row, pl in zip(rows, plans):
            i = row.index(pl)
            ok(row[i + 2] == "%.1f" % res[pl][1]["pct_measured_ceiling"],
               "plan %s: %% ceil is pct_measured_ceiling" % pl)
    print("%d checks passed" % check.passed)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""extreme_times.py SOLBOOK - schema-valid extreme times never print nan or inf.

Results whose times are 0 ms, 1.7976931348623157e308 ms (the largest double; 1.8e308 is
refused as Infinity when read), 5e-324 ms or 1e-300 ms (a time so short
that its FLOP and byte rates overflow; all valid JSON numbers the result
schema takes) are ingested beside ordinary runs: as the provider of a
case, as its baseline, and both. `report geomean`, `report plausibility`,
`report weekly` and `site` then run; then a spec run whose noise and
spread of repeat medians are the largest double, through `report note`
and `report evidence`; then a calibration whose copy ceiling is
5e-324 GB/s beside the project's memory-bound runs, through `report
standing` (which sets it aside) and `report plausibility` (which lists
it). Checked: no output (terminal, .md,
.json, .svg, .html) holds nan or inf as a number or in an SVG attribute,
and each output that leaves such runs out (0 ms and the subnormal 5e-324 ms)
says how many.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOLBOOK = sys.argv[1]
HOME = os.environ["SOLBOOK_HOME"]
GOOD = os.path.join(HOME, "tests", "data", "ingest", "good")
LEFT_OUT = "run(s) left out: time not a positive finite number"
# nan or inf as a word: a number, an attribute value, a JSON value
BAD = re.compile(r"(?<![A-Za-z_])(-?nan|-?inf(inity)?)(?![A-Za-z_])", re.I)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


work = tempfile.mkdtemp(prefix="sb_extreme_")
try:
    with open(os.path.join(GOOD, "gemm_h100_cublas.json")) as f:
        base = json.load(f)
    src = os.path.join(work, "in")
    os.makedirs(src)
    n = [0]

    def put(provider, m, t, spread=0.0):
        n[0] += 1
        doc = json.loads(json.dumps(base))
        doc["run_uuid"] = "%032x" % (0xe47000 + n[0])
        doc["config"]["provider"] = provider
        if m is not None:
            doc["config"]["shape"]["M"] = m
        doc["timing"]["samples"] = [[t] * 5 for _ in range(3)]
        doc["timing"]["stats"] = {"count": 15, "max": t, "mean": t, "median": t, "min": t,
                                  "p20": t, "p80": t, "rel_noise": spread,
                                  "repeat_median_rel_spread": spread, "stdev": 0.0}
        for k in ("gbps", "tflops", "pct_datasheet_peak"):
            doc["metrics"][k] = None
        with open(os.path.join(src, "r%03d.json" % n[0]), "w") as f:
            f.write(json.dumps(doc).replace('"__T__"', repr(t)))
        return 1

    extremes = [0.0, 1.7976931348623157e308, 5e-324, 1e-300]  # 1.8e308 overflows: the loader refuses it
    left_out = (0.0, 5e-324)
    bad = 0
    m = 100
    for i, t in enumerate(extremes):
        # the provider extreme, the baseline ordinary
        put("cublas", m, 0.2)
        put("cublaslt", m, 0.25)
        # 0 and 5e-324 (subnormal) are left out and counted; the largest
        # double stays, and a ratio it makes that overflows is no ratio
        bad += put("solbook-mma", m, t) * (t in left_out)
        m += 1
        # the baseline extreme
        bad += put("cublas", m, t) * (t in left_out)
        put("solbook-mma", m, 0.2)
        m += 1
    # ordinary cases, so the geomean has rows
    for k in range(3):
        put("cublas", m, 0.2)
        put("solbook-mma", m, 0.1)
        m += 1
    db = os.path.join(work, "x.db")
    p = subprocess.run([SOLBOOK, "ingest", "--db", db, src], capture_output=True, text=True)
    if p.returncode != 0:
        fail("ingest exited %d: %s" % (p.returncode, p.stderr))
    print("ingested %d runs, %d of them left out (times 0 or 5e-324 ms)" % (n[0], bad))

    def run(args):
        p = subprocess.run([SOLBOOK] + args, capture_output=True, text=True)
        if p.returncode not in (0, 1):
            fail("solbook %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
        return p.stdout + p.stderr

    def check_text(name, text):
        for line in text.splitlines():
            if BAD.search(line):
                fail("%s holds nan/inf: %s" % (name, line.strip()[:300]))

    def check_tree(root):
        texts = {}
        for d, _, files in os.walk(root):
            for fn in files:
                path = os.path.join(d, fn)
                if fn.endswith((".md", ".json", ".svg", ".html", ".csv", ".txt")):
                    with open(path, encoding="utf-8") as f:
                        texts[path] = f.read()
                    check_text(path, texts[path])
        return texts

    want = "%d %s" % (bad, LEFT_OUT)
    out = run(["report", "geomean", "--db", db])
    check_text("report geomean", out)
    if want not in out:
        fail("report geomean does not say '%s':\n%s" % (want, out))
    out = run(["report", "geomean", "--db", db, "--format", "json"])
    check_text("report geomean --format json", out)
    if json.loads(out).get("left_out_time") != bad:
        fail("report geomean --format json does not count %d runs left out" % bad)
    print("ok: report geomean (md, json) has no nan/inf and says '%s'" % want)

    # the 1e-300 ms runs are implausible: listed with their rates unknown,
    # not as inf TFLOP/s or inf GB/s
    out = run(["report", "plausibility", "--db", db])
    check_text("report plausibility", out)
    if "too short for a finite rate" not in out:
        fail("report plausibility does not list the 1e-300 ms runs:\n%s" % out)
    print("ok: report plausibility has no nan/inf and lists the 1e-300 ms runs")

    wk = os.path.join(work, "weekly")
    run(["report", "weekly", "--db", db, "--week", "2026-W47", "--out", wk])
    texts = check_tree(wk)
    md = [t for p, t in texts.items() if p.endswith("2026-W47.md")]
    if not md or not any(want in t for t in md):
        fail("the weekly does not say '%s'" % want)
    print("ok: report weekly (%d files) has no nan/inf and says the count" % len(texts))

    site = os.path.join(work, "site")
    run(["site", "--db", db, "--out", site])
    texts = check_tree(site)
    if not any(want in t for p, t in texts.items() if p.endswith("index.html")):
        fail("the site's overview does not say '%s'" % want)
    print("ok: site (%d files) has no nan/inf and says the count" % len(texts))

    # The spec case's run whose noise and spread of repeat medians are the
    # largest double: as percentages they overflow, and the result note
    # and the evidence printed them as inf%.
    shutil.rmtree(src)
    os.makedirs(src)
    put("cublas", None, 0.2, spread=1.7976931348623157e308)
    p = subprocess.run([SOLBOOK, "ingest", "--db", db, src], capture_output=True, text=True)
    if p.returncode != 0:
        fail("ingest of the spread run exited %d: %s" % (p.returncode, p.stderr))
    out = run(["report", "note", "--db", db])
    check_text("report note", out)
    if "repeat medians spread -%, over the" not in out:
        fail("report note does not show the overflowing spread as '-':\n%s" % out)
    out = run(["report", "evidence", "--db", db])
    check_text("report evidence", out)
    if "| - | - |" not in out:
        fail("report evidence does not show the overflowing noise and spread as '-':\n%s" % out)
    print("ok: report note and report evidence show a spread past the largest double as '-'")

    # A calibration whose copy ceiling is the smallest subnormal (the
    # schema takes any positive number): the project's memory-bound runs
    # over it overflow, and the standing tables printed 'inf%'.
    cal_src = sorted(f for f in os.listdir(os.path.join(HOME, "examples", "h100", "calibration"))
                     if f.endswith("-calibration.json"))[0]
    with open(os.path.join(HOME, "examples", "h100", "calibration", cal_src)) as f:
        cal = json.load(f)
    cal["run_uuid"] = "%032x" % 0xe47ca1
    cal["bandwidth"]["copy"]["gbps"] = 5e-324
    cal["provenance"]["started_at"] = cal["provenance"]["finished_at"] = "2026-12-31T00:00:00Z"
    shutil.rmtree(src)
    os.makedirs(src)
    with open(os.path.join(src, "tiny-copy.json"), "w") as f:
        json.dump(cal, f)
    db2 = os.path.join(work, "standing.db")
    p = subprocess.run([SOLBOOK, "ingest", "--db", db2, os.path.join(HOME, "examples", "h100", "kernels"), src],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("ingest of the kernels and the subnormal calibration exited %d: %s" % (p.returncode, p.stderr))
    out = run(["report", "standing", "--db", db2])
    check_text("report standing", out)
    # The subnormal ceiling is not credible (model/calibration.h): the
    # shares are taken against the kernels' own calibration, the newest
    # credible copy ceiling, and the plausibility listing names it.
    rows = [l for l in out.splitlines() if l.startswith("| H100 SXM5 80GB | rmsnorm | ") and "%" in l]
    if not rows or any("inf" in l or "| - | - | - | - |" in l for l in rows):
        fail("report standing does not take the shares against the credible copy ceiling:\n%s" % out)
    out = run(["report", "plausibility", "--db", db2])
    check_text("report plausibility", out)
    aside = [l for l in out.splitlines() if l.startswith("| h100-sxm5-80gb | ") and "| bw.copy | " in l
             and "e-324 GB/s |" in l]
    if len(aside) != 1 or "| 3350 GB/s | 0 |" not in aside[0]:
        fail("report plausibility does not list the 5e-324 GB/s copy ceiling as set aside:\n%s" % out)
    print("ok: a 5e-324 GB/s copy ceiling is set aside (listed by report plausibility); the standing "
          "shares use the credible one, not inf%")

    # Without the kernels' own calibration the set-aside one is the card's
    # only one: out/EVIDENCE.md says its copy ceiling was set aside, not
    # that no calibration is stored.
    kernels = os.path.join(work, "kernels")
    shutil.copytree(os.path.join(HOME, "examples", "h100", "kernels"), kernels)
    os.remove(os.path.join(kernels, "calibration.json"))
    db3 = os.path.join(work, "aside.db")
    p = subprocess.run([SOLBOOK, "ingest", "--db", db3, kernels, src], capture_output=True, text=True)
    if p.returncode != 0:
        fail("ingest of the kernels with only the subnormal calibration exited %d: %s" % (p.returncode, p.stderr))
    out = run(["report", "evidence", "--db", db3])
    check_text("report evidence", out)
    if ("every copy ceiling the stored calibrations of this SKU state is set aside" not in out
            or "no calibration of this SKU is stored" in out):
        fail("report evidence does not say the only copy ceiling was set aside:\n%s" % out)
    print("ok: with only a set-aside copy ceiling, report evidence says so instead of 'no calibration'")
finally:
    shutil.rmtree(work, ignore_errors=True)

#!/usr/bin/env python3
"""bench/scripts/run_against_evidence.py on results written here (no GPU).

A run folder with two fused cases (one the evidence has, one it has not),
a failed fused result, a reference result and a torch.compile result; an
evidence folder with two runs of the first case (the later one must be the
one compared), one of another provider, and the run folder's own copy
nested inside it (never compared with itself). Checks each printed row:
the medians in microseconds, the evidence's commit, both ratios, the
launch recorded, and the errors for a missing folder and a run with no
result of the provider. Prints each check it made.
"""
import json
import os
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import check  # noqa: E402 (tests/check.py)
from check import ok  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "scripts",
                      "run_against_evidence.py")


def result(path, provider, shape, median_ms, sha, finished, status="passed", run_params=None):
    d = {"schema": "solbook.result.v1", "status": status,
         "config": {"suite": "memory-bound", "op": "rmsnorm", "mode": "bwd", "dtype": "bf16", "shape": shape,
                    "params": {"eps": 1e-06, "weight_dtype": "same"}, "provider": provider,
                    "run_params": run_params or {}},
         "timing": {"stats": {"median": median_ms}},
         "provenance": {"finished_at": finished, "git": {"sha": sha},
                        "device": {"name": "NVIDIA H200", "uuid": "GPU-test"}}}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(d, fh)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True, timeout=60)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        ev = os.path.join(tmp, "kernels-full")
        r = os.path.join(ev, "new-run")  # nested in the evidence, as a committed run is
        a, b = {"M": 65536, "N": 4096}, {"M": 4096, "N": 8192}
        result(os.path.join(r, "memory", "a-fused.json"), "fused", a, 0.4, "bbbbbbb1", "2026-11-25T16:00:00Z",
               run_params={"bwd_layout": "bulk:4 threads=256"})
        result(os.path.join(r, "memory", "b-fused.json"), "fused", b, 0.06, "bbbbbbb1", "2026-11-25T16:00:01Z")
        result(os.path.join(r, "memory", "a-fused-failed.json"), "fused", a, 0.1, "bbbbbbb1",
               "2026-11-25T16:00:02Z", status="failed")
        result(os.path.join(r, "memory", "a-reference.json"), "reference", a, 4.0, "bbbbbbb1", "2026-11-25T16:00:03Z")
        result(os.path.join(r, "torch", "a-torch-compile.json"), "torch-compile", a, 0.5, "bbbbbbb1",
               "2026-11-25T16:01:00Z")
        result(os.path.join(ev, "old1", "a-fused.json"), "fused", a, 0.5, "aaaaaaa1", "2026-11-20T10:00:00Z")
        result(os.path.join(ev, "old2", "a-fused.json"), "fused", a, 0.45, "aaaaaaa2", "2026-11-21T10:00:00Z")
        result(os.path.join(ev, "old2", "a-torch-compile.json"), "torch-compile", a, 0.1, "aaaaaaa2",
               "2026-11-21T10:00:00Z")
        p = run(r, ev)
        ok(p.returncode == 0, "exits 0: " + p.stderr[-300:])
        lines = p.stdout.strip().splitlines()
        ok(lines[0].startswith("run: ") and "NVIDIA H200 GPU-test" in lines[0], "the header names the run's card")
        ok("two cards of one kind" in lines[1], "the header warns of ratios across cards")
        rows = [l.split() for l in lines[3:]]
        ok(len(rows) == 2, "a row a passed fused case (not the failed one, not the reference): %d" % len(rows))
        ra = [x for x in rows if x[3] == "M=65536,N=4096"][0]
        ok(ra[4] == "400.00" and ra[5] == "450.00", "case a: the run's median and the later evidence's, in us")
        ok(ra[6] == "aaaaaaa", "case a: the evidence's commit (the later one)")
        ok(ra[7] == "%.3f" % (0.4 / 0.45), "case a: run / evidence")
        ok(ra[8] == "%.3f" % (0.4 / 0.5), "case a: against torch.compile of the same run, not the evidence's")
        ok(" ".join(ra[9:]) == "bulk:4 threads=256", "case a: the launch the run recorded")
        rb = [x for x in rows if x[3] == "M=4096,N=8192"][0]
        ok(rb[5] == "-" and rb[6] == "-" and rb[7] == "-" and rb[8] == "-",
           "case b: no evidence and no torch.compile: dashes, not its own result")
        p = run(os.path.join(tmp, "nowhere"), ev)
        ok(p.returncode == 2 and "nowhere: not a folder" in p.stderr, "a missing folder: exit 2 and its name")
        p = run(r, ev, "--provider", "liger")
        ok(p.returncode == 1 and "no passed liger result" in p.stderr, "no result of the provider: exit 1")
        # the evidence's results packed in results.tar.gz (scripts/archive_superseded.py --pack)
        # read as if loose: the same rows
        before = run(r, ev).stdout
        for folder in ("old1", "old2"):
            d = os.path.join(ev, folder)
            with tarfile.open(os.path.join(d, "results.tar.gz"), "w:gz") as t:
                t.add(os.path.join(d, "a-fused.json"), arcname="a-fused.json")
            os.remove(os.path.join(d, "a-fused.json"))
        p = run(r, ev)
        ok(p.returncode == 0 and p.stdout == before, "evidence packed in results.tar.gz gives the same rows")
    print("%d checks passed" % check.passed)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""e2e_session_extremes.py - a schema-valid run of a measuring session
whose rounds cannot be paired (every sample 0, a subnormal 5e-324, or
1.7e308, whose median overflows) is refused at ingest in one line naming
its file, and stores nothing; the session's other runs are stored, and
`solbook session` and `solbook site` read them and exit 0 with the
fused kernel's speedups.

usage: e2e_session_extremes.py SOLBOOK SESSION_ARCHIVE"""
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import uuid


def run(*args):
    return subprocess.run(args, capture_output=True, text=True)


def scaled(o, f):
    """o with every float f(x), the counts and relative spreads kept."""
    if isinstance(o, dict):
        return {k: (x if k in ("count", "rel_noise", "repeat_median_rel_spread") else scaled(x, f))
                for k, x in o.items()}
    if isinstance(o, list):
        return [scaled(x, f) for x in o]
    if isinstance(o, float):
        return f(o)
    return o


def extracted(archive, folder):
    """The archive's members extracted into folder (made); folder."""
    with tarfile.open(archive) as t:
        t.extractall(folder, filter="data")
    return folder


def main():
    solbook, archive = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="sb_session_extremes_")
    try:
        good = extracted(archive, os.path.join(tmp, "good"))
        docs = sorted(f for f in os.listdir(good) if f.endswith(".json"))
        fused = [f for f in docs if json.load(open(os.path.join(good, f)))["config"]["provider"] == "fused"]
        if not fused:
            sys.exit("FAIL: %s has no fused run" % archive)
        checked = 0
        for value in (0.0, 5e-324, 1.7e308):
            db = os.path.join(tmp, "t%d.db" % checked)
            bad = os.path.join(tmp, "bad%d" % checked)
            os.mkdir(bad)
            doc = json.load(open(os.path.join(good, fused[0])))
            doc["run_uuid"] = uuid.uuid4().hex
            doc["timing"] = {k: (scaled(x, lambda _: value) if k in ("samples", "stats", "kernel") else x)
                             for k, x in doc["timing"].items()}
            path = os.path.join(bad, "extreme.json")
            json.dump(doc, open(path, "w"))
            p = run(solbook, "ingest", "--db", db, good, bad)
            lines = [l for l in p.stderr.splitlines() if l.startswith("solbook: ")]
            if p.returncode != 1 or len(lines) != 1 or not lines[0].startswith("solbook: %s: /timing/" % path) \
                    or "a session's rounds are paired by their medians" not in lines[0]:
                sys.exit("FAIL: %g: want one refusal naming %s, exit 1; got %d: %s" % (value, path, p.returncode, p.stderr))
            stored = json.loads(run(solbook, "runs", "--db", db, "--json").stdout)
            if len(stored) != len(docs):
                sys.exit("FAIL: %g: %d runs stored, want the session's %d" % (value, len(stored), len(docs)))
            s = run(solbook, "session", "--db", db)
            if s.returncode != 0 or "| rmsnorm |" not in s.stdout:
                sys.exit("FAIL: %g: session exited %d: %s" % (value, s.returncode, s.stderr))
            site = os.path.join(tmp, "site%d" % checked)
            s = run(solbook, "site", "--db", db, "--out", site)
            if s.returncode != 0 or not os.path.exists(os.path.join(site, "index.html")):
                sys.exit("FAIL: %g: site exited %d: %s" % (value, s.returncode, s.stderr))
            print("ok: samples of %g refused (%s); %d runs stored; session and site exit 0" %
                  (value, lines[0].split(": ", 3)[-1], len(stored)))
            checked += 1
        print("e2e_session_extremes: %d extreme runs refused, the session read each time" % checked)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()

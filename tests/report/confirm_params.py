#!/usr/bin/env python3
"""confirm_params.py - `solbook confirm` hands bench/scripts/ab_compare.sh
only case lines it reads as solbench was given them: ab_compare.sh splits
a line at spaces and expands patterns, so a stored parameter value such
as "x --calibration /etc/shadow --out /tmp/pwned *" would reach solbench
as options of its own. Such a step, and one whose parameter name is no
solbench option, is listed with a comment saying why it is not
re-measured; the other steps get their ab_compare.sh line; exit 0.

usage: confirm_params.py SOLBOOK SESSION_ARCHIVE"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid

INJECT = "x --calibration /etc/shadow --out /tmp/pwned *"


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "model"))
from e2e_session_extremes import extracted, scaled  # noqa: E402


def main():
    solbook, archive = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="sb_confirm_params_")
    try:
        src = extracted(archive, os.path.join(tmp, "src"))
        shas = [hashlib.sha1(b"confirm-params-%d" % i).hexdigest() for i in range(2)]
        cases = []
        for k, sha in enumerate(shas):
            out = os.path.join(tmp, "c%d" % k)
            os.mkdir(out)
            for name in sorted(os.listdir(src)):
                d = json.load(open(os.path.join(src, name)))
                d.pop("session", None)
                d["run_uuid"] = uuid.uuid4().hex
                c = d["config"]
                c["suite"] = "confirm-params"
                key = (c["mode"], json.dumps(c["shape"], sort_keys=True))
                if key not in cases:
                    cases.append(key)
                i = cases.index(key)
                if i == 0:
                    c["params"]["note"] = INJECT
                elif i == 1:
                    c["params"]["<b>"] = 1
                d["provenance"]["git"].update({"sha": sha, "dirty": False})
                d["provenance"]["tool"]["name"] = "solbench"
                for t in ("started_at", "finished_at"):
                    d["provenance"][t] = d["provenance"][t].replace("2026-12-06", "2026-12-0%d" % (4 + k))
                if k == 1 and c["provider"] == "fused":
                    d["timing"] = {a: (scaled(v, lambda x: x * 1.6) if a in ("samples", "stats", "kernel") else v)
                                   for a, v in d["timing"].items()}
                json.dump(d, open(os.path.join(out, name), "w"))
        db = os.path.join(tmp, "c.db")
        p = subprocess.run([solbook, "ingest", "--db", db, os.path.join(tmp, "c0"), os.path.join(tmp, "c1")],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("FAIL: ingest: %s" % p.stderr)
        subprocess.run([solbook, "commits", "import", "--db", db, "-"], check=True, capture_output=True,
                       input="%s %s 1002\n%s 1001\n" % (shas[1], shas[0], shas[0]), text=True)
        p = subprocess.run([solbook, "confirm", "--db", db], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("FAIL: confirm exited %d: %s" % (p.returncode, p.stderr))
        lines = p.stdout.splitlines()
        quoting = [l for l in lines if "needs shell quoting" in l]
        unknown = [l for l in lines if "is not reproduced" in l and '"<b>"' in l]
        printf = [l for l in lines if l.startswith("printf ")]
        steps = [l for l in lines if l.startswith("# rmsnorm")]
        if not quoting or not unknown or not printf:
            sys.exit("FAIL: want a quoting comment, a parameter-name comment and ab_compare.sh lines:\n" + p.stdout)
        if any("calibration" in l or "pwned" in l for l in printf):
            sys.exit("FAIL: an ab_compare.sh line carries the injected options:\n" + p.stdout)
        # what ab_compare.sh does with each line: split at spaces
        for l in printf:
            case = l.split("'")[1]
            if any(w.startswith("--calibration") or w.startswith("--out") for w in case.split()):
                sys.exit("FAIL: %s" % l)
        print("confirm_params: %d steps; %d not re-measured for a value that needs quoting, %d for a parameter "
              "name; %d ab_compare.sh lines, none carrying an injected option" %
              (len(steps), len(quoting), len(unknown), len(printf)))
    finally:
        shutil.rmtree(tmp)


main()

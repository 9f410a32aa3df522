#!/usr/bin/env python3
"""`solbench suite --gpus` hands the run over to solbench-spread: --preset,
--out and --gpus become solbench-spread's, this solbench is named with
--solbench, and every other option goes after "--" to each per-case call.
A stand-in solbench-spread (SOLBENCH_SPREAD) records what it was given.
Without solbench-spread the error is one line. usage: SCRIPT SOLBENCH"""
import os
import subprocess
import sys
import tempfile

SOLBENCH = os.path.realpath(sys.argv[1])
fails = 0


def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    fails += not cond


with tempfile.TemporaryDirectory() as tmp:
    record = os.path.join(tmp, "argv.txt")
    stand_in = os.path.join(tmp, "spread.sh")
    with open(stand_in, "w") as f:
        f.write('#!/bin/sh\nfor a in "$@"; do printf "%%s\\n" "$a"; done > %s\nexit 0\n' % record)
    os.chmod(stand_in, 0o755)
    env = dict(os.environ, SOLBENCH_SPREAD=stand_in)
    p = subprocess.run([SOLBENCH, "suite", "--preset", "smoke", "--iters", "2", "--gpus", "0,1", "--out", tmp,
                        "--calibration", "cal.json"], env=env, capture_output=True, text=True)
    check(p.returncode == 0, "suite --gpus execs solbench-spread (exit %d, %s)" % (p.returncode, p.stderr.strip()))
    got = open(record).read().splitlines() if os.path.exists(record) else []
    want = ["--preset", "smoke", "--out", tmp, "--gpus", "0,1", "--solbench", SOLBENCH, "--",
            "--iters", "2", "--calibration", "cal.json"]
    check(got == want, "solbench-spread got %s" % got)
    p = subprocess.run([SOLBENCH, "suite", "--preset", "smoke", "--gpus=all", "--out", tmp], env=env,
                       capture_output=True, text=True)
    got = open(record).read().splitlines()
    check(p.returncode == 0 and got[got.index("--gpus") + 1] == "all", "--gpus=all is passed on")
    env["SOLBENCH_SPREAD"] = os.path.join(tmp, "missing")
    p = subprocess.run([SOLBENCH, "suite", "--preset", "smoke", "--gpus", "0", "--out", tmp], env=env,
                       capture_output=True, text=True)
    lines = p.stderr.splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "needs solbench-spread" in lines[0],
          "no solbench-spread: exit 2, one line (%s)" % p.stderr.strip())
    p = subprocess.run([SOLBENCH, "suite", "--preset", "smoke", "--out", tmp, "--gpus"], env=env,
                       capture_output=True, text=True)
    check(p.returncode == 2 and "--gpus needs a value" in p.stderr, "--gpus without a value is a usage error")
print("%d passed, %d failed" % (5 - fails, fails))
sys.exit(1 if fails else 0)

"""train_env.py - what the training tests share: the Python that has torch
and transformers ($SOLBOOK_TRAIN_PYTHON, else .venv-train/ from
scripts/install_train_deps.sh, else this Python), skipping (exit 77) where
there is none, and small checks that print what they checked."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SKIP = 77
failures = []


def train_python(need=("torch", "transformers")):
    cands = [os.environ.get("SOLBOOK_TRAIN_PYTHON"), os.path.join(TOP, ".venv-train", "bin", "python3"),
             sys.executable]
    for c in cands:
        if not c or not os.path.exists(c):
            continue
        probe = subprocess.run([c, "-c", "import " + ", ".join(need)], capture_output=True, text=True)
        if probe.returncode == 0:
            return c
    print("skip: no Python here has %s (scripts/install_train_deps.sh installs them into .venv-train/)"
          % " and ".join(need))
    sys.exit(SKIP)


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(cmd, expect_rc, what, env=None, timeout=600):
    e = dict(os.environ)
    e.setdefault("SOLBOOK_HOME", TOP)
    e.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout)
    ok = p.returncode == expect_rc
    check(ok, "%s: exit %d (want %d)" % (what, p.returncode, expect_rc))
    if not ok:
        print(p.stdout[-4000:])
        print(p.stderr[-4000:])
    return p


def validate_and_ingest(solbook, files, db):
    """solbook validate, then solbook ingest into db: every file valid and stored."""
    p = run([solbook, "validate"] + files, 0, "solbook validate")
    check(p.stdout.count(": valid") == len(files), "all %d files valid" % len(files))
    p = run([solbook, "ingest", "--db", db] + files, 0, "ingest")
    check("%d stored" % len(files) in p.stdout, "all %d files stored" % len(files))


def load(path):
    with open(path) as fh:
        return json.load(fh)


def query(db, sql, args=()):
    c = sqlite3.connect(db)
    try:
        return c.execute(sql, args).fetchall()
    finally:
        c.close()


def finish(tmp=None):
    """Exit 1 when a check failed (its files kept for a look), else 0 with
    tmp removed."""
    if failures:
        print("%d checks failed%s" % (len(failures), "; files in " + tmp if tmp else ""))
        sys.exit(1)
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    print("all checks passed")
    sys.exit(0)

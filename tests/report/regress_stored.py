#!/usr/bin/env python3
"""regress_stored.py SOLBOOK ROOT - the stored regression steps (migration
015) give what a walk over every run gives, and stay so as the database
changes.

A database of synthetic runs (perf/gen_site_db.py, one suite) is reported
on with `report regressions` (the stored steps: stored at the first call,
read after) and with `--suite synthetic` (the same runs, walked whole
without the stored steps): the two Markdown lists and JSON documents must
be the same bytes. This is checked after the first report, after runs of
a few series are added (only those series are walked again), after a run
is forgotten and after a commits import (every series walked again),
and after sweeps of every series at a new commit (each series' steps
extended from its stored last one, in first-measured and in git order,
and walked whole where the new commit leaves git order).
Each time the stored basis must name the database's runs as they are."""
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

solbook, root = sys.argv[1], sys.argv[2]
gen = os.path.join(root, "perf", "gen_site_db.py")
work = tempfile.mkdtemp()
db = os.path.join(work, "s.db")


def run(*args, ok=(0, 1)):
    p = subprocess.run([solbook] + list(args), capture_output=True, text=True)
    assert p.returncode in ok, (args, p.returncode, p.stderr)
    return p.stdout


def gen_runs(n, append):
    subprocess.run([sys.executable, gen, db, str(n), "--days", "3"] + (["--append"] if append else []),
                   check=True, capture_output=True)


def check(label):
    stored_md = run("report", "regressions", "--db", db)
    walked_md = run("report", "regressions", "--db", db, "--suite", "synthetic")
    stored_js = run("report", "regressions", "--db", db, "--format", "json")
    walked_js = run("report", "regressions", "--db", db, "--suite", "synthetic", "--format", "json")
    assert stored_md == walked_md, label + ": the stored steps' list differs from the walk's"
    assert stored_js == walked_js, label + ": the stored steps' JSON differs from the walk's"
    c = sqlite3.connect(db)
    runs, last = c.execute("SELECT count(*), max(id) FROM runs").fetchone()
    basis = c.execute("SELECT runs, last_run FROM rg_basis").fetchone()
    steps = c.execute("SELECT count(*) FROM rg_steps").fetchone()[0]
    groups = c.execute("SELECT count(*) FROM rg_groups").fetchone()[0]
    c.close()
    assert basis == (runs, last), (label, basis, runs, last)
    assert steps > 0 and groups > 0, (label, steps, groups)
    first = stored_md.splitlines()[0]
    print("%s: stored and walked lists the same (%d bytes md, %d bytes JSON); %d steps of %d groups "
          "stored for %d runs; %s" % (label, len(stored_md), len(stored_js), steps, groups, runs, first[:60]))
    return steps


try:
    gen_runs(6000, False)
    n0 = check("first report")
    gen_runs(40, True)
    n1 = check("40 runs added")
    assert n1 > n0, (n0, n1)
    # a sweep of every series at a new commit: each series' steps go on
    # from its stored last step
    gen_runs(1728, True)
    n2 = check("a sweep of 1728 runs added")
    assert n2 > n1, (n1, n2)
    c = sqlite3.connect(db)
    victim = c.execute("SELECT max(run_id) FROM configs WHERE provider = 'liger'").fetchone()[0]
    c.close()
    run("forget", "--db", db, str(victim), ok=(0,))
    check("run %d forgotten" % victim)
    c = sqlite3.connect(db)
    shas = [r[0] for r in c.execute("SELECT git_sha FROM provenance GROUP BY git_sha ORDER BY min(run_id)")]
    c.close()
    # and the commit gen_site_db.py --append measures next, so that the
    # sweep below follows git order
    nxt = len([s for s in shas if s != "c" * 40])
    shas.append(hashlib.sha1(b"commit %d" % nxt).hexdigest())
    log = os.path.join(work, "commits.txt")
    with open(log, "w") as f:
        # newest first, as git log writes it: each commit's parent is the one before it
        for i in range(len(shas) - 1, -1, -1):
            f.write("%s %s %d\n" % (shas[i], shas[i - 1] if i else "", 1700000000 + i))
    run("commits", "import", "--db", db, log, ok=(0,))
    check("commits imported")
    gen_runs(1728, True)
    check("a sweep of 1728 runs at a commit in git order added")
    gen_runs(1728, True)
    check("a sweep of 1728 runs at a commit git does not know added")
finally:
    shutil.rmtree(work)

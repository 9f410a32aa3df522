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
after an Nsight Compute profile with a launch for each of a stored run's
samples is attached to it (the run turns profiled and leaves its series:
every series walked again), and after sweeps of every series at a new commit (each series' steps
extended from its stored last one, in first-measured and in git order,
and walked whole where the new commit leaves git order), and after the
runs of one commit arrive in two parts (the second part's steps join the
Benjamini-Hochberg families the first part's steps began).
Each time the stored basis must name the database's runs as they are,
and the settled figures kept beside the steps (migration 016: each
step's adjusted p-value, each noise class's figures) must equal those a
walk over every series stores from nothing."""
import csv
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
    settled_as_full(label)
    first = stored_md.splitlines()[0]
    print("%s: stored and walked lists the same (%d bytes md, %d bytes JSON); %d steps of %d groups "
          "stored for %d runs; %s" % (label, len(stored_md), len(stored_js), steps, groups, runs, first[:60]))
    return steps


def settled(path):
    """The settled figures of a database, keyed by what names them (ids
    differ between databases)."""
    c = sqlite3.connect(path)
    steps = sorted(c.execute(
        "SELECT g.case_key, g.provider, g.sku, s.seq, s.p_adjusted, s.verdict, s.threshold, s.latest"
        " FROM rg_steps s JOIN rg_groups g ON g.grp = s.grp"))
    groups = sorted(c.execute("SELECT case_key, provider, sku, drift_tested FROM rg_groups"))
    classes = sorted(c.execute(
        "SELECT k.class_key, f.tested, f.top_change, f.second_change, f.flagged,"
        " (SELECT g.case_key || '/' || g.provider || '/' || g.sku || '/' || f.top_seq"
        "    FROM rg_groups g WHERE g.grp = f.top_grp)"
        " FROM rg_class_figs f JOIN rg_classes k ON k.id = f.class"))
    dirty = c.execute("SELECT (SELECT count(*) FROM rg_dirty_families) + (SELECT count(*) FROM rg_dirty_classes)"
                      ).fetchone()[0]
    c.close()
    return steps, groups, classes, dirty


def step_indexes(path):
    """The indexes of rg_steps as sqlite_master holds them: a full walk
    drops them while it writes the steps and must make them again."""
    c = sqlite3.connect(path)
    v = sorted(c.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rg_steps'"))
    c.close()
    return v


def settled_as_full(label):
    full = os.path.join(work, "full.db")
    for f in (full, full + "-wal", full + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    c = sqlite3.connect(db)
    c.execute("VACUUM INTO ?", (full,))
    c.close()
    c = sqlite3.connect(full)
    c.execute("DELETE FROM rg_basis")  # the next report walks every series
    c.commit()
    c.close()
    run("report", "regressions", "--db", full)
    mine, theirs = settled(db), settled(full)
    for path in (db, full):
        assert step_indexes(path) == migrated_indexes, (label, path, step_indexes(path))
    assert mine[3] == 0, (label, "families or classes left unsettled", mine[3])
    assert any(s[4] is not None for s in mine[0]), (label, "no step has an adjusted p-value")
    assert any(k[1] > 3 for k in mine[2]), (label, "no noise class has a threshold of its own")
    for name, a, b in (("steps", mine[0], theirs[0]), ("groups", mine[1], theirs[1]),
                       ("noise classes", mine[2], theirs[2])):
        if a != b:
            diff = [x for x in a if x not in set(b)][:3]
            raise AssertionError("%s: the settled %s differ from a full walk's: %r" % (label, name, diff))


def add_in_two_parts():
    """A sweep of every series at a new commit, stored in two parts (by
    run id, as two ingests store them): the second part's steps join the
    families of the first part's."""
    scratch = os.path.join(work, "scratch.db")
    if os.path.exists(scratch):
        os.remove(scratch)
    c = sqlite3.connect(db)
    c.execute("VACUUM INTO ?", (scratch,))
    last = c.execute("SELECT max(id) FROM runs").fetchone()[0]
    c.close()
    subprocess.run([sys.executable, gen, scratch, "1728", "--days", "3", "--append"], check=True,
                   capture_output=True)
    c = sqlite3.connect(scratch)
    ids = [r[0] for r in c.execute("SELECT id FROM runs WHERE id > ? ORDER BY id", (last,))]
    tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
              if r[0] not in ("runs", "series_latest", "series_pending")]
    # the stored columns (generated ones are computed again)
    cols = {t: [r[1] for r in c.execute("PRAGMA table_xinfo(%s)" % t) if r[6] == 0] for t in tables + ["runs"]}
    tables = [t for t in tables if "run_id" in cols[t]]
    c.close()
    half = len(ids) // 2
    for part, chosen in (("first", ids[:half]), ("second", ids[half:])):
        c = sqlite3.connect(db)
        c.execute("ATTACH ? AS s", (scratch,))
        q = ",".join(str(i) for i in chosen)
        for t in ["runs"] + tables:
            c.execute("INSERT INTO main.%s (%s) SELECT %s FROM s.%s WHERE %s IN (%s)"
                      % (t, ",".join(cols[t]), ",".join(cols[t]), t, "id" if t == "runs" else "run_id", q))
        c.execute("INSERT INTO series_fold VALUES (1)")
        c.commit()
        c.close()
        check("the %s part of a sweep of 1728 runs at one commit added" % part)


def profile_attached():
    """An ncu CSV with a launch for each sample of a run the stored steps
    name: the run turns profiled (left out of every series), which the
    number and the greatest id of the runs do not show."""
    c = sqlite3.connect(db)
    victim, samples = c.execute(
        "SELECT m.run_id, m.sample_count FROM metrics m JOIN configs f ON f.run_id = m.run_id"
        " WHERE f.provider = 'liger' AND f.profiler IS NULL"
        " AND m.run_id IN (SELECT new_run FROM rg_steps) ORDER BY m.run_id DESC LIMIT 1").fetchone()
    c.close()
    with open(os.path.join(root, "examples", "h100", "rmsnorm-fwd-ncu", "torch.ncu.csv"), newline="") as f:
        rows = list(csv.reader(f))
    path = os.path.join(work, "profile.ncu.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerows(rows[:2])
        for i in range(samples):
            w.writerow([str(i)] + rows[2][1:])
    run("ingest", "--db", db, "--ncu", path, "--run", str(victim), ok=(0,))
    c = sqlite3.connect(db)
    assert c.execute("SELECT profiler FROM configs WHERE run_id = ?", (victim,)).fetchone()[0] == "ncu"
    c.close()
    check("run %d turned profiled" % victim)


try:
    gen_runs(6000, False)
    migrated_indexes = step_indexes(db)
    assert len(migrated_indexes) >= 4, migrated_indexes
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
    profile_attached()
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
    add_in_two_parts()
finally:
    shutil.rmtree(work)

#!/usr/bin/env python3
"""check_ingest_plausible.py SOLBOOK DATA_DIR - the plausibility verdict
stored at ingest (migration 014, table run_verdicts), on the real H100/H200
runs of tests/data/report/plausible/:

1. the H100's results ingested alone are judged against the datasheet
   (calib_run NULL), every result run has a stored verdict;
2. its calibrations ingested after them, one at a time, judge its runs
   again: the count of changed verdicts `solbook ingest` prints is the
   count that changed in the table, and each run is then held against a
   calibration;
3. the H200's calibration and results ingested together: each passing run
   stored implausible is printed with its file, case and reason, and the
   count line agrees with the table;
4. `report plausibility` reads the stored verdicts and prints what it
   prints when it judges every run itself (the basis row removed);
5. a database from before migration 014 gets no verdicts from the
   migration, reports judge its runs meanwhile, and the next ingest stores
   them all at once."""
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

solbook, data = sys.argv[1:3]
work = tempfile.mkdtemp()
db = os.path.join(work, "pf.db")


def fail(msg):
    sys.exit("FAIL: " + msg)


def ingest(path_db, *paths):
    p = subprocess.run([solbook, "ingest", "--db", path_db, *paths], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"ingest exited {p.returncode}: {p.stderr}")
    return p.stdout


def report(path_db):
    return subprocess.run([solbook, "report", "plausibility", "--db", path_db], check=True,
                          capture_output=True, text=True).stdout


def verdicts(path_db):
    c = sqlite3.connect(path_db)
    rows = c.execute("SELECT v.run_id, v.verdict, v.calib_run, v.reason, r.source_path, r.status"
                     " FROM run_verdicts v JOIN runs r ON r.id = v.run_id").fetchall()
    results = c.execute("SELECT count(*) FROM runs WHERE schema = 'solbook.result.v1'").fetchone()[0]
    c.close()
    return {r[0]: r[1:] for r in rows}, results


def sql(path_db, script):
    c = sqlite3.connect(path_db)
    c.executescript(script)
    c.close()


def counts(out):
    m = re.search(r"^plausibility: (\d+) new runs? judged, (\d+) implausible", out, re.M)
    if not m:
        fail(f"ingest printed no plausibility count:\n{out}")
    again = re.search(r"^plausibility: (\d+) runs? judged again \(([^)]*)\), (\d+) changed verdict", out, re.M)
    return int(m[1]), int(m[2]), (int(again[1]), again[2], int(again[3])) if again else None


h100 = os.path.join(data, "h100")
results = [p for p in sorted(glob.glob(os.path.join(h100, "*.json"))) if "calibration" not in p]

# 1. results alone: the datasheet
out = ingest(db, *results)
new, bad, again = counts(out)
v1, nres = verdicts(db)
if len(v1) != nres or new != nres:
    fail(f"{nres} result runs, {len(v1)} stored verdicts, {new} said judged")
if again:
    fail(f"nothing was stored before, yet ingest judged runs again: {again}")
if any(calib is not None for _, calib, _, _, _ in v1.values()):
    fail("a run was held against a calibration before any was stored")
print(f"ok: {nres} H100 runs ingested without a calibration, each judged against the datasheet")

# 2. the calibrations, one at a time: the H100's runs judged again each time
# (copy alone holds its read-only cross entropy against copy; the read
# probe then against read)
v2 = v1
for name in ("calibration.json", "calibration-read.json"):
    before = v2
    out = ingest(db, os.path.join(h100, name))
    new, bad, again = counts(out)
    v2, _ = verdicts(db)
    changed = sum(1 for k in before if before[k][0] != v2[k][0])
    if not again or again[0] != len(before) or again[2] != changed:
        fail(f"{name}: expected {len(before)} runs judged again, {changed} changed; ingest said {again}")
    if changed == 0:
        fail(f"{name}: no verdict changed with the calibration: nothing was checked")
    passing = [k for k in v2 if v2[k][4] == "passed" and not v2[k][2].startswith("not judged")]
    if not passing or any(v2[k][1] is None for k in passing):
        fail(f"{name}: a passing H100 run is not held against a stored calibration")
    print(f"ok: {name} judged the H100's {again[0]} runs again ({again[1]}); {changed} verdicts changed, "
          f"as printed, and {len(passing)} passing runs name their calibration")

# 3. the H200 in one ingest: implausible runs printed with file, case and reason
out = ingest(db, os.path.join(data, "h200"))
new, bad, again = counts(out)
v3, nres = verdicts(db)
fresh = {k: v for k, v in v3.items() if k not in v2}
flagged = {k for k, v in fresh.items() if v[0] == "implausible" and v[4] == "passed"}
lines = [l for l in out.splitlines() if l.startswith("implausible: ")]
if new != len(fresh) or bad != len(flagged) or len(lines) != len(flagged):
    fail(f"{len(fresh)} new verdicts, {len(flagged)} implausible; ingest said {new}, {bad}, "
         f"{len(lines)} lines")
if not flagged:
    fail("no H200 run stored implausible: the printed lines were not checked")
for k in flagged:
    reason, path = v3[k][2], v3[k][3]
    if not any(path in l and f"run {k}:" in l and reason in l and "GB/s" in l for l in lines):
        fail(f"run {k} ({path}) stored implausible, no line names it with its reason")
print(f"ok: {len(fresh)} H200 runs stored with their calibration, {len(flagged)} implausible, each printed "
      f"with its file, case and reason")

# 4. reports read the stored verdicts, and they are what judging gives
stored_view = report(db)
judged = os.path.join(work, "judged.db")
shutil.copy(db, judged)
sql(judged, "DELETE FROM run_verdicts_basis;")
if report(judged) != stored_view:
    fail("report plausibility differs between stored verdicts and verdicts judged by the report")
if "| implausible |" not in stored_view:
    fail("report plausibility lists no implausible run")
print("ok: report plausibility from the stored verdicts equals the report that judges every run")

# 5. a database from before migration 014
old = os.path.join(work, "old.db")
shutil.copy(db, old)
sql(old, "DROP TABLE run_verdicts; DROP TABLE run_verdicts_basis;"
    # and what later migrations made (015: the stored regression steps;
    # 016: their settled figures, whose indexes go with rg_steps)
    " DROP TRIGGER runs_rg_changes; DROP TRIGGER commits_rg_insert; DROP TRIGGER commits_rg_update;"
    " DROP TRIGGER commits_rg_delete; DROP TABLE rg_steps; DROP TABLE rg_groups; DROP TABLE rg_commits;"
    " DROP TABLE rg_classes; DROP TABLE rg_noise; DROP TABLE rg_basis; DROP TABLE rg_changes;"
    " DROP TABLE rg_class_figs; DROP TABLE rg_dirty_families; DROP TABLE rg_dirty_classes;"
    " DROP TRIGGER runs_rg_count_insert; DROP TRIGGER runs_rg_count_delete; DROP TABLE rg_runs;"
    " PRAGMA user_version = 13;")
if report(old) != stored_view:
    fail("a database migrated from 013 reports other verdicts before its next ingest")
v5, _ = verdicts(old)
if v5:
    fail(f"the migration stored {len(v5)} verdicts; they come from the next ingest")
out = ingest(old, os.path.join(h100, "calibration.json"))  # a duplicate: nothing new is stored
new, bad, again = counts(out)
v6, nres = verdicts(old)
if len(v6) != nres or new != nres or {k: v[0] for k, v in v6.items()} != {k: v[0] for k, v in v3.items()}:
    fail(f"after migrating and ingesting: {len(v6)} verdicts of {nres} runs, {new} said judged, "
         f"or a verdict other than the database's that was never migrated")
print(f"ok: a database from schema 13 gets no verdicts from the migration and all {nres} at its next "
      f"ingest, the same as stored at ingest")
shutil.rmtree(work)

#!/usr/bin/env python3
"""The main job's kind of database: every result folder main.sh ingests,
the measuring sessions of examples/*/sessions with them, in a fresh
database. Every headline pair of `solbook report geomean` (JSON and
Markdown) must have the same GPU UUID, session, timing method and check
on both sides, as stored in run_sessions, and name its session and GPU;
no paired case may appear again in the unpaired section.

Usage: check_paired_headlines.py SOLBOOK REPO_TOP"""
import csv
import glob
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

solbook, top = sys.argv[1], sys.argv[2]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(*args):
    p = subprocess.run([solbook, *args], capture_output=True, text=True)
    if p.returncode != 0:
        fail("solbook %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


ex = os.path.join(top, "examples")
folders = []
for pat in ("h1*/gemm", "h1*/kernels", "h2*/gemm", "h2*/kernels", "h*/kernels-full", "h100/gemm-settle",
            "h*/providers", "h*/training", "fleet"):
    folders += sorted(glob.glob(os.path.join(ex, pat)))
sessions = sorted(glob.glob(os.path.join(ex, "h*", "sessions", "*.tar.gz")))
if not sessions:
    fail("no session archives under %s" % ex)

with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "main.db")
    subprocess.run([solbook, "ingest", "--db", db, "-q", *folders, *sessions], capture_output=True, text=True)
    con = sqlite3.connect(db)
    stored = {rid: (sid, gpu, tm, chk) for rid, sid, gpu, tm, chk in
              con.execute("SELECT run_id, session_id, gpu_uuid, timing_method, check_version FROM run_sessions")}
    if not stored:
        fail("no session run stored")
    session_gpu = {sid: gpu for sid, gpu, _, _ in stored.values()}

    doc = json.loads(run("report", "geomean", "--db", db, "--format", "json"))
    paired = doc["paired"]
    if not paired:
        fail("report geomean has no paired headline on a database with %d session runs" % len(stored))
    npairs = 0
    covered = set()
    # the verdict words of templates/verdicts.csv, and only those
    with open(os.path.join(top, "templates", "verdicts.csv")) as f:
        words = {r["verdict"]: r["one"] for r in csv.DictReader(f)}
    said = {}
    for row in paired:
        verdicts = [c["verdict"] for c in row["cases"]]
        for v in verdicts:
            said[v] = said.get(v, 0) + 1
        if set(verdicts) - set(words.values()):
            fail("%s %s: verdicts %s outside templates/verdicts.csv" % (row["op"], row["sku"], sorted(set(verdicts))))
        if (verdicts.count(words["faster"]), verdicts.count(words["slower"])) != (row["wins"], row["losses"]):
            fail("%s %s over %s: %d wins and %d losses for verdicts %s" % (row["op"], row["sku"], row["baseline"],
                                                                          row["wins"], row["losses"], verdicts))
    for row in paired:
        name = "%s %s %s %s: %s over %s" % (row["op"], row["mode"], row["dtype"], row["sku"], row["provider"],
                                           row["baseline"])
        if not row["session"] or row["session_short"] != row["session"][:8]:
            fail("%s names no session" % name)
        if row["gpu_uuid"] != session_gpu.get(row["session"]):
            fail("%s names GPU %s, session %s ran on %s" % (name, row["gpu_uuid"], row["session"],
                                                           session_gpu.get(row["session"])))
        if len(row["cases"]) != row["shapes"] or not row["cases"]:
            fail("%s: %d cases listed for %d shapes" % (name, len(row["cases"]), row["shapes"]))
        for c in row["cases"]:
            p, b = c["provider_side"], c["baseline_side"]
            if p["provider"] != row["provider"] or b["provider"] != row["baseline"]:
                fail("%s %s: sides are %s and %s" % (name, c["shape"], p["provider"], b["provider"]))
            for side in (p, b):
                if side["run_id"] not in stored:
                    fail("%s %s: run %d is no session run" % (name, c["shape"], side["run_id"]))
                sid, gpu, tm, chk = stored[side["run_id"]]
                if (side["session"], side["gpu_uuid"], side["timing_method"], side["check"]) != (sid, gpu, tm, chk):
                    fail("%s %s: run %d reported as %s, stored as %s" % (
                        name, c["shape"], side["run_id"],
                        (side["session"], side["gpu_uuid"], side["timing_method"], side["check"]),
                        (sid, gpu, tm, chk)))
            if stored[p["run_id"]] != stored[b["run_id"]]:
                fail("%s %s: runs %d and %d differ: %s against %s" % (
                    name, c["shape"], p["run_id"], b["run_id"], stored[p["run_id"]], stored[b["run_id"]]))
            if stored[p["run_id"]][0] != row["session"]:
                fail("%s %s: pair from session %s, row names %s" % (name, c["shape"], stored[p["run_id"]][0],
                                                                   row["session"]))
            covered.add((c["case_key"], row["sku"], row["provider"], row["baseline"]))
            npairs += 1
    # the unpaired section leaves paired cases out: its rows' 'paired' counts them
    left_out = sum(r["paired"] for r in doc["rows"])
    if left_out == 0:
        fail("no unpaired row counts a case left out for its session pair")
    bad = [r for r in doc["rows"] if r["method"] not in ("unpaired", "harness-baseline")]
    if bad:
        fail("unpaired rows without their method: %s" % bad[:1])

    md = run("report", "geomean", "--db", db, "--format", "md")
    head, sep, rest = md.partition("## Not paired: runs from different sessions or cards")
    if not sep:
        fail("no 'Not paired' section in the Markdown")
    if not head.startswith("## Paired: one session, one card"):
        fail("the Markdown does not open with the paired headline")
    rows = [l for l in head.splitlines() if l.startswith("| ") and not l.startswith("| op ")
            and not l.startswith("| ---") and "kernel (" in l]
    if len(rows) != len(paired):
        fail("%d paired Markdown rows for %d JSON headlines" % (len(rows), len(paired)))
    for l in rows:
        cells = [c.strip() for c in l.strip("|").split("|")]
        sid, gpu = cells[6], cells[7]
        full = [s for s in session_gpu if s.startswith(sid)] if re.fullmatch(r"[0-9a-f]{8}", sid) else []
        if len(full) != 1:
            fail("Markdown headline names no stored session: %s" % l)
        if not (session_gpu[full[0]] or "").startswith(gpu) or not gpu.startswith("GPU-"):
            fail("Markdown headline names GPU %s, session %s ran on %s" % (gpu, sid, session_gpu[full[0]]))
    if " kernel (" in rest and "| paired |" not in rest:
        fail("a paired row appears in the unpaired section")

    # the CSV holds the same headlines, each naming its session
    csv_rows = list(csv.DictReader(io.StringIO(run("report", "geomean", "--db", db, "--format", "csv"))))
    pc = [r for r in csv_rows if r["method"] == "paired"]
    if len(pc) != len(paired) or any(r["session"] not in session_gpu for r in pc):
        fail("CSV: %d paired rows for %d headlines, or one names no stored session" % (len(pc), len(paired)))

    # --suite narrows the paired headlines too: every case pair's runs are of that suite
    suite_of = {rid: suite for rid, suite in con.execute(
        "SELECT s.run_id, c.suite FROM run_sessions s JOIN configs c ON c.run_id = s.run_id")}
    suites = sorted(set(suite_of.values()))
    if len(suites) < 2:
        fail("the sessions hold one suite only (%s): --suite cannot be checked" % suites)
    one = json.loads(run("report", "geomean", "--db", db, "--format", "json", "--suite", suites[0]))["paired"]
    if not one:
        fail("report geomean --suite %s has no paired headline" % suites[0])
    for row in one:
        for c in row["cases"]:
            for side in (c["provider_side"], c["baseline_side"]):
                if suite_of.get(side["run_id"]) != suites[0]:
                    fail("--suite %s: %s %s pairs run %s of suite %s" % (
                        suites[0], row["op"], row["baseline"], side["run_id"], suite_of.get(side["run_id"])))

print("verdict words of templates/verdicts.csv: %s" % ", ".join("%s %d" % kv for kv in sorted(said.items())))
print("paired headlines: %d rows, %d case pairs, each side's GPU, session, timing method and check equal "
      "to the other's as stored; %d Markdown rows name their session and GPU; %d cases left out of the "
      "unpaired section" % (len(paired), npairs, len(rows), left_out))

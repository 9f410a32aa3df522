#!/usr/bin/env python3
"""The main job's database: every result folder main.sh ingests, the
measuring sessions of examples/*/sessions with them, in a fresh
database. Every headline pair of `solbook report geomean` (JSON and
Markdown) must have the same GPU UUID, session, timing method and check
on both sides, as stored in run_sessions, and name its session and GPU;
no paired case may appear again in the unpaired section; verdicts are
said in the words of data/templates/verdicts.csv. Every paired speedup of
`report standing` and `report evidence` names a session and is
recomputed from that session's cases as report geomean gives them; their
other provider ratios stand under "Unpaired: different runs". Every
speedup line of the Liger and vLLM packets and every speedup headline of
the site's op pages names the sessions it pools, and `solbook session`
over exactly those sessions gives its cases and geomean again;
every cell of the weekly's headline table is the named session's.
The Liger packet's training section states a step-time ratio only under
its paired heading, each naming its training session and GPU and equal
to the geometric mean of that session's stored per-round ratios (checked
with the constructed session of tests/data/train/session added); runs one
after the other stand only under the "Not paired" label.

Usage: check_paired_headlines.py SOLBOOK REPO_TOP"""
import csv
import glob
import io
import json
import math
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
            "h*/providers", "h*/training", "h*/calibration", "fleet"):
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
    # the verdict words of data/templates/verdicts.csv, and only those
    with open(os.path.join(top, "data", "templates", "verdicts.csv")) as f:
        words = {r["verdict"]: r["one"] for r in csv.DictReader(f)}
    said = {}
    for row in paired:
        verdicts = [c["verdict"] for c in row["cases"]]
        for v in verdicts:
            said[v] = said.get(v, 0) + 1
        if set(verdicts) - set(words.values()):
            fail("%s %s: verdicts %s outside data/templates/verdicts.csv" % (row["op"], row["sku"], sorted(set(verdicts))))
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

    # ---- report standing and report evidence: every speedup between two
    # providers outside the "Unpaired" label is one session's, as report
    # geomean's paired cases give them
    by_short = {}
    for row in paired:
        by_short.setdefault(row["session_short"], []).append(row)
    with open(os.path.join(top, "data", "skus.csv")) as f:
        display = {r["display"]: r["sku"] for r in csv.DictReader(f)}
    liger_presets = ("liger-perkernel", "liger-perkernel-quick")
    memory_presets = ("memory-bound", "memory-bound-quick")

    def session_cases(sid, sku, provider, baseline, keep):
        """The (speedup, verdict) of the cases of session sid that keep() takes."""
        got = []
        for row in by_short.get(sid, []):
            if (row["sku"], row["provider"], row["baseline"]) != (sku, provider, baseline) or not keep(row):
                continue
            got += [(c["speedup"], c["verdict"]) for c in row["cases"]
                    if suite_of[c["provider_side"]["run_id"]] in keep.suites]
        return got

    def geomean(v):
        return math.exp(sum(math.log(x) for x in v) / len(v))

    cell_re = re.compile(r"([\d.]+)x \(([\d.]+)-([\d.]+)\) over (\d+): (\d+) (?:win|wins), (\d+) (?:loss|losses)"
                         r"(?:; worst ([\d.]+)x, [^|]*?)?; session ([0-9a-f]{8})")

    def check_cell(cell, sku, provider, baseline, keep, where):
        m = cell_re.search(cell)
        if not m:
            fail("%s: a speedup without its session: %s" % (where, cell))
        g, lo, hi, n, wins, losses, worst, sid = m.groups()
        cases = session_cases(sid, sku, provider, baseline, keep)
        if len(cases) != int(n) or not cases:
            fail("%s: %s cases of session %s, report geomean has %d" % (where, n, sid, len(cases)))
        want = geomean([c[0] for c in cases])
        if abs(float(g) - want) > 0.006 * want + 0.005 or not float(lo) <= float(g) <= float(hi):
            fail("%s: %sx (%s-%s), recomputed %.4f" % (where, g, lo, hi, want))
        if (int(wins), int(losses)) != (sum(v == words["faster"] for _, v in cases),
                                        sum(v == words["slower"] for _, v in cases)):
            fail("%s: %s wins and %s losses, verdicts %s" % (where, wins, losses, [v for _, v in cases]))
        if worst and abs(float(worst) - min(c[0] for c in cases)) > 0.006:
            fail("%s: worst %s, recomputed %.4f" % (where, worst, min(c[0] for c in cases)))
        return 1

    def keeper(suites, **eq):
        def keep(row):
            return all(row[k] == v for k, v in eq.items())
        keep.suites = suites
        return keep

    standing = run("report", "standing", "--db", db)
    checked = 0
    for name, presets, heads in (("against-providers", liger_presets,
                                  [("fused", "liger"), ("fused", "torch-compile"), ("liger", "huggingface")]),
                                 ("memory-bound", memory_presets, [("fused", "torch-compile")])):
        block = standing.split("<!-- solbook report standing: %s -->" % name)[1].split("<!-- end")[0]
        paired_part, sep, unpaired_part = block.partition("**Unpaired: different runs.**")
        if not sep:
            fail("standing %s: no 'Unpaired: different runs' label" % name)
        if re.search(r"session [0-9a-f]{8}", unpaired_part):
            fail("standing %s: a session's figure under the unpaired label" % name)
        for line in paired_part.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not line.startswith("| ") or cells[0] not in display:
                continue
            sku = display[cells[0]]
            if len(cells) == 6 and name == "memory-bound":
                op = cells[1].replace("\\_", "_")
                if op.endswith(" GB/s") or op == "no calibration":  # the RMSNorm forward bf16 table
                    keep = keeper(presets, op="rmsnorm", mode="fwd", dtype="bf16")
                else:
                    keep = keeper(presets) if op == "**all**" else keeper(presets, op=op)
                if cells[4] != "-":
                    checked += check_cell(cells[4], sku, "fused", "torch-compile", keep,
                                          "standing %s %s %s" % (name, sku, op))
            elif name == "against-providers":
                op = cells[1].replace("\\_", "_")
                for (prov, base), cell in zip(heads, cells[2:]):
                    if cell != "-":
                        checked += check_cell(cell, sku, prov, base, keeper(presets, op=op),
                                              "standing %s %s %s %s over %s" % (name, sku, op, prov, base))
    if checked < 10:
        fail("standing: %d paired cells checked" % checked)

    evidence = run("report", "evidence", "--db", db)
    ev_checked = 0
    for part in evidence.split("\n## ")[1:]:
        head = part.split("\n")[0]
        m = re.search(r"\(([a-z0-9-]+)\)$", head)
        if not m or "### The project's kernels" not in part:
            continue
        sku = m.group(1)
        kern = part.split("### The project's kernels")[1]
        paired_part, sep, unpaired_part = kern.partition("**Unpaired: different runs.**")
        if not sep:
            fail("evidence %s: no 'Unpaired: different runs' label" % sku)
        for line in paired_part.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) != 16 or not re.fullmatch(r"\d+", cells[3]):
                continue
            op, mode, dtype = (c.replace("\\_", "_") for c in cells[:3])
            for k, base in enumerate(("huggingface", "torch-compile", "liger")):
                cell, low, sid = cells[7 + 3 * k: 10 + 3 * k]
                if cell == "-":
                    continue
                cand = [r for r in paired if (r["op"], r["mode"], r["dtype"], r["sku"], r["provider"], r["baseline"])
                        == (op, mode, dtype, sku, "fused", base)]
                most = max(r["shapes"] for r in cand)
                row = [r for r in cand if r["session_short"] == sid]
                g, n = re.fullmatch(r"([\d.]+)x \([\d.]+-[\d.]+\) over (\d+)", cell).groups()
                if len(row) != 1 or row[0]["shapes"] != int(n) or int(n) != most:
                    fail("evidence %s %s %s %s over %s: session %s over %s, the most cases %d" % (
                        sku, op, mode, dtype, base, sid, n, most))
                if abs(float(g) - row[0]["geomean"]) > 0.006 or abs(float(low.rstrip("x")) - row[0]["worst"]) > 0.006:
                    fail("evidence %s %s %s %s over %s: %s, lowest %s; report geomean %s, %s" % (
                        sku, op, mode, dtype, base, cell, low, row[0]["geomean"], row[0]["worst"]))
                ev_checked += 1
    if ev_checked < 10:
        fail("evidence: %d paired cells checked" % ev_checked)
    print("report standing: %d paired cells recomputed from report geomean's cases of the session each names; "
          "report evidence: %d paired cells, each the session with the most cases; both with the unpaired label"
          % (checked, ev_checked))

    # ---- the Liger and vLLM packets and the site's op pages: a figure
    # pooled over cases names every session it rests on; `solbook session
    # --cases` over exactly those sessions gives it again (the newest of
    # them for a case two measured)
    session_cache = {}

    def named_session_cases(sids):
        key = tuple(sorted(sids))
        if key not in session_cache:
            got = []
            for line in run("session", "--db", db, "--cases", *key).splitlines():
                cells = [c.strip() for c in line.strip("|").split("|")]
                if len(cells) != 11 or not cells[5].endswith("x") or not re.fullmatch(r"[0-9a-f]{8}", cells[8]):
                    continue
                op, mode, dtype = cells[0].split(" ")[:3]
                got.append({"op": op, "mode": mode, "dtype": dtype, "sku": cells[1], "over": cells[2],
                            "speedup": float(cells[5][:-1]), "session": cells[8], "verdict": cells[10]})
            session_cache[key] = got
        return session_cache[key]

    def check_pooled(where, op, sku, base, g, n, wins, losses, sids, modes=None):
        if not sids:
            fail("%s: a pooled figure names no session" % where)
        for sid in sids:
            full = [x for x in session_gpu if x.startswith(sid)]
            if len(full) != 1:
                fail("%s: session %s is not stored" % (where, sid))
        cases = [c for c in named_session_cases(sids) if (c["op"], c["sku"], c["over"]) == (op, sku, base)
                 and (modes is None or c["mode"] in modes)]
        if len(cases) != n or set(c["session"] for c in cases) != set(sids):
            fail("%s: %d cases of sessions %s stated, the named sessions pair %d (of %s)" % (
                where, n, ", ".join(sids), len(cases), sorted(set(c["session"] for c in cases))))
        want = geomean([c["speedup"] for c in cases])
        if abs(g - want) > 0.004 * want + 0.002:
            fail("%s: %.3fx stated, %.4f over the named sessions' cases" % (where, g, want))
        # the verdicts' thresholds come from every A/A session on the card,
        # named or not: the counts are held to the cases, not recomputed
        if wins + losses > n:
            fail("%s: %d wins and %d losses over %d cases" % (where, wins, losses, n))

    bullet_re = re.compile(r"^- fused over (\S+)(?: \((?:defaults|variant)\))?: \*\*([\d.]+)x\*\* \([\d.]+-[\d.]+\), "
                           r"(\d+) cases: (\d+) (?:win|wins), (\d+) (?:loss|losses)(?:; sessions ([0-9a-f, ]+))?; "
                           r"worst [\d.]+x \([\d.]+-[\d.]+\) at .*, session ([0-9a-f]{8})$")
    nbullets = 0
    packet_text = {}
    for target, modes in (("liger", None), ("vllm", ("fwd",))):
        out = os.path.join(tmp, "packet-" + target)
        run("packet", "--db", db, "--target", target, "--out", out)
        with open(os.path.join(out, "DISCUSSION.md")) as f:
            text = f.read()
        packet_text[target] = text
        for part in text.split("\n### ")[1:]:
            m = re.match(r"\d+\. (\S+) .*, ([a-z0-9-]+)\n", part)
            if not m:
                continue
            op, sku = m.group(1).rstrip(",").replace("\\_", "_"), m.group(2)
            # the finding's sessions, in its head; a line names its own where fewer
            fm = re.search(r" from session\(s\) ([0-9a-f, ]+); re-measure", part)
            if not fm:
                fail("%s packet, %s on %s: the finding names no sessions" % (target, op, sku))
            for line in part.splitlines():
                if not line.startswith("- fused over "):
                    continue
                b = bullet_re.match(line)
                if not b:
                    fail("%s packet, %s on %s: a speedup line without its sessions: %s" % (target, op, sku, line))
                base, g, n, wins, losses, sids, worst_sid = b.groups()
                sids = [x.strip() for x in (sids or fm.group(1)).split(",")]
                if worst_sid not in sids:
                    fail("%s packet, %s on %s: worst case of session %s, not among %s" % (target, op, sku, worst_sid,
                                                                                       sids))
                check_pooled("%s packet, %s on %s over %s" % (target, op, sku, base), op, sku, base, float(g),
                             int(n), int(wins), int(losses), sids, modes)
                nbullets += 1
    if nbullets < 10:
        fail("packets: %d speedup lines checked" % nbullets)

    # the weekly's headline table: each row's cells are its one session's,
    # as report geomean gives them
    week_doc = json.loads(run("runs", "--db", db, "--json", "--limit", "1"))
    import datetime
    y, w, _ = datetime.date.fromisoformat(week_doc[0]["finished_at"][:10]).isocalendar()
    week = "%d-W%02d" % (y, w)
    wout = os.path.join(tmp, "weekly")
    run("report", "weekly", "--db", db, "--week", week, "--out", wout)
    with open(os.path.join(wout, week + ".md")) as f:
        weekly = f.read()
    head = "| op | mode | dtype | SKU | over huggingface | over torch-compile | over liger | session (shapes) |"
    if head not in weekly:
        fail("weekly %s: no headline table" % week)
    wrows = 0
    for line in weekly.split(head)[1].split("\n\n")[0].splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        op, mode, dtype, sku = (c.replace("\\_", "_") for c in cells[:4])
        sm = re.fullmatch(r"([0-9a-f]{8}) \((\d+)\)", cells[7])
        if not sm:
            fail("weekly %s: a headline row names no session: %s" % (week, line))
        for cell, base in zip(cells[4:7], ("huggingface", "torch-compile", "liger")):
            if cell == "-":
                continue
            cm = re.fullmatch(r"([\d.]+) \[([\d.]+)-([\d.]+)\]", cell)
            row = [r for r in paired if (r["op"], r["mode"], r["dtype"], r["sku"], r["provider"], r["baseline"],
                                         r["session_short"]) == (op, mode, dtype, sku, "fused", base, sm.group(1))]
            if not cm or len(row) != 1 or abs(float(cm.group(1)) - row[0]["geomean"]) > 0.0015 or \
                    abs(float(cm.group(2)) - row[0]["ci_low"]) > 0.0015:
                fail("weekly %s: %s over %s is not session %s's headline: %s" % (week, op, base, sm.group(1), line))
            wrows += 1
    if wrows < 10:
        fail("weekly %s: %d headline cells checked" % (week, wrows))

    # the site's op pages: each speedup headline names its sessions
    sout = os.path.join(tmp, "site")
    run("site", "--db", db, "--out", sout)
    h3 = re.compile(r"<h3><span class=\"swatch\"[^>]*></span>fused over (\S+) on (\S+): ([\d.]+)× geomean "
                    r"\(kernel time, 95% [\d.]+–[\d.]+\), (\d+) shapes, (\d+) wins, (\d+) losses; sessions "
                    r"([0-9a-f, ]+)</h3>")
    nsite = 0
    for page in sorted(glob.glob(os.path.join(sout, "ops", "*.html"))):
        op = os.path.basename(page)[:-5]
        with open(page) as f:
            html = f.read()
        if html.count("<h3><span class=\"swatch\"") != len(h3.findall(html)):
            fail("site %s: a speedup headline without its sessions" % op)
        for base, sku, g, n, wins, losses, sids in h3.findall(html):
            check_pooled("site %s on %s over %s" % (op, sku, base), op, sku, base, float(g), int(n), int(wins),
                         int(losses), [x.strip() for x in sids.split(",")])
            nsite += 1
    if nsite < 10:
        fail("site: %d op page headlines checked" % nsite)
    print("packets: %d speedup lines, site: %d op page headlines, each case count and geomean recomputed from "
          "`solbook session` over exactly the sessions it names; weekly %s: %d headline cells, each its named session's"
          % (nbullets, nsite, week, wrows))

    # ---- the Liger packet's training section: a step-time ratio stands
    # under "Paired: training sessions" only, names its session and GPU,
    # and is the geometric mean of that session's per-round ratios as
    # stored; runs one after the other stand only under "Not paired".
    # The main job's database holds the H100 training session of
    # examples/h100/training/session-ws1; the constructed one of
    # tests/data/train/session is added to check a second paired row.
    def training_section(text, where):
        sec = text.split("\n## End-to-end training steps\n")
        if len(sec) != 2:
            fail("%s: no training section" % where)
        sec = sec[1].split("\n## ")[0]
        head, sep, rest = sec.partition("### Paired: training sessions")
        paired_part, sep2, unpaired_part = rest.partition("### Not paired: runs one after the other")
        if not sep:
            fail("%s: the training section has no paired heading" % where)
        if re.search(r"\d\.\d{3}x", head):
            fail("%s: a training figure before the paired heading" % where)
        if sep2 and ("| step speedup, not paired |" not in unpaired_part
                     or not unpaired_part.lstrip().startswith("Not a headline.")):
            fail("%s: the not paired training table is not labelled" % where)
        if re.search(r"\| [0-9a-f]{8} \| GPU-", unpaired_part):
            fail("%s: a session's row under the not paired label" % where)
        rows = [[c.strip() for c in l.strip("|").split("|")] for l in paired_part.splitlines()
                if l.startswith("| ") and not l.startswith("| model ") and not l.startswith("| ---")]
        return rows, unpaired_part if sep2 else ""

    def stored_training(dbfile):
        c = sqlite3.connect(dbfile)
        try:
            return c.execute(
                "SELECT json_extract(r.raw_json, '$.training_session.id'),"
                " json_extract(r.raw_json, '$.training_session.round'), t.patch_name, t.median_step_ms,"
                " json_extract(r.raw_json, '$.provenance.device.uuid'), r.status, r.run_uuid,"
                " json_extract(r.raw_json, '$.loss.check.against_run_uuid')"
                " FROM runs r JOIN training t ON t.run_id = r.id").fetchall()
        finally:
            c.close()

    def check_training_rows(rows, dbfile, where):
        stored = stored_training(dbfile)
        for cells in rows:
            if len(cells) != 12:
                fail("%s: a paired training row of %d cells: %s" % (where, len(cells), cells))
            m = re.fullmatch(r"([\d.]+) \(([\d.]+)-([\d.]+)\)", cells[4])
            sid, gpu = cells[10], cells[11]
            runs = [x for x in stored if x[0] and x[0].startswith(sid)]
            if not m or not re.fullmatch(r"[0-9a-f]{8}", sid) or not runs:
                fail("%s: a paired training row names no stored session: %s" % (where, cells))
            if len({x[0] for x in runs}) != 1 or any(not (x[4] or "").startswith(gpu) for x in runs):
                fail("%s: session %s is not one session on GPU %s" % (where, sid, gpu))
            base_uuids = {x[6] for x in runs if x[2] == "none"}
            ratios = []
            for k in sorted({x[1] for x in runs}):
                b = [x for x in runs if x[1] == k and x[2] == "none" and x[5] == "passed"]
                p = [x for x in runs if x[1] == k and x[2] != "none" and x[5] == "passed" and x[7] in base_uuids]
                if len(b) == 1 and len(p) == 1:
                    ratios.append(p[0][3] / b[0][3])
            want = geomean(ratios)
            if len(ratios) < 2 or abs(float(m.group(1)) - want) > 0.0006 or \
                    not float(m.group(2)) <= float(m.group(1)) <= float(m.group(3)):
                fail("%s: session %s states %s, its %d rounds give %.4f" % (where, sid, cells[4], len(ratios), want))
            if cells[6] != "%d of %d" % (len(ratios), len({x[1] for x in runs})):
                fail("%s: session %s: rounds %s, stored %d paired" % (where, sid, cells[6], len(ratios)))
            if abs(float(cells[5].rstrip("x")) - 1 / want) > 0.0006 * (1 / want) + 0.0005:
                fail("%s: session %s: speedup %s, 1/ratio %.4f" % (where, sid, cells[5], 1 / want))
        return len(rows)

    trows, unpaired = training_section(packet_text["liger"], "liger packet")
    nseq = len([l for l in unpaired.splitlines() if l.startswith("| ") and not l.startswith("| model ")
                and not l.startswith("| ---")])
    nmain = check_training_rows(trows, db, "liger packet")
    if nmain != 1 or nseq < 1:
        fail("liger packet on the main database: %d paired training rows (it stores one session), %d not paired"
             % (nmain, nseq))
    fixture = sorted(glob.glob(os.path.join(top, "tests", "data", "train", "session", "*.json")))
    p = subprocess.run([solbook, "ingest", "--db", db, "-q", *fixture], capture_output=True, text=True)
    if p.returncode != 0 or len(fixture) != 4:
        fail("ingest of the constructed training session: exit %d, %d files: %s" % (p.returncode, len(fixture),
                                                                                   p.stderr.strip()))
    out = os.path.join(tmp, "packet-liger-session")
    run("packet", "--db", db, "--target", "liger", "--out", out)
    with open(os.path.join(out, "DISCUSSION.md")) as f:
        trows, unpaired2 = training_section(f.read(), "liger packet with the constructed session")
    ntrain = check_training_rows(trows, db, "liger packet with the constructed session")
    if ntrain != 2 or unpaired2 != unpaired:
        fail("liger packet with the constructed session: %d paired training rows; not paired part %s" % (
            ntrain, "unchanged" if unpaired2 == unpaired else "changed"))
    print("liger packet training section: %d paired row and %d not paired rows under their label on the main "
          "database; with the constructed session, %d paired rows, each naming its session and GPU, its ratio "
          "recomputed from the stored rounds" % (nmain, nseq, ntrain))

print("verdict words of data/templates/verdicts.csv: %s" % ", ".join("%s %d" % kv for kv in sorted(said.items())))
print("paired headlines: %d rows, %d case pairs, each side's GPU, session, timing method and check equal "
      "to the other's as stored; %d Markdown rows name their session and GPU; %d cases left out of the "
      "unpaired section" % (len(paired), npairs, len(rows), left_out))

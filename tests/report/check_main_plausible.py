#!/usr/bin/env python3
"""check_main_plausible.py SOLBOOK REPO_TOP - the main job's database
(every folder scripts/main.sh ingests, the calibrations and the measuring
sessions of examples/*/sessions among them): no headline figure may rest
on a run faster than its card allows, and every flagged run is listed
with its reason (issue 50).

Python recomputes each passing run's bandwidth from data/op_models.csv and
the run's own time, and holds it against every bandwidth ceiling of its
card as the stored calibration documents give them (runs.raw_json, not
the ceilings table the reports read): each from the newest calibration of
the run's own GPU (provenance.device.uuid) that measured it, else from the
SKU's newest that did. A run above all of them by more than 2% whose
bytes do not fit the card's L2 is impossible. Then:
- each such run, and each run `solbook report plausibility` calls
  implausible, is listed there as implausible with a reason in GB/s;
- no such run stands behind a headline: the pairs of `report geomean`'s
  paired rows, the speedups of a packet's case tables, the "% copy"
  figures of `report evidence`; an unpaired geomean row over such a case
  counts it as implausible;
- the weekly's appendix lists the week's flagged session runs;
- the site's plausibility.html lists exactly the runs the listing calls
  implausible.
The same check then runs on a doctored copy of the database whose stored
bandwidth ceilings are raised by 10%, as a calibration that over-reads
would: the reports then let impossible runs into their headlines, and the
check must say so."""
import csv
import glob
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

solbook, top = sys.argv[1], sys.argv[2]
MARGIN = 0.02


def run(db, *args):
    p = subprocess.run([solbook, *args, "--db", db], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("FAIL: solbook %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


ELEM = {"fp32": 4, "tf32": 4, "int32": 4, "bf16": 2, "fp16": 2, "fp8_e4m3": 1, "fp8_e5m2": 1, "int8": 1,
        "fp64": 8, "int64": 8}


def expr(e, shape):
    if not e:
        return None
    total = 0
    for term in e.split("+"):
        prod = 1
        for f in term.split("*"):
            if f.isdigit():
                prod *= int(f)
            elif isinstance(shape.get(f), int):
                prod *= shape[f]
            else:
                return None
        total += prod
    return total


models = list(csv.DictReader(open(os.path.join(top, "data", "op_models.csv"))))
l2 = {r["sku"]: float(r["l2_bytes"]) for r in csv.DictReader(open(os.path.join(top, "data", "cache_sizes.csv")))}


def model_bytes(op, mode, dtype, shape, params):
    for m in models:
        if m["op"] != op or m["mode"] != mode:
            continue
        if m["params"]:
            k, v = m["params"].split("=", 1)
            if params.get(k) != v:
                continue
        rd, wr = expr(m["read"], shape), expr(m["write"], shape) if m["write"] else 0
        es = ELEM.get(dtype) or (1 if dtype.startswith("fp8") else None)
        if rd is None or wr is None or es is None:
            return None
        return (rd + wr) * es
    return None


def impossible_runs(con):
    """{run_id: (gbps, top ceiling, sku, session or None)} of the passing
    runs above every measured bandwidth ceiling of their card, and the
    number of passing runs checked by SKU."""
    # {(sku, gpu or None): {probe: GB/s}}, the newest calibration that
    # measured each probe last
    probes = {}
    for sku, doc in con.execute(
            "SELECT p.sku, r.raw_json FROM runs r JOIN provenance p ON p.run_id = r.id "
            "WHERE r.schema = 'solbook.calibration.v1' ORDER BY p.finished_at, r.id"):
        d = json.loads(doc)
        gpu = d.get("provenance", {}).get("device", {}).get("uuid")
        for k, v in d.get("bandwidth", {}).items():
            if k in ("copy", "add", "triad", "read"):
                probes.setdefault((sku, None), {})[k] = v["gbps"]
                if gpu:
                    probes.setdefault((sku, gpu), {})[k] = v["gbps"]
    gpu_of = {rid: u for rid, u in con.execute(
        "SELECT id, json_extract(raw_json, '$.provenance.device.uuid') FROM runs "
        "WHERE schema = 'solbook.result.v1'")}

    def ceiling(rid, sku):
        if (sku, None) not in probes:
            return None
        got = dict(probes[(sku, None)])
        got.update(probes.get((sku, gpu_of.get(rid)), {}))
        return max(got.values())
    # of the result runs outside the sessions, the newest of each case,
    # provider and SKU: the runs the reports and the listing read
    newest = {}
    for rid, ck, prov, sku, fin in con.execute(
            "SELECT r.id, c.case_key, c.provider, p.sku, p.finished_at FROM runs r "
            "JOIN configs c ON c.run_id = r.id JOIN provenance p ON p.run_id = r.id "
            "LEFT JOIN run_sessions s ON s.run_id = r.id WHERE s.run_id IS NULL AND c.profiler IS NULL"):
        k = (ck, prov, sku)
        if k not in newest or (fin or "", rid) > newest[k]:
            newest[k] = (fin or "", rid)
    picked = {rid for _, rid in newest.values()}
    bad, checked = {}, {}
    q = ("SELECT r.id, c.op, c.mode, c.dtype, c.shape_json, c.params_json, c.l2, p.sku, m.median_ms, "
         "m.kernel_median_ms, m.bytes, s.session_id FROM runs r JOIN configs c ON c.run_id = r.id "
         "JOIN provenance p ON p.run_id = r.id JOIN metrics m ON m.run_id = r.id "
         "JOIN correctness k ON k.run_id = r.id LEFT JOIN run_sessions s ON s.run_id = r.id "
         "WHERE r.status = 'passed' AND c.profiler IS NULL AND (k.passed = 1 OR k.reference = 'imported')")
    for rid, op, mode, dtype, shape, params, l2mode, sku, med, kmed, mbytes, sid in con.execute(q):
        if not sid and rid not in picked:
            continue
        ms = kmed if kmed and kmed > 0 else med
        b = model_bytes(op, mode, dtype, json.loads(shape), json.loads(params))
        if b is None:
            b = mbytes
        top_ceiling = ceiling(rid, sku)
        if not b or not ms or ms <= 0 or top_ceiling is None:
            continue
        checked[sku] = checked.get(sku, 0) + 1
        if b <= l2.get(sku, 0) and l2mode != "cold":
            continue  # cache-resident: not held against HBM
        gbps = b / (ms / 1e3) / 1e9
        if gbps > (1 + MARGIN) * top_ceiling:
            bad[rid] = (gbps, top_ceiling, sku, sid)
    return bad, checked


def listing_rows(md):
    """{run_id: (verdict, sku, reason)} of `report plausibility`'s tables."""
    rows = {}
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not cells or cells[0] not in ("implausible", "cache-resident"):
            continue
        # result runs: 14 cells, the run 8th; session runs: session and copy come before it
        rid = cells[7] if len(cells) == 14 else cells[9]
        rows[int(rid)] = (cells[0], cells[6], cells[-1])
    return rows


def check(db, work, publications=True):
    """The problems of the reports on db, and what was checked; publications
    False: the listing, the geomean and the evidence alone."""
    con = sqlite3.connect(db)
    bad, checked = impossible_runs(con)
    problems = []
    listing = listing_rows(run(db, "report", "plausibility"))
    listed_bad = {rid for rid, (v, _, _) in listing.items() if v == "implausible"}
    for rid, (gbps, ceiling, sku, sid) in sorted(bad.items()):
        v = listing.get(rid)
        if not v or v[0] != "implausible":
            problems.append("run %d%s on %s: %.0f GB/s is above every measured ceiling (%.0f GB/s) and the "
                            "plausibility listing has it as %s" % (rid, " (session %s)" % sid[:8] if sid else "",
                                                                   sku, gbps, ceiling, v[0] if v else "nothing"))
    for rid in listed_bad:
        if "GB/s" not in listing[rid][2] and "TFLOP/s" not in listing[rid][2]:
            problems.append("run %d listed implausible without a reason: %r" % (rid, listing[rid][2]))
    flagged = set(bad) | listed_bad

    geo = json.loads(run(db, "report", "geomean", "--format", "json"))
    pairs = 0
    for row in geo["paired"]:
        for c in row["cases"]:
            pairs += 1
            for side in (c["provider_side"], c["baseline_side"]):
                if side["run_id"] in flagged:
                    problems.append("report geomean: %s over %s %s %s on %s pairs implausible run %d (%s)" % (
                        row["provider"], row["baseline"], row["op"], c["shape"], row["sku"], side["run_id"],
                        "above every ceiling" if side["run_id"] in bad else "listed"))
    # the unpaired rows: the newest result run of each case, provider and SKU
    newest = {}
    for rid, ck, prov, sku, op, mode, dtype, fin in con.execute(
            "SELECT r.id, c.case_key, c.provider, p.sku, c.op, c.mode, c.dtype, p.finished_at FROM runs r "
            "JOIN configs c ON c.run_id = r.id JOIN provenance p ON p.run_id = r.id "
            "LEFT JOIN run_sessions s ON s.run_id = r.id WHERE s.run_id IS NULL AND c.profiler IS NULL"):
        k = (ck, prov, sku)
        if k not in newest or (fin or "", rid) > newest[k][0]:
            newest[k] = ((fin or "", rid), rid, op, mode, dtype)
    unpaired = 0
    for row in geo["rows"]:
        if not row["shapes"] and not row["implausible"]:
            continue
        unpaired += 1
        hit = [rid for (ck, prov, sku), (_, rid, op, mode, dtype) in newest.items()
               if rid in bad and sku == row["sku"] and prov in (row["provider"], row["baseline"])
               and (op, mode, dtype) == (row["op"], row["mode"], row["dtype"])
               and all((ck, p, sku) in newest for p in (row["provider"], row["baseline"]))]
        if hit and not row["implausible"]:
            problems.append("report geomean: %s over %s %s %s %s on %s counts no implausible case, runs %s are "
                            "above every ceiling" % (row["provider"], row["baseline"], row["op"], row["mode"],
                                                     row["dtype"], row["sku"], hit))

    # report evidence: "% copy" of each op group, newest result runs of fused
    ev = run(db, "report", "evidence")
    copy_of = {}
    for sku, doc in con.execute(
            "SELECT p.sku, r.raw_json FROM runs r JOIN provenance p ON p.run_id = r.id "
            "WHERE r.schema = 'solbook.calibration.v1' ORDER BY p.finished_at, r.id"):
        bw = json.loads(doc).get("bandwidth", {})
        if "copy" in bw:
            copy_of[sku] = (bw["copy"]["gbps"], max(bw[k]["gbps"] for k in ("copy", "add", "triad", "read")
                                                     if k in bw))
    ev_figures = 0
    for part in ev.split("\n## ")[1:]:
        m = re.search(r"\(([a-z0-9-]+)\)\n", part)
        if not m or m.group(1) not in copy_of:
            continue
        sku = m.group(1)
        copy, most = copy_of[sku]
        for line in part.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) != 16 or not re.fullmatch(r"\d+", cells[3]):
                continue
            for cell in cells[4:7]:
                if cell.endswith("%"):
                    ev_figures += 1
                    if float(cell[:-1]) > 100 * (1 + MARGIN) * most / copy:
                        # a cache-resident case may stand above it; these groups were checked to have none
                        op, mode, dtype = (c.replace("\\_", "_") for c in cells[:3])
                        problems.append("report evidence %s %s %s %s: %s of copy is above every measured "
                                        "ceiling (%.1f%% of copy)" % (sku, op, mode, dtype, cell,
                                                                      100 * (1 + MARGIN) * most / copy))

    if not publications:
        return problems, None
    # packets: every case's pairs in the appendix (data.tar.gz ships every
    # run of a cited session as data, flagged ones too; no pair rests on them)
    info = {rid: (op, mode, dtype, shape, prov, sku, sid) for rid, op, mode, dtype, shape, prov, sku, sid in
            con.execute("SELECT s.run_id, c.op, c.mode, c.dtype, c.shape_key, c.provider, p.sku, s.session_id "
                        "FROM run_sessions s JOIN configs c ON c.run_id = s.run_id "
                        "JOIN provenance p ON p.run_id = s.run_id")}
    cited = 0
    for target in ("liger", "vllm"):
        out = os.path.join(work, "packet-" + target)
        shutil.rmtree(out, ignore_errors=True)
        run(db, "packet", "--target", target, "--out", out)
        path = os.path.join(out, "APPENDIX.md")
        if not os.path.exists(path):
            continue
        for section in open(path).read().split("\n## ")[1:]:
            head = section.split("\n", 1)[0].replace("\\_", "_")
            m = re.match(r"(\S+) \(.*\), (\S+)$", head)
            if not m:
                continue
            lines = [l for l in section.splitlines() if l.startswith("| ")]
            if not lines or not lines[0].startswith("| case |"):
                continue
            cols = [c.strip() for c in lines[0].strip("|").split("|")]
            for l in lines[2:]:
                cells = [c.strip() for c in l.strip("|").split("|")]
                if len(cells) != len(cols):
                    continue
                cited += 1
                for rid in flagged & info.keys():
                    op, mode, dtype, shape, prov, sku, sid = info[rid]
                    if (op, sku) != (m.group(1), m.group(2)) or cells[:2] != ["%s %s %s" % (mode, dtype, shape),
                                                                               sid[:8]]:
                        continue
                    over = [k for k, c in enumerate(cols) if c.startswith("fused over ") and
                            (prov == "fused" or c.startswith("fused over " + prov))]
                    if any(cells[k] != "-" for k in over):
                        problems.append("packet %s: %s %s on %s, session %s: a speedup rests on implausible run "
                                        "%d (%s)" % (target, op, cells[0], sku, sid[:8], rid, prov))

    # the weekly: its appendix lists the week's flagged session runs
    week = run(db, "runs", "--json", "--limit", "1")
    fin = json.loads(week)[0]["finished_at"][:10]
    import datetime
    y, w, _ = datetime.date.fromisoformat(fin).isocalendar()
    wk = "%d-W%02d" % (y, w)
    wout = os.path.join(work, "weekly")
    run(db, "report", "weekly", "--week", wk, "--out", wout)
    app = open(os.path.join(wout, wk + "-appendix.md")).read()
    in_week = listing_rows(app)
    wchecked = 0
    for rid, fin_at in con.execute("SELECT s.run_id, p.finished_at FROM run_sessions s "
                                   "JOIN provenance p ON p.run_id = s.run_id"):
        if rid in bad and fin_at and fin_at[:10] >= str(datetime.date.fromisocalendar(y, w, 1)) \
                and fin_at[:10] <= str(datetime.date.fromisocalendar(y, w, 7)):
            wchecked += 1
            if in_week.get(rid, ("",))[0] != "implausible":
                problems.append("weekly %s: session run %d is above every ceiling and its appendix does not "
                                "list it" % (wk, rid))
    # the site: plausibility.html lists every run the listing calls implausible, and no other
    site = os.path.join(work, "site")
    run(db, "site", "--out", site)
    page = open(os.path.join(site, "plausibility.html")).read()
    on_site = set()
    for tr in re.findall(r"<tr>(.*?)</tr>", page, re.S):
        if re.search(r"<td>\s*implausible\s*</td>", tr):
            # the run column: a cell that is one link to a run (the calibration and
            # reason cells link runs inside their text)
            on_site.update(int(m) for m in re.findall(r'<td[^>]*>\s*<a href="runs/[^"#]*#r(\d+)">\d+</a>\s*</td>', tr))
    for rid in sorted(listed_bad - on_site):
        problems.append("site: plausibility.html does not list implausible run %d" % rid)
    for rid in sorted(on_site - listed_bad):
        problems.append("site: plausibility.html lists run %d, which the listing does not call implausible" % rid)
    stats = {"bad": bad, "checked": checked, "listing": listing, "pairs": pairs, "unpaired": unpaired,
             "ev": ev_figures, "cited": cited, "week": (wk, wchecked), "site": len(on_site)}
    return problems, stats


ex = os.path.join(top, "examples")
folders = []
for pat in ("h1*/gemm", "h1*/kernels", "h2*/gemm", "h2*/kernels", "h*/kernels-full", "h100/gemm-settle",
            "h*/providers", "h*/training", "h*/calibration", "fleet"):
    folders += sorted(glob.glob(os.path.join(ex, pat)))
folders += sorted(glob.glob(os.path.join(ex, "h*", "sessions", "*.tar.gz")))

with tempfile.TemporaryDirectory() as work:
    db = os.path.join(work, "main.db")
    subprocess.run([solbook, "ingest", "--db", db, "-q", *folders], capture_output=True, text=True)
    problems, st = check(db, work)
    if problems:
        print("FAIL: the main job's database:\n  " + "\n  ".join(problems[:20]))
        sys.exit(1)
    bad, listing = st["bad"], st["listing"]
    if not bad:
        sys.exit("FAIL: no run above every measured ceiling: the check did not bite on anything")
    if not any(sid for _, _, _, sid in bad.values()):
        sys.exit("FAIL: no session run above every measured ceiling: the session check was not exercised")
    if st["pairs"] < 100 or st["ev"] < 50:
        sys.exit("FAIL: %d headline pairs, %d evidence figures: too few to check" % (st["pairs"], st["ev"]))
    by_sku = {}
    for rid, (v, sku, _) in listing.items():
        by_sku.setdefault(sku, {"implausible": 0, "cache-resident": 0})[v] += 1
    print("main job's database: %s passing runs checked by SKU (Python's recomputation)" %
          ", ".join("%s %d" % kv for kv in sorted(st["checked"].items())))
    print("report plausibility lists by SKU: %s" % "; ".join(
        "%s %d implausible, %d cache-resident" % (s, c["implausible"], c["cache-resident"])
        for s, c in sorted(by_sku.items())))
    print("%d runs above every measured ceiling (%d of measuring sessions), each listed implausible with a "
          "reason; none behind %d paired headline pairs, %d unpaired geomean rows, %d evidence %% copy "
          "figures, %d case rows of packets; weekly %s lists its %d; the site's plausibility.html lists all %d" % (
              len(bad), sum(1 for b in bad.values() if b[3]), st["pairs"], st["unpaired"], st["ev"],
              st["cited"], st["week"][0], st["week"][1], st["site"]))

    # The doctored database: the stored bandwidth ceilings 10% higher than
    # the calibration measured. The reports now take runs the calibration
    # documents forbid; the check must catch them in the listing, the
    # geomean or the evidence (the packets, the weekly and the site read
    # the same marks, checked above on the real database).
    doctored = os.path.join(work, "doctored.db")
    shutil.copy(db, doctored)
    con = sqlite3.connect(doctored)
    con.execute("UPDATE ceilings SET value = value * 1.10 WHERE name LIKE 'bw.%'")
    con.commit()
    con.close()
    problems, _ = check(doctored, work, publications=False)
    if not problems:
        sys.exit("FAIL: the doctored database (bandwidth ceilings raised 10%) passed the check")
    print("doctored database (stored bandwidth ceilings x1.10): the check fails as it must, %d problems; "
          "the first: %s" % (len(problems), problems[0]))

#!/usr/bin/env python3
"""site_e2e.py - `solbook site` end to end, checked in headless Chromium.

    site_e2e.py SOLBOOK SOLBENCH|- SOURCE_DIR TEST_DATA

The CPU pipeline: solbench --device cpu writes GEMM results (the CPU build
has one GEMM provider, "cpu"), STREAM results, one run whose correctness
check fails on purpose (--test-corrupt-output) and the roofline
calibration; without solbench (no CUDA toolkit) the same kind of files
recorded from it come from TEST_DATA/site/results. One copy of a GEMM result
gets markup in its GPU name and notes. Then solbook ingest, solbook report
weekly and solbook site (twice: the two trees must be byte-identical).

Checks: no network assets and every link resolving (static HTML); stored
markup shown as text, never as elements; then in Chromium, driven over the
DevTools protocol (--remote-debugging-pipe, standard library only): every
page loads with no console error, no exception and no failed request; the
overview's matrix cells against the newest runs in SQLite; median and
sample counts on op and run pages against SQLite; SVG plots present; the
sort script works; the promoted-kernel registry from an empty and a
filled forge_kernels table and from verified_kernels.json; and, on a synthetic
database with several providers (perf/gen_site_db.py), every geomean row
recomputed from SQLite. Exits 77 (skip) only when chromium is missing.
"""
import datetime
import fcntl
import glob
import gzip
import hashlib
import html.parser
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

MARKUP_GPU = "<script>alert('gpu')</script><b>Bold GPU</b>"
MARKUP_NOTE = "note: <img src=x onerror=alert(1)> & <i>italic</i>"

checks = 0


def ok(msg):
    global checks
    checks += 1
    print("ok: " + msg)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, want=0, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if p.returncode != want:
        fail("%s: exit %d (expected %d)\n%s%s" % (" ".join(cmd), p.returncode, want, p.stdout,
                                                   p.stderr))
    return p.stdout


# ---- results ---------------------------------------------------------------

def make_results(solbench, out, data):
    os.makedirs(out)
    if solbench == "-":
        src = os.path.join(data, "site", "results")
        for f in sorted(os.listdir(src)):
            shutil.copy(os.path.join(src, f), out)
        print("note: no solbench (no CUDA toolkit): using recorded CPU results from " + src)
        return
    common = ["--device", "cpu", "--warmup", "1", "--iters", "5", "--repeats", "3"]
    for dtype in ("fp32", "fp16"):
        for m in (64, 96, 128):
            run([solbench, "gemm", "--provider", "cpu", "--dtype", dtype, "--M", str(m), "--N",
                 str(m), "--K", str(m), "--suite", "site-e2e", "--out",
                 os.path.join(out, "gemm-%s-%d.json" % (dtype, m))] + common)
    for kern in ("copy", "triad"):
        run([solbench, "stream", "--provider", "cpu", "--kernel", kern, "--N", "65536", "--suite",
             "site-e2e", "--out", os.path.join(out, "stream-%s.json" % kern)] + common)
    # a correctness failure, on purpose: solbench exits 1 and still writes the file
    run([solbench, "gemm", "--provider", "cpu", "--dtype", "fp32", "--M", "80", "--N", "80", "--K",
         "80", "--suite", "site-e2e", "--test-corrupt-output", "--out",
         os.path.join(out, "gemm-fp32-80-corrupt.json")] + common, want=1)
    run([solbench, "roofline", "--device", "cpu", "--bytes", "4M", "--gemm-size", "64",
         "--warmup", "1", "--iters", "3", "--repeats", "2", "--out",
         os.path.join(out, "calibration.json")])


def add_markup(out):
    src = os.path.join(out, "gemm-fp32-96.json")
    d = json.load(open(src))
    d["provenance"]["device"]["name"] = MARKUP_GPU
    d["notes"] = MARKUP_NOTE
    d.pop("run_uuid", None)
    json.dump(d, open(os.path.join(out, "gemm-fp32-96-markup.json"), "w"), indent=2,
              sort_keys=True)


# ---- static checks ---------------------------------------------------------

class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []      # (tag, attr, value)
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src") and v is not None:
                self.refs.append((tag, k, v))
        if tag == "script":
            self.scripts += 1


def static_checks(site):
    pages = sorted(glob.glob(os.path.join(site, "**", "*.html"), recursive=True))
    if not pages:
        fail("no HTML pages in " + site)
    nlinks = 0
    for p in pages:
        text = open(p, encoding="utf-8").read()
        if "<script>alert" in text or "<img src=x" in text:
            fail("%s: stored markup written as markup" % p)
        lp = Links()
        lp.feed(text)
        for tag, attr, v in lp.refs:
            if v.startswith(("http://", "https://", "//")):
                if attr == "src" or tag == "link":
                    fail("%s: network asset %s=%s" % (p, attr, v))
                continue
            if v.startswith(("mailto:", "#")):
                continue
            if v.startswith("data:") and tag != "link":
                continue
            target = v.split("#", 1)[0]
            path = os.path.normpath(os.path.join(os.path.dirname(p), target))
            if not os.path.isfile(path):
                fail("%s: link %s=%s does not resolve (%s)" % (p, attr, v, path))
            if not path.startswith(os.path.abspath(site) + os.sep):
                fail("%s: link %s leaves the site" % (p, v))
            nlinks += 1
    for f in glob.glob(os.path.join(site, "**", "*.css"), recursive=True):
        if "http" in open(f).read() or "@import" in open(f).read():
            fail("%s: stylesheet loads from the network" % f)
    ok("%d pages: no network assets, %d relative links all resolve" % (len(pages), nlinks))
    return pages


def same_tree(a, b):
    fa = sorted(os.path.relpath(f, a) for f in glob.glob(os.path.join(a, "**"), recursive=True)
                if os.path.isfile(f))
    fb = sorted(os.path.relpath(f, b) for f in glob.glob(os.path.join(b, "**"), recursive=True)
                if os.path.isfile(f))
    if fa != fb:
        fail("two builds give different file lists: %s" % sorted(set(fa) ^ set(fb))[:5])
    for f in fa:
        if open(os.path.join(a, f), "rb").read() != open(os.path.join(b, f), "rb").read():
            fail("two builds differ in %s" % f)
    ok("two builds of the same database are byte-identical (%d files)" % len(fa))


# ---- DevTools protocol over a pipe ----------------------------------------

class Chrome:
    def __init__(self, exe, tmp):
        r_cmd, w_cmd = os.pipe()     # we write commands, chromium reads fd 3
        r_evt, w_evt = os.pipe()     # chromium writes fd 4, we read
        profile = os.path.join(tmp, "chrome-profile")

        def child():
            a = fcntl.fcntl(r_cmd, fcntl.F_DUPFD, 10)  # out of the way of 3 and 4
            b = fcntl.fcntl(w_evt, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.p = subprocess.Popen(
            [exe, "--headless", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update",
             "--allow-file-access-from-files", "--user-data-dir=" + profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(tmp, "chromium.log"), "w"),
            preexec_fn=child, close_fds=False)  # fds 3 and 4 made in child(); Python's own fds are close-on-exec
        os.close(r_cmd)
        os.close(w_evt)
        self.w = os.fdopen(w_cmd, "wb", buffering=0)
        self.r = os.fdopen(r_evt, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                fail("chromium did not answer in time")
            chunk = self.r.read(65536)
            if not chunk:
                fail("chromium closed the DevTools pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            m["sessionId"] = self.session
        self.w.write(json.dumps(m).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            msg = self._read(deadline)
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    fail("DevTools %s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method, timeout=30):
        deadline = time.time() + timeout
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            msg = self._read(deadline)
            if msg.get("method") == method:
                return msg
            self.events.append(msg)

    def open(self):
        t = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        a = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True},
                      session=False)
        self.session = a["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            self.send(m)

    def load(self, url):
        self.events = []
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        # let late requests and console messages arrive
        self.send("Runtime.evaluate", {"expression": "1"})
        problems = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                problems.append("console error: %s" % p.get("args"))
            elif m == "Runtime.exceptionThrown":
                problems.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                problems.append("log error: %s" % p["entry"].get("text"))
            elif m == "Network.loadingFailed":
                problems.append("failed request: %s" % p.get("errorText"))
            elif m == "Network.responseReceived":
                st = p.get("response", {}).get("status", 0)
                if st >= 400:
                    problems.append("HTTP %d: %s" % (st, p["response"].get("url")))
        if problems:
            fail("%s: %s" % (url, "; ".join(problems)))
        return len([e for e in self.events if e.get("method") == "Network.requestWillBeSent"])

    def js(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            fail("script failed: %s: %s" % (expr[:80], r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except SystemExit:
            pass
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def sig3_close(text, want, rel=0.006):
    try:
        got = float(text)
    except ValueError:
        return False
    return abs(got - want) <= rel * abs(want) + 1e-12


# ---- the checks in the browser ---------------------------------------------

def expected_cells(db):
    """(op, sku) -> status label of the overview, from the newest run of every
    case x provider x SKU (runs timed under a profiler are no timings)."""
    base = """
        SELECT c.op, p.sku, c.case_key, c.provider, r.status, k.passed, p.git_sha,
               ROW_NUMBER() OVER (PARTITION BY c.case_key, c.provider, p.sku
                                  ORDER BY p.finished_at DESC, r.id DESC) AS rn,
               ROW_NUMBER() OVER (PARTITION BY c.provider, p.sku
                                  ORDER BY p.finished_at DESC, r.id DESC) AS pn
        FROM runs r JOIN configs c ON c.run_id = r.id JOIN provenance p ON p.run_id = r.id
        LEFT JOIN correctness k ON k.run_id = r.id
        WHERE r.schema = 'solbook.result.v1' AND c.profiler IS NULL"""
    rows = db.execute(base).fetchall()
    cells = {}
    for op, sku, case, prov, status, passed, sha, rn, pn in rows:
        if rn != 1:
            continue
        c = cells.setdefault((op, sku), {"pass": 0, "fail": 0, "skip": 0})
        if status == "passed" and passed == 1:
            c["pass"] += 1
        elif status == "skipped":
            c["skip"] += 1
        else:
            c["fail"] += 1
    out = {}
    for k, c in cells.items():
        out[k] = ("failed" if c["fail"] else "passing" if c["pass"] else "skipped")
    return out


def check_matrix(ch, base, db, need):
    ch.load(base + "index.html")
    cells = json.loads(ch.js("""JSON.stringify(Array.from(document.querySelectorAll('#matrix td.cell'))
        .map(td => [td.dataset.op, td.dataset.sku || '', td.dataset.status,
                    td.querySelector('.st').textContent]))"""))
    want = expected_cells(db)
    seen = 0
    for op, sku, status, label in cells:
        if status != label:
            fail("matrix %s/%s: data-status %s but label %s" % (op, sku, status, label))
        if not sku:
            if status != "missing":
                fail("matrix %s: an arch with no SKU must be missing" % op)
            continue
        w = want.get((op, sku), "missing")
        if status != w:
            fail("matrix %s on %s: page says %s, database says %s" % (op, sku, status, w))
        seen += 1
    if seen != len(want):
        fail("matrix shows %d op x SKU cells, database has %d" % (seen, len(want)))
    states = sorted(set(c[2] for c in cells))
    for n in need:
        if n not in states:
            fail("matrix: expected a %s cell, states are %s" % (n, states))
    ok("overview matrix: %d cells match the newest runs in SQLite (states: %s)"
       % (seen, ", ".join(states)))


def browser_checks(chrome_exe, site, dbpath, tmp):
    db = sqlite3.connect(dbpath)
    ch = Chrome(chrome_exe, tmp)
    try:
        ch.open()
        base = "file://" + os.path.abspath(site) + "/"
        # 1. every top-level page and one of each kind loads cleanly
        pages = ["index.html", "ops/index.html", "runs/index.html", "history/index.html",
                 "weekly/index.html", "packets/index.html", "registry.html", "contributions.html",
                 "roadmap.html"]
        pages += sorted(os.path.relpath(p, site) for p in glob.glob(os.path.join(site, "ops", "*.html")))
        pages += sorted(os.path.relpath(p, site) for p in glob.glob(os.path.join(site, "weekly", "*.html")))
        pages += sorted(os.path.relpath(p, site) for p in glob.glob(os.path.join(site, "packets", "*", "*", "index.html")))
        hist = sorted(f for f in glob.glob(os.path.join(site, "history", "*.html"))
                      if not os.path.basename(f).startswith("index"))
        pages += [os.path.relpath(hist[0], site)] if hist else []
        for p in pages:
            n = ch.load(base + p)
            if p.endswith(".html") and "weekly/2" not in p and n < 3:
                fail("%s: expected the page, its stylesheet and script to load (%d requests)" % (p, n))
        ok("%d pages load in Chromium with no console error, exception or failed request" % len(pages))

        # 2. the overview matrix against the newest runs in the database
        check_matrix(ch, base, db, ("failed", "passing", "missing"))
        gate = ch.js("document.querySelector('#gate .st').textContent")
        if gate not in ("complete", "incomplete"):
            fail("gate verdict missing")
        ok("completion gate verdict shown: %s" % gate)

        # 3. op pages: medians of the newest runs against SQLite; SVG plots present
        nmed = 0
        for p in sorted(glob.glob(os.path.join(site, "ops", "*.html"))):
            if p.endswith("index.html"):
                continue
            ch.load("file://" + os.path.abspath(p))
            geo_rows = ch.js("document.querySelectorAll('table.geo-table tbody tr').length")
            bars = ch.js("""Array.from(document.querySelectorAll('figure.plot svg > title'))
                .filter(t => t.textContent.startsWith('Geomean speedup')).length""")
            if geo_rows and not bars:
                fail("%s: geomean table without speedup bars" % p)
            skus = ch.js("document.querySelectorAll('section.sku a').length")
            subs = glob.glob(os.path.join(p[:-5], "*.html"))
            if skus < 1 or not subs:
                fail("%s: no page per SKU (%d links, %d pages)" % (p, skus, len(subs)))
        for p in sorted(glob.glob(os.path.join(site, "ops", "*", "*.html"))):
            ch.load("file://" + os.path.abspath(p))
            svgs = ch.js("document.querySelectorAll('figure.plot svg').length")
            areas = ch.js("document.querySelectorAll('figure.plot svg rect.plot-area').length")
            if "-p" not in os.path.basename(p) and (svgs < 2 or areas < 2):
                fail("%s: expected latency and roofline SVGs (%d svg, %d plot areas)" % (p, svgs, areas))
            tds = json.loads(ch.js("""JSON.stringify(Array.from(document.querySelectorAll(
                'td[data-run]')).map(td => [td.dataset.run, td.textContent]))"""))
            for rid, text in tds:
                row = db.execute("SELECT m.median_ms, r.status, k.passed FROM runs r LEFT JOIN metrics m"
                                 " ON m.run_id = r.id LEFT JOIN correctness k ON k.run_id = r.id"
                                 " WHERE r.id = ?", (int(rid),)).fetchone()
                if row[1] == "passed" and row[2] == 1:
                    if not sig3_close(text, row[0]):
                        fail("%s: run %s median %s, database %r" % (p, rid, text, row[0]))
                    nmed += 1
                elif text != "\u2013":
                    fail("%s: failing run %s shows a figure %s" % (p, rid, text))
        if nmed == 0:
            fail("no median checked on op pages")
        ok("op pages and their SKU pages: %d medians match SQLite; failing runs show no figure; "
           "latency, roofline and speedup SVGs present" % nmed)

        # 4. run pages: provenance, samples, metrics against SQLite
        ids = [r[0] for r in db.execute("SELECT id FROM runs ORDER BY id")]
        raw_lines = {}
        for f in glob.glob(os.path.join(site, "runs", "*.jsonl.gz")):
            page = int(os.path.basename(f).split(".")[0])
            lines = gzip.open(f, "rb").read().split(b"\n")[:-1]
            for rid, line in zip([i for i in ids if i // 100 == page], lines):
                raw_lines[rid] = line
        for rid in ids:
            ch.load(base + "runs/%d.html" % (rid // 100))
            got = json.loads(ch.js("""(function(){var tr = document.getElementById('r%d');
                if (!tr) return '{}';
                return JSON.stringify({
                gpu: (tr.querySelector('td.gpu') || {}).textContent,
                sha: (tr.querySelector('code') || {}).textContent,
                med: (tr.cells[15] || {}).textContent,
                samples: (tr.querySelector('td.dist') || {}).title,
                notes: (tr.querySelector('div.notes') || {}).textContent,
                bad: document.querySelectorAll('main script').length});})()""" % rid))
            if not got:
                fail("run %d: no row r%d on runs/%d.html" % (rid, rid, rid // 100))
            gpu, sha, notes = db.execute("SELECT p.gpu_name, p.git_sha, r.notes FROM runs r JOIN provenance p"
                                         " ON p.run_id = r.id WHERE r.id = ?", (rid,)).fetchone()
            if got.get("gpu") != gpu or got.get("sha") != sha[:10]:
                fail("run %d: provenance %r/%r, database %r/%r" % (rid, got.get("gpu"), got.get("sha"), gpu, sha))
            if (notes or None) != got.get("notes"):
                fail("run %d: notes %r, database %r" % (rid, got.get("notes"), notes))
            ns = db.execute("SELECT coalesce(sum(length(value_ms)), 0) / 8 FROM run_samples WHERE run_id = ?",
                            (rid,)).fetchone()[0]
            if ns and not (got.get("samples") or "").startswith("%d samples" % ns):
                fail("run %d: distribution says %r, %d samples stored" % (rid, got.get("samples"), ns))
            med = db.execute("SELECT median_ms FROM metrics WHERE run_id = ?", (rid,)).fetchone()
            if med and med[0] is not None and not sig3_close(got.get("med", ""), med[0]):
                fail("run %d: median %r, database %r" % (rid, got.get("med", ""), med[0]))
            # the document whole, its samples joined back (db/sample_blob.h):
            # the bytes whose digest is stored
            digest = db.execute("SELECT content_sha256 FROM runs WHERE id = ?", (rid,)).fetchone()[0]
            if hashlib.sha256(raw_lines.get(rid, b"")).hexdigest() != digest:
                fail("run %d: raw JSON line is not the stored document (content_sha256)" % rid)
            if got["bad"]:
                fail("run %d: a script element inside the page body" % rid)
        ok("%d runs on their pages: provenance, notes, samples, medians and the raw JSON lines "
           "(gzip, byte for byte the stored documents) match SQLite" % len(ids))
        mk = db.execute("SELECT r.id FROM runs r JOIN provenance p ON p.run_id = r.id"
                        " WHERE p.gpu_name = ?", (MARKUP_GPU,)).fetchone()
        if not mk:
            fail("the markup fixture run is not stored")
        ch.load(base + "runs/%d.html" % (mk[0] // 100))
        elems = ch.js("document.querySelectorAll('main img, main i:not(.note i), main td b, main div.notes *').length")
        if elems:
            fail("markup from the database became %d elements" % elems)
        ok("GPU name and notes with markup show as text (no script/img/b/i elements)")

        # 5. the sort script reorders a table
        ch.load(base + "runs/0.html")
        order = ch.js("""(function(){var t=document.querySelector('table.runs');
            var col=t.tHead.rows[0].cells[0]; col.click(); col.click();
            return [col.getAttribute('aria-sort'), t.tBodies[0].rows[0].cells[0].textContent,
                    t.tBodies[0].rows[t.tBodies[0].rows.length-1].cells[0].textContent];})()""")
        if order[0] != "descending" or int(order[1]) < int(order[2]):
            fail("sort script: %r" % order)
        ok("sort script orders the run list by run id, descending on a second click")

        # 5b. history charts as laid out: every point has its tooltip, and
        # the turned commit labels (date and SHA) stay inside the chart
        nlab = npts = 0
        for h in hist:
            ch.load("file://" + os.path.abspath(h))
            r = json.loads(ch.js("""JSON.stringify(Array.from(document.querySelectorAll('svg.hc')).map(svg => {
                var b = svg.getBoundingClientRect();
                var pts = Array.from(svg.querySelectorAll('g.pt > path'));
                return {pts: pts.length,
                        titled: pts.filter(p => p.firstElementChild && p.firstElementChild.tagName == 'title'
                                            && /, run \\d+: median /.test(p.firstElementChild.textContent)).length,
                        labels: Array.from(svg.querySelectorAll('text.xl')).map(t => {
                            var r = t.getBoundingClientRect();
                            return [t.textContent, r.left - b.left, b.right - r.right, b.bottom - r.bottom];})};
            }))"""))
            for c in r:
                if not c["pts"] or c["titled"] != c["pts"]:
                    fail("%s: %d of %d chart points with a tooltip" % (h, c["titled"], c["pts"]))
                for text, left, right, bottom in c["labels"]:
                    if not re.fullmatch(r"\d{4}-\d\d-\d\d [0-9a-f]{7}", text) or min(left, right, bottom) < 0:
                        fail("%s: commit label %r outside the chart (%.0f, %.0f, %.0f px)" % (h, text, left, right, bottom))
                nlab += len(c["labels"])
                npts += c["pts"]
        if not npts:
            fail("no history chart point checked")
        ok("history charts in Chromium: %d points each with a tooltip, %d date+SHA labels inside the chart"
           % (npts, nlab))

        # 6. with JavaScript off the same tables and plots are there
        ch.send("Emulation.setScriptExecutionDisabled", {"value": True})
        rid = ids[-1]
        for p, sel, least in (("index.html", "#matrix tbody tr", 1),
                              ("runs/index.html", "table.runs-index tbody tr", 1),
                              ("runs/%d.html" % (rid // 100), "table.runs tbody tr",
                               len([i for i in ids if i // 100 == rid // 100])),
                              (os.path.relpath(sorted(glob.glob(os.path.join(site, "ops", "g*", "*.html")))[0], site),
                               "figure.plot svg", 2)):
            ch.load(base + p)
            n = ch.js("document.querySelectorAll('%s').length" % sel)
            if n < least:
                fail("JavaScript off: %s has %d of %s" % (p, n, sel))
            if ch.js("(function(){var t=document.querySelector('table.sortable th');"
                     "return t ? t.getAttribute('title') : null;})()") is not None:
                fail("JavaScript off: the sort script ran anyway")
        ch.send("Emulation.setScriptExecutionDisabled", {"value": False})
        ok("with JavaScript off the matrix, run list, run page tables and op plots are all there")
    finally:
        ch.close()


# ---- geomeans against SQLite, and the kernel registry ----------------------

def expected_geomeans(db, op):
    """(mode, dtype, sku, provider, baseline) -> (geomean, shapes), recomputed
    from the newest run of every case x provider x SKU (docs/REPORTS.md)."""
    q = """
      WITH r AS (
        SELECT c.case_key, c.mode, c.dtype, c.provider, p.sku, m.median_ms,
               (r.status = 'passed' AND k.passed = 1) AS ok,
               ROW_NUMBER() OVER (PARTITION BY c.case_key, c.provider, p.sku
                                  ORDER BY p.finished_at DESC, r.id DESC) AS rn
        FROM runs r JOIN configs c ON c.run_id = r.id JOIN provenance p ON p.run_id = r.id
        LEFT JOIN metrics m ON m.run_id = r.id LEFT JOIN correctness k ON k.run_id = r.id
        WHERE c.op = ? AND c.profiler IS NULL)
      SELECT case_key, mode, dtype, provider, sku, median_ms, ok FROM r WHERE rn = 1"""
    newest = {}
    for case, mode, dtype, prov, sku, med, good in db.execute(q, (op,)):
        newest[(case, prov, sku)] = (mode, dtype, med if good else None)
    return newest


def check_geomeans(ch, site, dbpath):
    import math
    db = sqlite3.connect(dbpath)
    nrows = 0
    for p in sorted(glob.glob(os.path.join(site, "ops", "*.html"))):
        if p.endswith("index.html"):
            continue
        ch.load("file://" + os.path.abspath(p))
        rows = json.loads(ch.js("""JSON.stringify(Array.from(document.querySelectorAll(
            'table.geo-table tbody tr')).map(tr => Array.from(tr.cells).map(td => td.textContent)))"""))
        op = os.path.basename(p)[:-5]
        newest = expected_geomeans(db, op)
        for mode, dtype, arch, sku, prov, base, shapes, geo, *_ in rows:
            ratios = []
            for (case, pv, sk), (md, dt, med) in newest.items():
                if pv != prov or sk != sku or md != mode or dt != dtype or med is None:
                    continue
                b = newest.get((case, base, sku))
                if b and b[2] is not None:
                    ratios.append(b[2] / med)
            if int(shapes) != len(ratios):
                fail("%s: %s %s %s %s vs %s: %s shapes on the page, %d in SQLite"
                     % (p, mode, dtype, sku, prov, base, shapes, len(ratios)))
            if ratios:
                want = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
                if abs(float(geo) - want) > 0.0006:
                    fail("%s: %s %s %s %s: geomean %s on the page, %.4f from SQLite"
                         % (p, mode, dtype, sku, prov, geo, want))
            nrows += 1
    if nrows == 0:
        fail("no geomean rows to check")
    ok("%d geomean rows (shapes and speedups) match SQLite, recomputed from the newest runs" % nrows)


class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts = []
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, d):
        self.parts.append(d)


def page_text(path):
    t = Text()
    t.feed(open(path, encoding="utf-8").read())
    return "".join(t.parts), t.tags


def registry_checks(solbook, db, tmp):
    site = os.path.join(tmp, "site-reg")
    run([solbook, "site", "--db", db, "--out", site])
    text, _ = page_text(os.path.join(site, "registry.html"))
    if "No promoted kernels yet." not in text:
        fail("registry with an empty forge_kernels: no 'No promoted kernels yet.'")
    ok("registry page says 'No promoted kernels yet.' while forge_kernels is empty")
    # forge_kernels comes from the migrations; the site reads it through db/
    con = sqlite3.connect(db)
    con.execute("INSERT INTO forge_kernels (kernel_id, base_id, version, language, op, sku, dtype, shapes,"
                " forge_run, author, author_kind, entry_point, min_speedup, speedup_min, speedup_geomean,"
                " gpu_name, git_sha, cases_json, sources_json, registry_path, status, evidence_level,"
                " promoted_at) VALUES ('cuda_rmsnorm_h100-sxm5-80gb_bf16_x_v1', 'cuda_rmsnorm_h100-sxm5-80gb_bf16_x',"
                " 1, 'cuda', 'rmsnorm', 'h100-sxm5-80gb', 'bf16', 'B=8,H=4096', 'run-x', 'agent', 'agent',"
                " 'rmsnorm_fwd', 1.05, 1.1, 1.25, ?, 'abc', '[]', '{}', 'forge/registry/x',"
                " 'available, not applied', 'op-level microbenchmark', '2026-11-21T12:00:00Z')", (MARKUP_GPU,))
    con.commit()
    con.close()
    run([solbook, "site", "--db", db, "--out", site])
    text, tags = page_text(os.path.join(site, "registry.html"))
    for want in ("cuda_rmsnorm_h100-sxm5-80gb_bf16_x_v1", "available, not applied", "1.25",
                 MARKUP_GPU):
        if want not in text:
            fail("registry page lacks %r" % want)
    raw = open(os.path.join(site, "registry.html"), encoding="utf-8").read()
    if "<script>alert" in raw or "&lt;script&gt;alert(&#39;gpu&#39;)" not in raw:
        fail("registry page: markup in gpu_name not escaped")
    ok("registry page lists forge_kernels rows (status, speedups; markup in gpu_name as text)")
    kj = os.path.join(tmp, "verified_kernels.json")
    json.dump({"schema": "solbook.forge-registry", "kernels": [
        {"kernel_id": "triton_swiglu_h200-sxm-141gb_bf16_y_v2", "op": "swiglu",
         "speedup_geomean": 1.5, "status": "available, not applied",
         "evidence_level": "op-level microbenchmark"}]}, open(kj, "w"))
    run([solbook, "site", "--db", db, "--out", site, "--kernels", kj])
    text, _ = page_text(os.path.join(site, "registry.html"))
    if "triton_swiglu_h200-sxm-141gb_bf16_y_v2" not in text or "cuda_rmsnorm" in text:
        fail("--kernels: registry page does not come from verified_kernels.json")
    ok("registry page from verified_kernels.json with --kernels")


def check_regressions(solbook, site, dbpath):
    """History pages mark the same regressions `solbook report regressions
    --history` finds (every commit against the one before, per case,
    provider, SKU), and draw them on the charts."""
    p = subprocess.run([solbook, "report", "regressions", "--history", "--db", dbpath, "--format", "json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        fail("solbook report regressions: exit %d: %s" % (p.returncode, p.stderr))
    rows = json.loads(p.stdout)["cases"]
    want = sum(1 for r in rows if r["verdict"] in ("regression", "now failing"))
    drawn = sum(1 for r in rows if r["verdict"] == "regression")
    charted = 0
    cases = [f for f in glob.glob(os.path.join(site, "history", "*.html"))
             if not os.path.basename(f).startswith("index")]
    for f in cases:
        if not re.search(r"-p\d+\.html$", f):
            charted += open(f, encoding="utf-8").read().count('<polygon class="regression"')
    if charted != drawn:
        fail("regressions: report says %d, history charts mark %d" % (drawn, charted))
    marked = 0
    for f in cases:
        marked += open(f, encoding="utf-8").read().count('class="row-regression"')
    listed = 0
    for f in glob.glob(os.path.join(site, "history", "index*.html")):
        listed += sum(int(n) for n in re.findall(r'<span class="st st-failed">(\d+)</span>',
                                                  open(f, encoding="utf-8").read()))
    if want == 0:
        fail("the synthetic database should hold regressions")
    if marked != want or listed != want:
        fail("regressions: report says %d, history pages mark %d rows, index lists %d"
             % (want, marked, listed))
    ok("history pages mark the %d regressions `solbook report regressions --history` finds, "
       "and their charts draw them" % want)


def find_chrome(test, src):
    """The chromium executable (exit 77, a skip, without one); sets the
    environment every solbook command of a test runs in."""
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chrome:
        print("chromium not found: %s skipped (apt-get install chromium)" % test)
        sys.exit(77)
    os.environ["SOLBOOK_HOME"] = src
    os.environ.pop("SOLBOOK_DB", None)
    return chrome


def main():
    if len(sys.argv) != 5:
        fail("usage: site_e2e.py SOLBOOK SOLBENCH|- SOURCE_DIR TEST_DATA")
    solbook, solbench, src, data = sys.argv[1:]
    chrome = find_chrome("site_e2e", src)
    tmp = tempfile.mkdtemp(prefix="sb_site_e2e.")
    try:
        res = os.path.join(tmp, "results")
        make_results(solbench, res, data)
        add_markup(res)
        db = os.path.join(tmp, "e2e.db")
        run([solbook, "ingest", "--db", db, res], want=0)
        con = sqlite3.connect(db)
        n = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        fin = con.execute("SELECT max(finished_at) FROM provenance").fetchone()[0]
        con.close()
        ok("ingested %d runs from the CPU pipeline" % n)
        y, w, _ = datetime.date.fromisoformat(fin[:10]).isocalendar()
        week = "%04d-W%02d" % (y, w)
        run([solbook, "report", "weekly", "--db", db, "--week", week, "--out",
             os.path.join(tmp, "weekly")])
        ok("solbook report weekly --week %s" % week)
        site, site2 = os.path.join(tmp, "site"), os.path.join(tmp, "site2")
        out = run([solbook, "site", "--db", db, "--out", site])
        if "site: " not in out:
            fail("no summary line: " + out)
        run([solbook, "site", "--db", db, "--out", site2])
        same_tree(site, site2)
        run([solbook, "site", "--db", db, "--out", site])  # an earlier site is replaced
        ok("rebuilding over an earlier site works")
        if not os.path.isfile(os.path.join(site, "weekly", week + ".html")):
            fail("no weekly page for " + week)
        ok("weekly writeup %s rendered into the site" % week)
        static_checks(site)
        browser_checks(chrome, site, db, tmp)
        registry_checks(solbook, db, tmp)
        # speedups need two providers: a synthetic database (perf/gen_site_db.py)
        sdb = os.path.join(tmp, "synthetic.db")
        run([sys.executable, os.path.join(src, "perf", "gen_site_db.py"), sdb, "3600"])
        ssite = os.path.join(tmp, "site-synthetic")
        run([solbook, "site", "--db", sdb, "--out", ssite])
        check_regressions(solbook, ssite, sdb)
        ch = Chrome(chrome, tmp)
        try:
            ch.open()
            check_matrix(ch, "file://" + os.path.abspath(ssite) + "/", sqlite3.connect(sdb),
                         ("failed", "passing"))
            check_geomeans(ch, ssite, sdb)
        finally:
            ch.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("site_e2e: %d checks passed" % checks)


if __name__ == "__main__":
    main()

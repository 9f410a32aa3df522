#!/usr/bin/env python3
"""site_questions.py - the two questions a kernel engineer brings to the
site, answered from the pages' text in headless Chromium, on the shipped
H100/H200 data (examples/):

1. "Is our rmsnorm faster than Liger on H200, at which shapes, since which
   commit?" The op-on-SKU page's speedup-by-shape table against liger,
   on the H200 and the H100: every shape with its paired kernel-time
   speedup, call-time speedup, session and commit, each figure checked
   against `solbook session --cases` on the same sessions; shapes in the
   order of their numbers.
2. "Did anything regress this week?" The regressions page: the project's
   kernels' regressions measured in the newest week, checked against
   `solbook report regressions --history` (rows of provider fused whose
   new run finished that week), and the week-over-week count against the
   weekly writeup's.

Also: at 400 px the overview, that op page and the regressions page are
no wider than the screen, and a sortable head sorts from the keyboard;
then every kind of page at 1400 and 400 px as site_audit.py checks it
(width, heading order, skip link, keyboard-reachable sort, charts
role="img" with a title, no folder of the building machine named).

    site_questions.py SOLBOOK SOURCE_DIR

Exits 77 (skip) only when chromium is missing.
"""
import datetime
import glob
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import site_audit  # noqa: E402  (every kind of page at 1400 and 400 px)
import site_e2e  # noqa: E402  (the DevTools client, ok and fail)
from site_e2e import Chrome, fail, find_chrome, ok, run  # noqa: E402

H100 = "h100-sxm5-80gb"
H200 = "h200-sxm-141gb"


def natural(s):
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", s) if t]


def session_cases(solbook, sdb):
    """(mode, dtype, shape, baseline, sku) -> (kernel, call, session prefix) from
    `solbook session --cases`."""
    out = run([solbook, "session", "--db", sdb, "--cases"])
    cases = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 11 or not cells[0].startswith("rmsnorm "):
            continue
        op, mode, dtype, shape = cells[0].split(" ", 3)
        cases[(mode, dtype, shape, cells[2], cells[1])] = (cells[5], cells[7], cells[8])
    if not cases:
        fail("solbook session --cases printed no rmsnorm case")
    return cases


def question_speedup(ch, site, want, sku):
    ch.load("file://%s/ops/rmsnorm/%s.html" % (site, sku))
    rows = json.loads(ch.js("""JSON.stringify(Array.from(document.querySelectorAll(
        'section.speedup[data-baseline="liger"] table.speedup-table tbody tr')).map(tr =>
        Array.from(tr.cells).map(td => td.textContent.trim())))"""))
    if not rows:
        fail("rmsnorm on %s: no speedup-by-shape table against liger" % sku)
    head = ch.js("""Array.from(document.querySelectorAll(
        'section.speedup[data-baseline="liger"] table.speedup-table thead th')).map(th =>
        th.textContent.trim()).join('|')""")
    if "speedup, kernel time" not in head or "speedup, call time" not in head:
        fail("the speedup table does not say which time each column shows: " + head)
    print("answer 1: rmsnorm, fused against liger on %s, paired kernel time (call time beside it):" % sku)
    checked, wins = 0, 0
    for mode, dtype, shape, params, kernel, interval, call, verdict, _t, _b, _th, session, sha in rows:
        key = (mode, dtype, shape, "liger", sku)
        if key not in want:
            fail("page row %s has no case in solbook session --cases" % (key,))
        k, c, s = want.pop(key)
        page_call = call.rstrip("\u00d7") if not call.startswith("\u2013") else "-"
        if kernel.rstrip("\u00d7") != k.rstrip("x") or page_call != c.rstrip("x"):
            fail("%s %s %s: page kernel %s call %s, solbook session %s %s" % (mode, dtype, shape, kernel,
                                                                           call, k, c))
        if not session.startswith(s):
            fail("%s %s %s: session %s, solbook session says %s" % (mode, dtype, shape, session, s))
        if not re.fullmatch(r"[0-9a-f]{7,10}", sha):
            fail("%s %s %s: no commit (%r)" % (mode, dtype, shape, sha))
        wins += verdict == "win"
        checked += 1
        print("  %-4s %-4s %-18s %s  %s kernel, %s call, %s; session %s, commit %s"
              % (mode, dtype, shape, params, kernel, call, verdict, session, sha))
    left = [k for k in want if k[3] == "liger" and k[4] == sku]
    if left:
        fail("cases of solbook session missing on the page: %s" % left[:3])
    ok("rmsnorm vs liger on %s: %d shapes, every kernel and call speedup, session and commit as "
       "solbook session gives them (%d wins)" % (sku, checked, wins))
    groups = {}
    for r in rows:
        groups.setdefault((r[0], r[1], r[3]), []).append(r[2])
    for g, shapes in groups.items():
        if shapes != sorted(shapes, key=natural):
            fail("shapes of %s not in the order of their numbers: %s" % (g, shapes))
    ok("%s: shapes sorted by their numbers in each of %d mode x dtype x params groups" % (sku, len(groups)))


def unpaired_pages(ch, site):
    """An op-on-SKU page with no speedup section says that no session pairs
    fused there, instead of showing nothing."""
    pages = sorted(glob.glob(os.path.join(site, "ops", "*", "*-*.html")))
    said = 0
    for page in pages:
        if "~p" in os.path.basename(page):
            continue
        ch.load("file://" + page)
        if ch.js("document.querySelectorAll('section.speedup').length") not in (0, "0"):
            continue
        text = ch.js("document.querySelector('main').innerText")
        if "No measuring session pairs fused with another provider" not in text:
            fail("%s: no speedup section and no word why" % os.path.relpath(page, site))
        said += 1
    if not said:
        fail("no op page without measuring sessions to check the empty state on")
    ok("%d op-on-SKU pages without a paired session say so" % said)


def question_regressions(ch, site, solbook, db):
    p = subprocess.run([solbook, "report", "regressions", "--history", "--db", db, "--format", "json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        fail("solbook report regressions: exit %d: %s" % (p.returncode, p.stderr))
    con = sqlite3.connect(db)
    fin = dict(con.execute("SELECT run_id, finished_at FROM provenance"))
    newest = con.execute("SELECT max(p.finished_at) FROM provenance p JOIN runs r ON r.id = p.run_id "
                         "WHERE r.schema = 'solbook.result.v1'").fetchone()[0]
    con.close()
    y, w, _ = datetime.date.fromisoformat(newest[:10]).isocalendar()
    week = "%04d-W%02d" % (y, w)

    def week_of(run):
        d = datetime.date.fromisoformat(fin[run][:10]).isocalendar()
        return "%04d-W%02d" % (d[0], d[1])

    cases = json.loads(p.stdout)["cases"]
    flagged = ("regression", "now failing", "improvement")
    listed = [r for r in cases if r["verdict"] in flagged and (r["latest"] or week_of(r["new_run"]) == week)]

    def group(r):
        if r["cause"] == "environment/noise drift":
            return "drift"
        if r["cause"] != "code":
            return "setup"
        if r["verdict"] == "improvement":
            return "improved"
        return {"confirmed": "confirmed", "refuted": "refuted"}.get(r["confirm"], "unconfirmed")

    want = sorted(r["new_run"] for r in listed if group(r) in ("confirmed", "unconfirmed", "refuted")
                  and r["verdict"] in ("regression", "now failing") and week_of(r["new_run"]) == week)
    ch.load("file://%s/index.html" % site)
    href = ch.js("Array.from(document.querySelectorAll('main a')).map(a => a.getAttribute('href'))"
                 ".filter(h => h === 'regressions.html').length")
    if not href:
        fail("the overview does not link the regressions page")
    ch.load("file://%s/regressions.html" % site)

    def table(gid):
        return json.loads(ch.js("""JSON.stringify(Array.from(document.querySelectorAll('#%s-table tbody tr'))
            .map(tr => Array.from(tr.cells).map(td => td.textContent.trim())))""" % gid))

    # every group against solbook report regressions --history: the rows of
    # the project's code by their paired re-measure, third-party drift and
    # setup changes apart (a group over its cap lists its first rows)
    runs_col = {"confirmed": 15, "unconfirmed": 15, "refuted": 15, "improved": 13, "drift": 13,
                "setup": 14}
    pages = {}
    for gid, col in runs_col.items():
        rows = table(gid)
        exp = sorted(r["new_run"] for r in listed if group(r) == gid)
        got = sorted(int(r[col].split("\u2192")[-1].strip()) for r in rows)
        head = ch.js("document.getElementById('%s').textContent" % gid)
        if not head.endswith("(%d)" % len(exp)):
            fail("regressions page: %s heading %r, solbook report regressions has %d rows" % (gid, head,
                                                                                              len(exp)))
        if (len(got) == len(exp) and got != exp) or not set(got) <= set(exp) or not got and exp:
            fail("regressions page: %s lists runs %s, solbook report regressions gives %s" % (gid, got[:8],
                                                                                              exp[:8]))
        pages[gid] = rows
        print("  %-11s %3d row(s) listed of %d" % (gid, len(got), len(exp)))
    ok("the regressions page splits the project's regressions into confirmed, unconfirmed and refuted, "
       "its improvements, third-party drift and setup changes as solbook report regressions does")
    said = ch.js("document.getElementById('own-week-regressions').textContent")
    rows = pages["confirmed"] + pages["unconfirmed"] + pages["refuted"]
    got = sorted(int(r[15].split("\u2192")[-1].strip()) for r in rows
                 if ("regression" in r[0] or "now failing" in r[0]) and r[2].startswith("this week"))
    if int(said) != len(want) or got != want:
        fail("regressions of fused in %s: page says %s and lists runs %s, solbook report regressions gives "
             "%s" % (week, said, got, want))
    print("answer 2: %s regression(s) of the project's kernels (fused) measured in %s:" % (said, week))
    for r in rows:
        if r[2].startswith("this week"):
            print("  %s %s %s %s %s on %s: %s, re-measure %s, commits %s, runs %s" % (
                r[0], r[3], r[4], r[5], r[6], r[9], r[10], r[13], r[14], r[15]))
    ok("the regressions page lists the %d regressions of fused in %s that solbook report regressions "
       "--history finds, each with its runs" % (len(want), week))
    parts = [int(ch.js("document.getElementById('wow-%s').textContent" % k))
             for k in ("confirmed", "unconfirmed", "refuted")]
    counted = sum(1 for r in cases if r["counted"])
    if sum(parts) != counted:
        fail("counted regressions split %s, solbook report regressions counts %d" % (parts, counted))
    wow = int(ch.js("document.getElementById('wow-regressions').textContent"))
    if wow != counted:
        fail("regressions page counts %d, solbook report regressions %d" % (wow, counted))
    weekly = open(os.path.join(site, "weekly", "index.html"), encoding="utf-8").read()
    cells = re.findall(r'<td class="num">(\d+)</td>',
                       weekly[weekly.index('href="%s.html"' % week):].split("</tr>")[0])
    if len(cells) < 6 or int(cells[5]) != wow:
        fail("week over week: regressions page says %d, weekly index row %s" % (wow, cells))
    ok("week over week: %d regressions, the weekly writeup's count" % wow)


def weekly_run_links(site, db):
    """The weekly appendix as pages of the site: every page under 500 KB,
    every section of the Markdown on one of them, every run id of its run
    columns a link to that run's row, and every run link's target row
    there."""
    con = sqlite3.connect(db)
    ids = {r[0] for r in con.execute("SELECT id FROM runs")}
    con.close()
    weekly = os.path.join(site, "weekly")
    weeks = sorted(f[:-len("-appendix.md")] for f in os.listdir(weekly) if f.endswith("-appendix.md"))
    if not weeks:
        fail("no weekly appendix")
    targets, nlinks, ncells = {}, 0, 0
    for week in weeks:
        md = open(os.path.join(weekly, week + "-appendix.md"), encoding="utf-8").read()
        pages = sorted(f for f in os.listdir(weekly) if re.fullmatch(re.escape(week) + r"-appendix(-\d+)?\.html", f))
        html = ""
        for f in pages:
            size = os.path.getsize(os.path.join(weekly, f))
            if size > 500 * 1024:
                fail("%s is %d bytes" % (f, size))
            html += open(os.path.join(weekly, f), encoding="utf-8").read()
        # sections: every "## " heading outside code blocks
        sections, fence = [], False
        for line in md.splitlines():
            if line.startswith("```"):
                fence = not fence
            elif not fence and line.startswith("## "):
                sections.append(line[3:].strip())
        got = re.findall(r'<h2 id="s\d+">(.*?)</h2>', html)
        if len(got) != len(sections):
            fail("%s appendix: %d sections on its pages, %d in the Markdown" % (week, len(got), len(sections)))
        # run columns of the Markdown's tables: each id linked on the pages
        linked = set(int(t) for t in re.findall(r'<a href="\.\./runs/\d+\.html#r\d+">(\d+)</a>', html))
        head = None
        for line in md.splitlines():
            if not line.startswith("|"):
                head = None
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if head is None:
                head = cells
                continue
            for h, c in zip(head, cells):
                if h in ("run", "old run", "new run") and c.isdigit():
                    ncells += 1
                    if int(c) not in linked:
                        fail("%s appendix: run %s of column %r is not a link" % (week, c, h))
        for f in pages + [week + ".html"]:
            text = open(os.path.join(weekly, f), encoding="utf-8").read()
            for page, rid, shown in re.findall(r'<a href="\.\./runs/(\d+)\.html#r(\d+)">(\d+)</a>', text):
                if rid != shown or int(rid) not in ids or int(page) != int(rid) // 100:
                    fail("%s: run link %s/%s to %s" % (f, page, rid, shown))
                targets.setdefault(page, set()).add(rid)
                nlinks += 1
        print("  %s: appendix on %d page(s), %d sections" % (week, len(pages), len(sections)))
    for page, rids in targets.items():
        text = open(os.path.join(site, "runs", page + ".html"), encoding="utf-8").read()
        missing = [r for r in rids if 'id="r%s"' % r not in text]
        if missing:
            fail("runs/%s.html has no row for runs %s" % (page, missing[:5]))
    ok("weekly pages and appendices: %d run links, each to its run's row; every one of the %d ids "
       "in the appendices' run columns linked; pages under 500 KB" % (nlinks, ncells))


def narrow_and_keyboard(ch, site):
    ch.send("Emulation.setDeviceMetricsOverride",
            {"width": 400, "height": 900, "deviceScaleFactor": 1, "mobile": True})
    for page in ("index.html", "ops/rmsnorm/%s.html" % H100, "regressions.html", "weekly/index.html"):
        ch.load("file://%s/%s" % (site, page))
        width = ch.js("document.documentElement.scrollWidth")
        if width > 400:
            fail("%s is %d px wide at 400 px" % (page, width))
    ok("overview, op page, regressions and weekly index no wider than 400 px at 400 px")
    ch.send("Emulation.clearDeviceMetricsOverride")
    ch.load("file://%s/regressions.html" % site)
    ch.js("document.querySelector('#drift-table thead th:nth-child(10)').focus()")
    focused = ch.js("document.activeElement.textContent")
    ch.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter",
                                       "windowsVirtualKeyCode": 13})
    ch.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Enter", "code": "Enter",
                                       "windowsVirtualKeyCode": 13})
    sort = ch.js("document.querySelector('#drift-table thead th:nth-child(10)').getAttribute('aria-sort')")
    if focused != "median change" or sort != "ascending":
        fail("keyboard sort: focus on %r, aria-sort %r" % (focused, sort))
    skip = ch.js("document.querySelector('a.skip').getAttribute('href')")
    if skip != "#main" or not ch.js("!!document.getElementById('main')"):
        fail("no skip link to #main")
    ok("a head takes the focus and Enter sorts its column; the skip link leads to the content")


def main():
    if len(sys.argv) != 3:
        fail("usage: site_questions.py SOLBOOK SOURCE_DIR")
    solbook, src = sys.argv[1:]
    chrome = find_chrome("site_questions", src)
    tmp = tempfile.mkdtemp(prefix="sb_site_questions.")
    try:
        db, sdb = os.path.join(tmp, "results.db"), os.path.join(tmp, "sessions.db")
        kf = [os.path.join(src, "examples", a, "kernels-full") for a in ("h100", "h200")]
        subprocess.run([solbook, "ingest", "--db", db, "-q"] + kf, stdout=subprocess.DEVNULL)
        if subprocess.run(["git", "-C", src, "rev-parse", "--git-dir"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            log = subprocess.run(["git", "-C", src, "log", "--format=%H %P %ct"], stdout=subprocess.PIPE,
                                 check=True).stdout
            subprocess.run([solbook, "commits", "import", "--db", db, "-"], input=log,
                           stdout=subprocess.DEVNULL, check=True)
        sessions = sorted(os.path.join(src, "examples", a, "sessions", f) for a in ("h100", "h200")
                          for f in os.listdir(os.path.join(src, "examples", a, "sessions"))
                          if f.endswith(".tar.gz"))
        subprocess.run([solbook, "ingest", "--db", sdb, "-q"] + sessions, stdout=subprocess.DEVNULL)
        site = os.path.join(tmp, "site")
        run([solbook, "site", "--db", db, "--sessions", sdb, "--out", site])
        ok("site built from examples/h*/kernels-full with examples/h*/sessions")
        weekly_run_links(site, db)
        ch = Chrome(chrome, tmp)
        try:
            ch.open()
            want = session_cases(solbook, sdb)
            for sku in (H200, H100):
                question_speedup(ch, site, want, sku)
            unpaired_pages(ch, site)
            question_regressions(ch, site, solbook, db)
            narrow_and_keyboard(ch, site)
            site_audit.audit(ch, site, [tmp, src])
        finally:
            ch.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("site_questions: %d checks passed" % site_e2e.checks)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""site_audit.py - every kind of page of a built site held to what
docs/SITE.md guarantees for reading on any screen and by keyboard, in
headless Chromium at a given width:

- no page wider than the window, and no element reaching past its right
  edge unless it is inside a box that scrolls sideways;
- one h1 first, and headings that go down one level at a time;
- a skip link to #main, which exists;
- every head of a sortable table takes the keyboard's focus;
- every chart (an svg not inside another) is role="img" with a title;
- no page names a folder of the building machine (the paths given).

    site_audit.py SITE [PATH ...]   (checks at 1400 and 400 px)

Used by site_questions.py on the shipped data; exits 77 without chromium.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from site_e2e import Chrome, fail, find_chrome, ok  # noqa: E402

AUDIT_JS = r"""(() => {
  const out = [];
  const root = document.documentElement, vw = root.clientWidth;
  if (root.scrollWidth > vw) out.push("the page is " + root.scrollWidth + " px wide");
  const scrolls = e => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a).overflowX;
      if (s === "auto" || s === "scroll" || s === "hidden") return true;
    }
    return false;
  };
  let wide = 0, first = "";
  for (const e of document.body.getElementsByTagName("*")) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 1 && !scrolls(e)) {
      wide++;
      if (!first) first = e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined
        ? "." + e.className : "") + " (" + Math.round(r.right) + " px)";
    }
  }
  if (wide) out.push(wide + " element(s) past the right edge outside a scroll box, first " + first);
  const levels = Array.from(document.querySelectorAll("h1,h2,h3,h4,h5,h6")).map(h => +h.tagName[1]);
  if (levels[0] !== 1 || levels.filter(l => l === 1).length !== 1)
    out.push("headings do not open with the one h1: " + levels.slice(0, 6).join(","));
  for (let i = 1; i < levels.length; i++)
    if (levels[i] > levels[i - 1] + 1) {
      const h = document.querySelectorAll("h1,h2,h3,h4,h5,h6")[i];
      out.push("heading h" + levels[i - 1] + " then h" + levels[i] + " (" + h.textContent.slice(0, 60) + ")");
      break;
    }
  const skip = document.querySelector("a.skip");
  if (!skip || skip.getAttribute("href") !== "#main" || !document.getElementById("main"))
    out.push("no skip link to #main");
  const heads = Array.from(document.querySelectorAll("table.sortable thead th"));
  const unfocusable = heads.filter(th => th.tabIndex !== 0).length;
  if (unfocusable) out.push(unfocusable + " sortable head(s) the keyboard cannot reach");
  let charts = 0;
  for (const s of document.querySelectorAll("svg")) {
    if (s.parentElement.closest("svg")) continue;
    charts++;
    const title = s.querySelector(":scope > title");
    if (s.getAttribute("role") !== "img" || !((title && title.textContent.trim()) || s.getAttribute("aria-label")))
      { out.push("a chart without role=img and a title (" + (title ? title.textContent.slice(0, 60) : "") + ")"); break; }
  }
  return JSON.stringify({problems: out, headings: levels.length, sortable: heads.length, charts: charts});
})()"""


def pick_pages(site):
    """One or more pages of every kind: the top pages, every op and
    op-on-SKU page (first page), the first, a middle and the last run
    page, the history index and three histories, every weekly page and
    appendix page, the packets."""
    def rel(*p):
        return os.path.join(*p)

    pages = sorted(f for f in os.listdir(site) if f.endswith(".html"))
    for sub in ("ops", "runs", "history", "weekly", "packets"):
        if os.path.exists(os.path.join(site, sub, "index.html")):
            pages.append(rel(sub, "index.html"))
    ops = os.path.join(site, "ops")
    for f in sorted(os.listdir(ops)) if os.path.isdir(ops) else []:
        if f.endswith(".html") and f != "index.html":
            pages.append(rel("ops", f))
        elif os.path.isdir(os.path.join(ops, f)):
            pages += [rel("ops", f, g) for g in sorted(os.listdir(os.path.join(ops, f)))
                      if g.endswith(".html") and "~p" not in g]
    runs = sorted((f for f in os.listdir(os.path.join(site, "runs"))
                   if f.endswith(".html") and f[0].isdigit()), key=lambda f: int(f.split(".")[0]))
    if runs:
        pages += [rel("runs", f) for f in sorted({runs[0], runs[len(runs) // 2], runs[-1]})]
    hist = sorted(f for f in os.listdir(os.path.join(site, "history"))
                  if f.endswith(".html") and not f.startswith("index"))
    pages += [rel("history", f) for f in hist[:3]]
    weekly = os.path.join(site, "weekly")
    pages += [rel("weekly", f) for f in sorted(os.listdir(weekly))
              if f.endswith(".html") and f != "index.html"]
    for dirpath, _dirs, files in sorted(os.walk(os.path.join(site, "packets"))):
        if "index.html" in files and dirpath != os.path.join(site, "packets"):
            pages.append(os.path.relpath(os.path.join(dirpath, "index.html"), site))
    return pages


def audit(ch, site, paths, widths=(1400, 400), every=False):
    """Checks the pages of pick_pages at each width; fails on the first
    page with a problem, naming it and the width (every: prints each
    problem and fails at the end). Returns the pages."""
    pages = pick_pages(site)
    problems = []

    def problem(msg):
        if not every:
            fail(msg)
        print("problem: " + msg)
        problems.append(msg)

    for path in paths:
        for page in pages:
            text = open(os.path.join(site, page), encoding="utf-8").read()
            if path in text:
                problem("%s names %s, a folder of the building machine" % (page, path))
    totals = {}
    for width in widths:
        ch.send("Emulation.setDeviceMetricsOverride",
                {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 700})
        t = {"headings": 0, "sortable": 0, "charts": 0}
        for page in pages:
            ch.load("file://%s/%s" % (site, page))
            r = json.loads(ch.js(AUDIT_JS))
            if r["problems"]:
                problem("%s at %d px: %s" % (page, width, "; ".join(r["problems"])))
            for k in t:
                t[k] += r[k]
        totals[width] = t
    ch.send("Emulation.clearDeviceMetricsOverride")
    if problems:
        fail("%d problem(s)" % len(problems))
    t = totals[widths[0]]
    ok("%d pages of every kind at %s px: none wider than the window outside a scroll box, one h1 "
       "and headings one level down at a time (%d), a skip link, every sortable head (%d) reachable "
       "by keyboard, every chart (%d) role=img with a title; no page names %s"
       % (len(pages), " and ".join(map(str, widths)), t["headings"], t["sortable"], t["charts"],
          ", ".join(paths) or "a build folder"))
    return pages


def main():
    if len(sys.argv) < 2:
        fail("usage: site_audit.py SITE [PATH ...]")
    site = os.path.abspath(sys.argv[1])
    chrome = find_chrome("site_audit", os.environ.get("SOLBOOK_HOME", "."))
    tmp = tempfile.mkdtemp(prefix="sb_site_audit.")
    ch = Chrome(chrome, tmp)
    try:
        ch.open()
        audit(ch, site, sys.argv[2:], every=True)
    finally:
        ch.close()


if __name__ == "__main__":
    main()

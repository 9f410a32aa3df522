#!/usr/bin/env python3
"""site_names.py SOLBOOK - names from data never share a page of the site.

Adversarial names: a SKU named like another SKU's second page
(h100-sxm5-80gb-p2 beside h100-sxm5-80gb with two pages of cases), ops
named like the slug-and-hash file name of another op ("a+b" and
"a-b-HASH"), an op named "index" (the list of ops) or like its
hashed name, an op named like another op's page ("gemm.html", whose
folder of SKU pages would be the page ops/gemm.html), and SKUs named
like another SKU's page (h100-sxm5-80gb.html, h100-sxm5-80gb-p2.html).
After
`solbook site --page-rows 10`: every op has its own page naming it, the
list of ops is still the list, and the SKU pages hold page 1 and 2 of
h100-sxm5-80gb and the one page of each other SKU, each naming its SKU;
every op's page has its folder of SKU pages beside it; and pages of
ops and SKUs with ordinary names keep their names.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOLBOOK = sys.argv[1]
HOME = os.environ["SOLBOOK_HOME"]
GOOD = os.path.join(HOME, "tests", "data", "ingest", "good")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def title(path):
    with open(path, encoding="utf-8") as f:
        m = re.search(r"<title>(.*?) · solbook</title>", f.read())
    if not m:
        fail("%s has no title" % path)
    return html.unescape(m.group(1))


def fnv48(s):
    h = 1469598103934665603
    for c in s.encode():
        h = ((h ^ c) * 1099511628211) % (1 << 64)
    return "%012x" % (h & 0xffffffffffff)


work = tempfile.mkdtemp(prefix="sb_names_")
try:
    with open(os.path.join(GOOD, "gemm_h100_cublas.json")) as f:
        base = json.load(f)
    src = os.path.join(work, "in")
    os.makedirs(src)
    n = [0]

    def put(op, sku, m):
        n[0] += 1
        doc = json.loads(json.dumps(base))
        doc["run_uuid"] = "%032x" % (0xfeed00 + n[0])
        doc["config"]["op"] = op
        doc["config"]["shape"]["M"] = m
        doc["provenance"]["device"]["sku"] = sku
        with open(os.path.join(src, "r%03d.json" % n[0]), "w") as f:
            json.dump(doc, f)

    SKU, SKU_P2 = "h100-sxm5-80gb", "h100-sxm5-80gb-p2"
    for m in range(100, 111):  # 11 cases: two pages of 10
        put("gemm", SKU, m)
    put("gemm", SKU_P2, 100)
    SKU_HTML = [SKU + ".html", SKU_P2 + ".html"]
    for sku in SKU_HTML:
        put("gemm", sku, 100)
    # op names take [a-z0-9._+-]: "a+b" is escaped, and the others are
    # the file names a slug-and-hash scheme gives "a+b" and "index"
    OPS = ["a+b", "a-b", "a-b-" + fnv48("a+b"), "index", "index-" + fnv48("index"), "a.b",
           "gemm.html", "gemm.html.html"]
    for op in OPS:
        put(op, SKU, 100)
    db = os.path.join(work, "s.db")
    out = os.path.join(work, "site")
    for args in (["ingest", "--db", db, src],
                 ["site", "--db", db, "--out", out, "--page-rows", "10"]):
        p = subprocess.run([SOLBOOK] + args, capture_output=True, text=True)
        if p.returncode != 0:
            fail("solbook %s exited %d: %s" % (args[0], p.returncode, p.stderr))

    ops_dir = os.path.join(out, "ops")
    if title(os.path.join(ops_dir, "index.html")) != "ops":
        fail("ops/index.html is not the list of ops: %r" % title(os.path.join(ops_dir, "index.html")))
    named = {}
    for name in os.listdir(ops_dir):
        if name.endswith(".html") and name != "index.html":
            named.setdefault(title(os.path.join(ops_dir, name)), []).append(name)
    for op in OPS + ["gemm"]:
        if named.get("op " + op, []) == []:
            fail("op %r has no page of its own (pages: %r)" % (op, sorted(named)))
        if len(named["op " + op]) != 1:
            fail("op %r has pages %r" % (op, named["op " + op]))
    print("ok: %d ops with names like each other's file names, each on its own page" % len(OPS))
    for op in OPS + ["gemm"]:
        page = named["op " + op][0]
        folder = os.path.join(ops_dir, page[:-len(".html")])
        sku_pages = [title(os.path.join(folder, n)) for n in os.listdir(folder)]
        if not [t for t in sku_pages if t.startswith("op %s on " % op)]:
            fail("op %r: its folder %s holds %r" % (op, folder, sku_pages))
    # ordinary names keep their page names
    for op, page in (("gemm", "gemm.html"), ("a.b", "a.b.html"), ("a-b", "a-b.html")):
        if named["op " + op] != [page]:
            fail("op %r is on %r, not %s" % (op, named["op " + op], page))
    print("ok: every op page has its own folder of SKU pages beside it; gemm, a.b and a-b "
          "keep their page names")

    gemm_dir = os.path.join(ops_dir, "gemm")
    pages = {}
    for name in sorted(os.listdir(gemm_dir)):
        path = os.path.join(gemm_dir, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        m = re.search(r"page (\d+) of (\d+)", text)
        pages[name] = (title(path), m.group(0) if m else "one page")
    want = sorted([("op gemm on %s (paged)" % SKU, "page 1 of 2"),
                   ("op gemm on %s (paged)" % SKU, "page 2 of 2"),
                   ("op gemm on %s" % SKU_P2, "one page")] +
                  [("op gemm on %s" % sku, "one page") for sku in SKU_HTML])
    if sorted(pages.values()) != want:
        fail("SKU pages of gemm: %r, expected %r" % (pages, want))
    if not os.path.isfile(os.path.join(gemm_dir, SKU + ".html")):
        fail("SKU %s is not on ops/gemm/%s.html" % (SKU, SKU))
    print("ok: SKUs %s, %s keep their pages beside page 2 of %s (on %s.html)"
          % (SKU_P2, ", ".join(SKU_HTML), SKU, SKU))
finally:
    shutil.rmtree(work, ignore_errors=True)

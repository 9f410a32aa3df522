#!/usr/bin/env python3
"""busy_week.py SOLBOOK - one stored run, or a busy week, does not stop
the weekly writeup, the packets or the site.

Generated here:
  - a valid run whose params name /root/x, a path under the working
    folder and one under SOLBOOK_HOME: `report weekly`, `packet` and
    `site` succeed, and the reproduce script shows the params as they are;
  - 30 cards in one week: the writeup stays within 300 lines and 65536
    bytes, shows the first N cards' sections and says how many more
    there are (30 in all), and the appendix's Cards table has all 30;
  - 300 ops with long names on two cards, fused against huggingface: the
    cross-arch rows shown and the count of rows left out make 600, the
    new ops named and left out make 300.
"""
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
WEEK = "2026-W47"  # the week of the fixture's finished_at
MAX_BYTES, MAX_LINES = 65536, 300


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


with open(os.path.join(GOOD, "gemm_h100_cublas.json")) as f:
    BASE = json.load(f)


class Week:
    def __init__(self, work, name):
        self.dir = os.path.join(work, name)
        self.src = os.path.join(self.dir, "in")
        self.db = os.path.join(self.dir, "s.db")
        os.makedirs(self.src)
        self.n = 0

    def put(self, op, sku, provider, params=None):
        self.n += 1
        doc = json.loads(json.dumps(BASE))
        doc["run_uuid"] = "%032x" % (0xb5e700 + self.n)
        doc["config"]["op"] = op
        doc["config"]["provider"] = provider
        doc["config"]["params"].update(params or {})
        doc["provenance"]["device"]["sku"] = sku
        with open(os.path.join(self.src, "r%05d.json" % self.n), "w") as f:
            json.dump(doc, f)

    def run(self, *args):
        p = subprocess.run([SOLBOOK] + list(args), capture_output=True, text=True)
        if p.returncode != 0:
            fail("solbook %s exited %d: %s" % (" ".join(args[:2]), p.returncode, p.stderr.strip()))
        return p.stdout

    def build(self, packet=False):
        self.run("ingest", "--db", self.db, self.src)
        self.run("report", "weekly", "--db", self.db, "--week", WEEK, "--out", os.path.join(self.dir, "wk"))
        if packet:
            self.run("packet", "--target", "cutlass", "--db", self.db, "--out", os.path.join(self.dir, "pk"))
        self.run("site", "--db", self.db, "--out", os.path.join(self.dir, "site"))
        with open(os.path.join(self.dir, "wk", WEEK + ".md"), encoding="utf-8") as f:
            md = f.read()
        if len(md.encode()) > MAX_BYTES or md.count("\n") > MAX_LINES:
            fail("%s: the writeup is %d bytes and %d lines" % (self.dir, len(md.encode()), md.count("\n")))
        # these cards have no calibration: a figure that needs one is left
        # out, never printed as nan or inf
        for name in (WEEK + ".md", WEEK + "-appendix.md"):
            bad = re.findall(r"[^|\n]*\b(?:nan|inf)\b[^|\n]*", self.file("wk", name), re.I)
            if bad:
                fail("%s: %s prints a non-finite figure: %r" % (self.dir, name, bad[:3]))
        return md

    def file(self, *rel):
        with open(os.path.join(self.dir, *rel), encoding="utf-8") as f:
            return f.read()


def more(md, pattern):
    m = re.search(pattern, md)
    return int(m.group(1)) if m else 0


work = tempfile.mkdtemp(prefix="sb_busy_")
try:
    # paths in a run's params are data, not the build's own paths
    w = Week(work, "paths")
    paths = {"dir": "/root/x", "cwd": os.getcwd() + "/results", "home": HOME + "/x", "work": w.dir}
    w.put("gemm", "h100-sxm5-80gb", "cublas", paths)
    w.build(packet=True)
    script = w.file("wk", WEEK + "-reproduce.sh")
    for k, v in sorted(paths.items()):
        if "--%s=%s" % (k, v) not in script:
            fail("the reproduce script does not show --%s=%s" % (k, v))
    print("ok: params naming /root/x, the working folder, SOLBOOK_HOME and the output's folder: "
          "weekly, packet and site built, the reproduce script shows each")

    # 30 cards in one week
    w = Week(work, "cards")
    skus = ["sku-%02d" % i for i in range(30)]
    for sku in skus:
        for prov in ("cublas", "huggingface"):
            w.put("gemm", sku, prov)
    md = w.build()
    sections = re.findall(r"^### (sku-\d\d)$", md, re.M)
    left = more(md, r"(\d+) more cards ran this week, past the writeup's limits")
    if not left or len(sections) + left != 30 or len(set(sections)) != len(sections):
        fail("30 cards: %d sections shown and %d said left out" % (len(sections), left))
    rows = re.findall(r"^\| (sku-\d\d) \| NVIDIA", md, re.M)
    rows_left = more(md, r"(\d+) more cards, past the writeup's limits, are in the appendix \(Cards\)")
    if len(rows) + rows_left != 30:
        fail("30 cards: %d rows of the Cards table and %d said left out" % (len(rows), rows_left))
    appendix = w.file("wk", WEEK + "-appendix.md")
    missing = [s for s in skus if "| %s |" % s not in appendix]
    if missing:
        fail("30 cards: the appendix lacks %r" % missing)
    print("ok: 30 cards in %s: %d bytes, %d lines; %d card sections shown + %d said left out, "
          "%d Cards rows + %d left out, all 30 in the appendix" %
          (WEEK, len(md.encode()), md.count("\n"), len(sections), left, len(rows), rows_left))

    # 300 ops with long names on two cards, the project's kernels against huggingface
    w = Week(work, "ops")
    ops = ["op%03d-%s" % (i, "x" * 50) for i in range(300)]
    for op in ops:
        for sku in ("h100-sxm5-80gb", "h200-sxm-141gb"):
            for prov in ("fused", "huggingface"):
                w.put(op, sku, prov)
    md = w.build()
    cross = re.findall(r"^\| (op\d\d\d-x+) \| fwd \| fp16 \| (h100-sxm5-80gb|h200-sxm-141gb) \| 1 \|", md, re.M)
    cross_left = more(md, r"(\d+) more rows, past the writeup's limits, are in the appendix \(Cross-arch")
    if not cross_left or len(cross) + cross_left != 600:
        fail("300 ops: %d cross-arch rows shown and %d said left out" % (len(cross), cross_left))
    line = [ln for ln in md.splitlines() if ln.startswith("- Ops new this week: ")]
    named = re.findall(r"op\d\d\d-x+", line[0]) if line else []
    named_left = more(line[0] if line else "", r" and (\d+) more, on the site's list of ops")
    if len(named) + named_left != 300 or "\u2026" in line[0]:
        fail("300 ops: %d new ops named and %d said left out: %r" % (len(named), named_left, line[:1]))
    print("ok: 300 ops on 2 cards: %d bytes, %d lines; %d cross-arch rows + %d said left out, "
          "%d new ops named + %d left out" %
          (len(md.encode()), md.count("\n"), len(cross), cross_left, len(named), named_left))
finally:
    shutil.rmtree(work, ignore_errors=True)

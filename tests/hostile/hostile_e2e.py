#!/usr/bin/env python3
"""hostile_e2e.py SOLBOOK MD_TO_HTML - stored text never becomes a command,
markup or a terminal control sequence.

Every free-text field of schema-valid results (provenance tool, host,
device and software fields, git describe, notes, reason, correctness
reference, datasheet peak name, source format and file, params and
run_params names and values, the ingested file's own name, a Liger CSV's
liger_version and gpu_name) is filled with injection payloads: a newline
and a command, a CR, ``` fence closers with a heading and raw HTML,
<img onerror> and <script>, ESC and OSC sequences, C1 CSI, RTL overrides
and isolates, shell substitutions and quotes, table breakers, javascript:
links, 90-backtick runs around markup, bare URLs, www. names and e-mail
addresses, 300-character op and SKU names, a 4000-character note, a 1 MB
note and a device named "the". The results are ingested and every output is produced: `runs` and
`show` (text and --json), `validate-results`, `compare`, `report geomean`,
`report note`, `report table`, `report evidence`, `report weekly`, `report standing`,
`packet` (with reproduce.sh), `site`. Then:

- every generated shell script (packet, site and weekly reproduce.sh, the weekly's
  sh blocks) runs in a scratch folder with stub solbench/solbook commands:
  no file any payload names is created;
- every Markdown file, rendered by cmark-gfm with raw HTML allowed, has no
  <img>, <script>, javascript: link, link to a URL, www. name or e-mail
  address from data, or injected heading;
- no text output (terminal, .md, .sh, .html, .svg) holds a raw control
  character, C1 control or bidi control;
- the outputs are complete: every run listed, the weekly's sections and
  commands present, the packet manifest verifies, the long note cut, the
  1 MB note refused with one line naming its file.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOLBOOK, MD_TO_HTML = sys.argv[1], sys.argv[2]
HOME = os.environ["SOLBOOK_HOME"]
GOOD = os.path.join(HOME, "tests", "data", "ingest", "good")

# Each payload that could run a command names a file PWNED_<tag>; a run of
# a generated script must create none of them.
PAYLOADS = {
    "nl": "x\ntouch PWNED_nl\n",
    "cr": "x\r\ntouch PWNED_cr\r\n",
    "fence": "\n```\n# Injected heading\n<img src=x onerror=alert(1)>\n```\ntouch PWNED_fence\n",
    "tilde": "\n~~~\n## Injected tilde heading\n~~~\ntouch PWNED_tilde",
    "esc": "\x1b[2J\x1b]0;pwned title\x07\x1b[31mred\x1b[0m",
    "c1": "\u009b31mcsi\u0085nel",
    "rtl": "\u202eevil\u202c \u2066iso\u2069 \u200fmark",
    "subst": "$(touch PWNED_subst)`touch PWNED_tick`",
    "quote": "'; touch PWNED_quote; echo '",
    "html": "<script>alert(1)</script><img src=x onerror=alert(1)>",
    "table": "| a | b |\n|---|---|\n| x | y |",
    "link": "[click](javascript:alert(1)) <javascript:alert(2)>",
    "semi": "; touch PWNED_semi && touch PWNED_and | touch PWNED_pipe",
    "backslash": "\\\ntouch PWNED_backslash",
    # a code span's delimiter is at most 80 backticks in cmark-gfm
    "ticks": "`" * 82 + " <img src=x onerror=alert(1)><script>alert(1)</script>"
             "[l](javascript:alert(1)) " + "`" * 82,
    # GFM autolinks: a bare URL, a www. name, an e-mail address
    "autolink": "see https://evil.example/a www.evil.example or a.b@evil.example",
}
# Free-text fields (JSON pointers into a result) that take any string.
RESULT_TEXT_FIELDS = [
    ("provenance", "tool", "version"),
    ("provenance", "host", "hostname"),
    ("provenance", "host", "os"),
    ("provenance", "host", "cpu"),
    ("provenance", "device", "name"),
    ("provenance", "device", "board_part_number"),
    ("provenance", "device", "pci_device_id"),
    ("provenance", "device", "uuid"),
    ("provenance", "software", "driver_version"),
    ("provenance", "software", "cuda_runtime_version"),
    ("provenance", "software", "cublas_version"),
    ("provenance", "software", "compiler"),
    ("provenance", "git", "describe"),
    ("metrics", "datasheet_peak_name"),
    ("correctness", "reference"),
    ("notes",),
]


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def put(doc, path, value):
    for k in path[:-1]:
        doc = doc.setdefault(k, {})
    doc[path[-1]] = value


def load(name):
    with open(os.path.join(GOOD, name)) as f:
        return json.load(f)


def run(args, cwd=None, ok=(0,), env=None):
    p = subprocess.run(args, cwd=cwd, capture_output=True, env=env)
    if p.returncode not in ok:
        fail("%s exited %d: %s" % (" ".join(args[:3]), p.returncode, p.stderr.decode(errors="replace")))
    return p


work = tempfile.mkdtemp(prefix="sb_hostile_")
try:
    src = os.path.join(work, "in")
    os.makedirs(src)
    passing = load("gemm_h100_cublas.json")
    uuid_n = [0]

    def new_uuid():
        uuid_n[0] += 1
        return "%032x" % (0xabc000 + uuid_n[0])

    def write(doc, name):
        with open(os.path.join(src, name), "w") as f:
            json.dump(doc, f, ensure_ascii=False)

    # One passing run per payload, each its own case (shape M differs):
    # solbench runs put the payload into shell words (params names and
    # values), imported runs into the comment line (tool name, source).
    for i, (tag, p) in enumerate(sorted(PAYLOADS.items())):
        doc = json.loads(json.dumps(passing))
        doc["run_uuid"] = new_uuid()
        doc["config"]["shape"]["M"] = 1000 + i
        for path in RESULT_TEXT_FIELDS:
            put(doc, path, p)
        doc["config"]["params"] = {"transa": "n", "transb": "n", "note": p, ("k" + p)[:60]: p}
        doc["config"]["run_params"] = {"seed": 7, "lib": p}
        if i % 2:
            doc["provenance"]["tool"]["name"] = p
            doc["source"] = {"format": p, "file": p + ".csv", "row": 2}
        # the file's own name carries the payload too, where a file name
        # can hold it (no '/' or NUL)
        write(doc, ("r%02d-" % i) + p.replace("/", "_")[:80] + ".json")
        # the same case measured by a baseline, for report table
        base = json.loads(json.dumps(doc))
        base["run_uuid"] = new_uuid()
        base["config"]["provider"] = "torch"
        write(base, ("t%02d-" % i) + p.replace("/", "_")[:80] + ".json")
    # failed and skipped runs: the payloads in reason
    for i, (tag, p) in enumerate(sorted(PAYLOADS.items())[:4]):
        for base in ("failed_gemm_h100.json", "skipped_gemm_h100.json"):
            doc = load(base)
            doc["run_uuid"] = new_uuid()
            doc["reason"] = p
            doc["config"]["shape"]["M"] = 2000 + i
            write(doc, "%s-%d.json" % (base[:-5], i))
    # a failed run of the GEMM spec's own case: the completion gate
    # (validate-results) prints its reason
    doc = load("failed_gemm_h100.json")
    doc["run_uuid"] = new_uuid()
    doc["reason"] = PAYLOADS["esc"] + PAYLOADS["nl"] + PAYLOADS["rtl"]
    doc["config"]["shape"].update({"M": 4096, "N": 4096, "K": 4096})
    write(doc, "failed-spec.json")
    # a device name that is a word of every template: packet and site
    # still build (the claims check reads structured fields only)
    doc = json.loads(json.dumps(passing))
    doc["run_uuid"] = new_uuid()
    doc["config"]["shape"]["M"] = 3000
    doc["provenance"]["device"]["name"] = "the"
    write(doc, "device-the.json")
    # 300-character op and SKU, a 4000-character note
    doc = json.loads(json.dumps(passing))
    doc["run_uuid"] = new_uuid()
    doc["config"]["op"] = "o" * 300
    doc["provenance"]["device"]["sku"] = "s" * 300
    doc["notes"] = ("long note " * 400)[:4000]
    write(doc, "n" * 200 + ".json")
    doc = json.loads(json.dumps(doc))
    doc["run_uuid"] = new_uuid()
    doc["config"]["provider"] = "torch"
    write(doc, "t" * 200 + ".json")
    # a 1 MB note: over the schema's limit, refused on its own
    big = json.loads(json.dumps(passing))
    big["run_uuid"] = new_uuid()
    big["notes"] = "A" * (1 << 20)
    bigdir = os.path.join(work, "big")
    os.makedirs(bigdir)
    with open(os.path.join(bigdir, "big.json"), "w") as f:
        json.dump(big, f)
    # a Liger CSV with hostile liger_version, gpu_name and file name
    liger_name = "liger\ntouch PWNED_csvname\n.csv"
    with open(os.path.join(HOME, "tests", "data", "import", "liger_basic.csv")) as f:
        lines = f.read().splitlines()

    def csv_cell(s):
        return '"' + s.replace('"', '""') + '"'

    rows = [lines[0]]
    for k, line in enumerate(lines[1:]):
        cells = line.rsplit(",", 1)[0]
        version = PAYLOADS[sorted(PAYLOADS)[k % len(PAYLOADS)]]
        rows.append(cells + "," + csv_cell(version))
    csvdir = os.path.join(work, "csv")
    os.makedirs(csvdir)
    with open(os.path.join(csvdir, liger_name), "w") as f:
        f.write("\n".join(rows) + "\n")

    db = os.path.join(work, "lab.db")
    out = run([SOLBOOK, "ingest", "--db", db, src]).stdout.decode()
    stored = sum(1 for n in os.listdir(src))
    if "%d stored" % stored not in out:
        fail("not every hostile result was stored: " + out)
    p = run([SOLBOOK, "ingest", "--db", db, "--format", "liger-csv", os.path.join(csvdir, liger_name)])
    # the document bound raised past it, so the schema reads the note
    p = run([SOLBOOK, "ingest", "--db", db, "--max-doc-mb", "2", bigdir], ok=(1, 2))
    err = p.stderr.decode()
    if "big.json" not in err or "maximum" not in err:
        fail("the 1 MB note was not refused by its length: " + err)
    nruns = int(run(["sqlite3", db, "SELECT count(*) FROM runs"]).stdout)
    print("ingested %d hostile runs (%d payloads x %d text fields, reasons, long names, "
          "Liger CSV); the 1 MB note refused: %s" %
          (nruns, len(PAYLOADS), len(RESULT_TEXT_FIELDS) + 6, err.strip().splitlines()[-1][:100]))

    # ---- every output --------------------------------------------------
    outs = os.path.join(work, "out")
    os.makedirs(outs)
    terminal = {}
    terminal["runs"] = run([SOLBOOK, "runs", "--db", db]).stdout
    terminal["runs --json"] = run([SOLBOOK, "runs", "--db", db, "--json"]).stdout
    for rid in range(1, nruns + 1):
        terminal["show %d" % rid] = run([SOLBOOK, "show", "--db", db, str(rid)]).stdout
        terminal["show --json %d" % rid] = run([SOLBOOK, "show", "--db", db, "--json", str(rid)]).stdout
    terminal["report geomean"] = run([SOLBOOK, "report", "geomean", "--db", db]).stdout
    terminal["report geomean --format json"] = run([SOLBOOK, "report", "geomean", "--db", db, "--format", "json"]).stdout
    terminal["report regressions"] = run([SOLBOOK, "report", "regressions", "--db", db], ok=(0, 1)).stdout
    terminal["report regressions --format json"] = run([SOLBOOK, "report", "regressions", "--db", db, "--format", "json"], ok=(0, 1)).stdout
    terminal["validate-results"] = run([SOLBOOK, "validate-results", "--db", db], ok=(0, 1)).stdout
    if b"status is failed: \\e[2J" not in terminal["validate-results"]:
        fail("validate-results does not show the spec run's reason encoded: %r" % terminal["validate-results"])
    run([SOLBOOK, "report", "geomean", "--db", db, "--out", os.path.join(outs, "geomean.md")])
    run([SOLBOOK, "compare", "--db", db, "--out", os.path.join(outs, "compare.md"),
         "provider=cublas", "provider=cublas"], ok=(0, 1))
    run([SOLBOOK, "report", "note", "--db", db, "--out", os.path.join(outs, "note.md")])
    run([SOLBOOK, "report", "evidence", "--db", db, "--out", os.path.join(outs, "evidence.md")])
    run([SOLBOOK, "report", "table", "--db", db, "--op", "gemm", "--sku", "h100-sxm5-80gb",
         "--provider", "cublas", "--baseline", "torch", "--out", os.path.join(outs, "table-gemm.md")])
    run([SOLBOOK, "report", "table", "--db", db, "--op", "o" * 300, "--sku", "s" * 300,
         "--provider", "cublas", "--baseline", "torch", "--out", os.path.join(outs, "table-long.md")])
    run([SOLBOOK, "report", "weekly", "--db", db, "--week", "2026-W47", "--out", os.path.join(outs, "weekly")])
    run([SOLBOOK, "packet", "--db", db, "--target", "triton", "--out", os.path.join(outs, "packet")])
    run([SOLBOOK, "site", "--db", db, "--out", os.path.join(outs, "site")])
    with open(os.path.join(outs, "standing.md"), "wb") as f:
        f.write(run([SOLBOOK, "report", "standing", "--db", db]).stdout)

    # ---- terminal ------------------------------------------------------
    BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
    for name, data in terminal.items():
        text = data.decode("utf-8")
        m = BAD.search(text.replace("\t", " "))
        if m:
            fail("%s wrote raw control U+%04X: %r" % (name, ord(m.group()), text[max(0, m.start() - 40):m.end() + 40]))
    C0 = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
    listed = set(re.findall(r"^\s*(\d+)\s", terminal["runs"].decode(), re.M))
    if len(listed) != nruns:
        fail("runs lists %d of %d runs" % (len(listed), nruns))
    print("terminal: runs, show of %d runs, --json, report geomean and regressions (Markdown and JSON) hold no raw control, C1 or bidi character" % nruns)

    # ---- files ---------------------------------------------------------
    files = []
    for root, _, names in os.walk(outs):
        files += [os.path.join(root, n) for n in names]
    kinds = {}
    for path in files:
        ext = path.rsplit(".", 1)[-1]
        if ext not in ("md", "sh", "html", "svg", "csv"):
            continue
        kinds[ext] = kinds.get(ext, 0) + 1
        text = open(path, encoding="utf-8").read()
        # HTML and SVG are read by browsers, where C1 and bidi characters
        # are text; only C0 controls (not XML) are checked there
        m = (BAD if ext in ("md", "sh", "csv") else C0).search(text.replace("\t", " "))
        if m:
            fail("%s holds raw control U+%04X: %r" % (path, ord(m.group()), text[max(0, m.start() - 60):m.end() + 60]))
        if ext in ("html", "svg") and re.search(r"<img src=x|<script>alert", text):
            fail("%s holds raw HTML from data" % path)
    print("files: %s: no raw control character (nor C1 or bidi in .md, .sh, .csv), no raw HTML "
          "from data in HTML or SVG" %
          ", ".join("%d .%s" % (n, e) for e, n in sorted(kinds.items())))

    # ---- Markdown ------------------------------------------------------
    mds = [f for f in files if f.endswith(".md")]
    for md in mds:
        html = run([MD_TO_HTML, md]).stdout.decode()
        for bad in (r"<img[^>]*onerror", r"<img src=x", r"<script", r'href="javascript',
                    r'href="[^"]*evil\.example'):
            if re.search(bad, html):
                fail("%s renders %s" % (md, bad))
        heads = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", html, re.S)
        if any("Injected" in h for h in heads):
            fail("%s has an injected heading: %s" % (md, [h for h in heads if "Injected" in h]))
    print("Markdown: %d files (standing tables among them) rendered with raw HTML allowed: "
          "no <img onerror>, <script>, javascript: link, link to a URL, www. name or "
          "e-mail address from data, or injected heading" % len(mds))

    # ---- scripts -------------------------------------------------------
    scripts = []
    for path in files:
        if path.endswith("reproduce.sh"):
            scripts.append((path, open(path).read()))
    for md in [f for f in mds if "weekly" in f]:
        text = open(md).read()
        for m in re.finditer(r"^(`{3,})sh\n(.*?)^\1$", text, re.S | re.M):
            scripts.append((md + " (sh block)", m.group(2)))
    if len([s for s in scripts if s[0].endswith("reproduce.sh")]) < 2:
        fail("expected the packet's and the site's reproduce.sh")
    stub = os.path.join(work, "bin")
    os.makedirs(stub)
    for tool in ("solbench", "solbook"):
        with open(os.path.join(stub, tool), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(stub, tool), 0o755)
    env = dict(os.environ, PATH=stub + ":" + os.environ["PATH"])
    commands = 0
    for name, text in scripts:
        scratch = tempfile.mkdtemp(dir=work, prefix="scratch_")
        script = os.path.join(work, "script.sh")
        with open(script, "w") as f:
            f.write(text)
        # a word that only $'...' writes exactly makes a script bash's
        shell = "bash" if text.startswith("#!/usr/bin/env bash") or "$'" in text else "sh"
        p = subprocess.run([shell, script], cwd=scratch, env=env, capture_output=True)
        if p.returncode != 0:
            fail("%s does not run: %s" % (name, p.stderr.decode(errors="replace")))
        made = os.listdir(scratch)
        if made:
            fail("%s created %s" % (name, made))
        commands += sum(1 for line in text.splitlines() if line.startswith(("solbench ", "solbook ")))
    pwned = [os.path.join(r, n) for r, _, ns in os.walk(work) for n in ns if "PWNED" in n and r not in (src, csvdir)]
    if pwned:
        fail("files named by data were created: %s" % pwned)
    print("scripts: %d (packet and site reproduce.sh, weekly sh blocks, %d commands) ran in scratch "
          "folders with stub solbench/solbook: no file named by data created" % (len(scripts), commands))

    # ---- complete ------------------------------------------------------
    weekly = open(os.path.join(outs, "weekly", "2026-W47.md")).read()
    for section in ("## Summary", "## What changed since", "## Cards", "## Cross-arch tables",
                    "## Plots", "## GEMM spec and completion gate", "## More"):
        if section not in weekly:
            fail("weekly lacks " + section)
    appendix = open(os.path.join(outs, "weekly", "2026-W47-appendix.md")).read()
    for section in ("## Cards", "## Geomean speedups", "## Plots", "## End-to-end training",
                    "## Reproduce"):
        if section not in appendix:
            fail("weekly appendix lacks " + section)
    if "(2026-W47-reproduce.sh)" not in appendix:
        fail("weekly appendix does not link its reproduce script")
    script = open(os.path.join(outs, "weekly", "2026-W47-reproduce.sh")).read()
    if script.count("solbench gemm ") < len(PAYLOADS) // 2:
        fail("weekly reproduce script lacks the solbench commands")
    if script.count("# run ") < len(PAYLOADS) // 2:
        fail("weekly reproduce script lacks the imported runs' comment lines")
    run(["sha256sum", "--quiet", "-c", "MANIFEST.sha256"], cwd=os.path.join(outs, "packet"))
    site = os.path.join(outs, "site")
    for must in ("index.html", "runs/index.html"):
        if not os.path.exists(os.path.join(site, must)):
            fail("site lacks " + must)
    pages = [f for f in files if f.startswith(site) and f.endswith(".html")]
    long_pages = [f for f in pages if "long note long note" in open(f).read()]
    for f in long_pages:
        text = open(f).read()
        if "long note " * 401 in text or "\u2026" not in text:
            fail("%s does not cut the 4000-character note" % f)
    if not long_pages:
        fail("no page shows the long note")
    names = [os.path.basename(f) for f in files]
    longest = max(len(n.encode()) for n in names)
    if longest > 255:
        fail("a file name of %d bytes" % longest)
    print("complete: weekly sections and commands, packet manifest verified, %d site pages, "
          "long note cut with an ellipsis, longest file name %d bytes" % (len(pages), longest))
finally:
    if not os.environ.get("SB_KEEP"): shutil.rmtree(work, ignore_errors=True)
    else: print("kept", work)

#!/usr/bin/env python3
"""The Liger and vLLM packets on the stored H100 measuring sessions and
training runs (examples/), as a maintainer reads them:

- DISCUSSION.md is under 20 KB, renders with cmark-gfm as GitHub
  configures it (a table for every finding), and states the evidence level
  of each section; the training section says its models are
  random-initialised Llama configurations on random tokens;
- every speedup line names a session (an 8-digit id the sessions table
  lists), every finding has absolute "p50 (p20-p80)" ms cells and peak
  memory in MB; only ops of data/templates/packets/upstream_ops.csv have
  findings; liger-fp32-accum is labelled a variant wherever it is shown;
- the vLLM packet has forward cases only;
- every figure a finding states is recomputed here from the archived
  result files (round medians, per-round ratios, geometric means);
- reproduce.sh runs to its end with fake python3, gpu_carry.sh and
  solbook that record their arguments: one session.py command per cited
  session with that session's providers, rounds and every case it
  measured, then ingest and the packet command;
- data.tar.gz ingested into a new database gives a packet with the same
  findings, sessions and cited documents.

usage: packet_findings_e2e.py SOLBOOK MD_TO_HTML
"""
import csv
import glob
import hashlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from xml.etree import ElementTree

SOLBOOK, MD_TO_HTML = sys.argv[1], sys.argv[2]
HOME = os.environ["SOLBOOK_HOME"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, **kw)
    if p.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(args[:3]), p.returncode, p.stderr.decode()[-500:]))
    return p.stdout.decode()


def section(text, head, nxt="\n## "):
    a = text.index(head)
    b = text.find(nxt, a + len(head))
    return text[a:] if b < 0 else text[a:b]


def finding_texts(body):
    """Each finding's text: from its "### N." heading to the next heading."""
    return [re.split(r"\n##", f)[0] for f in re.split(r"^### (?=\d+\. )", body, flags=re.M)[1:]]


def manifest_digests(folder):
    """The set of content digests in data/MANIFEST.sha256 of data.tar.gz."""
    with tarfile.open(os.path.join(folder, "data.tar.gz")) as t:
        man = t.extractfile("data/MANIFEST.sha256").read().decode()
    return sorted(line.split()[0] for line in man.splitlines())


work = tempfile.mkdtemp(prefix="sb_packet_findings_")
try:
    db = os.path.join(work, "main.db")
    archives = sorted(glob.glob(os.path.join(HOME, "examples", "h*", "sessions", "*.tar.gz")))
    training = sorted(glob.glob(os.path.join(HOME, "examples", "h*", "training")))
    run([SOLBOOK, "ingest", "--db", db, "-q"] + archives + training)
    ops = {"liger": {}, "vllm": {}}
    with open(os.path.join(HOME, "data", "templates", "packets", "upstream_ops.csv")) as f:
        for row in csv.DictReader(f):
            ops[row["target"]][row["op"]] = row["upstream"]
    out = {}
    for target in ("liger", "vllm"):
        out[target] = os.path.join(work, "packet-" + target)
        run([SOLBOOK, "packet", "--db", db, "--target", target, "--out", out[target]])

    # ---- the discussion body -------------------------------------------
    sizes = {}
    for target in ("liger", "vllm"):
        path = os.path.join(out[target], "DISCUSSION.md")
        body = open(path).read()
        sizes[target] = len(body.encode())
        if sizes[target] >= 20000:
            fail("%s DISCUSSION.md is %d bytes, not under 20 KB" % (target, sizes[target]))
        html = run([MD_TO_HTML, path])
        findings = re.findall(r"^### (\d+)\. ([^\s,]+)", body, re.M)
        if not findings or len(findings) > 10:
            fail("%s: %d findings" % (target, len(findings)))
        if html.count("<table>") < len(findings) + 1:
            fail("%s: %d tables rendered for %d findings" % (target, html.count("<table>"), len(findings)))
        for _, op in findings:
            if op.replace("\\_", "_") not in ops[target]:
                fail("%s: a finding of %s, an op %s does not ship" % (target, op, target))
        # the verdict counts in the words of data/templates/verdicts.csv
        with open(os.path.join(HOME, "data", "templates", "verdicts.csv")) as f:
            w = {r["verdict"]: r for r in csv.DictReader(f)}
        counts = re.compile(r" (\d+) cases: (\d+) (%s|%s), (\d+) (%s|%s);" % (
            w["faster"]["one"], w["faster"]["many"], w["slower"]["one"], w["slower"]["many"]))
        for line in re.findall(r"^- fused over .*$", body, re.M):
            m = counts.search(line)
            if not m or (m.group(3) == w["faster"]["one"]) != (m.group(2) == "1") or \
                    (m.group(5) == w["slower"]["one"]) != (m.group(4) == "1"):
                fail("%s: a speedup line without its verdict counts in the table's words: %s" % (target, line[:160]))
        sessions = set(re.findall(r"^\| ([0-9a-f]{8}) \| GPU-", body, re.M))
        if not sessions:
            fail("%s: no sessions table" % target)
        for line in body.splitlines():
            if re.search(r"\d\.\d+x\b", line) and not line.startswith("| meta-llama"):
                named = set(re.findall(r"\b[0-9a-f]{8}\b", line))
                if not named or not named <= sessions:
                    fail("%s: a ratio without a listed session: %s" % (target, line[:160]))
            if "liger-fp32-accum" in line and "(variant" not in line and "`liger-fp32-accum`" not in line:
                fail("%s: liger-fp32-accum shown without its label: %s" % (target, line[:160]))
        for f in finding_texts(body):
            if not re.search(r"\| \d[\d.e-]* \(\d[\d.e-]*-\d[\d.e-]*\) \|", f):
                fail("%s: a finding without p50 (p20-p80) ms cells: %s" % (target, f[:80]))
            if not re.search(r"^\| peak MB at .* \| [0-9a-f]{8} \|( [\d.]+ \([\d.]+\) \|| - \|)+$", f, re.M):
                fail("%s: a finding without a peak memory row: %s" % (target, f[:80]))
        heads = ["## Findings", "## Data and reproduction"] + (["## End-to-end training steps"] if target == "liger" else [])
        for head in heads:
            if "**Evidence level:**" not in section(body, head):
                fail("%s: %s does not state its evidence level" % (target, head))
        if target == "liger":
            tr = section(body, "## End-to-end training steps")
            if "random-initialised Llama configurations" not in tr or "random tokens" not in tr:
                fail("the training section does not say its models are random-initialised on random tokens")
            if "The same kernels at op level" in tr:
                fail("the training section shows unpaired op-level rows")
            if "## What we ask" not in body:
                fail("no ask")
        if target == "vllm":
            for case in re.findall(r"^\| ((?:fwd|bwd|full) \S+ \S+) \|", body, re.M):
                if not case.startswith("fwd "):
                    fail("vllm: a case that is not forward: " + case)
            for case in re.findall(r" at ((?:bwd|full) \S+ \S+)", body):
                fail("vllm: a case that is not forward: " + case)
        print("%s: DISCUSSION.md %d bytes, %d findings (%s), %d tables rendered, sessions %s; every "
              "ratio names a listed session and its wins and losses, p50 (p20-p80) ms and peak MB in every finding; evidence "
              "level stated in %s" % (target, sizes[target], len(findings), ", ".join(op for _, op in findings),
                                      html.count("<table>"), ", ".join(sorted(sessions)), ", ".join(heads)))

    # ---- --suite narrows the sessions' cases to one preset --------------
    def suites_cited(folder):
        got = {}
        with tarfile.open(os.path.join(folder, "data.tar.gz")) as t:
            for m in t.getmembers():
                if m.name.endswith(".json"):
                    d = json.loads(t.extractfile(m).read())
                    if "session" in d:
                        got[d["config"]["suite"]] = got.get(d["config"]["suite"], 0) + 1
        return got

    every = suites_cited(out["liger"])
    if len(every) < 2:
        fail("the liger packet cites sessions of %s only: nothing for --suite to narrow" % sorted(every))
    for suite in sorted(every):
        narrow = os.path.join(work, "packet-liger-" + suite)
        run([SOLBOOK, "packet", "--db", db, "--target", "liger", "--suite", suite, "--out", narrow])
        got = suites_cited(narrow)
        if set(got) != {suite}:
            fail("liger --suite %s cites runs of %s" % (suite, sorted(got)))
        if "--suite " + suite not in open(os.path.join(narrow, "reproduce.sh")).read():
            fail("liger --suite %s: reproduce.sh renders the packet without --suite" % suite)
        print("liger --suite %s: %d cited session runs, all of that suite (of %d in every suite)"
              % (suite, got[suite], sum(every.values())))
    p = subprocess.run([SOLBOOK, "packet", "--db", db, "--target", "liger", "--suite", "no-such-suite",
                        "--out", os.path.join(work, "packet-none")], capture_output=True)
    if p.returncode != 1 or b"in suite no-such-suite" not in p.stderr:
        fail("liger --suite no-such-suite: exit %d, %s" % (p.returncode, p.stderr.decode()[-300:]))
    print("liger --suite no-such-suite: exit 1, nothing to cite in that suite")

    # ---- figures recomputed from the archived documents ----------------
    docs = {}
    with tarfile.open(os.path.join(out["liger"], "data.tar.gz")) as t:
        for m in t.getmembers():
            if m.name.endswith(".json"):
                d = json.loads(t.extractfile(m).read())
                if "session" in d:
                    docs[m.name] = d

    def rounds(d):
        return [statistics.median(r) for r in d["timing"]["kernel"]["samples"]]

    def find(sid, op, mode, dtype, shape, provider):
        for d in docs.values():
            c, s = d["config"], d["session"]
            key = ",".join("%s=%s" % (k, c["shape"][k]) for k in sorted(c["shape"]))
            if (s["id"].startswith(sid) and s["copy"] == 0 and c["op"] == op and c["mode"] == mode
                    and c["dtype"] == dtype and key == shape and c["provider"] == provider):
                return d
        fail("no archived run of %s %s %s %s %s %s" % (sid, op, mode, dtype, shape, provider))

    body = open(os.path.join(out["liger"], "DISCUSSION.md")).read()
    checked = 0
    for f in finding_texts(body):
        op = re.match(r"\d+\. ([^\s,]+)", f).group(1).replace("\\_", "_")
        cols = [c.strip() for c in re.search(r"^\| case \| session \|(.*)\|$", f, re.M).group(1).split("|")]
        provs = [c.split(" ")[0] for c in cols]
        for row in re.findall(r"^\| ((?:fwd|bwd|full) .*)\|$", f, re.M):
            cells = [c.strip() for c in row.split("|")]
            mode, dtype, shape = cells[0].split(" ")
            fused = rounds(find(cells[1], op, mode, dtype, shape, "fused"))
            for prov, cell in zip(provs, cells[2:]):
                if cell == "-":  # the provider was not in this case's session
                    if any(d["session"]["id"].startswith(cells[1]) and d["config"]["provider"] == prov
                           and d["config"]["op"] == op and d["config"]["mode"] == mode
                           and d["config"]["dtype"] == dtype and d["status"] == "passed"
                           and ",".join("%s=%s" % (k, d["config"]["shape"][k])
                                        for k in sorted(d["config"]["shape"])) == shape
                           for d in docs.values()):
                        fail("%s %s %s: shown as -, but the session has a passing run" % (op, cells[0], prov))
                    continue
                m = re.match(r"([\d.e-]+) \(([\d.e-]+)-([\d.e-]+)\)", cell)
                r = sorted(rounds(find(cells[1], op, mode, dtype, shape, prov)))
                n = len(r)
                want = [r[int(math.floor(p * (n - 1)))] + (r[min(int(math.floor(p * (n - 1))) + 1, n - 1)]
                        - r[int(math.floor(p * (n - 1)))]) * (p * (n - 1) - math.floor(p * (n - 1)))
                        for p in (0.5, 0.2, 0.8)]
                # three significant digits, as the packet writes them
                if list(m.groups()) != ["%.3g" % w for w in want]:
                    fail("%s %s %s: %s, recomputed %s" % (op, cells[0], prov, m.groups(), want))
                checked += 1
        # the worst case's ratio of each baseline, from the per-round ratios
        for line in re.findall(r"^- fused over (.*)$", f, re.M):
            base = line.split(" ")[0].rstrip(":")
            w = re.search(r"worst ([\d.]+)x \([\d.]+-[\d.]+\) at (\S+) (\S+) (\S+), session ([0-9a-f]{8})", line)
            if not w:
                fail("%s: the worst case of '%s' is not stated as the template says" % (op, line))
            ratio, mode, dtype, shape, sid = w.groups()
            fr = rounds(find(sid, op, mode, dtype, shape, "fused"))
            br = rounds(find(sid, op, mode, dtype, shape, base))
            gm = math.exp(sum(math.log(b / a) for a, b in zip(fr, br)) / len(fr))
            if abs(gm - float(ratio)) > 0.0015:
                fail("%s worst over %s: %s stated, %.4f recomputed" % (op, base, ratio, gm))
            checked += 1
    print("liger: %d time cells and worst-case ratios recomputed from data.tar.gz's documents" % checked)

    # ---- the measuring code's address and commits ----------------------
    if "no repository address was configured" not in section(body, "## What was measured"):
        fail("liger without --repo does not say that no address was configured")
    repo = "https://example.org/kernels/solbook"
    with_repo = os.path.join(work, "packet-repo")
    run([SOLBOOK, "packet", "--db", db, "--target", "liger", "--repo", repo, "--out", with_repo])
    measured = section(open(os.path.join(with_repo, "DISCUSSION.md")).read(), "## What was measured")
    links = re.findall(r"\[([^\]]+)\]\(" + re.escape(repo) + r"/commit/([0-9a-f]{40})\)", measured)
    commits = {d["provenance"]["git"]["sha"] for d in docs.values()
               if re.fullmatch(r"[0-9a-f]{40}", d["provenance"]["git"].get("sha", ""))}
    if not links or {sha for _, sha in links} - commits:
        fail("--repo: commit links %s, the cited sessions' commits %s" % (links, sorted(commits)))
    rendered = run([MD_TO_HTML, os.path.join(with_repo, "DISCUSSION.md")])
    if '<a href="%s">' % repo not in rendered or '<a href="%s/commit/%s">' % (repo, links[0][1]) not in rendered:
        fail("--repo: the address and commit do not render as links")
    if "git clone %s solbook" % repo not in open(os.path.join(with_repo, "reproduce.sh")).read():
        fail("--repo: reproduce.sh does not clone the address")
    p = subprocess.run([SOLBOOK, "packet", "--db", db, "--target", "liger", "--repo", "https://example.org/a b",
                        "--out", os.path.join(work, "packet-bad-repo")], capture_output=True)
    if p.returncode != 2 or b"repository URL" not in p.stderr or os.path.exists(os.path.join(work, "packet-bad-repo")):
        fail("a repository address with a space: exit %d, %s" % (p.returncode, p.stderr.decode()[-200:]))
    print("liger: without --repo the packet says no address was configured; with it the address and %d "
          "commit(s) render as links (%s) and reproduce.sh clones it; an address with a space is refused "
          "(exit 2, nothing written)" % (len(links), ", ".join(name for name, _ in links)))

    # ---- a plot beside each finding whose table leaves cases out -------
    svg_ns = "{http://www.w3.org/2000/svg}"
    appendix = open(os.path.join(out["liger"], "APPENDIX.md")).read()
    manifest = open(os.path.join(out["liger"], "MANIFEST.sha256")).read()
    html = run([MD_TO_HTML, os.path.join(out["liger"], "DISCUSSION.md")])
    plotted = 0
    for f in finding_texts(body):
        head = re.match(r"\d+\. (.*)", f).group(1)
        shown = len(re.findall(r"^\| (?:fwd|bwd|full) ", f, re.M))
        cases = int(re.search(r"^(\d+) cases", f, re.M).group(1))
        img = re.search(r"^!\[[^\]]*\]\((finding-\d+\.svg)\)$", f, re.M)
        if not img:
            if cases > shown:
                fail("%s: %d cases, %d in its table, and no plot" % (head, cases, shown))
            continue
        name = img.group(1)
        if not re.search(r"^[0-9a-f]{64}  %s$" % re.escape(name), manifest, re.M):
            fail("%s is not in MANIFEST.sha256" % name)
        if '<img src="%s"' % name not in html:
            fail("%s does not render as an image" % name)
        root = ElementTree.parse(os.path.join(out["liger"], name)).getroot()
        area = root.find(".//%srect[@class='plot-area']" % svg_ns)
        lo, hi = math.log10(float(area.get("data-y-min"))), math.log10(float(area.get("data-y-max")))
        top, bottom = float(area.get("data-top")), float(area.get("data-bottom"))
        drawn = []
        for pt in root.iter(svg_ns + "circle"):
            if pt.get("class") != "point":
                continue
            tip = pt.find(svg_ns + "title").text
            p50 = float(re.search(r"p50 ([\d.e+-]+) ms", tip).group(1))
            y = bottom + (math.log10(p50) - lo) / (hi - lo) * (top - bottom)
            if abs(y - float(pt.get("cy"))) > 0.05:  # the tooltip has 4 digits
                fail("%s: a point of %s ms at y %s, the axis puts it at %.2f" % (name, p50, pt.get("cy"), y))
            drawn.append(p50)
        # every timed cell of the finding's appendix table is one point
        sec = section(appendix, "## " + head + "\n")
        ncols = len(re.search(r"^\| case \| session \|(.*)$", sec, re.M).group(1).split("|")) - 1
        ncols -= sec.splitlines()[2].count("fused over")
        timed = []
        for row in re.findall(r"^\| (?:fwd|bwd|full) .*$", sec, re.M):
            for cell in [c.strip() for c in row.split("|")[3:3 + ncols]]:
                m = re.match(r"([\d.e+-]+) \(", cell)
                if m:
                    timed.append(float(m.group(1)))
        if len(drawn) != len(timed) or any(abs(a - b) > 5e-3 * b for a, b in zip(sorted(drawn), sorted(timed))):
            fail("%s: %d points, the appendix has %d timed cells of %s" % (name, len(drawn), len(timed), head))
        plotted += 1
    print("liger: %d plots beside DISCUSSION.md, each in the manifest, rendered as an image, one point per "
          "timed cell of its appendix table at the height of its p50 on the plot's axis" % plotted)

    # ---- reproduce.sh with fake tools ----------------------------------
    src = os.path.join(work, "src")
    log = os.path.join(work, "calls.log")
    os.makedirs(os.path.join(src, "scripts"))
    os.makedirs(os.path.join(src, ".carry", "bin"))
    fakebin = os.path.join(work, "fakebin")
    os.makedirs(fakebin)
    fake = '#!/bin/sh\nprintf "%%s" "%s" >>"%s"\nfor a in "$@"; do printf " %%s" "$a" >>"%s"; done\necho >>"%s"\n'
    for path, name in ((os.path.join(src, "scripts", "gpu_carry.sh"), "gpu_carry.sh"),
                       (os.path.join(src, ".carry", "bin", "solbook"), "solbook"),
                       (os.path.join(fakebin, "python3"), "python3")):
        with open(path, "w") as f:
            f.write(fake % (name, log, log, log))
        os.chmod(path, 0o755)
    script = os.path.join(out["liger"], "reproduce.sh")
    # one command a cited session with every case it measured (hundreds of
    # cases over the sessions of two cards): bounded, not small
    if os.path.getsize(script) > 32000:
        fail("reproduce.sh is %d bytes" % os.path.getsize(script))
    env = dict(os.environ, PATH=fakebin + ":" + os.environ["PATH"], SOLBOOK_SRC=src)
    p = subprocess.run(["sh", script], cwd=work, env=env, capture_output=True)
    if p.returncode != 0:
        fail("reproduce.sh exited %d: %s" % (p.returncode, p.stderr.decode()))
    calls = open(log).read().splitlines()
    if not calls[0].startswith("gpu_carry.sh --arch 90"):
        fail("reproduce.sh does not build the carry first: " + calls[0])
    by_session = {}
    for d in docs.values():
        s = d["session"]
        c = d["config"]
        key = ",".join("%s=%s" % (k, c["shape"][k]) for k in sorted(c["shape"]))
        e = by_session.setdefault(s["id"][:8], {"cases": set(), "providers": ",".join(s["providers"]),
                                              "rounds": s["rounds"], "aa": False})
        e["cases"].add("%s:%s:%s:%s" % (c["op"], c["mode"], c["dtype"], key))
        e["aa"] |= s["copy"] != 0
    sessions_run = [c for c in calls if c.startswith("python3 bench/scripts/session.py")]
    if len(sessions_run) != len(by_session):
        fail("%d session commands for %d cited sessions" % (len(sessions_run), len(by_session)))
    for c in sessions_run:
        words = c.split(" ")
        sid = words[words.index("--out") + 1].split("/")[-1]
        e = by_session.get(sid)
        if not e:
            fail("a session command for a session not cited: " + sid)
        cases = set(words[i + 1] for i, w in enumerate(words) if w == "--case")
        if cases != e["cases"] or words[words.index("--providers") + 1] != e["providers"] or \
                int(words[words.index("--rounds") + 1]) != e["rounds"] or ("--aa" in words) != e["aa"]:
            fail("session %s's command does not measure it again: %s" % (sid, c[:300]))
    if calls[-2] != "solbook ingest --db packet.db sessions/":
        fail("reproduce.sh ingests in another form: " + calls[-2])
    if not calls[-1].startswith("solbook packet --db packet.db --target liger"):
        fail("reproduce.sh ends with: " + calls[-1])
    # with op names, only those ops' cases, and only sessions that have one
    os.remove(log)
    p = subprocess.run(["sh", script, "rope", "flce"], cwd=work, env=env, capture_output=True)
    if p.returncode != 0:
        fail("reproduce.sh rope flce exited %d: %s" % (p.returncode, p.stderr.decode()))
    only = [c for c in open(log).read().splitlines() if c.startswith("python3 bench/scripts/session.py")]
    want = {sid for sid, e in by_session.items() if any(c.split(":")[0] in ("rope", "flce") for c in e["cases"])}
    got = set()
    for c in only:
        words = c.split(" ")
        sid = words[words.index("--out") + 1].split("/")[-1]
        got.add(sid)
        cases = set(words[i + 1] for i, w in enumerate(words) if w == "--case")
        if cases != {x for x in by_session[sid]["cases"] if x.split(":")[0] in ("rope", "flce")}:
            fail("reproduce.sh rope flce: session %s measures %s" % (sid, sorted(cases)))
    if got != want:
        fail("reproduce.sh rope flce ran sessions %s, expected %s" % (sorted(got), sorted(want)))
    print("reproduce.sh (%d bytes): ran to its end with fake tools; %d session.py commands, one per cited "
          "session, with its providers, rounds, A/A copies and all %d cases; then ingest and packet"
          % (os.path.getsize(script), len(sessions_run), sum(len(e["cases"]) for e in by_session.values())))
    print("reproduce.sh rope flce: %d session.py commands, with those ops' cases only" % len(only))

    # ---- the packet's own data gives the same packet --------------------
    for target in ("liger", "vllm"):
        data = os.path.join(work, "data-" + target)
        os.makedirs(data)
        with tarfile.open(os.path.join(out[target], "data.tar.gz")) as t:
            t.extractall(data)
        db2 = os.path.join(work, "again-%s.db" % target)
        run([SOLBOOK, "ingest", "--db", db2, "-q", os.path.join(data, "data", "results")])
        again = os.path.join(work, "again-" + target)
        run([SOLBOOK, "packet", "--db", db2, "--target", target, "--out", again])
        a = open(os.path.join(out[target], "DISCUSSION.md")).read()
        b = open(os.path.join(again, "DISCUSSION.md")).read()
        for head in ("## What was measured", "## Findings", "## What we ask"):
            if section(a, head) != section(b, head):
                fail("%s: %s differs when rendered from the packet's own data" % (target, head))
        plots = sorted(n for n in os.listdir(out[target]) if n.endswith(".svg"))
        if plots != sorted(n for n in os.listdir(again) if n.endswith(".svg")) or any(
                open(os.path.join(out[target], n), "rb").read() != open(os.path.join(again, n), "rb").read()
                for n in plots):
            fail("%s: the plots differ when rendered from the packet's own data" % target)
        if manifest_digests(out[target]) != manifest_digests(again):
            fail("%s: the re-rendered packet cites other documents" % target)
        if open(os.path.join(out[target], "APPENDIX.md")).read().split("## End-to-end")[0] != \
                open(os.path.join(again, "APPENDIX.md")).read().split("## End-to-end")[0]:
            fail("%s: APPENDIX.md's cases differ when rendered from the packet's own data" % target)
        print("%s: data.tar.gz (%d documents) ingested anew gives the same findings, sessions, asks, "
              "appendix cases, %d plots and cited documents" % (target, len(manifest_digests(again)), len(plots)))
    print("packet_findings_e2e: all checks passed")
finally:
    if not os.environ.get("SB_KEEP"):
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("kept", work)

#!/usr/bin/env python3
"""The weekly of a week that holds measuring sessions (docs/REPORTS.md).

A week with only session runs (examples/h100/sessions, perkernel-1) states
their count and card and never says that no runs finished; the same week
with two result runs outside the session shows both kinds, and the
cross-arch table of those two. Checks the Markdown and the HTML that
cmark-gfm renders from it.
Usage: weekly_sessions.py SOLBOOK  (SOLBOOK_HOME: the source tree)"""
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

solbook = sys.argv[1]
home = os.environ["SOLBOOK_HOME"]
session = os.path.join(home, "examples/h100/sessions/2026-12-06-perkernel-1-b8e7e832.tar.gz")
cards = os.path.join(home, "tests/data/report/cards/h100")
WEEK = "2026-W49"


def run(*args):
    subprocess.run([solbook, *args], check=True, stdout=subprocess.DEVNULL)


def weekly(db, out):
    run("report", "weekly", "--db", db, "--week", WEEK, "--out", out)
    md = open(os.path.join(out, WEEK + ".md")).read()
    html = open(os.path.join(out, WEEK + ".html")).read()
    return md, html


def section(md, title):
    m = re.search(r"^## " + re.escape(title) + r"\n(.*?)(?=^## )", md, re.S | re.M)
    assert m, "no section %r" % title
    return m.group(1)


def card_runs(md):
    rows = [l for l in section(md, "Cards").splitlines() if l.startswith("| h100-sxm5-80gb |")]
    assert len(rows) == 1, rows
    return int(rows[0].rstrip(" |").rsplit("|", 1)[1])


with tarfile.open(session) as t:
    session_runs = sum(1 for n in t.getnames() if n.endswith(".json"))
assert session_runs > 0

with tempfile.TemporaryDirectory() as work:
    db = os.path.join(work, "s.db")
    run("ingest", "-q", "--db", db, session)
    md, html = weekly(db, os.path.join(work, "only"))
    summary = section(md, "Summary")
    assert not re.search(r"no runs", md, re.I), md
    assert ("- Measured: %d runs finished, %d of them in 1 measuring session and 0 result runs "
            "outside sessions, of 1 op (rmsnorm)" % (session_runs, session_runs)) in summary, summary
    assert "- Cards: h100-sxm5-80gb (NVIDIA H100 80GB HBM3): %d runs, 1 measuring session on 1 GPU." \
        % session_runs in summary, summary
    assert "**0 regressions of the project's kernels**" in summary, summary
    assert card_runs(md) == session_runs, md
    # one row per op x mode x dtype, every baseline in its own column
    head = "| op | mode | dtype | SKU | over huggingface | over torch-compile | over liger | session (shapes) |"
    assert head in summary, summary
    rows = [l for l in summary.splitlines() if l.startswith("| rmsnorm |")]
    assert [r.split("|")[2].strip() for r in rows] == ["bwd", "full", "fwd"], rows
    for r in rows:
        cells = [c.strip() for c in r.strip("|").split("|")]
        assert len(cells) == 8, cells
        for c in cells[4:7]:
            g, lo, hi = map(float, re.fullmatch(r"([\d.]+) \[([\d.]+)-([\d.]+)\]", c).groups())
            assert lo <= g <= hi, c
        assert re.fullmatch(r"[0-9a-f]{8} \(\d+\)", cells[7]), cells
    assert "every run of this week is a measuring session's" in section(
        md, "Cross-arch tables, not paired: result runs from different processes or cards"), md
    assert "<th align=\"right\">over huggingface</th>" in html and html.count("<td>rmsnorm</td>") >= 3, html
    print("sessions only: %d session runs counted in the summary and the Cards table, "
          "3 paired rows with intervals, no 'no runs' sentence" % session_runs)

    # the first screen: fused against the fastest upstream provider of each
    # op group, which is the smallest of the paired headlines above
    first = md[:md.index("\n## Summary")]
    assert first.count("\n") <= 40, first
    app = open(os.path.join(work, "only", WEEK + "-appendix.md")).read()
    standing = section(app, "The project's kernels against the fastest upstream provider")
    judged = {"leads": 0, "trails": 0, "level": 0, "unclear": 0}
    for r in rows:
        cells = [c.strip() for c in r.strip("|").split("|")]
        heads = ["huggingface", "torch-compile", "liger"]
        vals = [tuple(map(float, re.fullmatch(r"([\d.]+) \[([\d.]+)-([\d.]+)\]", c).groups())) for c in cells[4:7]]
        k = min(range(3), key=lambda i: vals[i][0])
        g, lo, hi = vals[k]
        state = ("leads" if g > 1.02 and lo > 1 else "trails" if g < 1 / 1.02 and hi < 1 else
                 "level" if lo >= 1 / 1.02 and hi <= 1.02 else "unclear")
        judged[state] += 1
        want = "| rmsnorm | %s | bf16 | %s | %.3f \\[%.3f-%.3f\\] | %s | not paired | " % (
            cells[1], heads[k], g, lo, hi, state)
        assert want in standing, (want, standing)
    line = ("- Against the fastest upstream provider, in 3 op groups: leads in %(leads)d, trails in %(trails)d, "
            "level in %(level)d, unclear in %(unclear)d; new this week: %(leads)d wins, %(trails)d losses "
            "(3 groups paired for the first time)." % judged)
    assert line in first, (line, first)
    new_rows = [l for l in first.splitlines() if l.startswith("| new ")]
    assert len(new_rows) == judged["leads"] + judged["trails"], first
    for l in new_rows:
        assert l.count("|") - l.count("\\|") == 9, l  # 8 columns
        # a share of the copy-type ceiling, or none where every case fits the L2
        assert re.search(r"\| (\d+% of bw\.\S+|-) \| [0-9a-f]{8} \|$", l), l
    print("first screen (%d lines): fused against the fastest upstream provider of each of 3 op groups, as "
          "the paired headlines give it (%s), %d new wins and losses in an 8-column table with the share "
          "of the fitting ceiling" % (first.count("\n"), ", ".join("%s %d" % kv for kv in judged.items()),
                                     len(new_rows)))

    # the same week with two result runs outside the session, of a case it
    # does not pair (one it pairs, under solbench's extra weight_dtype
    # parameter too, is left out of the unpaired tables)
    extra = os.path.join(work, "results")
    os.mkdir(extra)
    for name in ("rmsnorm-bf16-fwd-2048x32768-1e_6same-fused.json", "rmsnorm-bf16-fwd-2048x32768-torch-compile.json"):
        d = json.load(open(os.path.join(cards, name)))
        d["provenance"]["finished_at"] = "2026-12-02T10:00:00.000Z"
        d["run_uuid"] = d["run_uuid"][::-1]
        json.dump(d, open(os.path.join(extra, name), "w"))
    run("ingest", "-q", "--db", db, extra)
    md, html = weekly(db, os.path.join(work, "both"))
    summary = section(md, "Summary")
    assert not re.search(r"no runs", md, re.I), md
    total = session_runs + 2
    assert ("- Measured: %d runs finished, %d of them in 1 measuring session and 2 result runs "
            "outside sessions" % (total, session_runs)) in summary, summary
    assert card_runs(md) == total, md
    assert len([l for l in summary.splitlines() if l.startswith("| rmsnorm |")]) == 3, summary
    cross = section(md, "Cross-arch tables, not paired: result runs from different processes or cards")
    assert "| rmsnorm | fwd | bf16 | h100-sxm5-80gb | 1 | x torch-compile " in cross, cross
    assert "No cross-arch table" not in cross, cross
    assert "x torch-compile" in cross, cross
    assert "%d runs this week (%d in measuring sessions, 2 outside)" % (total, session_runs) in md, md
    print("sessions and result runs: %d runs (%d in the session, 2 outside) in the summary and Cards; "
          "the paired rows and the cross-arch table of the 2 result runs both shown" % (total, session_runs))

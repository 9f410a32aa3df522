#!/usr/bin/env python3
"""aa_order.py - where the two copies of an A/A session differ, and whether
the order of a round explains it. Figures for docs/, not a test.

usage: aa_order.py [--min-pct 3] DIR...

Each DIR holds session.py --aa results (NAME-aa0.json, NAME-aa1.json,
found below it; a session archive unpacked). For every provider and case
with a held launch in both copies (no hold let go), each round's ratio is
copy 1's median kernel time over copy 0's, and the round is put in one of
three groups by the order session.order records for it:
  1 after 0   copy 1 ran right after copy 0 (its twin's turn came just before)
  0 after 1   copy 0 ran right after copy 1
  apart       another provider's turn came between them
A rotated order keeps the copies side by side in all rounds but one; a
shuffled one (--order shuffle) spreads rounds over the three groups.
Prints, per case whose median ratio in some group is at least --min-pct
away from 1, the median ratio of each group with its number of rounds, then
the same over all cases: a copy that is faster only right after its twin
points at the turn before (the L2 or allocator state it leaves), one that
is faster in every group at the copy itself (its tensors)."""
import argparse
import glob
import json
import math
import os
import statistics
import sys

GROUPS = ("1 after 0", "0 after 1", "apart")


def rounds_of(f0):
    """(case label, [(group, log ratio)]) of one A/A pair, or None."""
    f1 = f0[: -len("-aa0.json")] + "-aa1.json"
    if not os.path.exists(f1):
        return None
    with open(f0) as h:
        d0 = json.load(h)
    with open(f1) as h:
        d1 = json.load(h)
    if d0.get("status") != "passed" or d1.get("status") != "passed":
        return None
    k0, k1 = d0["timing"]["kernel"], d1["timing"]["kernel"]
    if k0.get("hold_timeouts") or k1.get("hold_timeouts"):
        return None
    name = os.path.basename(f0)[: -len("-aa0.json")]
    out = []
    for r, order in enumerate(d0["session"]["order"]):
        tags = [t[:-2] for t in order if t.endswith("#0") and name.endswith("-" + t[:-2])]
        if not tags or r >= len(k0["samples"]) or r >= len(k1["samples"]):
            continue
        tag = max(tags, key=len)  # "liger-fp32-accum" before "liger"
        i0, i1 = order.index(tag + "#0"), order.index(tag + "#1")
        group = GROUPS[0] if i1 == i0 + 1 else GROUPS[1] if i0 == i1 + 1 else GROUPS[2]
        ratio = statistics.median(k1["samples"][r]) / statistics.median(k0["samples"][r])
        out.append((group, math.log(ratio)))
    return name, out


def cell(values):
    if not values:
        return "%18s" % "-"
    return "%+7.1f%% (n=%4d)" % (100 * (math.exp(statistics.median(values)) - 1), len(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--min-pct", type=float, default=3.0)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    by_case, total = {}, {g: [] for g in GROUPS}
    for d in a.dirs:
        for f0 in sorted(glob.glob(os.path.join(d, "**", "*-aa0.json"), recursive=True)):
            got = rounds_of(f0)
            if not got:
                continue
            name, rounds = got
            cells = by_case.setdefault(name, {g: [] for g in GROUPS})
            for g, v in rounds:
                cells[g].append(v)
                total[g].append(v)
    if not by_case:
        print("aa_order.py: no A/A pairs with held launches under %s" % ", ".join(a.dirs), file=sys.stderr)
        return 1
    print("%-50s %18s %18s %18s" % (("case: copy 1 / copy 0",) + GROUPS))
    for name, cells in sorted(by_case.items()):
        if any(v and abs(math.exp(statistics.median(v)) - 1) * 100 >= a.min_pct for v in cells.values()):
            print("%-50s %s %s %s" % ((name,) + tuple(cell(cells[g]) for g in GROUPS)))
    print("%-50s %s %s %s" % (("every case (%d)" % len(by_case),) + tuple(cell(total[g]) for g in GROUPS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

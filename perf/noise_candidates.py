#!/usr/bin/env python3
"""noise_candidates.py - held-out false alarms and power of candidate A/A
thresholds on the stored A/A sessions (docs/SESSIONS.md, `solbook noise`).

usage: noise_candidates.py [SESSION_ARCHIVE...]
       (default: examples/h100/sessions/*.tar.gz examples/h200/sessions/*.tar.gz)

Reads the session result files from the archives, forms the comparisons
`solbook noise` forms (a provider's copies 0 and 1 in one session, paired
round by round; its copies 0 in two sessions on one card, or on two cards
of one SKU, round medians, Mann-Whitney at 0.01 exact to 20 rounds a
side) and judges every comparison of held launches with a threshold taken
only from the comparisons of the same case, provider, SKU and relation of
cards in sessions other than its two. Each rule is printed with its false
alarms and the share of comparisons that say slower when the later side's
samples are made 2, 3, 5 and 10% slower:

  max     1.5 times the largest held-out |ratio - 1|
  p95     1.5 times their 95th percentile, nearest rank (sb_aa_change,
          the rule `solbook noise` and `report regressions` use)
  mad     2.576 times 1.4826 times the median |log ratio| (a normal
          scale from the median absolute change; two-sided 1%)
  centred max, with the held-out median signed log ratio taken off
          first (a systematic copy or session offset)
  random  a random-effects test: the change against 2.576 times
          sqrt(within-run variance + between-session variance), the
          latter the mean held-out squared log change less its
          within-run part

and, as a bound no threshold rule reaches without false alarms, the
in-sample oracle: each case's threshold set to the largest |log ratio|
of all its comparisons, its own included, and no test. Every rule keeps
the floors, 2% paired and 3% unpaired. The p95 row matches `solbook noise`
(its held-out table); this script is the check that the others were
judged on the same data."""
import glob
import itertools
import json
import math
import os
import statistics
import sys
import tarfile
from functools import lru_cache

SESSION, CARD, SKU = 0, 1, 2
NAMES = ("same card, one session (paired)", "same card, two sessions", "two cards of one SKU")
SHIFTS = (0.02, 0.03, 0.05, 0.10)
ALPHA = 0.01
Z = 2.5758293035489  # two-sided 1% of the normal


def load_runs(archives):
    runs = []
    for path in archives:
        with tarfile.open(path) as t:
            for m in t.getmembers():
                if not m.name.endswith(".json"):
                    continue
                d = json.load(t.extractfile(m))
                s, k = d.get("session"), d.get("timing", {}).get("kernel", {})
                if not s or d.get("status") != "passed" or not k.get("samples"):
                    continue
                c = d["config"]
                shape = ",".join("%s=%s" % (n, c["shape"][n]) for n in sorted(c["shape"]))
                runs.append(dict(
                    sid=s["id"], copy=s["copy"], tm=s.get("timing_method"), cv=s.get("check"),
                    gpu=d["provenance"]["device"]["uuid"], sku=d["provenance"]["device"]["sku"],
                    start=d["provenance"]["started_at"], prov=c["provider"],
                    case="%s %s %s %s %s" % (c["op"], c["mode"], c["dtype"], shape,
                                             json.dumps(c.get("params", {}), sort_keys=True)),
                    med=[statistics.median(r) for r in k["samples"]], ht=k.get("hold_timeouts") or 0))
    first = {}
    for r in runs:
        first[r["sid"]] = min(first.get(r["sid"], r["start"]), r["start"])
    runs.sort(key=lambda r: (first[r["sid"]], r["sid"], r["case"], r["prov"], r["copy"]))
    return runs


def betainc(a, b, x):
    """Regularized incomplete beta (continued fraction)."""
    if x <= 0 or x >= 1:
        return max(0.0, min(1.0, x))
    def cf(a, b, x):
        tiny, c, d = 1e-300, 1.0, 1 - (a + b) * x / (a + 1)
        d = 1 / (d if abs(d) > tiny else tiny)
        h = d
        for m in range(1, 300):
            for aa in (m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m)),
                       -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m))):
                d = 1 + aa * d
                d = 1 / (d if abs(d) > tiny else tiny)
                c = 1 + aa / c
                c = c if abs(c) > tiny else tiny
                h *= d * c
            if abs(d * c - 1) < 3e-14:
                break
        return h
    bt = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x))
    return bt * cf(a, b, x) / a if x < (a + 1) / (a + b + 2) else 1 - bt * cf(b, a, 1 - x) / b


@lru_cache(None)
def t_quantile(p, df):
    lo, hi = -100.0, 100.0
    for _ in range(200):
        mid = (lo + hi) / 2
        ib = betainc(df / 2, 0.5, df / (df + mid * mid))
        if (1 - 0.5 * ib if mid > 0 else 0.5 * ib) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def paired_verdict(a, b, thr, level=0.95):
    """sb_paired_ratio and sb_paired_judge: slower, faster, same, inconclusive."""
    logs = [math.log(y / x) for x, y in zip(a, b)]
    n, m = len(logs), statistics.fmean(logs)
    half = t_quantile(0.5 + level / 2, n - 1) * statistics.stdev(logs) / math.sqrt(n)
    r, lo, hi = math.exp(m), math.exp(m - half), math.exp(m + half)
    if lo > 1 and r > 1 + thr:
        return "slower"
    if hi < 1 and r < 1 / (1 + thr):
        return "faster"
    return "same" if lo >= 1 / (1 + thr) and hi <= 1 + thr else "inconclusive"


@lru_cache(None)
def u_counts(n1, n2):
    if n1 == 0 or n2 == 0:
        return (1,)
    out = [0] * (n1 * n2 + 1)
    for u, c in enumerate(u_counts(n1 - 1, n2)):
        out[u + n2] += c
    for u, c in enumerate(u_counts(n1, n2 - 1)):
        out[u] += c
    return tuple(out)


def mann_whitney_p(a, b):
    n1, n2 = len(a), len(b)
    u = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    if n1 <= 20 and n2 <= 20:
        d = u_counts(n1, n2)
        k = int(math.floor(min(u, n1 * n2 - u) + 1e-9))
        return min(1.0, 2 * sum(d[:k + 1]) / sum(d))
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
    return min(1.0, math.erfc(z / math.sqrt(2)))


def comparisons(runs):
    out = []
    for i, a in enumerate(runs):
        for b in runs[i + 1:]:
            if (a["case"], a["prov"], a["tm"], a["cv"]) != (b["case"], b["prov"], b["tm"], b["cv"]):
                continue
            if a["sid"] == b["sid"]:
                if a["copy"] == 0 and b["copy"] == 1 and len(a["med"]) == len(b["med"]) >= 2:
                    r = math.exp(statistics.fmean(math.log(y / x) for x, y in zip(a["med"], b["med"])))
                    out.append(dict(kind=SESSION, a=a, b=b, ratio=r))
                continue
            if a["copy"] or b["copy"]:
                continue
            kind = CARD if a["gpu"] == b["gpu"] else SKU if a["sku"] == b["sku"] else None
            if kind is not None:
                out.append(dict(kind=kind, a=a, b=b, ratio=statistics.median(b["med"]) / statistics.median(a["med"])))
    for c in out:
        c["d"] = math.log(c["ratio"])
        c["change"] = abs(c["ratio"] - 1)
        c["held"] = not (c["a"]["ht"] > 0 or c["b"]["ht"] > 0)
        c["floor"] = 0.02 if c["kind"] == SESSION else 0.03
    for c in out:
        sids = {c["a"]["sid"], c["b"]["sid"]}
        c["others"] = [y for y in out if (y["kind"] == CARD or y["kind"] == SESSION) == (c["kind"] != SKU)
                       and (y["a"]["case"], y["a"]["prov"], y["a"]["sku"]) == (c["a"]["case"], c["a"]["prov"], c["a"]["sku"])
                       and not sids & {y["a"]["sid"], y["b"]["sid"]}]
    return out


def judge(c, b, thr, offset=0.0):
    """(flagged, says slower) of c with later side b at threshold thr,
    b first divided by exp(offset)."""
    a, b = c["a"]["med"], [v / math.exp(offset) for v in b]
    if c["kind"] == SESSION:
        v = paired_verdict(a, b, thr)
        return v in ("slower", "faster"), v == "slower"
    ratio = statistics.median(b) / statistics.median(a)
    flag = mann_whitney_p(a, b) < ALPHA and abs(ratio - 1) > thr
    return flag, flag and ratio > 1


def within_var(c, b):
    a = c["a"]["med"]
    if c["kind"] == SESSION:
        return statistics.variance([math.log(y / x) for x, y in zip(a, b)]) / len(a)
    return (statistics.variance([math.log(x) for x in a]) / len(a) +
            statistics.variance([math.log(x) for x in b]) / len(b))


def rule_threshold(name, c):
    o = c["others"]
    if name == "max":
        return max(c["floor"], 1.5 * max(y["change"] for y in o)), 0.0
    if name == "p95":
        v = sorted(y["change"] for y in o)
        return max(c["floor"], 1.5 * v[int(0.95 * (len(v) - 1) + 0.5)]), 0.0
    if name == "mad":
        return max(c["floor"], math.exp(Z * 1.4826 * statistics.median(abs(y["d"]) for y in o)) - 1), 0.0
    if name == "centred":
        m = statistics.median(y["d"] for y in o)
        return max(c["floor"], math.exp(1.5 * max(abs(y["d"] - m) for y in o)) - 1), m
    raise ValueError(name)


def decide(name, c, b):
    if name == "random":
        if "tau2" not in c:
            for y in c["others"]:
                y.setdefault("w", within_var(y, y["b"]["med"]))
            c["tau2"] = max(0.0, statistics.fmean(y["d"] ** 2 - y["w"] for y in c["others"]))
        flag, _ = judge(c, b, c["floor"])
        d = math.log(statistics.median(b) / statistics.median(c["a"]["med"])) if c["kind"] != SESSION else \
            statistics.fmean(math.log(y / x) for x, y in zip(c["a"]["med"], b))
        flag = flag and abs(d) > Z * math.sqrt(within_var(c, b) + c["tau2"])
        return flag, flag and d > 0
    thr, offset = rule_threshold(name, c)
    return judge(c, b, thr, offset)


def main():
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    archives = sys.argv[1:] or sorted(glob.glob(os.path.join(top, "examples/h100/sessions/*.tar.gz")) +
                                      glob.glob(os.path.join(top, "examples/h200/sessions/*.tar.gz")))
    cmps = [c for c in comparisons(load_runs(archives))]
    judged = [c for c in cmps if c["others"] and c["held"]]
    print("%d A/A comparisons, %d of held launches with held-out comparisons of their case\n" % (len(cmps), len(judged)))
    print("| rule | relation | comparisons | flagged | rate | power at 2% | 3% | 5% | 10% |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in ("max", "p95", "mad", "centred", "random"):
        for k in (SESSION, CARD, SKU):
            v = [c for c in judged if c["kind"] == k]
            flagged = sum(decide(name, c, c["b"]["med"])[0] for c in v)
            power = [sum(decide(name, c, [x * (1 + s) for x in c["b"]["med"]])[1] for c in v) for s in SHIFTS]
            print("| %s | %s | %d | %d | %.1f%% | %s |" % (name, NAMES[k], len(v), flagged, 100 * flagged / len(v),
                                                          " | ".join("%.1f%%" % (100 * p / len(v)) for p in power)))
    # the in-sample oracle: each case's largest |log ratio|, its own included
    groups = {}
    for c in judged:
        groups.setdefault((c["kind"] != SKU, c["a"]["case"], c["a"]["prov"], c["a"]["sku"]), []).append(c)
    for k in (SESSION, CARD, SKU):
        v = [c for c in judged if c["kind"] == k]
        hits = []
        for s in SHIFTS:
            hits.append(sum(c["d"] + math.log(1 + s) > max(max(abs(y["d"]) for y in groups[(k != SKU, c["a"]["case"],
                            c["a"]["prov"], c["a"]["sku"])]), math.log(1 + c["floor"])) for c in v))
        print("| oracle (in-sample, no test) | %s | %d | 0 | 0.0%% | %s |" % (
            NAMES[k], len(v), " | ".join("%.1f%%" % (100 * h / len(v)) for h in hits)))


if __name__ == "__main__":
    main()

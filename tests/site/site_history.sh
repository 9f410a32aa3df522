#!/bin/sh
# site_history.sh SOLBOOK WRITE_REGRESS_FIXTURE - history pages as a kernel
# engineer reads them, on the crafted database of cli_regressions.sh (one
# rmsnorm case, three commits a, b, c measured in that order): with a
# commits table giving the git order b, a, c the chart's points and labels
# follow it with the commit dates; without one they follow the order first
# measured with those days, and the caption says so; every point has a
# tooltip with its run's median as stored; y ticks are round; commit SHAs
# on history and regressions pages link to the repository only with
# --repo-url or $SOLBOOK_REPO_URL.
set -eu
SOLBOOK=$1
FIXTURE=$2
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset SOLBOOK_REPO_URL || true
"$FIXTURE" "$work/measured.db" "$work/fixture-commits.txt" >/dev/null
cp "$work/measured.db" "$work/git.db"
A=a000000000000000000000000000000000000000
B=b000000000000000000000000000000000000000
C=c000000000000000000000000000000000000000
# git order b -> a -> c, committed 2025-11-10, -12 and -14 (UTC noon)
printf '%s %s 1763121600\n%s %s 1762948800\n%s 1762776000\n' "$C" "$A" "$A" "$B" "$B" > "$work/git.txt"
"$SOLBOOK" commits import --db "$work/git.db" "$work/git.txt" | grep -q '^commits: 3 stored' || fail "commits import"
"$SOLBOOK" site --db "$work/measured.db" --out "$work/measured" >/dev/null
"$SOLBOOK" site --db "$work/git.db" --out "$work/git" --repo-url https://example.com/lab/kernels/ >/dev/null
SOLBOOK_REPO_URL=https://example.com/env/kernels "$SOLBOOK" site --db "$work/git.db" --out "$work/env" >/dev/null
set +e
"$SOLBOOK" site --db "$work/git.db" --out "$work/bad" --repo-url 'javascript:alert(1)' 2>"$work/bad.txt"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "expected an http(s) address" "$work/bad.txt" || fail "a javascript: URL gave exit $rc: $(cat "$work/bad.txt")"
echo "ok: --repo-url other than http(s) is a usage error (exit 2)"

python3 - "$work" <<'PY'
import glob, html, math, os, re, sqlite3, sys
work = sys.argv[1]

def history(site):
    pages = [p for p in glob.glob(os.path.join(work, site, "history", "*.html"))
             if not os.path.basename(p).startswith("index")]
    assert len(pages) == 1, pages
    return open(pages[0], encoding="utf-8").read()

def chart(html):
    svg = re.search(r'<svg class="hc".*?</svg>', html, re.S).group(0)
    labels = re.findall(r'<text class="xl" x="([0-9.]+)"[^>]*>([^<]*)</text>', svg)
    axis = re.search(r'<text class="xt"[^>]*>([^<]*)</text>', svg).group(1)
    ticks = re.findall(r'<text class="yl"[^>]*>([^<]*)</text>', svg)
    series = {}
    for g in re.findall(r'<g fill="[^"]*" stroke="[^"]*">.*?</g>\n', svg, re.S):
        prov = re.search(r'<text class="lt"[^>]*>([^<]*)</text>', g).group(1)
        series[prov] = re.findall(r'<path d="M([0-9.]+) ([0-9.]+)h0"><title>([^<]*)</title></path>', g)
    return labels, axis, ticks, series

db = sqlite3.connect(os.path.join(work, "git.db"))
median = dict(db.execute("SELECT run_id, median_ms FROM metrics"))
sha = dict(db.execute("SELECT run_id, git_sha FROM provenance"))

def check_order(site, want_labels, want_axis, want_caption):
    html = history(site)
    labels, axis, ticks, series = chart(html)
    got = [t for _, t in labels]
    assert got == want_labels, (site, got)
    xs = [float(x) for x, _ in labels]
    assert xs == sorted(xs), (site, xs)
    assert axis == want_axis, (site, axis)
    cap = re.search(r"<figcaption>(.*?)</figcaption>", html, re.S).group(1)
    assert want_caption in cap, (site, cap)
    # every point: its own tooltip, left to right in the labels' order,
    # with the run's stored median
    assert set(series) == {"fused", "huggingface", "liger"}, series.keys()
    for prov, pts in series.items():
        assert len(pts) == 3, (site, prov, pts)
        assert [float(x) for x, _, _ in pts] == xs, (site, prov)
        for (x, y, title), label in zip(pts, want_labels):
            m = re.fullmatch(prov + r", commit (\S+ \S+), run (\d+): median ([0-9.]+) ms, "
                             r"p20-p80 not recorded", title)
            assert m and m.group(1) == label, (site, title, label)
            run = int(m.group(2))
            assert sha[run].startswith(label[-7:]), (title, sha[run])
            assert abs(float(m.group(3)) - median[run]) <= 0.006 * median[run], (title, median[run])
    # round y ticks: equal steps of 1, 2 or 5 times a power of ten
    v = [float(t) for t in ticks]
    steps = {round(b - a, 12) for a, b in zip(v, v[1:])}
    assert len(steps) == 1, (site, ticks)
    step = steps.pop()
    mant = step / 10 ** math.floor(math.log10(step) + 1e-9)
    assert min(abs(mant - k) for k in (1, 2, 5)) < 1e-6, (site, ticks)
    assert all(abs(t / step - round(t / step)) < 1e-6 for t in v), (site, ticks)
    return ticks

t = check_order("git", ["2025-11-10 b000000", "2025-11-12 a000000", "2025-11-14 c000000"],
                "commit (date, SHA), in git order", "Commits in git order")
print("ok: with a commits table the history chart runs in git order b, a, c with commit dates "
      "(2025-11-10 b000000 ... 2025-11-14 c000000); y ticks " + ", ".join(t))
t = check_order("measured", ["2026-11-16 a000000", "2026-11-17 b000000", "2026-11-18 c000000"],
                "commit (date first measured, SHA), in the order first measured",
                "Commits in the order first measured")
print("ok: without one it runs in the order first measured (a, b, c, dates first measured) and "
      "the caption says so; y ticks " + ", ".join(t))
print("ok: 9 points per chart, each with a tooltip naming its commit, date, run and the run's "
      "stored median")

# The op-on-SKU page draws the same chart (its newest commit is a
# regression) and its caption says the x order the same way.
for site, labels, order in (("git", "2025-11-10 b000000", "Commits in git order (by ancestry"),
                            ("measured", "2026-11-16 a000000", "Commits in the order first measured")):
    page = open(os.path.join(work, site, "ops", "rmsnorm", "h100-sxm5-80gb.html"), encoding="utf-8").read()
    figs = re.findall(r'<figure class="plot history-chart">(.*?)</figure>', page, re.S)
    assert len(figs) == 1, (site, len(figs))
    cap = re.search(r"<figcaption>(.*?)</figcaption>", figs[0], re.S).group(1)
    assert order in cap and "Hover a point for its commit, run, median and p20-p80 spread" in cap, cap
    pts = re.findall(r'<path d="M[0-9.]+ [0-9.]+h0"><title>([^<]*)</title></path>', figs[0])
    assert len(pts) == 9 and all(re.fullmatch(r"\S+, commit \S+ \S+, run \d+: median [0-9.]+ ms, "
                                              r"p20-p80 not recorded", t) for t in pts), pts
    assert labels in re.findall(r'<text class="xl"[^>]*>([^<]*)</text>', figs[0])[0], site
print("ok: op-on-SKU history chart: the caption names its x order (git order by ancestry with "
      "commit dates, else first measured) and each of its 9 points has its tooltip")

def links(site, page):
    text = open(os.path.join(work, site, page), encoding="utf-8").read()
    shas = re.findall(r"<code>([0-9a-f]{10})</code>", text)
    linked = re.findall(r'<a href="([^"]*)"><code>([0-9a-f]{10})</code></a>', text)
    return text, shas, linked

hist = [os.path.relpath(p, os.path.join(work, "git"))
        for p in glob.glob(os.path.join(work, "git", "history", "*.html"))
        if not os.path.basename(p).startswith("index")][0]
for page in (hist, "regressions.html"):
    text, shas, linked = links("measured", page)
    assert shas and "/commit/" not in text, page
    for site, base in (("git", "https://example.com/lab/kernels"), ("env", "https://example.com/env/kernels")):
        text, shas, linked = links(site, page)
        assert shas and len(linked) == len(shas), (site, page, len(shas), len(linked))
        for href, short in linked:
            assert re.fullmatch(re.escape(base) + r"/commit/" + short + "0{30}", href), href
    print("ok: %s: %d commit SHAs, each a link to URL/commit/SHA with --repo-url (and "
          "$SOLBOOK_REPO_URL), none without" % (page.split("/")[0], len(shas)))

# The regressions page in the order measured (a, b, c): fused's step b to
# c (10 % slower, re-measured as a pair of b and c on card 1 that is 10 %
# slower too) is a confirmed regression and the one counted;
# huggingface's is third-party drift and liger's an environment change
# (liger-kernel 0.8.5 -> 0.9.0), each in its own table.
text = open(os.path.join(work, "measured", "regressions.html"), encoding="utf-8").read()
def table(gid):
    m = re.search(r'<table class="sortable regressions" id="%s-table">.*?</table>' % gid, text, re.S)
    if not m:
        return []
    return [re.sub(r"<[^>]+>", "", r) for r in re.findall(r"<tr class=.*?</tr>", m.group(0), re.S)]
conf, unconf, drift, setup = table("confirmed"), table("unconfirmed"), table("drift"), table("setup")
assert len(conf) == 1 and "regression" in conf[0] and "fused" in conf[0], conf
assert re.search(r"confirmed \+\d+\.\d% \(\d+ → \d+\)", conf[0]), conf[0]
assert not unconf, unconf
assert len(drift) == 1 and "huggingface" in drift[0] and "regression" in drift[0], drift
assert len(setup) == 1 and "liger" in setup[0] and "0.9.0" in setup[0], setup
count = {k: re.search(r'<span id="wow-%s">(\d+)</span>' % k, text).group(1)
         for k in ("regressions", "confirmed", "unconfirmed", "refuted")}
assert count == {"regressions": "1", "confirmed": "1", "unconfirmed": "0", "refuted": "0"}, count
pair = re.findall(r'confirmed \+[0-9.]+% \(<a href="(runs/[^"]+)">\d+</a> → <a href="(runs/[^"]+)">', text)
assert len(pair) == 1, pair
for href in pair[0]:
    assert os.path.exists(os.path.join(work, "measured", href.split("#")[0])), href
print("ok: regressions page: fused's regression confirmed by its paired re-measure (runs linked) and "
      "the one counted; huggingface's drift and liger's environment change (%s) apart"
      % re.search(r'liger-kernel.*?0\.9\.0"\}', html.unescape(setup[0])).group(0))
PY

#!/bin/sh
# site_10k.sh SOLBOOK SOURCE_DIR - `solbook site` over 10,000 synthetic runs
# (perf/gen_site_db.py --markup): no page over 500 KB (runs go 100 to a
# page, histories and case tables are paged), every run's raw JSON in the
# gzip-compressed JSON Lines beside its page, two builds byte-identical,
# stored markup escaped everywhere, no network assets.
set -eu
SOLBOOK=$1
SRC=$2
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
export SOLBOOK_HOME="$SRC"
T=$(mktemp -d /tmp/sb_site_10k.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 "$SRC/perf/gen_site_db.py" "$T/10k.db" 10000 --markup
"$SOLBOOK" site --db "$T/10k.db" --out "$T/a" >"$T/out" || { cat "$T/out"; fail "solbook site"; }
cat "$T/out"
pages=$(find "$T/a" -name '*.html' | wc -l)
files=$(find "$T/a" -type f | wc -l)
python3 - "$T/10k.db" "$T/a/runs" <<'PY'
import glob, gzip, os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
want = dict(db.execute("SELECT id, raw_json FROM runs"))
got = {}
for f in glob.glob(os.path.join(sys.argv[2], "*.jsonl.gz")):
    page = int(os.path.basename(f).split(".")[0])
    ids = [i for i in sorted(want) if i // 100 == page]
    lines = gzip.open(f, "rt", encoding="utf-8").read().split("\n")
    assert lines[-1] == "", f
    assert len(lines) - 1 == len(ids), (f, len(lines), len(ids))
    for i, line in zip(ids, lines):
        got[i] = line
assert got == want, "raw JSON lines differ from runs.raw_json"
print("ok: raw JSON of all %d runs, byte for byte, in %d gzip JSON Lines files" % (len(got), len(glob.glob(os.path.join(sys.argv[2], "*.jsonl.gz")))))
PY
# Rendered sizes and links: each run page links its raw JSON, and that
# file is there; run rows stay small (the sample distribution is a cell of
# text, cells go without end tags); history charts are one group of paths
# per provider, with no element per point.
python3 - "$T/a" <<'PY' || fail "rendered run and history pages"
import glob, math, os, re, sys
site = sys.argv[1]
pages = sorted(glob.glob(os.path.join(site, "runs", "[0-9]*.html")))
rows = size = dists = 0
for p in pages:
    html = open(p, encoding="utf-8").read()
    g = os.path.basename(p)[:-5]
    links = re.findall(r'href="([0-9]+\.jsonl\.gz)"', html)
    assert links == [g + ".jsonl.gz"], (p, links)
    assert os.path.isfile(os.path.join(site, "runs", links[0])), (p, links[0])
    n = html.count('<tr id="r')
    dist = re.findall(r'<td class="dist" title="(\d+) samples, [^"]+ ms">([\u2581-\u2588 ]{16})', html)
    assert len(dist) == html.count('class="dist"'), p
    rows += n
    dists += len(dist)
    size += len(html.encode("utf-8"))
assert dists >= 10000, "%d sample distributions for %d runs" % (dists, rows)
assert size / rows < 900, "run pages: %.0f bytes a run" % (size / rows)
print("ok: %d run pages link their raw JSON (present); %d of %d rows with a 16-bin distribution, "
      "%.0f bytes a run" % (len(pages), dists, rows, size / rows))
charts = points = 0
for p in glob.glob(os.path.join(site, "history", "*.html")):
    html = open(p, encoding="utf-8").read()
    for svg in re.findall(r"<svg class=\"hc\".*?</svg>", html, re.S):
        assert "<circle" not in svg and " style=" not in svg, p
        groups = svg.count('<g fill="')
        assert groups == svg.count('<g class="pt">'), p
        # every point carries its own tooltip: commit, run, median, spread
        pts = re.findall(r'<path d="M[0-9.]+ [0-9.]+h0"><title>([^<]*)</title></path>', svg)
        assert pts and len(pts) == svg.count('h0"><title>'), p
        assert all(re.search(r", commit \d{4}-\d\d-\d\d [0-9a-f]{7}, run \d+: median [0-9.]+ ms, "
                             r"p20-p80 [0-9.]+-[0-9.]+ ms$", t) for t in pts), (p, pts[:3])
        points += len(pts)
        # y ticks at one round step (1, 2 or 5 times a power of ten)
        v = [float(t) for t in re.findall(r'<text class="yl"[^>]*>([^<]*)</text>', svg)]
        step = v[1] - v[0]
        mant = step / 10 ** math.floor(math.log10(step) + 1e-9)
        assert min(abs(mant - k) for k in (1, 2, 5)) < 1e-6, (p, v)
        assert all(abs((b - a) - step) < 1e-9 * max(1, abs(b)) for a, b in zip(v, v[1:])), (p, v)
        charts += 1
assert charts > 0, "no history chart"
print("ok: %d history charts, one group of paths a provider (in its colour), %d points each "
      "with a tooltip (commit, date, run, median, spread), y ticks at 1-2-5 steps" % (charts, points))
PY
# Each run row links the history of its own case and SKU: the rows of one
# (case, SKU) the same page, those of two different ones two pages, each
# there. The run pages keep these links by (case, SKU) in 1,024 slots
# (history_href, site/site_runs.c: FNV-1a of the case key, 0xff, the SKU);
# some pairs here share a slot, so slots are overwritten and taken again.
python3 - "$T/10k.db" "$T/a" <<'PY' || fail "run rows' history links"
import glob, os, re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
key = dict((i, (c, s)) for i, c, s in db.execute(
    "SELECT r.id, c.case_key, p.sku FROM runs r JOIN configs c ON c.run_id = r.id"
    " JOIN provenance p ON p.run_id = r.id"))
href = {}
for p in glob.glob(os.path.join(sys.argv[2], "runs", "[0-9]*.html")):
    for rid, h in re.findall(r'<tr id="r(\d+)">(?:(?!<tr ).)*?<a href="\.\./(history/[^"]+)">history</a>',
                             open(p, encoding="utf-8").read(), re.S):
        href[int(rid)] = h
assert len(href) >= 9000, "%d run rows link a history" % len(href)
by_key = {}
for rid, h in href.items():
    by_key.setdefault(key[rid], set()).add(h)
assert all(len(v) == 1 for v in by_key.values()), "one (case, SKU) links two histories"
pages = [next(iter(v)) for v in by_key.values()]
assert len(set(pages)) == len(pages), "two (case, SKU) pairs link one history"
def slot(case_key, sku):
    h = 2166136261
    for b in case_key.encode() + b"\xff" + sku.encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h % 1024
slots = {}
for k in by_key:
    slots.setdefault(slot(*k), []).append(k)
shared = sum(len(v) for v in slots.values() if len(v) > 1)
assert shared > 0, "no two (case, SKU) pairs share a slot: the overwrite is not exercised"
missing = [h for h in set(pages) if not os.path.isfile(os.path.join(sys.argv[2], h))]
assert not missing, "history links to no page: %s" % missing[:3]
print("ok: %d run rows link the history of their own (case, SKU), %d pairs (%d sharing a slot), "
      "each page there" % (len(href), len(by_key), shared))
PY
[ "$files" -le 5000 ] || fail "expected at most 5,000 files for 10,000 runs (no file per run), found $files"
echo "ok: $pages pages, $files files"

largest=$(find "$T/a" -type f -printf '%s %P\n' | sort -n | tail -n 1)
size=${largest%% *}
[ "$size" -le 512000 ] || fail "largest file over 500 KB: $largest"
echo "ok: largest file $largest bytes (limit 512000)"

"$SOLBOOK" site --db "$T/10k.db" --out "$T/b" >/dev/null || fail "second build"
diff -r "$T/a" "$T/b" >/dev/null || fail "two builds of the same database differ"
echo "ok: two builds are byte-identical"

if grep -rl --include='*.html' -e "<script>alert" -e "<img src=x" "$T/a" | head -n 1 | grep -q .; then
    fail "stored markup written unescaped: $(grep -rl --include='*.html' -e '<script>alert' -e '<img src=x' "$T/a" | head -n 1)"
fi
n=$(grep -rl --include='*.html' -F "&lt;script&gt;alert(&#39;gpu&#39;)&lt;/script&gt;" "$T/a" | wc -l)
[ "$n" -ge 100 ] || fail "expected the escaped markup GPU name on at least 100 pages, found $n"
echo "ok: markup in GPU names and notes escaped on $n pages, never raw"

if grep -rEl --include='*.html' -e '(src|href)="(https?:)?//' "$T/a" | xargs -r grep -El -e '<(script|img|link)[^>]*(src|href)="(https?:)?//' | head -n 1 | grep -q .; then
    fail "a page loads an asset from the network"
fi
grep -q 'http' "$T/a/assets/site.css" && fail "stylesheet references the network"
echo "ok: no network assets"
hist=$(find "$T/a/history" -name '*~p2.html' | wc -l)
lists=$(find "$T/a/runs" -maxdepth 1 -name '[0-9]*.html' | wc -l)
[ "$lists" -eq 101 ] || fail "expected 101 run pages (ids 0 to 10003, 100 a page), found $lists"
echo "ok: runs in $lists pages; $hist histories need a second page"

# Error paths: one line naming the file and the problem, exit 2, nothing written.
expect_err() { # NAME PATTERN CMD...
    name=$1; pat=$2; shift 2
    rc=0
    "$@" >"$T/o" 2>"$T/e" || rc=$?
    [ "$rc" = 2 ] || fail "$name: exit $rc, expected 2"
    [ "$(wc -l <"$T/e")" = 1 ] || fail "$name: expected one error line: $(cat "$T/e")"
    grep -q -- "$pat" "$T/e" || fail "$name: error '$(cat "$T/e")' lacks '$pat'"
    echo "ok: $name: $(cat "$T/e")"
}
expect_err "missing database" "$T/none.db: no such database" "$SOLBOOK" site --db "$T/none.db" --out "$T/c"
[ ! -e "$T/c" ] || fail "missing database: output folder created"
mkdir "$T/full" && echo x >"$T/full/keep.txt"
expect_err "foreign folder" "$T/full: not empty and not an earlier site" "$SOLBOOK" site --db "$T/10k.db" --out "$T/full"
[ -f "$T/full/keep.txt" ] || fail "foreign folder: a file was removed"
printf '{"schema": "solbook.roadmap.v1", "weeks": [{"week": "2026-W47", "title": "t", "tasks": [{"task": "a", "status": "finished"}]}]}' >"$T/bad.json"
expect_err "bad roadmap" "$T/bad.json: /weeks/0/tasks/0/status: must be one of" "$SOLBOOK" site --db "$T/10k.db" --out "$T/d" --roadmap "$T/bad.json"
[ ! -e "$T/d" ] || fail "bad roadmap: output folder created"
expect_err "no --out" "--out DIR is required" "$SOLBOOK" site --db "$T/10k.db"
# The pages rendered from templates escape what the data files say: a
# ledger and a roadmap with markup in every free-text field.
head -n 1 "$SRC/data/contributions.csv" >"$T/ledger.csv"
printf '%s\n' '"Proj <b>x</b>",discussion,"T <script>alert(1)</script>",planned,,,,,"n ""q"" & <i>"' >>"$T/ledger.csv"
printf '{"schema": "solbook.roadmap.v1", "weeks": [{"week": "2026-W47", "title": "w <img src=x>", "tasks": [{"task": "t <b>", "status": "done", "issue": 7, "notes": "a & b"}]}]}' >"$T/roadmap.json"
"$SOLBOOK" site --db "$T/10k.db" --out "$T/esc" --contributions "$T/ledger.csv" --roadmap "$T/roadmap.json" >/dev/null || fail "site with markup in the data files"
grep -q 'T &lt;script&gt;alert(1)&lt;/script&gt;' "$T/esc/contributions.html" || fail "ledger title not escaped"
grep -q 'n &quot;q&quot; &amp; &lt;i&gt;' "$T/esc/contributions.html" || fail "ledger notes not escaped"
grep -q 'w &lt;img src=x&gt;' "$T/esc/roadmap.html" || fail "roadmap title not escaped"
grep -q '<td>t &lt;b&gt;</td><td><span class="st st-passed">done</span></td><td class="num">#7</td><td>a &amp; b</td>' "$T/esc/roadmap.html" || fail "roadmap task row"
if grep -l -e '<script>alert' -e '<img src=x' -e '<b>x</b>' "$T/esc/contributions.html" "$T/esc/roadmap.html"; then
    fail "markup from a data file written as markup"
fi
echo "ok: ledger and roadmap text with markup is escaped on the pages rendered from templates"
"$SOLBOOK" site --check >/dev/null || fail "site --check on the shipped data files"
echo "ok: site --check passes the shipped roadmap and ledger"
echo "site_10k: passed"

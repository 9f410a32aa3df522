#!/bin/sh
# site_incremental.sh SOLBOOK SRCDIR - a site built again after an ingest
# takes the unchanged pages over from the earlier build and gives the same
# bytes as a full build: on the shipped H100 kernels-full results (three
# commits' folders, then a fourth ingested), the rebuilt folder equals a
# fresh build file for file (the manifest too), reports pages taken over,
# and its run pages and histories of the new runs differ from the earlier
# site's. On synthetic runs with histories paged (--page-rows 10), only
# each history's page 1 (the chart) and the pages that gain the new runs
# (oldest first, so the last ones) are rendered again, and only the
# weekly writeup of the week the new runs went into: the other weeks
# are the earlier site's files. A changed option (--page-rows) takes
# nothing over. Every
# compressed file beside the run pages (raw JSON, the GEMM spec's Nsight
# Compute metrics) is a whole gzip stream, its length check included.
set -eu
SOLBOOK=$1
SRC=$2
E="$SRC/examples/h100/kernels-full"
T=$(mktemp -d /tmp/sb_site_incr.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

"$SOLBOOK" ingest -q --db "$T/r.db" "$E/0d25a35-torch" "$E/c5e5d94-fp16" "$E/58de412-fp32" \
    "$SRC/examples/h100/gemm/ncu" >/dev/null
"$SOLBOOK" site --db "$T/r.db" --out "$T/site" >"$T/first.txt"
grep -q "taken over" "$T/first.txt" && fail "a first build took pages over"
cp -a "$T/site" "$T/before"
before=$(sed -n 's/^site: [0-9]* pages (\([0-9]*\) runs.*/\1/p' "$T/first.txt")

last=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM runs").fetchone()[0])' "$T/r.db")
cp "$T/r.db" "$T/r0.db"
"$SOLBOOK" ingest -q --db "$T/r.db" "$E/a9f9b43-liger" >/dev/null
"$SOLBOOK" site --db "$T/r.db" --out "$T/site" >"$T/again.txt"
"$SOLBOOK" site --db "$T/r.db" --out "$T/full" >"$T/full.txt"

taken=$(sed -n 's/^site: \([0-9]*\) of \([0-9]*\) files taken over.*/\1/p' "$T/again.txt")
files=$(sed -n 's/^site: \([0-9]*\) of \([0-9]*\) files taken over.*/\2/p' "$T/again.txt")
[ -n "$taken" ] && [ "$taken" -gt 0 ] || fail "the rebuild took nothing over: $(cat "$T/again.txt")"
[ "$taken" -lt "$files" ] || fail "the rebuild took every file over ($taken of $files)"
diff -r "$T/site" "$T/full" >"$T/diff" || fail "rebuild and full build differ: $(head -n 20 "$T/diff")"
echo "ok: after the ingest ($before runs before), the rebuild took $taken of $files files over and equals a full build byte for byte"
ngz=0
for f in "$T"/full/runs/*.gz; do
    gzip -t "$f" 2>"$T/gz.err" || fail "$f is not a whole gzip stream: $(cat "$T/gz.err")"
    ngz=$((ngz + 1))
done
ls "$T"/full/runs/*-ncu.csv.gz >/dev/null 2>&1 || fail "no Nsight Compute file beside the run pages"
zcat "$T"/full/runs/*-ncu.csv.gz | awk -F, 'NR > 1 { print $NF }' | grep -q "/" && fail "an Nsight Compute file names a folder of the ingesting machine"
echo "ok: $ngz compressed files beside the run pages pass gzip -t; the ncu files name no folder"

# what the new runs touch was rendered again
changed=$(diff -rq "$T/before" "$T/site" | grep -c "^Files .* differ" || true)
added=$(diff -rq "$T/before" "$T/site" | grep -c "^Only in $T/site" || true)
[ "$changed" -gt 0 ] || fail "no page of the earlier site changed"
diff -rq "$T/before" "$T/site" | grep -q "history/" || fail "no history page changed or was added"
ls "$T/site/runs" | grep -q "jsonl.gz" || fail "no raw JSON beside the run pages"
grep -c "^runs/" "$T/site/.solbook-manifest" >/dev/null || fail "the manifest lists no run pages"
grep -c "^history/" "$T/site/.solbook-manifest" >/dev/null || fail "the manifest lists no histories"
echo "ok: $changed files changed and $added added against the earlier site, history pages among them"

# a history is rendered again exactly where a new run joined it: a page
# that links a run stored after the earlier build differs from its
# earlier self, and one that links none is the earlier page, byte for
# byte (its runs, their comparisons and commits are the same)
same=0
again=0
for f in "$T"/site/history/*.html; do
    rel=${f#"$T/site/"}
    case $rel in history/index*) continue ;; esac
    new=$(grep -o 'runs/[0-9]*\.html#r[0-9]*' "$f" | sed 's/.*#r//' | awk -v last="$last" '$1 > last' | head -n 1)
    if [ -n "$new" ]; then
        if [ -f "$T/before/$rel" ] && cmp -s "$f" "$T/before/$rel"; then
            fail "$rel links new run $new but is the earlier page"
        fi
        again=$((again + 1))
    else
        [ -f "$T/before/$rel" ] || fail "$rel links no new run but the earlier site has no such page"
        cmp -s "$f" "$T/before/$rel" || fail "$rel links no new run but differs from the earlier page"
        same=$((same + 1))
    fi
done
[ "$again" -gt 0 ] && [ "$same" -gt 0 ] || fail "expected histories both rendered again and kept ($again, $same)"
echo "ok: $again history pages link runs after id $last and were rendered again; $same link none and equal the earlier pages"

# a build whose pages would differ (another --page-rows) takes nothing over
"$SOLBOOK" site --db "$T/r.db" --out "$T/site" --page-rows 50 >"$T/rows.txt"
grep -q "taken over" "$T/rows.txt" && fail "a build with other --page-rows took pages over"
"$SOLBOOK" site --db "$T/r.db" --out "$T/rows" --page-rows 50 >/dev/null
diff -r "$T/site" "$T/rows" >"$T/diff" || fail "--page-rows 50 rebuild and full build differ: $(head -n 20 "$T/diff")"
echo "ok: with --page-rows 50 nothing was taken over and the result equals a full build"

# paged histories (10 runs a page), on synthetic runs
# (perf/gen_site_db.py: 1,728 series of 3 SKUs, 3 providers a history,
# 7 commits, then an 8th appended): runs are listed oldest first, so the
# new runs land on the last pages; the chart is on page 1 only, and a
# later page that gains no new run and was not the last one is taken over
python3 "$SRC/perf/gen_site_db.py" "$T/syn.db" 12096 >/dev/null
"$SOLBOOK" site --db "$T/syn.db" --out "$T/paged" --page-rows 10 >/dev/null
last=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM runs").fetchone()[0])' "$T/syn.db")
cp -a "$T/paged" "$T/paged-before"
(cd "$T/paged" && find history weekly -type f -printf '%i %p\n') >"$T/paged-inodes"
python3 "$SRC/perf/gen_site_db.py" "$T/syn.db" 1728 --append >/dev/null
"$SOLBOOK" site --db "$T/syn.db" --out "$T/paged" --page-rows 10 >"$T/paged.txt"
"$SOLBOOK" site --db "$T/syn.db" --out "$T/paged-full" --page-rows 10 >/dev/null
diff -r "$T/paged" "$T/paged-full" >"$T/diff" || fail "paged rebuild and full build differ: $(head -n 20 "$T/diff")"
python3 - "$T/paged-before" "$T/paged" "$last" "$T/paged-inodes" <<'PY' || fail "paged histories"
import glob, os, re, sys
before, after, last = sys.argv[1], sys.argv[2], int(sys.argv[3])
inode = {}
for line in open(sys.argv[4]):
    i, name = line.rstrip("\n").split(" ", 1)
    inode[name] = int(i)
def runs(html):
    return [int(x) for x in re.findall(r'runs/[0-9]+\.html#r([0-9]+)">', html)]
kept = again = firsts = 0
for p in sorted(glob.glob(os.path.join(after, "history", "*~p*.html"))):
    rel = os.path.relpath(p, after)
    html = open(p, encoding="utf-8").read()
    assert "<svg" not in html, "%s: a later page carries a chart" % rel
    first = re.sub(r"~p[0-9]+\.html$", ".html", os.path.basename(rel))
    assert 'href="%s">page 1</a>' % first in html, "%s: no link to the chart on page 1" % rel
    ids = runs(html.split("<tbody>")[-1])
    old = os.path.join(before, rel)
    was_last = 'rel="next"' not in open(old, encoding="utf-8").read() if os.path.exists(old) else True
    if max(ids) <= last and not was_last:
        assert open(old, "rb").read() == open(p, "rb").read(), "%s: no new run, not the last, yet rendered again" % rel
        assert inode[rel] == os.stat(p).st_ino, "%s: equal but not taken over" % rel
        kept += 1
    elif max(ids) > last:
        again += 1
for p in glob.glob(os.path.join(after, "history", "*.html")):
    if "~p" not in p and not os.path.basename(p).startswith("index") and "<svg" in open(p, encoding="utf-8").read():
        firsts += 1
assert kept > 0 and again > 0 and firsts > 0, (kept, again, firsts)
# a week none of whose runs changed is the earlier site's files; the
# week the new runs went into is written again
weeks = sorted({f.split(".")[0][:8] for f in os.listdir(os.path.join(after, "weekly")) if f[:2] == "20"})
same_weeks = [w for w in weeks if inode.get("weekly/%s.md" % w) == os.stat(os.path.join(after, "weekly", w + ".md")).st_ino]
assert same_weeks and weeks[-1] not in same_weeks, (weeks, same_weeks)
for w in same_weeks:
    for f in os.listdir(os.path.join(after, "weekly")):
        if f.startswith(w + ".") or f.startswith(w + "-"):
            assert inode.get("weekly/" + f) == os.stat(os.path.join(after, "weekly", f)).st_ino, f
print("ok: paged histories (10 runs a page, oldest first): %d later pages without new runs taken over "
      "(the same file), %d with new runs rendered again; no later page has a chart, each links "
      "page 1 (%d page 1s with a chart)" % (kept, again, firsts))
print("ok: weeks %s taken over whole (the same files), week %s written again" % (", ".join(same_weeks), weeks[-1]))
PY
taken=$(sed -n 's/^site: \([0-9]*\) of \([0-9]*\) files taken over.*/\1/p' "$T/paged.txt")
echo "ok: the paged rebuild took $taken files over and equals a full build byte for byte"

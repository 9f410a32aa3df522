#!/bin/sh
# cli_report.sh SOLBOOK WRITE_FIXTURE - end-to-end check of `solbook report`,
# `solbook packet` and `solbook validate-results` on a crafted database:
# figures recomputed from the database with Python's sqlite3, every SVG
# parsed as XML, the packet manifest verified with sha256sum -c, exit codes.
set -eu
SOLBOOK=$1
FIXTURE=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/lab.db
"$FIXTURE" "$db"
fail() { echo "FAIL: $*" >&2; exit 1; }

# geomean: CSV figure equals the geomean recomputed from stored medians
"$SOLBOOK" report geomean --db "$db" --op rmsnorm --format csv --out "$work/geo.csv"
python3 - "$db" "$work/geo.csv" <<'PY'
import csv, math, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def medians(prov, sku):
    q = ("SELECT c.shape_key, m.median_ms FROM configs c JOIN metrics m ON m.run_id=c.run_id"
         " JOIN provenance p ON p.run_id=c.run_id JOIN runs r ON r.id=c.run_id"
         " JOIN correctness k ON k.run_id=c.run_id"
         " WHERE c.op='rmsnorm' AND c.provider=? AND p.sku=? AND r.status='passed' AND k.passed=1")
    return dict(db.execute(q, (prov, sku)).fetchall())
rows = list(csv.DictReader(open(sys.argv[2])))
# liger and torch over huggingface, torch over liger, on two SKUs
assert len(rows) == 6, rows
assert {(r["provider"], r["baseline"]) for r in rows} == {
    ("liger", "huggingface"), ("torch", "huggingface"), ("torch", "liger")}, rows
for row in rows:
    assert row["time"] == "call", row
    base, prov = medians(row["baseline"], row["sku"]), medians(row["provider"], row["sku"])
    shapes = sorted(set(base) & set(prov))
    g = math.exp(sum(math.log(base[s] / prov[s]) for s in shapes) / len(shapes))
    assert int(row["shapes"]) == len(shapes), row
    assert row["geomean"] == "%.3f" % g, (row, g)
    assert row["evidence"] == "op-level microbenchmark"
print("geomean: %d rows match the recomputed figures" % len(rows))
PY

# weekly: Markdown, HTML, and every SVG well-formed with its points
out=$work/weekly
"$SOLBOOK" report weekly --week 2026-W47 --db "$db" --out "$out" >/dev/null
test -s "$out/2026-W47.md" || fail "no weekly markdown"
grep -q '<table>' "$out/2026-W47.html" || fail "weekly HTML has no table"
grep -q '^| rmsnorm | fwd | bf16 | h100-sxm5-80gb | liger | huggingface | call | 3 |' "$out/2026-W47-appendix.md" || fail "weekly geomean row"
test "$(wc -c <"$out/2026-W47.md")" -le 65536 || fail "weekly over 64 KB"
test "$(wc -l <"$out/2026-W47.md")" -le 300 || fail "weekly over 300 lines"
! grep -q "$work" "$out/2026-W47.md" "$out/2026-W47-appendix.md" || fail "weekly holds the build folder's path"
python3 - "$out" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
files = sorted(glob.glob(sys.argv[1] + "/*.svg"))
assert len(files) >= 4, files  # rooflines per SKU, speedup bars per op group
for f in files:
    root = ET.parse(f).getroot()
    assert root.tag == ns + "svg", f
    texts = [t.text for t in root.iter(ns + "text")]
    assert any(t and "op-level microbenchmark" in t for t in texts), f
    points = [c for c in root.iter(ns + "circle") if c.get("class") == "point"]
    for c in points:
        assert c.find(ns + "title") is not None, f
print("weekly: %d SVG files parse as XML, every point has a tooltip" % len(files))
PY

# the weekly's and the packet's reproduce.sh run to their end with fake
# solbench and solbook that record their arguments and, like the real
# parsers, refuse an option after an operand (a word after an option
# written without "=" is taken as its value)
fakes=$work/fakes
mkdir -p "$fakes"
cat >"$fakes/fake" <<'EOS'
#!/bin/sh
name=$(basename "$0")
echo "$name $*" >>"$FAKE_LOG"
shift  # the subcommand
[ "$name" = solbook ] && [ "${1:-}" = table ] && shift
operand=0 value=0
for a in "$@"; do
  case $a in
  --) break ;;
  --*=*) [ $operand = 0 ] || { echo "$name: option $a after an operand" >&2; exit 2; }; value=0 ;;
  -*) [ $operand = 0 ] || { echo "$name: option $a after an operand" >&2; exit 2; }; value=1 ;;
  *) [ $value = 1 ] || operand=1; value=0 ;;
  esac
done
EOS
chmod +x "$fakes/fake"
ln -sf fake "$fakes/solbench"
ln -sf fake "$fakes/solbook"
run_repro() {  # run_repro SCRIPT: runs it in an empty folder with the fakes first on PATH
  rm -rf "$work/repro" && mkdir "$work/repro"
  (cd "$work/repro" && FAKE_LOG=$work/repro/log PATH=$fakes:$PATH sh "$1") || fail "$1 stopped before its end"
  tail -n 1 "$work/repro/log"
}
last=$(run_repro "$out/2026-W47-reproduce.sh")
case $last in "solbook report table --db"*) ;; *) fail "the weekly's reproduce.sh ended with: $last" ;; esac
grep -q '^solbook ingest --db [^ ]* results/$' "$work/repro/log" || fail "the weekly's reproduce.sh ingests in another form"
echo "weekly reproduce.sh: ran to its end with fake tools ($(wc -l <"$work/repro/log") commands)"

# packet: manifest verifies; only passing runs cited
pk=$work/packet
"$SOLBOOK" packet --target triton --db "$db" --op rmsnorm --out "$pk" >/dev/null
(cd "$pk" && sha256sum --quiet -c MANIFEST.sha256) || fail "packet manifest does not verify"
sh -n "$pk/reproduce.sh" || fail "reproduce.sh is not valid sh"
failed_id=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT id FROM runs WHERE status='failed'\").fetchone()[0])" "$db")
(cd "$pk" && tar -xzf data.tar.gz && cd data && sha256sum --quiet -c MANIFEST.sha256) || fail "packet archive manifest does not verify"
test "$(ls "$pk/data/results" | wc -l)" -eq 17 || fail "packet archive does not hold the 17 cited runs"
test ! -e "$pk/data/results/run-$failed_id.json" || fail "failed run $failed_id cited"
! grep -q "run-$failed_id.json" "$pk/DISCUSSION.md" || fail "failed run named in the discussion"
! grep -q "$work" "$pk/DISCUSSION.md" "$pk/reproduce.sh" || fail "packet holds the build folder's path"
test "$(wc -c <"$pk/DISCUSSION.md")" -le 65536 || fail "packet body over 64 KB"
last=$(run_repro "$pk/reproduce.sh")
case $last in "solbook packet --target triton"*) ;; *) fail "the packet's reproduce.sh ended with: $last" ;; esac
echo "packet: sha256sum -c passes for the folder and the archive; 17 runs, failed run $failed_id not cited; no local path"

# note: ten lines at most, the gate's verdict per arch
"$SOLBOOK" report note --db "$db" --out "$work/note.md"
test "$(wc -l <"$work/note.md")" -le 10 || fail "note over ten lines"
grep -q 'a100: missing' "$work/note.md" || fail "note: a100 not missing"
grep -q 'h100: ok (run' "$work/note.md" || fail "note: h100 not ok"
echo "note: $(wc -l <"$work/note.md") lines, gate verdicts per arch"

# table: per-shape rows and the geomean at the foot
"$SOLBOOK" report table --db "$db" --op rmsnorm --sku h100-sxm5-80gb --provider liger --out "$work/table.md"
grep -q '^| liger-perkernel | BT=1024,H=4096 | 0.1000 | 0.2000 | 2.000 |' "$work/table.md" || fail "table row"
grep -q '^| \*\*geomean\*\* | 3 cases |' "$work/table.md" || fail "table geomean foot"
echo "table: per-shape rows with the geomean at the foot"
if "$SOLBOOK" packet --target liger --db "$db" --op copy --out "$work/p2" 2>"$work/err"; then
  fail "packet with nothing passing succeeded"
else
  test $? -eq 1 || fail "packet with nothing passing: wrong exit status"
fi
grep -q 'nothing to cite' "$work/err" || fail "packet refusal message"

# gate: A100 honestly missing; H100 complete
set +e
"$SOLBOOK" validate-results --db "$db" >"$work/gate.txt"; rc=$?
set -e
test $rc -eq 1 || fail "validate-results without A100/H200 data exited $rc"
grep -q '^a100: missing' "$work/gate.txt" || fail "gate: a100 not reported missing"
grep -q '^h100: ok: run' "$work/gate.txt" || fail "gate: h100 not ok"
"$SOLBOOK" validate-results --db "$db" --arch h100 >/dev/null || fail "gate h100 only"
echo "validate-results: exit 1 with a100/h200 missing, exit 0 for --arch h100"

# regressions: the 10 % slower case is found, exit 1
set +e
"$SOLBOOK" report regressions --db "$db" --format json --out "$work/rg.json"; rc=$?
set -e
test $rc -eq 1 || fail "regressions exited $rc, expected 1"
python3 - "$work/rg.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
reg = [c for c in d["cases"] if c["verdict"] == "regression"]
assert d["regressions"] == 1 and len(reg) == 1, d
assert reg[0]["provider"] == "solbook-mma" and abs(reg[0]["rel_change"] - 0.10) < 1e-9
assert reg[0]["old_commit"].startswith("aaaa") and reg[0]["new_commit"].startswith("bbbb")
print("regressions: one 10%% regression, p = %.2g" % reg[0]["p"])
PY

# commits import: a git history where bbbb is aaaa's parent reverses the
# measured order, so the 10 % step becomes an improvement from bbbb to aaaa
python3 - "$work/rg.json" "$work/commits.txt" <<'PY'
import json, sys
reg = [c for c in json.load(open(sys.argv[1]))["cases"] if c["verdict"] == "regression"][0]
old, new = reg["old_commit"], reg["new_commit"]
open(sys.argv[2], "w").write("%s %s 200\n%s 100\n" % (old, new, new))
PY
"$SOLBOOK" commits import --db "$db" "$work/commits.txt" | grep -q '^commits: 2 stored' || fail "commits import"
"$SOLBOOK" report regressions --db "$db" --history --out "$work/rg_git.md" || fail "regressions in git order exited $?"
grep -q '^Commit order: git ancestry (solbook commits import) for 1 series; first measured for' "$work/rg_git.md" \
  || fail "regressions: no git order in the header"
grep -q '^### Change points (0)' "$work/rg_git.md" || fail "regressions: no change point section"
"$SOLBOOK" report regressions --db "$db" --history --format json --out "$work/rg_git.json"
python3 - "$work/rg_git.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
imp = [c for c in d["cases"] if c["verdict"] == "improvement" and c["provider"] == "solbook-mma"]
assert d["regressions"] == 0 and len(imp) == 1, d
assert imp[0]["old_commit"].startswith("bbbb") and imp[0]["new_commit"].startswith("aaaa"), imp
assert d["commit_order"]["git"] == 1 and d["change_points"] == [], d["commit_order"]
print("commits import: git order bbbb -> aaaa turns the regression into an improvement")
PY

# usage and input errors: one line, exit 2
for args in "report geomean --db $work/none.db" "report weekly --week 2026-W99 --db $db" \
            "packet --target nope --db $db" "validate-results --op rmsnorm --db $db" \
            "report geomean --format xml --db $db" "report geomean --week 2026-W47 --db $db" \
            "report table --op rmsnorm --db $db"; do
  set +e
  # shellcheck disable=SC2086
  "$SOLBOOK" $args >/dev/null 2>"$work/err"; rc=$?
  set -e
  test $rc -eq 2 || fail "'$args' exited $rc, expected 2"
  test "$(wc -l <"$work/err")" -eq 1 || fail "'$args' printed more than one error line"
done
echo "errors: 7 bad invocations exit 2 with one line each"
# compare: one card against the other, JSON figures recomputed from the
# stored medians; bad selectors exit 2 with one line
rc=0
"$SOLBOOK" compare --db "$db" --format json --out "$work/cmp.json" sku=h100-sxm5-80gb sku=h200-sxm-141gb 2>"$work/err" || rc=$?
test $rc -le 1 || { cat "$work/err"; fail "compare exited $rc"; }
python3 - "$db" "$work/cmp.json" "$rc" <<'PY'
import json, math, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
d = json.load(open(sys.argv[2]))
assert d["across_skus"] is True, d
assert sum(d["counts"].values()) == len(d["cases"]) > 0, d["counts"]
assert (d["counts"]["slower"] > 0) == (sys.argv[3] == "1"), (d["counts"], sys.argv[3])
logs = []
for c in d["cases"]:
    med = dict(db.execute("SELECT run_id, median_ms FROM metrics WHERE run_id IN (?, ?)", (c["run_a"], c["run_b"])).fetchall())
    if c["samples_a"] == 0:
        assert abs(med[c["run_a"]] - c["median_a_ms"]) < 1e-9, c
    assert c["sku_a"] == "h100-sxm5-80gb" and c["sku_b"] == "h200-sxm-141gb", c
    logs.append(math.log(c["median_b_ms"] / c["median_a_ms"]))
g = math.exp(sum(logs) / len(logs))
assert abs(g - d["geomean_ratio"]) < 1e-6 * g, (g, d["geomean_ratio"])
print("compare: %d cases across SKUs, geomean B/A %.4f recomputed" % (len(d["cases"]), g))
PY
for args in "compare --db $db 11111" "compare --db $db sha=zz 1111" "compare --db $db 1111" "compare --db $db --threshold -1 1111 2222" "compare --db $db --format xml 1111 2222" "compare --db $db 9999999 8888888"; do
  rc=0
  "$SOLBOOK" $args >/dev/null 2>"$work/err" || rc=$?
  test $rc -eq 2 || fail "'$args' exited $rc, expected 2"
  test "$(wc -l <"$work/err")" -eq 1 || fail "'$args' printed more than one error line"
done
echo "compare errors: 6 bad invocations exit 2 with one line each"
# A Liger packet states findings of measuring sessions: over a database
# whose only liger evidence is a training run it has nothing to cite.
good=$(cd "$(dirname "$0")/../data/ingest/good" && pwd)
tdb=$work/training.db
"$SOLBOOK" ingest --db "$tdb" "$good" >/dev/null 2>&1 || true
set +e
"$SOLBOOK" packet --db "$tdb" --target liger --out "$work/tpk" 2>"$work/err"; rc=$?
set -e
test $rc -eq 1 || fail "liger packet without sessions exited $rc, expected 1"
grep -q 'no measuring session pairs the fused kernels' "$work/err" || fail "liger packet refusal: $(cat "$work/err")"
test ! -e "$work/tpk" || fail "a refused packet wrote its folder"
echo "packet: a liger packet without measuring sessions is refused (exit 1), nothing written"
# evidence: a SKU with results and no calibration states why "% copy" is
# blank instead of printing an absent ceiling
kernels=$(cd "$(dirname "$0")/../../examples/h100/kernels" && pwd)
cp -r "$kernels" "$work/nocal"
find "$work/nocal" -name 'calibration*.json' -delete
"$SOLBOOK" ingest --db "$work/nocal.db" -q "$work/nocal" >/dev/null
"$SOLBOOK" report evidence --db "$work/nocal.db" --out "$work/nocal.md"
grep -q '"% copy" is left blank: it needs the card.s measured copy ceiling' "$work/nocal.md" ||
  fail "evidence without a calibration does not say why % copy is blank"
! grep -qiw 'nan' "$work/nocal.md" || fail "evidence without a calibration prints nan: $(grep -iw nan "$work/nocal.md" | head -1)"
! grep -q 'calibration run -1' "$work/nocal.md" || fail "evidence names calibration run -1"
echo "evidence: an uncalibrated SKU's % copy is blank with its reason, no nan, no run -1"
echo "cli_report: all checks passed"

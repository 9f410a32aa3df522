#!/bin/sh
# cli_regressions.sh SOLBOOK WRITE_REGRESS_FIXTURE - one definition of a
# regression in every output, on a crafted database (write_regress_fixture.c):
# the fused regression is counted and listed first, huggingface's drift
# without a package change is not counted, liger's package change is
# listed as an environment change, and report regressions, its --history
# list, its JSON and the weekly writeup give the same count; confirm
# prints the paired re-measure, whose stored runs confirm it.
set -eu
SOLBOOK=$1
FIXTURE=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/rg.db
fail() { echo "FAIL: $*" >&2; exit 1; }
"$FIXTURE" "$db" "$work/commits.txt"
"$SOLBOOK" commits import --db "$db" "$work/commits.txt" | grep -q '^commits: 3 stored' || fail "commits import"

set +e
"$SOLBOOK" report regressions --db "$db" --out "$work/latest.md"; rc1=$?
"$SOLBOOK" report regressions --db "$db" --history --out "$work/history.md"; rc2=$?
"$SOLBOOK" report regressions --db "$db" --history --format json \
  --repo-url https://example.com/lab/kernels --out "$work/history.json"; rc3=$?
set -e
test $rc1 -eq 1 && test $rc2 -eq 1 && test $rc3 -eq 1 || fail "regressions exited $rc1 $rc2 $rc3, expected 1"
"$SOLBOOK" report weekly --db "$db" --week 2026-W47 --out "$work/weekly" > "$work/weekly.txt"

python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
latest = open(work + "/latest.md").read()
history = open(work + "/history.md").read()
weekly = open(work + "/weekly/2026-W47.md").read()
summary = open(work + "/weekly.txt").read()
d = json.load(open(work + "/history.json"))
count = "**1 regression of the project's kernels**"
# one count, one stated definition, in every output
assert latest.splitlines()[0].startswith(count), latest.splitlines()[0]
assert history.splitlines()[0] == latest.splitlines()[0], history.splitlines()[0]
assert d["regressions"] == 1 and d["definition"] == latest.splitlines()[0], d["definition"]
assert "- Regressions at the end of 2026-W47: " + latest.splitlines()[0] in weekly, weekly
assert "1 regressions of the project's kernels (as report regressions counts them)" in summary, summary
rows = d["cases"]
counted = [r for r in rows if r["counted"]]
assert len(counted) == 1, counted
f = counted[0]
assert f["provider"] == "fused" and f["cause"] == "code" and f["same_card"] is True
assert abs(f["rel_change"] - 0.10) < 1e-9 and f["threshold"] == 0.03, f
assert f["threshold_from"] == "min-effect", f
assert f["old_commit"].startswith("b000") and f["new_commit"].startswith("c000"), f
assert f["confirm"] == "confirmed", f
# the fused regression is the first table of the list
sec = history.split("### ")
first = [s for s in sec if s.startswith("Regressions of the project's kernels")][0]
assert "| fused | h100-sxm5-80gb | regression |" in first and "huggingface" not in first, first
assert "| yes | confirmed +10.0% (runs " in first, first
assert "[b00000000000..c00000000000](https://example.com/lab/kernels/compare/" not in first
# huggingface: 12 % slower across two cards with the same torch: drift, not counted
hf = [r for r in rows if r["provider"] == "huggingface" and r["verdict"] == "regression"]
assert len(hf) == 1 and hf[0]["cause"] == "environment/noise drift" and not hf[0]["counted"], hf
# too few drift steps of its class to judge it by the others: the SKU's cross-card threshold
assert hf[0]["threshold_from"] == "SKU cross-card A/A" and hf[0]["threshold"] == 0.095, hf
assert d["drift"] == {"tested": 3, "flagged": 1}, d["drift"]  # huggingface a-b, b-c; liger a-b
drift = [s for s in sec if s.startswith("Environment or noise drift")][0]
assert "| huggingface | h100-sxm5-80gb | regression |" in drift, drift
assert "1 of 3 tested steps (33.3%)" in drift, drift
# liger's package change: its own list, with what changed
lg = [r for r in rows if r["provider"] == "liger" and r["cause"] == "environment change"]
assert len(lg) == 1 and not lg[0]["counted"] and lg[0]["verdict"] == "regression", lg
assert lg[0]["changed"] == 'packages {"liger-kernel":"0.8.5"} -> {"liger-kernel":"0.9.0"}', lg[0]
change = [s for s in sec if s.startswith("Protocol or environment changes")][0]
assert "| liger | h100-sxm5-80gb | regression |" in change and "0.9.0" in change, change
assert "Cross-card thresholds: h100-sxm5-80gb, held launches, 9.5% (no such A/A comparisons" in history, history
print("regressions: 1 counted (fused, +10.0% on one card, confirmed) in report regressions, "
      "--history, JSON and the weekly; drift 1 of 3 steps (huggingface) not counted; "
      "liger package change listed as an environment change")
PY

# the range links to the configured repository in Markdown
"$SOLBOOK" report regressions --db "$db" --repo-url https://example.com/lab/kernels --out "$work/linked.md" || true
grep -q '\[b00000000000\.\.c00000000000\](https://example.com/lab/kernels/compare/b000000000000000000000000000000000000000\.\.\.c000000000000000000000000000000000000000) (1 commit)' "$work/linked.md" \
  || fail "no commit range link"
echo "regressions: the commit range links to --repo-url"

# confirm: the commands of the paired re-measure of the counted regression
run=$(python3 -c 'import json,sys; print([r for r in json.load(open(sys.argv[1]))["cases"] if r["counted"]][0]["new_run"])' "$work/history.json")
"$SOLBOOK" confirm --db "$db" "$run" > "$work/confirm.sh"
"$SOLBOOK" confirm --db "$db" > "$work/confirm_all.sh"
cmp -s "$work/confirm.sh" "$work/confirm_all.sh" || fail "confirm RUN and confirm (all counted) differ"
grep -q '^git worktree add ab-build-b00000000000 b000000000000000000000000000000000000000$' "$work/confirm.sh" || fail "confirm: no old checkout"
grep -q "^printf '%s\\\\n' '= rmsnorm --mode=fwd --dtype=bf16 --BT=4096 --H=4096 --provider=fused --warmup=10 --iters=50 --repeats=5 --l2=cold' | CUDA_VISIBLE_DEVICES=0 AB_BASE_GIT_SHA=b0* SOLBOOK_GIT_SHA=c0* bench/scripts/ab_compare.sh ab-build-b00000000000/build/bench/solbench ab-build-c00000000000/build/bench/solbench ab-b00000000000-c00000000000$" "$work/confirm.sh" \
  || { cat "$work/confirm.sh"; fail "confirm: no ab_compare.sh line"; }
set +e
# a long --out with shell syntax stays one word, whole, in every line
out='a dir/$(touch pwned)'"$(printf 'x%.0s' $(seq 1 80))"
"$SOLBOOK" confirm --db "$db" --out "$out" "$run" > "$work/confirm_odd.sh"
grep -q "bench/scripts/ab_compare.sh 'a dir/\$(touch pwned)x*-build-b00000000000/build/bench/solbench' 'a dir/\$(touch pwned)x*-build-c00000000000/build/bench/solbench' 'a dir/\$(touch pwned)x*-b00000000000-c00000000000'$" "$work/confirm_odd.sh" \
  || { cat "$work/confirm_odd.sh"; fail "confirm: --out not one whole word"; }
# one rule for a repository URL: report and site refuse the same one, in one line
"$SOLBOOK" report regressions --db "$db" --repo-url 'https://x.example/a|b' > /dev/null 2> "$work/url.err"; rc=$?
test $rc -eq 2 && test "$(wc -l < "$work/url.err")" -eq 1 && grep -q "repository URL 'https://x.example/a|b'" "$work/url.err" \
  || { cat "$work/url.err"; fail "report regressions took an unsafe repository URL (exit $rc)"; }
SOLBOOK_REPO_URL='https://x.example/(a)' "$SOLBOOK" site --db "$db" --out "$work/site-url" > /dev/null 2> "$work/url.err"; rc=$?
test $rc -eq 2 && grep -q "repository URL 'https://x.example/(a)'" "$work/url.err" \
  || { cat "$work/url.err"; fail "site took an unsafe repository URL (exit $rc)"; }
"$SOLBOOK" confirm --db "$db" 999 2> "$work/confirm.err"; rc=$?
set -e
test $rc -eq 2 && grep -q 'names no flagged step' "$work/confirm.err" || fail "confirm of no flagged step exited $rc"
echo "confirm: ab_compare.sh of both commits on card 0 for run $run; an unflagged run is refused"

# confirm of runs measured by session.py: sessions of each build in turn,
# 20 rounds of fresh inputs, the protocol whose A/A power is measured
sdb=$work/rg-session.db
"$FIXTURE" "$sdb" "$work/commits-session.txt" session.py > /dev/null
"$SOLBOOK" commits import --db "$sdb" "$work/commits-session.txt" > /dev/null
"$SOLBOOK" confirm --db "$sdb" > "$work/confirm_session.sh"
test "$(grep -c '^python3 bench/scripts/session.py ' "$work/confirm_session.sh")" -eq 4 \
  || { cat "$work/confirm_session.sh"; fail "confirm: not four session.py lines"; }
grep -q "^python3 bench/scripts/session.py --solbench ab-build-c00000000000/build/bench/solbench --case rmsnorm:fwd:bf16:BT=4096,H=4096 --providers fused --rounds 20 --fresh-inputs --suite ab-compare --device 0 --out ab-b00000000000-c00000000000/new-1$" "$work/confirm_session.sh" \
  || { cat "$work/confirm_session.sh"; fail "confirm: no session.py line of 20 fresh-input rounds"; }
grep -q "ab_compare.sh" "$work/confirm_session.sh" && fail "confirm: ab_compare.sh for session.py runs"
echo "confirm: session.py runs are measured again in four sessions of 20 fresh-input rounds"

# with the A/A sessions of examples/h100/sessions stored, the h100
# cross-card threshold comes from them: 1.5 times the 95th percentile
# `solbook noise` prints for two cards of one SKU, from the comparisons
# of held launches for a step of held launches
cp "$db" "$work/aa.db"
"$SOLBOOK" ingest -q --db "$work/aa.db" "$SOLBOOK_HOME"/examples/h100/sessions/*.tar.gz > /dev/null
"$SOLBOOK" noise --db "$work/aa.db" > "$work/noise.md"
set +e
"$SOLBOOK" report regressions --db "$work/aa.db" --format json --out "$work/aa.json"; rc=$?
set -e
test $rc -eq 1 || fail "regressions with A/A sessions exited $rc"
python3 - "$work/noise.md" "$work/aa.json" <<'PY'
import json, re, sys
noise = open(sys.argv[1]).read()
row = [l for l in noise.splitlines() if l.startswith("| h100-sxm5-80gb | held |")][0].split("|")
n, p95 = int(row[3]), float(row[4].strip().rstrip("%")) / 100
total = int([l for l in noise.splitlines() if l.startswith("| two cards of one SKU |")][0].split("|")[2])
go = [l for l in noise.splitlines() if l.startswith("| h100-sxm5-80gb | let go |")]
assert n < total and go and n + int(go[0].split("|")[3]) == total, (n, total, go)
d = json.load(open(sys.argv[2]))
cc = [e for e in d["cross_card"] if e["sku"] == "h100-sxm5-80gb" and not e["hold_let_go"]][0]
assert cc["aa_comparisons"] == n >= 20, (cc, n)
assert abs(cc["threshold"] - 1.5 * p95) < 1e-4, (cc, p95)
assert "from the stored A/A runs: " in d["definition"], d["definition"]
assert d["regressions"] == 1, d["regressions"]
print("regressions: h100 cross-card threshold of held launches %.2f%% from %d of the %d stored A/A "
      "comparisons across cards, the held ones (1.5 x p95 %.2f%%)" % (100 * cc["threshold"], n, total, 100 * p95))
PY

#!/bin/sh
# cli_forget.sh SOLBOOK - `solbook forget RUN...`: the run goes with its
# stored sample values and Nsight Compute sidecar rows, the other
# runs stay, the output says what went, and an unknown run removes nothing.
set -u
SOLBOOK=$1
GOOD=${SOLBOOK_HOME:?}/tests/data/ingest/good
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); }
count() { sqlite3 "$TMP/lab.db" "$1"; }

mkdir "$TMP/in"
cp "$GOOD/gemm_h100_cublas.json" "$GOOD/gemm_h100_cublas.ncu.csv" "$GOOD/failed_gemm_h100.json" "$TMP/in/"
"$SOLBOOK" ingest --db "$TMP/lab.db" "$TMP/in" >/dev/null 2>&1 || fail "ingest"
id=$(count "SELECT run_id FROM configs JOIN runs ON runs.id = run_id WHERE status = 'passed'")
other=$(count "SELECT id FROM runs WHERE status = 'failed'")
ncu=$(count "SELECT count(*) FROM profiler_metrics WHERE run_id = $id")

stored=$(count "SELECT COALESCE(SUM(length(value_ms) / 8), 0) FROM run_samples WHERE run_id = $id")
check
[ "$ncu" -gt 0 ] && [ $stored -gt 0 ] || fail "fixture run $id has no ncu rows or samples"

# an unknown run among known ones: nothing removed
"$SOLBOOK" forget --db "$TMP/lab.db" "$id" 99999 >"$TMP/out" 2>"$TMP/err"
rc=$?
check
[ "$rc" -eq 1 ] || fail "unknown run: exit $rc, expected 1"
check
grep -q "no run 99999; nothing was removed" "$TMP/err" || { fail "unknown run message"; cat "$TMP/err"; }
check
[ "$(count "SELECT count(*) FROM runs WHERE id = $id")" -eq 1 ] || fail "run $id removed though the call failed"

# a run named twice is forgotten and said once
"$SOLBOOK" forget --db "$TMP/lab.db" "$id" "$id" >"$TMP/out" 2>"$TMP/err"
rc=$?
check
[ "$rc" -eq 0 ] || { fail "forget: exit $rc"; cat "$TMP/err"; }
check
[ "$(grep -c "^forgot run $id " "$TMP/out")" -eq 1 ] || { fail "a run named twice is said twice"; cat "$TMP/out"; }
check
grep -qxF "forgot run $id (passed, from $TMP/in/gemm_h100_cublas.json): $stored sample values, $ncu Nsight Compute values" "$TMP/out" ||
    { fail "forget line"; cat "$TMP/out"; }
for t in runs configs provenance metrics correctness run_samples profiler_metrics ceilings; do
    col=run_id
    [ "$t" = runs ] && col=id
    check
    [ "$(count "SELECT count(*) FROM $t WHERE $col = $id")" -eq 0 ] || fail "$t keeps rows of run $id"
done
check
[ "$(count "SELECT count(*) FROM runs WHERE id = $other")" -eq 1 ] || fail "run $other went too"
check
"$SOLBOOK" runs --db "$TMP/lab.db" | grep -q "^ *$id " && fail "runs still lists $id"
# a missing database is not created
"$SOLBOOK" forget --db "$TMP/none.db" 1 >/dev/null 2>&1
check
[ ! -e "$TMP/none.db" ] || fail "forget created a database"
"$SOLBOOK" forget --db "$TMP/lab.db" 1x >/dev/null 2>&1
rc=$?
check
[ "$rc" -eq 2 ] || fail "'1x': exit $rc, expected 2"

echo "cli_forget: $checks checks, $failures failed (run $id: $stored samples, $ncu ncu values)"
[ "$failures" -eq 0 ]

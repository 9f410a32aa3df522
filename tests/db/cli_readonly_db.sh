#!/bin/sh
# cli_readonly_db.sh SOLBOOK - a database in a folder nobody can write (a
# read-only mount, where root is refused too) is read by the read-only
# commands: opened immutable, it lists the same runs as where it was made;
# a -wal file left beside it with commits the file lacks is refused with
# one line that names it, and a write is refused naming the folder.
# Skips (77) where bubblewrap cannot make a read-only mount.
set -u
SOLBOOK=$1
GOOD=${SOLBOOK_HOME:?}/tests/data/ingest/good
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); }
ro() { bwrap --ro-bind / / --dev /dev --proc /proc --ro-bind "$TMP/ro" "$TMP/ro" "$@"; }

if ! command -v bwrap >/dev/null 2>&1 || ! bwrap --ro-bind / / --dev /dev --proc /proc true 2>/dev/null; then
  echo "SKIP: bubblewrap cannot make a read-only mount here"
  exit 77
fi
mkdir "$TMP/ro" "$TMP/in"
cp "$GOOD/gemm_h100_cublas.json" "$GOOD/failed_gemm_h100.json" "$TMP/in/"
"$SOLBOOK" ingest --db "$TMP/ro/lab.db" "$TMP/in" >/dev/null 2>&1 || fail "ingest"
"$SOLBOOK" runs --db "$TMP/ro/lab.db" >"$TMP/want" 2>&1 || fail "runs where the folder is writable"
rm -f "$TMP/ro/lab.db-wal" "$TMP/ro/lab.db-shm"

ro "$SOLBOOK" runs --db "$TMP/ro/lab.db" >"$TMP/got" 2>"$TMP/err"
rc=$?
check
[ "$rc" -eq 0 ] || { fail "runs on a read-only mount: exit $rc"; cat "$TMP/err"; }
check
cmp -s "$TMP/want" "$TMP/got" || { fail "runs on a read-only mount differ"; diff "$TMP/want" "$TMP/got"; }
check
[ "$(grep -c 'gemm' "$TMP/got")" -ge 2 ] || { fail "runs listed no gemm runs"; cat "$TMP/got"; }
check
[ ! -e "$TMP/ro/lab.db-shm" ] || fail "a -shm file appeared on the read-only mount"

ro "$SOLBOOK" ingest --db "$TMP/ro/lab.db" "$TMP/in" >"$TMP/out" 2>"$TMP/err"
rc=$?
check
[ "$rc" -eq 2 ] || { fail "ingest into a read-only folder: exit $rc, expected 2"; cat "$TMP/err"; }
check
grep -q "is not writable" "$TMP/err" || { fail "ingest message does not name the folder"; cat "$TMP/err"; }

printf 'not yet checkpointed' >"$TMP/ro/lab.db-wal"
ro "$SOLBOOK" runs --db "$TMP/ro/lab.db" >"$TMP/out" 2>"$TMP/err"
rc=$?
check
[ "$rc" -eq 2 ] || { fail "runs with a leftover -wal: exit $rc, expected 2"; cat "$TMP/out"; }
check
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "lab.db-wal holds changes" "$TMP/err" ||
  { fail "leftover -wal message"; cat "$TMP/err"; }

echo "cli_readonly_db: $checks checks, $failures failures"
[ "$failures" -eq 0 ]

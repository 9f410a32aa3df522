#!/bin/sh
# site_during_ingest.sh SOLBOOK TOP - solbook site while solbook ingest
# stores measuring sessions into the same database: every build exits 0
# and its pages come from one state of the database (the weekly writeups'
# headlines, the claims checked against them and the session tables read
# by other connections agree), and every ingest stores its files.
set -u
SOLBOOK=$1
TOP=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
db=$TMP/lab.db
# the H100 per-commit history (a site of some seconds to build) and one session
"$SOLBOOK" ingest --db "$db" "$TOP/examples/h100/kernels-full" \
    "$TOP/examples/h100/sessions/2026-12-06-perkernel-1-b8e7e832.tar.gz" >/dev/null 2>&1 ||
    fail "first ingest"
base=$("$SOLBOOK" runs --db "$db" --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
# the other sessions, one ingest each, while the site is built again and again
(
    for a in "$TOP"/examples/h100/sessions/*.tar.gz; do
        "$SOLBOOK" ingest --db "$db" "$a" >/dev/null 2>"$TMP/ingest.err" || echo "$a" >>"$TMP/ingest.failed"
    done
    touch "$TMP/ingest.done"
) &
builds=0
while [ ! -e "$TMP/ingest.done" ] || [ "$builds" -lt 2 ]; do
    rm -rf "$TMP/site"
    if ! "$SOLBOOK" site --db "$db" --out "$TMP/site" >/dev/null 2>"$TMP/site.err"; then
        fail "site build $builds during an ingest: $(cat "$TMP/site.err")"
        break
    fi
    [ -s "$TMP/site/index.html" ] || fail "site build $builds wrote no index.html"
    builds=$((builds + 1))
done
wait
[ ! -e "$TMP/ingest.failed" ] || fail "ingest failed beside the site: $(cat "$TMP/ingest.failed") $(cat "$TMP/ingest.err")"
stored=$("$SOLBOOK" runs --db "$db" --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
want=$((base - $(tar tzf "$TOP/examples/h100/sessions/2026-12-06-perkernel-1-b8e7e832.tar.gz" | grep -c '\.json$')))
for a in "$TOP"/examples/h100/sessions/*.tar.gz; do
    want=$((want + $(tar tzf "$a" | grep -c '\.json$')))
done
[ "$stored" -eq "$want" ] || fail "$stored runs stored, want $want (every session's results once)"
echo "site_during_ingest: $builds site builds beside $(ls "$TOP"/examples/h100/sessions/*.tar.gz | wc -l) ingests, $stored runs stored; $failures failures"
[ "$failures" -eq 0 ]

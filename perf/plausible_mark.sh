#!/bin/sh
# plausible_mark.sh [BUILD] DB - CPU time of the plausibility marks and
# listing (perf_plausible_mark) on a copy of DB: first with every verdict
# judged and stored by `solbook ingest` (timed: what filling a database
# from before migration 014 costs), read by the reports; then with the
# record of what they were judged with removed, so that reports judge
# every run themselves, as before migration 014. DB is left untouched.
# Build the solbook and perf_plausible_mark targets first. Times depend
# on other load on the machine; the load average is printed with them.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$HERE/../build
[ $# -gt 1 ] && { BUILD=$1; shift; }
DB=${1:?usage: plausible_mark.sh [BUILD] DB}
BIN=$BUILD/perf/perf_plausible_mark
SOLBOOK=$BUILD/cli/solbook
[ -x "$BIN" ] && [ -x "$SOLBOOK" ] || { echo "plausible_mark: build solbook and perf_plausible_mark in $BUILD first" >&2; exit 2; }
export SOLBOOK_HOME="$HERE/.."
T=$(mktemp -d /tmp/sb_plausible_mark.XXXXXX)
trap 'rm -rf "$T"' EXIT
cp "$DB" "$T/db"
mkdir "$T/none"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("DELETE FROM run_verdicts_basis"); c.commit()' "$T/db" 2>/dev/null ||
  "$SOLBOOK" runs --db "$T/db" --limit 1 >/dev/null  # a database before migration 014: migrated here
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo "== solbook ingest judging and storing every verdict"
/usr/bin/time -f "ingest: %e s wall, %U s user, %S s system" "$SOLBOOK" ingest --db "$T/db" "$T/none" | grep '^plausibility'
echo "== reports reading the stored verdicts"
"$BIN" "$T/db"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("DELETE FROM run_verdicts_basis"); c.commit()' "$T/db"
echo "== reports judging every run (no stored verdicts hold)"
"$BIN" "$T/db"

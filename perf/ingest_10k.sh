#!/bin/sh
# ingest_10k.sh [SOLBOOK] - times `solbook ingest` of 10,000 result files of
# 250 samples each (5 repeats x 50) into a new database, and prints files/s.
# The files are synthetic (perf/gen_results.py) and schema-valid; generating
# them is not timed. Default SOLBOOK: build/cli/solbook. SB_PERF_FILES=N
# changes the file count. Wall time depends on other load on the machine:
# the cpu line says how much work the ingest itself did.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SOLBOOK=${1:-$HERE/../build/cli/solbook}
N=${SB_PERF_FILES:-10000}
[ -x "$SOLBOOK" ] || { echo "ingest_10k: no solbook at $SOLBOOK (build first, or pass its path)" >&2; exit 2; }
export SOLBOOK_HOME="$HERE/.."
T=$(mktemp -d /tmp/sb_ingest_10k.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "generating $N files (5 repeats x 50 samples) in $T ..."
python3 "$HERE/gen_results.py" "$T/results" "$N" --repeats 5 --iters 50
sync
start=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "cpu: %U s user, %S s system (2 threads: a reader parses and validates, the main thread stores)" \
        "$SOLBOOK" ingest -q --db "$T/perf.db" "$T/results"
else
    "$SOLBOOK" ingest -q --db "$T/perf.db" "$T/results"
fi
end=$(date +%s.%N)
runs=$(sqlite3 "$T/perf.db" 'SELECT count(*) FROM runs' 2>/dev/null || echo "?")
samples=$(sqlite3 "$T/perf.db" 'SELECT sum(length(value_ms)) / 8 FROM run_samples' 2>/dev/null || echo "?")
python3 - "$start" "$end" "$N" "$runs" "$samples" <<'PY'
import sys
start, end, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
s = end - start
print("ingest_10k: %d files (%s runs, %s samples stored) in %.2f s: %.0f files/s" % (n, sys.argv[4], sys.argv[5], s, n / s))
PY

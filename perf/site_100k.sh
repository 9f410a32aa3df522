#!/bin/sh
# site_100k.sh [SOLBOOK] - times `solbook site` over 100,000 synthetic result
# runs (perf/gen_site_db.py: 3 SKUs x 576 series x 58 commits, 20 samples
# each, written straight into SQLite; not timed) and prints the build time,
# the number of files and the largest file. Default SOLBOOK:
# build/cli/solbook. SB_PERF_RUNS=N changes the run count; SB_PERF_OUT=DIR
# builds into DIR (e.g. /dev/shm for tmpfs) instead of a folder next to the
# database under /tmp. The figures depend on other load on the machine: the
# cpu line says how much work the build itself did.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SOLBOOK=${1:-$HERE/../build/cli/solbook}
N=${SB_PERF_RUNS:-100000}
[ -x "$SOLBOOK" ] || { echo "site_100k: no solbook at $SOLBOOK (build first, or pass its path)" >&2; exit 2; }
export SOLBOOK_HOME="$HERE/.."
T=$(mktemp -d /tmp/sb_site_100k.XXXXXX)
OUT=${SB_PERF_OUT:-$T}/site-$$
trap 'rm -rf "$T" "$OUT"' EXIT
echo "generating $N runs in $T/perf.db ..."
python3 "$HERE/gen_site_db.py" "$T/perf.db" "$N"
sync
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
    /usr/bin/time -o "$T/cpu" -f "cpu: %U s user, %S s system, %M KiB peak memory (4 threads: two write run pages, one the weekly writeups, one the packets)" \
        "$SOLBOOK" site --db "$T/perf.db" --out "$OUT" >"$T/summary"
else
    "$SOLBOOK" site --db "$T/perf.db" --out "$OUT" >"$T/summary"
fi
end=$(date +%s.%N)
head -n 1 "$T/summary"
files=$(find "$OUT" -type f | wc -l)
largest=$(find "$OUT" -type f -printf '%s %P\n' | sort -n | tail -n 1)
python3 - "$start" "$end" "$N" "$files" "$largest" <<'PY'
import sys
start, end, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
s = end - start
print("site_100k: %d runs -> %s files in %.2f s (%.0f runs/s); largest file %s bytes"
      % (n, sys.argv[4], s, n / s, sys.argv[5]))
PY
[ -f "$T/cpu" ] && cat "$T/cpu"
echo "load average before the build: $LOAD"

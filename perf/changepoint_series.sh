#!/bin/sh
# changepoint_series.sh [BUILD] [N...] - wall time of the E-Divisive change
# point search (model/changepoint.h) on seeded series of N per-commit
# medians (default 1000), flat and with a 5% step, 199 permutations.
# Build the perf_changepoint_series target first. Wall time depends on
# other load on the machine; the load average is printed with it.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../build}
[ $# -gt 0 ] && shift
BIN=$BUILD/perf/perf_changepoint_series
[ -x "$BIN" ] || { echo "changepoint_series: no $BIN (cmake --build $BUILD --target perf_changepoint_series)" >&2; exit 2; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
"$BIN" "$@"

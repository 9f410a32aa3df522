#!/bin/sh
# site_100k.sh [SOLBOOK] - times `solbook site` over 100,000 synthetic result
# runs (perf/gen_site_db.py: 3 SKUs x 576 series x 58 commits, 20 samples
# each, written straight into SQLite; not timed): a full build, then,
# after 1 % more runs at a new commit (gen_site_db.py --append), a rebuild
# into the same folder (which takes unchanged pages over) and a full build
# of the grown database into a new folder, which must give the same bytes.
# For each build it prints the wall time, the CPU time, the peak memory,
# the largest page and the largest file, with the load average before it.
# Default SOLBOOK: build/cli/solbook. SB_PERF_RUNS=N changes the run
# count and SB_PERF_ADD=M the runs added (default N / 100); SB_PERF_OUT=DIR
# builds into DIR (e.g. /dev/shm for tmpfs) instead of a folder next to
# the database under /tmp. The wall times depend on other load on the
# machine: the cpu figures say how much work the build itself did.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SOLBOOK=${1:-$HERE/../build/cli/solbook}
N=${SB_PERF_RUNS:-100000}
ADD=${SB_PERF_ADD:-$((N / 100))}
[ -x "$SOLBOOK" ] || { echo "site_100k: no solbook at $SOLBOOK (build first, or pass its path)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "site_100k: needs GNU time at /usr/bin/time" >&2; exit 2; }
export SOLBOOK_HOME="$HERE/.."
T=$(mktemp -d /tmp/sb_site_100k.XXXXXX)
OUT=${SB_PERF_OUT:-$T}/site-$$
trap 'rm -rf "$T" "$OUT" "$OUT-full"' EXIT
echo "generating $N runs in $T/perf.db ..."
python3 "$HERE/gen_site_db.py" "$T/perf.db" "$N"
sync
echo "$(nproc) CPUs"

# build LABEL DIR: one timed build of $T/perf.db into DIR, and its line
build() {
    label=$1
    dir=$2
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -o "$T/time" -f "%e %U %S %M" "$SOLBOOK" site --db "$T/perf.db" --out "$dir" >"$T/summary"
    read -r wall user sys kib <"$T/time"
    page=$(find "$dir" -type f -name '*.html' -printf '%s %P\n' | sort -n | tail -n 1)
    file=$(find "$dir" -type f ! -name '.*' -printf '%s %P\n' | sort -n | tail -n 1)
    files=$(find "$dir" -type f | wc -l)
    taken=$(sed -n 's/^site: \([0-9]*\) of [0-9]* files taken over.*/\1/p' "$T/summary")
    python3 - "$label" "$wall" "$user" "$sys" "$kib" "$files" "${taken:-0}" "$page" "$file" "$load" <<'PY'
import sys
label, wall, user, sys_, kib, files, taken, page, f, load = sys.argv[1:]
print("site_100k: %s: %.2f s wall, %.2f s cpu (%.2f user, %.2f system), %.0f MiB peak;"
      " %s files (%s taken over); largest page %s bytes (%s), largest file %s bytes (%s);"
      " load before %s"
      % (label, float(wall), float(user) + float(sys_), float(user), float(sys_), int(kib) / 1024,
         files, taken, page.split(" ")[0], page.split(" ", 1)[1], f.split(" ")[0], f.split(" ", 1)[1],
         load))
PY
    echo "$wall $user $sys" >"$T/wall-$label"
}

build "full build of $N runs" "$OUT"
python3 "$HERE/gen_site_db.py" "$T/perf.db" "$ADD" --append
sync
build "rebuild after $ADD more runs" "$OUT"
build "full build of $((N + ADD)) runs" "$OUT-full"
if diff -rq "$OUT" "$OUT-full" >"$T/diff"; then
    echo "site_100k: the rebuild and the full build are byte-identical"
else
    echo "site_100k: the rebuild and the full build differ:" >&2
    head -n 20 "$T/diff" >&2
    exit 1
fi
python3 - "$(cat "$T/wall-rebuild after $ADD more runs")" "$(cat "$T/wall-full build of $((N + ADD)) runs")" <<'PY'
import sys
inc, full = [float(x) for x in sys.argv[1].split()], [float(x) for x in sys.argv[2].split()]
print("site_100k: the rebuild took %.0f %% of the full build's wall time and %.0f %% of its cpu time"
      % (100 * inc[0] / full[0], 100 * (inc[1] + inc[2]) / (full[1] + full[2])))
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/bin/sh
# scale.sh [--3m] [SOLBOOK] - what the commands cost as the database grows:
# for databases of 100,000 and 1,000,000 synthetic result runs (and
# 3,000,000 with --3m, which takes long to generate), the wall time, CPU
# time and peak memory (/usr/bin/time) of compare (the two newest commits
# that ran every series), report regressions (its first call, which
# stores the regression steps, a second, and one after the ingest below,
# which walks again the series of the ingested runs), report geomean,
# report weekly (the newest week), site
# (a full build) and ingest of SB_PERF_FILES (default 2000) result files of
# 250 samples into that database, beside a plain Python json + jsonschema +
# sqlite3 loop over the same files in the same run (perf/py_ingest_loop.py),
# and report regressions after a night's sweep of SB_PERF_SWEEP (default
# 7000) runs at new commits (gen_site_db.py --append; each series' steps
# go on from its stored last one).
# It also prints the file's size and bytes per run, and the bytes a run of
# 250 samples adds (the same files ingested into a new database).
#
# The databases come from perf/gen_site_db.py (20 samples a run, written
# straight into SQLite; not timed), spread over N / 2740 days: a fleet that
# stores 1,000,000 runs a year. Wall times depend on other load on the
# machine: each row carries the 1-minute load average before it, and the
# CPU time says how much work the command itself did. Default SOLBOOK:
# build/cli/solbook. SB_PERF_DIR=DIR keeps the databases there (they are
# removed otherwise); SB_PERF_SIZES="N ..." sets the sizes; SB_PERF_SITE=0
# leaves the site out (its full build is most of the time at 1,000,000),
# SB_PERF_REPORTS=0 compare and the reports. SB_PERF_FROM=DIR copies
# DIR/scale-N.db (a kept SB_PERF_DIR, or gen_site_db.py's database of an
# older checkout) instead of generating it, so that runs of two builds
# start from the same file. The first command on each database opens it
# (`runs --limit 1`): that row is the time of the schema upgrade when the
# file is older than SOLBOOK.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SIZES=${SB_PERF_SIZES:-100000 1000000}
if [ "${1:-}" = "--3m" ]; then
    SIZES="$SIZES 3000000"
    shift
fi
SOLBOOK=${1:-$HERE/../build/cli/solbook}
FILES=${SB_PERF_FILES:-2000}
SWEEP=${SB_PERF_SWEEP:-7000}
[ -x "$SOLBOOK" ] || { echo "scale: no solbook at $SOLBOOK (build first, or pass its path)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "scale: needs GNU time at /usr/bin/time" >&2; exit 2; }
export SOLBOOK_HOME="$HERE/.."
if [ -n "${SB_PERF_DIR:-}" ]; then
    T=$SB_PERF_DIR
    mkdir -p "$T"
else
    T=$(mktemp -d /tmp/sb_scale.XXXXXX)
    trap 'rm -rf "$T"' EXIT
fi
load1() { cut -d' ' -f1 /proc/loadavg; }
# timed LABEL N COMMAND...: one row; exit status 0 or 1 (slower cases,
# regressions found) is the command's answer, 2 a failure
timed() {
    label=$1
    n=$2
    shift 2
    l=$(load1)
    rc=0
    /usr/bin/time -o "$T/time" -f "%e %U %S %M" "$@" >"$T/out" 2>"$T/err" || rc=$?
    if [ "$rc" -gt 1 ]; then
        cat "$T/err" >&2
        echo "scale: $label failed (exit $rc)" >&2
        exit 1
    fi
    # GNU time puts "Command exited with non-zero status N" first
    read -r wall user sys kib <<EOT
$(tail -n 1 "$T/time")
EOT
    python3 -c 'import sys; n, label, wall, user, sys_, kib, load = sys.argv[1:]
print("| %s | %s | %.2f | %.2f | %.0f | %s |" % (n, label, float(wall), float(user) + float(sys_), int(kib) / 1024, load))' \
        "$n" "$label" "$wall" "$user" "$sys" "$kib" "$l"
}
echo "generating $FILES result files (5 repeats x 50 samples) in $T/files ..."
python3 "$HERE/gen_results.py" "$T/files" "$FILES" --seed 21 >/dev/null
# one file of other runs, whose ingest (not timed) judges every generated run
python3 "$HERE/gen_results.py" "$T/first" 1 --seed 7 >/dev/null
sync
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
: >"$T/summary"
echo
echo "| runs | command | wall s | cpu s | peak MiB | load |"
echo "| ---: | --- | ---: | ---: | ---: | ---: |"
rm -f "$T/empty.db"*
timed "ingest into a new database" 0 "$SOLBOOK" ingest -q --db "$T/empty.db" "$T/files"
python3 - "$T/empty.db" "$FILES" >>"$T/summary" <<'PY'
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
n = db.execute("SELECT count(*) FROM runs").fetchone()[0]
blob = db.execute("SELECT avg(length(value_ms)), avg(length(rep_lengths)) FROM run_samples").fetchone()
raw = db.execute("SELECT avg(length(raw_json)) FROM runs").fetchone()[0]
db.close()
size = os.path.getsize(sys.argv[1])
print("a new database of 250-sample runs: %d runs, %d bytes, %.0f bytes a run (samples blob %.0f, raw_json %.0f)"
      % (n, size, size / n, blob[0], raw))
PY

for N in $SIZES; do
    db="$T/scale-$N.db"
    rm -f "$db" "$db"-wal "$db"-shm
    if [ -n "${SB_PERF_FROM:-}" ]; then
        cp "$SB_PERF_FROM/scale-$N.db" "$db"
    else
        days=$(python3 -c "import sys; print(int(sys.argv[1]) / 2740)" "$N")
        python3 "$HERE/gen_site_db.py" "$db" "$N" --days "$days" >"$T/gen"
    fi
    sync
    size=$(stat -c %s "$db")
    timed "first open (runs --limit 1)" "$N" "$SOLBOOK" runs --db "$db" --limit 1
    # the generated runs get their plausibility verdicts, as the ingests
    # that stored them would have given them: reports read them, and the
    # timed ingest judges its own runs only
    "$SOLBOOK" ingest -q --db "$db" "$T/first" >/dev/null 2>&1 || true
    if [ "${SB_PERF_REPORTS:-1}" != 0 ]; then
        # the two newest commits that ran every series, and the ISO week of
        # the newest run
        set -- $(python3 - "$db" <<'PY'
import datetime, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
shas = [r[0] for r in db.execute(
    "WITH n AS (SELECT git_sha, count(*) AS runs, max(run_id) AS last FROM provenance GROUP BY git_sha)"
    " SELECT git_sha FROM n WHERE runs = (SELECT max(runs) FROM n) ORDER BY last DESC LIMIT 2")]
last = db.execute("SELECT max(finished_at) FROM provenance").fetchone()[0]
y, w, _ = datetime.date.fromisoformat(last[:10]).isocalendar()
print(shas[1][:12], shas[0][:12], "%d-W%02d" % (y, w))
PY
)
        a=$1 b=$2 week=$3
        timed "compare $a $b" "$N" "$SOLBOOK" compare --db "$db" "$a" "$b"
        # the first stores the regression steps (migration 015), the
        # second reads them
        timed "report regressions (first: stores the steps)" "$N" "$SOLBOOK" report regressions --db "$db"
        timed "report regressions" "$N" "$SOLBOOK" report regressions --db "$db"
        timed "report geomean" "$N" "$SOLBOOK" report geomean --db "$db"
        rm -rf "$T/weekly"
        timed "report weekly --week $week" "$N" "$SOLBOOK" report weekly --db "$db" --week "$week" --out "$T/weekly"
    fi
    if [ "${SB_PERF_SITE:-1}" != 0 ]; then
        rm -rf "$T/site"
        timed "site (full build)" "$N" "$SOLBOOK" site --db "$db" --out "$T/site"
        rm -rf "$T/site"
    fi
    timed "ingest $FILES files" "$N" "$SOLBOOK" ingest -q --db "$db" "$T/files"
    ingest_s=$(tail -n 1 "$T/time" | cut -d' ' -f1)
    if [ "${SB_PERF_REPORTS:-1}" != 0 ]; then
        # the series of the ingested runs walked again, the rest read
        timed "report regressions after the ingest" "$N" "$SOLBOOK" report regressions --db "$db"
        python3 "$HERE/gen_site_db.py" "$db" "$SWEEP" --append >/dev/null
        timed "report regressions after a sweep of $SWEEP runs" "$N" "$SOLBOOK" report regressions --db "$db"
        timed "report regressions" "$N" "$SOLBOOK" report regressions --db "$db"
    fi
    rm -f "$T/py.db"
    timed "Python loop, $FILES files" "$N" python3 "$HERE/py_ingest_loop.py" \
        "$HERE/../data/schemas/solbook.result.v1.json" "$T/files" "$T/py.db"
    py_s=$(tail -n 1 "$T/time" | cut -d' ' -f1)
    python3 -c 'import sys; n, f, s, p, size = sys.argv[1:]; f = int(f)
print("%s runs: ingest %.0f files/s, %.1fx the Python loop (%.0f files/s); file %.0f MB, %.0f bytes a run"
      % (n, f / float(s), float(p) / float(s), f / float(p), int(size) / 1e6, int(size) / int(n)))' \
        "$N" "$FILES" "$ingest_s" "$py_s" "$size" >>"$T/summary"
    [ -n "${SB_PERF_DIR:-}" ] || rm -f "$db" "$db"-wal "$db"-shm
done
echo
cat "$T/summary"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/bin/sh
# ingest_rate.sh [SOLBOOK] - files/s of `solbook ingest` on 250-sample
# results (5 repeats x 50, perf/gen_results.py), in the same run as a plain
# Python loop doing the least the same job needs (json.load, jsonschema
# validation against data/schemas/solbook.result.v1.json, one sqlite3 row per
# run and one with its samples packed as solbook stores them, one
# transaction): loose files, then the same number of other files packed in
# a .tar.gz and in a .jsonl.gz that ingest reads where they lie. Generating
# the files is not timed. Each ingest runs SB_PERF_REPEATS times (default
# 5), the three kinds in turn, each into a new database; the median, the
# range and the median CPU time are printed. SB_PERF_FILES=N (default 2000)
# changes the count. Wall time depends on other load on the machine: the
# load average, the CPU time (the same work takes more of it on a busy or
# throttled machine) and a CPU probe before and after (a fixed loop alone
# and two at once) say how much there was.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SOLBOOK=${1:-$HERE/../build/cli/solbook}
N=${SB_PERF_FILES:-2000}
[ -x "$SOLBOOK" ] || { echo "ingest_rate: no solbook at $SOLBOOK (build first, or pass its path)" >&2; exit 2; }
export SOLBOOK_HOME="$HERE/.."
T=$(mktemp -d /tmp/sb_ingest_rate.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "generating 3 x $N files (5 repeats x 50 samples) in $T ..."
python3 "$HERE/gen_results.py" "$T/loose" "$N" --seed 11
python3 "$HERE/gen_results.py" "$T/packed" "$N" --seed 12
python3 "$HERE/gen_results.py" "$T/lines" "$N" --seed 13
(cd "$T" && tar czf packed.tar.gz packed)
python3 - "$T/lines" "$T/lines.jsonl.gz" <<'PY'
import glob, gzip, json, sys
with gzip.open(sys.argv[2], "wt") as out:
    for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
        out.write(json.dumps(json.load(open(f)), separators=(",", ":")) + "\n")
PY
sync
now() { date +%s.%N; }
# The machine's speed at the time: a fixed Python loop alone, then two of
# it at once. On two free CPUs both take about as long; on a host that
# lends fewer (or slower ones) the same ingest takes longer, whatever the
# code.
probe() {
    loop='x = 0
for i in range(1500000): x += i'
    p0=$(now); python3 -c "$loop"; p1=$(now)
    python3 -c "$loop" & python3 -c "$loop"; wait; p2=$(now)
    python3 -c 'import sys; a, b, c = map(float, sys.argv[2:]); print("cpu probe %s: one loop %.0f ms, two at once %.0f ms" % (sys.argv[1], (b - a) * 1e3, (c - b) * 1e3))' "$1" "$p0" "$p1" "$p2"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
probe before
REPEATS=${SB_PERF_REPEATS:-5}
one() { # NAME PATH: one timed ingest into a new database, a line in $T/times
    rm -f "$T/x.db" "$T/x.db-wal" "$T/x.db-shm"
    t0=$(now)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -o "$T/cpu" -f "%U %S" "$SOLBOOK" ingest -q --db "$T/x.db" "$2" >"$T/out"
    else
        echo "? ?" >"$T/cpu"
        "$SOLBOOK" ingest -q --db "$T/x.db" "$2" >"$T/out"
    fi
    t1=$(now)
    stored=$(sqlite3 "$T/x.db" 'SELECT count(*) FROM runs')
    [ "$stored" -eq "$N" ] || { cat "$T/out"; echo "ingest_rate: $1: $stored of $N stored" >&2; exit 1; }
    echo "$1|$t0|$t1|$(cat "$T/cpu")" >>"$T/times"
}
: >"$T/times"
r=0
while [ $r -lt "$REPEATS" ]; do
    one "loose files" "$T/loose"
    one "one .tar.gz" "$T/packed.tar.gz"
    one "one .jsonl.gz" "$T/lines.jsonl.gz"
    r=$((r + 1))
done
t0=$(now)
python3 "$HERE/py_ingest_loop.py" "$HERE/../data/schemas/solbook.result.v1.json" "$T/loose" "$T/py.db"
t1=$(now)
python3 - "$T/times" "$N" "$t0" "$t1" <<'PY'
import statistics, sys
n = int(sys.argv[2])
python = n / (float(sys.argv[4]) - float(sys.argv[3]))
runs = {}
for line in open(sys.argv[1]):
    name, t0, t1, cpu = line.rstrip("\n").split("|")
    u, s = cpu.split()
    c = float(u) + float(s) if u != "?" else float("nan")
    runs.setdefault(name, []).append((n / (float(t1) - float(t0)), c))
for name, v in runs.items():
    rates = sorted(r for r, _ in v)
    print("solbook ingest, %s: median %.0f files/s (%d runs: %.0f-%.0f), %.1fx the Python loop; "
          "cpu median %.2f s (user + system)"
          % (name, statistics.median(rates), len(rates), rates[0], rates[-1],
             statistics.median(rates) / python, statistics.median(c for _, c in v)))
print("plain Python json + jsonschema + sqlite3 loop, loose files: %.0f files/s (%d in %.2f s)"
      % (python, n, n / python))
PY
probe after
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

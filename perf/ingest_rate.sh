#!/bin/sh
# ingest_rate.sh [SOLBOOK] - files/s of `solbook ingest` on 250-sample
# results (5 repeats x 50, perf/gen_results.py), in the same run as a plain
# Python loop doing the least the same job needs (json.load, jsonschema
# validation against schemas/solbook.result.v1.json, one sqlite3 row per
# run and one with its samples packed as solbook stores them, one
# transaction): loose files, then the same number
# of other files packed in a .tar.gz and in a .jsonl.gz that ingest reads
# where they lie. Generating the files is not timed. SB_PERF_FILES=N (default
# 2000) changes the count. Wall time depends on other load on the machine:
# the load average and the cpu lines say how much there was.
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
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
now() { date +%s.%N; }
rate() { python3 -c "import sys; n, a, b = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]); print('%.0f files/s (%d in %.2f s)' % (n / (b - a), n, b - a))" "$@"; }
timed() { # NAME DB PATH
    t0=$(now)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -o "$T/cpu" -f "%U s user, %S s system" "$SOLBOOK" ingest -q --db "$2" "$3" >"$T/out"
    else
        "$SOLBOOK" ingest -q --db "$2" "$3" >"$T/out"
    fi
    t1=$(now)
    stored=$(sqlite3 "$2" 'SELECT count(*) FROM runs')
    [ "$stored" -eq "$N" ] || { cat "$T/out"; echo "ingest_rate: $1: $stored of $N stored" >&2; exit 1; }
    echo "solbook ingest, $1: $(rate "$N" "$t0" "$t1"); cpu $(cat "$T/cpu" 2>/dev/null || echo '?')"
}
timed "loose files" "$T/a.db" "$T/loose"
timed "one .tar.gz" "$T/b.db" "$T/packed.tar.gz"
timed "one .jsonl.gz" "$T/c.db" "$T/lines.jsonl.gz"
t0=$(now)
python3 - "$HERE/../schemas/solbook.result.v1.json" "$T/loose" "$T/py.db" <<'PY'
import array, glob, json, sqlite3, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft7Validator(schema)
db = sqlite3.connect(sys.argv[3])
db.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, raw_json TEXT, op TEXT, sku TEXT, median_ms REAL)")
db.execute("CREATE TABLE run_samples (run_id INTEGER PRIMARY KEY, rep_lengths TEXT, value_ms BLOB)")
with db:
    for f in sorted(glob.glob(sys.argv[2] + "/*.json")):
        d = json.load(open(f))
        validator.validate(d)
        cur = db.execute("INSERT INTO runs (raw_json, op, sku, median_ms) VALUES (?, ?, ?, ?)",
                         (json.dumps(d, sort_keys=True, separators=(",", ":")), d["config"]["op"],
                          d["provenance"]["device"]["sku"], d["timing"]["stats"]["median"]))
        rid = cur.lastrowid
        reps = d["timing"]["samples"]
        db.execute("INSERT INTO run_samples VALUES (?, ?, ?)",
                   (rid, json.dumps([len(r) for r in reps]), array.array("d", [v for r in reps for v in r]).tobytes()))
PY
t1=$(now)
echo "plain Python json + jsonschema + sqlite3 loop, loose files: $(rate "$N" "$t0" "$t1")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

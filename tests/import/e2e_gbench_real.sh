#!/bin/sh
# e2e_gbench_real.sh GBENCH_SAMPLE SOLBOOK SOURCE_DIR - runs the Google
# Benchmark program gbench_sample.cc, imports its JSON output as written,
# and checks the stored figures against what each benchmark declares.
set -eu
BENCH=$1
SOLBOOK=$2
export SOLBOOK_HOME=$3
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not found: skipped"; exit 77; }
T=$(mktemp -d /tmp/sb_gbench_real.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
check() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; echo "ok: $1: $3"; }
q() { sqlite3 "$T/g.db" "$1"; }

# Short runs: the test checks declared amounts and structure, never speed.
"$BENCH" --benchmark_min_time=0.01 --benchmark_out="$T/out.json" --benchmark_out_format=json >"$T/console" 2>&1 ||
    { cat "$T/console"; fail "the benchmark program failed"; }
"$SOLBOOK" ingest --db "$T/g.db" --format auto "$T/out.json" >"$T/log" 2>&1 || { cat "$T/log"; fail "import refused"; }
check "import line" "import: $T/out.json: gbench-json, 18 rows, 7 runs (7 stored, 0 already there, 0 skipped)" \
    "$(grep '^import:' "$T/log")"
bytes() { q "SELECT m.bytes FROM configs c JOIN metrics m USING (run_id) WHERE c.op = 'memcpy' AND c.shape_key = '$1'"; }
check "1 MiB memcpy, bytes a call" "1048576.0" "$(bytes arg0=1048576)"
check "4 KiB memcpy by real time, bytes a call" "4096.0" "$(bytes arg0=4096)"
check "aggregates-only memcpy, bytes a call" "65536.0" "$(bytes arg0=65536)"
check "repetitions are samples" "3 0" \
    "$(q "SELECT m.sample_count || ' ' || m.quantiles_only FROM configs c JOIN metrics m USING (run_id) WHERE c.op = 'memcpy' AND c.shape_key = 'arg0=4096'")"
check "aggregates are summaries" "3 1" \
    "$(q "SELECT m.sample_count || ' ' || m.quantiles_only FROM configs c JOIN metrics m USING (run_id) WHERE c.op = 'memcpy' AND c.shape_key = 'arg0=65536'")"
check "items a call, dtype from <float>" "1000 fp32" \
    "$(q "SELECT json_extract(params_json, '$.items_per_call') || ' ' || dtype FROM configs WHERE op = 'sum'")"
check "no dtype given: unknown" "unknown" "$(q "SELECT DISTINCT dtype FROM configs WHERE op = 'memcpy'")"
check "complexity sizes imported, fit not" "3" "$(q "SELECT count(*) FROM configs WHERE op = 'sort'")"
"$SOLBOOK" ingest --db "$T/g.db" --format gbench-json "$T/out.json" >"$T/log" 2>&1 || { cat "$T/log"; fail "re-import refused"; }
check "re-import stores nothing" "import: $T/out.json: gbench-json, 18 rows, 7 runs (0 stored, 7 already there, 0 skipped)" \
    "$(grep '^import:' "$T/log")"
echo "e2e_gbench_real: all checks passed"

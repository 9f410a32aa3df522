#!/bin/sh
# e2e_import.sh SOLBOOK TEST_DATA SOURCE_DIR - drives `solbook ingest
# --format` over the import fixtures and checks the stored rows with the
# sqlite3 CLI.
set -eu
SOLBOOK=$1
DATA=$2/import
SRC=$3
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not found: skipped"; exit 77; }
export SOLBOOK_HOME="$SRC"
unset SOLBOOK_DB || true
T=$(mktemp -d /tmp/sb_e2e_import.XXXXXX)
trap 'rm -rf "$T"' EXIT
DB=$T/import.db

fail() { echo "FAIL: $*"; exit 1; }
check() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; echo "ok: $1: $3"; }
q() { sqlite3 "$DB" "$1"; }
run() { # run NAME EXPECTED_RC CMD... : stdout in $T/out, stderr in $T/err
    name=$1; want=$2; shift 2
    rc=0
    "$@" >"$T/out" 2>"$T/err" || rc=$?
    [ "$rc" = "$want" ] || { cat "$T/out" "$T/err"; fail "$name: exit status $rc, expected $want"; }
}

# 1. Autodetected formats, a native file among them, one refused file.
run "ingest auto" 1 "$SOLBOOK" ingest --db "$DB" --format auto "$DATA/liger_basic.csv" "$DATA/liger_malformed.csv" \
    "$DATA/nvbench.json" "$2/schemas/result.valid.gemm.json"
check "summary" "ingest: 4 files, 12 stored, 0 duplicates, 1 refused (db $DB)" "$(tail -n 1 "$T/out")"
check "liger line" "import: $DATA/liger_basic.csv: liger-csv, 11 rows, 8 runs (8 stored, 0 already there, 1 skipped)" \
    "$(grep liger_basic "$T/out")"
check "refusal names file and line" "solbook: $DATA/liger_malformed.csv: line 4: y_value_50 \"fast\" is not a non-negative number" \
    "$(cat "$T/err")"
check "runs by format" "liger-csv=8 nvbench-json=3 solbook=1" \
    "$(q "SELECT group_concat(f || '=' || n, ' ') FROM (SELECT source_format f, count(*) n FROM runs GROUP BY 1 ORDER BY 1)")"

# 2. liger vs huggingface on the same case: the pair a geomean report uses.
check "flce speedup case pairs" "huggingface=23.0 liger=11.5" \
    "$(q "SELECT group_concat(provider || '=' || median_ms, ' ') FROM (SELECT provider, median_ms FROM configs JOIN metrics USING (run_id) WHERE op = 'flce' ORDER BY provider)")"
check "flce one case key" 1 "$(q "SELECT count(DISTINCT case_key) FROM configs WHERE op = 'flce'")"

# 2b. The geomean report over imported runs: liger's speedup over
# huggingface per kernel, mode and GPU (skipped where no report command).
if "$SOLBOOK" report --help >/dev/null 2>&1; then
    run "geomean" 0 "$SOLBOOK" report geomean --db "$DB" --baseline huggingface --format csv
    check "geomean ce full a100" "cross_entropy,full,fp32,a100-sxm4-80gb,liger,huggingface,1,2.577" \
        "$(cut -d, -f2-5,7-8,10-11 "$T/out" | grep '^cross_entropy,full,fp32,a100')"
    check "geomean flce fwd h100" "flce,fwd,bf16,h100-sxm5-80gb,liger,huggingface,1,2.000" \
        "$(cut -d, -f2-5,7-8,10-11 "$T/out" | grep '^flce,fwd')"
    # imported on both sides: the one compared case is marked not re-checked
    # (the column before the last; the last, implausible, is 0: neither
    # run comes near the H100's datasheet ceilings)
    check "geomean flce not re-checked, implausible" "1 0" \
        "$(grep '^[^,]*,flce,fwd,' "$T/out" | awk -F, '{print $(NF-1), $NF}')"
else
    echo "skipped: no 'solbook report' in this build"
fi

# 3. --format with a dtype, and a usage error.
run "gbench without dtype" 0 "$SOLBOOK" ingest --db "$DB" --format gbench-json "$DATA/gbench.json"
check "gbench without dtype: dtype unknown" "gemm" \
    "$(q "SELECT group_concat(op) FROM configs c JOIN runs r ON r.id = c.run_id WHERE r.source_format = 'gbench-json' AND dtype = 'unknown'")"
run "gbench with dtype" 0 "$SOLBOOK" ingest --db "$DB" --format gbench-json --dtype fp32 "$DATA/gbench.json"
check "gbench runs" 5 "$(q "SELECT count(*) FROM runs WHERE source_format = 'gbench-json'")"
run "gbench provider and suite" 0 "$SOLBOOK" ingest --db "$DB" --format gbench-json --dtype fp32 --provider mine \
    --suite cpu-copy "$DATA/gbench.json"
check "gbench provider" "cpu-copy mine 4" \
    "$(q "SELECT suite || ' ' || provider || ' ' || count(*) FROM configs WHERE provider = 'mine' GROUP BY suite, provider")"
run "bad provider" 1 "$SOLBOOK" ingest --db "$DB" --format gbench-json --dtype fp32 --provider "My Impl" "$DATA/gbench.json"
grep -q -- '--provider "My Impl" is not an id' "$T/err" || fail "bad provider message: $(cat "$T/err")"
echo "ok: --provider \"My Impl\" refused"
run "bad format" 2 "$SOLBOOK" ingest --db "$DB" --format csv "$DATA/liger_basic.csv"
echo "ok: --format csv is a usage error"

# 4. --strict: one refused import rolls back the whole batch.
run "strict" 1 "$SOLBOOK" ingest --db "$DB" --strict --format auto "$DATA/liger_model_sweep.csv" "$DATA/gbench_badunit.json"
check "strict stored nothing" 0 "$(q "SELECT count(*) FROM configs WHERE shape_key LIKE '%vocab_size%'")"
run "strict good" 0 "$SOLBOOK" ingest --db "$DB" --strict --format liger-csv "$DATA/liger_model_sweep.csv"
check "strict good stored" 3 "$(q "SELECT count(*) FROM runs WHERE source_path LIKE '%liger_model_sweep.csv%'")"
# 5. nvbench's clock of each sample (its --jsonbin clock file, nvbench_bin.json-freqs-bin/0.bin:
# 1980, 1980, 1755, 1965, 1980 MHz beside 0.010, 0.012, 0.011, 0.014, 0.013 ms) through
# `solbook show`: the range, the one sample more than 1% under the top clock, and r.
run "nvbench with clocks" 0 "$SOLBOOK" ingest --db "$DB" --format nvbench-json "$DATA/nvbench_bin.json"
NID=$(q "SELECT id FROM runs WHERE source_path LIKE '%nvbench_bin.json%'")
run "show clocks" 0 "$SOLBOOK" show --db "$DB" "$NID"
check "show clock range" "  SM clock (MHz)           1755 .. 1980, median 1980" "$(grep "SM clock (MHz)" "$T/out")"
check "show clock throttled" "  under 99% of top clock   1 of 5 (median 0.011 ms, the others 0.0125 ms)" \
    "$(grep "under 99%" "$T/out")"
check "show clock correlation" "  time-clock correlation   r = 0.311" "$(grep "time-clock" "$T/out")"
run "show clocks json" 0 "$SOLBOOK" show --db "$DB" --json "$NID"
check "show --json clocks" "5 1755 1980 1 5" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["sample_clocks"]; print(c["count"], round(c["min_mhz"]), round(c["max_mhz"]), c["below_top_clock"], len(d["document"]["timing"]["sample_sm_clock_mhz"][0]))' "$T/out")"
run "show without clocks" 0 "$SOLBOOK" show --db "$DB" "$(q "SELECT min(id) FROM runs WHERE source_format = 'nvbench-json'")"
grep -q "SM clock" "$T/out" && fail "a run without sample clocks shows SM clock lines"
echo "ok: a run without sample clocks shows none"
echo "e2e_import: all checks passed"

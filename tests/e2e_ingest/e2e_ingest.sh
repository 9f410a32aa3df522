#!/bin/sh
# e2e_ingest.sh SOLBOOK TEST_DATA SOURCE_DIR - drives `solbook ingest`,
# `runs` and `show` and checks the stored rows with the sqlite3 CLI.
set -eu
SOLBOOK=$1
DATA=$2/ingest
SRC=$3
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not found: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
export SOLBOOK_HOME="$SRC"
unset SOLBOOK_DB || true
T=$(mktemp -d /tmp/sb_e2e_ingest.XXXXXX)
trap 'rm -rf "$T"' EXIT
DB=$T/e2e.db

fail() { echo "FAIL: $*"; exit 1; }
check() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; echo "ok: $1: $3"; }
q() { sqlite3 "$DB" "$1"; }
run() { # run NAME EXPECTED_RC CMD... : stdout in $T/out, stderr in $T/err
    name=$1; want=$2; shift 2
    rc=0
    "$@" >"$T/out" 2>"$T/err" || rc=$?
    [ "$rc" = "$want" ] || { cat "$T/out" "$T/err"; fail "$name: exit status $rc, expected $want"; }
}

# 1. The good files: 8 JSON files in three levels and one sidecar.
run "ingest good" 0 "$SOLBOOK" ingest --db "$DB" "$DATA/good"
check "summary" "ingest: 9 files, 8 stored, 0 duplicates, 0 refused (db $DB); 1 ncu profile attached" "$(tail -n 1 "$T/out")"
check "runs stored" 8 "$(q 'SELECT count(*) FROM runs')"
GEMM="run_uuid = '00112233445566778899aabbccddeeff' AND status = 'passed'"
check "gemm median_ms" 0.203 "$(q "SELECT median_ms FROM metrics JOIN runs ON id = run_id WHERE $GEMM")"
check "gemm samples" "15 [5,5,5]" "$(q "SELECT (length(value_ms) / 8) || ' ' || rep_lengths FROM run_samples JOIN runs ON id = run_id WHERE $GEMM")"
# value_ms packs the samples as little-endian binary64: rep 2, idx 1 is value 5 + 5 + 1.
check "gemm sample rep 2 idx 1" 0.20500000000000002 "$(python3 -c 'import struct,sys; print(struct.unpack("<d", bytes.fromhex(sys.argv[1]))[0])' "$(q "SELECT hex(substr(value_ms, 8 * 11 + 1, 8)) FROM run_samples JOIN runs ON id = run_id WHERE $GEMM")")"
check "gemm ncu time" 1204.32 "$(q "SELECT value FROM profiler_metrics JOIN runs ON id = run_id WHERE $GEMM AND metric = 'gpu__time_duration.sum'")"
check "gemm ncu sm unit" "%" "$(q "SELECT unit FROM profiler_metrics JOIN runs ON id = run_id WHERE $GEMM AND metric = 'sm__throughput.avg.pct_of_peak_sustained_elapsed'")"
check "ceiling bw.copy" 4251.5 "$(q "SELECT value FROM ceilings WHERE name = 'bw.copy'")"
check "training median" 810.625 "$(q 'SELECT median_step_ms FROM training')"
check "a100 shape key" "B=8,H=4096,T=4096" "$(q "SELECT shape_key FROM configs JOIN provenance USING (run_id) WHERE arch = 'a100'")"
check "every run has provenance" 0 "$(q 'SELECT count(*) FROM runs WHERE id NOT IN (SELECT run_id FROM provenance)')"

# runs filters on mode, dtype, suite, shape (names in any order) and params;
# --json carries them, and marks the run the ncu sidecar came from
run "runs filtered" 0 "$SOLBOOK" runs --db "$DB" --json --mode fwd --dtype fp16 --suite gemm-spec --shape N=4096,M=4096,K=4096 --params transa=n,transb=n
check "runs filtered ids" "3 4" "$(python3 -c 'import json,sys; print(" ".join(str(r["id"]) for r in json.load(open(sys.argv[1]))))' "$T/out")"
check "runs json carries suite, params, profiler" "gemm-spec n None" "$(python3 -c 'import json,sys; r=[r for r in json.load(open(sys.argv[1])) if r["status"] == "passed"][0]; print(r["suite"], r["params"]["transb"], r["profiler"])' "$T/out")"
run "runs params miss" 0 "$SOLBOOK" runs --db "$DB" --params transa=t
check "runs params miss" "(no runs match)" "$(tail -n 1 "$T/out")"
run "runs bad params" 2 "$SOLBOOK" runs --db "$DB" --params 'a.b=1'

# 2. Again: every file a duplicate, nothing new.
run "ingest good again" 0 "$SOLBOOK" ingest --db "$DB" "$DATA/good"
check "summary again" "ingest: 9 files, 0 stored, 8 duplicates, 0 refused (db $DB); 1 ncu profile attached" "$(tail -n 1 "$T/out")"
check "duplicate lines" 8 "$(grep -c '^duplicate: ' "$T/out")"
check "runs after duplicates" 8 "$(q 'SELECT count(*) FROM runs')"
check "ncu rows not doubled" 7 "$(q 'SELECT count(*) FROM profiler_metrics')"

# 3. Every bad file refused with one line naming it; nothing stored.
run "ingest bad" 1 "$SOLBOOK" ingest --db "$DB" "$DATA/bad"
check "bad summary" "ingest: 16 files, 0 stored, 0 duplicates, 16 refused (db $DB)" "$(tail -n 1 "$T/out")"
check "one error line per bad file" 16 "$(wc -l <"$T/err" | tr -d ' ')"
check "each line names its file" 16 "$(grep -c "^solbook: $DATA/bad/[a-z_0-9]*\.json: " "$T/err")"
grep -q "^solbook: $DATA/bad/malformed.json: line 7, column [0-9]*: invalid JSON" "$T/err" || fail "malformed: no line:column"
grep -q "^solbook: $DATA/bad/schema_invalid.json: /config/dtype: " "$T/err" || fail "schema error: no JSON pointer"
grep -q "^solbook: $DATA/bad/unknown_schema.json: /schema: unknown schema" "$T/err" || fail "unknown schema"
grep -q "^solbook: $DATA/bad/clock_mismatch.json: /timing/sample_sm_clock_mhz/2: repeat 2 has 4 sample clocks but 5 samples" \
    "$T/err" || fail "sample clocks not parallel to the samples"
echo "ok: bad files named with line:column, JSON pointer, schema"
check "runs after bad" 8 "$(q 'SELECT count(*) FROM runs')"

# 4. --strict: a new good file and a bad one: nothing stored.
python3 "$SRC/perf/gen_results.py" "$T/new" 2 --repeats 2 --iters 3 --seed 7
run "strict" 1 "$SOLBOOK" ingest --db "$DB" --strict "$T/new" "$DATA/bad/nan.json"
grep -q "nothing stored" "$T/err" || fail "strict: no 'nothing stored' line"
check "strict stored nothing" 8 "$(q 'SELECT count(*) FROM runs')"
run "non-strict" 1 "$SOLBOOK" ingest --db "$DB" "$T/new" "$DATA/bad/nan.json"
check "non-strict stored the good ones" 10 "$(q 'SELECT count(*) FROM runs')"

# 5. --ncu --run, and a malformed CSV that stores nothing.
RID=$(q "SELECT id FROM runs WHERE $GEMM")
run "attach ncu" 0 "$SOLBOOK" ingest --db "$DB" --ncu "$DATA/ncu/two_kernels.csv" --run "$RID"
check "ncu rows" 14 "$(q "SELECT count(*) FROM profiler_metrics WHERE run_id = $RID")"
check "ncu kernel 1 dram" 90.84 "$(q "SELECT value FROM profiler_metrics WHERE run_id = $RID AND kernel_index = 1 AND metric = 'gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed'")"
run "attach bad ncu" 1 "$SOLBOOK" ingest --db "$DB" --ncu "$DATA/ncu/bad_field_count.csv" --run "$RID"
check "bad ncu error" "solbook: $DATA/ncu/bad_field_count.csv: line 4 (row 4): 17 cells, the header has 19" "$(cat "$T/err")"
check "ncu rows kept" 14 "$(q "SELECT count(*) FROM profiler_metrics WHERE run_id = $RID")"
run "attach to missing run" 1 "$SOLBOOK" ingest --db "$DB" --ncu "$DATA/ncu/two_kernels.csv" --run 9999
grep -q "no run 9999" "$T/err" || fail "missing run not named"

# 6. runs and show.
run "runs --arch a100" 0 "$SOLBOOK" runs --db "$DB" --arch a100
check "a100 rows (fixture + one generated)" 2 "$(tail -n +2 "$T/out" | wc -l | tr -d ' ')"
grep -q "rmsnorm .*liger .*bf16 .*B=8,H=4096,T=4096" "$T/out" || fail "runs table row"
run "runs --json --op gemm --sha 0123" 0 "$SOLBOOK" runs --db "$DB" --json --op gemm --sha 0123
check "gemm runs at sha 0123..." 3 "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/out")"
check "gemm passed median via runs --json" 0.203 "$(python3 -c 'import json,sys; print([r["median_ms"] for r in json.load(open(sys.argv[1])) if r["status"]=="passed"][0])' "$T/out")"
run "runs --status failed" 0 "$SOLBOOK" runs --db "$DB" --status failed
check "failed rows" 1 "$(tail -n +2 "$T/out" | wc -l | tr -d ' ')"
run "show" 0 "$SOLBOOK" show --db "$DB" "$RID"
grep -q "^  median_ms  *0.203$" "$T/out" || fail "show: median"
grep -q "^  stored  *15 in 3 repeats" "$T/out" || fail "show: samples"
grep -q "gpu__time_duration.sum  *1204.32 usecond" "$T/out" || fail "show: ncu metric"
SHA12=$(q "SELECT substr(content_sha256, 1, 12) FROM runs WHERE id = $RID")
run "show --json by sha prefix" 0 "$SOLBOOK" show --db "$DB" --json "$SHA12"
check "show --json" "15 14 gemm" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["stored_sample_count"], len(d["profiler_metrics"]), d["document"]["config"]["op"])' "$T/out")"
run "show ambiguous run_uuid" 1 "$SOLBOOK" show --db "$DB" 00112233445566778899aabbccddeeff
grep -q "matches runs [0-9]*, [0-9]*; give the run id" "$T/err" || fail "ambiguous RUN"
echo "ok: runs and show"

# 7. A symbolic-link loop is reported once and not followed.
mkdir -p "$T/loop/sub"
cp "$DATA/good/gemm_h100_cublas.json" "$T/loop/sub/a.json"
ln -s .. "$T/loop/sub/up"
run "symlink loop" 1 "$SOLBOOK" ingest --db "$DB" "$T/loop"
check "loop line" "solbook: $T/loop/sub/up: symbolic link loop: this directory contains itself; not followed" "$(cat "$T/err")"
if [ "$(id -u)" != 0 ]; then
    mkdir "$T/locked" && chmod 000 "$T/locked"
    run "unreadable dir" 1 "$SOLBOOK" ingest --db "$DB" "$T/locked"
    grep -q "^solbook: $T/locked: cannot read directory: Permission denied$" "$T/err" || fail "unreadable dir"
    chmod 755 "$T/locked"
    echo "ok: unreadable directory named"
else
    echo "skipped: unreadable-directory check (running as root reads everything)"
fi

# 8. Readers refuse clearly.
run "missing db" 2 "$SOLBOOK" runs --db "$T/none.db"
grep -q "no such database" "$T/err" || fail "missing db message"
cp "$DB" "$T/newer.db"
sqlite3 "$T/newer.db" "PRAGMA user_version = 99"
run "newer db" 2 "$SOLBOOK" runs --db "$T/newer.db"
grep -q "schema version 99 is newer than this solbook" "$T/err" || fail "newer db message"
echo "ok: missing and newer databases refused"

# 9. Two ingests into one new database at the same time lose nothing.
python3 "$SRC/perf/gen_results.py" "$T/c1" 150 --seed 101
python3 "$SRC/perf/gen_results.py" "$T/c2" 150 --seed 202
CDB=$T/concurrent.db
rc1=0; rc2=0
"$SOLBOOK" ingest -q --db "$CDB" "$T/c1" >"$T/c1.out" 2>&1 & p1=$!
"$SOLBOOK" ingest -q --db "$CDB" "$T/c2" >"$T/c2.out" 2>&1 & p2=$!
wait $p1 || rc1=$?
wait $p2 || rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] || { cat "$T/c1.out" "$T/c2.out"; fail "concurrent ingests: exit $rc1 and $rc2"; }
check "concurrent runs" 300 "$(sqlite3 "$CDB" 'SELECT count(*) FROM runs')"
check "concurrent samples" 75000 "$(sqlite3 "$CDB" 'SELECT sum(length(value_ms)) / 8 FROM run_samples')"
check "concurrent integrity" ok "$(sqlite3 "$CDB" 'PRAGMA integrity_check')"

# 10. An ingest killed mid-batch leaves only whole runs.
python3 "$SRC/perf/gen_results.py" "$T/k" 1500 --seed 303
KDB=$T/killed.db
"$SOLBOOK" ingest -q --db "$KDB" "$T/k" >"$T/k.out" 2>&1 & pk=$!
i=0
while [ "$(sqlite3 "$KDB" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)" -lt 100 ] && [ $i -lt 400 ]; do
    sleep 0.05; i=$((i + 1))
done
kill -9 $pk 2>/dev/null || true
wait $pk 2>/dev/null || true
N=$(sqlite3 "$KDB" 'SELECT count(*) FROM runs')
echo "killed after $N of 1500 runs were stored"
[ "$N" -gt 0 ] || fail "kill test: nothing was stored before the kill"
[ "$N" -lt 1500 ] || echo "note: the ingest finished before the kill; the completeness checks still run"
check "killed db integrity" ok "$(sqlite3 "$KDB" 'PRAGMA integrity_check')"
check "runs without provenance/config/metrics/correctness" 0 "$(sqlite3 "$KDB" 'SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM provenance WHERE run_id = r.id) OR NOT EXISTS (SELECT 1 FROM configs WHERE run_id = r.id) OR NOT EXISTS (SELECT 1 FROM metrics WHERE run_id = r.id) OR NOT EXISTS (SELECT 1 FROM correctness WHERE run_id = r.id)')"
check "runs whose stored samples differ from sample_count" 0 "$(sqlite3 "$KDB" 'SELECT count(*) FROM metrics m WHERE m.sample_count != coalesce((SELECT length(value_ms) / 8 FROM run_samples s WHERE s.run_id = m.run_id), 0)')"
run "resume after kill" 0 "$SOLBOOK" ingest -q --db "$KDB" "$T/k"
check "resume summary" "ingest: 1500 files, $((1500 - N)) stored, $N duplicates, 0 refused (db $KDB)" "$(tail -n 1 "$T/out")"
check "runs after resume" 1500 "$(sqlite3 "$KDB" 'SELECT count(*) FROM runs')"
# 11. Archives are read where they lie: a tar.gz's JSON members with their
# ncu sidecar members, a gzipped JSON Lines file line by line; each document
# is its own unit and errors name ARCHIVE:MEMBER.
A=$T/arch
mkdir -p "$A/pack/sub"
python3 "$SRC/perf/gen_results.py" "$A/pack/sub" 3 --seed 404 >/dev/null
cp "$DATA/good/gemm_h100_cublas.json" "$DATA/good/gemm_h100_cublas.ncu.csv" "$A/pack/"
printf '{"schema": "solbook.result.v1"}\n' > "$A/pack/sub/zz-bad.json"
(cd "$A" && tar czf results.tar.gz pack)
python3 - "$A/pack/sub" "$A/lines.jsonl" <<'PY'
import glob, json, sys
docs = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/*.json")) if "bad" not in f]
for d in docs:
    d["run_uuid"] = "f" * 32 if d is docs[0] else "e" * 32
with open(sys.argv[2], "w") as f:
    f.write(json.dumps(docs[0]) + "\n\n" + json.dumps(docs[1]) + "\n{\"broken\": \n")
PY
gzip "$A/lines.jsonl"
ADB=$T/archives.db
run "ingest archives" 1 "$SOLBOOK" ingest --db "$ADB" "$A/results.tar.gz" "$A/lines.jsonl.gz"
check "archive summary" "ingest: 9 files, 6 stored, 0 duplicates, 2 refused (db $ADB); 1 ncu profile attached" "$(tail -n 1 "$T/out")"
check "archive member source" "$A/results.tar.gz:pack/gemm_h100_cublas.json" "$(sqlite3 "$ADB" "SELECT source_path FROM runs WHERE run_uuid = '00112233445566778899aabbccddeeff'")"
check "archive sidecar attached" "$A/results.tar.gz:pack/gemm_h100_cublas.ncu.csv" "$(sqlite3 "$ADB" 'SELECT DISTINCT source_path FROM profiler_metrics')"
check "timed run beside a separate profile not marked" "" "$(sqlite3 "$ADB" "SELECT profiler FROM configs JOIN runs ON id = run_id WHERE run_uuid = '00112233445566778899aabbccddeeff'")"
check "jsonl lines stored" "$A/lines.jsonl.gz:1 $A/lines.jsonl.gz:3" "$(sqlite3 "$ADB" "SELECT group_concat(source_path, ' ') FROM (SELECT source_path FROM runs WHERE source_path LIKE '%jsonl.gz:%' ORDER BY id)")"
grep -q "^solbook: $A/results.tar.gz:pack/sub/zz-bad.json: " "$T/err" || { cat "$T/err"; fail "bad member not named ARCHIVE:MEMBER"; }
grep -q "^solbook: $A/lines.jsonl.gz:4: " "$T/err" || { cat "$T/err"; fail "bad line not named ARCHIVE:LINE"; }
echo "ok: bad members named ARCHIVE:MEMBER"
run "ingest archives again" 1 "$SOLBOOK" ingest -q --db "$ADB" "$A/results.tar.gz" "$A/lines.jsonl.gz"
check "archives again" "ingest: 9 files, 0 stored, 6 duplicates, 2 refused (db $ADB); 1 ncu profile attached" "$(tail -n 1 "$T/out")"
# A directory walk takes archives too; a damaged one keeps what came before the damage.
mkdir -p "$A/walk"
head -c 2000 "$A/results.tar.gz" > "$A/walk/cut.tar.gz"
run "damaged archive" 1 "$SOLBOOK" ingest --db "$T/damaged.db" "$A/walk"
grep -q "^solbook: $A/walk/cut.tar.gz" "$T/err" || { cat "$T/err"; fail "damaged archive not named"; }
echo "ok: damaged archive named: $(head -n 1 "$T/err")"
# A .tar.gz is inflated whole when it can be (libdeflate) and streamed by
# libarchive otherwise: the same members must come out either way. The tar
# of 40 results gzipped in two members (gzip allows concatenation; the
# trailer then gives the last member's size only), a plain tar named
# .tar.gz, and the two-member file cut in its second member, which keeps
# the members before the cut and names the archive.
mkdir -p "$A/forty/res"
python3 "$SRC/perf/gen_results.py" "$A/forty/res" 40 --seed 405 >/dev/null
(cd "$A/forty" && tar cf plain.tar res)
python3 - "$A/forty/plain.tar" "$A/two-members.tar.gz" "$A/cut-second.tar.gz" <<'PY'
import gzip, sys
tar = open(sys.argv[1], "rb").read()
half = len(tar) // 2
first = gzip.compress(tar[:half])
two = first + gzip.compress(tar[half:])
open(sys.argv[2], "wb").write(two)
open(sys.argv[3], "wb").write(two[: len(first) + (len(two) - len(first)) // 2])
PY
cp "$A/forty/plain.tar" "$A/not-gzip.tar.gz"
run "two gzip members" 0 "$SOLBOOK" ingest -q --db "$T/two.db" "$A/two-members.tar.gz"
check "two gzip members stored" 40 "$(sqlite3 "$T/two.db" 'SELECT count(*) FROM runs')"
run "plain tar named .tar.gz" 0 "$SOLBOOK" ingest -q --db "$T/plain.db" "$A/not-gzip.tar.gz"
ids_and_content() { sqlite3 "$1" 'SELECT id, content_sha256 FROM runs ORDER BY id' | sha256sum | cut -c1-16; }
check "same runs, same ids from both" "$(ids_and_content "$T/two.db")" "$(ids_and_content "$T/plain.db")"
run "cut in the second member" 1 "$SOLBOOK" ingest -q --db "$T/cut2.db" "$A/cut-second.tar.gz"
grep -q "^solbook: $A/cut-second.tar.gz" "$T/err" || { cat "$T/err"; fail "archive cut in its second member not named"; }
KEPT=$(sqlite3 "$T/cut2.db" 'SELECT count(*) FROM runs')
[ "$KEPT" -ge 15 ] && [ "$KEPT" -lt 40 ] || fail "archive cut in its second member kept $KEPT runs (want the 15 or more before the cut)"
echo "ok: an archive cut in its second member kept $KEPT of 40 runs"
# An archive without a single result file stores nothing and refuses nothing.
mkdir -p "$A/none" && echo "no results here" > "$A/none/README"
(cd "$A" && tar czf none.tar.gz none)
run "archive without results" 0 "$SOLBOOK" ingest --db "$T/none.db" "$A/none.tar.gz"
check "archive without results" "ingest: 0 files, 0 stored, 0 duplicates, 0 refused (db $T/none.db)" "$(tail -n 1 "$T/out")"
# An archive bomb (members of zeros, a thousand times smaller packed) is
# refused on the bytes inflated, before memory grows past the bounds: one
# line naming ARCHIVE:MEMBER, nothing stored, the peak RSS measured. A
# NAME.json member meets the bound on a result document first (1 MiB by
# default); with that raised, the member bound.
python3 - "$A" <<'PY'
import gzip, io, sys, tarfile
def pack(path, members):
    with gzip.open(path, "wb", compresslevel=9) as g:
        with tarfile.open(fileobj=g, mode="w") as t:
            for name, size in members:
                info = tarfile.TarInfo(name)
                info.size = size
                t.addfile(info, ZeroReader(size))
class ZeroReader(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.n); b[:k] = bytes(k); self.n -= k; return k
pack(sys.argv[1] + "/bomb.tar.gz", [("pack/bomb.json", 300 << 20)])
pack(sys.argv[1] + "/many.tar.gz", [("pack/m%d.json" % i, 4 << 20) for i in range(1, 7)])
PY
rss() { # rss NAME EXPECTED_RC CMD...: as run, the peak RSS in KiB in $RSS ("" without /usr/bin/time)
    name=$1; want=$2; shift 2
    if [ -x /usr/bin/time ]; then
        run "$name" "$want" /usr/bin/time -f "maxrss %M" -o "$T/rss" "$@"
        RSS=$(sed -n 's/^maxrss //p' "$T/rss")
    else
        run "$name" "$want" "$@"
        RSS=
    fi
}
under() { # under NAME KIB: the RSS of the last rss call below KIB
    [ -z "$RSS" ] && { echo "note: /usr/bin/time not found: $1 peak RSS not measured"; return; }
    [ "$RSS" -lt "$2" ] || fail "$1: peak RSS $RSS KiB, expected under $2 KiB"
    echo "ok: $1: peak RSS $RSS KiB (under $2 KiB)"
}
echo "bomb.tar.gz: $(wc -c < "$A/bomb.tar.gz") bytes packed, 300 MiB of zeros inside"
rss "archive bomb, default bounds" 1 "$SOLBOOK" ingest --db "$T/bomb.db" "$A/bomb.tar.gz"
check "bomb refused in one line" "solbook: $A/bomb.tar.gz:pack/bomb.json: result document more than 1048576 bytes (1 MiB) inflated: refused" "$(cat "$T/err")"
check "bomb summary" "ingest: 1 files, 0 stored, 0 duplicates, 1 refused (db $T/bomb.db)" "$(tail -n 1 "$T/out")"
under "archive bomb, default bounds" 131072
rss "archive bomb, --max-member-mb 8" 1 "$SOLBOOK" ingest --db "$T/bomb.db" --max-doc-mb 64 --max-member-mb 8 "$A/bomb.tar.gz"
check "bomb past --max-member-mb" "solbook: $A/bomb.tar.gz:pack/bomb.json: member more than 8388608 bytes (8 MiB) inflated: refused" "$(cat "$T/err")"
under "archive bomb, --max-member-mb 8" 131072
# Six members of 4 MiB, each within the member bound, pass 16 MiB held
# together at the fourth (four members' bytes fill the bound exactly, and
# their names are held too); nothing from the archive is stored.
rss "members past --max-held-mb" 1 "$SOLBOOK" ingest --db "$T/bomb.db" --max-doc-mb 8 --max-held-mb 16 "$A/many.tar.gz"
check "held bound names the member" "solbook: $A/many.tar.gz:pack/m4.json: members held together more than 16777216 bytes (16 MiB) inflated: refused" "$(cat "$T/err")"
check "nothing stored from a refused archive" 0 "$(sqlite3 "$T/bomb.db" 'SELECT count(*) FROM runs')"
under "members past --max-held-mb" 98304
# A JSON Lines line is a member too: one past the bound is refused as it
# grows, after the lines before it.
python3 -c 'import gzip, sys; g = gzip.open(sys.argv[1], "wb"); g.write(b"{}\n"); g.write(b" " * (3 << 20)); g.write(b"\n"); g.close()' "$A/long.jsonl.gz"
run "long JSON Lines line" 1 "$SOLBOOK" ingest --db "$T/bomb.db" --max-doc-mb 4 --max-member-mb 2 "$A/long.jsonl.gz"
grep -q "^solbook: $A/long.jsonl.gz:2: line more than 2097152 bytes (2 MiB) inflated: refused$" "$T/err" || { cat "$T/err"; fail "long JSON Lines line not refused at its bound"; }
echo "ok: long JSON Lines line refused: $(grep long.jsonl.gz:2 "$T/err")"
run "bad bound" 2 "$SOLBOOK" ingest --db "$T/bomb.db" --max-member-mb 0 "$A/many.tar.gz"
# Archives are read while the database opens: a database that cannot be
# opened stops the reading, says so in one line and writes nothing.
run "database that cannot be opened" 2 "$SOLBOOK" ingest --db "$T/no-such-dir/x.db" "$A/forty/res" "$A/two-members.tar.gz"
check "one line naming the database" "solbook: $T/no-such-dir/x.db: cannot open the database: unable to open database file" "$(cat "$T/err")"
[ ! -e "$T/no-such-dir" ] || fail "a database that cannot be opened left $T/no-such-dir"
# Nsight Systems' per-kernel summary attaches to a run; the times come
# back in ms, exact; a bad file is named with its line and stores nothing.
GID=$(q "SELECT id FROM runs WHERE $GEMM")
run "attach nsys summary" 0 "$SOLBOOK" ingest --db "$DB" --nsys "$DATA/nsys/kern_sum.csv" --run "$GID"
check "nsys attach line" "nsys: $DATA/nsys/kern_sum.csv: 3 kernels attached to run $GID" "$(head -n 1 "$T/out")"
check "nsys summary" "ingest: 1 files, 0 stored, 0 duplicates, 0 refused (db $DB); 1 nsys kernel summary attached" "$(tail -n 1 "$T/out")"
check "nsys rows" "0|250|5.003017|0.0200121|71.4 1|500|1.800123|0.0036002|25.7 2|1|0.203456|0.203456|2.9" \
    "$(q "SELECT group_concat(kernel_index || '|' || instances || '|' || total_ms || '|' || avg_ms || '|' || time_pct, ' ') FROM (SELECT * FROM kernel_summaries WHERE run_id = $GID ORDER BY kernel_index)")"
check "nsys leaves the run a timing" "" "$(q "SELECT profiler FROM configs WHERE run_id = $GID")"
check "nsys keeps the ncu profile" 1 "$(q "SELECT count(*) > 0 FROM profiler_metrics WHERE run_id = $GID")"
run "bad nsys summary" 1 "$SOLBOOK" ingest --db "$DB" --nsys "$DATA/nsys/bad_instances.csv" --run "$GID"
check "bad nsys line" "solbook: $DATA/nsys/bad_instances.csv: line 3: \"Instances\" two is not a non-negative number" "$(cat "$T/err")"
check "bad nsys stored nothing" 3 "$(q "SELECT count(*) FROM kernel_summaries WHERE run_id = $GID")"
run "nsys without run" 2 "$SOLBOOK" ingest --db "$DB" --nsys "$DATA/nsys/kern_sum.csv"
# As a sidecar: NAME.nsys.csv next to NAME.json, in a directory or an archive.
NS=$T/nsys
mkdir -p "$NS/dir" "$NS/pack"
cp "$DATA/good/gemm_h100_cublas.json" "$NS/dir/g.json"
cp "$DATA/nsys/kern_sum.csv" "$NS/dir/g.nsys.csv"
cp "$DATA/good/gemm_h100_cublas.json" "$NS/pack/g.json"
cp "$DATA/good/gemm_h100_cublas.ncu.csv" "$NS/pack/g.ncu.csv"
cp "$DATA/nsys/kern_sum.csv" "$NS/pack/g.nsys.csv"
(cd "$NS" && tar czf pack.tar.gz pack)
run "nsys sidecar in a directory" 0 "$SOLBOOK" ingest --db "$NS/dir.db" "$NS/dir"
check "nsys sidecar summary" "ingest: 2 files, 1 stored, 0 duplicates, 0 refused (db $NS/dir.db); 1 nsys kernel summary attached" "$(tail -n 1 "$T/out")"
check "nsys sidecar rows" "3 $NS/dir/g.nsys.csv 5.003017" "$(sqlite3 "$NS/dir.db" "SELECT count(*) || ' ' || min(source_path) || ' ' || max(total_ms) FROM kernel_summaries")"
run "nsys sidecar in an archive" 0 "$SOLBOOK" ingest --db "$NS/pack.db" "$NS/pack.tar.gz"
check "archive sidecars summary" "ingest: 3 files, 1 stored, 0 duplicates, 0 refused (db $NS/pack.db); 1 ncu profile attached; 1 nsys kernel summary attached" "$(tail -n 1 "$T/out")"
check "archive nsys member" "3 $NS/pack.tar.gz:pack/g.nsys.csv" "$(sqlite3 "$NS/pack.db" "SELECT count(*) || ' ' || min(source_path) FROM kernel_summaries")"
# A document and its sidecars are stored together or not at all: a
# sidecar that cannot be stored refuses its document, as one over its size
# bound does, in one line naming the sidecar, with neither the run nor a
# row of any of its sidecars stored.
stored() { # stored DB: "RUNS NCU_ROWS NSYS_ROWS"
    sqlite3 "$1" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM profiler_metrics) || ' ' ||
                         (SELECT count(*) FROM kernel_summaries)"
}
cp "$DATA/nsys/bad_instances.csv" "$NS/dir/g.nsys.csv"
run "bad nsys sidecar" 1 "$SOLBOOK" ingest --db "$NS/bad.db" "$NS/dir"
check "bad nsys sidecar named" "solbook: $NS/dir/g.nsys.csv: line 3: \"Instances\" two is not a non-negative number: refused with its document" "$(cat "$T/err")"
check "bad nsys sidecar summary" "ingest: 1 files, 0 stored, 0 duplicates, 1 refused (db $NS/bad.db)" "$(tail -n 1 "$T/out")"
check "bad nsys sidecar: nothing stored" "0 0 0" "$(stored "$NS/bad.db")"
# a good ncu sidecar and a bad nsys one in an archive: the ncu rows go too
cp "$DATA/nsys/bad_instances.csv" "$NS/pack/g.nsys.csv"
(cd "$NS" && tar czf pack-bad.tar.gz pack)
run "bad nsys member" 1 "$SOLBOOK" ingest --db "$NS/bad-pack.db" "$NS/pack-bad.tar.gz"
check "bad nsys member named" "solbook: $NS/pack-bad.tar.gz:pack/g.nsys.csv: line 3: \"Instances\" two is not a non-negative number: refused with its document" "$(cat "$T/err")"
check "bad nsys member: nothing stored" "0 0 0" "$(stored "$NS/bad-pack.db")"
# a malformed ncu sidecar beside its document
rm "$NS/dir/g.nsys.csv"
cp "$DATA/ncu/bad_field_count.csv" "$NS/dir/g.ncu.csv"
run "bad ncu sidecar" 1 "$SOLBOOK" ingest --db "$NS/bad-ncu.db" "$NS/dir"
check "bad ncu sidecar named" "solbook: $NS/dir/g.ncu.csv: line 4 (row 4): 17 cells, the header has 19: refused with its document" "$(cat "$T/err")"
check "bad ncu sidecar: nothing stored" "0 0 0" "$(stored "$NS/bad-ncu.db")"
# the same rule over the size bound
head -c 1100000 /dev/zero | tr '\0' x >"$NS/dir/g.ncu.csv"
run "oversized ncu sidecar" 1 "$SOLBOOK" ingest --db "$NS/big.db" --max-sidecar-mb 1 "$NS/dir"
check "oversized ncu sidecar named" "solbook: $NS/dir/g.ncu.csv: Nsight Compute sidecar more than 1048576 bytes (1 MiB): refused" "$(cat "$T/err")"
check "oversized ncu sidecar: nothing stored" "0 0 0" "$(stored "$NS/big.db")"
# a document stored before keeps its run and its earlier profile
cp "$DATA/nsys/kern_sum.csv" "$NS/dir/g.nsys.csv"
rm "$NS/dir/g.ncu.csv"
run "stored with its summary" 0 "$SOLBOOK" ingest --db "$NS/again.db" "$NS/dir"
cp "$DATA/nsys/bad_instances.csv" "$NS/dir/g.nsys.csv"
run "again with a bad summary" 1 "$SOLBOOK" ingest --db "$NS/again.db" "$NS/dir"
check "again: refused in one line" "solbook: $NS/dir/g.nsys.csv: line 3: \"Instances\" two is not a non-negative number: refused with its document" "$(cat "$T/err")"
check "again: the run and its summary kept" "1 0 3" "$(stored "$NS/again.db")"
# 12. Imports take the commit (and branch) they were measured at.
IDB=$T/import.db
SHA=0123456789abcdef0123456789abcdef01234567
run "import with commit" 0 "$SOLBOOK" ingest --db "$IDB" --format liger-csv --commit $SHA --branch main "$2/import/liger_basic.csv"
check "imported commit" "$SHA main" "$(sqlite3 "$IDB" 'SELECT DISTINCT git_sha || " " || git_branch FROM provenance')"
check "imported commit in the document" "$SHA" "$(sqlite3 "$IDB" "SELECT DISTINCT json_extract(raw_json, '$.provenance.git.sha') FROM runs")"
run "commit without format" 2 "$SOLBOOK" ingest --db "$IDB" --commit $SHA "$DATA/good"
run "short commit" 2 "$SOLBOOK" ingest --db "$IDB" --format liger-csv --commit 0123abc "$2/import/liger_basic.csv"
run "branch without commit" 2 "$SOLBOOK" ingest --db "$IDB" --format liger-csv --branch main "$2/import/liger_basic.csv"
# A Triton perf_report CSV says neither unit nor statistic: the command line does.
TP="$2/import/triton_perf/softmax-performance.csv"
run "perf_report without unit" 1 "$SOLBOOK" ingest --db "$IDB" --format triton-perf-csv "$TP"
grep -q "give --y-unit" "$T/err" || { cat "$T/err"; fail "perf_report import without --y-unit not refused"; }
run "perf_report units elsewhere" 2 "$SOLBOOK" ingest --db "$IDB" --format liger-csv --y-unit ms "$2/import/liger_basic.csv"
run "perf_report import" 0 "$SOLBOOK" ingest --db "$IDB" --format triton-perf-csv --y-unit ms --y-stat median "$TP"
check "perf_report runs" "import: $TP: triton-perf-csv, 4 rows, 7 runs (7 stored, 0 already there, 0 skipped)" "$(head -n 1 "$T/out")"
check "perf_report figure" "0.110592" "$(sqlite3 "$IDB" "SELECT median_ms FROM metrics JOIN configs USING (run_id) WHERE op = 'softmax-performance' AND provider = 'triton' AND shape_key = 'N=8192'")"
echo "e2e_ingest: all checks passed"

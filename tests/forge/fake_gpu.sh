#!/bin/sh
# fake_gpu.sh SOLBOOK - forge's GPU steps on a machine without one: nvcc is
# replaced by fake_nvcc.sh (SOLBOOK_NVCC) and the GPU gate forced open
# (SOLBOOK_FORGE_GPU=1), so the sandboxed test and bench runs, their
# timeouts, the harness invocation, ingest and promotion run for real around
# programs whose behaviour is known. The measurements are made up by the
# fake program and live only in this test's temporary folder.
set -eu
SOLBOOK=$1
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
EXAMPLE=$SRC/examples/forge/rmsnorm_bf16
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sb-forge-fakegpu-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export SOLBOOK_DB="$WORK/solbook.db" SOLBOOK_NVCC="$HERE/fake_nvcc.sh" SOLBOOK_FORGE_GPU=1
cd "$WORK"

fail() { echo "FAIL: $*"; exit 1; }

# new_run ID MODE [task options]: the example with "// FAKE_NVCC: MODE" appended to kernel.cu.
new_run() {
    id=$1; mode=$2; shift 2
    "$SOLBOOK" forge task --op rmsnorm --sku h100-sxm5-80gb --dtype bf16 --shape M=4096,N=4096 \
        --shape M=8192,N=4096 --objective latency --root runs --id "$id" \
        --reference "$EXAMPLE/reference.cu" "$@" >/dev/null 2>&1 || fail "task $id"
    cp -r "$EXAMPLE" "runs/$id/candidate"
    [ -z "$mode" ] || echo "// FAKE_NVCC: $mode" >>"runs/$id/candidate/kernel.cu"
}

expect() {
    want=$1; pattern=$2; shift 2
    set +e
    "$@" >out.txt 2>&1
    got=$?
    set -e
    [ "$got" = "$want" ] || { cat out.txt; fail "$* exited $got, expected $want"; }
    grep -qF -- "$pattern" out.txt || { cat out.txt; fail "$*: output lacks '$pattern'"; }
    echo "ok: $* -> exit $got, '$pattern'"
}

new_run good ""
expect 0 'test      passed   correctness test passed in' "$SOLBOOK" forge verify runs/good
expect 0 'M=8192,N=4096                candidate passed 0.0201 ms, eager-reference passed 0.0602 ms, speedup 3.000x' \
    "$SOLBOOK" forge bench runs/good
grep -qF '"verdict": "passed"' runs/good/bench.json || fail "bench.json verdict"
# The isolation each step ran under is recorded with its evidence: confined
# (seccomp, Landlock, pid and network namespaces) where the kernel allows,
# else bubblewrap.
# Nested user namespaces are refused by seccomp, or by bwrap's
# --disable-userns where this bwrap has it (0.8.0 or later, not setuid).
if SOLBOOK_FORGE_SANDBOX=confined "$SOLBOOK" forge verify runs/good >/dev/null 2>&1; then
    iso=confined; conf=seccomp+landlock+pidns+netns; userns="refused (seccomp)"
elif bwrap --unshare-all --unshare-user --disable-userns --ro-bind / / true >/dev/null 2>&1; then
    iso=bubblewrap; conf=bubblewrap:pidns+netns+mountns+nouserns; userns="refused (bwrap --disable-userns)"
else
    iso=bubblewrap; conf=bubblewrap:pidns+netns+mountns; userns="not refused"
fi
"$SOLBOOK" forge verify runs/good >/dev/null 2>&1 || fail "verify again"
for f in verify bench; do
    grep -qF "\"isolation\": \"$iso\"" runs/good/$f.json || fail "$f.json does not record isolation $iso"
    grep -qF "\"confinement\": \"$conf\"" runs/good/$f.json || fail "$f.json does not record confinement $conf"
    grep -qF "\"nested_userns\": \"$userns\"" runs/good/$f.json || fail "$f.json does not record nested_userns $userns"
done
echo "ok: verify.json and bench.json record the sandbox: $iso ($conf, nested user namespaces $userns)"
expect 2 'SOLBOOK_FORGE_SANDBOX=rlimits runs a candidate unconfined: refused without --unsafe-no-sandbox' \
    env SOLBOOK_FORGE_SANDBOX=rlimits "$SOLBOOK" forge verify runs/good
SOLBOOK_FORGE_SANDBOX=rlimits "$SOLBOOK" forge verify --unsafe-no-sandbox runs/good >/dev/null 2>&1 ||
    fail "verify --unsafe-no-sandbox under rlimits"
grep -qF '"confinement": "none (rlimits only)"' runs/good/verify.json ||
    fail "verify.json does not record the unconfined run"
echo "ok: SOLBOOK_FORGE_SANDBOX=rlimits runs only with --unsafe-no-sandbox and is recorded as unconfined"
"$SOLBOOK" forge verify runs/good >/dev/null 2>&1 || fail "verify once more"
[ -f runs/good/results/case1-candidate.json ] || fail "result files"
expect 0 'promote: cuda_rmsnorm_h100-sxm5-80gb_bf16_m4096n4096+m8192n4096_v1' "$SOLBOOK" forge promote runs/good --registry reg
grep -qF '"kernel_id": "cuda_rmsnorm_h100-sxm5-80gb_bf16_m4096n4096+m8192n4096_v1"' reg/verified_kernels.json || fail "registry export"

new_run hang hang --test-timeout 2
expect 1 'test      failed   correctness test timed out after 2 s, process group killed' "$SOLBOOK" forge verify runs/hang

new_run wrong fail
expect 1 'correctness test exit 1 in' "$SOLBOOK" forge verify runs/wrong
grep -qF 'M=3 N=7: FAIL max_abs_err=0.5' out.txt || fail "the test's own message is not shown"

# The disk and task bounds: a test taking 4000 MiB by fallocate gets 64 MiB of
# tmpfs and the host's disk none of it; a fork bomb gets 300 tasks, and none
# of its processes outlives verify.
new_run fill disk-fill
free_before=$(df -Pk . | awk 'NR==2 {print $4}')
expect 1 "stopped by the disk bound (its folder's tmpfs of 64 MiB full)" \
    "$SOLBOOK" forge verify --disk-limit-mb 64 runs/fill
free_after=$(df -Pk . | awk 'NR==2 {print $4}')
grep -qF '"disk_mb": 64' runs/fill/verify.json || fail "verify.json does not record the disk bound"
grep -qF 'tmpfs of 64 MiB' runs/fill/verify.json || fail "verify.json does not say what held the disk bound"
# Other work on the machine moves the free space too; 1000 MiB would not hide in 256.
[ $((free_before - free_after)) -lt 262144 ] || fail "the host lost $((free_before - free_after)) KiB of disk"
echo "ok: disk bound: host free space changed by $((free_after - free_before)) KiB"
new_run bomb fork-bomb
expect 1 'stopped by the process bound (300 tasks at once)' "$SOLBOOK" forge verify --max-tasks 300 runs/bomb
grep -qF '"max_tasks": 300' runs/bomb/verify.json || fail "verify.json does not record the task bound"
made=$(grep -o 'made [0-9]*' runs/bomb/logs/test.stderr | cut -d' ' -f2)
[ "$made" -lt 300 ] || fail "the fork bomb made $made processes"
left=0
for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null)" = fake-fork-bomb ] && left=$((left + 1))
done
[ "$left" = 0 ] || fail "$left fork bomb processes outlived verify"
echo "ok: task bound: the fork bomb made $made processes, none left after verify"
expect 2 '--max-tasks: expected an integer from 300 to 100000' "$SOLBOOK" forge verify --max-tasks 10 runs/bomb

new_run broken compile-error
expect 1 'kernel.cu(12): error: identifier "oops" is undefined' "$SOLBOOK" forge verify runs/broken

new_run slow ms=0.09,0.06
expect 0 'verify: passed' "$SOLBOOK" forge verify runs/slow
expect 1 'is below the required 1.10x' "$SOLBOOK" forge bench runs/slow
expect 1 'promote: refused: ' "$SOLBOOK" forge promote runs/slow --registry reg

# A patched timer (or an output served from a cache) reports a time the
# card cannot reach: 2 us for 67 MB, under the 20 us HBM floor.
new_run timer ms=0.002,0.06
expect 0 'verify: passed' "$SOLBOOK" forge verify runs/timer
expect 1 'is below the roofline floor 0.02003 ms of its op on h100-sxm5-80gb' "$SOLBOOK" forge bench runs/timer
grep -qF '"roofline_floor_ms": 0.0200' runs/timer/bench.json || fail "bench.json does not record the roofline floor"
expect 1 'promote: refused: ' "$SOLBOOK" forge promote runs/timer --registry reg

new_run stuck bench-hang --bench-timeout 2
expect 0 'verify: passed' "$SOLBOOK" forge verify runs/stuck
expect 1 'bench harness timed out after 2 s, process group killed' "$SOLBOOK" forge bench runs/stuck

new_run silent bench-silent
expect 0 'verify: passed' "$SOLBOOK" forge verify runs/silent
expect 1 'bench harness exited 0 without writing its output' "$SOLBOOK" forge bench runs/silent

[ "$(grep -c '"kernel_id"' reg/verified_kernels.json)" = 1 ] || fail "only the good run may be promoted"

# A candidate's text reaches the terminal through verify's gate lines (the
# metadata's author, a finding's quoted source line) and forge list (the
# author, as text and as JSON): an ESC sequence or a bidi override in it
# must be printed visibly, never raw.
new_run esc ""
python3 - runs/esc/candidate/metadata.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["author"] = "eve \x1b[2J\x1b]8;;http://evil.example\x07x\x1b]8;;\x07 verify: passed \u202e"
json.dump(m, open(sys.argv[1], "w"))
PY
expect 0 'author eve \e[2J\e]8;;http://evil.example\x07x' "$SOLBOOK" forge verify runs/esc
! grep -q "$(printf '\033')" out.txt || fail "verify printed a raw ESC from metadata.json"
expect 0 'bench: passed' "$SOLBOOK" forge bench runs/esc --db esc.db
expect 0 'promote: ' "$SOLBOOK" forge promote runs/esc --db esc.db --registry reg-esc
expect 0 'eve \e[2J' "$SOLBOOK" forge list --db esc.db
! grep -q "$(printf '\033')" out.txt || fail "forge list printed a raw ESC from the author"
# --json too, as runs --json and show --json: every byte ASCII, a bidi
# override as \u202E
expect 0 'verify: passed \u202E' "$SOLBOOK" forge list --db esc.db --json
! LC_ALL=C grep -q "[^[:print:][:space:]]" out.txt || fail "forge list --json printed a control or non-ASCII byte raw"
new_run escsrc ""
printf 'static int f(void) { return system("\033[2J"); }\n' >>runs/escsrc/candidate/kernel.cu
expect 1 'process: system' "$SOLBOOK" forge verify runs/escsrc
! grep -q "$(printf '\033')" out.txt || fail "verify printed a raw ESC from a finding's source line"
echo "checked: sandboxed test and bench runs (pass, fail, hang killed at 2 s, disk filler and fork bomb stopped by their bounds, compile error, slower, faster than the roofline floor, stuck bench, silent bench) and the promotion of the good run, with nvcc and the GPU faked"

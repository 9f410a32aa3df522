#!/bin/sh
# hostile.sh SOLBOOK MODE - the forge CLI on the hostile candidates of
# tests/data/forge/ and on the RMSNorm example.
#   cpu      refusals that need no GPU and no nvcc: shell, writes outside,
#            a replaced CUDA timer, invalid metadata (verify exits 1 naming file:line), and promote
#            refusing what was not verified
#   gpu      the never-ending, wrong-answer, slower, cached-output and
#            skipped-work candidates actually running, and the example
#            promoted (exit 77 without a GPU)
#   compile  the example through verify on a machine without a GPU: the
#            compile gate passes and verify exits 3 (exit 77 without nvcc,
#            or without bubblewrap where SOLBOOK_FORGE_SANDBOX=bubblewrap)
set -eu
SOLBOOK=$1
MODE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
EXAMPLE=$SRC/examples/forge/rmsnorm_bf16
DATA=$SRC/tests/data/forge
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sb-forge-hostile-XXXXXX")
# HOSTILE_KEEP=DIR keeps the run folders (verify.json, bench.json, the raw
# harness output) there as evidence.
trap 'if [ -n "${HOSTILE_KEEP:-}" ] && [ -d "$WORK/runs" ]; then cp -r "$WORK/runs" "$HOSTILE_KEEP/"; fi; rm -rf "$WORK"' EXIT
export SOLBOOK_DB="$WORK/solbook.db"
cd "$WORK"

fail() { echo "FAIL: $*"; exit 1; }

# new_run ID OVERLAY [task options]: a run whose candidate is the example
# with OVERLAY's files over it.
SKU=h100-sxm5-80gb
new_run() {
    id=$1; overlay=$2; shift 2
    "$SOLBOOK" forge task --op rmsnorm --sku "$SKU" --dtype bf16 --shape M=4096,N=4096 \
        --objective latency --root runs --id "$id" "$@" >/dev/null 2>&1 || fail "task $id"
    cp -r "$EXAMPLE" "runs/$id/candidate"
    if [ -n "$overlay" ]; then cp "$DATA/$overlay"/* "runs/$id/candidate/"; fi
}

# expect STATUS PATTERN CMD...: runs CMD, checks its exit status and that
# its output contains PATTERN (fixed string).
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

have_gpu() { [ -e /dev/nvidiactl ] && ls /dev/nvidia[0-9]* >/dev/null 2>&1; }

case $MODE in
cpu)
    new_run shell shell_spawn
    expect 1 'kernel.cu:20: process: system: system("sh -c' "$SOLBOOK" forge verify runs/shell
    grep -qF 'kernel.cu:21: process: popen' out.txt || fail "popen finding missing"
    grep -qF 'shell: string names a shell' out.txt || fail "shell finding missing"
    grep -qF 'compile   not-run' out.txt || fail "compile ran after a scan refusal"
    expect 1 'verification did not pass (verdict '"'"'refused'"'"')' "$SOLBOOK" forge bench runs/shell
    expect 1 'promote: refused' "$SOLBOOK" forge promote runs/shell --registry reg

    new_run outside writes_outside
    expect 1 'test.cu:11: file-path: fopen("/tmp/solbook-forge-escape.txt"): absolute path' "$SOLBOOK" forge verify runs/outside
    grep -qF 'test.cu:16: file-path: fopen("../../escape.txt"): path with ..' out.txt || fail ".. finding missing"
    grep -qF 'test.cu:22: file-path: fopen(...) with a path that is not a string literal' out.txt || fail "computed path finding missing"
    [ ! -e /tmp/solbook-forge-escape.txt ] || fail "a refused candidate wrote outside its folder"

    new_run badmeta bad_metadata
    expect 1 'metadata  failed' "$SOLBOOK" forge verify runs/badmeta
    grep -qF 'candidate/metadata.json' out.txt || fail "metadata error does not name the file"
    grep -qF 'verdict": "refused"' runs/badmeta/verify.json || fail "verify.json verdict"

    expect 1 'promote: refused: ' "$SOLBOOK" forge promote runs/badmeta --registry reg
    grep -qF 'verification did not pass' out.txt || fail "promote reason"
    [ ! -e reg/verified_kernels.json ] || fail "something was promoted"
    new_run faketimer fake_timer
    expect 1 'kernel.cu:15: interpose: defines cudaEventElapsedTime(), a name of the CUDA runtime or the forge harness' "$SOLBOOK" forge verify runs/faketimer

    expect 2 "no such forge run" "$SOLBOOK" forge verify nosuchrun --root runs
    expect 2 "--objective must be latency or memory" "$SOLBOOK" forge task --op x --sku h100-sxm5-80gb --dtype bf16 --shape M=1 --objective speed
    echo "checked: shell, writes-outside, fake-timer and invalid-metadata candidates refused with file:line reasons; nothing promoted"
    ;;
gpu)
    have_gpu || { echo "no NVIDIA GPU here: the running hostile candidates are skipped"; exit 77; }
    # the task targets the card it runs on (bench refuses another SKU)
    SKU=$("$SOLBOOK" collect | sed -n 's/^    "sku": "\([^"]*\)",*$/\1/p' | head -1)
    [ -n "$SKU" ] && [ "$SKU" != unknown ] || fail "cannot tell this card's SKU from solbook collect"
    new_run spin never_ends --test-timeout 10
    expect 1 'timed out after 10 s, process group killed' "$SOLBOOK" forge verify runs/spin
    new_run wrong wrong_answer
    expect 1 'test      failed' "$SOLBOOK" forge verify runs/wrong
    new_run slow slower
    expect 0 'verify: passed' "$SOLBOOK" forge verify runs/slow
    expect 1 'is below the required 1.10x' "$SOLBOOK" forge bench runs/slow
    expect 1 'promote: refused' "$SOLBOOK" forge promote runs/slow --registry reg
    # Cheats that pass their own test and the checked run: the fresh-input
    # check of a timed round refuses them, and says why.
    for cheat in cached_output skip_repeated; do
        new_run "$cheat" "$cheat"
        expect 0 'verify: passed' "$SOLBOOK" forge verify "runs/$cheat"
        expect 1 'fresh-input check failed' "$SOLBOOK" forge bench "runs/$cheat"
        grep -F 'fresh-input check failed' out.txt | head -n 1
        grep -qF 'returns a cached output or skips work when inputs repeat' out.txt ||
            fail "$cheat: the refusal does not say why"
        grep -qF '"verdict": "refused"' "runs/$cheat/bench.json" || fail "$cheat: bench.json verdict"
        expect 1 'promote: refused' "$SOLBOOK" forge promote "runs/$cheat" --registry reg
    done
    new_run good ""
    expect 0 'verify: passed' "$SOLBOOK" forge verify runs/good
    expect 0 'bench: passed' "$SOLBOOK" forge bench runs/good
    grep -o '"isolation": "[^"]*"' runs/good/bench.json | head -n 1
    expect 0 "promote: cuda_rmsnorm_${SKU}_bf16_m4096n4096_v1" "$SOLBOOK" forge promote runs/good --registry reg
    grep -qF '"fresh_checks": [{' runs/good/bench_raw.json || fail "the example's raw output has no fresh-input checks"
    echo "checked: never-ending killed at the timeout, wrong answer, slower, cached-output and skipped-work candidates refused, the example promoted"
    ;;
compile)
    command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || [ -n "${SOLBOOK_NVCC:-}" ] ||
        { echo "no nvcc here: the compile gate is skipped"; exit 77; }
    if [ "${SOLBOOK_FORGE_SANDBOX:-}" = bubblewrap ]; then
        bwrap --unshare-all --ro-bind / / true 2>/dev/null ||
            { echo "bubblewrap cannot run here: the compile gate under it is skipped"; exit 77; }
    fi
    # The task fixes the reference; the candidate leaves it out.
    new_run example "" --reference "$EXAMPLE/reference.cu"
    rm "runs/example/candidate/reference.cu"
    SOLBOOK_FORGE_GPU=0 expect 3 'compile   passed' "$SOLBOOK" forge verify runs/example
    grep -qF "the task's reference is used" out.txt || fail "files gate did not use the task's reference"
    grep -qF 'verify: compiled, not run: no GPU on this machine; this is not a pass' out.txt || fail "no-GPU line"
    grep -qF '"verdict": "compiled-no-gpu"' runs/example/verify.json || fail "verify.json verdict"
    grep -o '"isolation": "[^"]*"' runs/example/verify.json | head -n 1
    expect 1 'verification did not pass' "$SOLBOOK" forge bench runs/example
    echo "checked: the example compiles for sm_90 with nvcc against the task's reference; without a GPU verify stops with exit 3, not a pass"
    ;;
*)
    echo "usage: hostile.sh SOLBOOK cpu|gpu|compile"; exit 2 ;;
esac

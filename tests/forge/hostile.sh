#!/bin/sh
# hostile.sh SOLBOOK MODE - the forge CLI on the hostile candidates of
# tests/data/forge/ and on the RMSNorm example.
#   cpu      refusals that need no GPU and no nvcc: shell, writes outside,
#            a replaced CUDA timer, invalid metadata (verify exits 1 naming file:line), and promote
#            refusing what was not verified
#   gpu      the never-ending, wrong-answer, slower, cached-output and
#            skipped-work candidates actually running, and the example
#            promoted (exit 77 without a GPU)
#   escape   a probe built by a stand-in nvcc in place of the candidate runs
#            as its test: raw system calls the scan never sees (secrets,
#            writes outside, sockets, namespaces, exec, a late setsid
#            grandchild) must all fail or leave nothing outside, while the
#            GPU works inside the sandbox (exit 77 without a GPU or nvcc)
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
escape)
    have_gpu || { echo "no NVIDIA GPU here: the sandbox probe is skipped"; exit 77; }
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    [ -x "$nvcc" ] || { echo "no nvcc here: the sandbox probe is skipped"; exit 77; }
    SKU=$("$SOLBOOK" collect | sed -n 's/^    "sku": "\([^"]*\)",*$/\1/p' | head -1)
    [ -n "$SKU" ] && [ "$SKU" != unknown ] || fail "cannot tell this card's SKU from solbook collect"
    # The sandbox clears the environment: the stand-in names the real nvcc
    # and the probe by their paths, both readable as the toolchain's.
    mkdir tool
    cp "$DATA/escape_probe.cu" tool/probe.cu
    printf '#!/bin/sh\nout=""; prev=""\nfor a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done\nexec %s -o "$out" %s\n' \
        "'$nvcc'" "'$WORK/tool/probe.cu'" > tool/nvcc
    chmod +x tool/nvcc
    rm -f /tmp/sbprobe-esc1 /tmp/sbprobe-esc2 /tmp/sbprobe-esc3 /tmp/sbprobe-esc4 /tmp/sbprobe-late
    new_run probe ""
    export SOLBOOK_NVCC="$WORK/tool/nvcc"
    expect 0 'verify: passed' "$SOLBOOK" forge verify runs/probe
    unset SOLBOOK_NVCC
    log=runs/probe/logs/test.stdout
    cat "$log"
    grep -qx 'GPU works no error' "$log" || fail "the GPU did not work inside the sandbox"
    grep -q '^PROBE read /etc/shadow ' "$log" || fail "the probe did not run"
    iso=$(sed -n 's/.*"isolation": "\([^"]*\)".*/\1/p' runs/probe/verify.json | head -n 1)
    echo "isolation: $iso"
    case $iso in
    confined)
        # seccomp and Landlock refuse the calls themselves; only the
        # mapping (its syscall still filtered) and the fork are allowed,
        # and the exec is refused, so the probe runs to its last line.
        [ "$(grep -c '^PROBE ' "$log")" -eq 16 ] || fail "the probe did not run to its end"
        allowed=$(grep '^PROBE ' "$log" | grep ' ALLOWED$' | grep -v '^PROBE mmap rwx \|^PROBE fork+setsid' || true)
        [ -z "$allowed" ] || fail "allowed under the confined sandbox: $allowed" ;;
    bubblewrap)
        # namespaces alone: the host's secrets are not mounted, writes land
        # in the sandbox's own tmpfs and the network is its own (the exec
        # of /bin/sh may succeed and end the probe early; what it writes
        # stays inside too)
        if grep -q '^PROBE read /etc/shadow .*ALLOWED' "$log"; then fail "/etc/shadow was read"; fi
        if grep -q '^PROBE open /root .*ALLOWED' "$log"; then fail "/root was opened"; fi
        if grep -q '^PROBE connect .*ALLOWED' "$log"; then fail "a connection to the host was made"; fi ;;
    *) fail "verify ran the probe under '$iso', not a sandbox" ;;
    esac
    sleep 6
    for f in esc1 esc2 esc3 esc4 late; do
        [ ! -e "/tmp/sbprobe-$f" ] && [ ! -L "/tmp/sbprobe-$f" ] || fail "the probe left /tmp/sbprobe-$f outside its folder"
    done
    echo "checked: under '$iso' the GPU works and the probe's escapes fail; nothing outlived the verdict"
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
    echo "usage: hostile.sh SOLBOOK cpu|gpu|escape|compile"; exit 2 ;;
esac

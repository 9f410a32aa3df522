#!/bin/sh
# gpu_promotion.sh - runs the RMSNorm example candidate
# (examples/forge/rmsnorm_bf16) through forge on a GPU machine:
#     task -> prompt -> verify -> bench -> promote -> list
# and copies the evidence (spec, prompt, verify.json, bench.json, the raw
# harness output, the solbook.result.v1 files, logs, promotion.json, the
# registry, the database, nvidia-smi) into $OUT/forge-gpu-promotion/.
#
# Run from anywhere in the repository on the GPU machine:
#     OUT=/some/dir sh forge/scripts/gpu_promotion.sh
# Environment:
#     OUT        where the evidence goes (required)
#     SOLBOOK    a built solbook binary (default: build it in build-gpu/)
#     SKU        data/skus.csv id of the card (default: from `solbook collect`)
#     SHAPES     space-separated shapes (default: "M=4096,N=4096 M=8192,N=4096 M=8192,N=8192")
#     SOLBOOK_FORGE_DATA_LIMIT_MB  RLIMIT_DATA of the sandboxed test and
#                bench, MiB (default 16384; 0 removes the limit)
# Exit status: that of the first forge step that did not pass (the
# evidence is copied either way).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to the folder that receives the evidence}"
EVIDENCE=$OUT/forge-gpu-promotion
mkdir -p "$EVIDENCE"
export SOLBOOK_HOME="$ROOT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/solbook-forge-gpu-XXXXXX")
export SOLBOOK_DB="$WORK/solbook.db"
LOG=$EVIDENCE/steps.log
: >"$LOG"

say() { echo "$*" | tee -a "$LOG"; }

collect_evidence() {
    cp -r "$WORK/runs" "$EVIDENCE/" 2>/dev/null
    cp -r "$WORK/registry" "$EVIDENCE/" 2>/dev/null
    cp "$SOLBOOK_DB" "$EVIDENCE/solbook.db" 2>/dev/null
    rm -rf "$WORK"
}
trap collect_evidence EXIT

if [ -z "${SOLBOOK:-}" ]; then
    say "== building solbook in $ROOT/build-gpu"
    cmake -S "$ROOT" -B "$ROOT/build-gpu" -DCMAKE_BUILD_TYPE=Release >>"$LOG" 2>&1 &&
        cmake --build "$ROOT/build-gpu" --target solbook -j"$(nproc)" >>"$LOG" 2>&1 ||
        { say "build failed (see steps.log)"; exit 2; }
    SOLBOOK=$ROOT/build-gpu/cli/solbook
fi

nvidia-smi >"$EVIDENCE/nvidia-smi.txt" 2>&1
nvidia-smi -q >"$EVIDENCE/nvidia-smi-q.txt" 2>&1
nvcc --version >"$EVIDENCE/nvcc-version.txt" 2>&1 || /usr/local/cuda/bin/nvcc --version >"$EVIDENCE/nvcc-version.txt" 2>&1
(cd "$ROOT" && git rev-parse HEAD && git status --short) >"$EVIDENCE/git.txt" 2>&1
"$SOLBOOK" collect --git-dir "$ROOT" >"$EVIDENCE/collect.json" 2>>"$LOG"
if [ -z "${SKU:-}" ]; then
    SKU=$(grep -o '"sku": *"[^"]*"' "$EVIDENCE/collect.json" | head -n 1 | sed 's/.*: *"\(.*\)"/\1/')
fi
case ${SKU:-unknown} in
    unknown*|"") say "cannot tell the card's SKU from solbook collect; set SKU"; exit 2 ;;
esac
say "== card: SKU $SKU"

SHAPES=${SHAPES:-"M=4096,N=4096 M=8192,N=4096 M=8192,N=8192"}
set --
for s in $SHAPES; do set -- "$@" --shape "$s"; done
RUN_ID=gpu-rmsnorm-$(date -u +%Y%m%d-%H%M%S)
cd "$WORK" || exit 2

step() {
    name=$1; shift
    say "== $name: $*"
    "$@" >"$EVIDENCE/$name.out" 2>&1
    rc=$?
    cat "$EVIDENCE/$name.out" >>"$LOG"
    cat "$EVIDENCE/$name.out"
    say "== $name: exit $rc"
    return $rc
}

step task "$SOLBOOK" forge task --op rmsnorm --sku "$SKU" --dtype bf16 --objective latency \
    --root runs --id "$RUN_ID" --reference "$ROOT/examples/forge/rmsnorm_bf16/reference.cu" "$@" || exit $?
cp -r "$ROOT/examples/forge/rmsnorm_bf16" "runs/$RUN_ID/candidate"
step prompt "$SOLBOOK" forge prompt "runs/$RUN_ID" >/dev/null || exit $?
step verify "$SOLBOOK" forge verify "runs/$RUN_ID" || exit $?
step bench "$SOLBOOK" forge bench "runs/$RUN_ID" || exit $?
step promote "$SOLBOOK" forge promote "runs/$RUN_ID" --registry registry || exit $?
step list "$SOLBOOK" forge list || exit $?
say "== done: evidence in $EVIDENCE"

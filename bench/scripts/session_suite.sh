#!/usr/bin/env bash
# session_suite.sh - the sessions an evidence call takes on one card, in
# order of need, within a deadline, packed into one archive:
#   aa         the quick cases, every provider twice a round (A/A copies),
#              10 rounds: the noise of a paired ratio on this card
#   aa-fresh   aa with new buffers every turn (session.py --fresh-inputs)
#   aa-fresh-20  aa-fresh with 20 rounds: a case whose rounds vary with the
#              placement of its buffers needs more rounds for its test
#   perkernel  the liger-perkernel preset, 5 rounds
#   memory     the memory-bound-quick preset, 5 rounds
#   losses     the cross entropy and FLCE cases of liger-perkernel alone
#   methods    a few cases, each provider's kernel time also by the
#              profiler's kernel sum and by CUDA-graph replay
#   quack-memory  memory-bound-quick with quack beside the others, 5 rounds
#   quack-norms   the RMSNorm and cross entropy cases of liger-perkernel
#              with quack beside the others, 5 rounds
# The quack sessions need QUACK_SITE: a folder holding quack-kernels and the
# CuTe DSL unpacked (scripts/quack_stage.sh makes it; docs/BENCH.md says how
# it reaches a GPU host). A --target install does not read the DSL's .pth
# file, so its dsl_packages folder goes on PYTHONPATH here.
# Each session writes its results case by case, so a session cut short by
# the deadline keeps the cases it finished.
#
# usage: bench/scripts/session_suite.sh OUT_DIR [DEADLINE_S [SESSION...]]
# Runs on the GPU host from the repository root with the carried binaries
# (scripts/gpu_carry.sh: .carry/bin/solbench and libsbk_fused.so) and
# liger-kernel importable. Writes OUT_DIR/sessions-<uuid>.tar.gz.
set -uo pipefail
out=${1:?usage: session_suite.sh OUT_DIR [DEADLINE_S [SESSION...]]}
deadline=$(($(date +%s) + ${2:-540}))
shift 2 2>/dev/null || shift $#
sessions=("$@")
((${#sessions[@]})) || sessions=(aa perkernel memory)
top=$(cd "$(dirname "$0")/../.." && pwd)
carry=${CARRY_DIR:-$top/.carry}
work=$(mktemp -d)
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$carry/lib:${LD_LIBRARY_PATH:-}
# The commit is the carry's: a lent host's copy of the tree may hold a
# stale .git, which git describe would report instead.
if [[ -s "$carry/GIT_SHA" ]]; then
  export SOLBOOK_GIT_SHA=$(cat "$carry/GIT_SHA") SOLBOOK_GIT_DIRTY=$(cat "$carry/GIT_DIRTY" 2>/dev/null)
fi
if [[ -n "${QUACK_SITE:-}" ]]; then
  export PYTHONPATH=$QUACK_SITE:$QUACK_SITE/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH}
fi
with_quack=fused,huggingface,torch-compile,liger,quack
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0 2>/dev/null | tr -cd 'A-Za-z0-9-')
run() {
  local base=$1 name=$1 left n=2
  shift
  # a session named twice gets its own folder, so the second keeps the first
  while [[ -e "$work/$name" ]]; do
    name=$base-$n
    n=$((n + 1))
  done
  left=$((deadline - $(date +%s) - 20))
  if ((left < 30)); then
    echo "session_suite: $name left out: $left s left before the deadline"
    return
  fi
  mkdir -p "$work/$name"
  timeout "$left" python3 "$top/bench/scripts/session.py" --out "$work/$name" \
    --solbench "$carry/bin/solbench" "$@" 2>&1 | tee "$work/$name/log.txt"
  echo "session_suite: $name exit ${PIPESTATUS[0]}"
}
for s in "${sessions[@]}"; do
  case $s in
  aa) run aa --quick --aa --rounds 10 --iters 20 ;;
  aa-fresh) run aa-fresh --quick --aa --fresh-inputs --rounds 10 --iters 20 ;;
  aa-fresh-20) run aa-fresh-20 --quick --aa --fresh-inputs --rounds 20 --iters 20 ;;
  perkernel) run perkernel --preset liger-perkernel --rounds 5 --iters 10 ;;
  memory) run memory --preset memory-bound-quick --rounds 5 --iters 10 ;;
  losses) run losses --preset liger-perkernel --only cross_entropy,flce --rounds 5 --iters 10 ;;
  methods) run methods --methods --rounds 5 --iters 10 --case rmsnorm:fwd:bf16:M=2048,N=4096 \
    --case rmsnorm:fwd:bf16:M=16384,N=4096 --case rmsnorm:full:bf16:M=2048,N=4096 \
    --case cross_entropy:full:bf16:M=1024,V=128256 --case swiglu:full:bf16:B=4,T=1024,I=11008 \
    --case flce:full:bf16:BT=1024,H=4096,V=32000 --case rope:full:bf16:B=1,T=2048,Hq=32,Hk=8,D=256 ;;
  quack-memory) run quack-memory --preset memory-bound-quick --providers $with_quack --rounds 5 --iters 10 ;;
  quack-norms) run quack-norms --preset liger-perkernel --only rmsnorm,cross_entropy --providers $with_quack \
    --rounds 5 --iters 10 ;;
  *) echo "session_suite: unknown session $s (aa, aa-fresh, aa-fresh-20, perkernel, memory, losses, methods, quack-memory," \
    "quack-norms)" >&2 ;;
  esac
done
nvidia-smi -q -d CLOCK,TEMPERATURE,PERFORMANCE >"$work/card.txt" 2>&1
tar czf "$out/sessions-${uuid:-unknown}.tar.gz" -C "$work" .
ls -la "$out"

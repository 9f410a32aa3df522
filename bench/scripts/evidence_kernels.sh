#!/usr/bin/env bash
# evidence_kernels.sh - the Liger per-kernel and memory-bound evidence run on one GPU, into OUTDIR:
#   calibration.json             solbench roofline (the copy ceiling the results are set against)
#   liger/liger-perkernel-quick-<stamp>/   solbench suite --preset liger-perkernel-quick
#   memory/memory-bound-quick-<stamp>/     solbench suite --preset memory-bound-quick
#   torch/                       torch_ops.py --quick (torch-eager, torch-compile) where PyTorch exists;
#                                with --full, torch_ops.py --preset over the same cases (--cases, --only)
#   ncu/                         ncu_profile.sh --detail on the fused kernel of the cases that fall short
#                                of the copy ceiling, and of one that does not (.json + .ncu.csv)
#   nvidia-smi.txt, log.txt      the card as found, and everything printed
# About 6 minutes on an H100. --full: the whole liger-perkernel and memory-bound presets instead of
# the quick ones; --liger-cases / --memory-cases FROM-TO run part of each (solbench suite --cases;
# "none" skips that preset), to split a full run over several shorter runs; --calibration FILE uses a
# roofline taken earlier on the same card (same UUID) instead of taking one; --no-ncu skips the profiles;
# --only OP[:MODE],... runs only those ops' cases of the presets (solbench suite --only); --copy-by-size
# also times STREAM copy and cudaMemcpy at 16 MB to 8 GB moved (copy-by-size/), the ceiling a kernel of
# that many bytes can reach, beside the one of the calibration (2 GB moved).
# Ingest with `solbook ingest OUTDIR`.
#
# usage: bench/scripts/evidence_kernels.sh OUTDIR [--solbench PATH] [--tar FILE] [--no-torch] [--full]
#        [--liger-cases FROM-TO|none] [--memory-cases FROM-TO|none] [--calibration FILE] [--no-ncu]
#        [--only OP[:MODE],...] [--copy-by-size]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=""
solbench=""
tarball=""
torch=1
ncu=1
suffix="-quick"
liger_cases=""
memory_cases=""
calibration=""
only=""
copy_by_size=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --solbench) solbench=$2; shift 2 ;;
    --tar) tarball=$2; shift 2 ;;
    --no-torch) torch=0; shift ;;
    --full) suffix=""; shift ;;
    --no-ncu) ncu=0; shift ;;
    --liger-cases) liger_cases=$2; shift 2 ;;
    --memory-cases) memory_cases=$2; shift 2 ;;
    --calibration) calibration=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --copy-by-size) copy_by_size=1; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "evidence_kernels.sh: unknown option $1" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n "$out" ]] || { echo "evidence_kernels.sh: usage: evidence_kernels.sh OUTDIR [--solbench PATH]" >&2; exit 2; }
if [[ -z "$solbench" ]]; then
  for c in "$root/build/bench/solbench" "$root/build-bench/bench/solbench" "$(command -v solbench || true)"; do
    [[ -n "$c" && -x "$c" ]] && { solbench=$c; break; }
  done
fi
[[ -x "$solbench" ]] || { echo "evidence_kernels.sh: solbench not found (build it or pass --solbench PATH)" >&2; exit 2; }
export SOLBOOK_HOME=${SOLBOOK_HOME:-$root}
mkdir -p "$out/liger" "$out/memory" "$out/torch" "$out/ncu"
log="$out/log.txt"
: > "$log"
step() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$log"; }
run() { "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; }

step "card as found"
if command -v nvidia-smi >/dev/null; then nvidia-smi -q > "$out/nvidia-smi.txt" 2>&1 || true; fi

# The calibration must be this card's: a given file is used only when its
# device UUID is the one solbench sees now.
uuid_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["provenance"]["device"].get("uuid",""))' "$1" 2>/dev/null; }
card_uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | head -1)
if [[ -n "$calibration" && -f "$calibration" && -n "$card_uuid" && "$(uuid_of "$calibration")" == "$card_uuid" ]]; then
  step "roofline: reusing $calibration (same card, $card_uuid)"
  cp "$calibration" "$out/calibration.json"
else
  step "roofline"
  run "$solbench" roofline --gemm-size 0 --out "$out/calibration.json"
fi

rc=0
# 10 warm-up launches, 20 x 3 timed: the row ops take 0.01 to 10 ms a launch
suite() { # PRESET OUTDIR CASES
  [[ "$3" == none ]] && { step "$1: skipped (--cases none)"; return 0; }
  step "$1${3:+ cases $3}"
  run "$solbench" suite --preset "$1" ${3:+--cases "$3"} ${only:+--only "$only"} --iters 20 --repeats 3 \
    --calibration "$out/calibration.json" --out "$2" || rc=$?
}
suite "liger-perkernel$suffix" "$out/liger" "$liger_cases"
suite "memory-bound$suffix" "$out/memory" "$memory_cases"

if [[ $copy_by_size == 1 ]]; then
  # N fp32 elements copied move 8 N bytes; the same protocol as the suites
  step "copy by size"
  mkdir -p "$out/copy-by-size"
  for mb in 16 32 64 128 256 512 1024 2048 4096 8192; do
    mkdir -p "$out/copy-by-size/$mb"
    run "$solbench" stream --kernel copy --N $(( mb * 131072 )) --iters 20 --repeats 3 --suite copy-by-size \
      --calibration "$out/calibration.json" --out "$out/copy-by-size/$mb" || rc=$?
  done
fi

if [[ $torch == 1 && -z "$suffix" ]]; then
  # the full presets: the same cases as the suites above (torch.compile
  # compiles every shape once, so this is the long part of a full run)
  for p in "liger-perkernel:$liger_cases" "memory-bound:$memory_cases"; do
    name=${p%%:*} range=${p#*:}
    [[ "$range" == none ]] && continue
    step "torch_ops.py --preset $name${range:+ --cases $range}${only:+ --only $only}"
    run python3 "$here/torch_ops.py" --preset "$name" ${range:+--cases "$range"} ${only:+--only "$only"} \
      --solbench "$solbench" --out "$out/torch" || rc=$?
  done
elif [[ $torch == 1 ]]; then
  step "torch_ops.py --quick"
  run python3 "$here/torch_ops.py" --quick --solbench "$solbench" --out "$out/torch" || rc=$?
fi

if [[ $ncu == 0 ]]; then
  step "ncu: skipped (--no-ncu)"
elif command -v "${NCU:-ncu}" >/dev/null 2>&1; then
  # NAME KERNEL-REGEX OP ARGS...: the fused provider's main kernel, after
  # the correctness and determinism runs (2 launches), 3 launches profiled
  prof() {
    local name=$1 re=$2
    shift 2
    step "ncu: $name"
    run "$here/ncu_profile.sh" --detail --kernel-regex "$re" --launch-skip 2 --launch-count 3 -- \
      "$solbench" "$@" --provider fused --warmup 2 --iters 3 --repeats 1 --suite memory-bound-ncu \
      --calibration "$out/calibration.json" --out "$out/ncu/$name.json" || rc=$?
  }
  prof rmsnorm-bwd-bf16-4096x7168 rmsnorm_bwd rmsnorm --mode bwd --dtype bf16 --M 4096 --N 7168 --eps 1e-6
  prof rmsnorm-bwd-bf16-16384x4096 rmsnorm_bwd rmsnorm --mode bwd --dtype bf16 --M 16384 --N 4096 --eps 1e-6
  prof ce-full-bf16-4096x12288 ce_row_k cross_entropy --mode full --dtype bf16 --M 4096 --V 12288
  prof ce-full-fp32-4096x8192 ce_row_k cross_entropy --mode full --dtype fp32 --M 4096 --V 8192
  prof softmax-fwd-bf16-4096x7168 softmax_fwd softmax --mode fwd --dtype bf16 --M 4096 --N 7168
  prof rmsnorm-fwd-bf16-2048x4096 rmsnorm_fwd rmsnorm --mode fwd --dtype bf16 --M 2048 --N 4096 --eps 1e-6
  prof rmsnorm-fwd-bf16-16384x4096 rmsnorm_fwd rmsnorm --mode fwd --dtype bf16 --M 16384 --N 4096 --eps 1e-6
else
  step "ncu not found: no profiles"
fi

if [[ -n "$tarball" ]]; then
  tar czf "$tarball" -C "$(dirname "$out")" "$(basename "$out")"
  step "packed into $tarball"
fi
step "done (exit $rc)"
exit $rc

#!/usr/bin/env bash
# evidence.sh - the whole GEMM/roofline evidence run on one GPU, into OUTDIR:
#   calibration.json           solbench roofline (STREAM, memcpy, GEMM peaks)
#   spec/                      solbench gemm --spec, every provider, against the calibration,
#                              plus torch_gemm.py --spec where PyTorch exists
#   sweep/gemm-sweep-<stamp>/  solbench suite --preset gemm-sweep (20 x 3 samples per case)
#   ncu/                       ncu_profile.sh on the spec case, one provider each (.json + .ncu.csv)
#   nvidia-smi.txt, log.txt    the card as found, and everything printed
# Without the sweep it took 139 s on an H200; with it, an estimated 5
# minutes (not yet measured). Ingest with `solbook ingest OUTDIR`.
#
# usage: bench/scripts/evidence.sh OUTDIR [--solbench PATH] [--tar FILE] [--no-ncu] [--no-sweep]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=""
solbench=""
tarball=""
ncu=1
sweep=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --solbench) solbench=$2; shift 2 ;;
    --tar) tarball=$2; shift 2 ;;
    --no-ncu) ncu=0; shift ;;
    --no-sweep) sweep=0; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "evidence.sh: unknown option $1" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n "$out" ]] || { echo "evidence.sh: usage: evidence.sh OUTDIR [--solbench PATH] [--tar FILE]" >&2; exit 2; }
if [[ -z "$solbench" ]]; then
  for c in "$root/build/bench/solbench" "$root/build-bench/bench/solbench" "$(command -v solbench || true)"; do
    [[ -n "$c" && -x "$c" ]] && { solbench=$c; break; }
  done
fi
[[ -x "$solbench" ]] || { echo "evidence.sh: solbench not found (build it or pass --solbench PATH)" >&2; exit 2; }
export SOLBOOK_HOME=${SOLBOOK_HOME:-$root}
mkdir -p "$out/spec" "$out/sweep" "$out/ncu"
log="$out/log.txt"
: > "$log"
step() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$log"; }
run() { "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; }

step "card as found"
if command -v nvidia-smi >/dev/null; then nvidia-smi -q > "$out/nvidia-smi.txt" 2>&1 || true; fi

step "roofline"
run "$solbench" roofline --out "$out/calibration.json"

step "gemm spec, every provider"
rc=0
run "$solbench" gemm --spec --calibration "$out/calibration.json" --out "$out/spec/" || rc=$?

step "torch_gemm.py --spec"
run python3 "$here/torch_gemm.py" --spec --solbench "$solbench" \
  --out "$out/spec/gemm-fp16-fwd-4096x4096x4096-nn-torch.json" || rc=$?

if [[ $sweep == 1 ]]; then
  step "gemm sweep"
  run "$solbench" suite --preset gemm-sweep --iters 20 --repeats 3 --calibration "$out/calibration.json" \
    --out "$out/sweep" || rc=$?
fi

if [[ $ncu == 1 ]]; then
  if command -v ncu >/dev/null; then
    for p in cublas cublas-pedantic cublaslt solbook-mma; do
      step "ncu on the spec case: $p"
      # skip the checked run, the determinism run and the batch-invariance pair
      run "$here/ncu_profile.sh" --launch-skip 4 --launch-count 3 -- "$solbench" gemm --M 4096 --N 4096 \
        --K 4096 --dtype fp16 --provider "$p" --warmup 0 --iters 3 --repeats 1 --suite gemm-spec-ncu \
        --out "$out/ncu/gemm-spec-$p.json" || rc=$?
    done
  else
    step "ncu not found: profiles not taken"
  fi
fi

if [[ -n "$tarball" ]]; then
  tar czf "$tarball" -C "$(dirname "$out")" "$(basename "$out")"
  step "packed into $tarball"
fi
step "done (exit $rc)"
exit $rc

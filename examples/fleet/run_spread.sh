#!/usr/bin/env bash
# run_spread.sh OUT - the multi-GPU spread check on a lent two-GPU H200
# host (examples/fleet/README.md): the gemm-sweep preset's 16 cases with
# cuBLASLt, a short protocol, first over every GPU (solbench-spread --gpus
# all), then on GPU 0 alone, timed; results and logs packed into
# OUT/spread.tar.gz. Expects solbench, solbench-spread and the shared
# libraries the device lacks in .carry-fleet/ (see the README).
set -euo pipefail
out=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
carry=$root/.carry-fleet
export SOLBOOK_HOME=$root
export LD_LIBRARY_PATH=$carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
opts=(--provider cublaslt --warmup 2 --iters 10 --repeats 2 --check-rows 8)
mkdir -p "$out/run/two" "$out/run/one"
nvidia-smi -L >"$out/run/gpus.txt"
t0=$(date +%s%N)
rc2=0
"$carry/solbench-spread" --preset gemm-sweep --gpus all --solbench "$carry/solbench" --out "$out/run/two" \
  -- "${opts[@]}" >"$out/run/two.txt" 2>&1 || rc2=$?
t1=$(date +%s%N)
rc1=0
"$carry/solbench-spread" --preset gemm-sweep --gpus 0 --solbench "$carry/solbench" --out "$out/run/one" \
  -- "${opts[@]}" >"$out/run/one.txt" 2>&1 || rc1=$?
t2=$(date +%s%N)
{
  echo "two GPUs (--gpus all): exit $rc2, $(((t1 - t0) / 1000000)) ms"
  echo "one GPU (--gpus 0): exit $rc1, $(((t2 - t1) / 1000000)) ms"
  echo "options after --: ${opts[*]}"
} | tee "$out/run/summary.txt"
tail -n 3 "$out/run/two.txt" "$out/run/one.txt"
tar czf "$out/spread.tar.gz" -C "$out/run" .

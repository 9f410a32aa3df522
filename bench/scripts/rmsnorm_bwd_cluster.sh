#!/usr/bin/env bash
# rmsnorm_bwd_cluster.sh SOLBENCH OUTDIR [CALIBRATION] - the fused RMSNorm
# backward with its dw sums across thread block clusters of 1, 2, 4 and 8
# blocks (SOLBENCH_RMSNORM_BWD_CLUSTER) and with the size it chooses, at the
# memory-bound and Liger shapes (bf16), fused provider only; one result
# JSON per (cluster, shape) under OUTDIR/c<C>/ and OUTDIR/auto/, and a line
# per run. Figures, not a test: it runs on a GPU and prints what it
# measured (docs/KERNELS.md reads them).
set -uo pipefail
sb=${1:?usage: rmsnorm_bwd_cluster.sh SOLBENCH OUTDIR [CALIBRATION]}
out=${2:?usage: rmsnorm_bwd_cluster.sh SOLBENCH OUTDIR [CALIBRATION]}
cal=${3:-}
shapes=("4096 6144" "4096 7168" "4096 8192" "8192 4096" "16384 4096" "16384 7168" "16384 8192"
        "65536 7168" "2048 1024" "2048 4096" "2048 16384" "2048 32768")
for c in 1 2 4 8 auto; do
  mkdir -p "$out/c$c"
  for s in "${shapes[@]}"; do
    set -- $s
    env_c=$c
    [[ $c == auto ]] && env_c=
    SOLBENCH_RMSNORM_BWD_CLUSTER=$env_c "$sb" rmsnorm --mode bwd --dtype bf16 --M "$1" --N "$2" \
      --provider fused --warmup 10 --iters 20 --repeats 3 ${cal:+--calibration "$cal"} \
      --suite rmsnorm-bwd-cluster --out "$out/c$c/rmsnorm-bwd-bf16-$1x$2.json" 2>&1 | grep -E "passed|failed|error" |
      sed "s/^/cluster $c: /"
  done
done

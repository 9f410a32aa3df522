#!/usr/bin/env bash
# gpu_kernels.sh SOLBENCH - every bench/kernels/ op on small and awkward
# shapes (sizes that are not multiples of the vector width, rows too long for
# registers, several FLCE chunks, ignored targets), fp32, fp16 and bf16, with
# every CUDA provider, each checked by solbench against float64
# (GPU_KERNELS_ONLY=op,... for some ops' cases alone). Exits 77
# (CTest skip) where there is no CUDA device, 1 when a case fails.
set -uo pipefail
sb=${1:?usage: gpu_kernels.sh SOLBENCH}
if ! "$sb" provenance --device 0 >/dev/null 2>&1; then
  echo "gpu_kernels.sh: no CUDA device: skipped"
  exit 77
fi
fails=0
n=0
check() {
  local out
  # GPU_KERNELS_ONLY=op,...: those ops' cases alone (a quick check of one
  # kernel's change on a lent card)
  if [[ -n "${GPU_KERNELS_ONLY:-}" && ",$GPU_KERNELS_ONLY," != *",$1,"* ]]; then
    return 0
  fi
  out=$("$sb" "$@" --warmup 1 --iters 2 --repeats 1 2>&1)
  local rc=$?
  n=$((n + 1))
  echo "$out" | grep -E "passed|failed|skipped" | sed 's/^/  /'
  if [[ $rc -ne 0 ]] || echo "$out" | grep -qE ": failed|error"; then
    echo "FAILED: ${SOLBENCH_ROW_VECTORS:+SOLBENCH_ROW_VECTORS=$SOLBENCH_ROW_VECTORS }${SOLBENCH_RMSNORM_FWD_PLAN:+SOLBENCH_RMSNORM_FWD_PLAN=$SOLBENCH_RMSNORM_FWD_PLAN }${SOLBENCH_RMSNORM_BWD_LAYOUT:+SOLBENCH_RMSNORM_BWD_LAYOUT=$SOLBENCH_RMSNORM_BWD_LAYOUT }${SOLBENCH_ELEM_PLAN:+SOLBENCH_ELEM_PLAN=$SOLBENCH_ELEM_PLAN }${SOLBENCH_CE_ROW:+SOLBENCH_CE_ROW=$SOLBENCH_CE_ROW }$sb $*"
    echo "$out" | tail -3
    fails=$((fails + 1))
  fi
}
for dt in bf16 fp16 fp32; do
  Ns="1000 4096"
  [[ $dt == bf16 ]] && Ns="1000 4096 70000" # rows too long for registers: once
  for N in $Ns; do
    check rmsnorm --M 37 --N $N --mode full --dtype $dt
    check rmsnorm --M 37 --N $N --mode fwd --dtype $dt --weight_dtype fp32
    check add_rmsnorm --M 33 --N $N --dtype $dt
    check layernorm --M 21 --N $N --dtype $dt
    check softmax --M 19 --N $N --dtype $dt
    check softmax --M 19 --N $N --dtype $dt --mode bwd
  done
  check rmsnorm --M 1000 --N 512 --mode bwd --dtype $dt --weight_dtype fp32
  for D in 10 16 64 256; do
    check rope --B 2 --T 33 --Hq 4 --Hk 2 --D $D --mode full --dtype $dt
  done
  check swiglu --B 3 --T 7 --I 1001 --mode full --dtype $dt
  check swiglu --B 2 --T 64 --I 11008 --mode full --dtype $dt
  # every elementwise launch plan (SOLBENCH_ELEM_PLAN), on item counts that
  # are not whole tiles or passes (2646 and 5 + 2 x 33 x 6 x 8 vectors) and
  # on one that needs several passes of the grid-stride loop
  for plan in stride stride:2 stride:4 tile:1 tile:2 tile:4 tile:1/128 tile:4/128; do
    SOLBENCH_ELEM_PLAN=$plan check rope --B 2 --T 33 --Hq 4 --Hk 2 --D 128 --mode full --dtype $dt
    SOLBENCH_ELEM_PLAN=$plan check swiglu --B 3 --T 7 --I 1008 --mode full --dtype $dt
    SOLBENCH_ELEM_PLAN=$plan check swiglu --B 1 --T 2500 --I 11008 --mode fwd --dtype $dt
  done
  for V in 1001 32768 128256; do
    check cross_entropy --M 24 --V $V --mode full --dtype $dt --ignore_frac 0.25
  done
  check cross_entropy --M 24 --V 4096 --mode fwd --dtype $dt
  check flce --BT 64 --H 256 --V 1000 --mode full --dtype $dt --chunk 16 --ignore_frac 0.2
  # FLCE over vocabulary slices (accum=vocab; the loss alone with fp32
  # logits too): slices of whole vectors and a last one of 232 columns;
  # slices of 300 whose last, 101, is not whole vectors; the default slice
  # (all of V here); a row a warp, 2, 4 and 8 warps (slices of 1500, 2100
  # and 8192 columns, and 3001, not whole vectors), with rows past B*T in
  # the last block (37 rows); the loss alone. (At H 128, fp16, every
  # provider, the CPU one too, lands dW[6142][113], 1.57e-6, an fp16
  # subnormal 1.4 steps off: the check allows a flipped fp16 dlogit its
  # subnormal step, sbk_flip_scale, and passes there on an H100,
  # examples/h100/checks/c5622f7-gpu_kernels-flce.log; H 96 for the teams,
  # and H 128 once more.)
  check flce --BT 64 --H 256 --V 1000 --mode full --dtype $dt --accum vocab --chunk 256 --ignore_frac 0.2
  check flce --BT 50 --H 128 --V 1001 --mode full --dtype $dt --accum vocab --chunk 300 --ignore_frac 0.2
  check flce --BT 64 --H 256 --V 4096 --mode full --dtype $dt --accum vocab
  for cols in 1500 2100 8192 3001; do
    check flce --BT 37 --H 96 --V 9000 --mode full --dtype $dt --accum vocab --chunk $cols --ignore_frac 0.3
  done
  check flce --BT 37 --H 128 --V 9000 --mode full --dtype $dt --accum vocab --chunk 2100 --ignore_frac 0.3
  check flce --BT 64 --H 256 --V 1001 --mode fwd --dtype $dt --accum vocab --chunk 300 --ignore_frac 0.2
  check flce --BT 37 --H 96 --V 9000 --mode fwd --dtype $dt --chunk 8192 --ignore_frac 0.3
  # every row plan of the cross entropy (SOLBENCH_CE_ROW): the row in one
  # block's shared memory, in registers or memory, through L2, in slices
  # over a cluster of 2, 4 or 8 (128256 = 8 x 16032; 1001 and, at fp32,
  # slices over the card's shared memory fall back), the loss alone and
  # with the gradient, ignored rows among them; FLCE's fp32 chunks and its
  # logits in place. (At BT 64, H 256, V 4096 FLCE's dW missed the bf16 and
  # fp16 tolerance at a few near-cancelled elements, 23 of 32833, by every
  # plan and the default alike: the plans' first run, examples/h200/ce-row/; the shapes
  # here pass.)
  for plan in smem regs l2 cluster:2 cluster:4 cluster:8; do
    for V in 1001 12288 32768 128256; do
      SOLBENCH_CE_ROW=$plan check cross_entropy --M 24 --V $V --mode full --dtype $dt --ignore_frac 0.25
    done
    SOLBENCH_CE_ROW=$plan check cross_entropy --M 17 --V 32768 --mode fwd --dtype $dt --ignore_frac 0.1
    SOLBENCH_CE_ROW=$plan check flce --BT 64 --H 256 --V 1000 --mode full --dtype $dt --chunk 16 --ignore_frac 0.2
    SOLBENCH_CE_ROW=$plan check flce --BT 64 --H 256 --V 4096 --mode fwd --dtype $dt --chunk 16 --ignore_frac 0.2
    SOLBENCH_CE_ROW=$plan check flce --BT 64 --H 256 --V 4096 --mode fwd --dtype $dt --accum input --ignore_frac 0.2
  done
  # the backward's launch shapes: rows through shared memory with the next
  # one prefetched, from one to six vectors per thread (4096 .. 12288 bf16),
  # rows in registers (16384 bf16) or through one shared-memory buffer
  # (7168 fp32), more rows than blocks and row counts that do not divide
  # evenly, and rows split over a cluster of 2, 4 or 8 blocks (20480, 32768,
  # 65536 fp16/bf16; 16384 fp32), with a row or two per cluster too; rows
  # through the bulk ring by default (an H200: 6000 rows, 12 or more a
  # block, 4096 bf16 and fp32); then those rows in every layout
  # SOLBENCH_RMSNORM_BWD_LAYOUT names
  for shape in "--M 3001 --N 7168" "--M 2048 --N 4096" "--M 777 --N 16384" "--M 1500 --N 6144" "--M 6000 --N 4096" \
               "--M 99 --N 12288" "--M 300 --N 20480" "--M 37 --N 32768" "--M 1000 --N 32768" "--M 5 --N 65536"; do
    check rmsnorm $shape --mode bwd --dtype $dt
  done
  # (bulk: rows copied by cp.async.bulk, 1 to 4 vectors a thread on 256
  # or 512 threads, the default stages and 2; rows of more than 2048
  # vectors, 16384 fp32, run the default layout)
  for layout in regs smem1 split bulk bulk:2; do
    # 6656 and 8000 fp32 (3328 and 4000 bf16): the last of 7 or 8 vectors a
    # thread filled for some threads only
    for shape in "--M 777 --N 16384" "--M 3001 --N 7168" "--M 513 --N 6656" "--M 129 --N 8000" \
                 "--M 37 --N 1000" "--M 2000 --N 4096"; do
      SOLBENCH_RMSNORM_BWD_LAYOUT=$layout check rmsnorm $shape --mode bwd --dtype $dt
    done
  done
  # the forward's launch plans (bench/kernels/sbk_cuda.h): the default, one
  # block a row with the row in registers (or in memory) and in shared
  # memory, and rows split over clusters of 2, 4 and 8 blocks with the
  # slices in registers or shared memory; the default splits rows too long
  # for registers (32768 fp32, 65536) and keeps 70000 bf16 (no even split)
  # in memory; the cache-hint variants (/plain: x read and y written
  # without the streaming hints) on the default and one split; the row
  # read through L2 in both passes, 1, 2 or 4 vectors in flight a thread
  if [[ $dt != fp16 ]]; then
    plans="auto block smem:8 auto/plain l2v1 l2 l2fit"
    [[ $dt == bf16 ]] && plans="$plans smem block:2 smem:4 block:2/plain-store l2v2"
    for plan in $plans; do
      for shape in "--M 37 --N 4096" "--M 1001 --N 7168" "--M 300 --N 32768" "--M 5 --N 65536"; do
        SOLBENCH_RMSNORM_FWD_PLAN=$plan check rmsnorm $shape --mode fwd --dtype $dt
      done
      SOLBENCH_RMSNORM_FWD_PLAN=$plan check rmsnorm --M 999 --N 7168 --mode fwd --dtype $dt --weight_dtype fp32
    done
  fi
  # SOLBENCH_ROW_VECTORS=1 and 8: the one-row kernels with the fewest
  # vectors a thread in blocks of up to 512, and with 256 threads whenever
  # they fit (the default is 4), where the layout changes (4096, 16384) and
  # where the last threads hold fewer vectors than the rest (8000)
  for K in 1 8; do
    for N in 4096 8000 16384; do
      for c in "rmsnorm --M 77 --N $N --mode fwd" "add_rmsnorm --M 33 --N $N" "layernorm --M 21 --N $N" \
               "softmax --M 19 --N $N --mode bwd"; do
        SOLBENCH_ROW_VECTORS=$K check $c --dtype $dt
      done
    done
  done
  # SOLBENCH_ROW_VECTORS=l2v2, l2v4 and l2fit: the LayerNorm forward's row
  # read through L2 in its three passes and the softmax backward's dy and y
  # in its two (512 threads, or fewer for a short row; l2fit: 4 vectors a
  # thread, of one row or 2 of each, as few warps as hold the row so;
  # 1001: not whole vectors, in memory as by default)
  for K in l2v2 l2v4 l2fit; do
    for N in 1000 1001 4096 8000 16384; do
      SOLBENCH_ROW_VECTORS=$K check layernorm --M 21 --N $N --dtype $dt
      SOLBENCH_ROW_VECTORS=$K check softmax --M 19 --N $N --mode bwd --dtype $dt
    done
    SOLBENCH_ROW_VECTORS=$K check layernorm --M 999 --N 7168 --dtype $dt --weight_dtype fp32
  done
  # rows through shared memory in the CE and softmax kernels at DeepSeek-V3 widths
  check cross_entropy --M 40 --V 12288 --mode full --dtype $dt --ignore_frac 0.1
  check cross_entropy --M 40 --V 3072 --mode full --dtype $dt
  check softmax --M 40 --N 7168 --dtype $dt
  check flce --BT 50 --H 128 --V 333 --mode fwd --dtype $dt
done
# every access pattern of the STREAM kernels (the roofline keeps the fastest)
for p in solbook-stream solbook-stream-tiled solbook-stream-flat1 solbook-stream-flat4; do
  for k in copy triad; do
    check stream --N 1049600 --kernel $k --provider $p
  done
done
echo "gpu_kernels.sh: $n cases, $fails failed"
[[ $fails -eq 0 ]]

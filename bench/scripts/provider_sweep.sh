#!/usr/bin/env bash
# provider_sweep.sh - one preset's cases on one card, for every provider a
# maintainer would compare: the project's fused kernels and its reference
# (solbench), the Hugging Face code, torch.compile of it, and Liger-Kernel's
# own ops (bench/scripts/torch_ops.py), all under one protocol:
#
#   - L2 warm, one input set, the same seeded uniform inputs' ranges;
#   - call time (what the API's user sees) and kernel time (each repeat
#     queued behind a blocking kernel: solbench --hold; torch_ops.py's
#     held-launch or profiler-kernel-sum) recorded for every Python provider;
#     solbench's runs here are held, so their samples are kernel time;
#   - the float64 correctness gate before any timing, for every provider;
#   - the card's ceilings measured first (solbench roofline), so every
#     solbench result carries its fraction of the measured copy ceiling.
#
# usage: provider_sweep.sh OUT_DIR --solbench PATH [--preset NAME] [--cases FROM-TO]
#          [--only OP[:MODE],...] [--providers LIST] [--compile-preset NAME]
#          [--calibration FILE] [--iters N] [--repeats N] [--deadline SECONDS]
#
#   --preset          the solbench preset whose cases run (default liger-perkernel-quick)
#   --providers       torch_ops.py providers for the preset's cases
#                     (default huggingface,liger; torch.compile compiles every
#                     shape, so it runs on --compile-preset's cases)
#   --compile-preset  the preset whose cases torch.compile runs
#                     (default: --preset; "none" for no torch.compile)
#   --calibration     reuse this card's roofline from an earlier run (same GPU uuid)
#   --deadline        stop starting new steps after this many seconds (default 0: none)
#
# Writes OUT_DIR/{calibration.json,solbench/,python/,compile/,log.txt}; exit 1
# when a correctness check failed, 2 on usage errors.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="" solbench="" preset=liger-perkernel-quick cases="" only="" providers=huggingface,liger
compile_preset="" calibration="" iters=10 repeats=5 deadline=0
usage() { echo "provider_sweep.sh: usage: provider_sweep.sh OUT_DIR --solbench PATH [options] (see its header)" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --solbench) solbench=${2:-}; shift 2 ;;
    --preset) preset=${2:-}; shift 2 ;;
    --cases) cases=${2:-}; shift 2 ;;
    --only) only=${2:-}; shift 2 ;;
    --providers) providers=${2:-}; shift 2 ;;
    --compile-preset) compile_preset=${2:-}; shift 2 ;;
    --calibration) calibration=${2:-}; shift 2 ;;
    --iters) iters=${2:-}; shift 2 ;;
    --repeats) repeats=${2:-}; shift 2 ;;
    --deadline) deadline=${2:-}; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "provider_sweep.sh: unknown option $1" >&2; exit 2 ;;
    *) [[ -z "$out" ]] || usage; out=$1; shift ;;
  esac
done
[[ -n "$out" && -x "$solbench" ]] || usage
for v in iters repeats deadline; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "provider_sweep.sh: --$v takes a whole number, not '${!v}'" >&2; exit 2; }
done
compile_preset=${compile_preset:-$preset}
mkdir -p "$out/solbench" "$out/python" "$out/compile"
log=$out/log.txt
t0=$(date +%s)
step() { echo "== $(date -u +%H:%M:%S) +$(( $(date +%s) - t0 ))s $*" | tee -a "$log"; }
left() { (( deadline == 0 )) && { echo 100000; return; }; echo $(( deadline - ($(date +%s) - t0) )); }
rc=0
run_step() { # LIMIT-SECONDS COMMAND...: runs unless the deadline has passed
  local lim=$1; shift
  local l; l=$(left)
  if (( l < 15 )); then step "not run, deadline reached: $*"; rc=1; return; fi
  (( lim > l )) && lim=$l
  timeout "$lim" "$@" 2>&1 | tee -a "$log"
  local s=${PIPESTATUS[0]}
  (( s == 124 )) && step "stopped by its time limit: $1"
  (( s != 0 )) && rc=1
  return 0
}

step "card"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.limit \
  --format=csv,noheader 2>&1 | tee -a "$log"
uuid_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["provenance"]["device"].get("uuid",""))' "$1" 2>/dev/null; }
card=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | head -1)
if [[ -n "$calibration" && -f "$calibration" && "$(uuid_of "$calibration")" == "$card" ]]; then
  cp "$calibration" "$out/calibration.json"
else
  step "roofline"
  run_step 120 "$solbench" roofline --gemm-size 0 --out "$out/calibration.json"
fi

step "solbench: $preset${cases:+ cases $cases}${only:+ only $only}, held"
run_step 100000 "$solbench" suite --preset "$preset" ${cases:+--cases "$cases"} ${only:+--only "$only"} \
  --hold --l2 warm --input-sets 1 --iters "$iters" --repeats "$repeats" \
  --calibration "$out/calibration.json" --out "$out/solbench"

step "torch_ops.py: $providers"
run_step 100000 python3 "$here/torch_ops.py" --preset "$preset" ${cases:+--cases "$cases"} ${only:+--only "$only"} \
  --providers "$providers" --iters "$iters" --repeats "$repeats" --solbench "$solbench" --out "$out/python"

if [[ "$compile_preset" != none ]]; then
  step "torch_ops.py: torch-compile on $compile_preset"
  run_step 100000 python3 "$here/torch_ops.py" --preset "$compile_preset" ${only:+--only "$only"} \
    --providers torch-compile --iters "$iters" --repeats "$repeats" --solbench "$solbench" --out "$out/compile"
fi
step "done rc=$rc"
exit $rc

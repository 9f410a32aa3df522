#!/usr/bin/env bash
# ncu_profile.sh - run one solbench command under Nsight Compute and keep
# the speed-of-light metrics as NAME.ncu.csv next to the result NAME.json.
#
# usage: bench/scripts/ncu_profile.sh [--launch-skip N] [--launch-count N]
#            [--kernel-regex RE] [--detail] [--ncu PATH] -- SOLBENCH ARGS... --out NAME.json
#        bench/scripts/ncu_profile.sh --csv FILE.ncu.csv [--profile-range] [options] -- COMMAND...
#
# The solbench command must write one result file (--out NAME.json, one
# provider). Give it a short protocol (e.g. --warmup 2 --iters 3 --repeats
# 1): ncu replays every profiled launch. --launch-skip skips the first
# launches (the correctness and determinism runs come first: 2 launches
# for most providers, 4 for GEMM with its batch-invariance probe);
# --launch-count caps how many are profiled (default 5). Clocks are left
# as the card has them (--clock-control none), like the timed runs.
# --detail adds the sections that explain a shortfall (launch statistics,
# occupancy, warp states and stall reasons, scheduler, compute and memory
# workload) and keeps every raw metric they collect in the CSV.
# The CSV is `ncu --csv --page raw` of the exported report, so the
# solbench output does not mix with it. `solbook ingest` reads it.
# --csv FILE profiles any command (torch_ops.py, say) into FILE instead of
# next to a solbench result; --profile-range profiles only the launches
# between the command's cudaProfilerStart and Stop (torch_ops.py
# --profile-one), not counting launches before them.
set -euo pipefail

METRICS="sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum"
skip=0
count=5
regex=""
detail=0
csv=""
range=0
ncu=${NCU:-ncu}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --launch-skip) skip=$2; shift 2 ;;
    --launch-count) count=$2; shift 2 ;;
    --kernel-regex) regex=$2; shift 2 ;;
    --ncu) ncu=$2; shift 2 ;;
    --detail) detail=1; shift ;;
    --csv) csv=$2; shift 2 ;;
    --profile-range) range=1; shift ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) echo "ncu_profile.sh: unknown option $1 (put the solbench command after --)" >&2; exit 2 ;;
  esac
done
if [[ $# -lt 1 ]]; then
  echo "ncu_profile.sh: no solbench command given (usage: ncu_profile.sh [options] -- SOLBENCH ARGS... --out NAME.json)" >&2
  exit 2
fi
if ! command -v "$ncu" >/dev/null 2>&1; then
  echo "ncu_profile.sh: $ncu not found (install Nsight Compute or pass --ncu PATH)" >&2
  exit 2
fi
if [[ -z "$csv" ]]; then
  out=""
  args=("$@")
  for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[$i]}" in
      --out) out=${args[$((i + 1))]:-} ;;
      --out=*) out=${args[$i]#--out=} ;;
    esac
  done
  if [[ -z "$out" || "$out" != *.json ]]; then
    echo "ncu_profile.sh: the solbench command needs --out NAME.json (one result file), or give --csv FILE" >&2
    exit 2
  fi
  csv="${out%.json}.ncu.csv"
elif [[ "$csv" != *.ncu.csv ]]; then
  echo "ncu_profile.sh: --csv $csv: the name must end in .ncu.csv" >&2
  exit 2
fi
rep=$(mktemp -d)/profile
trap 'rm -rf "$(dirname "$rep")"' EXIT

filter=()
[[ -n "$regex" ]] && filter=(--kernel-name "regex:$regex")
[[ $range == 1 ]] && filter+=(--profile-from-start off)
sections=()
keep=(--metrics "$METRICS")
if [[ $detail == 1 ]]; then
  for s in SpeedOfLight LaunchStats Occupancy WarpStateStats SchedulerStats ComputeWorkloadAnalysis \
           MemoryWorkloadAnalysis; do
    sections+=(--section "$s")
  done
  keep=()
fi
# SOLBENCH_PROFILER: the result records protocol.profiler "ncu", so solbook never
# takes its replayed, serialised launches for timings.
SOLBENCH_PROFILER=ncu "$ncu" --clock-control none --metrics "$METRICS" "${sections[@]}" --launch-skip "$skip" --launch-count "$count" \
  "${filter[@]}" --export "$rep" --force-overwrite "$@"
"$ncu" --import "$rep.ncu-rep" --csv --page raw "${keep[@]}" > "$csv.tmp.$$"
mv "$csv.tmp.$$" "$csv"
echo "ncu_profile.sh: wrote $csv ($(($(wc -l < "$csv") - 2)) profiled launches)"

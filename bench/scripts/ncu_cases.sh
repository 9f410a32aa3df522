#!/usr/bin/env bash
# ncu_cases.sh - Nsight Compute profiles of a list of cases, the fused
# provider's kernels and, where the line names one, torch.compile's kernels
# of the same case, each in its own process, into OUTDIR:
#   NAME.json, NAME.ncu.csv          solbench's result (suite shortfalls-ncu:
#                                    a profiled run, not a timing) and the
#                                    profile of its kernels in one call
#   NAME.PROVIDER.ncu.csv            the kernels of one call of each Python
#                                    provider (--providers; default
#                                    torch-compile) after its warm-up
#   torch/*.json                     torch_ops.py's result of that case
#   ncu_cases.log                    what was run, and each step's exit
#
# usage: bench/scripts/ncu_cases.sh CASES OUTDIR --solbench PATH [--calibration FILE]
#            [--deadline SECONDS] [--no-torch] [--providers LIST]
#
# CASES has one case a line (# starts a comment):
#   NAME REGEX KERNELS TORCH-CASE SOLBENCH-ARGS...
# REGEX picks the case's own kernels by name (ncu --kernel-name regex:),
# KERNELS is how many of them one call launches: solbench's checked and
# determinism calls come first, so 2 x KERNELS are skipped and the next
# KERNELS (one timed call) profiled. TORCH-CASE is torch_ops.py's
# OP:MODE:DTYPE:K=V,... or - for none. SOLBENCH-ARGS name the op, shape
# and provider (stream copy lines too: the copy of the same bytes).
# --deadline: no case is started later than SECONDS after the start, so a
# lent machine's time limit ends no profile half-written.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cases="" out="" solbench="" calibration="" deadline=0 torch=1 providers=torch-compile
while [[ $# -gt 0 ]]; do
  case "$1" in
    --solbench) solbench=$2; shift 2 ;;
    --calibration) calibration=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    --no-torch) torch=0; shift ;;
    --providers) providers=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "ncu_cases.sh: unknown option $1" >&2; exit 2 ;;
    *) if [[ -z "$cases" ]]; then cases=$1; elif [[ -z "$out" ]]; then out=$1; else
         echo "ncu_cases.sh: one CASES file and one OUTDIR (got $1 too)" >&2; exit 2; fi; shift ;;
  esac
done
[[ -n "$cases" && -n "$out" && -n "$solbench" ]] || {
  echo "ncu_cases.sh: usage: ncu_cases.sh CASES OUTDIR --solbench PATH [--calibration FILE] [--deadline S] [--no-torch]" >&2
  exit 2
}
[[ -r "$cases" ]] || { echo "ncu_cases.sh: $cases: cannot read the cases file" >&2; exit 2; }
[[ "$deadline" =~ ^[0-9]+$ ]] || { echo "ncu_cases.sh: --deadline $deadline: whole seconds" >&2; exit 2; }

# Every line is checked before anything runs: a typo found after minutes
# of profiling costs a lent machine's time.
lines=() lineno=0
while read -r name regex kernels tcase args; do
  lineno=$((lineno + 1))
  [[ -z "${name:-}" || "$name" == \#* ]] && continue
  if [[ ! "$name" =~ ^[A-Za-z0-9._-]+$ || -z "${regex:-}" || ! "${kernels:-}" =~ ^[1-9][0-9]*$ \
        || -z "${tcase:-}" || -z "${args:-}" ]]; then
    echo "ncu_cases.sh: $cases:$lineno: expected NAME REGEX KERNELS TORCH-CASE|- SOLBENCH-ARGS..." >&2
    exit 2
  fi
  lines+=("$name $regex $kernels $tcase $args")
done < "$cases"
n=${#lines[@]}
[[ $n -gt 0 ]] || { echo "ncu_cases.sh: $cases: no cases" >&2; exit 2; }

mkdir -p "$out/torch" || exit 2
log="$out/ncu_cases.log"
t0=$(date +%s)
rc=0
echo "== ncu_cases.sh $cases: $n cases" | tee -a "$log"
for line in "${lines[@]}"; do
  read -r name regex kernels tcase args <<< "$line"
  if (( deadline > 0 && $(date +%s) - t0 >= deadline )); then
    echo "== $name: not run, past the deadline of ${deadline} s" | tee -a "$log"
    rc=1
    continue
  fi
  read -r -a sargs <<< "$args"
  echo "== $(date -u +%H:%M:%S) $name: solbench ${sargs[*]}" | tee -a "$log"
  "$here/ncu_profile.sh" --detail --kernel-regex "$regex" --launch-skip $((2 * kernels)) \
    --launch-count "$kernels" -- "$solbench" "${sargs[@]}" --warmup 2 --iters 3 --repeats 1 \
    --suite shortfalls-ncu ${calibration:+--calibration "$calibration"} --out "$out/$name.json" \
    >> "$log" 2>&1 < /dev/null
  s=$?
  echo "   fused: exit $s" | tee -a "$log"
  [[ $s -eq 0 ]] || rc=1
  if [[ $torch == 1 && "$tcase" != - ]]; then
    IFS=, read -r -a plist <<< "$providers"
    for p in "${plist[@]}"; do
      # torch.compile's own kernels are Triton's; the other providers' are
      # every kernel of the profiled call (Liger's Triton kernels, the
      # Hugging Face code's aten kernels)
      kre='.'
      [[ $p == torch-compile ]] && kre='^triton'
      echo "== $(date -u +%H:%M:%S) $name: $p $tcase" | tee -a "$log"
      "$here/ncu_profile.sh" --detail --profile-range --launch-count 64 --kernel-regex "$kre" \
        --csv "$out/$name.$p.ncu.csv" -- python3 "$here/torch_ops.py" --case "$tcase" \
        --providers "$p" --warmup 3 --iters 2 --repeats 1 --profile-one --suite shortfalls-ncu \
        --solbench "$solbench" --out "$out/torch" >> "$log" 2>&1 < /dev/null
      s=$?
      echo "   $p: exit $s" | tee -a "$log"
      [[ $s -eq 0 ]] || rc=1
    done
  fi
done
echo "== ncu_cases.sh done in $(( $(date +%s) - t0 )) s, exit $rc" | tee -a "$log"
exit $rc

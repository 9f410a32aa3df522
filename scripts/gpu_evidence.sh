#!/usr/bin/env bash
# gpu_evidence.sh - the measurements the issues ask for, on one GPU of any
# host, packed for examples/. Runs on the GPU host from the repository root,
# with binaries built elsewhere (scripts/gpu_carry.sh puts them in the carry
# folder); scripts/gpu_remote.sh copies the tree there over ssh, runs this
# and brings the archive back.
#
# usage: scripts/gpu_evidence.sh PART OUT_DIR
#   PART gemm:    roofline calibration, GEMM spec (every provider + torch),
#                 GEMM sweep, ncu speed-of-light profiles of the spec case
#                 (attached as sidecars to the spec results)
#   PART forge:   a real forge promotion (task, prompt, verify, bench, promote)
#   PART kernels: Liger per-kernel and memory-bound quick presets, against a
#                 calibration taken in the same run, plus torch eager/compile
#   PART full:    the whole liger-perkernel and memory-bound presets, or the
#                 parts of them named by LIGER=FROM-TO|none and
#                 MEMORY=FROM-TO|none in the environment (one call cannot
#                 hold both presets), ONLY=OP[:MODE],... for those ops'
#                 cases alone, COPY_BY_SIZE=1 for the copy ceiling at 16 MB
#                 to 8 GB, TORCH=1 for torch eager / torch.compile over the
#                 same cases, KERNEL_TESTS=1 to run tests/kernels/gpu_kernels.sh
#                 first; the card's roofline is taken once and reused by
#                 later calls on the same card. The device-data test runs
#                 first: the float64 references read inputs made on the
#                 device, so a mismatch there stops the run.
#   PART ab:      a kernel change measured: the carried base build against
#                 this one, case by case in turn (CASES=FILE, see
#                 bench/scripts/ab_compare.sh); KERNEL_TESTS=1 as in full
#   PART plans:   launch plans of one kernel in this build, case by case and
#                 plan by plan in turn (bench/scripts/plan_compare.py:
#                 CASES=FILE PLAN_ENV=VAR PLANS=A,B,... [ROUNDS=2] [TORCH=1])
#   PART profiles: Nsight Compute of the cases of CASES=FILE[,FILE...]
#                 (bench/scripts/ncu_cases.sh: the fused kernels, torch.compile's
#                 kernels of the same case, the STREAM copy of the same bytes),
#                 each file into profiles/<its name>/; KERNEL_TESTS=1 as in full
#   PART checks:  the GPU tests with the carried binaries: solbench on the
#                 card, the kernels' awkward shapes, forge's hostile candidates
#                 actually running (never-ending, wrong answer, slower)
#                 and the sandbox probe (escapes by raw system calls)
# Settings (environment):
#   CALL_LIMIT=SECONDS (560; 0: none): for a host that ends a command after
#                 a fixed time (600 s where the default comes from). Each
#                 timed step's own limit (the *_LIMIT variables, whole
#                 seconds) is cut to what is left of it less 20 s (1 s at the
#                 least), so the results are packed before that end whatever
#                 the steps' limits add up to; the short untimed steps (the
#                 card's details, the roofline, packing) are not counted.
#   CARRY_DIR=DIR (.carry): where gpu_carry.sh put the binaries.
#   WORK_DIR=DIR (/tmp/evidence): where the results are gathered, and the
#                 card's roofline kept between calls.
# Writes OUT_DIR/evidence-<arch>-<part>.tar.gz and prints a short summary.
set -uo pipefail
part=${1:?usage: gpu_evidence.sh gemm|forge|kernels|full|ab|plans|profiles|checks OUT_DIR}
out=${2:?usage: gpu_evidence.sh gemm|forge|kernels|full|ab|plans|profiles|checks OUT_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export SOLBOOK_HOME=$top
carry=${CARRY_DIR:-.carry}
[[ $carry == /* ]] || carry=$top/$carry
evid=${WORK_DIR:-/tmp/evidence}
export LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The carried bwrap (forge's sandbox) where the host has none of its own.
export PATH=$PATH:$carry/bin
# The binaries were built from the commit gpu_carry.sh recorded: state it.
# A .git on the GPU host need not be this tree's (a stale copy records an
# old commit, dirty, for every result of a run).
if [[ -f $carry/GIT_SHA ]]; then
  export SOLBOOK_GIT_SHA=$(cat "$carry/GIT_SHA") SOLBOOK_GIT_DIRTY=$(cat "$carry/GIT_DIRTY")
fi
sb=$carry/bin/solbench
sk=$carry/bin/solbook
arch=$("$sk" collect 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["device"]["arch"])')
[[ -n "$arch" && "$arch" != unknown ]] || { echo "gpu_evidence: cannot tell the card's arch"; "$sk" collect; exit 2; }
w=$evid/$arch-$part
rm -rf "$w"; mkdir -p "$w" "$out"
t0=$(date +%s)
# Every step's time limit is cut to what is left of CALL_LIMIT seconds
# (default 560, for a host that ends a command at 600 s: a call ended there
# brings nothing back), keeping 20 s to pack the results, so a call that
# runs long still returns what it measured. CALL_LIMIT=0: the steps' own
# limits alone.
call_limit=${CALL_LIMIT:-560}
for v in CALL_LIMIT KERNELS_LIMIT FULL_LIMIT AB_LIMIT PLANS_LIMIT; do
  [[ -z "${!v:-}" || "${!v}" =~ ^[0-9]+$ ]] || { echo "gpu_evidence: $v=${!v}: whole seconds"; exit 2; }
done
limit() {
  (( call_limit == 0 )) && { echo "$1"; return; }
  local left=$(( call_limit - ($(date +%s) - t0) - 20 ))
  (( left < 1 )) && left=1
  echo $(( $1 < left ? $1 : left ))
}
echo "== $arch $part, commit ${SOLBOOK_GIT_SHA:-from .git}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.limit --format=csv,noheader

rc=0
# KERNEL_TESTS=1: tests/kernels/gpu_kernels.sh before the part's own steps
# (ab, plans, profiles; full runs it with its own limit, below)
kernel_tests() {
  [[ "${KERNEL_TESTS:-0}" == 1 ]] || return 0
  timeout "$(limit 300)" bash tests/kernels/gpu_kernels.sh "$sb" > "$w/gpu_kernels.log" 2>&1; krc=$?
  echo "gpu_kernels.sh: exit $krc"; grep FAILED "$w/gpu_kernels.log" | head; tail -1 "$w/gpu_kernels.log"
  [[ $krc -eq 0 ]] || rc=1
}
case $part in
gemm)
  timeout "$(limit 330)" bench/scripts/evidence.sh "$w/gemm" --solbench "$sb" > "$w/gemm.log" 2>&1 || rc=$?
  echo "evidence.sh rc=$rc t=$(( $(date +%s) - t0 ))s"
  # The spec case's ncu profile (same binary, card and case, in its own
  # process: ncu replays kernels, so it cannot share the timed process)
  # is attached to that provider's spec result as its sidecar.
  for csv in "$w"/gemm/ncu/gemm-spec-*.ncu.csv; do
    [[ -f "$csv" ]] || continue
    p=${csv##*/gemm-spec-}; p=${p%.ncu.csv}
    for j in "$w"/gemm/spec/*.json; do
      if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["config"]["provider"]==sys.argv[2] else 1)' "$j" "$p"; then
        cp "$csv" "${j%.json}.ncu.csv"
      fi
    done
  done
  ;;
forge)
  OUT=$w SOLBOOK=$sk timeout "$(limit 200)" sh forge/scripts/gpu_promotion.sh > "$w/forge.log" 2>&1; rc=$?
  echo "forge promotion rc=$rc t=$(( $(date +%s) - t0 ))s"; tail -15 "$w/forge.log"
  ;;
kernels)
  "$carry/bin/test_device_data" > "$w/device_data.log" 2>&1 || rc=1
  tail -1 "$w/device_data.log"
  timeout "$(limit "${KERNELS_LIMIT:-540}")" bench/scripts/evidence_kernels.sh "$w/kernels" --solbench "$sb" > "$w/kernels.log" 2>&1 || rc=$?
  pkill -f "$sb" 2>/dev/null # a solbench the time limit left running
  echo "evidence_kernels.sh rc=$rc t=$(( $(date +%s) - t0 ))s"
  ;;
full)
  if ! "$carry/bin/test_device_data" > "$w/device_data.log" 2>&1; then
    echo "test_device_data failed: the references would read other inputs than the card's"; cat "$w/device_data.log"
    rc=1
  else
    tail -1 "$w/device_data.log"
    if [[ "${KERNEL_TESTS:-0}" == 1 ]]; then
      timeout "$(limit 240)" bash tests/kernels/gpu_kernels.sh "$sb" > "$w/gpu_kernels.log" 2>&1; krc=$?
      echo "gpu_kernels.sh: exit $krc"; tail -3 "$w/gpu_kernels.log"
      [[ $krc -eq 0 ]] || rc=1
    fi
    cal=$evid/calibration-$arch.json
    timeout "$(limit "${FULL_LIMIT:-540}")" bench/scripts/evidence_kernels.sh "$w/kernels" --solbench "$sb" --full \
      $([[ "${TORCH:-0}" == 1 ]] || echo --no-torch) \
      --no-ncu --calibration "$cal" --liger-cases "${LIGER:-}" --memory-cases "${MEMORY:-}" ${ONLY:+--only "$ONLY"} \
      $([[ "${COPY_BY_SIZE:-0}" == 1 ]] && echo --copy-by-size) > "$w/kernels.log" 2>&1 || rc=$?
    pkill -f "$sb" 2>/dev/null # a solbench the time limit left running
    cp "$w/kernels/calibration.json" "$cal" 2>/dev/null
    echo "evidence_kernels.sh --full rc=$rc t=$(( $(date +%s) - t0 ))s"
    grep -E "^== |\(case " "$w/kernels.log" | tail -4
  fi
  ;;
ab|plans)
  # ab: two builds, case by case in turn, on this card (bench/scripts/ab_compare.sh):
  # the carry folder's solbench-base (gpu_carry.sh --base REV) against this
  # tree's; CASES=FILE (default bench/scripts/ab_cases.txt).
  # plans: one build's launch plans of a kernel, case by case and plan by
  # plan in turn (bench/scripts/plan_compare.py): CASES=FILE, PLAN_ENV=VAR,
  # PLANS=A,B,..., ROUNDS (2), TORCH=1 for torch.compile of each case too.
  # Both: the card's roofline reused as in full; KERNEL_TESTS=1 as in full
  cal=$evid/calibration-$arch.json
  uuid() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["provenance"]["device"].get("uuid",""))' "$1" 2>/dev/null; }
  here=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | head -1)
  if [[ ! -f "$cal" || "$(uuid "$cal")" != "$here" ]]; then
    "$sb" roofline --gemm-size 0 --out "$cal" > "$w/roofline.log" 2>&1 || rc=1
  fi
  cp "$cal" "$w/calibration.json"
  kernel_tests
  if [[ $part == ab ]]; then
    [[ -f $carry/GIT_SHA_BASE ]] && export AB_BASE_GIT_SHA=$(cat "$carry/GIT_SHA_BASE")
    timeout "$(limit "${AB_LIMIT:-300}")" bash bench/scripts/ab_compare.sh "$carry/bin/solbench-base" "$sb" "$w/ab" "$cal" \
      < "${CASES:-bench/scripts/ab_cases.txt}" > "$w/ab.log" 2>&1 || rc=1
    cat "$w/ab.log"
  else
    pargs=(--solbench "$sb" --cases "${CASES:?CASES=FILE}" --env "${PLAN_ENV:?PLAN_ENV=VAR}"
           --plans "${PLANS:?PLANS=A,B,...}" --rounds "${ROUNDS:-2}" --calibration "$cal" --out "$w/plans")
    [[ "${TORCH:-0}" == 1 ]] && pargs+=(--torch)
    timeout "$(limit "${PLANS_LIMIT:-400}")" python3 bench/scripts/plan_compare.py "${pargs[@]}" > "$w/plans.log" 2>&1; prc=$?
    pkill -f "$sb" 2>/dev/null # a solbench the time limit left running
    if [[ $prc -eq 124 ]]; then
      # stopped by its limit before its table: the table of what it measured
      echo "plan_compare.py: stopped by its time limit; the table of the results so far:" >> "$w/plans.log"
      python3 bench/scripts/plan_compare.py "${pargs[@]}" --summarize >> "$w/plans.log" 2>&1
    fi
    [[ $prc -eq 0 ]] || rc=1
    cat "$w/plans.log"
  fi
  echo "$part t=$(( $(date +%s) - t0 ))s"
  ;;
profiles)
  cal=$evid/calibration-$arch.json
  kernel_tests
  IFS=, read -r -a files <<< "${CASES:?CASES=FILE[,FILE...]}"
  for f in "${files[@]}"; do
    d=$w/profiles/$(basename "${f%.txt}")
    # no case starts once what is left of the call would not see it through
    left=$(( call_limit == 0 ? 86400 : call_limit - ($(date +%s) - t0) - 60 ))
    if (( left < 1 )); then echo "$f: not run, no time left"; rc=1; continue; fi
    timeout "$(limit 590)" bash bench/scripts/ncu_cases.sh "$f" "$d" --solbench "$sb" \
      $([[ -f "$cal" ]] && echo --calibration "$cal") --deadline "$left" > "$w/profiles-$(basename "$f").log" 2>&1 || rc=1
    pkill -f "$sb" 2>/dev/null
    grep -E "^== |exit" "$w/profiles-$(basename "$f").log" | grep -v "exit 0" | tail -20
  done
  echo "profiles t=$(( $(date +%s) - t0 ))s"
  ;;
checks)
  for t in "$carry/bin/test_device_data" "python3 tests/bench/test_solbench_gpu.py $sb $sk" \
           "bash tests/kernels/gpu_kernels.sh $sb" \
           "sh tests/forge/hostile.sh $sk gpu" "sh tests/forge/hostile.sh $sk escape"; do
    timeout "$(limit 240)" $t > "$w/check.log" 2>&1; trc=$?
    echo "$t: exit $trc"; tail -5 "$w/check.log"
    cat "$w/check.log" >> "$w/checks.log"
    [[ $trc -eq 0 ]] || rc=1
  done
  rm -f "$w/check.log"
  ;;
*) echo "gpu_evidence: PART is gemm, forge, kernels, full, ab, plans, profiles or checks"; exit 2 ;;
esac

# A quick look at what was measured, for the call's reply.
python3 - "$w" <<'PY'
import json, glob, os, sys, collections
w = sys.argv[1]
cal = sorted(glob.glob(w + '/**/calibration.json', recursive=True))
for c in cal[:1]:
    d = json.load(open(c))
    print('calibration:', ' '.join('%s=%.0f' % (k, v['gbps']) for k, v in d['bandwidth'].items()), 'GB/s;',
          ' '.join('%s=%.0f' % (k, v['tflops']) for k, v in d['gemm_peak'].items()), 'TFLOP/s')
st = collections.Counter()
for f in glob.glob(w + '/**/*.json', recursive=True):
    try: d = json.load(open(f))
    except Exception: continue
    if d.get('schema') != 'solbook.result.v1': continue
    st[d['status']] += 1
    c, m = d['config'], d.get('metrics', {})
    if d['status'] != 'passed' or 'spec' in f:
        print('%-8s %-14s %-5s %-5s %-16s %s %s' % (d['status'], c['op'], c['mode'], c['dtype'], c['provider'],
              ','.join('%s=%s' % kv for kv in sorted(c['shape'].items())),
              ('med=%.4fms tflops=%s gbps=%s' % (d['timing']['stats']['median'], m.get('tflops'), m.get('gbps'))) if 'timing' in d else d.get('reason', '')[:100]))
print('results:', dict(st))
PY
tar czf "$out/evidence-$arch-$part.tar.gz" -C "$evid" "$arch-$part"
ls -la "$out"
echo "== done t=$(( $(date +%s) - t0 ))s rc=$rc"

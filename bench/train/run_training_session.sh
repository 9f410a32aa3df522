#!/usr/bin/env bash
# run_training_session.sh - one training session: baseline and liger
# launches of bench/train/llama_fsdp.py alternating on this host's GPUs, in
# rounds of balanced order (baseline liger | liger baseline | baseline liger
# ...), every launch with the same session id, its round and position, the
# order, the same seed and tokens, its warm-up steps then the timed steps.
# Drift of clocks, temperature and neighbours between launches then falls on
# both modes alike, and the step-time ratio is taken round by round
# (docs/TRAINING.md). Each liger launch keeps the loss gate against the
# session's first baseline launch. A launch that fails ends the session.
#
# usage: bench/train/run_training_session.sh OUT_DIR [OPTIONS] [-- LLAMA_FSDP OPTIONS...]
#   --nproc N          processes (GPUs) of this host, one launch at a time (default 1)
#   --rounds R         rounds, each one baseline and one liger launch (default 3, at least 2)
#   --preset P         llama_fsdp.py preset (default llama3.2-1b: fits one 80 GB card)
#   --warmup-steps W   untimed steps of each launch (default 3)
#   --steps K          timed steps of each launch (default 10)
#   --seed S           weights and tokens of every launch (default 1234)
#   --time-limit-s T   the whole session (default 3000); each launch gets what is left
#   --launch-limit-s T one launch at most (default 900)
#   --session-id HEX32 the session's id (default: a new random one)
# Options after -- go to every launch (e.g. --seq-len 4096, --device cpu).
# Writes OUT_DIR/rROUND-pPOSITION-MODE.json and .log per launch and
# OUT_DIR/session.tsv (one line a launch: round, position, mode, exit
# status, file). The solbook program for the provenance is found as
# llama_fsdp.py finds it (--solbook after --, $SOLBOOK, .carry/bin, build/cli).
# Environment: TORCHRUN as for run_llama_fsdp.sh.
# Exit status: 0 every launch passed or was skipped (liger mode on the
# CPU runs nothing, docs/TRAINING.md); else the failing launch's status
# (1 failed, 2 usage or setup, 3 or 124 its time ran out), 124 when the
# session's time ran out before a launch, 2 for a bad option here.
set -uo pipefail
me=run_training_session.sh
usage() { echo "usage: $me OUT_DIR [--nproc N] [--rounds R] [--preset P] [--warmup-steps W] [--steps K] [--seed S] [--time-limit-s T] [--launch-limit-s T] [--session-id HEX32] [-- LLAMA_FSDP OPTIONS...]" >&2; exit 2; }
bad() { echo "$me: $*" >&2; exit 2; }
[[ $# -ge 1 && "$1" != -* ]] || usage
out=$1
shift
nproc=1 rounds=3 preset=llama3.2-1b warmup=3 steps=10 seed=1234 limit=3000 launch_limit=900 sid=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nproc|--rounds|--preset|--warmup-steps|--steps|--seed|--time-limit-s|--launch-limit-s|--session-id)
      [[ $# -ge 2 ]] || bad "$1 needs a value"
      case "$1" in
        --nproc) nproc=$2 ;; --rounds) rounds=$2 ;; --preset) preset=$2 ;;
        --warmup-steps) warmup=$2 ;; --steps) steps=$2 ;; --seed) seed=$2 ;;
        --time-limit-s) limit=$2 ;; --launch-limit-s) launch_limit=$2 ;; --session-id) sid=$2 ;;
      esac
      shift 2 ;;
    --) shift; break ;;
    *) bad "unknown option '$1' (options for llama_fsdp.py go after --)" ;;
  esac
done
extra=("$@")
for v in nproc rounds steps launch_limit limit; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || bad "--${v//_/-} must be a positive number, not '${!v}'"
done
[[ "$warmup" =~ ^[0-9]+$ ]] || bad "--warmup-steps must be a number, not '$warmup'"
[[ "$seed" =~ ^[0-9]+$ ]] || bad "--seed must be a number, not '$seed'"
[[ $rounds -ge 2 ]] || bad "--rounds must be at least 2: a paired ratio needs two rounds for its interval"
for x in "${extra[@]}"; do
  case "$x" in
    --out|--out=*|--liger-mode*|--check-against*|--check-steps*|--session-*|--seed*|--steps*|--warmup-steps*|--preset*)
      bad "'$x' is the session's to set, not a launch option" ;;
  esac
done
if [[ -z "$sid" ]]; then
  sid=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
fi
[[ "$sid" =~ ^[0-9a-f]{32}$ ]] || bad "--session-id must be 32 lower-case hex digits, not '$sid'"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" || bad "cannot make $out"

# Balanced order: even rounds baseline first, odd rounds liger first, so
# each mode runs first and second equally often (A B B A A B ...). Round 0
# starts with the baseline whose losses gate every liger launch.
order=""
for ((r = 0; r < rounds; r++)); do
  [[ $r -gt 0 ]] && order+="/"
  if ((r % 2 == 0)); then order+="baseline,liger"; else order+="liger,baseline"; fi
done
IFS=/ read -r -a round_modes <<< "$order"
launches=$((rounds * 2))
echo "$me: session $sid: $rounds rounds ($order), $nproc GPU(s), preset $preset, seed $seed," \
     "$warmup warm-up + $steps timed steps a launch, limit ${limit} s"
printf 'round\tposition\tmode\texit\tfile\n' > "$out/session.tsv"

gate=""
n=0
skipped=0
for ((r = 0; r < rounds; r++)); do
  IFS=, read -r -a modes <<< "${round_modes[$r]}"
  for ((p = 0; p < ${#modes[@]}; p++)); do
    mode=${modes[$p]}
    n=$((n + 1))
    left=$((limit - SECONDS))
    if [[ $left -lt 30 ]]; then
      echo "$me: session $sid ends: its ${limit} s ran out before launch $n of $launches" \
           "(round $r, $mode); $((n - 1)) launches done" >&2
      exit 124
    fi
    this_limit=$launch_limit
    [[ $left -lt $this_limit ]] && this_limit=$left
    file="$out/r$r-p$p-$mode.json"
    log="$out/r$r-p$p-$mode.log"
    args=(--preset "$preset" --liger-mode "$mode" --seed "$seed" --warmup-steps "$warmup" --steps "$steps"
          --session-id "$sid" --session-round "$r" --session-position "$p" --session-order "$order"
          --out "$file")
    # the loss gate compares llama_fsdp.py's default 5 steps, or every
    # step of a shorter launch
    gate_steps=$((warmup + steps < 5 ? warmup + steps : 5))
    [[ "$mode" == liger ]] && args+=(--check-against "$gate" --check-steps "$gate_steps")
    echo "$me: launch $n of $launches: round $r position $p $mode (limit ${this_limit} s) -> $file"
    rm -f "$file"
    LIMIT=$this_limit bash "$here/run_llama_fsdp.sh" "$nproc" "${args[@]}" "${extra[@]}" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    printf '%d\t%d\t%s\t%d\t%s\n' "$r" "$p" "$mode" "$rc" "$(basename "$file")" >> "$out/session.tsv"
    if [[ $rc -ne 0 ]]; then
      echo "$me: session $sid ends: launch $n of $launches (round $r, $mode) exited $rc (log $log)" >&2
      exit "$rc"
    fi
    if [[ ! -s "$file" ]]; then
      echo "$me: session $sid ends: launch $n of $launches (round $r, $mode) exited 0 but wrote no $file" >&2
      exit 1
    fi
    # A skipped launch (liger mode on the CPU) ran nothing; the session goes
    # on so the CPU path is exercised whole, and says so at the end.
    grep -q '"status": "skipped"' "$file" && skipped=$((skipped + 1))
    [[ -z "$gate" && "$mode" == baseline ]] && gate=$file
  done
done
if [[ $skipped -gt 0 ]]; then
  echo "$me: session $sid done in ${SECONDS} s: $((launches - skipped)) launches passed, $skipped skipped" \
       "(nothing run, no pair); files in $out"
else
  echo "$me: session $sid done: $launches launches passed in ${SECONDS} s; files in $out"
fi

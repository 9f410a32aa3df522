#!/usr/bin/env bash
# test_fleet_spread.sh SOLBENCH-SPREAD - the multi-GPU spread of a preset,
# without GPUs: a stand-in solbench records how it was called (arguments,
# CUDA_DEVICE_ORDER, the GPU) and writes one result-named file per case.
# The real run on a two-GPU machine is examples/fleet/ (README there).
set -uo pipefail
SPREAD=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
checks=0
ok() { checks=$((checks + 1)); echo "ok: $*"; }
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }

cat >"$tmp/solbench" <<'EOS'
#!/usr/bin/env bash
# stand-in: solbench OP ... --device N --out DIR/ ...
op=$1; dev=""; out=""; prev=""
for a in "$@"; do
  [[ $prev == --device ]] && dev=$a
  [[ $prev == --out ]] && out=$a
  prev=$a
done
# Overlap, not timing: each case marks its GPU as started and waits (up to
# 60 s) for a case on the other GPU of 0,1 to have started too. Both GPUs
# meet only when cases run two at a time; a serial spread records met=0
# after the wait instead of passing or failing by the clock.
touch "${out}.started-$dev"
other=$((1 - dev))
met=0
for _ in $(seq 600); do
  if [[ -e "${out}.started-$other" ]]; then met=1; break; fi
  sleep 0.1
done
printf '{"argv": "%s", "device": %s, "order": "%s", "met": %s}\n' "$*" "$dev" "${CUDA_DEVICE_ORDER:-}" "$met" \
  >"$(mktemp --suffix=.json "${out}case-$op-XXXXXX")"
echo "stand-in ran $op on $dev"
[[ $op == stream ]] && exit 1
exit 0
EOS
chmod +x "$tmp/solbench"

"$SPREAD" --preset smoke --out "$tmp" --gpus 0,1 --solbench "$tmp/solbench" -- --iters 3 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc == 1 ]]; then ok "exit 1 when a case reports a failed check"; else bad "exit $rc, expected 1"; cat "$tmp/err"; fi
dir=$(ls -d "$tmp"/smoke-*)
n=$(ls "$dir"/*.json | wc -l)
if [[ $n == 4 ]]; then ok "4 cases, 4 result files"; else bad "$n result files"; fi
if grep -q "^4 result files in $dir; cases per GPU: 0:[1-3] 1:[1-3]$" "$tmp/out"; then ok "both GPUs took cases"; else
  bad "per-GPU summary"; cat "$tmp/out"; fi
for d in 0 1; do
  if grep -h '"device": '$d',' "$dir"/*.json >/dev/null; then ok "GPU $d has results tagged with its index"; else bad "no results from GPU $d"; fi
  if [[ -s "$dir/spread-gpu$d.log" ]] && grep -q "stand-in ran .* on $d" "$dir/spread-gpu$d.log"; then ok "spread-gpu$d.log holds GPU $d's output"; else bad "spread-gpu$d.log"; fi
done
if grep -h '"argv"' "$dir"/*.json | grep -qF "gemm --mode fwd --dtype fp16 --M 64 --N 48 --K 32 --transa n --transb n --suite smoke --device "; then
  ok "a preset case becomes solbench OP --mode --dtype --SHAPE --PARAM --suite --device"; else bad "case argv"; grep -h argv "$dir"/*.json; fi
if grep -h '"argv"' "$dir"/*.json | grep -qF "stream --mode fwd --dtype fp32 --N 65536 --kernel triad --suite smoke"; then
  ok "stream case argv"; else bad "stream case argv"; fi
if [[ $(cat "$dir"/*.json | grep -c -- "--out $dir/ --iters 3\"") == 4 ]]; then ok "options after -- reach every case"; else bad "passthrough options"; fi
if [[ $(cat "$dir"/*.json | grep -c '"order": "PCI_BUS_ID"') == 4 ]]; then ok "CUDA_DEVICE_ORDER=PCI_BUS_ID in every child"; else bad "CUDA_DEVICE_ORDER"; fi
if [[ $(cat "$dir"/*.json | grep -c '"met": 1') == 4 ]]; then ok "cases ran two at a time (each case saw the other GPU's start)"; else
  bad "cases did not overlap"; grep -h '"met"' "$dir"/*.json; fi

"$SPREAD" --preset smoke --out "$tmp" --gpus 0 --solbench "$tmp/solbench" -- --device 1 >/dev/null 2>"$tmp/err2"
if [[ $? == 2 ]] && grep -q "is set per case" "$tmp/err2"; then ok "--device after -- refused"; else bad "--device passthrough"; fi
"$SPREAD" --preset smoke --out "$tmp" --gpus 0,0 --solbench "$tmp/solbench" >/dev/null 2>"$tmp/err3"
if [[ $? == 2 ]] && grep -q "GPU 0 is listed twice" "$tmp/err3"; then ok "--gpus 0,0 refused"; else bad "--gpus 0,0"; fi
"$SPREAD" --preset smoke --out "$tmp" --gpus 0 --solbench "$tmp/no-such-solbench" >/dev/null 2>"$tmp/err4"
if [[ $? == 2 ]] && grep -q "no-such-solbench: not found" "$tmp/err4"; then ok "missing solbench named"; else bad "missing solbench"; cat "$tmp/err4"; fi
# --gpus all under a scheduler: the ordinals of CUDA_VISIBLE_DEVICES.
CUDA_VISIBLE_DEVICES=3,5 "$SPREAD" --preset smoke --out "$tmp" --solbench "$tmp/solbench" >"$tmp/out5" 2>&1
if grep -q "over 2 GPUs (0,1)" "$tmp/out5"; then ok "--gpus all takes CUDA_VISIBLE_DEVICES=3,5 as ordinals 0,1"; else bad "CUDA_VISIBLE_DEVICES"; cat "$tmp/out5"; fi
CUDA_VISIBLE_DEVICES= "$SPREAD" --preset smoke --out "$tmp" --solbench "$tmp/solbench" >/dev/null 2>"$tmp/err5"
if [[ $? == 2 ]] && grep -q "no GPU" "$tmp/err5"; then ok "empty CUDA_VISIBLE_DEVICES: no GPU"; else bad "empty CUDA_VISIBLE_DEVICES"; fi
# Every preset the shipped experiments spread is one solbench has.
for exp in "${SOLBOOK_HOME:-.}"/data/experiments/*.json; do
  for p in $(grep -A2 '"solbench-spread"' "$exp" | grep -A1 '"--preset"' | grep -v -- '--preset' | tr -d ' ",'); do
    "$SPREAD" --preset "$p" --out "$tmp/no-such-dir" >/dev/null 2>"$tmp/err6"
    if grep -q "not an existing directory" "$tmp/err6"; then ok "$(basename "$exp"): preset $p exists"; else
      bad "$(basename "$exp"): preset $p"; cat "$tmp/err6"; fi
  done
done
# The help is made from the option table; a bad option is one line, exit 2.
"$SPREAD" --help >"$tmp/help" 2>&1
for o in preset out gpus solbench help; do
  if grep -qE "^  (-h, |    )--$o( |$)" "$tmp/help"; then ok "--help lists --$o"; else bad "--help lacks --$o"; fi
done
rc=0
"$SPREAD" --prest smoke >/dev/null 2>"$tmp/err7" || rc=$?
want="solbench-spread: unknown option '--prest'; did you mean '--preset'? (options for solbench go after --)"
if [[ $rc == 2 && $(cat "$tmp/err7") == "$want" ]]; then ok "a mistyped option: exit 2, \"$want\""; else
  bad "a mistyped option: exit $rc, $(cat "$tmp/err7")"; fi
echo "test_fleet_spread: $checks checks passed, $fails failed"
[[ $fails == 0 ]]

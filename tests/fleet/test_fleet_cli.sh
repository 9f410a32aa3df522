#!/usr/bin/env bash
# test_fleet_cli.sh SOLBOOK DATA - solbook experiments, submit and
# ingest --fleet end to end, with no cluster: the rendered Job is validated
# against data/schemas/k8s-batch-v1-job.json, the Slurm script passes bash -n and
# carries its #SBATCH lines, submitting without kubectl/sbatch gives one
# line and exit 2, and a fleet tree with duplicates and partial files is
# gathered.
set -uo pipefail
SOLBOOK=$1
DATA=$2
HOME_DIR=${SOLBOOK_HOME:?SOLBOOK_HOME must point at the source tree}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
checks=0

ok() { checks=$((checks + 1)); echo "ok: $*"; }
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }

# expect STATUS FILE-PREFIX CMD...: runs CMD, keeps stdout/stderr in
# $tmp/PREFIX.out/.err, checks the exit status.
expect() {
  local want=$1 name=$2
  shift 2
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local got=$?
  if [[ $got == "$want" ]]; then ok "$name: exit $got"; else
    bad "$name: exit $got, expected $want"; sed 's/^/    /' "$tmp/$name.err"; fi
}
has() { # has NAME.out|err TEXT
  if grep -qF -- "$2" "$tmp/$1"; then ok "$1 has: $2"; else bad "$1 lacks: $2"; sed 's/^/    /' "$tmp/$1"; fi
}
lines() { # lines FILE N
  local n
  n=$(wc -l <"$tmp/$1")
  if [[ $n == "$2" ]]; then ok "$1: $2 line(s)"; else bad "$1: $n lines, expected $2"; cat "$tmp/$1"; fi
}

# --- experiments list / explain
expect 0 list "$SOLBOOK" experiments list
lines list.out 7
has list.out "gemm-spec             a100,h100,h200   validate-results  The frozen GEMM reference"
has list.out "liger-perkernel       a100,h100,h200   report-geomean"
has list.out "liger-fsdp            a100,h100,h200   report-training"
has list.out "roofline-calibration  a100,h100,h200   report-roofline"

expect 0 explain "$SOLBOOK" experiments explain gemm-spec --arch h100
has explain.out "  h100-sxm5-80gb   H100 SXM5 80GB; nvidia.com/gpu.product = NVIDIA-H100-80GB-HBM3"
has explain.out "  h100-nvl-94gb    H100 NVL 94GB; nvidia.com/gpu.product = NVIDIA-H100-NVL"
has explain.out "each case asks for 1 GPU, 8 CPU cores, 32 GiB host memory, at most 00:20:00;"
has explain.out '$ ncu --clock-control none --metrics "$NCU_METRICS" --launch-skip 4 --launch-count 3 --export REPORT --force-overwrite solbench gemm --spec --provider cublas --out OUT/spec/gemm-spec-cublas.json'
has explain.out '$ ncu --import REPORT.ncu-rep --csv --page raw --metrics "$NCU_METRICS" > OUT/spec/gemm-spec-cublas.ncu.csv'
has explain.out "writes: OUT/spec/gemm-spec-solbook-mma.json OUT/spec/gemm-spec-solbook-mma.ncu.csv"
has explain.out "then: solbook ingest --fleet ROOT/gemm-spec/h100"
has explain.out '  $ solbook validate-results --arch h100'
if grep -q "a100-\|h200-" "$tmp/explain.out"; then bad "explain h100 names SKUs of other archs"; else ok "explain h100 names only h100 SKUs"; fi

expect 0 explain2 "$SOLBOOK" experiments explain roofline-calibration --arch h200
has explain2.out "Nsight Compute off on h200"
has explain2.out '$ solbench roofline --out OUT/calibration/roofline-h200.json'
has explain2.out '  $ solbook report roofline --sku h200-sxm-141gb'
has explain2.out '  $ solbook report roofline --sku h200-nvl-141gb'

expect 2 unknown-name "$SOLBOOK" experiments explain gemm-speck --arch h100
lines unknown-name.err 1
has unknown-name.err "solbook: no experiment gemm-speck (known: gemm-spec gemm-sweep liger-fsdp liger-perkernel memory-bound roofline-calibration)"
expect 2 unknown-arch "$SOLBOOK" experiments explain gemm-spec --arch b200
lines unknown-arch.err 1
has unknown-arch.err "solbook: --arch b200: not an arch of data/skus.csv (a100, h100, h200)"
expect 2 no-arch "$SOLBOOK" experiments explain gemm-spec
has no-arch.err "--arch ARCH is required"

# An invalid experiment file: its path and the JSON pointer.
mkdir -p "$tmp/exps"
cp "$HOME_DIR/data/experiments/gemm-sweep.json" "$tmp/exps/"
cp "$DATA/fleet/bad/zero-gpus.json" "$tmp/exps/"
expect 1 bad-file "$SOLBOOK" experiments list --dir "$tmp/exps"
lines bad-file.err 1
has bad-file.err "solbook: $tmp/exps/zero-gpus.json: /archs/h100/gpus: schema"
has bad-file.err "minimum: 0 is less than the minimum 1"
rm "$tmp/exps/zero-gpus.json"
cp "$DATA/fleet/bad/bad-placeholder.json" "$tmp/exps/"
expect 1 bad-placeholder "$SOLBOOK" submit gemm-sweep --arch h100 --engine slurm --print --dir "$tmp/exps"
has bad-placeholder.err "solbook: $tmp/exps/bad-placeholder.json: /cases/0/commands/0/5: {outdir} is not a placeholder"

# An experiment's free text (description, a case's line and command words,
# the gate's words and what it reads) with ESC, OSC 8 link, BEL and bidi
# controls: list and explain print it escaped, never raw.
mkdir -p "$tmp/esc"
python3 - "$HOME_DIR/data/experiments/gemm-sweep.json" "$tmp/esc/gemm-sweep.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
esc = "\x1b[2J\x1b]8;;https://evil.example\x07link\x1b]8;;\x07\u202e"
e["description"] = "desc " + esc
e["cases"][0]["what"] = "what " + esc
e["cases"][0]["commands"][0].append("--label=" + esc)
e["gate"]["command"].append(esc)
e["gate"]["reads"] = "reads " + esc
json.dump(e, open(sys.argv[2], "w"))
PY
expect 0 esc-list "$SOLBOOK" experiments list --dir "$tmp/esc"
expect 0 esc-explain "$SOLBOOK" experiments explain gemm-sweep --arch h100 --dir "$tmp/esc"
has esc-list.out 'desc \e[2J\e]8;;https://evil.example\x07link\e]8;;\x07\u{202E}'
has esc-explain.out 'what \e[2J\e]8;;'
has esc-explain.out 'reads \e[2J\e]8;;'
if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f]\|\xe2\x80\xae' "$tmp/esc-list.out" "$tmp/esc-explain.out"; then
  bad "experiments list/explain print a control character raw"; else
  ok "experiments list/explain print no control character raw"; fi
# The command word reaches the script as $'...', byte for byte, and the
# printed script and Job hold no such character raw.
expect 0 esc-slurm "$SOLBOOK" submit gemm-sweep --arch h100 --engine slurm --print --dir "$tmp/esc" --run-id r1
expect 0 esc-k8s "$SOLBOOK" submit gemm-sweep --arch h100 --engine kubernetes --image i --print --dir "$tmp/esc" --run-id r1
has esc-slurm.out "\$'--label=\\x1B[2J\\x1B]8;;https://evil.example\\x07link\\x1B]8;;\\x07\\xE2\\x80\\xAE'"
if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f]\|[\x80-\xff]' "$tmp/esc-slurm.out" "$tmp/esc-k8s.out"; then
  bad "submit --print writes a control or non-ASCII character raw"; else
  ok "submit --print writes no control or non-ASCII character raw"; fi
if bash -n "$tmp/esc-slurm.out"; then ok "the script with \$'...' words passes bash -n"; else bad "bash -n"; fi

# A file over 4 MiB is refused unparsed in one line: rendered as a Job, a
# 192 MB experiment took 870 MB.
mkdir -p "$tmp/big"
python3 - "$HOME_DIR/data/experiments/gemm-sweep.json" "$tmp/big/gemm-sweep.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
e["description"] = "d" * (5 << 20)
json.dump(e, open(sys.argv[2], "w"))
PY
expect 1 big-list "$SOLBOOK" experiments list --dir "$tmp/big"
lines big-list.err 1
has big-list.err "solbook: $tmp/big/gemm-sweep.json: experiment file larger than 4 MiB: refused unparsed"
expect 1 big-submit "$SOLBOOK" submit gemm-sweep --arch h100 --engine kubernetes --image i --print --dir "$tmp/big"
has big-submit.err "experiment file larger than 4 MiB: refused unparsed"

# The experiment of the Slurm test loads (that test skips where no daemons start).
expect 0 slurm-cpu-exp "$SOLBOOK" experiments explain slurm-cpu --arch h100 --dir "$DATA/fleet/experiments"
has slurm-cpu-exp.out "solbench suite --preset smoke --device cpu"

# --- submit: Kubernetes
expect 0 k8s "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --print --image registry.example/solbench:1 \
  --namespace bench --queue team-a --output-volume bench-results --run-id r20261122 --time 00:30:00
expect 0 k8s-valid "$SOLBOOK" validate --schema "$HOME_DIR/data/schemas/k8s-batch-v1-job.json" "$tmp/k8s.out"
has k8s.out '"kueue.x-k8s.io/queue-name": "team-a"'
has k8s.out '"claimName": "bench-results"'
has k8s.out '"activeDeadlineSeconds": 7200'
has k8s.out '"SYS_ADMIN"'
# kubectl takes JSON; python's parser agrees it is one JSON document.
if python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["spec"]["completions"]==4' "$tmp/k8s.out" 2>/dev/null; then
  ok "k8s.out parses as JSON with 4 completions"; else bad "k8s.out is not the expected JSON"; fi
# The embedded script is valid bash.
python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["spec"]["template"]["spec"]["containers"][0]["command"][2])' \
  "$tmp/k8s.out" >"$tmp/k8s-script.sh"
if bash -n "$tmp/k8s-script.sh"; then ok "the Job's script passes bash -n"; else bad "the Job's script fails bash -n"; fi

expect 2 k8s-noimage "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --print
lines k8s-noimage.err 1
has k8s-noimage.err "--engine kubernetes needs --image IMG"
expect 2 k8s-partition "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --image x --partition p
has k8s-partition.err "--partition is for --engine slurm"
expect 2 k8s-sku "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --image x --sku h200-sxm-141gb --print
has k8s-sku.err "--sku h200-sxm-141gb: not a SKU of h100 in data/skus.csv (h100-sxm5-80gb, h100-pcie-80gb, h100-nvl-94gb)"
expect 0 k8s-onesku "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --image x --sku h100-pcie-80gb --print
has k8s-onesku.out '"NVIDIA-H100-PCIe"'
if grep -q "NVIDIA-H100-80GB-HBM3" "$tmp/k8s-onesku.out"; then bad "--sku kept other SKUs"; else ok "--sku keeps one SKU's products"; fi
expect 2 bad-time "$SOLBOOK" submit gemm-spec --arch h100 --engine slurm --time 1:75:00 --print
has bad-time.err "--time 1:75:00: expected a positive HH:MM:SS"
expect 2 bad-engine "$SOLBOOK" submit gemm-spec --arch h100 --engine nomad
has bad-engine.err "--engine nomad: not kubernetes or slurm"

# --- submit: Slurm
expect 0 slurm "$SOLBOOK" submit liger-perkernel --arch h200 --engine slurm --print --partition hopper \
  --output-volume /shared/results --run-id r1
if bash -n "$tmp/slurm.out"; then ok "slurm script passes bash -n"; else bad "slurm script fails bash -n"; fi
for d in "--job-name=sb-liger-perkernel-h200-r1" "--array=0-0" "--gres=gpu:2" "--cpus-per-task=16" "--mem=128G" \
  "--time=02:00:00" "--partition=hopper" "--output=sb-liger-perkernel-h200-r1-%A_%a.out" "--no-requeue"; do
  if grep -qxF -- "#SBATCH $d" "$tmp/slurm.out"; then ok "slurm: #SBATCH $d"; else bad "slurm lacks #SBATCH $d"; fi
done
has slurm.out 'OUT=/shared/results/liger-perkernel/h200/r1'
has slurm.out '"$SOLBENCH_SPREAD" --preset liger-perkernel --gpus all --out "$CASE_OUT"/liger'
# The script runs the case of its array index (solbench stood in for by a recorder).
cat >"$tmp/fake-solbench" <<'EOF'
#!/usr/bin/env bash
echo "$*" >"$SOLBENCH_LOG"
EOF
chmod +x "$tmp/fake-solbench"
sed 's|^OUT=.*|OUT='"$tmp"'/run|' "$tmp/slurm.out" >"$tmp/slurm-local.sh"
if SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_JOB_ID=31337 SOLBENCH_SPREAD="$tmp/fake-solbench" SOLBENCH_LOG="$tmp/ran" bash "$tmp/slurm-local.sh" >/dev/null &&
  grep -qxF -- "--preset liger-perkernel --gpus all --out $tmp/run/perkernel/liger" "$tmp/ran" &&
  [[ -d "$tmp/run/perkernel/liger" ]]; then
  ok "array task 0 ran its solbench command into OUT/CASE_ID"; else bad "array task 0 did not run as rendered"; fi
# Its task record: done, the case, the job, whole JSON.
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
assert (r["state"], r["index"], r["case"], r["engine"], r["job_id"], r["exit_status"], r["cases"]) == \
       ("done", 0, "perkernel", "slurm", "31337", 0, ["perkernel"]), r' "$tmp/run/perkernel/solbook-task.json" 2>"$tmp/rec.err"
then ok "the task record says done, case perkernel, slurm job 31337, exit status 0"; else bad "task record: $(cat "$tmp/rec.err")"; fi
# Run again: a done case is not run again.
if SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_JOB_ID=31338 SOLBENCH_SPREAD=false bash "$tmp/slurm-local.sh" >"$tmp/again.out"; then
  has again.out "solbook: case perkernel of run r1 is done already"; else bad "a done case ran again"; fi
# A failing case: the record says failed with the command's status, and
# the next attempt moves it aside into .superseded.
rm -rf "$tmp/run"
if SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_JOB_ID=5 SOLBENCH_SPREAD=false bash "$tmp/slurm-local.sh" >/dev/null 2>&1; then
  bad "a failing case succeeded"; else ok "a failing case exits non-zero"; fi
has run/perkernel/solbook-task.json '"state":"failed","exit_status":1'
SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_JOB_ID=6 SOLBENCH_SPREAD="$tmp/fake-solbench" SOLBENCH_LOG="$tmp/ran" bash "$tmp/slurm-local.sh" >/dev/null
has run/perkernel/solbook-task.json '"job_id":"6","host":'
if grep -q '"state":"failed"' "$tmp"/run/.superseded/perkernel-*/solbook-task.json; then
  ok "the failed attempt was moved to .superseded"; else bad ".superseded lacks the failed attempt"; fi
# A cancelled case (SIGTERM to every process of the task, as scancel sends
# it): the record says cancelled with 143, even when a second SIGTERM comes
# while the record is being written (a stand-in `date`, which the record
# calls, sends it to the task's process group).
mkdir -p "$tmp/cancel-bin"
cat >"$tmp/cancel-bin/date" <<EOF
#!/usr/bin/env bash
if [[ -f $tmp/cancelling ]]; then kill -TERM -- -\$(cat $tmp/task.pgid); sleep 0.3; fi
exec /bin/date "\$@"
EOF
cat >"$tmp/held-solbench" <<EOF
#!/usr/bin/env bash
echo \$\$ >$tmp/holding
while :; do sleep 0.1; done
EOF
chmod +x "$tmp/cancel-bin/date" "$tmp/held-solbench"
rm -rf "$tmp/run" "$tmp/holding" "$tmp/cancelling"
PATH="$tmp/cancel-bin:$PATH" SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_JOB_ID=8 SOLBENCH_SPREAD="$tmp/held-solbench" \
  setsid bash "$tmp/slurm-local.sh" >/dev/null 2>&1 &
task=$!
echo "$task" >"$tmp/task.pgid"
for _ in $(seq 100); do [[ -s $tmp/holding ]] && break; sleep 0.1; done
touch "$tmp/cancelling"
kill -TERM -- -"$task"
wait "$task"
rc=$?
[[ $rc == 143 ]] && ok "a cancelled task exits 143" || bad "a cancelled task exits $rc, expected 143"
has run/perkernel/solbook-task.json '"state":"cancelled","exit_status":143'
# Slurm signals the processes one by one: when the script sees its command
# killed before its own SIGTERM arrives, the record says cancelled all the
# same (here the command alone is signalled).
rm -rf "$tmp/run" "$tmp/holding" "$tmp/cancelling"
SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_JOB_ID=9 SOLBENCH_SPREAD="$tmp/held-solbench" bash "$tmp/slurm-local.sh" >/dev/null 2>&1 &
task=$!
for _ in $(seq 100); do [[ -s $tmp/holding ]] && break; sleep 0.1; done
kill -TERM "$(cat "$tmp/holding")"
wait "$task"
rc=$?
[[ $rc == 143 ]] && ok "a task whose command was cancelled exits 143" || bad "it exits $rc, expected 143"
has run/perkernel/solbook-task.json '"state":"cancelled","exit_status":143'
if SLURM_ARRAY_TASK_ID=7 SOLBENCH=true bash "$tmp/slurm-local.sh" >/dev/null 2>"$tmp/case7.err"; then
  bad "array task 7 of a 1-case array succeeded"; else has case7.err "has no case 7 (cases 0-0)"; fi

# --- the training experiment: its program comes from $LLAMA_FSDP; the liger
# run of a case reads the baseline run the case wrote just before it
expect 0 slurm-fsdp "$SOLBOOK" submit liger-fsdp --arch h100 --engine slurm --print --run-id r2
if bash -n "$tmp/slurm-fsdp.out"; then ok "liger-fsdp script passes bash -n"; else bad "liger-fsdp script fails bash -n"; fi
has slurm-fsdp.out 'LLAMA_FSDP=${LLAMA_FSDP:-run_llama_fsdp.sh}'
has slurm-fsdp.out '#SBATCH --gres=gpu:8'
printf '#!/usr/bin/env bash\necho "$*" >>"$LLAMA_LOG"\n' >"$tmp/fake-llama"
chmod +x "$tmp/fake-llama"
sed 's|^OUT=.*|OUT='"$tmp"'/fsdp|' "$tmp/slurm-fsdp.out" >"$tmp/slurm-fsdp-local.sh"
if SLURM_ARRAY_TASK_ID=1 LLAMA_FSDP="$tmp/fake-llama" LLAMA_LOG="$tmp/fsdp-ran" bash "$tmp/slurm-fsdp-local.sh" >/dev/null &&
  [[ $(wc -l <"$tmp/fsdp-ran") == 2 ]] &&
  head -1 "$tmp/fsdp-ran" | grep -qF -- "8 --preset llama3-8b --seq-len 2048 --micro-batch 1 --warmup-steps 3 --steps 20 --liger-mode baseline --out $tmp/fsdp/ws8/llama3-8b-baseline.json" &&
  tail -1 "$tmp/fsdp-ran" | grep -qF -- "--liger-mode liger --check-against $tmp/fsdp/ws8/llama3-8b-baseline.json --out $tmp/fsdp/ws8/llama3-8b-liger.json"; then
  ok "liger-fsdp task 1 ran baseline then liger at world size 8 through LLAMA_FSDP"; else bad "liger-fsdp task 1 did not run as rendered"; cat "$tmp/fsdp-ran"; fi

# --- submitting without kubectl / sbatch: one line, exit 2
mkdir -p "$tmp/bin"
for t in bash env mkdir hostname; do p=$(command -v $t) && ln -sf "$p" "$tmp/bin/$t"; done
expect 2 no-kubectl env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --image x
lines no-kubectl.err 1
has no-kubectl.err "solbook: kubectl is not installed (not found on PATH); --print writes the Job manifest to stdout"
lines no-kubectl.out 0
expect 2 no-sbatch env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch a100 --engine slurm
lines no-sbatch.err 1
has no-sbatch.err "solbook: sbatch is not installed (not found on PATH)"
# A stand-in sbatch receives the script on stdin.
cat >"$tmp/bin/sbatch" <<EOF
#!$(command -v bash)
$(command -v cat) >"$tmp/sbatch-stdin"
echo "Submitted batch job 4242"
EOF
chmod +x "$tmp/bin/sbatch"
expect 0 sbatch env PATH="$tmp/bin" "$SOLBOOK" submit gemm-sweep --arch a100 --engine slurm --run-id r2
has sbatch.out "Submitted batch job 4242"
has sbatch.out "submitted sb-gemm-sweep-a100-r2 (1 case) with sbatch; results in solbook-results/gemm-sweep/a100/r2"
if grep -qxF "#SBATCH --array=0-0" "$tmp/sbatch-stdin"; then ok "sbatch got the script on stdin"; else bad "sbatch stdin"; cat "$tmp/sbatch-stdin"; cat "$tmp/sbatch.err"; fi
# --status with a stand-in squeue and no run directory here: squeue answers
# for the queued tasks, the rest are not started, and stderr says why.
printf '#!%s\necho "4242|0|RUNNING"\necho "4242|1|PENDING"\necho "4242|9|PENDING"\n' "$(command -v bash)" >"$tmp/bin/squeue"
chmod +x "$tmp/bin/squeue"
expect 0 slurm-status env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch a100 --engine slurm --status r2 \
  --output-volume "$tmp/nowhere"
has slurm-status.out "run r2 of gemm-spec on a100 (job sb-gemm-spec-a100-r2): 4 tasks: 1 running, 1 pending, 2 not started"
has slurm-status.out "task 1 (case spec-cublaslt): pending: slurm job 4242_1: PENDING"
has slurm-status.out "task 3 (case spec-solbook-mma): not started: no task record"
has slurm-status.err "solbook: $tmp/nowhere/gemm-spec/a100/r2: no run directory here"
# Task records are read strictly (solbook.fleet-task.v1, this run's and
# this case's): a record the task script did not write is refused in one
# line naming its file, with its data shown as visible escapes (never a raw
# ESC or a fake line), its task unknown, and the other records still read;
# with every record refused, exit 1. The record with an unknown state is
# refused after its text is copied (no use after free under ASan).
vol="$tmp/vol/gemm-spec/a100/r5"
mkdir -p "$vol/spec-cublas" "$vol/spec-cublaslt" "$vol/spec-cublas-pedantic"
record() { # record CASE INDEX STATE EXIT FINISHED [HOST]
  printf '{"schema":"solbook.fleet-task.v1","experiment":"gemm-spec","arch":"a100","run_id":"r5","cases":["spec-cublas","spec-cublaslt","spec-cublas-pedantic","spec-solbook-mma"],"index":%s,"case":"%s","engine":"slurm","job_id":"4242","host":"%s","state":"%s","exit_status":%s,"started_at":"2026-11-26T10:15:02Z","finished_at":%s}' \
    "$2" "$1" "${6:-node1}" "$3" "$4" "$5"
}
record spec-cublas 0 done 0 '"2026-11-26T10:20:00Z"' >"$vol/spec-cublas/solbook-task.json"
record spec-cublaslt 1 done 0 '"2026-11-26T10:20:00Z"' 'node\u001b[2J\nrun r5: 4 tasks: 4 done' \
  >"$vol/spec-cublaslt/solbook-task.json"
printf '{"state":"lost\\u001b]0;pwned\\u0007","index":2,"case":"spec-cublas-pedantic","\\u001b]0;pwned\\u0007":1}' \
  >"$vol/spec-cublas-pedantic/solbook-task.json"
expect 0 status-evil env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch a100 --engine slurm --status r5 \
  --output-volume "$tmp/vol"
has status-evil.out "run r5 of gemm-spec on a100 (job sb-gemm-spec-a100-r5): 4 tasks: 1 done, 1 pending, 1 unknown, 1 not started"
has status-evil.out 'task 0 (case spec-cublas): done: slurm job 4242, host node1, started 2026-11-26T10:15:02Z, exit status 0'
has status-evil.out 'task 1 (case spec-cublaslt): pending: slurm job 4242_1: PENDING'
has status-evil.out 'task 2 (case spec-cublas-pedantic): unknown: its task record is refused'
has status-evil.err "solbook: $vol/spec-cublaslt/solbook-task.json: /host: not a host name (A-Z, a-z, 0-9, '.', '_', '-')"
has status-evil.err "solbook: $vol/spec-cublas-pedantic/solbook-task.json: /\\e]0;pwned\\x07: not a field of a task record (solbook.fleet-task.v1)"
lines status-evil.out 5
lines status-evil.err 2
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/status-evil.out" "$tmp/status-evil.err"; then bad "raw ESC in --status"; cat -v "$tmp/status-evil.out" "$tmp/status-evil.err"; else ok "--status prints no raw ESC"; fi
# squeue still answers for the queued tasks. --only-missing leaves the
# unknown task alone: only the one not started goes again.
printf '#!%s\n%s >"%s/resubmit.sh"; echo "Submitted batch job 4243"\n' "$(command -v bash)" "$(command -v cat)" "$tmp" \
  >"$tmp/bin/sbatch"
chmod +x "$tmp/bin/sbatch"
expect 0 missing-unknown env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch a100 --engine slurm --only-missing r5 \
  --output-volume "$tmp/vol"
if grep -qxF "#SBATCH --array=3" "$tmp/resubmit.sh"; then ok "--only-missing submits task 3 alone"; else bad "--only-missing array"; cat "$tmp/missing-unknown.out" "$tmp/missing-unknown.err"; grep SBATCH "$tmp/resubmit.sh"; fi
# Every record refused (another tool's JSON, another run's record): exit 1,
# nothing submitted again.
printf '{"kind":"List","apiVersion":"v1","items":[]}' >"$vol/spec-cublas/solbook-task.json"
record spec-cublaslt 1 failed 2 '"2026-11-26T10:20:00Z"' | sed 's/"run_id":"r5"/"run_id":"r4"/' \
  >"$vol/spec-cublaslt/solbook-task.json"
expect 1 status-foreign env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch a100 --engine slurm --status r5 \
  --output-volume "$tmp/vol"
has status-foreign.out "4 tasks: 1 running, 1 pending, 1 unknown, 1 not started"
has status-foreign.err "solbook: $vol/spec-cublas/solbook-task.json: /kind: not a field of a task record (solbook.fleet-task.v1)"
has status-foreign.err "solbook: $vol/spec-cublaslt/solbook-task.json: a task record of another run (not run r5 of gemm-spec on a100)"
has status-foreign.err "solbook: every task record of run r5 of gemm-spec on a100 is refused"
lines status-foreign.err 4
rm -f "$tmp/resubmit.sh"
expect 1 missing-foreign env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch a100 --engine slurm --only-missing r5 \
  --output-volume "$tmp/vol"
has missing-foreign.err "solbook: every task record of run r5 of gemm-spec on a100 is refused; nothing submitted again"
if [[ -e $tmp/resubmit.sh ]]; then bad "--only-missing submitted with every record refused"; else ok "--only-missing submits nothing with every record refused"; fi
printf '#!%s\nexec 0<&-; echo "error: no context" >&2; exit 1\n' "$(command -v bash)" >"$tmp/bin/kubectl"
chmod +x "$tmp/bin/kubectl"
expect 2 kubectl-fails env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --image x
has kubectl-fails.err "solbook: kubectl exited with status 1; nothing is known to be submitted"

# --- status of a Kubernetes run: from `kubectl get jobs -o json` (recorded
# fixtures in the batch/v1 Job status format, since no cluster runs here)
cat >"$tmp/bin/kubectl" <<KUBECTL
#!$(command -v bash)
if [[ "\$*" == "get jobs -l solbook.dev/run-id=r1 -o json --namespace bench" ]]; then
  exec $(command -v cat) "$DATA/fleet/kubectl-jobs-failed.json"
elif [[ "\$*" == "get jobs -l solbook.dev/run-id=r3 -o json" ]]; then
  exec $(command -v cat) "$DATA/fleet/kubectl-jobs-running.json"
fi
echo "stand-in kubectl: unexpected arguments: \$*" >&2
exit 3
KUBECTL
expect 0 k8s-status env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --status r1 --namespace bench
has k8s-status.out "run r1 of gemm-spec on h100 (job sb-gemm-spec-h100-r1): 4 tasks: 3 done, 1 failed"
has k8s-status.out "task 0 (case spec-cublas): done: Job sb-gemm-spec-h100-r1: index 0 in completedIndexes"
has k8s-status.out "task 2 (case spec-cublas-pedantic): failed: Job sb-gemm-spec-h100-r1 failed (BackoffLimitExceeded: Job has reached the specified backoff limit) before index 2 completed"
expect 0 k8s-status-queued env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --status r3
has k8s-status-queued.out "4 tasks: 4 pending"
has k8s-status-queued.out "task 3 (case spec-solbook-mma): pending: Job sb-gemm-spec-h100-r3 suspended (JobSuspended): waiting for admission"
expect 2 k8s-status-fails env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --status r7
has k8s-status-fails.err "solbook: kubectl get jobs exited with status 3"
expect 2 k8s-missing "$SOLBOOK" submit gemm-spec --arch h100 --engine kubernetes --image x --only-missing r1
has k8s-missing.err "--only-missing is for --engine slurm"
expect 2 status-print "$SOLBOOK" submit gemm-spec --arch h100 --engine slurm --status r1 --print
has status-print.err "--status asks the cluster; not with --print or --dry-run"
expect 2 two-ids "$SOLBOOK" submit gemm-spec --arch h100 --engine slurm --status r1 --run-id r2
has two-ids.err "give one of --run-id, --status RUN_ID and --only-missing RUN_ID"

# --- dry run: contacts nothing
expect 0 dry env PATH="$tmp/bin" "$SOLBOOK" submit gemm-spec --arch h200 --engine kubernetes --image x --dry-run --run-id d1
lines dry.out 1
has dry.out "dry run: would pipe the batch/v1 Job sb-gemm-spec-h200-d1"
has dry.out "4 indexed completions, 1 GPU each"
has dry.out "to 'kubectl apply -f -'; results in /results/gemm-spec/h200/d1 on PVC solbook-results"
expect 0 dry-slurm "$SOLBOOK" submit memory-bound --arch h100 --engine slurm --dry-run --run-id d2
has dry-slurm.out "dry run: would pipe the batch script of job sb-memory-bound-h100-d2"

# --- ingest --fleet: duplicates and partial files named, the rest stored
fleet="$tmp/fleet"
mkdir -p "$fleet/gemm-spec/h100/r1/spec" "$fleet/gemm-spec/h100/r2/spec" "$fleet/gemm-spec/h200/r1/spec"
cp "$DATA/schemas/result.valid.gemm.json" "$fleet/gemm-spec/h100/r1/spec/gemm-spec-cublas.json"
cp "$DATA/schemas/result.valid.gemm.json" "$fleet/gemm-spec/h100/r2/spec/gemm-spec-cublas.json"
sed 's/"provider": "cublas"/"provider": "cublaslt"/' "$DATA/schemas/result.valid.gemm.json" \
  >"$fleet/gemm-spec/h100/r1/spec/gemm-spec-cublaslt.json"
sed 's/"arch": "h100"/"arch": "h200"/; s/"sku": "h100-sxm5-80gb"/"sku": "h200-sxm-141gb"/' \
  "$DATA/schemas/result.valid.gemm.json" >"$fleet/gemm-spec/h200/r1/spec/gemm-spec-cublas.json"
head -c 300 "$DATA/schemas/result.valid.gemm.json" >"$fleet/gemm-spec/h100/r1/spec/gemm-spec-solbook-mma.json"
: >"$fleet/gemm-spec/h100/r1/spec/gemm-spec-cublas-pedantic.json"
echo '{"sch' >"$fleet/gemm-spec/h100/r1/spec/x.json.tmp.77"
# a file whose name clears the screen and forges a line: shown escaped
: >"$fleet/gemm-spec/h100/r1/spec/$(printf 'e\033[2J\ngather: 9 accepted.json')"
expect 1 fleet "$SOLBOOK" ingest --fleet --db "$tmp/fleet.db" "$fleet"
has fleet.err "duplicate: $fleet/gemm-spec/h100/r1/spec/gemm-spec-cublas.json: 2 final results for one case, provider and arch"
has fleet.err "duplicate: $fleet/gemm-spec/h100/r2/spec/gemm-spec-cublas.json: 2 final results"
has fleet.err "partial: $fleet/gemm-spec/h100/r1/spec/gemm-spec-cublas-pedantic.json: empty file (zero length)"
has fleet.err "partial: $fleet/gemm-spec/h100/r1/spec/gemm-spec-solbook-mma.json: not one whole JSON document"
has fleet.err "partial: $fleet/gemm-spec/h100/r1/spec/x.json.tmp.77: temporary file"
has fleet.err "partial: $fleet/gemm-spec/h100/r1/spec/e\\e[2J\\ngather: 9 accepted.json: empty file (zero length)"
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/fleet.err"; then bad "raw ESC from ingest --fleet"; cat -v "$tmp/fleet.err"; else ok "ingest --fleet prints no raw ESC"; fi
has fleet.err "gather: 2 accepted, 2 duplicate files in 1 group, 4 partial, 0 invalid"
has fleet.out "ingest: 8 files, 2 stored, 0 duplicates, 6 refused"
expect 0 fleet-runs "$SOLBOOK" runs --db "$tmp/fleet.db"
if grep -q "cublaslt" "$tmp/fleet-runs.out" && grep -q "h200" "$tmp/fleet-runs.out"; then
  ok "the two accepted results are stored"; else bad "stored runs"; cat "$tmp/fleet-runs.out"; fi
rm "$fleet/gemm-spec/h100/r1/spec/$(printf 'e\033[2J\ngather: 9 accepted.json')"
rm "$fleet/gemm-spec/h100/r2/spec/gemm-spec-cublas.json" "$fleet/gemm-spec/h100/r1/spec/x.json.tmp.77" \
  "$fleet/gemm-spec/h100/r1/spec/gemm-spec-solbook-mma.json" "$fleet/gemm-spec/h100/r1/spec/gemm-spec-cublas-pedantic.json"
expect 0 fleet-clean "$SOLBOOK" ingest --fleet --db "$tmp/fleet.db" "$fleet"
has fleet-clean.err "gather: 3 accepted, 0 duplicate files in 0 groups, 0 partial, 0 invalid"
has fleet-clean.out "ingest: 3 files, 1 stored, 2 duplicates, 0 refused"
expect 2 fleet-format "$SOLBOOK" ingest --fleet --format auto --db "$tmp/fleet.db" "$fleet"
has fleet-format.err "--fleet takes directories of solbook files"

echo "test_fleet_cli: $checks checks passed, $fails failed"
[[ $fails == 0 ]]

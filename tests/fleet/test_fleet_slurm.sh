#!/usr/bin/env bash
# test_fleet_slurm.sh SOLBOOK SOLBENCH EXPERIMENTS_DIR - `solbook submit
# --engine slurm` against a real single-node Slurm cluster (munge, slurmctld,
# slurmd from Debian's slurm-wlm) started here from a generated
# configuration, on the CPU path of solbench (four GEMM cases and the smoke
# preset, experiments dir's slurm-cpu.json).
#
# The node offers four "GPUs" (gres/gpu over character devices made here
# with the NVIDIA major number), so the rendered --gres=gpu:1 is honoured
# while solbench runs --device cpu. One case is held running and cancelled
# with scancel, one fails (a dtype solbench does not know); the gather names
# both by task and stores the other three; the bad case is mended and
# --only-missing submits those two again into the same run; the set then
# holds exactly one result per case, each with its Slurm job and array task
# in provenance. The daemons are stopped and their files removed on every
# exit. Exit 77 (skipped) only where the daemons cannot be started: not
# root, slurm-wlm or munge missing, or the cluster not coming up.
set -uo pipefail
SOLBOOK=$1
SOLBENCH=$2
EXPERIMENTS=$3
started=$(date +%s)
skip() { echo "SKIP: $*"; exit 77; }

[[ $(id -u) -eq 0 ]] || skip "the daemons run as root here (slurmd starts jobs as their user); run as root"
for prog in munged munge slurmctld slurmd sbatch squeue scancel sinfo scontrol; do
  command -v "$prog" >/dev/null || skip "$prog is not installed (scripts/deps.txt: munge slurmctld slurmd slurm-client)"
done
[[ -n $SOLBENCH && -x $SOLBENCH ]] || skip "solbench is not built (no CUDA toolkit, or SOLBOOK_NO_CUDA): the cases run its CPU path"

tmp=$(mktemp -d /tmp/sb-slurm-XXXXXX)
chmod 755 "$tmp"
export SLURM_CONF=$tmp/etc/slurm.conf
stop_cluster() {
  # Jobs first (their slurmstepd would outlive slurmd), then the daemons,
  # each by the pid it wrote; then every file of the cluster.
  if [[ -f $tmp/slurmctld.pid ]]; then
    scancel --quiet --partition=sbtest 2>/dev/null
    for _ in $(seq 50); do
      [[ -z $(squeue --noheader --partition=sbtest --states=RUNNING,COMPLETING,PENDING 2>/dev/null) ]] && break
      sleep 0.2
    done
  fi
  for pidfile in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munge/munged.pid"; do
    [[ -f $pidfile ]] || continue
    pid=$(cat "$pidfile")
    [[ $pid =~ ^[0-9]+$ ]] || continue
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap stop_cluster EXIT

fails=0
checks=0
ok() { checks=$((checks + 1)); echo "ok: $*"; }
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }
has() { grep -qF -- "$2" "$1" && ok "$(basename "$1") has: $2" || { bad "$(basename "$1") lacks: $2"; cat "$1"; }; }

# ---------------------------------------------------------------- cluster
mkdir -p "$tmp"/{etc,munge,state,spool/sbnode,log,dev,bin,submit,experiments}
chmod 700 "$tmp/munge"
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 600 "$tmp/munge/munge.key"
munged --force --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" --log-file="$tmp/munge/munged.log" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munged.seed" ||
  skip "munged did not start: $(tail -n 3 "$tmp/munge/munged.log" 2>/dev/null)"
for i in 0 1 2 3; do
  mknod "$tmp/dev/nvidia$i" c 195 "$i" 2>/dev/null || skip "mknod is not allowed here (the test GPUs are device nodes)"
done
# Two free ports, so that tests in parallel (ctest -j) never share one.
read -r ctld_port slurmd_port < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
cat >"$SLURM_CONF" <<EOF
ClusterName=sbtest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
KillWait=5
GresTypes=gpu
NodeName=sbnode NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=4 RealMemory=8000 Gres=gpu:4 State=UNKNOWN
PartitionName=sbtest Nodes=sbnode Default=YES MaxTime=INFINITE State=UP
EOF
echo "NodeName=sbnode Name=gpu File=$tmp/dev/nvidia[0-3]" >"$tmp/etc/gres.conf"
slurmctld -i || skip "slurmctld did not start: $(tail -n 3 "$tmp/log/slurmctld.log" 2>/dev/null)"
slurmd -N sbnode || skip "slurmd did not start: $(tail -n 3 "$tmp/log/slurmd.log" 2>/dev/null)"
for _ in $(seq 100); do
  [[ $(sinfo --noheader --partition=sbtest --format=%t 2>/dev/null) == idle ]] && break
  sleep 0.3
done
state=$(sinfo --noheader --partition=sbtest --format=%t 2>/dev/null)
[[ $state == idle ]] || skip "the node did not come up (state '${state:-no answer}'): $(tail -n 3 "$tmp/log/slurmctld.log")"
ok "munged, slurmctld and slurmd up on ports $ctld_port/$slurmd_port, node sbnode idle with gpu:4"

# ---------------------------------------------------------------- submit
cp "$EXPERIMENTS/slurm-cpu.json" "$tmp/experiments/"
# solbench as the jobs see it: the real one, except that the case "held"
# waits while the hold file exists (so that it is running when scancel
# comes).
cat >"$tmp/bin/solbench" <<EOF
#!/usr/bin/env bash
case " \$* " in
  */held/*) while [[ -e $tmp/hold ]]; do sleep 0.2; done ;;
esac
exec $(printf '%q' "$SOLBENCH") "\$@"
EOF
chmod +x "$tmp/bin/solbench"
touch "$tmp/hold"
export SOLBENCH=$tmp/bin/solbench
cd "$tmp/submit" || exit 1
sub() { "$SOLBOOK" submit slurm-cpu --arch h100 --engine slurm --dir "$tmp/experiments" --partition sbtest "$@"; }
RUN=$tmp/submit/solbook-results/slurm-cpu/h100/r1

sub --run-id r1 --print >script.sh
if grep -qF -e "$tmp" -e "$(dirname "$SOLBOOK")" -e "$EXPERIMENTS" script.sh; then
  bad "the rendered script names a path of the submitting machine: $(grep -nF -e "$tmp" -e "$EXPERIMENTS" script.sh | head -3)"
else
  ok "the rendered script carries no path of the submitting machine"
fi
sub --run-id r1 >submit.out 2>&1
has submit.out "submitted sb-slurm-cpu-h100-r1 (5 cases) with sbatch; results in solbook-results/slurm-cpu/h100/r1"
job=$(squeue --noheader --name=sb-slurm-cpu-h100-r1 --format=%F | head -n 1)
[[ $job =~ ^[0-9]+$ ]] && ok "sbatch queued array job $job" || bad "no array job in squeue (got '$job')"

# wait_for WHAT SECONDS COMMAND...: polls COMMAND until it succeeds.
wait_for() {
  local what=$1 secs=$2
  shift 2
  for _ in $(seq $((secs * 4))); do "$@" && return 0; sleep 0.25; done
  bad "timed out after ${secs}s waiting for $what"
  squeue --array --states=all
  tail -n 20 "$tmp/log/slurmctld.log"
  echo "-- slurmd.log"
  tail -n 30 "$tmp/log/slurmd.log"
  for f in "$tmp"/submit/*.out; do [[ -f $f ]] && { echo "-- $(basename "$f")"; tail -n 5 "$f"; }; done
  return 1
}
live() { squeue --noheader --array --name=sb-slurm-cpu-h100-r1 --states=PENDING,RUNNING,COMPLETING --format=%K; }
record_says() { grep -q "\"state\":\"$2\"" "$RUN/$1/solbook-task.json" 2>/dev/null; }
four_ended() { record_says gemm-fp32 done && record_says gemm-bf16 done && record_says bad failed && record_says smoke done; }
wait_for "tasks 0, 1, 4 done and 3 failed" 120 four_ended
wait_for "the held task to run" 60 record_says held running
[[ $(squeue --noheader --array --name=sb-slurm-cpu-h100-r1 --format=%K:%T) == *"2:RUNNING"* ]] &&
  ok "squeue shows task 2 running" || bad "task 2 is not running: $(squeue --noheader --array --states=all)"

"$SOLBOOK" submit slurm-cpu --arch h100 --engine slurm --dir "$tmp/experiments" --status r1 >status1.out 2>&1
has status1.out "run r1 of slurm-cpu on h100 (job sb-slurm-cpu-h100-r1): 5 tasks: 3 done, 1 running, 1 failed"
has status1.out "task 0 (case gemm-fp32): done: slurm job $job, host"
has status1.out "task 2 (case held): running: slurm job ${job}_2: RUNNING"
has status1.out "task 3 (case bad): failed: slurm job $job, host"

scancel "${job}_2"
wait_for "task 2 to end" 60 bash -c "[[ -z \$(squeue --noheader --array --name=sb-slurm-cpu-h100-r1 --states=PENDING,RUNNING,COMPLETING --format=%K) ]]"
wait_for "the cancelled record" 20 record_says held cancelled
"$SOLBOOK" submit slurm-cpu --arch h100 --engine slurm --dir "$tmp/experiments" --status r1 >status2.out 2>&1
has status2.out "5 tasks: 3 done, 1 failed, 1 cancelled"
has status2.out "task 2 (case held): cancelled: slurm job $job"
has status2.out "exit status 143"

# ---------------------------------------------------------------- gather with faults
DB=$tmp/solbook.db
"$SOLBOOK" ingest --fleet --db "$DB" solbook-results/slurm-cpu/h100 >gather1.out 2>&1
rc=$?
[[ $rc -eq 1 ]] && ok "the gather with two unfinished tasks exits 1" || bad "gather exit $rc, expected 1"
has gather1.out "unfinished: solbook-results/slurm-cpu/h100/r1/bad: task 3 (case bad) of slurm job $job on"
has gather1.out "failed with exit status 2"
has gather1.out "unfinished: solbook-results/slurm-cpu/h100/r1/held: task 2 (case held) of slurm job $job on"
has gather1.out "cancelled (SIGTERM: scancel, the time limit or preemption)"
has gather1.out "gather: 6 accepted, 0 duplicate files in 0 groups, 0 partial, 0 invalid, 2 unfinished tasks"
q() { sqlite3 "$DB" "$1"; }
n=$(q "SELECT count(*) FROM runs")
[[ $n -eq 6 ]] && ok "6 results stored after the faulty run (2 GEMMs, 4 of the smoke preset)" ||
  bad "$n results stored after the faulty run, expected 6"
n=$(q "SELECT count(*) FROM configs WHERE suite = 'fleet-cpu' AND (shape_key = 'K=128,M=128,N=128' OR dtype = 'fp16')")
[[ $n -eq 0 ]] && ok "nothing of the failed or cancelled task stored" || bad "$n rows of unfinished tasks stored"

# ---------------------------------------------------------------- only the missing ones, again
sed -i 's/"fp7"/"fp16"/' "$tmp/experiments/slurm-cpu.json"
rm -f "$tmp/hold"
sub --only-missing r1 >again.out 2>&1
has again.out "submitted sb-slurm-cpu-h100-r1 again with sbatch for 2 tasks of run r1: 2 (held) 3 (bad)"
job2=$(squeue --noheader --name=sb-slurm-cpu-h100-r1 --states=all --format=%F | sort -un | tail -n 1)
[[ $job2 =~ ^[0-9]+$ && $job2 != "$job" ]] && ok "the re-submission is array job $job2" ||
  bad "no second array job (got '$job2')"
[[ $(squeue --noheader --array --states=all --name=sb-slurm-cpu-h100-r1 --format=%F:%K | grep -c "^$job2:") -eq 2 ]] &&
  ok "job $job2 has exactly tasks 2 and 3" || bad "job $job2 tasks: $(squeue --noheader --array --states=all --format=%F:%K)"
all_done() { record_says gemm-fp32 done && record_says gemm-bf16 done && record_says held done && record_says bad done &&
  record_says smoke done; }
wait_for "every task done" 120 all_done
[[ $(ls "$RUN/.superseded" | wc -l) -eq 2 ]] && ok "the two unfinished attempts were moved to .superseded" ||
  bad ".superseded holds: $(ls "$RUN/.superseded" 2>&1)"
sub --only-missing r1 >again2.out 2>&1
has again2.out "run r1 of slurm-cpu on h100: no task to submit again (each is done, running or pending)"
"$SOLBOOK" submit slurm-cpu --arch h100 --engine slurm --dir "$tmp/experiments" --status r1 >status3.out 2>&1
has status3.out "5 tasks: 5 done"
has status3.out "task 3 (case bad): done: slurm job $job2, host"

"$SOLBOOK" ingest --fleet --db "$DB" solbook-results/slurm-cpu/h100 >gather2.out 2>&1
rc=$?
[[ $rc -eq 0 ]] && ok "the gather of the completed set exits 0" || { bad "gather exit $rc"; cat gather2.out; }
has gather2.out "gather: 8 accepted, 0 duplicate files in 0 groups, 0 partial, 0 invalid, 0 unfinished tasks, 2 superseded attempts"

# ---------------------------------------------------------------- the database
n=$(q "SELECT count(*) FROM runs")
[[ $n -eq 8 ]] && ok "8 results stored in all" || bad "$n results stored, expected 8"
n=$(q "SELECT count(*) FROM (SELECT case_key FROM configs GROUP BY case_key, provider HAVING count(*) = 1)")
m=$(q "SELECT count(DISTINCT case_key || provider) FROM configs")
[[ $n -eq 8 && $m -eq 8 ]] && ok "exactly one result per case (8 case keys, one row each)" ||
  bad "$n of $m case keys with one row, expected 8 of 8"
got=$(q "SELECT p.scheduler || ':' || p.scheduler_job_id || ':' || p.scheduler_array_task_id || ':' || count(*)
         FROM configs c JOIN provenance p USING (run_id)
         GROUP BY p.scheduler, p.scheduler_job_id, p.scheduler_array_task_id ORDER BY p.scheduler_array_task_id")
want="slurm:$job:0:1
slurm:$job:1:1
slurm:$job2:2:1
slurm:$job2:3:1
slurm:$job:4:4"
if [[ $got == "$want" ]]; then
  ok "results per Slurm job and array task: 1, 1 (job $job), 1, 1 (job $job2), 4 of the smoke preset (job $job)"
else
  bad "results per Slurm job and array task:"$'\n'"$got"$'\n'"expected:"$'\n'"$want"
fi
got=$(q "SELECT c.dtype || ':' || c.shape_key || ':' || p.scheduler || ':' || p.scheduler_job_id || ':' ||
         p.scheduler_array_task_id || ':' || p.device_kind FROM configs c JOIN provenance p USING (run_id)
         WHERE c.suite = 'fleet-cpu'")
want="bf16:K=256,M=256,N=256:slurm:$job:1:cpu
fp16:K=256,M=256,N=256:slurm:$job2:3:cpu
fp32:K=128,M=128,N=128:slurm:$job2:2:cpu
fp32:K=256,M=256,N=256:slurm:$job:0:cpu"
got=$(sort <<<"$got")
if [[ $got == "$want" ]]; then
  ok "each GEMM case's result carries its Slurm job and array task (tasks 0, 1 in $job; 2, 3 in $job2)"
else
  bad "provenance scheduler columns:"$'\n'"$got"$'\n'"expected:"$'\n'"$want"
fi

echo "$checks checks, $fails failed, $(($(date +%s) - started)) s"
[[ $fails -eq 0 ]]

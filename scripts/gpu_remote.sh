#!/usr/bin/env bash
# gpu_remote.sh - the round trip to a GPU host you can reach over ssh: copies
# this working tree with its carry folder (scripts/gpu_carry.sh, run first)
# there, runs scripts/gpu_evidence.sh PART on it, and brings the archive it
# writes back into OUT_DIR here.
#
# usage: scripts/gpu_remote.sh [--dir REMOTE_DIR] HOST PART OUT_DIR
#   HOST        what ssh takes (user@host, an ssh config name)
#   --dir DIR   the copy's folder on HOST (default solbook-gpu, under the
#               remote home)
# gpu_evidence.sh's settings (CASES, PLAN_ENV, PLANS, ROUNDS, TORCH,
# KERNEL_TESTS, LIGER, MEMORY, ONLY, COPY_BY_SIZE, CALL_LIMIT, CARRY_DIR,
# WORK_DIR and the *_LIMIT variables) are passed on when set here.
# CALL_LIMIT defaults to 0 (no overall limit) on a host of your own.
# Exit status: 0 when the round trip worked (the part's own outcome is
# gpu_evidence.sh's last line, "== done ... rc=N"), else the failing step's.
# RSH (default ssh) is the remote shell; the tree goes over it as a tar
# stream (build outputs, .git and examples/ stay here), and the remote
# copy is replaced each time.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: scripts/gpu_remote.sh [--dir REMOTE_DIR] HOST PART OUT_DIR" >&2; exit 2; }
rdir=solbook-gpu
while [[ ${1:-} == --* ]]; do
  case $1 in
  --dir) rdir=${2:?--dir DIR}; shift 2 ;;
  --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) usage ;;
  esac
done
(($# == 3)) || usage
host=$1 part=$2 out=$3
rsh=${RSH:-ssh}
carry=${CARRY_DIR:-.carry}
if [[ $carry == /* || ! -x "$top/$carry/bin/solbench" ]]; then
  echo "gpu_remote: no $top/$carry/bin/solbench: run scripts/gpu_carry.sh first (CARRY_DIR is a folder of this tree)" >&2
  exit 2
fi
export CALL_LIMIT=${CALL_LIMIT:-0}
settings=()
for v in CASES PLAN_ENV PLANS ROUNDS TORCH KERNEL_TESTS LIGER MEMORY ONLY COPY_BY_SIZE CALL_LIMIT CARRY_DIR \
         WORK_DIR KERNELS_LIMIT FULL_LIMIT AB_LIMIT PLANS_LIMIT; do
  if [[ -n "${!v:-}" ]]; then settings+=("$v=${!v}"); fi
done
remote_out=gpu-remote-out
echo "== copying the tree to $host:$rdir"
qdir=$(printf %q "$rdir")
tar -C "$top" -cf - --exclude='./build*' --exclude=./.git --exclude=./examples --exclude="./$remote_out" . |
  $rsh "$host" "rm -rf $qdir && mkdir -p $qdir && tar -C $qdir -xf -"
echo "== running gpu_evidence.sh $part on $host"
rc=0
# One command line for the remote shell, every word quoted for it.
envs=""
if ((${#settings[@]})); then envs=$(printf '%q ' "${settings[@]}"); fi
cmd="cd $qdir && rm -rf $remote_out && env $envs scripts/gpu_evidence.sh $(printf %q "$part") $remote_out"
$rsh "$host" "$cmd" || rc=$?
echo "== bringing $host:$rdir/$remote_out back into $out"
mkdir -p "$out"
$rsh "$host" "tar -C $qdir/$remote_out -cf - ." | tar -C "$out" -xf - || { ((rc)) || rc=1; }
ls -la "$out"
exit "$rc"

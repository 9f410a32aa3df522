#!/usr/bin/env bash
# run_llama_fsdp.sh - launches bench/train/llama_fsdp.py on the GPUs of this
# host with torchrun, in the environment the bench needs: NVLink multicast
# off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1), nothing
# fetched from a model hub, CUDA ordinals in PCI order (as NVML's), output
# unbuffered, and the whole launch killed after LIMIT seconds so a hang ends.
#
# usage: bench/train/run_llama_fsdp.sh NPROC [LLAMA_FSDP OPTIONS...]
#   NPROC    processes (GPUs) on this host
#   LIMIT    environment: seconds before everything is killed (default 600)
#   TORCHRUN environment: the torchrun program (default: python3 -m torch.distributed.run)
# Exit status: llama_fsdp.py's (0 passed or skipped, 1 failed, 2 usage or
# setup), 124 when LIMIT ran out.
set -uo pipefail
nproc=${1:?usage: run_llama_fsdp.sh NPROC [LLAMA_FSDP OPTIONS...]}
shift
[[ "$nproc" =~ ^[1-9][0-9]*$ ]] || { echo "run_llama_fsdp.sh: NPROC must be a positive number, not '$nproc'" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
export CUDA_DEVICE_ORDER=PCI_BUS_ID
# One OpenMP thread a rank: the ranks share the host's cores.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
limit=${LIMIT:-600}
if [[ -n "${TORCHRUN:-}" ]]; then
  read -r -a launcher <<< "$TORCHRUN"
else
  launcher=(python3 -m torch.distributed.run)
fi
echo "run_llama_fsdp.sh: ${launcher[*]} --standalone --nproc-per-node $nproc llama_fsdp.py $* (limit ${limit} s)"
timeout --kill-after=15 "$limit" "${launcher[@]}" --standalone --nproc-per-node "$nproc" \
  "$here/llama_fsdp.py" "$@"
rc=$?
[[ $rc -eq 124 ]] && echo "run_llama_fsdp.sh: killed after ${limit} s" >&2
exit $rc

#!/usr/bin/env bash
# install_train_deps.sh - the Python packages of the training benches
# (scripts/train-requirements.txt: torch, transformers, liger-kernel) into a
# virtual environment, .venv-train/ (or $SOLBOOK_TRAIN_VENV), from PyPI, so
# the CPU tests of bench/train/ run (tests/train/ finds the environment
# there). Silent when the environment already has those versions; otherwise
# prints what it downloaded and how long it took.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv=${SOLBOOK_TRAIN_VENV:-$top/.venv-train}
req=$top/scripts/train-requirements.txt
have() {
  [[ -x "$venv/bin/python3" ]] && "$venv/bin/python3" - "$req" <<'PY' 2>/dev/null
import sys
from importlib import metadata
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line:
        name, want = line.split("==")
        if metadata.version(name) != want:
            sys.exit(1)
PY
}
have && exit 0
echo "install_train_deps: installing $(grep -v '^#' "$req" | xargs) into $venv"
start=$(date +%s)
python3 -m venv "$venv"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$venv/bin/pip" install --no-input --no-cache-dir --progress-bar off -r "$req" >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "install_train_deps: pip install failed" >&2
  exit 2
fi
have || { echo "install_train_deps: $venv does not have the versions of $req after installing" >&2; exit 2; }
mb=$(grep -o 'Downloading [^ ]* ([0-9.]* [kMG]B)' "$log" | awk '{s=$3; sub(/\(/, "", s); u=$4;
  if (u ~ /kB/) s /= 1000; else if (u ~ /GB/) s *= 1000; t += s} END {printf "%.0f", t}')
echo "install_train_deps: downloaded ${mb:-0} MB, installed $(du -sh "$venv" | cut -f1) in $(( $(date +%s) - start )) s"

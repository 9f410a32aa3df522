#!/usr/bin/env bash
# install_venv.sh - installs the pinned packages of a requirements file
# (NAME==VERSION lines) into a virtual environment from PyPI, for the
# install_*_deps.sh scripts. Silent when the environment already has those
# versions; otherwise prints what it downloaded and how long it took.
#
# usage: scripts/install_venv.sh LABEL VENV REQUIREMENTS
#   LABEL names the caller in its messages.
set -euo pipefail
label=${1:?usage: install_venv.sh LABEL VENV REQUIREMENTS}
venv=${2:?usage: install_venv.sh LABEL VENV REQUIREMENTS}
req=${3:?usage: install_venv.sh LABEL VENV REQUIREMENTS}
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
echo "$label: installing $(grep -v '^#' "$req" | xargs) into $venv"
start=$(date +%s)
python3 -m venv "$venv"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$venv/bin/pip" install --no-input --no-cache-dir --progress-bar off -r "$req" >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "$label: pip install failed" >&2
  exit 2
fi
have || { echo "$label: $venv does not have the versions of $req after installing" >&2; exit 2; }
mb=$(grep -o 'Downloading [^ ]* ([0-9.]* [kMG]B)' "$log" | awk '{s=$3; sub(/\(/, "", s); u=$4;
  if (u ~ /kB/) s /= 1000; else if (u ~ /GB/) s *= 1000; t += s} END {printf "%.0f", t}')
echo "$label: downloaded ${mb:-0} MB, installed $(du -sh "$venv" | cut -f1) in $(( $(date +%s) - start )) s"

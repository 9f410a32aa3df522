#!/usr/bin/env bash
# install_import_deps.sh - asv (scripts/import-requirements.txt) into a
# virtual environment, .venv-import/ (or $SOLBOOK_IMPORT_VENV), from PyPI,
# so tests/import/e2e_tools_real.py can make real asv results. Silent when
# the environment already has those versions.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv=${SOLBOOK_IMPORT_VENV:-$top/.venv-import}
req=$top/scripts/import-requirements.txt
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
echo "install_import_deps: installing $(grep -v '^#' "$req" | xargs) into $venv"
python3 -m venv "$venv"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$venv/bin/pip" install --no-input --no-cache-dir --progress-bar off -r "$req" >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "install_import_deps: pip install failed" >&2
  exit 2
fi
have || { echo "install_import_deps: $venv does not have the versions of $req after installing" >&2; exit 2; }

#!/usr/bin/env bash
# install_import_deps.sh - asv (scripts/import-requirements.txt) into a
# virtual environment, .venv-import/ (or $SOLBOOK_IMPORT_VENV), from PyPI,
# so tests/import/e2e_tools_real.py can make real asv results. Silent when
# the environment already has those versions (scripts/install_venv.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
exec "$top/scripts/install_venv.sh" install_import_deps "${SOLBOOK_IMPORT_VENV:-$top/.venv-import}" \
  "$top/scripts/import-requirements.txt"

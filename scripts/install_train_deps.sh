#!/usr/bin/env bash
# install_train_deps.sh - the Python packages of the training benches
# (scripts/train-requirements.txt: torch, transformers, liger-kernel) into a
# virtual environment, .venv-train/ (or $SOLBOOK_TRAIN_VENV), from PyPI, so
# the CPU tests of bench/train/ run (tests/train/ finds the environment
# there). Silent when the environment already has those versions
# (scripts/install_venv.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
exec "$top/scripts/install_venv.sh" install_train_deps "${SOLBOOK_TRAIN_VENV:-$top/.venv-train}" \
  "$top/scripts/train-requirements.txt"

#!/usr/bin/env bash
# Builds solbook and runs every test (CTest: cmocka unit tests, end-to-end
# scripts, the headless-browser site test). GPU tests skip where no GPU is.
# Usage: scripts/test.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install_deps.sh"
build=${1:-$top/build}
shift || true
# The developer warning set, as errors (SOLBOOK_DEV_WARNINGS, SOLBOOK_WERROR):
# developers and CI see every one.
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOLBOOK_WERROR=ON \
  -DSOLBOOK_DEV_WARNINGS=ON "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure -j"$(nproc)"

#!/usr/bin/env bash
# The main job, end to end, on the embedded default database (./solbook.db):
# install missing Debian packages, build, ingest the example results shipped
# in examples/ (real H100/H200 runs with their provenance), print what is
# stored, write the reports, and build the static site.
# Usage: scripts/main.sh [OUT_DIR]   (default: ./out)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$PWD/out}
"$top/scripts/install_deps.sh"
build=$top/build
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
solbook=$build/cli/solbook
export SOLBOOK_HOME=$top
db=${SOLBOOK_DB:-$PWD/solbook.db}
mkdir -p "$out"

has() { "$solbook" --help | grep -q "^  $1 "; }

echo "== ingest examples/ into $db"
# Exit status 1 means some file was refused; that is reported, not fatal here.
"$solbook" ingest --db "$db" "$top/examples" || true

echo "== stored runs"
"$solbook" runs --db "$db"

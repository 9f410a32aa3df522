#!/usr/bin/env bash
# gpu_carry.sh - builds solbench and solbook here and puts them, with the
# shared libraries a bare CUDA host lacks, into .carry/ (git-ignored), for
# the lent GPU machine (scripts/gpu_evidence.sh). Also records the commit.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# With BASE=REV (below), or SM90=1, the builds are for sm_90 alone (H100,
# H200), stripped, with every fatbin compressed (nvcc left fused_rows.cu's
# uncompressed once: 11 MB against 2.6): the working tree and .carry travel
# together, within the 64 MiB the lent machine takes.
build=build-carry archs=()
if [[ -n "${BASE:-}" || "${SM90:-0}" == 1 ]]; then
  build=build-carry-90 archs=(-DSOLBENCH_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-Xfatbin=-compress-all)
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${archs[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target solbench solbook test_device_data >/dev/null
rm -rf .carry/bin .carry/lib .carry/GIT_SHA_BASE; mkdir -p .carry/bin .carry/lib
cp "$build"/bench/solbench "$build"/cli/solbook "$build"/tests/bench/test_device_data .carry/bin/
# Libraries the GPU image does not ship (it has jansson, sqlite, pcre2, libcrypto).
for lib in libcsv.so.3 libcmark-gfm.so libcmark-gfm-extensions.so; do
  for f in /usr/lib/x86_64-linux-gnu/$lib*; do cp -L "$f" .carry/lib/; done
done
# BASE=REV: also solbench built at REV, as .carry/bin/solbench-base, for
# gpu_evidence.sh ab (a kernel change against the code before it)
if [[ -n "${BASE:-}" ]]; then
  rm -rf build-carry-base-src
  git worktree add -f --detach build-carry-base-src "$BASE" >/dev/null 2>&1
  cmake -S build-carry-base-src -B build-carry-base -DCMAKE_BUILD_TYPE=Release "${archs[@]}" >/dev/null
  cmake --build build-carry-base -j"$(nproc)" --target solbench >/dev/null
  cp build-carry-base/bench/solbench .carry/bin/solbench-base
  git rev-parse "$BASE" > .carry/GIT_SHA_BASE
  git worktree remove --force build-carry-base-src
fi
if [[ -n "${BASE:-}" || "${SM90:-0}" == 1 ]]; then strip .carry/bin/*; fi
git rev-parse HEAD > .carry/GIT_SHA
if [[ -n "$(git status --porcelain)" ]]; then echo 1; else echo 0; fi > .carry/GIT_DIRTY
du -sh .carry

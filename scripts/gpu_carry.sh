#!/usr/bin/env bash
# gpu_carry.sh - builds solbench and solbook here and puts them, with the
# shared libraries a bare CUDA host lacks, into a carry folder (default
# .carry/, git-ignored) that travels with the working tree to a GPU host,
# where scripts/gpu_evidence.sh runs them (scripts/gpu_remote.sh does the
# whole round trip over ssh). Also records the commit.
#
# usage: scripts/gpu_carry.sh [--arch LIST] [--base REV] [--max-mb N] [--dir DIR] [--sessions]
#   --arch LIST  CUDA architectures (CMake list, e.g. "90" or "80-real;90");
#                default: solbench's own ("80-real;90"). With --arch, --base
#                or SM90=1 the binaries are stripped and every fatbin is
#                compressed (nvcc otherwise leaves fused_rows.cu's
#                uncompressed: 11 MB against 2.6), for hosts that take a
#                small carry.
#   --base REV   also solbench built at REV, as solbench-base, for
#                gpu_evidence.sh ab (a kernel change against the code before
#                it); implies --arch 90 unless --arch is given
#   --max-mb N   fail when the carry folder comes out larger than N MiB
#                (for a host that takes the working tree and the carry
#                within one size limit: N is that limit less the tree's size)
#   --dir DIR    the carry folder (default .carry; gpu_evidence.sh reads
#                CARRY_DIR, default .carry, on the GPU host)
#   --sessions   only what bench/scripts/session_suite.sh runs (solbench,
#                libsbk_fused.so and libcsv): about 10 MiB against 14, for
#                a host whose size limit the tree's archives nearly fill
# The environment forms BASE=REV and SM90=1 (= --arch 90) still work.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
usage() { echo "usage: scripts/gpu_carry.sh [--arch LIST] [--base REV] [--max-mb N] [--dir DIR] [--sessions]" >&2; exit 2; }
arch="" base=${BASE:-} max_mb="" carry=${CARRY_DIR:-.carry} sessions=0
[[ "${SM90:-0}" == 1 ]] && arch=90
while (($#)); do
  case $1 in
  --arch) arch=${2:?--arch LIST}; shift 2 ;;
  --base) base=${2:?--base REV}; shift 2 ;;
  --max-mb) max_mb=${2:?--max-mb N}; shift 2 ;;
  --dir) carry=${2:?--dir DIR}; shift 2 ;;
  --sessions) sessions=1; shift ;;
  -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) usage ;;
  esac
done
[[ -z "$max_mb" || "$max_mb" =~ ^[0-9]+$ ]] || { echo "gpu_carry: --max-mb $max_mb: a whole number of MiB" >&2; exit 2; }
[[ -n "$base" && -z "$arch" ]] && arch=90
small=0 build=build-carry archs=()
if [[ -n "$arch" ]]; then
  small=1
  build=build-carry-$(echo "$arch" | tr -c 'a-z0-9\n' '-')
  [[ "$arch" == 90 ]] && build=build-carry-90
  archs=("-DSOLBENCH_CUDA_ARCHITECTURES=$arch" -DCMAKE_CUDA_FLAGS=-Xfatbin=-compress-all)
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSOLBOOK_STATIC_LIBARCHIVE=ON "${archs[@]}" >/dev/null
targets=(solbench solbook test_device_data sbk_fused) libs=(libcsv.so.3 libcmark-gfm.so libcmark-gfm-extensions.so libdeflate.so.0)
((sessions)) && targets=(solbench sbk_fused) libs=(libcsv.so.3)
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >/dev/null
rm -rf "$carry/bin" "$carry/lib" "$carry/libexec" "$carry/GIT_SHA_BASE"; mkdir -p "$carry/bin" "$carry/lib"
cp "$build"/bench/solbench "$build"/bench/libsbk_fused.so "$carry/bin/"
((sessions)) || cp "$build"/cli/solbook "$build"/tests/bench/test_device_data "$carry/bin/"
# Libraries a CUDA image often lacks (they usually have jansson, sqlite,
# pcre2, libcrypto); libarchive is linked in statically, since its shared
# library would bring libxml2 and ICU along.
for lib in "${libs[@]}"; do
  for f in /usr/lib/x86_64-linux-gnu/$lib*; do cp -L "$f" "$carry/lib/"; done
done
# bubblewrap for forge's sandbox, where the GPU host has none: the binary
# and its two libraries apart, behind a wrapper that gives only bwrap
# those libraries (gpu_evidence.sh puts the carry's bin/ last on PATH, so
# a host's own bwrap wins).
if ((!sessions)) && command -v bwrap >/dev/null; then
  mkdir -p "$carry/libexec/bwrap-lib"
  cp -L "$(command -v bwrap)" "$carry/libexec/bwrap"
  for lib in libselinux.so.1 libcap.so.2; do cp -L "/lib/x86_64-linux-gnu/$lib" "$carry/libexec/bwrap-lib/"; done
  cat >"$carry/bin/bwrap" <<'EOS'
#!/bin/sh
here=$(dirname "$0")/../libexec
LD_LIBRARY_PATH=$here/bwrap-lib exec "$here/bwrap" "$@"
EOS
  chmod +x "$carry/bin/bwrap"
fi
if [[ -n "$base" ]]; then
  rm -rf build-carry-base-src
  git worktree add -f --detach build-carry-base-src "$base" >/dev/null 2>&1
  cmake -S build-carry-base-src -B build-carry-base -DCMAKE_BUILD_TYPE=Release "${archs[@]}" >/dev/null
  cmake --build build-carry-base -j"$(nproc)" --target solbench >/dev/null
  cp build-carry-base/bench/solbench "$carry/bin/solbench-base"
  git rev-parse "$base" > "$carry/GIT_SHA_BASE"
  git worktree remove --force build-carry-base-src
fi
if ((small)); then strip "$carry"/bin/solbench*; ((sessions)) || strip "$carry"/bin/solbook "$carry"/bin/test_device_data; fi
git rev-parse HEAD > "$carry/GIT_SHA"
if [[ -n "$(git status --porcelain)" ]]; then echo 1; else echo 0; fi > "$carry/GIT_DIRTY"
du -sh "$carry"
if [[ -n "$max_mb" ]]; then
  mb=$(du -sm "$carry" | cut -f1)
  if ((mb > max_mb)); then echo "gpu_carry: $carry is $mb MiB, over --max-mb $max_mb" >&2; exit 1; fi
fi

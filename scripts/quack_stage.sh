#!/usr/bin/env bash
# quack_stage.sh - makes quack-kernels and its CuTe DSL carriable to a GPU
# host that has no package index and takes at most 64 MiB of files a call.
#
# usage: scripts/quack_stage.sh [--python-version 3.12] [--part-mb N] [--dir DIR]
#
# Downloads quack-kernels 0.6.5 and what it needs beyond the host's image
# (nvidia-cutlass-dsl 4.8.1 with its Python core and cu13 libraries,
# apache-tvm-ffi, torch-c-dlpack-ext) as wheels for the host's Python,
# unpacks them into one folder (what `pip install --target` would make),
# and writes that folder as an xz tar split into parts of at most N MB
# (default 25: a call takes 64 MB with the tracked tree, about 38 MB):
# DIR/quack-site.tar.xz.00, .01 ... (default DIR .whl, git-ignored). The
# cu13 library wheel alone is 92 MB; the xz tar of everything is about
# 69 MB, so each part travels in its own call and the last call joins them:
#   cat /tmp/quack-site.tar.xz.* | xz -d | tar x -C /tmp/quack-site
# and runs bench/scripts/session_suite.sh with QUACK_SITE=/tmp/quack-site.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
pyver=3.12 part_mb=25 dir=$top/.whl
while (($#)); do
  case $1 in
  --python-version) pyver=${2:?--python-version X.Y}; shift 2 ;;
  --part-mb) part_mb=${2:?--part-mb N}; shift 2 ;;
  --dir) dir=${2:?--dir DIR}; shift 2 ;;
  -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: scripts/quack_stage.sh [--python-version X.Y] [--part-mb N] [--dir DIR]" >&2; exit 2 ;;
  esac
done
[[ "$part_mb" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "quack_stage: --part-mb $part_mb: a whole number of MB" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wheels=(quack-kernels==0.6.5 nvidia-cutlass-dsl==4.8.1 nvidia-cutlass-dsl-libs-core==4.8.1
  nvidia-cutlass-dsl-libs-base==4.8.1 nvidia-cutlass-dsl-libs-cu13==4.8.1 "apache-tvm-ffi>=0.1.6,<0.2" torch-c-dlpack-ext)
abi=cp${pyver/./}
for w in "${wheels[@]}"; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$pyver" --abi "$abi" \
    --abi none --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 \
    --platform manylinux2014_x86_64 --platform any -d "$work/wheels" "$w"
done
mkdir -p "$work/site" "$dir"
for w in "$work"/wheels/*.whl; do
  python3 -m zipfile -e "$w" "$work/site"
done
rm -f "$dir"/quack-site.tar.xz.*
tar -C "$work/site" -cf - . | xz -9e -T0 >"$work/quack-site.tar.xz"
size=$(stat -c %s "$work/quack-site.tar.xz")
split -b "${part_mb}000000" -d -a 2 "$work/quack-site.tar.xz" "$dir/quack-site.tar.xz."
echo "quack_stage: $size bytes in parts of at most $part_mb MB:"
ls -l "$dir"/quack-site.tar.xz.*

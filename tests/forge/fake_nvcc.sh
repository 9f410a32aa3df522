#!/bin/sh
# fake_nvcc.sh - stands in for nvcc (SOLBOOK_NVCC) in the CPU-only test of
# forge's GPU steps (fake_gpu.sh): it "compiles" fake_prog.c with the host's
# cc to the -o name, with a sidecar NAME.params saying how the program behaves.
# The behaviour comes from a comment in kernel.cu, "FAKE_NVCC: MODE":
#   compile-error   this compiler fails with an nvcc-style message
#   hang            the test never ends
#   fail            the test exits 1
#   disk-fill       the test takes 4 x 1000 MiB of disk (fallocate, 1 MiB at a time)
#   fork-bomb       the test forks until it cannot, for a second
#   bench-hang      the bench program never ends
#   bench-silent    the bench program exits 0 without writing its output
#   ms=C,B          the bench reports medians C (candidate) and B (baseline)
# With no marker the test passes and the bench reports 0.02 and 0.06 ms.
set -eu
out=""
prev=""
for a in "$@"; do
    [ "$prev" = "-o" ] && out=$a
    prev=$a
done
[ -n "$out" ] || { echo "fake nvcc: no -o given" >&2; exit 2; }
for f in kernel.cu forge_abi.h; do
    [ -f "$f" ] || { echo "fake nvcc: $f missing in $(pwd)" >&2; exit 2; }
done
mode=$(grep -o 'FAKE_NVCC: [a-z0-9=.,-]*' kernel.cu | head -n 1 | cut -d' ' -f2 || true)
if [ "$mode" = compile-error ]; then
    echo 'kernel.cu(12): error: identifier "oops" is undefined' >&2
    echo '1 error detected in the compilation of "kernel.cu".' >&2
    exit 1
fi
cc -O1 -o "$out" "$(dirname "$0")/fake_prog.c"
echo "${mode:-ok}" >"$out.params"

#!/usr/bin/env python3
"""solbench on a machine without a CUDA device: one clear line, exit 2, no
output file, for every command that needs the GPU. Skips (77) where a GPU
is present. usage: test_solbench_nogpu.py SOLBENCH"""
import os
import subprocess
import sys
import tempfile

SOLBENCH = sys.argv[1]
LINE_START = "solbench: no CUDA device found (cudaGetDeviceCount: "
LINE_END = "); use --device cpu for the CPU path"

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "r.json")
    probe = subprocess.run([SOLBENCH, "gemm", "--M", "128", "--N", "128", "--K", "128", "--provider", "cublas",
                            "--iters", "1", "--repeats", "1", "--out", out], capture_output=True, text=True)
    if probe.returncode == 0 or not probe.stderr.startswith(LINE_START):
        print("a CUDA device is present (or the runtime answered otherwise); skipping the no-GPU test")
        print(probe.stderr.strip())
        sys.exit(77)
    n = 0
    for args in (["gemm", "--M", "128", "--N", "128", "--K", "128", "--out", out],
                 ["gemm", "--spec", "--out", tmp],
                 ["stream", "--N", "4096", "--out", out],
                 ["roofline", "--out", out],
                 ["suite", "--preset", "smoke", "--out", tmp]):
        p = subprocess.run([SOLBENCH] + args, capture_output=True, text=True)
        lines = p.stderr.splitlines()
        if p.returncode != 2 or len(lines) != 1 or not lines[0].startswith(LINE_START) or \
                not lines[0].endswith(LINE_END) or p.stdout:
            print("FAIL: solbench %s: rc %d, stderr %r, stdout %r" % (" ".join(args), p.returncode, p.stderr,
                                                                     p.stdout))
            sys.exit(1)
        if os.listdir(tmp):
            print("FAIL: solbench %s left files: %s" % (" ".join(args), os.listdir(tmp)))
            sys.exit(1)
        n += 1
        print("ok: solbench %s -> exit 2, one line: %s" % (args[0], lines[0]))
    print("%d no-GPU checks passed" % n)

#!/usr/bin/env python3
"""bench/scripts/ncu_cases.sh and ncu_profile.sh without a GPU: a stand-in
`ncu` on PATH records each call and writes a small raw-page CSV, so what
the scripts ask Nsight Compute for is checked, not only their exit codes.
Also scripts/evidence_summary.py's reading of such a CSV (ncu_rows: the
units ncu picks per metric, the top stalls) and of a kernel's name.

usage: test_ncu_cases.py

Checks: a cases file with a bad line is refused before anything runs, with
one line naming the file and line; a fused case profiles 2 x KERNELS
launches skipped and KERNELS counted, with the case's kernel regex, and
its result file named after the case; a torch case profiles only the range
torch_ops.py --profile-one marks (--profile-from-start off) into
NAME.torch-compile.ncu.csv; --no-torch leaves torch out; a --deadline
that is not whole seconds is refused.
Prints each check it made.
"""
import os
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import check  # noqa: E402 (tests/check.py)
from check import ok  # noqa: E402

SCRIPT = os.path.join(HERE, "..", "..", "bench", "scripts", "ncu_cases.sh")

# A stand-in for ncu: each call's arguments one line in $NCU_LOG; an
# --import call prints a raw page of two launches in the units ncu uses.
FAKE_NCU = """#!/bin/sh
echo "$*" >> "$NCU_LOG"
case "$1" in
--import)
  printf '%s\\n' '"ID","Kernel Name","gpu__time_duration.sum","dram__bytes_read.sum",\
"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",\
"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"' \
    '"","","ms","Gbyte","",""' \
    '"0","void <unnamed>::rmsnorm_fwd_k<__nv_bfloat16, 4>(const T1 *, long)","1.5","1,074.5","3.5","7.25"' \
    '"1","triton_red_fused_x_0","0.25","0.5","1","0"' ;;
esac
exit 0
"""


def run(args, env):
    return subprocess.run(["bash", SCRIPT] + args, capture_output=True, text=True, env=env)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        bindir = os.path.join(tmp, "bin")
        os.mkdir(bindir)
        ncu = os.path.join(bindir, "ncu")
        with open(ncu, "w") as f:
            f.write(FAKE_NCU)
        os.chmod(ncu, os.stat(ncu).st_mode | stat.S_IEXEC)
        log = os.path.join(tmp, "ncu.log")
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], NCU_LOG=log)

        bad = os.path.join(tmp, "bad.txt")
        with open(bad, "w") as f:
            f.write("# a comment\nok-case rmsnorm_fwd 1 - rmsnorm --mode fwd\nbad-case rmsnorm_fwd two - x\n")
        p = run([bad, os.path.join(tmp, "o0"), "--solbench", "/bin/true"], env)
        err = p.stderr.strip().splitlines()
        ok(p.returncode == 2 and len(err) == 1 and "bad.txt:3:" in err[0],
           "a bad cases line is refused in one line naming file and line (%r)" % p.stderr.strip())
        ok(not os.path.exists(log), "nothing was profiled before the refusal")

        cases = os.path.join(tmp, "cases.txt")
        with open(cases, "w") as f:
            f.write("# NAME REGEX KERNELS TORCH-CASE ARGS\n\n"
                    "ce-full ce_row_k|mean_loss_k 3 cross_entropy:full:bf16:M=64,V=512 "
                    "cross_entropy --mode full --dtype bf16 --M 64 --V 512 --provider fused\n"
                    "copy stream_ 1 - stream --kernel copy --N 4096 --provider solbook-stream-flat1\n")
        out = os.path.join(tmp, "o1")
        p = run([cases, out, "--solbench", "/opt/sb"], env)
        calls = open(log).read().splitlines()
        prof = [c for c in calls if not c.startswith("--import")]
        ok(p.returncode == 0 and len(prof) == 3,
           "two fused profiles and one torch profile (%d calls, exit %d)" % (len(prof), p.returncode))
        f0 = prof[0]
        ok("--launch-skip 6 --launch-count 3" in f0 and "--kernel-name regex:ce_row_k|mean_loss_k" in f0,
           "a 3-kernel case skips 6 launches and profiles 3 of its own kernels")
        ok("/opt/sb cross_entropy --mode full --dtype bf16 --M 64 --V 512 --provider fused" in f0 and
           "--suite shortfalls-ncu" in f0 and f0.endswith("--out %s/ce-full.json" % out),
           "the solbench command, its suite and its result file named after the case")
        t = prof[1]
        ok("--profile-from-start off" in t and "--profile-one" in t and "--kernel-name regex:^triton" in t
           and "--case cross_entropy:full:bf16:M=64,V=512" in t and "--providers torch-compile" in t,
           "torch.compile is profiled over the --profile-one range only, Triton kernels only")
        ok("--launch-skip 2 --launch-count 1" in prof[2] and "--kernel-name regex:stream_" in prof[2],
           "a one-kernel copy case skips 2 launches and profiles 1")
        ok(sorted(f for f in os.listdir(out) if f.endswith(".csv")) ==
           ["ce-full.ncu.csv", "ce-full.torch-compile.ncu.csv", "copy.ncu.csv"],
           "one CSV per profile, torch's beside the fused one")
        ok("exit 0" in open(os.path.join(out, "ncu_cases.log")).read(), "the log records each step's exit")

        os.remove(log)
        p = run([cases, os.path.join(tmp, "o2"), "--solbench", "/opt/sb", "--no-torch"], env)
        prof = [c for c in open(log).read().splitlines() if not c.startswith("--import")]
        ok(p.returncode == 0 and len(prof) == 2 and not any("torch_ops.py" in c for c in prof),
           "--no-torch profiles the fused and copy cases alone")

        p = run([cases, os.path.join(tmp, "o3"), "--solbench", "/opt/sb", "--deadline", "x"], env)
        ok(p.returncode == 2 and "--deadline" in p.stderr, "a deadline that is not whole seconds is refused")

        # evidence_summary.py reads the CSV the stand-in wrote: us and MB
        # whatever the units, the name without namespace and templates
        import evidence_summary as es
        rows = es.ncu_rows(open(os.path.join(out, "copy.ncu.csv")).read())
        ok(len(rows) == 2 and abs(rows[0]["gpu__time_duration.sum"] - 1500.0) < 1e-9 and
           abs(rows[0]["dram__bytes_read.sum"] - 1074500.0) < 1e-6,
           "ncu_rows: ms to us and Gbyte to MB, thousands separators read (%r)" % rows[:1])
        ok(rows[0]["stalls"] == "barrier 7.2, long_scoreboard 3.5" or
           rows[0]["stalls"] == "barrier 7.3, long_scoreboard 3.5",
           "ncu_rows: the two largest stalls, largest first (%s)" % rows[0]["stalls"])
        ok(es.kernel_short(rows[0]["name"]) == "rmsnorm_fwd_k" and
           es.kernel_short(rows[1]["name"]) == "triton_red_fused_x_0", "kernel_short drops namespace and templates")
    print("%d checks passed" % check.passed)


if __name__ == "__main__":
    main()

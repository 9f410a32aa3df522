#!/usr/bin/env python3
"""End-to-end tests of the bench/kernels/ ops through solbench's CPU path.

usage: test_kernels_solbench_cpu.py SOLBENCH [SOLBOOK]

Runs every op (rmsnorm, add_rmsnorm, layernorm, softmax, rope, swiglu,
cross_entropy, flce) in every mode with --device cpu at small sizes and
checks the stored results: status passed, the config as asked, the
correctness block (checked elements, nothing unwritten, finite, passed),
the FLOP and byte models of docs/KERNELS.md recomputed here, the outputs
whose reference needs every row (the mean loss, FLCE's dW) checked at these
sizes, and the forced-failure path (status failed, no timing). Usage errors
exit 2 with one line naming the op. With SOLBOOK given, every written file
is validated against its schema by `solbook validate`. Prints each check.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import check  # noqa: E402 (tests/check.py)
from check import ok  # noqa: E402

SOLBENCH = sys.argv[1]
SOLBOOK = sys.argv[2] if len(sys.argv) > 2 and os.path.exists(sys.argv[2]) else None
written = []


ES = {"fp32": 4, "fp16": 2, "bf16": 2}


def model(op, mode, dt, s, params):
    """docs/KERNELS.md, FLOP and byte models"""
    es = ES[dt]
    ws = 4 if params.get("weight_dtype") == "fp32" else es
    if op in ("rmsnorm", "add_rmsnorm", "layernorm", "softmax"):
        M, N = s["M"], s["N"]
        mn = M * N
        if op == "rmsnorm":
            f = {"fwd": 4 * mn, "bwd": 9 * mn, "full": 13 * mn}[mode]
            b = {"fwd": 2 * mn * es + N * ws, "bwd": 3 * mn * es + 2 * N * ws,
                 "full": 5 * mn * es + 3 * N * ws}[mode]
            return f, b
        if op == "add_rmsnorm":
            return 5 * mn, 4 * mn * es + N * ws
        if op == "layernorm":
            return 7 * mn, 2 * mn * es + 2 * N * ws
        return (5 * mn, 2 * mn * es) if mode == "fwd" else (4 * mn, 3 * mn * es)
    if op == "rope":
        n = s["B"] * s["T"] * (s["Hq"] + s["Hk"]) * s["D"]
        one = (2 * n + 2 * s["T"] * s["D"]) * es
        return (6 * n, 2 * one) if mode == "full" else (3 * n, one)
    if op == "swiglu":
        n = s["B"] * s["T"] * s["I"]
        return {"fwd": (5 * n, 3 * n * es), "bwd": (9 * n, 5 * n * es), "full": (14 * n, 8 * n * es)}[mode]
    if op == "cross_entropy":
        M, V = s["M"], s["V"]
        return (M * V * (7 if mode == "full" else 4),
                M * V * es * (2 if mode == "full" else 1) + 12 * M + 4)
    BT, H, V = s["BT"], s["H"], s["V"]
    b = (BT * H + V * H) * es + 12 * BT + 4
    if mode == "full":
        return 6 * BT * V * H + 7 * BT * V, b + (BT * H + V * H) * es
    return 2 * BT * V * H + 4 * BT * V, b


def run(args, expect):
    p = subprocess.run([SOLBENCH] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != expect:
        print("command:", " ".join([SOLBENCH] + args))
        print("stdout:", p.stdout)
        print("stderr:", p.stderr)
    ok(p.returncode == expect, "solbench %s exits %d" % (" ".join(args), expect))
    return p


CASES = [
    ("rmsnorm", "fwd", "bf16", {"M": 9, "N": 96}, {}),
    ("rmsnorm", "bwd", "fp16", {"M": 9, "N": 100}, {"weight_dtype": "fp32"}),
    ("rmsnorm", "full", "fp32", {"M": 5, "N": 256}, {}),
    ("add_rmsnorm", "fwd", "bf16", {"M": 7, "N": 64}, {"weight_dtype": "fp32"}),
    ("layernorm", "fwd", "fp16", {"M": 6, "N": 80}, {}),
    ("softmax", "fwd", "bf16", {"M": 6, "N": 333}, {}),
    ("softmax", "bwd", "fp32", {"M": 6, "N": 333}, {}),
    ("rope", "fwd", "bf16", {"B": 1, "T": 6, "Hq": 4, "Hk": 2, "D": 16}, {}),
    ("rope", "bwd", "fp16", {"B": 2, "T": 3, "Hq": 2, "Hk": 1, "D": 10}, {}),
    ("rope", "full", "fp32", {"B": 1, "T": 4, "Hq": 2, "Hk": 2, "D": 32}, {}),
    ("swiglu", "fwd", "bf16", {"B": 2, "T": 3, "I": 40}, {}),
    ("swiglu", "bwd", "fp16", {"B": 1, "T": 5, "I": 33}, {}),
    ("swiglu", "full", "fp32", {"B": 1, "T": 2, "I": 64}, {}),
    ("cross_entropy", "fwd", "fp32", {"M": 8, "V": 500}, {}),
    ("cross_entropy", "full", "bf16", {"M": 12, "V": 300}, {"ignore_frac": "0.25"}),
    ("flce", "fwd", "fp16", {"BT": 10, "H": 16, "V": 40}, {}),
    ("flce", "full", "bf16", {"BT": 12, "H": 32, "V": 50}, {"chunk": "4", "ignore_frac": "0.2"}),
    # fp16 gradients of about 1e-6 are subnormal: one of them rounded the
    # other way (fp32 against float64 near a tie) moves a dW element by a
    # subnormal step, which the check's allowance must know (sbk_flip_scale;
    # it failed at dW[6142][113] here before)
    ("flce", "full", "fp16", {"BT": 37, "H": 128, "V": 9000}, {"ignore_frac": "0.3"}),
]

with tempfile.TemporaryDirectory() as tmp:
    for op, mode, dt, shape, params in CASES:
        args = [op, "--device", "cpu", "--mode", mode, "--dtype", dt, "--warmup", "1", "--iters", "2",
                "--repeats", "2"]
        for k, v in shape.items():
            args += ["--" + k, str(v)]
        for k, v in params.items():
            args += ["--" + k, str(v)]
        d = os.path.join(tmp, "%s-%s-%s" % (op, mode, dt))
        os.mkdir(d)
        run(args + ["--out", d], 0)
        files = glob.glob(os.path.join(d, "*.json"))
        ok(len(files) == 1, "%s %s: one result file (the cpu provider)" % (op, mode))
        with open(files[0]) as f:
            doc = json.load(f)
        written.append(files[0])
        label = "%s %s %s" % (op, mode, dt)
        c = doc["config"]
        ok(doc["status"] == "passed", label + ": status passed")
        ok(c["op"] == op and c["mode"] == mode and c["dtype"] == dt and c["provider"] == "cpu"
           and c["backend"] == "cpu", label + ": config as asked")
        ok(c["shape"] == shape, label + ": shape recorded")
        corr = doc["correctness"]
        ok(corr["passed"] is True and corr["finite"] is True and corr["unwritten"] == 0,
           label + ": correct, finite, every element written")
        ok(corr["checked_elements"] > 0 and corr["reference"].startswith("float64-host"),
           label + ": checked against the float64 host reference")
        flops, nbytes = model(op, mode, dt, shape, params)
        ok(abs(doc["metrics"]["flops"] - flops) <= 1e-9 * flops, label + ": FLOP model")
        ok(abs(doc["metrics"]["bytes"] - nbytes) <= 1e-9 * nbytes, label + ": byte model")
        ok(doc["timing"]["stats"]["count"] == 4, label + ": 2 x 2 samples")
        if op in ("cross_entropy", "flce"):
            # small shapes: the mean loss (and flce's dW) are checked outputs
            per_row = shape.get("M", shape.get("BT"))
            # (dW: up to 64 sampled rows of V)
            extra = 1 + (min(shape["V"], 64) * shape["H"] if (op == "flce" and mode == "full") else 0)
            ok(corr["checked_elements"] >= per_row + extra,
               label + ": loss_rows, the mean loss%s checked" % (" and dW" if extra > 1 else ""))
        if op == "flce" and "chunk" in params:
            ok(str(c["params"].get("chunk")) in (params["chunk"], str(float(params["chunk"]))),
               label + ": chunk recorded in params")

    # a checked output perturbed on purpose: status failed, no timing, exit 1
    d = os.path.join(tmp, "corrupt")
    os.mkdir(d)
    run(["softmax", "--device", "cpu", "--M", "4", "--N", "64", "--dtype", "fp32", "--iters", "2",
         "--repeats", "1", "--test-corrupt-output", "--out", d], 1)
    with open(glob.glob(os.path.join(d, "*.json"))[0]) as f:
        doc = json.load(f)
    written.append(glob.glob(os.path.join(d, "*.json"))[0])
    ok(doc["status"] == "failed" and "timing" not in doc and "metrics" not in doc
       and doc["correctness"]["passed"] is False, "corrupted output: failed, no timing or metrics")

    # usage errors: exit 2, one line naming the op
    for args, word in ((["rope", "--device", "cpu", "--D", "15"], "rope"),
                       (["flce", "--device", "cpu", "--chunk", "-1"], "flce"),
                       (["cross_entropy", "--device", "cpu", "--ignore_frac", "1.5"], "cross_entropy"),
                       (["rmsnorm", "--device", "cpu", "--eps", "0"], "rmsnorm")):
        p = run(args, 2)
        lines = [x for x in p.stderr.splitlines() if x.strip()]
        ok(len(lines) == 1 and word in lines[0], "%s: one error line naming the op" % " ".join(args))

    if SOLBOOK:
        p = subprocess.run([SOLBOOK, "validate"] + written, capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout, p.stderr)
        ok(p.returncode == 0, "solbook validate accepts all %d written files" % len(written))
print("test_kernels_solbench_cpu.py: %d checks passed" % check.passed)

#!/usr/bin/env python3
"""torch_ops.py - time the Python providers of the ops of bench/kernels/
(rmsnorm, add_rmsnorm, layernorm, softmax, rope, swiglu, cross_entropy, flce)
and write one solbook.result.v1 file per (case, provider):

  huggingface    the unmodified Hugging Face / PyTorch eager code of the op
                 (what Liger-Kernel's benchmarks call huggingface)
  torch-compile  torch.compile of that same function
  liger          Liger-Kernel's own op, from the installed liger-kernel package

usage: torch_ops.py --out DIR [--quick | --preset NAME [--cases FROM-TO] [--only OP[:MODE],...]
                    | --case OP:MODE:DTYPE:K=V,K=V ...]
                    [--providers huggingface,torch-compile,liger] [--warmup 10]
                    [--iters 20] [--repeats 5] [--seed 42] [--suite NAME]
                    [--check-rows 32] [--solbench PATH] [--device N] [--profile-one]

The huggingface functions are the code the `reference` provider of solbench
mirrors (LlamaRMSNorm, apply_rotary_pos_emb, LlamaMLP's act_fn(gate) * up,
logits.float() + CrossEntropyLoss, nn.Linear + CE for flce, vLLM's
fused_add_rms_norm written out in torch, F.layer_norm, torch.softmax);
torch-compile is torch.compile of the same function (default mode,
dynamic=False, dynamo's cache reset before each case so that no case runs
eagerly past its recompile limit). liger calls what Liger-Kernel's modules
call (LigerRMSNorm's LigerRMSNormFunction with casting "llama" and in_place,
liger_rotary_pos_emb, LigerSiLUMulFunction, liger_cross_entropy,
liger_fused_linear_cross_entropy, liger_layer_norm, liger_fused_add_rms_norm,
liger_softmax) with the same inputs. Several of Liger's ops write into their
inputs (CE's logits become their gradient, RoPE rotates q and k in place,
SwiGLU's backward and RMSNorm's backward reuse their inputs' storage): the
float64 reference is computed from copies taken before any provider runs.
`torch-eager` is accepted as the old name of huggingface. A provider whose
package is missing here is written as skipped, with the reason.

Two times per run. The call time (timing.samples/stats) is a CUDA event pair
around each call as the caller launches it: what a user of the API sees, the
interpreter's launch cost included. The kernel time (timing.kernel) is the
GPU time of the same call without the host in the way: each repeat's calls
are queued behind a spinning kernel (torch.cuda._sleep, long enough to cover
the host's queueing; solbench's --hold does the same), so each sample is
back-to-back GPU time ("held-launch"). A call that waits for the GPU itself
(Liger's cross entropy reads a count back with .item()) releases the hold
early; those runs take the sum of the call's kernel and copy durations from
the CUDA profiler instead ("profiler-kernel-sum"). --quick runs the shapes of the presets liger-perkernel-quick
and memory-bound-quick (a subset of their cases: the list QUICK below;
torch.compile compiles every shape once, so the list is kept short).
--preset NAME runs the cases of a solbench preset (`solbench suite --preset
NAME --list`, narrowed by --cases and --only as there), with the preset's
name as the suite; a case whose params the code here does not compute (an
fp32 weight, FLCE's accumulation mode, another eps) is left out and named.

Protocol: inputs uniform in the ranges solbench uses (torch's generator,
seeded), one warm-up set of --warmup launches (compilation happens there),
one CUDA event pair per launch, --iters x --repeats samples, L2 warm, one
input set. Correctness: the provider's output against the same function
evaluated in float64 on the device on sampled rows (the whole output for
the scalar losses): |out - ref| <= (atol + rtol) * (|ref| + mean |ref| of
the row), atol and rtol from solbench's table (`solbench tolerances`), plus
one subnormal step for fp16. That is a sanity bound, looser than solbench's
per-element check, because the eager code rounds intermediates to the dtype
(HF's rotate_half in bf16, bf16 logits before .float()). bwd mode times
torch.autograd.grad of a retained forward graph (as Liger's benchmarks do);
full times forward + backward. Peak memory is torch.cuda.max_memory_allocated
over the checked call, minus what was allocated before it.

Exits 0 with a message, writing nothing, where PyTorch or a CUDA device is
missing; 1 when a correctness check failed; 2 on usage errors.
"""
import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
import uuid

from torch_common import find_solbench, open_device, stats_of

PROVIDERS = ("huggingface", "torch-compile", "liger")
OLD_NAMES = {"torch-eager": "huggingface"}

# The cases of liger-perkernel-quick and memory-bound-quick
# (bench/kernels/sbk_presets.h), as op:mode:dtype:shape[:params].
QUICK = [
    ("liger-perkernel-quick", "rmsnorm:fwd:bf16:M=2048,N=4096"),
    ("liger-perkernel-quick", "rmsnorm:full:bf16:M=2048,N=4096"),
    ("liger-perkernel-quick", "rope:full:bf16:B=1,T=2048,Hq=32,Hk=8,D=256"),
    ("liger-perkernel-quick", "swiglu:full:bf16:B=4,T=1024,I=11008"),
    ("liger-perkernel-quick", "cross_entropy:full:bf16:M=1024,V=128256"),
    ("liger-perkernel-quick", "flce:full:bf16:BT=4096,H=4096,V=128256"),
    ("memory-bound-quick", "rmsnorm:fwd:bf16:M=16384,N=4096"),
    ("memory-bound-quick", "add_rmsnorm:fwd:bf16:M=16384,N=4096"),
    ("memory-bound-quick", "layernorm:fwd:bf16:M=16384,N=4096"),
    ("memory-bound-quick", "softmax:fwd:bf16:M=16384,N=4096"),
    ("memory-bound-quick", "cross_entropy:full:bf16:M=4096,V=12288"),
    ("liger-perkernel-quick", "rmsnorm:fwd:bf16:M=2048,N=32768"),
    ("memory-bound-quick", "rmsnorm:fwd:bf16:M=4096,N=7168"),
    ("memory-bound-quick", "softmax:fwd:bf16:M=4096,N=7168"),
    ("memory-bound-quick", "cross_entropy:full:bf16:M=16384,V=8192"),
]

MODES = {"rmsnorm": ("fwd", "bwd", "full"), "add_rmsnorm": ("fwd",), "layernorm": ("fwd",),
         "softmax": ("fwd", "bwd"), "rope": ("fwd", "bwd", "full"), "swiglu": ("fwd", "bwd", "full"),
         "cross_entropy": ("fwd", "full"), "flce": ("fwd", "full")}
SHAPES = {"rmsnorm": ("M", "N"), "add_rmsnorm": ("M", "N"), "layernorm": ("M", "N"), "softmax": ("M", "N"),
          "rope": ("B", "T", "Hq", "Hk", "D"), "swiglu": ("B", "T", "I"), "cross_entropy": ("M", "V"),
          "flce": ("BT", "H", "V")}


# The params solbench records for each op (bench/kernels/op_*.c defaults),
# which is what the code above computes: the same case, so reports pair
# torch with solbench's providers. The weights are in the input dtype and
# no target is ignored.
PARAMS = {"rmsnorm": {"eps": 1e-6, "weight_dtype": "same"},
          "add_rmsnorm": {"eps": 1e-6, "weight_dtype": "same"},
          "layernorm": {"eps": 1e-5, "weight_dtype": "same"},
          "softmax": {}, "rope": {}, "swiglu": {},
          "cross_entropy": {"ignore_frac": 0.0},
          "flce": {"chunk": 0, "accum": "fp32", "ignore_frac": 0.0}}


def case_params(text):
    """The params of a case text (its fifth field), as a dict of strings."""
    parts = text.split(":")
    if len(parts) < 5 or not parts[4]:
        return {}
    return dict(kv.partition("=")[::2] for kv in parts[4].split(","))


def liger_only(op, params):
    """FLCE's accum=input: dW summed over chunks in the input's dtype, which
    is Liger's default and no other Python provider's (Liger's accum_dtype
    float32 is the accum=fp32 case, the one torch's single way stands for)."""
    return op == "flce" and params.get("accum") == "input"


def mirrored(op, params):
    """Whether a provider here computes a case with these params: each must
    be what PARAMS records (FLCE's accum and chunk are the fused provider's
    knobs), but for FLCE's accum=input, which Liger computes."""
    if liger_only(op, params):
        params = {k: v for k, v in params.items() if k != "accum"}
    for k, v in params.items():
        want = PARAMS[op].get(k)
        if want is None:
            return False
        if isinstance(want, float):
            try:
                if float(v) != want:
                    return False
            except ValueError:
                return False
        elif str(want) != v:
            return False
    return True


def preset_cases(solbench, name, cases, only):
    """(suite, text) for the cases of a solbench preset, and the texts left
    out because their params are not mirrored."""
    cmd = [solbench, "suite", "--preset", name, "--list"]
    if cases:
        cmd += ["--cases", cases]
    if only:
        cmd += ["--only", only]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise ValueError(p.stderr.strip() or "solbench suite --list failed")
    run, left = [], []
    for text in p.stdout.split():
        op = text.split(":")[0]
        if op in PARAMS and mirrored(op, case_params(text)):
            run.append((name, text))
        else:
            left.append(text)
    return run, left


def case_config_params(op, text):
    """config.params of a case: what solbench records for it (PARAMS), with
    FLCE's accumulation as the case names it."""
    params = dict(PARAMS[op])
    if liger_only(op, case_params(text)):
        params["accum"] = "input"
    return params


def parse_case(text):
    parts = text.split(":")
    if len(parts) not in (4, 5):
        raise ValueError("case %r: expected OP:MODE:DTYPE:K=V,... [:params]" % text)
    op, mode, dtype, shape_s = parts[:4]
    if op not in MODES:
        raise ValueError("case %r: unknown op %s" % (text, op))
    if mode not in MODES[op]:
        raise ValueError("case %r: %s has no mode %s" % (text, op, mode))
    if dtype not in ("fp32", "fp16", "bf16"):
        raise ValueError("case %r: dtype must be fp32, fp16 or bf16" % text)
    shape = {}
    for kv in shape_s.split(","):
        k, _, v = kv.partition("=")
        if not v.isdigit() or int(v) <= 0:
            raise ValueError("case %r: bad shape entry %r" % (text, kv))
        shape[k] = int(v)
    if tuple(sorted(shape)) != tuple(sorted(SHAPES[op])):
        raise ValueError("case %r: %s needs shape %s" % (text, op, ",".join(SHAPES[op])))
    if not mirrored(op, case_params(text)):
        raise ValueError("case %r: params the code here does not compute" % text)
    return op, mode, dtype, shape, case_config_params(op, text)


def gather_cases(prog, listed, extra, suite, default_suite, out):
    """The cases (suite, op, mode, dtype, shape, params) of (suite, text)
    pairs and of extra case texts, suite overriding both; (None, 2) with
    the reason printed for a bad case text, no case at all, or an out that
    is not a directory."""
    cases = []
    try:
        for s, text in listed:
            cases.append((suite or s,) + parse_case(text))
        for text in extra:
            cases.append((suite or default_suite,) + parse_case(text))
    except ValueError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return None, 2
    if not cases:
        print("%s: nothing to run (give --quick, --preset or --case)" % prog, file=sys.stderr)
        return None, 2
    if not os.path.isdir(out):
        print("%s: %s: not a directory" % (prog, out), file=sys.stderr)
        return None, 2
    return cases, 0


class Case:
    """Inputs, the eager function, and how to check one case."""

    def __init__(self, torch, op, mode, dtype, shape, seed, dev):
        self.torch, self.op, self.mode, self.dtype, self.shape = torch, op, mode, dtype, shape
        self.dev = dev
        t = torch
        self.st = {"fp32": t.float32, "fp16": t.float16, "bf16": t.bfloat16}[dtype]
        g = t.Generator(device=dev).manual_seed(seed)

        def U(shape_, lo, hi, dt=None, grad=False):
            x = t.rand(shape_, generator=g, device=dev, dtype=t.float32) * (hi - lo) + lo
            x = x.to(dt or self.st)
            return x.requires_grad_(grad)

        bwd = mode != "fwd"
        s = shape
        self.inputs, self.grads = [], []
        if op in ("rmsnorm", "add_rmsnorm", "layernorm", "softmax"):
            M, N = s["M"], s["N"]
            self.rows, self.cols = M, N
            x = U((M, N), -2, 2, grad=bwd)
            if op == "rmsnorm":
                self.inputs = [x, U((N,), 0.5, 1.5, grad=bwd)]
            elif op == "add_rmsnorm":
                self.inputs = [x, U((M, N), -2, 2), U((N,), 0.5, 1.5)]
            elif op == "layernorm":
                self.inputs = [x, U((N,), 0.5, 1.5), U((N,), -0.5, 0.5)]
            else:
                self.inputs = [x]
            if bwd:
                self.grads = [U((M, N), -1, 1)]
        elif op == "rope":
            B, T, Hq, Hk, D = s["B"], s["T"], s["Hq"], s["Hk"], s["D"]
            # HF layout: [B, H, T, D] as a transposed view of [B, T, H, D]
            q = U((B, T, Hq, D), -2, 2).transpose(1, 2).requires_grad_(bwd)
            k = U((B, T, Hk, D), -2, 2).transpose(1, 2).requires_grad_(bwd)
            inv = 1.0 / (10000.0 ** (t.arange(0, D, 2, device=dev, dtype=t.float64) / D))
            ang = t.arange(T, device=dev, dtype=t.float64)[:, None] * inv[None, :]
            emb = t.cat((ang, ang), dim=-1)
            self.inputs = [q, k, emb.cos().to(self.st)[None], emb.sin().to(self.st)[None]]
            if bwd:
                self.grads = [U((B, Hq, T, D), -1, 1), U((B, Hk, T, D), -1, 1)]
            self.rows, self.cols = B * Hq * T, D
        elif op == "swiglu":
            n = s["B"] * s["T"]
            self.inputs = [U((n, s["I"]), -4, 4, grad=bwd), U((n, s["I"]), -2, 2, grad=bwd)]
            if bwd:
                self.grads = [U((n, s["I"]), -1, 1)]
            self.rows, self.cols = n, s["I"]
        elif op == "cross_entropy":
            M, V = s["M"], s["V"]
            tgt = t.randint(0, V, (M,), generator=g, device=dev)
            self.inputs = [U((M, V), -4, 4, grad=bwd), tgt]
            self.rows, self.cols = M, V
        else:  # flce
            BT, H, V = s["BT"], s["H"], s["V"]
            tgt = t.randint(0, V, (BT,), generator=g, device=dev)
            self.inputs = [U((BT, H), -1, 1, grad=bwd), U((V, H), -0.05, 0.05, grad=bwd), tgt]
            self.rows, self.cols = BT, H
        # The reference's own copies: some providers write into their inputs.
        self.ref_inputs = [x.detach().clone().requires_grad_(getattr(x, "requires_grad", False))
                           if x.is_floating_point() else x.clone() for x in self.inputs]
        self.ref_grads = [g.detach().clone() for g in self.grads]

    # -- the eager functions (HF code, as written there) ------------------
    def fn(self):
        t, F, op = self.torch, self.torch.nn.functional, self.op

        if op == "rmsnorm":
            def f(x, w):
                dt = x.dtype
                h = x.to(t.float32)
                var = h.pow(2).mean(-1, keepdim=True)
                h = h * t.rsqrt(var + 1e-6)
                return (w * h.to(dt)).to(dt)
        elif op == "add_rmsnorm":
            def f(x, res, w):
                res = x + res
                dt = res.dtype
                h = res.to(t.float32)
                h = h * t.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
                return (w * h.to(dt)).to(dt), res
        elif op == "layernorm":
            def f(x, w, b):
                return F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)
        elif op == "softmax":
            def f(x):
                return t.softmax(x, dim=-1)
        elif op == "rope":
            def rotate_half(x):
                x1 = x[..., : x.shape[-1] // 2]
                x2 = x[..., x.shape[-1] // 2:]
                return t.cat((-x2, x1), dim=-1)

            def f(q, k, cos, sin):
                cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
                return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)
        elif op == "swiglu":
            def f(a, b):
                return F.silu(a) * b
        elif op == "cross_entropy":
            def f(x, tgt):
                return F.cross_entropy(x.float(), tgt, ignore_index=-100, reduction="mean")
        else:
            def f(h, w, tgt):
                logits = F.linear(h, w)
                return F.cross_entropy(logits.float(), tgt, ignore_index=-100, reduction="mean")
        return f

    def liger_fn(self, liger, params):
        """Liger-Kernel's op for this case, called as its nn.Module or
        functional wrapper calls it."""
        op = self.op
        if op == "rmsnorm":
            fn = liger["rms_norm"]
            return lambda x, w: fn(x, w, 1e-6, 0.0, "llama", True)
        if op == "add_rmsnorm":
            fn = liger["fused_add_rms_norm"]
            return lambda x, res, w: fn(x, res, w, 1e-6)
        if op == "layernorm":
            fn = liger["layer_norm"]
            return lambda x, w, b: fn(x, w, b, 1e-5)
        if op == "softmax":
            return liger["softmax"]
        if op == "rope":
            fn = liger["rope"]
            return lambda q, k, cos, sin: fn(q, k, cos, sin)
        if op == "swiglu":
            return liger["swiglu"]
        if op == "cross_entropy":
            fn = liger["cross_entropy"]
            return lambda x, tgt: fn(x, tgt, ignore_index=-100, reduction="mean")
        fn = liger["fused_linear_cross_entropy"]
        acc = self.torch.float32 if params.get("accum") == "fp32" else None
        return lambda h, w, tgt: fn(h, w, tgt, ignore_index=-100, reduction="mean", accum_dtype=acc)

    def diff_inputs(self):
        return [x for x in self.inputs if getattr(x, "requires_grad", False)]


def run_case(torch, a, tol, prov, op, mode, dtype, shape, params, provider, suite, out_dir, liger):
    t = torch
    dev = t.device("cuda", a.device)
    c = Case(t, op, mode, dtype, shape, a.seed, dev)
    f = c.fn()
    if provider == "torch-compile":
        # Every case's function is the same code object for an op, and
        # dynamo keeps at most recompile_limit (8) compiled shapes per code
        # object: past that it runs the function eagerly, with a warning and
        # no error, and the result would be eager timed as torch-compile.
        # A fresh cache per case compiles this shape and only this shape.
        t._dynamo.reset()
    if provider == "torch-compile":
        g = t.compile(f, dynamic=False)
    elif provider == "liger":
        g = c.liger_fn(liger, params)
    else:
        g = f
    started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000Z"

    def as_tuple(y):
        return y if isinstance(y, tuple) else (y,)

    retained = {}

    def launch():
        if mode == "fwd":
            with t.no_grad():
                return as_tuple(g(*c.inputs))
        if mode == "bwd":
            outs = retained["outs"]
            gr = c.grads if c.grads else [None] * len(outs)
            return tuple(t.autograd.grad(outs, c.diff_inputs(), gr, retain_graph=True))
        outs = as_tuple(g(*c.inputs))
        gr = c.grads if c.grads else [None] * len(outs)
        return outs + tuple(t.autograd.grad(outs, c.diff_inputs(), gr))

    if mode == "bwd":
        retained["outs"] = as_tuple(g(*c.inputs))
    t.cuda.synchronize(dev)
    base = t.cuda.memory_allocated(dev)
    t.cuda.reset_peak_memory_stats(dev)
    got = launch()
    t.cuda.synchronize(dev)
    peak = t.cuda.max_memory_allocated(dev) - base

    # float64 reference of the same function on sampled rows
    nrows = min(c.rows, a.check_rows)
    rows = [0] if nrows == 1 else sorted({int(i * (c.rows - 1) / (nrows - 1)) for i in range(nrows)})
    ref = reference(t, c, f, rows)
    del c.ref_inputs, c.ref_grads  # not needed past the check: give the memory back before timing
    chk = compare_to_reference(t, op, dtype, got, ref, tol)
    checked, bad, finite, passed = chk["checked"], chk["bad"], chk["finite"], chk["passed"]
    atol, rtol = chk["atol"], chk["rtol"]
    maxabs, maxrel = chk["max_abs_err"], chk["max_rel_err"]
    result = {
        "schema": "solbook.result.v1",
        "run_uuid": uuid.uuid4().hex,
        "config": {"suite": suite, "op": op, "mode": mode, "provider": provider, "backend": "torch",
                   "dtype": dtype, "shape": dict(shape),
                   "params": dict(params),
                   "run_params": {"seed": a.seed, "torch_version": t.__version__}},
        "protocol": {"timer": "cuda-event", "warmup_iters": None, "warmup_ms": None, "iters": a.iters,
                     "repeats": a.repeats, "l2": "warm", "input_sets": 1, "graph": False, "launch_hold": "none"},
        "correctness": {"reference": "float64-device-sampled-rows" if nrows < c.rows else "float64-device",
                        "checked_elements": checked, "max_abs_err": maxabs if finite else None,
                        "max_rel_err": maxrel if finite else None,
                        "rel_l2_err": chk["rel_l2_err"],
                        "atol": atol, "rtol": rtol, "unwritten": None, "finite": finite, "passed": passed,
                        "output_checksum": "unknown"},
        "determinism": {"bitwise_repeatable": None, "batch_invariant": None},
        "memory": {"peak_device_bytes": int(peak), "peak_device_mb": peak / 1e6},
        "notes": provider_note(t, provider),
    }
    if not passed:
        result["status"] = "failed"
        result["reason"] = "correctness: %d of %d checked elements outside tolerance, finite %s" % (
            bad, checked, finite)
    else:
        for _ in range(a.warmup):
            launch()
        t.cuda.synchronize(dev)
        if a.profile_one:
            # one launch, after the compile and the warm-up, between
            # cudaProfilerStart and Stop: `ncu --profile-from-start off`
            # profiles this launch's kernels and nothing else (not the
            # compile's autotuning, not the checked call)
            t.cuda.profiler.start()
            launch()
            t.cuda.synchronize(dev)
            t.cuda.profiler.stop()
        result["protocol"]["warmup_iters"] = a.warmup
        per_rep, _ = timed_calls(t, dev, launch, a.iters, a.repeats, None)
        st = stats_of([v for r in per_rep for v in r], a.repeats)
        result["status"] = "passed"
        result["timing"] = {"unit": "ms", "samples": per_rep, "stats": st}
        if a.profile_one:
            # a run under Nsight Compute is a profile, not a timing; the CUDA
            # profiler a kernel sum would need is ncu's while it runs
            result["protocol"]["profiler"] = "ncu"
        else:
            result["timing"]["kernel"] = kernel_time(t, dev, launch, a.iters, a.repeats)
        flops, nbytes = models(op, mode, dtype, shape)
        secs = st["median"] * 1e-3
        result["metrics"] = {"flops": flops, "bytes": nbytes, "tflops": flops / secs / 1e12,
                             "gbps": nbytes / secs / 1e9, "bound": "unknown", "pct_datasheet_peak": None,
                             "pct_measured_ceiling": None}
    p = provider_provenance(prov, t, provider)
    p["started_at"] = started
    p["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000Z"
    result["provenance"] = p
    path = os.path.join(out_dir, result_name(op, dtype, mode, shape, params, provider))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.", dir=out_dir)
    with os.fdopen(fd, "w") as fh:
        json.dump(result, fh, indent=2, sort_keys=True)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    s = result.get("timing", {}).get("stats")
    label = "%s %s %s %s %s" % (op, mode, dtype, ",".join("%s=%d" % kv for kv in shape.items()), provider)
    if s:
        print("%s: passed, median %.4f ms, %.0f GB/s, peak %.1f MB" % (
            label, s["median"], result["metrics"]["gbps"], peak / 1e6), flush=True)
    else:
        print("%s: %s (%s)" % (label, result["status"], result.get("reason", "")), flush=True)
    return passed


def compare_to_reference(t, op, dtype, got, ref, tol):
    """The provider's outputs (got, as launch() returns them) against the
    float64 reference: counts, largest errors, and whether every checked
    element is within the bound described in the module's docstring."""
    atol, rtol = tol[dtype]["atol"], tol[dtype]["rtol"]
    checked, bad, maxabs, maxrel, e2, r2 = 0, 0, 0.0, 0.0, 0.0, 0.0
    finite = True
    for name, (o, rf, sel) in zip(ref["names"], [(got[i], ref["values"][i], ref["select"][i])
                                                   for i in range(len(ref["values"]))]):
        o = sel(o).detach().double()
        finite = finite and bool(t.isfinite(o).all())
        rowmean = rf.abs().mean(dim=-1, keepdim=True) if rf.dim() > 0 else rf.abs()
        sc = rf.abs() + rowmean
        d = (o - rf).abs()
        checked += rf.numel()
        # the eager code rounds intermediates to the dtype (HF's rotate_half
        # in bf16, bf16 logits before .float()), so the bound is rtol of the
        # row's magnitude, not solbench's per-element atol
        floor = 2.0 ** -24 if dtype == "fp16" else 0.0
        if op == "flce" and name in ("dh", "dw"):
            # dH and dW are matrix products over B*T or V terms of dlogits
            # that the Hugging Face code and Liger round to the dtype before
            # the product: near cancellation one element's relative error is
            # unbounded whoever computes it (the Hugging Face code itself
            # misses an elementwise bound), so these are checked as matrix
            # products are, row by row in norm
            rows_bad = ~(d.norm(dim=-1) <= (atol + rtol) * rf.norm(dim=-1) + floor)
            bad += int(rows_bad.sum()) * rf.shape[-1]
        else:
            bad += int((~(d <= (atol + rtol) * sc + floor)).sum())
        if rf.numel():
            maxabs = max(maxabs, float(d.max()))
            maxrel = max(maxrel, float((d / (rf.abs() + atol * sc)).max()))
        e2 += float((d ** 2).sum())
        r2 += float((rf ** 2).sum())
    passed = finite and bad == 0
    return {"checked": checked, "bad": bad, "finite": finite, "passed": passed, "atol": atol, "rtol": rtol,
            "max_abs_err": maxabs, "max_rel_err": maxrel,
            "rel_l2_err": math.sqrt(e2 / r2) if (finite and r2 > 0) else None}


def timed_calls(t, dev, launch, iters, repeats, hold_cycles):
    """Samples (ms) of iters calls a repeat, a CUDA event pair around each.
    hold_cycles: None, each call launched as the caller launches it; else
    each repeat is queued behind a kernel spinning that many cycles. Returns
    the samples by repeat and how many repeats' holds ended before the host
    had queued all their calls."""
    starts = [t.cuda.Event(enable_timing=True) for _ in range(iters)]
    stops = [t.cuda.Event(enable_timing=True) for _ in range(iters)]
    released = t.cuda.Event()
    per_rep, timeouts = [], 0
    for _ in range(repeats):
        if hold_cycles:
            t.cuda._sleep(hold_cycles)
            released.record()
        for i in range(iters):
            starts[i].record()
            launch()
            stops[i].record()
        if hold_cycles and released.query():
            timeouts += 1
        t.cuda.synchronize(dev)
        per_rep.append([starts[i].elapsed_time(stops[i]) for i in range(iters)])
    return per_rep, timeouts


def spin_cycles_per_ms(t, dev):
    """Cycles of torch.cuda._sleep in one millisecond on this card, measured."""
    a, b = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
    cycles = 20_000_000
    t.cuda._sleep(cycles // 10)
    a.record()
    t.cuda._sleep(cycles)
    b.record()
    t.cuda.synchronize(dev)
    return cycles / max(a.elapsed_time(b), 1e-3)


def kernel_time(t, dev, launch, iters, repeats):
    """timing.kernel: the GPU time of the call without the host in the way
    (see the module's docstring)."""
    if not hasattr(kernel_time, "cycles_per_ms"):
        kernel_time.cycles_per_ms = spin_cycles_per_ms(t, dev)
    # Hold long enough for the host to queue the repeat: a measured first
    # try, then more, up to a second.
    t0 = time.perf_counter()
    launch()
    t.cuda.synchronize(dev)
    host_ms = (time.perf_counter() - t0) * 1e3
    hold_ms = min(1000.0, max(20.0, 4.0 * host_ms * iters))
    per_rep, timeouts = timed_calls(t, dev, launch, iters, repeats, int(hold_ms * kernel_time.cycles_per_ms))
    if timeouts == 0:
        flat = [v for r in per_rep for v in r]
        return {"method": "held-launch", "samples": per_rep, "stats": stats_of(flat, repeats),
                "hold_timeouts": 0}
    per_rep = profiled_calls(t, dev, launch, iters, repeats)
    flat = [v for r in per_rep for v in r]
    return {"method": "profiler-kernel-sum", "samples": per_rep, "stats": stats_of(flat, repeats)}


def profiled_calls(t, dev, launch, iters, repeats):
    """Per call, the sum of the durations (ms) of the GPU activities (kernels,
    copies, sets) the CUDA profiler saw between the call's start and the
    device synchronisation that ends it."""
    from torch.profiler import ProfilerActivity, profile, record_function
    marks = []
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for r in range(repeats):
            for i in range(iters):
                name = "sbk_call_%d_%d" % (r, i)
                marks.append(name)
                with record_function(name):
                    launch()
                    t.cuda.synchronize(dev)
    events = prof.events()
    ranges = {}
    for e in events:
        if e.name in ranges or not e.name.startswith("sbk_call_"):
            continue
        if e.device_type == t.autograd.DeviceType.CPU:
            ranges[e.name] = (e.time_range.start, e.time_range.end)
    # record_function's range shows on the GPU timeline too (a user
    # annotation spanning the call's work): only the work itself counts
    gpu = [e for e in events if e.device_type == t.autograd.DeviceType.CUDA and not e.name.startswith("sbk_call_")]
    sums = {name: 0.0 for name in marks}
    spans = sorted((ranges[n][0], ranges[n][1], n) for n in marks if n in ranges)
    for e in gpu:
        for lo, hi, n in spans:
            if lo <= e.time_range.start <= hi:
                sums[n] += (e.time_range.end - e.time_range.start) / 1e3
                break
    if len(spans) != len(marks) or any(v <= 0.0 for v in sums.values()):
        raise RuntimeError("the profiler did not report the GPU work of every call")
    return [[sums["sbk_call_%d_%d" % (r, i)] for i in range(iters)] for r in range(repeats)]


def result_name(op, dtype, mode, shape, params, provider):
    shape_s = "x".join(str(shape[k]) for k in SHAPES[op])
    accum = "-accum_input" if params.get("accum") == "input" else ""
    return "%s-%s-%s-%s%s-%s.json" % (op, dtype, mode, shape_s, accum, provider)


def load_liger():
    """Liger-Kernel's functions, by op, and its version; (None, reason) when
    the package cannot be imported here."""
    try:
        from importlib import metadata
        from liger_kernel.ops import LigerRMSNormFunction, LigerSiLUMulFunction
        from liger_kernel.transformers.functional import (liger_cross_entropy, liger_fused_add_rms_norm,
                                                          liger_fused_linear_cross_entropy, liger_layer_norm,
                                                          liger_softmax)
        from liger_kernel.transformers.rope import liger_rotary_pos_emb
        version = metadata.version("liger-kernel")
    except Exception as e:  # ImportError, or Triton failing to load
        return None, "liger-kernel cannot be imported here: %s" % str(e).split("\n")[0][:200]
    return {"rms_norm": LigerRMSNormFunction.apply, "swiglu": LigerSiLUMulFunction.apply,
            "cross_entropy": liger_cross_entropy, "fused_add_rms_norm": liger_fused_add_rms_norm,
            "fused_linear_cross_entropy": liger_fused_linear_cross_entropy, "layer_norm": liger_layer_norm,
            "softmax": liger_softmax, "rope": liger_rotary_pos_emb, "version": version}, None


def package_versions(t, provider):
    """provenance.software.packages: what the provider is made of."""
    from importlib import metadata
    names = {"huggingface": ["torch"], "torch-compile": ["torch", "triton"],
             "liger": ["torch", "triton", "liger-kernel"],
             "quack": ["torch", "quack-kernels", "nvidia-cutlass-dsl", "apache-tvm-ffi"]}[provider]
    out = {}
    for n in names:
        try:
            out[n] = metadata.version(n)
        except metadata.PackageNotFoundError:
            pass
    out["torch"] = t.__version__
    return out


def provider_provenance(prov, t, provider):
    p = json.loads(json.dumps(prov))
    p["tool"] = {"name": "torch_ops.py", "version": t.__version__}
    p["software"]["cuda_runtime_version"] = t.version.cuda or "unknown"
    p["software"]["cublas_version"] = "unknown"
    p["software"]["compiler"] = "python %s" % platform.python_version()
    p["software"]["packages"] = package_versions(t, provider)
    return p


def provider_note(t, provider):
    if provider == "liger":
        from importlib import metadata
        return "Liger-Kernel %s's own op (Triton %s, PyTorch %s); see bench/scripts/torch_ops.py" % (
            metadata.version("liger-kernel"), metadata.version("triton"), t.__version__)
    return "PyTorch %s %s of the Hugging Face code; see bench/scripts/torch_ops.py" % (
        t.__version__, "eager" if provider == "huggingface" else "torch.compile")



def reference(t, c, f, rows):
    """float64 values of the checked outputs (sampled rows), and how to pick
    the same elements out of the provider's outputs."""
    op, mode = c.op, c.mode
    idx = t.tensor(rows, device=c.dev)

    def d64(x):
        y = x.detach().double()
        return y.requires_grad_(getattr(x, "requires_grad", False))

    if op in ("cross_entropy", "flce"):
        # losses over every row (chunks of rows in float64), grads on rows
        x64 = [d64(x) if x.is_floating_point() else x for x in c.ref_inputs]
        if op == "cross_entropy":
            def ref_f(x, tgt):
                return t.nn.functional.cross_entropy(x, tgt, reduction="mean")
        else:
            def ref_f(h, w, tgt):
                return t.nn.functional.cross_entropy(h @ w.t(), tgt, reduction="mean")
        loss = ref_f(*x64)
        names, values, select = ["loss"], [loss.detach().reshape(())], [lambda o: o.reshape(())]
        if mode == "full":
            grads = t.autograd.grad(loss, [x for x in x64 if x.requires_grad])
            names.append("dx" if op == "cross_entropy" else "dh")
            values.append(grads[0][idx])
            select.append(lambda o: o[idx])
            if op == "flce":
                widx = t.tensor(sorted({int(i * (c.shape["V"] - 1) / max(1, len(rows) - 1))
                                        for i in range(len(rows))}), device=c.dev)
                names.append("dw")
                values.append(grads[1][widx])
                select.append(lambda o: o[widx])
        return {"names": names, "values": values, "select": select}

    # row-wise ops: evaluate on the sampled rows only
    if op == "rope":
        q, k, cos, sin = c.ref_inputs
        B, Hq, T, D = q.shape
        sel_q = idx  # rows of q viewed [B*Hq*T, D]
        x64 = [d64(q), d64(k), cos.double(), sin.double()]
        outs = f(*x64)
        names, values, select = ["q_out", "k_out"], [], []
        if mode != "bwd":
            values += [outs[0].reshape(-1, D)[sel_q], outs[1].reshape(-1, D)[sel_q % (B * k.shape[1] * T)]]
            select += [lambda o: o.reshape(-1, D)[sel_q],
                       lambda o, n=B * k.shape[1] * T: o.reshape(-1, D)[sel_q % n]]
        else:
            names = []
        if mode != "fwd":
            gq, gk = t.autograd.grad(outs, [x64[0], x64[1]], [g.double() for g in c.ref_grads])
            names += ["dq", "dk"]
            values += [gq.reshape(-1, D)[sel_q], gk.reshape(-1, D)[sel_q % (B * k.shape[1] * T)]]
            select += [lambda o: o.reshape(-1, D)[sel_q],
                       lambda o, n=B * k.shape[1] * T: o.reshape(-1, D)[sel_q % n]]
        return {"names": names, "values": values, "select": select}

    sliced = []
    for x in c.ref_inputs:
        if x.dim() == 2 and x.shape[0] == c.rows:
            sliced.append(d64(x[idx].detach()).requires_grad_(getattr(x, "requires_grad", False)))
        else:
            sliced.append(d64(x))
    outs = f(*sliced)
    outs = outs if isinstance(outs, tuple) else (outs,)
    names, values, select = [], [], []
    if mode != "bwd":
        for i, o in enumerate(outs):
            names.append("out%d" % i)
            values.append(o.detach())
            select.append(lambda o_: o_[idx])
    if mode != "fwd":
        diff = [s for s in sliced if s.requires_grad]
        gr = [g[idx].double() for g in c.ref_grads]
        grads = t.autograd.grad(outs, diff, gr)
        for i, gx in enumerate(grads):
            if gx.dim() == 2:  # dx rows; dw sums over every row and is not checked here
                names.append("grad%d" % i)
                values.append(gx)
                select.append(lambda o_: o_[idx])
    return {"names": names, "values": values, "select": select}


def models(op, mode, dtype, s):
    """FLOP and byte models of docs/KERNELS.md (same as solbench's ops)."""
    es = {"fp32": 4, "fp16": 2, "bf16": 2}[dtype]
    if op in ("rmsnorm", "add_rmsnorm", "layernorm", "softmax"):
        M, N = s["M"], s["N"]
        mn = float(M * N)
        if op == "rmsnorm":
            fwd, bwd = (4 * mn, 2 * mn * es + N * es), (9 * mn, 3 * mn * es + 2 * N * es)
            return {"fwd": fwd, "bwd": bwd, "full": (fwd[0] + bwd[0], fwd[1] + bwd[1])}[mode]
        if op == "add_rmsnorm":
            return 5 * mn, 4 * mn * es + N * es
        if op == "layernorm":
            return 7 * mn, 2 * mn * es + 2 * N * es
        return (5 * mn, 2 * mn * es) if mode == "fwd" else (4 * mn, 3 * mn * es)
    if op == "rope":
        n = float(s["B"] * s["T"] * (s["Hq"] + s["Hk"]) * s["D"])
        one = (2 * n + 2 * s["T"] * s["D"]) * es
        return (6 * n, 2 * one) if mode == "full" else (3 * n, one)
    if op == "swiglu":
        n = float(s["B"] * s["T"] * s["I"])
        return {"fwd": (5 * n, 3 * n * es), "bwd": (9 * n, 5 * n * es), "full": (14 * n, 8 * n * es)}[mode]
    if op == "cross_entropy":
        M, V = s["M"], s["V"]
        mv = float(M * V)
        return (mv * (7 if mode == "full" else 4), mv * es * (2 if mode == "full" else 1) + M * 12 + 4)
    BT, H, V = s["BT"], s["H"], s["V"]
    b = (BT * H + V * H) * es + BT * 12.0 + 4
    f = 2.0 * BT * V * H * (3 if mode == "full" else 1) + BT * V * (7 if mode == "full" else 4)
    return f, (b + (BT * H + V * H) * es if mode == "full" else b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory for the result files")
    ap.add_argument("--quick", action="store_true", help="the quick presets' cases (see QUICK)")
    ap.add_argument("--case", action="append", default=[], help="OP:MODE:DTYPE:K=V,... (repeatable)")
    ap.add_argument("--preset", default=None, help="the cases of this solbench preset (solbench suite --list)")
    ap.add_argument("--cases", default=None, help="with --preset: FROM-TO, as solbench suite --cases")
    ap.add_argument("--only", default=None, help="with --preset: OP[:MODE],..., as solbench suite --only")
    ap.add_argument("--providers", default="huggingface,torch-compile,liger",
                    help="any of %s (torch-eager: the old name of huggingface)" % ",".join(PROVIDERS))
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--suite", default=None, help="config.suite (default: the quick preset's name, or adhoc)")
    ap.add_argument("--check-rows", type=int, default=32)
    ap.add_argument("--solbench", default=None)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--profile-one", action="store_true",
                    help="after the warm-up, one launch between cudaProfilerStart and Stop, for "
                         "`ncu --profile-from-start off` (bench/scripts/ncu_cases.sh)")
    a = ap.parse_args()
    providers = [OLD_NAMES.get(p, p) for p in a.providers.split(",") if p]
    if any(p not in PROVIDERS for p in providers) or not providers:
        print("torch_ops.py: --providers takes %s" % ", ".join(PROVIDERS), file=sys.stderr)
        return 2
    if min(a.iters, a.repeats, a.check_rows) < 1 or a.warmup < 1:
        print("torch_ops.py: --warmup, --iters, --repeats and --check-rows must be positive", file=sys.stderr)
        return 2
    preset = []
    if a.preset:
        solbench = find_solbench(a.solbench)
        if not solbench:
            print("torch_ops.py: --preset needs solbench (give --solbench PATH)", file=sys.stderr)
            return 2
        try:
            preset, left = preset_cases(solbench, a.preset, a.cases, a.only)
        except ValueError as e:
            print("torch_ops.py: --preset %s: %s" % (a.preset, e), file=sys.stderr)
            return 2
        for text in left:
            print("torch_ops.py: left out %s (params the torch code does not compute)" % text)
    elif a.cases or a.only:
        print("torch_ops.py: --cases and --only go with --preset", file=sys.stderr)
        return 2
    cases, code = gather_cases("torch_ops.py", (QUICK if a.quick else []) + preset, a.case, a.suite, "adhoc", a.out)
    if cases is None:
        return code
    opened, code = open_device("torch_ops.py", a.solbench, a.device)
    if not opened:
        return code
    torch, solbench, tol, prov = opened
    torch.cuda.set_device(a.device)
    liger, liger_missing = load_liger() if "liger" in providers else (None, None)
    all_ok = True
    for suite, op, mode, dtype, shape, params in cases:
        for provider in providers:
            if liger_only(op, params) and provider != "liger":
                print("torch_ops.py: left out %s %s %s %s for %s (params it does not compute)" % (
                    op, mode, dtype, json.dumps(params, sort_keys=True), provider), flush=True)
                continue
            if provider == "liger" and liger_missing:
                write_skipped(a, prov, torch, op, mode, dtype, shape, params, provider, suite, liger_missing)
                continue
            try:
                ok = run_case(torch, a, tol, prov, op, mode, dtype, shape, params, provider, suite, a.out, liger)
            except torch.cuda.OutOfMemoryError as e:  # recorded as skipped, like solbench
                torch.cuda.empty_cache()
                write_skipped(a, prov, torch, op, mode, dtype, shape, params, provider, suite,
                              "does not fit in device memory: %s" % str(e).split("\n")[0][:300])
                ok = True
            all_ok = all_ok and ok
            torch.cuda.empty_cache()
    return 0 if all_ok else 1


def write_skipped(a, prov, t, op, mode, dtype, shape, params, provider, suite, reason):
    now = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000Z"
    p = provider_provenance(prov, t, provider)
    p["started_at"] = p["finished_at"] = now
    result = {"schema": "solbook.result.v1", "run_uuid": uuid.uuid4().hex, "status": "skipped", "reason": reason,
              "config": {"suite": suite, "op": op, "mode": mode, "provider": provider, "backend": "torch",
                         "dtype": dtype, "shape": dict(shape), "params": dict(params),
                         "run_params": {"seed": a.seed, "torch_version": t.__version__}},
              "protocol": {"timer": "cuda-event", "l2": "warm"},
              "correctness": {"reference": "float64-device", "passed": None}, "provenance": p}
    path = os.path.join(a.out, result_name(op, dtype, mode, shape, params, provider))
    with open(path + ".tmp", "w") as fh:
        json.dump(result, fh, indent=2, sort_keys=True)
        fh.write("\n")
    os.replace(path + ".tmp", path)
    print("%s %s %s %s: skipped (%s)" % (op, mode, dtype, provider, reason), flush=True)


if __name__ == "__main__":
    sys.exit(main())

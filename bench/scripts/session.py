#!/usr/bin/env python3
"""session.py - one measuring session: every requested provider of every
case timed in one process, on one card, on the same inputs, by one timing
method, in interleaved rounds; one solbook.result.v1 file per (case,
provider, copy), each carrying the session.

usage: session.py --out DIR [--quick | --case OP:MODE:DTYPE:K=V,... ...]
                  [--providers fused,huggingface,torch-compile,liger,liger-fp32-accum,quack]
                  [--rounds 10] [--iters 20] [--warmup 5] [--aa] [--seed 42]
                  [--lib PATH] [--solbench PATH] [--device N] [--suite NAME]

Providers:
  fused             this project's kernels (bench/kernels), launched through
                    libsbk_fused.so (bench/fused_lib) on the session's tensors
                    with the plans solbench would choose
  huggingface       the Hugging Face eager code (bench/scripts/torch_ops.py)
  torch-compile     torch.compile of that code, default mode
  liger             Liger-Kernel's own op at its defaults (FLCE: accum_dtype
                    None, so dW is summed in the input's dtype)
  liger-fp32-accum  Liger's FLCE with accum_dtype=torch.float32: a labelled
                    variant, run for FLCE only
  quack             quack-kernels' CuTe DSL ops at their defaults (RMSNorm,
                    add + RMSNorm as its residual prenorm, LayerNorm, softmax,
                    cross entropy); LayerNorm takes its weight and bias in
                    fp32, as quack requires. Not in the default provider list:
                    its packages are staged on the GPU host (docs/BENCH.md)

The protocol (docs/SESSIONS.md says why each part is there):
- Inputs are drawn once per case from a seeded generator; every provider
  gets its own copy of the same values (several of Liger's ops write into
  their inputs), and one float64 reference of those values checks every
  provider (bench/scripts/torch_ops.py's reference and bound). The fused
  provider's outputs are poisoned with NaN before the checked call, so an
  element it does not write fails the check.
- A provider that fails the check is recorded as failed and not timed.
- Timing: R rounds (--rounds, at least 5). In each round every provider
  runs once, the order rotated by one provider a round (A B C, B C A, ...),
  or with --order shuffle a seeded permutation a round (so no provider
  keeps its predecessor), and drift in clocks and temperature falls on
  every provider alike. A
  provider's turn is one warm-up call, then --iters calls queued behind a
  spinning kernel with a CUDA event pair around each (held launch: the
  kernel time, timing.kernel, method held-launch), then --iters calls as
  the caller launches them (the call time, timing.samples). A call that
  waits for the GPU itself (Liger's cross entropy reads a count back)
  releases the hold early: its rounds count in timing.kernel.hold_timeouts
  and its samples include that wait, which its users pay too.
- --aa runs every provider twice per round (copies 0 and 1, own inputs):
  the same code measured twice, for the noise of a paired ratio. The
  copies are ordered copy-major (A0 B0 C0 A1 B1 C1), so rotated rounds
  never run a copy right after its twin.
- --fresh-inputs gives every turn new buffers (the same values) behind a
  pad of random size, so that no copy keeps one placement in device memory
  for the whole session: A/A copies whose times differ by a fixed amount in
  every round (Hugging Face's LayerNorm forward, 3-13% on one H100) tell a
  placement bias from a code difference this way. protocol.input_sets is
  then the rounds (a protocol of its own); torch.compile's compiled
  function is kept, so no turn recompiles.
- session.id, session.rounds, session.order, session.copy,
  session.timing_method and session.check go into every result; the GPU's
  UUID is in provenance.gpu.

Exits 0 with a message, writing nothing, where PyTorch or a CUDA device is
missing; 1 when a provider failed its check; 2 on usage errors.
"""
import argparse
import ctypes
import json
import os
import random
import sys
import tempfile
import time
import uuid

import torch_ops as ops
from torch_common import find_solbench, open_device, stats_of

PROVIDERS = ("fused", "huggingface", "torch-compile", "liger", "liger-fp32-accum", "quack")
# The default list leaves quack out: it is staged separately on GPU hosts.
DEFAULT_PROVIDERS = PROVIDERS[:-1]
# The ops quack-kernels has for a session's cases.
QUACK_OPS = ("rmsnorm", "add_rmsnorm", "layernorm", "softmax", "cross_entropy")
TIMING_METHOD = "held-launch"
# What the check is: bump when the reference, the bound or the poisoning
# changes, so that reports never pair runs checked by different rules.
CHECK_VERSION = "float64-rows-poisoned-1"
DTYPES = {"fp32": 0, "fp16": 1, "bf16": 2}
EPS = {"rmsnorm": 1e-6, "add_rmsnorm": 1e-6, "layernorm": 1e-5}
# What every provider of a session computes for a case; the provider's own
# configuration (FLCE's accumulation) goes to run_params.
SESSION_PARAMS = {"rmsnorm": {"eps": 1e-6}, "add_rmsnorm": {"eps": 1e-6}, "layernorm": {"eps": 1e-5},
                  "softmax": {}, "rope": {}, "swiglu": {}, "cross_entropy": {"ignore_frac": 0.0},
                  "flce": {"ignore_frac": 0.0}}


def gpu_uuid(prov):
    return (prov.get("device") or {}).get("uuid") or "unknown"


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000Z"


class FusedLib:
    """libsbk_fused.so through ctypes (bench/fused_lib/fused_lib.h)."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.sbf_case_new.restype = ctypes.c_void_p
        lib.sbf_case_new.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                     ctypes.POINTER(ctypes.c_int64), ctypes.c_int, ctypes.c_double,
                                     ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.sbf_case_workspace.restype = ctypes.c_size_t
        lib.sbf_case_workspace.argtypes = [ctypes.c_void_p]
        lib.sbf_case_nptrs.restype = ctypes.c_int
        lib.sbf_case_nptrs.argtypes = [ctypes.c_void_p]
        lib.sbf_case_plan.restype = ctypes.c_char_p
        lib.sbf_case_plan.argtypes = [ctypes.c_void_p]
        lib.sbf_case_run.restype = ctypes.c_int
        lib.sbf_case_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                                     ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.sbf_case_free.argtypes = [ctypes.c_void_p]
        self.lib = lib

    def case(self, op, mode, dtype, dims, accum):
        err = ctypes.create_string_buffer(256)
        arr = (ctypes.c_int64 * len(dims))(*dims)
        h = self.lib.sbf_case_new(op.encode(), mode.encode(), DTYPES[dtype], arr, len(dims), EPS.get(op, 0.0),
                                  accum.encode() if accum else None, err, len(err))
        if not h:
            raise RuntimeError("fused: %s" % err.value.decode())
        return h


def fused_launcher(t, lib, c, accum):
    """A launch() for the fused provider on Case c's tensors, its output
    tuple laid out as torch_ops's launch() returns it, and its plan."""
    op, mode, s = c.op, c.mode, c.shape
    dims = [s[k] for k in ops.SHAPES[op]]
    h = lib.case(op, mode, c.dtype, dims, accum)
    ws_bytes = lib.lib.sbf_case_workspace(h)
    ws = t.empty(max(ws_bytes, 1), dtype=t.uint8, device=c.dev)
    st = c.st
    # the outputs and the workspace are allocated here, before any call: a
    # call's peak counts them, as the other providers allocate theirs in it
    held = [ws_bytes]

    def out(shape, dt=None):
        v = t.full(shape, float("nan"), dtype=dt or st, device=c.dev)
        held[0] += v.numel() * v.element_size()
        return v

    x = [v.detach() for v in c.inputs]
    g = [v.detach() for v in c.grads]
    if op == "rmsnorm":
        M, N = s["M"], s["N"]
        y, dx, dw = out((M, N)), out((M, N)), out((N,))
        ptrs = {"fwd": lambda: [x[0], x[1], y], "bwd": lambda: [g[0], x[0], x[1], dx, dw],
                "full": lambda: [x[0], x[1], g[0], y, dx, dw]}[mode]()
        outs = {"fwd": (y,), "bwd": (dx, dw), "full": (y, dx, dw)}[mode]
    elif op == "add_rmsnorm":
        o, r = out(x[0].shape), out(x[0].shape)
        ptrs, outs = [x[0], x[1], x[2], o, r], (o, r)
    elif op == "layernorm":
        y = out(x[0].shape)
        ptrs, outs = [x[0], x[1], x[2], y], (y,)
    elif op == "softmax":
        if mode == "fwd":
            y = out(x[0].shape)
            ptrs, outs = [x[0], y], (y,)
        else:
            y = t.softmax(x[0], dim=-1)  # what the forward saved for the backward
            dx = out(x[0].shape)
            ptrs, outs = [g[0], y, dx], (dx,)
    elif op == "rope":
        B, T, Hq, Hk, D = s["B"], s["T"], s["Hq"], s["Hk"], s["D"]
        # the Case's q and k are [B,H,T,D] views of [B,T,H,D] storage: the
        # fused kernels take that storage; the gradients are [B,H,T,D]
        q, k = x[0].transpose(1, 2), x[1].transpose(1, 2)
        cos, sin = x[2].reshape(T, D), x[3].reshape(T, D)
        qo, ko = out((B, T, Hq, D)), out((B, T, Hk, D))
        dq, dk = out((B, T, Hq, D)), out((B, T, Hk, D))
        gq = g[0].transpose(1, 2).contiguous() if g else None
        gk = g[1].transpose(1, 2).contiguous() if g else None
        hf = lambda v: v.transpose(1, 2)  # noqa: E731 - back to [B,H,T,D]
        if mode == "fwd":
            ptrs, outs = [q, k, cos, sin, qo, ko], (hf(qo), hf(ko))
        elif mode == "bwd":
            ptrs, outs = [gq, gk, cos, sin, dq, dk], (hf(dq), hf(dk))
        else:
            ptrs, outs = [q, k, cos, sin, gq, gk, qo, ko, dq, dk], (hf(qo), hf(ko), hf(dq), hf(dk))
    elif op == "swiglu":
        cc, da, db = out(x[0].shape), out(x[0].shape), out(x[0].shape)
        ptrs = {"fwd": lambda: [x[0], x[1], cc], "bwd": lambda: [g[0], x[0], x[1], da, db],
                "full": lambda: [x[0], x[1], g[0], cc, da, db]}[mode]()
        outs = {"fwd": (cc,), "bwd": (da, db), "full": (cc, da, db)}[mode]
    elif op == "cross_entropy":
        M = s["M"]
        rows, loss = out((M,), t.float32), out((1,), t.float32)
        ptrs, outs = [x[0], x[1], rows, loss], (loss,)
        if mode == "full":
            dx = out(x[0].shape)
            ptrs, outs = ptrs + [dx], (loss, dx)
    else:  # flce
        BT = s["BT"]
        rows, loss = out((BT,), t.float32), out((1,), t.float32)
        ptrs, outs = [x[0], x[1], x[2], rows, loss], (loss,)
        if mode == "full":
            dh, dw = out(x[0].shape), out(x[1].shape)
            ptrs, outs = ptrs + [dh, dw], (loss, dh, dw)
    for p in ptrs:
        if not p.is_contiguous():
            raise RuntimeError("fused: a tensor is not contiguous")
    keep = list(ptrs) + [ws]  # the pointers below stay valid while these live
    arr = (ctypes.c_void_p * len(ptrs))(*[p.data_ptr() for p in ptrs])
    err = ctypes.create_string_buffer(256)
    run, n = lib.lib.sbf_case_run, len(ptrs)
    wsp = ctypes.c_void_p(ws.data_ptr() if ws_bytes else 0)

    def launch():
        stream = ctypes.c_void_p(t.cuda.current_stream().cuda_stream)
        if run(h, arr, n, wsp, stream, err, len(err)) != 0:
            raise RuntimeError("fused: %s" % err.value.decode())
        return outs

    launch.keep = keep
    launch.held_bytes = held[0]
    return launch, lib.lib.sbf_case_plan(h).decode()


def load_quack(t):
    """quack-kernels' functions by op, and its version; (None, reason) when
    the package cannot be imported here."""
    try:
        from importlib import metadata
        from quack.cross_entropy import cross_entropy
        from quack.rmsnorm import layernorm_bwd, layernorm_fwd, rmsnorm
        from quack.softmax import softmax
        version = metadata.version("quack-kernels")
    except Exception as ex:  # ImportError, or the CuTe DSL failing to load
        return None, "quack-kernels cannot be imported here: %s" % str(ex).split("\n")[0][:200]

    class LayerNorm(t.autograd.Function):
        """quack ships LayerNorm as a forward and a backward function; this
        joins them as its RMSNorm autograd wrapper does."""

        @staticmethod
        def forward(ctx, x, w, b, eps):
            y, rstd, mean = layernorm_fwd(x, w, b, eps, return_rstd=True, return_mean=True)
            ctx.save_for_backward(x, w, rstd, mean)
            return y

        @staticmethod
        def backward(ctx, dy):
            x, w, rstd, mean = ctx.saved_tensors
            dx, dw, db = layernorm_bwd(x, w, dy.contiguous(), rstd, mean, has_bias=True)
            return dx, dw, db, None

    return {"rmsnorm": lambda x, w: rmsnorm(x, w, eps=EPS["rmsnorm"]),
            "add_rmsnorm": lambda x, res, w: rmsnorm(x, w, residual=res, eps=EPS["add_rmsnorm"], prenorm=True),
            "layernorm": lambda x, w, b: LayerNorm.apply(x, w, b, EPS["layernorm"]),
            "softmax": softmax,
            "cross_entropy": lambda x, tgt: cross_entropy(x, tgt, ignore_index=-100, reduction="mean"),
            "version": version}, None


def torch_launcher(t, c, provider, liger, quack, compiled=None):
    """launch() of a Python provider on Case c (torch_ops's run_case);
    `compiled` is torch.compile's function from an earlier launcher of the
    same case, reused so that new buffers do not compile again."""
    f = c.fn()
    if provider == "quack":
        if c.op == "layernorm":
            # quack's LayerNorm takes fp32 weight and bias: the same values
            c.inputs = c.inputs[:1] + [v.detach().float().requires_grad_(v.requires_grad) for v in c.inputs[1:]]
        g = quack[c.op]
    elif provider == "torch-compile":
        if c.mode == "bwd":
            # the backward is timed by replaying a retained graph, which a
            # compiled backward that donates its saved buffers refuses
            t._functorch.config.donated_buffer = False
        g = compiled or t.compile(f, dynamic=False)
    elif provider == "liger":
        g = c.liger_fn(liger, {})
    elif provider == "liger-fp32-accum":
        g = c.liger_fn(liger, {"accum": "fp32"})
    else:
        g = f

    def as_tuple(y):
        return y if isinstance(y, tuple) else (y,)

    retained = {}

    def launch():
        if c.mode == "fwd":
            with t.no_grad():
                return as_tuple(g(*c.inputs))
        if c.mode == "bwd":
            outs = retained["outs"]
            gr = c.grads if c.grads else [None] * len(outs)
            return tuple(t.autograd.grad(outs, c.diff_inputs(), gr, retain_graph=True))
        outs = as_tuple(g(*c.inputs))
        gr = c.grads if c.grads else [None] * len(outs)
        return outs + tuple(t.autograd.grad(outs, c.diff_inputs(), gr))

    if c.mode == "bwd":
        retained["outs"] = as_tuple(g(*c.inputs))
    launch.compiled = g if provider == "torch-compile" else None
    return launch


def reallocate(t, a, lib, liger, quack, e, placer):
    """--fresh-inputs: new buffers for entry e, with the same values, placed
    behind a pad of random size. The new buffers are allocated before the
    old ones are freed, so the caching allocator cannot hand the old place
    back."""
    old = e.case
    pad = t.empty(placer.randrange(1, 4096) * 4096, dtype=t.uint8, device=old.dev)
    c = ops.Case(t, old.op, old.mode, old.dtype, old.shape, a.seed, old.dev)
    del c.ref_inputs, c.ref_grads
    if e.provider == "fused":
        launch, _ = fused_launcher(t, lib, c, "fp32" if c.op == "flce" else None)
    else:
        launch = torch_launcher(t, c, e.provider, liger, quack, getattr(e.launch, "compiled", None))
    e.case, e.launch, e.pad = c, launch, pad


def provider_config(provider, op):
    """run_params of a provider: its own configuration, stated."""
    if provider == "quack" and op == "layernorm":
        return {"weight_bias_dtype": "fp32 (quack's LayerNorm requires it)"}
    if op != "flce":
        return {}
    return {"fused": {"accum": "fp32"}, "liger": {"accum_dtype": "input (default)"},
            "liger-fp32-accum": {"accum_dtype": "fp32"}}.get(provider, {"logits": "fp32 (.float())"})


def applies(provider, op):
    if provider == "quack":
        return op in QUACK_OPS
    return provider != "liger-fp32-accum" or op == "flce"


class Entry:
    """One provider (and copy) of a case: its launcher and what it gathered."""

    def __init__(self, provider, copy):
        self.provider, self.copy = provider, copy
        self.launch, self.plan, self.result = None, None, None
        self.kernel, self.call, self.timeouts = [], [], 0
        self.hold_cycles = 0
        self.call_ms = 0.0
        self.pad = None


def run_case(t, a, tol, prov, lib, liger, quack, suite, op, mode, dtype, shape, session):
    dev = t.device("cuda", a.device)
    # a fresh compile cache a case (run_case resets it once, so that the
    # copies of one case share what was compiled): dynamo keeps at most 8
    # shapes a code object and runs the rest eagerly, without an error
    t._dynamo.reset()
    # copy-major (every provider's copy 0, then every copy 1), so a rotated
    # round never runs a copy straight after its twin: the same kernel run
    # right after itself measured 15% faster (Liger's RMSNorm forward at
    # M=2048, N=4096 on an H100), a bias no comparison between providers has
    entries = [Entry(p, k) for k in range(2 if a.aa else 1) for p in session["providers"] if applies(p, op)]
    ref_case = ops.Case(t, op, mode, dtype, shape, a.seed, dev)
    f = ref_case.fn()
    nrows = min(ref_case.rows, a.check_rows)
    rows = [0] if nrows == 1 else sorted({int(i * (ref_case.rows - 1) / (nrows - 1)) for i in range(nrows)})
    try:
        ref = ops.reference(t, ref_case, f, rows)
    except t.cuda.OutOfMemoryError as ex:
        del ref_case, f
        t.cuda.empty_cache()
        why = "the float64 reference does not fit in device memory: %s" % str(ex).split("\n")[0][:200]
        for e in entries:
            e.result = ("skipped", why, None)
            write_result(t, a, prov, suite, op, mode, dtype, shape, session, e, [], now(), now(), a.iters)
        return True
    input_bytes = sum(x.numel() * x.element_size() for x in ref_case.inputs + ref_case.grads)
    del ref_case
    t.cuda.empty_cache()
    ok = True
    started = now()
    # build, check once, warm up (torch.compile compiles here); --build-order
    # reverse allocates the last entry's tensors first, to tell a copy's
    # own addresses from its place in the round
    for e in (entries[::-1] if a.build_order == "reverse" else entries):
        c = ops.Case(t, op, mode, dtype, shape, a.seed, dev)
        del c.ref_inputs, c.ref_grads
        e.case = c
        t.cuda.synchronize(dev)
        base = t.cuda.memory_allocated(dev)
        t.cuda.reset_peak_memory_stats(dev)
        try:
            if e.provider == "fused":
                e.launch, e.plan = fused_launcher(t, lib, c, "fp32" if op == "flce" else None)
            else:
                e.launch = torch_launcher(t, c, e.provider, liger, quack)
            got = e.launch()
            t.cuda.synchronize(dev)
        except t.cuda.OutOfMemoryError as ex:
            e.result = ("skipped", "does not fit in device memory: %s" % str(ex).split("\n")[0][:200], None)
            e.launch = None
            t.cuda.empty_cache()
            continue
        except Exception as ex:  # the provider cannot run this case: recorded, the session goes on
            ok = False
            e.result = ("failed", "error: %s: %s" % (type(ex).__name__, str(ex).split("\n")[0][:300]), None)
            e.launch = None
            t.cuda.empty_cache()
            continue
        chk = ops.compare_to_reference(t, op, dtype, got, ref, tol)
        del got
        if not chk["passed"]:
            ok = False
            e.result = ("failed", "correctness: %d of %d checked elements outside tolerance, finite %s" % (
                chk["bad"], chk["checked"], chk["finite"]), chk)
            e.launch = None
            continue
        e.result = ("passed", None, chk)
        for _ in range(a.warmup):
            e.launch()
        # peak memory of a call after the warm-up (torch.compile's first
        # call holds what compiling allocates): beyond what was allocated
        # before it, and absolute (the inputs counted, Liger's convention)
        t.cuda.synchronize(dev)
        base = t.cuda.memory_allocated(dev)
        t.cuda.reset_peak_memory_stats(dev)
        t0 = time.perf_counter()
        e.launch()
        t.cuda.synchronize(dev)
        e.call_ms = (time.perf_counter() - t0) * 1e3
        chk["peak"] = t.cuda.max_memory_allocated(dev) - base + getattr(e.launch, "held_bytes", 0)
        chk["peak_abs"] = chk["peak"] + input_bytes
    timed = [e for e in entries if e.launch]
    # calls a turn: --iters, fewer for long calls (a turn of about
    # --turn-ms), at least 3
    slowest = max([e.call_ms for e in timed] or [0.0])
    iters = max(3, min(a.iters, int(a.turn_ms / max(slowest, 1e-3))))
    for e in timed:
        hold_ms = min(1000.0, max(20.0, 4.0 * e.call_ms * iters))
        e.hold_cycles = int(hold_ms * ops.kernel_time.cycles_per_ms)
    order_log = []
    # --order shuffle: a seeded permutation a round, so no provider (or
    # copy) keeps the same predecessor from round to round: the turn before
    # leaves the L2 and the allocator in its own state
    shuffler = random.Random("%d:%s:%s:%s:%s" % (a.seed, op, mode, dtype, shape))
    placer = random.Random("place:%d:%s:%s:%s:%s" % (a.seed, op, mode, dtype, shape))
    for r in range(a.rounds):
        if a.order == "shuffle":
            order = shuffler.sample(timed, len(timed))
        else:
            k = r % max(1, len(timed))
            order = timed[k:] + timed[:k]
        order_log.append([("%s#%d" % (e.provider, e.copy)) if a.aa else e.provider for e in order])
        for e in order:
            if a.fresh_inputs:
                reallocate(t, a, lib, liger, quack, e, placer)
            e.launch()
            t.cuda.synchronize(dev)
            per, to = ops.timed_calls(t, dev, e.launch, iters, 1, e.hold_cycles)
            e.kernel.append(per[0])
            e.timeouts += to
            per, _ = ops.timed_calls(t, dev, e.launch, iters, 1, None)
            e.call.append(per[0])
    finished = now()
    if a.methods:
        compare_methods(t, dev, a, op, mode, dtype, shape, session, [e for e in timed if e.copy == 0], iters)
    for e in entries:
        write_result(t, a, prov, suite, op, mode, dtype, shape, session, e, order_log, started, finished, iters)
    for e in entries:
        e.launch = e.case = e.pad = None
    t.cuda.empty_cache()
    return ok


def graph_replays(t, dev, launch, iters):
    """Times (ms) of `iters` replays of a CUDA graph of one call, or the
    reason the call cannot be captured (a call that waits for the GPU)."""
    try:
        side = t.cuda.Stream(device=dev)
        side.wait_stream(t.cuda.current_stream(dev))
        with t.cuda.stream(side):
            launch()
        t.cuda.current_stream(dev).wait_stream(side)
        t.cuda.synchronize(dev)
        g = t.cuda.CUDAGraph()
        with t.cuda.graph(g):
            launch()
        t.cuda.synchronize(dev)
    except Exception as ex:  # a call that synchronises cannot be captured
        t.cuda.synchronize(dev)
        return None, "%s: %s" % (type(ex).__name__, str(ex).split("\n")[0][:160])
    g.replay()
    t.cuda.synchronize(dev)
    starts = [t.cuda.Event(enable_timing=True) for _ in range(iters)]
    stops = [t.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        starts[i].record()
        g.replay()
        stops[i].record()
    t.cuda.synchronize(dev)
    out = [starts[i].elapsed_time(stops[i]) for i in range(iters)]
    del g
    return out, None


def compare_methods(t, dev, a, op, mode, dtype, shape, session, timed, iters):
    """--methods: each provider's kernel time taken four ways after its
    rounds (held launch, the profiler's kernel sum, CUDA-graph replay, and
    the call time), one line each in methods.jsonl, so the choice of the
    session's one method rests on measurements (docs/SESSIONS.md)."""
    import statistics
    for e in timed:
        row = {"session": session["id"], "op": op, "mode": mode, "dtype": dtype, "shape": shape,
               "provider": e.provider, "held_launch_ms": statistics.median(v for r in e.kernel for v in r),
               "call_ms": statistics.median(v for r in e.call for v in r)}
        try:
            per = ops.profiled_calls(t, dev, e.launch, iters, 1)
            row["profiler_kernel_sum_ms"] = statistics.median(per[0])
        except Exception as ex:
            row["profiler_kernel_sum_error"] = str(ex).split("\n")[0][:160]
        times, why = graph_replays(t, dev, e.launch, iters)
        if times:
            row["graph_replay_ms"] = statistics.median(times)
        else:
            row["graph_replay_error"] = why
        with open(os.path.join(a.out, "methods.jsonl"), "a") as fh:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
        print("methods %s %s %s %s %s: held %.4f  profiler-sum %s  graph %s  call %.4f ms" % (
            op, mode, dtype, "x".join(str(shape[k]) for k in ops.SHAPES[op]), e.provider, row["held_launch_ms"],
            "%.4f" % row["profiler_kernel_sum_ms"] if "profiler_kernel_sum_ms" in row else "-",
            "%.4f" % row["graph_replay_ms"] if "graph_replay_ms" in row else "not capturable",
            row["call_ms"]), flush=True)


def write_result(t, a, prov, suite, op, mode, dtype, shape, session, e, order_log, started, finished, iters):
    status, reason, chk = e.result
    params = dict(SESSION_PARAMS[op])
    run_params = {"seed": a.seed, "torch_version": t.__version__}
    run_params.update(provider_config(e.provider, op))
    if e.provider == "torch-compile" and mode == "bwd":
        run_params["donated_buffer"] = False
    if e.plan:
        run_params["plan"] = e.plan
    res = {
        "schema": "solbook.result.v1", "run_uuid": uuid.uuid4().hex, "status": status,
        "config": {"suite": suite, "op": op, "mode": mode, "provider": e.provider,
                   "backend": "cuda" if e.provider == "fused" else "torch", "dtype": dtype,
                   "shape": dict(shape), "params": params, "run_params": run_params},
        "protocol": {"timer": "cuda-event", "warmup_iters": a.warmup, "warmup_ms": None, "iters": iters,
                     "repeats": a.rounds, "l2": "warm",
                     "input_sets": a.rounds if a.fresh_inputs else 1, "graph": False,
                     "launch_hold": "blocking-kernel"},
        "session": {"id": session["id"], "rounds": a.rounds, "copy": e.copy, "order": order_log,
                    "providers": session["providers"], "timing_method": TIMING_METHOD,
                    "check": CHECK_VERSION},
        "determinism": {"bitwise_repeatable": None, "batch_invariant": None},
        "notes": session_note(t, e.provider),
    }
    if reason:
        res["reason"] = reason
    if chk:
        res["correctness"] = {"reference": "float64-device-sampled-rows", "checked_elements": chk["checked"],
                              "max_abs_err": chk["max_abs_err"] if chk["finite"] else None,
                              "max_rel_err": chk["max_rel_err"] if chk["finite"] else None,
                              "rel_l2_err": chk["rel_l2_err"], "atol": chk["atol"], "rtol": chk["rtol"],
                              "unwritten": None, "finite": chk["finite"], "passed": chk["passed"],
                              "output_checksum": "unknown"}
        res["memory"] = {"peak_device_bytes": int(chk["peak"]), "peak_device_mb": chk["peak"] / 1e6,
                         "peak_absolute_bytes": int(chk["peak_abs"])}
    else:
        res["correctness"] = {"reference": "float64-device-sampled-rows", "passed": None}
    if status == "passed":
        flat_call = [v for r in e.call for v in r]
        flat_kernel = [v for r in e.kernel for v in r]
        ks = stats_of(flat_kernel, a.rounds)
        res["timing"] = {"unit": "ms", "samples": e.call, "stats": stats_of(flat_call, a.rounds),
                         "kernel": {"method": TIMING_METHOD, "samples": e.kernel, "stats": ks,
                                    "hold_timeouts": e.timeouts}}
        flops, nbytes = ops.models(op, mode, dtype, shape)
        secs = ks["median"] * 1e-3
        res["metrics"] = {"flops": flops, "bytes": nbytes, "tflops": flops / secs / 1e12,
                          "gbps": nbytes / secs / 1e9, "bound": "unknown", "pct_datasheet_peak": None,
                          "pct_measured_ceiling": None}
    p = json.loads(json.dumps(prov))
    p["tool"] = {"name": "session.py", "version": t.__version__}
    p["software"]["cuda_runtime_version"] = t.version.cuda or "unknown"
    p["software"]["compiler"] = "python %s" % sys.version.split()[0]
    if e.provider != "fused":
        p["software"]["packages"] = ops.package_versions(t, "liger" if e.provider.startswith("liger")
                                                         else e.provider)
    p["started_at"], p["finished_at"] = started, finished
    res["provenance"] = p
    shape_s = "x".join(str(shape[k]) for k in ops.SHAPES[op])
    name = "%s-%s-%s-%s-%s%s.json" % (op, dtype, mode, shape_s, e.provider, "-aa%d" % e.copy if a.aa else "")
    path = os.path.join(a.out, name)
    fd, tmp = tempfile.mkstemp(prefix=name + ".tmp.", dir=a.out)
    with os.fdopen(fd, "w") as fh:
        json.dump(res, fh, indent=1, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, path)
    label = "%s %s %s %s %s%s" % (op, mode, dtype, shape_s, e.provider, " #%d" % e.copy if a.aa else "")
    if status == "passed":
        print("%-60s kernel %.4f ms  call %.4f ms  peak %.1f MB%s" % (
            label, res["timing"]["kernel"]["stats"]["median"], res["timing"]["stats"]["median"],
            chk["peak_abs"] / 1e6, "  (waits for the GPU in the call)" if e.timeouts else ""), flush=True)
    else:
        print("%-60s %s: %s" % (label, status, reason), flush=True)


def session_note(t, provider):
    if provider == "fused":
        return "solbook's fused kernels (bench/kernels) through libsbk_fused.so; see bench/scripts/session.py"
    if provider == "quack":
        from importlib import metadata
        return ("quack-kernels %s's own op (nvidia-cutlass-dsl %s, PyTorch %s) at its defaults; "
                "see bench/scripts/session.py" % (metadata.version("quack-kernels"),
                                                  metadata.version("nvidia-cutlass-dsl"), t.__version__))
    if provider.startswith("liger"):
        return ops.provider_note(t, "liger") + (" with accum_dtype=torch.float32 (not its default)"
                                                if provider == "liger-fp32-accum" else " at its defaults")
    return ops.provider_note(t, provider)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="torch_ops.py's QUICK cases")
    ap.add_argument("--case", action="append", default=[], help="OP:MODE:DTYPE:K=V,... (repeatable)")
    ap.add_argument("--preset", default=None, help="the cases of this solbench preset (solbench suite --list); "
                    "a provider's own knobs (FLCE's accum) are not cases here")
    ap.add_argument("--methods", action="store_true",
                    help="after the rounds, time each provider also by the profiler's kernel sum and by "
                         "CUDA-graph replay (methods.jsonl): the timing methods measured against each other")
    ap.add_argument("--only", default=None, help="with --preset: OP[:MODE],..., as solbench suite --only")
    ap.add_argument("--turn-ms", type=float, default=40.0,
                    help="fewer than --iters calls a turn where a call is long: about this many ms a turn")
    ap.add_argument("--providers", default=",".join(DEFAULT_PROVIDERS))
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--aa", action="store_true", help="every provider twice a round (A/A copies)")
    ap.add_argument("--order", choices=("rotate", "shuffle"), default="rotate",
                    help="a round's order: rotated by one provider a round, or a seeded permutation")
    ap.add_argument("--build-order", choices=("forward", "reverse"), default="forward",
                    help="the order providers (and copies) are built in, and so allocate their tensors")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--fresh-inputs", action="store_true",
                    help="new buffers (the same values) every turn, behind a pad of random size")
    ap.add_argument("--check-rows", type=int, default=32)
    ap.add_argument("--suite", default=None)
    ap.add_argument("--lib", default=None, help="libsbk_fused.so (default: next to solbench)")
    ap.add_argument("--solbench", default=None)
    ap.add_argument("--device", type=int, default=0)
    a = ap.parse_args()
    providers = [p for p in a.providers.split(",") if p]
    if not providers or any(p not in PROVIDERS for p in providers) or len(set(providers)) != len(providers):
        print("session.py: --providers takes distinct names of %s" % ", ".join(PROVIDERS), file=sys.stderr)
        return 2
    if a.rounds < 5:
        print("session.py: --rounds must be at least 5 (a paired ratio needs rounds to spread over)",
              file=sys.stderr)
        return 2
    if min(a.iters, a.check_rows, a.warmup) < 1:
        print("session.py: --iters, --warmup and --check-rows must be positive", file=sys.stderr)
        return 2
    preset = []
    if a.preset:
        solbench = find_solbench(a.solbench)
        if not solbench:
            print("session.py: --preset needs solbench (give --solbench PATH)", file=sys.stderr)
            return 2
        try:
            listed, _ = ops.preset_cases(solbench, a.preset, None, a.only)
        except ValueError as ex:
            print("session.py: --preset %s: %s" % (a.preset, ex), file=sys.stderr)
            return 2
        seen = set()
        for _, text in listed:
            base = ":".join(text.split(":")[:4])
            if set(ops.case_params(text)) - {"eps"} or base in seen:
                continue  # FLCE's accum and chunk are the fused provider's knobs, not cases
            seen.add(base)
            preset.append((a.preset, base))
    cases, code = ops.gather_cases("session.py", (ops.QUICK if a.quick else []) + preset, a.case, a.suite,
                                   "session", a.out)
    if cases is None:
        return code
    cases = [c[:5] for c in cases]  # a session's case is the same for every provider: no params
    opened, code = open_device("session.py", a.solbench, a.device)
    if not opened:
        return code
    torch, solbench, tol, prov = opened
    lib = None
    if "fused" in providers:
        path = a.lib or os.path.join(os.path.dirname(os.path.abspath(solbench)), "libsbk_fused.so")
        try:
            lib = FusedLib(path)
        except OSError as ex:
            print("session.py: %s: %s" % (path, ex), file=sys.stderr)
            return 2
    liger = None
    if any(p.startswith("liger") for p in providers):
        liger, missing = ops.load_liger()
        if missing:
            print("session.py: %s" % missing, file=sys.stderr)
            return 2
    quack = None
    if "quack" in providers:
        quack, missing = load_quack(torch)
        if missing:
            print("session.py: %s" % missing, file=sys.stderr)
            return 2
    torch.cuda.set_device(a.device)
    ops.kernel_time.cycles_per_ms = ops.spin_cycles_per_ms(torch, torch.device("cuda", a.device))
    session = {"id": uuid.uuid4().hex, "providers": providers}
    print("session %s: %d cases, providers %s, %d rounds of %d calls, GPU %s" % (
        session["id"], len(cases), ",".join(providers), a.rounds, a.iters,
        gpu_uuid(prov)), flush=True)
    all_ok = True
    for suite, op, mode, dtype, shape in cases:
        all_ok = run_case(torch, a, tol, prov, lib, liger, quack, suite, op, mode, dtype, shape, session) and all_ok
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())

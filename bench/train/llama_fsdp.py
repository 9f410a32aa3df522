#!/usr/bin/env python3
"""llama_fsdp.py - Llama training steps sharded with FSDP2 over the GPUs of a
host (or over CPU processes with gloo), with and without Liger-Kernel's
patches; rank 0 writes one solbook.training.v1 file.

    torchrun --standalone --nproc-per-node 4 bench/train/llama_fsdp.py \\
        --preset llama3-8b --liger-mode baseline --out OUT/baseline.json
    torchrun --standalone --nproc-per-node 4 bench/train/llama_fsdp.py \\
        --preset llama3-8b --liger-mode liger --check-against OUT/baseline.json --out OUT/liger.json
    python3 bench/train/llama_fsdp.py --device cpu --preset tiny --out OUT/tiny.json     # world size 1

The model is built on the meta device from a transformers LlamaConfig (no
weights are downloaded), sharded layer by layer with fully_shard, then
materialised shard by shard with random weights that depend only on the seed
and the parameter's name (so baseline and liger, and every world size, start
from the same model). Every step sees the same seeded random tokens in both
modes, so their losses can be compared: --check-against reads the other
mode's file and fails the run when the first --check-steps losses differ by
more than --loss-atol + --loss-rtol x |loss|. bench/train/run_llama_fsdp.sh is
the launcher (environment, torchrun, an overall time limit);
bench/train/run_training_session.sh launches both modes in interleaved rounds
of one session, each launch naming it with --session-*. docs/TRAINING.md
says what is measured and why."""
import argparse
import datetime
import json
import math
import os
import re
import sys
import threading
import time
import traceback
import uuid
import zlib

# NVLink multicast (NVLS) is never used: NCCL and torch's symmetric memory
# read these when their communicators are made, after this point.
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
# CUDA ordinals in PCI order, as NVML (and so `solbook collect`) numbers the cards.
os.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import training_result as tr  # noqa: E402

# Llama-3 configurations (the models' config.json values). The 3.2 models use
# Llama-3's rope scaling; 8B does not.
_LLAMA32 = {"intermediate_size": 8192, "num_key_value_heads": 8, "vocab_size": 128256, "rope_theta": 500000.0,
            "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "tie_word_embeddings": True,
            "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                             "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}
PRESETS = {
    "llama3-8b": {"name": "meta-llama/Meta-Llama-3-8B", "hidden_size": 4096, "intermediate_size": 14336,
                  "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                  "vocab_size": 128256, "rope_theta": 500000.0, "max_position_embeddings": 8192,
                  "rms_norm_eps": 1e-5, "tie_word_embeddings": False, "rope_scaling": None},
    "llama3.2-3b": dict(_LLAMA32, name="meta-llama/Llama-3.2-3B", hidden_size=3072, num_hidden_layers=28,
                        num_attention_heads=24),
    "llama3.2-1b": dict(_LLAMA32, name="meta-llama/Llama-3.2-1B", hidden_size=2048, num_hidden_layers=16,
                        num_attention_heads=32),
    # CI's preset: Llama-3's layout (GQA, SwiGLU, RMSNorm, RoPE at theta 5e5), two layers.
    "tiny": {"name": "tiny-llama3-2l", "hidden_size": 64, "intermediate_size": 224,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "vocab_size": 512, "rope_theta": 500000.0, "max_position_embeddings": 1024,
             "rms_norm_eps": 1e-5, "tie_word_embeddings": False, "rope_scaling": None},
}

# apply_liger_kernel_to_llama's switches as this bench passes them, and the
# kernel names solbook uses for them (the op names of the op-level rows).
LIGER_SWITCHES = {"rope": True, "rms_norm": True, "swiglu": True, "cross_entropy": False,
                  "fused_linear_cross_entropy": True}
KERNEL_NAMES = {"rms_norm": "rmsnorm", "rope": "rope", "swiglu": "swiglu", "fused_linear_cross_entropy": "flce"}

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="llama3-8b")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--liger-mode", choices=("baseline", "liger"), default="baseline")
    ap.add_argument("--seq-len", type=int, default=2048)
    ap.add_argument("--micro-batch", type=int, default=1, help="sequences per rank per step")
    ap.add_argument("--warmup-steps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20, help="timed steps")
    ap.add_argument("--dtype", choices=("bf16", "fp32"), default=None,
                    help="parameter dtype in compute (FSDP2 MixedPrecisionPolicy param_dtype); "
                         "default bf16 on cuda, fp32 on cpu")
    ap.add_argument("--reduce-dtype", choices=("fp32", "bf16"), default="fp32",
                    help="gradient reduce-scatter dtype (MixedPrecisionPolicy reduce_dtype)")
    ap.add_argument("--activation-checkpointing", choices=("on", "off"), default="on")
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--check-against", metavar="FILE",
                    help="the other mode's training file: compare its per-step losses with this run's")
    ap.add_argument("--check-steps", type=int, default=5, help="steps the loss gate compares (from step 0)")
    ap.add_argument("--loss-atol", type=float, default=1e-2)
    ap.add_argument("--loss-rtol", type=float, default=5e-3)
    ap.add_argument("--init-timeout-s", type=int, default=120,
                    help="the run gives up (exit 2) when the process group is not up after this")
    ap.add_argument("--collective-timeout-s", type=int, default=300,
                    help="a collective that waits longer ends the run (NCCL watchdog)")
    ap.add_argument("--time-limit-s", type=int, default=0,
                    help="the whole run gives up (exit 3) after this; 0: no limit")
    ap.add_argument("--session-id", metavar="HEX32",
                    help="the training session this launch belongs to (run_training_session.sh sets it)")
    ap.add_argument("--session-round", type=int, metavar="R", help="the session's round of this launch, from 0")
    ap.add_argument("--session-position", type=int, metavar="P", help="this launch's place in its round, from 0")
    ap.add_argument("--session-order", metavar="ORDER",
                    help="every round's modes in launch order, rounds split by '/', modes by ','"
                         " (baseline,liger/liger,baseline)")
    ap.add_argument("--solbook", help="solbook program for the provenance (default: found)")
    ap.add_argument("--out", required=True, help="training file rank 0 writes")
    a = ap.parse_args(argv)
    if a.dtype is None:
        a.dtype = "bf16" if a.device == "cuda" else "fp32"
    for name in ("seq_len", "micro_batch", "steps", "check_steps", "init_timeout_s", "collective_timeout_s"):
        if getattr(a, name) < 1:
            ap.error("--%s must be at least 1" % name.replace("_", "-"))
    if a.warmup_steps < 0 or a.time_limit_s < 0:
        ap.error("--warmup-steps and --time-limit-s must not be negative")
    if a.check_against and a.check_steps > a.warmup_steps + a.steps:
        ap.error("--check-steps %d is more than the %d steps run" % (a.check_steps, a.warmup_steps + a.steps))
    a.session = session_block(ap, a)
    return a


def session_block(ap, a):
    """The training file's `training_session` object from the --session-* options
    (all four or none), checked against each other: this launch's mode must
    be the one the order puts at its round and position."""
    given = [a.session_id is not None, a.session_round is not None, a.session_position is not None,
             a.session_order is not None]
    if not any(given):
        return None
    if not all(given):
        ap.error("--session-id, --session-round, --session-position and --session-order go together")
    if not re.fullmatch(r"[0-9a-f]{32}", a.session_id):
        ap.error("--session-id must be 32 lower-case hex digits, not '%s'" % a.session_id)
    order = [r.split(",") for r in a.session_order.split("/")]
    if any(m not in ("baseline", "liger") for r in order for m in r):
        ap.error("--session-order names modes baseline and liger only: '%s'" % a.session_order)
    if not 0 <= a.session_round < len(order) or not 0 <= a.session_position < len(order[a.session_round]):
        ap.error("round %d position %d is not in --session-order '%s'" % (
            a.session_round, a.session_position, a.session_order))
    if order[a.session_round][a.session_position] != a.liger_mode:
        ap.error("--session-order puts %s at round %d position %d, not --liger-mode %s" % (
            order[a.session_round][a.session_position], a.session_round, a.session_position, a.liger_mode))
    return {"id": a.session_id, "round": a.session_round, "position": a.session_position,
            "rounds": len(order), "order": order}


def log(rank, msg):
    if rank == 0:
        print("llama_fsdp: %s" % msg, flush=True)


def die(rank, code, msg):
    """Every rank that fails says so and leaves at once: torchrun then stops
    the other ranks instead of leaving them waiting in a collective."""
    print("llama_fsdp: rank %d: %s" % (rank, msg), file=sys.stderr, flush=True)
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(code)


def start_time_limit(rank, seconds):
    if seconds <= 0:
        return
    t = threading.Timer(seconds, die, args=(rank, 3, "run exceeded --time-limit-s %d; giving up" % seconds))
    t.daemon = True
    t.start()


def build_config(transformers, preset):
    p = dict(PRESETS[preset])
    name = p.pop("name")
    rope_scaling = p.pop("rope_scaling")
    rope_theta = p.pop("rope_theta")
    kw = dict(p, attention_bias=False, mlp_bias=False, hidden_act="silu", initializer_range=0.02,
              use_cache=False)
    # transformers 5 keeps the RoPE settings in rope_parameters; 4.x in rope_theta / rope_scaling.
    major = int(transformers.__version__.split(".")[0])
    if major >= 5:
        rp = {"rope_type": "default", "rope_theta": rope_theta}
        if rope_scaling:
            rp.update(rope_scaling)
        kw["rope_parameters"] = rp
    else:
        kw["rope_theta"] = rope_theta
        kw["rope_scaling"] = rope_scaling
    return name, transformers.LlamaConfig(**kw)


def apply_liger(rank):
    """Patches transformers' Llama classes with Liger's kernels before the
    model is built, then returns (version, switches)."""
    from importlib import metadata
    from liger_kernel.transformers import apply_liger_kernel_to_llama
    apply_liger_kernel_to_llama(**LIGER_SWITCHES)
    return metadata.version("liger-kernel")


def applied_patches(model):
    """Which Liger patches the built model really carries, read off the model
    (not the switches passed): names in solbook's kernel vocabulary."""
    from transformers.models.llama import modeling_llama
    inner = model.model
    layer = inner.layers[0]
    layer = getattr(layer, "_checkpoint_wrapped_module", layer)
    found = []
    if "liger" in type(inner.norm).__module__ and "liger" in type(layer.input_layernorm).__module__:
        found.append("rmsnorm")
    if "liger" in getattr(modeling_llama.apply_rotary_pos_emb, "__module__", ""):
        found.append("rope")
    if "liger" in type(layer.mlp).__module__:
        found.append("swiglu")
    fwd = type(model).forward
    if "liger" in getattr(fwd, "__module__", "") and LIGER_SWITCHES["fused_linear_cross_entropy"]:
        found.append("flce")
    return found


def param_count(model):
    return sum(p.numel() for p in model.parameters())


def init_weights(torch, model, seed, device):
    """Random weights that depend on the seed and the parameter's name alone:
    normal(0, 0.02) for matrices and embeddings, ones for norm weights. Each
    rank draws the whole tensor and keeps its shard, so every world size and
    both modes start from the same model."""
    from torch.distributed.tensor import DTensor, distribute_tensor
    with torch.no_grad():
        for name, p in model.named_parameters():
            clean = name.replace("_checkpoint_wrapped_module.", "")
            g = torch.Generator(device=device)
            g.manual_seed((seed * 1000003 + zlib.crc32(clean.encode())) % (2 ** 63))
            shape = p.shape
            if clean.endswith("norm.weight"):
                full = torch.ones(shape, dtype=torch.float32, device=device)
            else:
                full = torch.empty(shape, dtype=torch.float32, device=device).normal_(0.0, 0.02, generator=g)
            if isinstance(p, DTensor):
                local = distribute_tensor(full, p.device_mesh, p.placements, src_data_rank=None).to_local()
                p.to_local().copy_(local)
            else:
                p.copy_(full)
            del full


def batch_for(torch, seed, step, rank, micro_batch, seq_len, vocab, device):
    g = torch.Generator(device="cpu")
    g.manual_seed(seed * 7919 + step * 104729 + rank * 15485863)
    ids = torch.randint(0, vocab, (micro_batch, seq_len), generator=g, dtype=torch.long)
    return ids.to(device, non_blocking=True)


def read_other(path, a, world):
    """The other mode's file, checked to be the same experiment."""
    with open(path) as fh:
        doc = json.load(fh)
    if doc.get("schema") != "solbook.training.v1":
        raise ValueError("%s: not a solbook.training.v1 file" % path)
    m, par = doc.get("model", {}), doc.get("parallelism", {})
    same = (m.get("seq_len") == a.seq_len and m.get("micro_batch_size") == a.micro_batch
            and par.get("world_size") == world and doc.get("data", {}).get("seed") == a.seed
            and m.get("name") == PRESETS[a.preset]["name"])
    if not same:
        raise ValueError("%s: another experiment (model, sequence length, micro batch, world size or seed "
                         "differs); the loss gate compares like with like" % path)
    theirs = (doc.get("training_session") or {}).get("id")
    if a.session and theirs and theirs != a.session["id"]:
        raise ValueError("%s: a launch of session %s, not of session %s (--session-id); a session gates its liger "
                         "launches against its own first baseline" % (path, theirs, a.session["id"]))
    losses = doc.get("loss", {}).get("per_step")
    if not losses:
        raise ValueError("%s: no per-step losses recorded" % path)
    return doc.get("run_uuid", ""), losses


def main(argv):
    a = parse_args(argv)
    rank = int(os.environ.get("RANK", "0"))
    started_at = tr.now_rfc3339()
    start_time_limit(rank, a.time_limit_s)
    try:
        import torch
        import torch.distributed as dist
        import transformers
    except ImportError as e:
        die(rank, EXIT_USAGE, "PyTorch and transformers are needed (%s)" % e)

    if "RANK" not in os.environ:  # a plain `python3 llama_fsdp.py`: one process
        os.environ.update({"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1"})
        os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 20000))
    world = int(os.environ["WORLD_SIZE"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))

    solbook = tr.find_solbook(a.solbook)
    if rank == 0 and not solbook:
        die(rank, EXIT_USAGE, "solbook not found (give --solbook PATH or set SOLBOOK); it records the provenance")
    other = None
    if a.check_against:  # read before any work: a wrong file is found at once
        if not os.path.isfile(a.check_against):
            die(rank, EXIT_USAGE, "%s: no such file (--check-against)" % a.check_against)
        try:
            other = read_other(a.check_against, a, world)
        except (OSError, ValueError) as e:
            die(rank, EXIT_USAGE, str(e))

    if a.device == "cuda":
        if not torch.cuda.is_available():
            die(rank, EXIT_USAGE, "no CUDA device visible to PyTorch (use --device cpu for the CPU path)")
        if local_rank >= torch.cuda.device_count():
            die(rank, EXIT_USAGE, "local rank %d but only %d GPUs visible" % (local_rank, torch.cuda.device_count()))
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
        backend = "nccl"
    else:
        device = torch.device("cpu")
        backend = "gloo"

    t0 = time.time()
    # A rank that never shows up, or a fabric that never connects, ends the
    # run after --init-timeout-s instead of hanging.
    init_guard = threading.Timer(a.init_timeout_s, die, args=(
        rank, EXIT_USAGE, "process group (%s, %d ranks) not up within --init-timeout-s %d" % (
            backend, world, a.init_timeout_s)))
    init_guard.daemon = True
    init_guard.start()
    try:
        kw = {"backend": backend, "timeout": datetime.timedelta(seconds=a.collective_timeout_s)}
        if a.device == "cuda":
            kw["device_id"] = device  # NCCL communicators made now: a broken fabric fails here
        dist.init_process_group(**kw)
        dist.barrier()
    except Exception as e:  # noqa: BLE001  (any failure to connect ends the run with one line)
        die(rank, EXIT_USAGE, "process group (%s) not created: %s" % (backend, e))
    init_guard.cancel()
    log(rank, "%d ranks, backend %s, process group in %.1f s" % (world, backend, time.time() - t0))

    prov = None
    if rank == 0:
        try:
            prov = tr.collect_provenance(solbook, a.device, torch.cuda.current_device() if a.device == "cuda" else 0)
        except tr.ProvenanceError as e:
            die(rank, EXIT_USAGE, str(e))

    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import CheckpointImpl, checkpoint_wrapper

    patch = {"name": "none", "kernels": []}
    skip_reason = None
    if a.liger_mode == "liger":
        if a.device != "cuda":
            skip_reason = ("liger mode runs Liger-Kernel's Triton kernels, which need a CUDA GPU; "
                           "nothing was run on the CPU")
        else:
            try:
                patch = {"name": "liger", "version": apply_liger(rank), "kernels": []}
            except ImportError as e:
                die(rank, EXIT_USAGE, "liger-kernel is not installed here (%s); nothing was run" % e)
        if skip_reason:
            patch = {"name": "liger", "kernels": []}

    model_name, config = build_config(transformers, a.preset)
    config._attn_implementation = "sdpa"
    dtypes = {"bf16": torch.bfloat16, "fp32": torch.float32}
    m_block = {"name": model_name, "parameters": None, "hidden_size": config.hidden_size,
               "layers": config.num_hidden_layers, "vocab_size": config.vocab_size, "seq_len": a.seq_len,
               "micro_batch_size": a.micro_batch, "dtype": a.dtype, "preset": a.preset}
    opt_block = {"name": "adamw", "lr": a.lr, "weight_decay": a.weight_decay, "gradient_accumulation": 1,
                 "betas": [0.9, 0.95], "eps": 1e-8, "implementation": "torch.optim.AdamW (foreach)"}
    par_block = {"world_size": world, "strategy": "fsdp2",
                 "gradient_checkpointing": a.activation_checkpointing == "on",
                 "reduce_dtype": a.reduce_dtype if a.dtype != "fp32" else "fp32", "backend": backend}
    base_doc = {"schema": "solbook.training.v1", "run_uuid": uuid.uuid4().hex, "model": m_block,
                "optimizer": opt_block, "parallelism": par_block, "patch": patch,
                "workload": {"scope": "model", "mode": "train-step"},
                "data": {"source": "random-tokens", "seed": a.seed}}
    if a.session:
        base_doc["training_session"] = a.session

    def write(doc):
        doc["provenance"] = tr.finish_provenance(prov, "llama_fsdp.py", torch, started_at, a.device)
        tr.write_json_atomic(a.out, doc)
        log(rank, "wrote %s (%s)" % (a.out, doc["status"]))

    if skip_reason:
        if rank == 0:
            write(dict(base_doc, status="skipped", reason=skip_reason))
        log(rank, "skipped: %s" % skip_reason)
        dist.destroy_process_group()
        return EXIT_OK

    t0 = time.time()
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(config)
    m_block["parameters"] = param_count(model)
    if a.activation_checkpointing == "on":
        layers = model.model.layers
        for i in range(len(layers)):
            layers[i] = checkpoint_wrapper(layers[i], checkpoint_impl=CheckpointImpl.NO_REENTRANT)
    if patch["name"] == "liger":
        patch["kernels"] = applied_patches(model)
        want = sorted(KERNEL_NAMES[k] for k, on in LIGER_SWITCHES.items() if on and k in KERNEL_NAMES)
        if sorted(patch["kernels"]) != want:
            die(rank, EXIT_FAILED, "Liger's patches did not all take: asked for %s, the model carries %s"
                % (",".join(want), ",".join(patch["kernels"]) or "none"))
    log(rank, "%s: %.3gM parameters, %d layers, seq %d x micro-batch %d per rank, %s, checkpointing %s, "
        "patch %s %s" % (model_name, m_block["parameters"] / 1e6, config.num_hidden_layers, a.seq_len,
                         a.micro_batch, a.dtype, a.activation_checkpointing, patch["name"],
                         ",".join(patch["kernels"]) or "-"))

    mesh = init_device_mesh(a.device, (world,))
    mp = MixedPrecisionPolicy(param_dtype=dtypes[a.dtype], reduce_dtype=dtypes[par_block["reduce_dtype"]])
    for layer in model.model.layers:
        fully_shard(layer, mesh=mesh, mp_policy=mp, reshard_after_forward=True)
    # The root holds the embedding, the final norm and lm_head: Liger's fused
    # linear cross-entropy reads lm_head.weight without calling lm_head, so
    # lm_head must not be sharded on its own.
    fully_shard(model, mesh=mesh, mp_policy=mp)
    model.to_empty(device=device)
    init_weights(torch, model, a.seed, device)
    # Non-persistent buffers (RoPE's inverse frequencies) were on the meta
    # device: build them again on the real one.
    with device:
        model.model.rotary_emb = type(model.model.rotary_emb)(config=config)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=a.weight_decay, betas=(0.9, 0.95),
                            eps=1e-8, foreach=True)
    if a.device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    dist.barrier()
    log(rank, "model materialised and sharded in %.1f s" % (time.time() - t0))

    total = a.warmup_steps + a.steps
    losses_dev = []
    times_ms = []
    events = []
    failure = None
    step = 0
    try:
        for step in range(total):
            ids = batch_for(torch, a.seed, step, rank, a.micro_batch, a.seq_len, config.vocab_size, device)
            timed = step >= a.warmup_steps
            if a.device == "cuda":
                ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                ev0.record()
            else:
                c0 = time.perf_counter()
            out = model(input_ids=ids, labels=ids)
            out.loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            if a.device == "cuda":
                ev1.record()
                if timed:
                    events.append((ev0, ev1))
            elif timed:
                times_ms.append((time.perf_counter() - c0) * 1e3)
            losses_dev.append(out.loss.detach().float())
            if not timed or step == total - 1:
                # Host syncs only outside the timed steps (a sync there would
                # put the next step's launch latency into its time).
                lv = losses_dev[-1].item()
                log(rank, "step %d/%d loss %.4f (rank 0)%s" % (step + 1, total, lv,
                                                               "" if timed else " warm-up"))
                if not math.isfinite(lv):
                    failure = "loss is %s at step %d" % (lv, step)
                    break
                if step == a.warmup_steps - 1:
                    log(rank, "timing %d steps" % a.steps)
    except torch.OutOfMemoryError as e:
        die(rank, EXIT_FAILED, "out of GPU memory at step %d (%s); try --preset llama3.2-3b or a shorter "
            "--seq-len" % (step, str(e).split("\n")[0][:200]))
    except Exception as e:  # noqa: BLE001  (NCCL errors and the rest: one line, then leave)
        traceback.print_exc()
        die(rank, EXIT_FAILED, "step %d failed: %s: %s" % (step, type(e).__name__, str(e).split("\n")[0][:300]))

    if a.device == "cuda":
        torch.cuda.synchronize()
        times_ms = [s.elapsed_time(e) for s, e in events]
    # mean loss over ranks (each rank saw its own tokens), per step
    loss_t = torch.stack(losses_dev).to(device)
    dist.all_reduce(loss_t, op=dist.ReduceOp.SUM)
    losses = [float(x) / world for x in loss_t.cpu().tolist()]
    if a.device == "cuda":
        peak = torch.tensor([torch.cuda.max_memory_allocated(device), torch.cuda.max_memory_reserved(device)],
                            dtype=torch.long, device=device)
    else:
        peak = torch.tensor([-1, -1], dtype=torch.long, device=device)
    gathered = [torch.zeros_like(peak) for _ in range(world)]
    dist.all_gather(gathered, peak)
    peaks = [int(g[0]) for g in gathered]
    reserved = [int(g[1]) for g in gathered]

    if rank == 0:
        doc = dict(base_doc)
        finite = [x if math.isfinite(x) else None for x in losses]
        doc["loss"] = {"first": finite[a.warmup_steps] if len(finite) > a.warmup_steps else None,
                       "last": finite[-1], "per_step": finite}
        if failure is None and any(x is None for x in finite):
            failure = "loss is not finite at step %d" % finite.index(None)
        if failure is None and len(times_ms) == a.steps:
            tokens = a.micro_batch * a.seq_len * world
            doc["timing"] = tr.timing_block(times_ms, a.warmup_steps,
                                            "cuda-event" if a.device == "cuda" else "wall-clock")
            med_s = doc["timing"]["stats"]["median"] / 1e3
            doc["throughput"] = {"tokens_per_s": tokens / med_s, "tokens_per_s_per_device": tokens / med_s / world}
            doc["memory"] = {"peak_device_bytes": peaks[0] if a.device == "cuda" else None}
            if a.device == "cuda":
                doc["memory"]["peak_device_bytes_per_rank"] = peaks
                doc["memory"]["peak_reserved_bytes_per_rank"] = reserved
        if other is not None and failure is None:
            other_uuid, theirs = other
            ok, worst, bad, why = tr.compare_losses(finite, theirs, a.check_steps, a.loss_atol, a.loss_rtol)
            doc["loss"]["check"] = {"against_run_uuid": other_uuid, "steps": a.check_steps, "atol": a.loss_atol,
                                    "rtol": a.loss_rtol, "max_abs_diff": worst, "passed": ok}
            log(rank, "loss gate against %s over %d steps: %s (max |diff| %s)" % (
                a.check_against, a.check_steps, "passed" if ok else "FAILED", "%.3g" % worst if worst is not None
                else "-"))
            if not ok:
                failure = "loss differs from run %s: %s" % (other_uuid, why)
        if failure is None:
            doc["status"] = "passed"
            st = doc["timing"]["stats"]
            log(rank, "median step %.1f ms (p20 %.1f, p80 %.1f), %.0f tokens/s, peak memory per rank %s GB" % (
                st["median"], st["p20"], st["p80"], doc["throughput"]["tokens_per_s"],
                ",".join("%.1f" % (b / 1e9) for b in peaks) if a.device == "cuda" else "-"))
        else:
            doc["status"] = "failed"
            doc["reason"] = failure
            log(rank, "failed: %s" % failure)
        write(doc)
        code = EXIT_OK if doc["status"] == "passed" else EXIT_FAILED
    else:
        code = EXIT_OK
    rc = torch.tensor([code], device=device)
    dist.broadcast(rc, 0)
    dist.destroy_process_group()
    return int(rc.item())


if __name__ == "__main__":
    rc = main(sys.argv[1:])
    # Leave without the interpreter's teardown: the file is written and the
    # process group destroyed, and torch's store threads have aborted
    # ("terminate called without an active exception") in static
    # destructors at exit, turning a finished run into a crash.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)

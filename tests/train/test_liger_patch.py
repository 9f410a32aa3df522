#!/usr/bin/env python3
"""test_liger_patch.py - how llama_fsdp.py applies Liger-Kernel and reads
back what the model carries, checked where it can run without a GPU:
apply_liger_kernel_to_llama patches transformers' classes and functions
(no kernel runs), a tiny Llama is built on the meta device, and the patch
set read off it is exactly rmsnorm, rope, swiglu and flce; an unpatched
model carries none, with and without activation checkpointing. The
kernels themselves need a GPU and are not run here. Skips (77) where
liger-kernel, torch or transformers is not installed."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_env import TOP, check, finish, train_python  # noqa: E402

py = train_python(need=("torch", "transformers", "liger_kernel"))
probe = r'''
import sys, json
sys.path.insert(0, sys.argv[1])
import torch, transformers
import llama_fsdp as L
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
def build(wrap):
    _, cfg = L.build_config(transformers, "tiny")
    with torch.device("meta"):
        m = transformers.LlamaForCausalLM(cfg)
    if wrap:
        for i in range(len(m.model.layers)):
            m.model.layers[i] = checkpoint_wrapper(m.model.layers[i])
    return m
out = {"before": L.applied_patches(build(False))}
if sys.argv[2] == "liger":
    out["version"] = L.apply_liger(0)
out["after"] = L.applied_patches(build(False))
out["after_checkpointed"] = L.applied_patches(build(True))
print(json.dumps(out))
'''
for mode in ("baseline", "liger"):
    p = subprocess.run([py, "-c", probe, os.path.join(TOP, "bench", "train"), mode], capture_output=True, text=True,
                       env=dict(os.environ, HF_HUB_OFFLINE="1"))
    check(p.returncode == 0, "%s: the probe ran (exit %d)" % (mode, p.returncode))
    if p.returncode != 0:
        print(p.stderr[-3000:])
        continue
    got = json.loads(p.stdout.strip().splitlines()[-1])
    check(got["before"] == [], "%s: a model built before patching carries no Liger kernel" % mode)
    want = ["rmsnorm", "rope", "swiglu", "flce"] if mode == "liger" else []
    check(got["after"] == want, "%s: the model carries %s" % (mode, got["after"]))
    check(got["after_checkpointed"] == want, "%s: read through activation checkpointing too" % mode)
    if mode == "liger":
        check(got["version"] == "0.8.5", "liger: version %s recorded" % got["version"])
finish()

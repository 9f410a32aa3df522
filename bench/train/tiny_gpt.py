#!/usr/bin/env python3
"""tiny_gpt.py - forward or training-step time of a small GPT-style model
(token and position embeddings, pre-LayerNorm blocks of causal self-attention
and a GELU MLP, tied output projection) on one device, written as one
solbook.training.v1 file.

    python3 bench/train/tiny_gpt.py --scope model --mode train-step --device cpu --out OUT/gpt.json
    python3 bench/train/tiny_gpt.py --scope block --mode forward --device cuda --dtype bf16 --out OUT/block.json

--scope block times one transformer block on a (batch, seq, width) input;
--scope model the whole model with its cross-entropy loss. --mode forward
times the forward pass alone (no autograd graph), --mode train-step the
forward, backward and AdamW step. The model is plain PyTorch (no patches):
this is the small end-to-end row next to the Llama FSDP step."""
import argparse
import math
import sys
import time
import uuid

import training_result as tr


def build(torch, width, layers, heads, vocab, seq_len):
    nn = torch.nn
    F = torch.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(width)
            self.qkv = nn.Linear(width, 3 * width)
            self.proj = nn.Linear(width, width)
            self.ln2 = nn.LayerNorm(width)
            self.fc = nn.Linear(width, 4 * width)
            self.out = nn.Linear(4 * width, width)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(width, dim=2)
            q, k, v = (z.view(b, t, heads, c // heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
            return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, width)
            self.pos = nn.Embedding(seq_len, width)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln_f = nn.LayerNorm(width)

        def forward(self, ids, labels):
            pos = torch.arange(ids.shape[1], device=ids.device)
            x = self.tok(ids) + self.pos(pos)
            for blk in self.blocks:
                x = blk(x)
            logits = self.ln_f(x) @ self.tok.weight.t()
            return F.cross_entropy(logits[:, :-1].reshape(-1, vocab).float(), labels[:, 1:].reshape(-1))

    return Block, GPT


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scope", choices=("block", "model"), default="model")
    ap.add_argument("--mode", choices=("forward", "train-step"), default="train-step")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--dtype", choices=("fp32", "bf16"), default="fp32",
                    help="bf16: autocast to bfloat16 (weights and optimizer state stay fp32)")
    ap.add_argument("--width", type=int, default=128)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=1024)
    ap.add_argument("--seq-len", type=int, default=128)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--warmup-steps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--solbook", help="solbook program for the provenance (default: found)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    for name in ("width", "layers", "heads", "vocab", "seq_len", "batch", "steps"):
        if getattr(a, name) < 1:
            ap.error("--%s must be at least 1" % name.replace("_", "-"))
    if a.width % a.heads:
        ap.error("--width %d is not a multiple of --heads %d" % (a.width, a.heads))
    started_at = tr.now_rfc3339()
    try:
        import torch
    except ImportError as e:
        print("tiny_gpt.py: PyTorch is needed (%s)" % e, file=sys.stderr)
        return 2
    solbook = tr.find_solbook(a.solbook)
    if not solbook:
        print("tiny_gpt.py: solbook not found (give --solbook PATH or set SOLBOOK); it records the provenance",
              file=sys.stderr)
        return 2
    if a.device == "cuda" and not torch.cuda.is_available():
        print("tiny_gpt.py: no CUDA device visible to PyTorch (use --device cpu)", file=sys.stderr)
        return 2
    try:
        prov = tr.collect_provenance(solbook, a.device, torch.cuda.current_device() if a.device == "cuda" else 0)
    except tr.ProvenanceError as e:
        print("tiny_gpt.py: %s" % e, file=sys.stderr)
        return 2
    dev = torch.device(a.device)
    torch.manual_seed(a.seed)
    Block, GPT = build(torch, a.width, a.layers, a.heads, a.vocab, a.seq_len)
    net = Block() if a.scope == "block" else GPT()
    for m in net.modules():  # GPT-2's initialisation: N(0, 0.02) weights, zero biases
        if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)):
            torch.nn.init.normal_(m.weight, 0.0, 0.02)
        if isinstance(m, torch.nn.Linear) and m.bias is not None:
            torch.nn.init.zeros_(m.bias)
    net = net.to(dev)
    params = sum(p.numel() for p in net.parameters())
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=0.0) if a.mode == "train-step" else None
    g = torch.Generator(device="cpu").manual_seed(a.seed)
    ids = torch.randint(0, a.vocab, (a.batch, a.seq_len), generator=g).to(dev)
    x = torch.randn(a.batch, a.seq_len, a.width, generator=g).to(dev)
    target = torch.randn(a.batch, a.seq_len, a.width, generator=g).to(dev)
    amp = torch.autocast(a.device, dtype=torch.bfloat16, enabled=a.dtype == "bf16")

    def step():
        with torch.set_grad_enabled(a.mode == "train-step"), amp:
            if a.scope == "model":
                loss = net(ids, ids)
            else:  # a block alone: mean squared error against a fixed target
                loss = torch.nn.functional.mse_loss(net(x).float(), target)
        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        return loss.detach()

    losses, times = [], []
    cuda = a.device == "cuda"
    if cuda:
        torch.cuda.reset_peak_memory_stats(dev)
    for i in range(a.warmup_steps + a.steps):
        if cuda:
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
        c0 = time.perf_counter()
        loss = step()
        if cuda:
            e1.record()
            e1.synchronize()
            ms = e0.elapsed_time(e1)
        else:
            ms = (time.perf_counter() - c0) * 1e3
        losses.append(float(loss))
        if i >= a.warmup_steps:
            times.append(ms)
    finite = [v if math.isfinite(v) else None for v in losses]
    tokens = a.batch * a.seq_len
    doc = {"schema": "solbook.training.v1", "run_uuid": uuid.uuid4().hex,
           "model": {"name": "tiny-gpt-%dl-%dw" % (a.layers, a.width) if a.scope == "model"
                     else "tiny-gpt-block-%dw" % a.width,
                     "parameters": params, "hidden_size": a.width, "layers": a.layers if a.scope == "model" else 1,
                     "vocab_size": a.vocab if a.scope == "model" else None, "seq_len": a.seq_len,
                     "micro_batch_size": a.batch, "dtype": "mixed" if a.dtype == "bf16" else "fp32",
                     "preset": "tiny-gpt"},
           "optimizer": ({"name": "adamw", "lr": 1e-3, "weight_decay": 0.0, "gradient_accumulation": 1,
                          "implementation": "torch.optim.AdamW"} if opt is not None
                         else {"name": "none", "lr": 0}),
           "parallelism": {"world_size": 1, "strategy": "single", "gradient_checkpointing": False},
           "patch": {"name": "none", "kernels": []},
           "workload": {"scope": a.scope, "mode": a.mode},
           "data": {"source": "random-tokens" if a.scope == "model" else "random-normal", "seed": a.seed},
           "loss": {"first": finite[a.warmup_steps], "last": finite[-1], "per_step": finite}}
    if any(v is None for v in finite):
        doc["status"] = "failed"
        doc["reason"] = "loss is not finite at step %d" % finite.index(None)
    else:
        doc["status"] = "passed"
    doc["timing"] = tr.timing_block(times, a.warmup_steps, "cuda-event" if cuda else "wall-clock")
    med_s = doc["timing"]["stats"]["median"] / 1e3
    doc["throughput"] = {"tokens_per_s": tokens / med_s, "tokens_per_s_per_device": tokens / med_s}
    doc["memory"] = {"peak_device_bytes": int(torch.cuda.max_memory_allocated(dev)) if cuda else None}
    doc["provenance"] = tr.finish_provenance(prov, "tiny_gpt.py", torch, started_at, a.device)
    tr.write_json_atomic(a.out, doc)
    st = doc["timing"]["stats"]
    print("tiny_gpt.py: %s %s %s: median %.3f ms (p20 %.3f, p80 %.3f), %.0f tokens/s, loss %.4f -> %.4f; wrote %s"
          % (doc["model"]["name"], a.mode, a.device, st["median"], st["p20"], st["p80"],
             doc["throughput"]["tokens_per_s"], losses[0], losses[-1], a.out), flush=True)
    return 0 if doc["status"] == "passed" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

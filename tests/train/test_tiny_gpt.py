#!/usr/bin/env python3
"""test_tiny_gpt.py SOLBOOK - the tiny GPT bench on the CPU, every scope and
mode: the files are valid training files that say what one step was, a
training step lowers the loss of a fixed batch while a forward pass leaves
it alone, and ingest stores them. Skips (77) where torch is not installed."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_env import TOP, check, finish, load, query, run, train_python, validate_and_ingest  # noqa: E402

solbook = os.path.abspath(sys.argv[1])
py = train_python(need=("torch",))
bench = os.path.join(TOP, "bench", "train", "tiny_gpt.py")
tmp = tempfile.mkdtemp(prefix="sb-gpt-")
files = []
for scope in ("block", "model"):
    for mode in ("forward", "train-step"):
        path = os.path.join(tmp, "%s-%s.json" % (scope, mode))
        files.append(path)
        run([py, bench, "--device", "cpu", "--scope", scope, "--mode", mode, "--width", "64", "--layers", "2",
             "--vocab", "256", "--seq-len", "32", "--batch", "2", "--warmup-steps", "1", "--steps", "4",
             "--solbook", solbook, "--out", path], 0, "%s %s" % (scope, mode), {"OMP_NUM_THREADS": "1"})
        d = load(path)
        check(d["status"] == "passed" and d["workload"] == {"scope": scope, "mode": mode},
              "%s %s: passed, workload recorded" % (scope, mode))
        check(len(d["timing"]["samples"]) == 4 and len(d["loss"]["per_step"]) == 5,
              "%s %s: 4 timed steps, 5 losses" % (scope, mode))
        losses = d["loss"]["per_step"]
        if mode == "train-step":
            check(losses[-1] < losses[0], "%s train-step: AdamW on a fixed batch lowers the loss (%.4f -> %.4f)"
                  % (scope, losses[0], losses[-1]))
            check(d["optimizer"]["name"] == "adamw", "%s train-step: optimizer adamw" % scope)
        else:
            check(max(losses) - min(losses) < 1e-6, "%s forward: the loss does not move (%.6f)" % (scope, losses[0]))
            check(d["optimizer"]["name"] == "none", "%s forward: no optimizer" % scope)
        check(d["throughput"]["tokens_per_s"] > 0 and d["parallelism"]["strategy"] == "single",
              "%s %s: tokens/s, single device" % (scope, mode))
db = os.path.join(tmp, "t.db")
validate_and_ingest(solbook, files, db)
rows = query(db, "SELECT json_extract(r.raw_json, '$.workload.scope'), json_extract(r.raw_json, '$.workload.mode'),"
                 " t.model_name FROM training t JOIN runs r ON r.id = t.run_id ORDER BY 1, 2")
check(rows == [("block", "forward", "tiny-gpt-block-64w"), ("block", "train-step", "tiny-gpt-block-64w"),
               ("model", "forward", "tiny-gpt-2l-64w"), ("model", "train-step", "tiny-gpt-2l-64w")],
      "stored: %s" % rows)
p = run([solbook, "report", "training", "--db", db], 0, "report training")
check(p.stdout.count("| block forward |") == 1 and p.stdout.count("| train-step |") == 1
      and p.stdout.count("| forward |") == 1 and p.stdout.count("| block train-step |") == 1,
      "report: each run's workload named")
finish(tmp)

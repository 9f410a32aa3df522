#!/usr/bin/env python3
"""test_llama_cpu.py SOLBOOK - the Llama FSDP2 bench's CPU path end to end:
the tiny preset at world size 1 (one plain process) and 2 (torchrun, gloo,
bf16 mixed precision), the loss gate passing (the same run again) and
failing (a run with another learning rate), liger mode recorded as skipped
on the CPU, bad --check-against files refused, a rank that never joins
ending the run; then every file validated,
ingested, and shown by `solbook report training`, the weekly writeup and
the site. Skips (77) where torch or transformers is not installed."""
import datetime
import glob
import os
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_env import TOP, check, finish, load, query, run, train_python, validate_and_ingest  # noqa: E402

solbook = os.path.abspath(sys.argv[1])
py = train_python()
bench = os.path.join(TOP, "bench", "train", "llama_fsdp.py")
launcher = os.path.join(TOP, "bench", "train", "run_llama_fsdp.sh")
tmp = tempfile.mkdtemp(prefix="sb-train-")
common = ["--device", "cpu", "--preset", "tiny", "--seq-len", "32", "--warmup-steps", "2", "--steps", "3",
          "--solbook", solbook]
env = {"PATH": os.path.dirname(py) + os.pathsep + os.environ.get("PATH", ""), "OMP_NUM_THREADS": "1"}


def out(name):
    return os.path.join(tmp, name + ".json")


# world size 1, one plain process
run([py, bench] + common + ["--out", out("ws1")], 0, "world size 1 baseline", env)
d = load(out("ws1"))
check(d["status"] == "passed", "ws1: status passed")
check(d["parallelism"] == {"world_size": 1, "strategy": "fsdp2", "gradient_checkpointing": True,
                           "reduce_dtype": "fp32", "backend": "gloo"}, "ws1: parallelism fsdp2 over gloo, 1 rank")
check(d["patch"] == {"name": "none", "kernels": []}, "ws1: patch none")
check(len(d["timing"]["samples"]) == 3 and d["timing"]["warmup_steps"] == 2 and d["timing"]["timer"] == "wall-clock",
      "ws1: 3 timed steps after 2 warm-up steps, wall clock")
check(len(d["loss"]["per_step"]) == 5 and all(isinstance(x, float) for x in d["loss"]["per_step"]),
      "ws1: a finite loss for each of the 5 steps")
med = d["timing"]["stats"]["median"]
check(abs(d["throughput"]["tokens_per_s"] - 32 / (med / 1e3)) < 1e-6 * d["throughput"]["tokens_per_s"],
      "ws1: tokens/s = 32 tokens / median step")
check(d["memory"]["peak_device_bytes"] is None, "ws1: no device memory figure on the CPU")
check(d["model"]["layers"] == 2 and d["model"]["parameters"] > 0 and d["model"]["dtype"] == "fp32",
      "ws1: the 2-layer tiny model, fp32")
pk = d["provenance"]["software"].get("packages", {})
check("torch" in pk and "transformers" in pk, "ws1: package versions recorded (%s)" % ", ".join(sorted(pk)))
check(d["provenance"]["device"]["kind"] == "cpu" and d["provenance"]["software"]["cuda_runtime_version"] == "unknown",
      "ws1: CPU provenance, no CUDA runtime claimed")

# world size 2 through the launcher, bf16 compute with fp32 reduction
run(["bash", launcher, "2"] + common + ["--dtype", "bf16", "--out", out("ws2")], 0,
    "world size 2 through run_llama_fsdp.sh", dict(env, TORCHRUN=py + " -m torch.distributed.run"))
d2 = load(out("ws2"))
check(d2["status"] == "passed" and d2["parallelism"]["world_size"] == 2 and d2["model"]["dtype"] == "bf16",
      "ws2: passed, 2 ranks, bf16")
check(abs(d2["throughput"]["tokens_per_s"] - 64 / (d2["timing"]["stats"]["median"] / 1e3))
      < 1e-6 * d2["throughput"]["tokens_per_s"], "ws2: tokens/s counts both ranks' tokens")

# the loss gate: the same run again matches to the bit on the CPU
run([py, bench] + common + ["--check-against", out("ws1"), "--out", out("again")], 0, "gate against itself", env)
a = load(out("again"))
chk = a["loss"].get("check", {})
check(a["status"] == "passed" and chk.get("passed") is True and chk.get("max_abs_diff") == 0.0
      and chk.get("against_run_uuid") == d["run_uuid"], "gate: same seed and data give the same losses (diff 0)")
check(a["loss"]["per_step"] == d["loss"]["per_step"], "gate: per-step losses identical")

# and a run that trains differently fails it, with its file written
p = run([py, bench] + common + ["--lr", "1.0", "--check-steps", "5", "--check-against", out("ws1"),
                                "--out", out("diverged")], 1, "gate against another learning rate", env)
f = load(out("diverged"))
check(f["status"] == "failed" and f["loss"]["check"]["passed"] is False and "loss differs from run" in f["reason"],
      "gate: the diverging run is failed, reason: %s" % f.get("reason", "")[:80])
check("FAILED" in p.stdout, "gate: the failure is printed")

# liger mode on the CPU: recorded as skipped, nothing faked
run([py, bench] + common + ["--liger-mode", "liger", "--out", out("liger")], 0, "liger mode on the CPU", env)
lg = load(out("liger"))
check(lg["status"] == "skipped" and "need a CUDA GPU" in lg["reason"] and lg["patch"] == {"name": "liger", "kernels": []}
      and "timing" not in lg, "liger on CPU: skipped, no kernels claimed, no timing")

# bad --check-against files: one line, exit 2, nothing written
p = run([py, bench] + common + ["--check-against", os.path.join(tmp, "missing.json"), "--out", out("x1")], 2,
        "missing --check-against file", env)
check("missing.json: no such file" in p.stderr and not os.path.exists(out("x1")), "missing file named, nothing written")
p = run([py, bench] + common[:5] + ["48"] + common[6:] + ["--check-against", out("ws1"), "--out", out("x2")], 2,
        "--check-against another experiment", env)
check("another experiment" in p.stderr and not os.path.exists(out("x2")), "other experiment refused, nothing written")

# a rank that never joins: the run gives up after --init-timeout-s, one line, nothing written
with socket.socket() as sk:  # a port nobody listens on
    sk.bind(("127.0.0.1", 0))
    port = str(sk.getsockname()[1])
t0 = time.time()
p = run([py, bench] + common + ["--init-timeout-s", "5", "--out", out("x3")], 2, "a missing rank",
        dict(env, RANK="0", WORLD_SIZE="2", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=port))
check("not up within --init-timeout-s 5" in p.stderr and not os.path.exists(out("x3")),
      "missing rank: gave up in %.0f s with one line, nothing written" % (time.time() - t0))

files = sorted(glob.glob(os.path.join(tmp, "*.json")))
check(len(files) == 5, "5 training files written")
db = os.path.join(tmp, "t.db")
validate_and_ingest(solbook, files, db)
rows = query(db, "SELECT t.world_size, t.patch_name, r.status, t.dtype FROM training t JOIN runs r ON r.id = t.run_id "
                 "ORDER BY t.world_size, t.patch_name, r.status")
check(rows == [(1, "liger", "skipped", "fp32"), (1, "none", "failed", "fp32"), (1, "none", "passed", "fp32"),
               (1, "none", "passed", "fp32"), (2, "none", "passed", "bf16")], "stored training rows: %s" % rows)
med_stored = query(db, "SELECT t.median_step_ms FROM training t JOIN runs r ON r.id = t.run_id WHERE r.run_uuid = ?",
                   (d["run_uuid"],))
check(med_stored == [(med,)], "stored median step = the file's")
nsamples = query(db, "SELECT length(s.value_ms) / 8, s.rep_lengths FROM run_samples s JOIN runs r ON r.id = s.run_id "
                 "WHERE r.run_uuid = ?", (d["run_uuid"],))
check(nsamples == [(3, "[3]")], "3 step samples stored, one repeat")

md = os.path.join(tmp, "report", "training.md")
os.makedirs(os.path.dirname(md))
run([solbook, "report", "training", "--db", db, "--out", md], 0, "solbook report training")
text = open(md).read()
check("end-to-end training step" in text, "report: evidence level stated")
check(text.count("| tiny-llama3-2l | cpu") == 5, "report: 5 run rows")
check("skipped: liger mode runs Liger-Kernel" in text, "report: the skipped liger run and its reason")
check("| failed: loss differs from run" in text and "| passed |" in text, "report: the gate's failed and passed runs")
check("No training session pairs a patched run with its baseline" in text and "### Not paired" not in text,
      "report: no step-time ratio claimed without a session, no not paired table without a pair")

week = datetime.date.today().isocalendar()
wk = "%d-W%02d" % (week[0], week[1])
wdir = os.path.join(tmp, "weekly")
run([solbook, "report", "weekly", "--db", db, "--week", wk, "--out", wdir], 0, "solbook report weekly")
wtext = open(os.path.join(wdir, wk + ".md")).read()
check("5 end-to-end training runs" in wtext, "weekly: the writeup counts the 5 training runs")
atext = open(os.path.join(wdir, wk + "-appendix.md")).read()
sec = atext[atext.find("## End-to-end training"):]
check(sec.count("| tiny-llama3-2l | cpu") == 5, "weekly appendix: the training section holds the 5 runs")

sdir = os.path.join(tmp, "site")
run([solbook, "site", "--db", db, "--out", sdir], 0, "solbook site")
page = open(os.path.join(sdir, "weekly", "index.html")).read()
check("End-to-end training steps, all weeks" in page and page.count("<td>tiny-llama3-2l</td>") == 5,
      "site: weekly index has the training section with the 5 runs")
# a training session through run_training_session.sh on the CPU: 2 rounds
# in balanced order, one session id; liger launches are skipped there
sdir = os.path.join(tmp, "session")
p = run(["bash", os.path.join(TOP, "bench", "train", "run_training_session.sh"), sdir, "--rounds", "2",
         "--preset", "tiny", "--warmup-steps", "1", "--steps", "2", "--", "--device", "cpu", "--seq-len", "32",
         "--solbook", solbook], 0, "CPU training session of 2 rounds",
        dict(env, TORCHRUN=py + " -m torch.distributed.run"))
check("2 launches passed, 2 skipped" in p.stdout, "session: 2 baseline launches passed, 2 liger launches skipped")
names = ["r0-p0-baseline", "r0-p1-liger", "r1-p0-liger", "r1-p1-baseline"]
docs = [load(os.path.join(sdir, n + ".json")) for n in names]
ts = [x.get("training_session", {}) for x in docs]
check(len({x.get("id") for x in ts}) == 1 and [(x.get("round"), x.get("position")) for x in ts]
      == [(0, 0), (0, 1), (1, 0), (1, 1)], "session: one id, rounds and positions recorded in each file")
check([x["status"] for x in docs] == ["passed", "skipped", "skipped", "passed"]
      and docs[0]["loss"]["per_step"] == docs[3]["loss"]["per_step"],
      "session: baselines passed with the same losses (same seed and tokens), liger skipped on the CPU")
validate_and_ingest(solbook, [os.path.join(sdir, n + ".json") for n in names], os.path.join(tmp, "s.db"))
finish(tmp)

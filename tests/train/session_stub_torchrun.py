#!/usr/bin/env python3
"""session_stub_torchrun.py - stands in for torchrun in
test_training_session.py, so the session launcher's rounds, order, gate and
failure handling are checked where no torch is installed. It parses each
launch's options with llama_fsdp.py's own parse_args (so a launch the real
program would refuse is refused here, exit 2), appends what the launch was
given to $STUB_LOG as one JSON line, and writes a training file holding
only the status and the training_session block parse_args built: it trains nothing
and times nothing, and its files carry no measurements.

Environment: STUB_LOG (required), STUB_FAIL_AT=N and STUB_FAIL_RC (the Nth
launch exits STUB_FAIL_RC without a file), STUB_SLEEP_S (seconds each
launch takes), STUB_SKIP_LIGER=1 (liger launches write status skipped, as
llama_fsdp.py does on the CPU)."""
import json
import os
import sys
import time

args = sys.argv[1:]
if args[:2] != ["--standalone", "--nproc-per-node"] or not args[3].endswith("llama_fsdp.py"):
    print("session_stub_torchrun: unexpected command line %s" % args, file=sys.stderr)
    sys.exit(2)
nproc, prog, opts = int(args[2]), args[3], args[4:]
sys.path.insert(0, os.path.dirname(prog))
import llama_fsdp  # noqa: E402

a = llama_fsdp.parse_args(opts)
log = os.environ["STUB_LOG"]
with open(log, "a") as fh:
    fh.write(json.dumps({"nproc": nproc, "opts": opts, "session": a.session, "mode": a.liger_mode,
                         "check_against": a.check_against, "seed": a.seed, "steps": a.steps,
                         "warmup_steps": a.warmup_steps, "preset": a.preset, "seq_len": a.seq_len,
                         "limit": os.environ.get("LIMIT")}) + "\n")
with open(log) as fh:
    n = sum(1 for _ in fh)
time.sleep(float(os.environ.get("STUB_SLEEP_S", "0")))
if str(n) == os.environ.get("STUB_FAIL_AT"):
    print("session_stub_torchrun: launch %d fails as asked" % n, file=sys.stderr)
    sys.exit(int(os.environ.get("STUB_FAIL_RC", "1")))
status = "skipped" if a.liger_mode == "liger" and os.environ.get("STUB_SKIP_LIGER") == "1" else "passed"
with open(a.out, "w") as fh:
    json.dump({"schema": "solbook.training.v1", "status": status, "training_session": a.session}, fh, indent=2,
              sort_keys=True)
print("session_stub_torchrun: launch %d %s round %d position %d" % (
    n, a.liger_mode, a.session["round"], a.session["position"]))

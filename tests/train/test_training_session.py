#!/usr/bin/env python3
"""test_training_session.py - bench/train/run_training_session.sh with
torchrun replaced by session_stub_torchrun.py (which parses every launch's
options with llama_fsdp.py's parse_args and records them): the balanced
order of the rounds, one session id, each launch's round and position, the
same seed, preset and steps in every launch, the liger launches gated on
the first baseline, options passed through, a failing launch and the
session's time limit ending the session with one line, skipped launches
counted, bad options refused; and llama_fsdp.py's own refusal of session
options that disagree. Needs no torch."""
import contextlib
import io
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_env import TOP, check, finish, run  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
launcher = os.path.join(TOP, "bench", "train", "run_training_session.sh")
stub = os.path.join(here, "session_stub_torchrun.py")
tmp = tempfile.mkdtemp(prefix="sb-train-session-")


def session(name, opts, expect_rc, what, **stub_env):
    out = os.path.join(tmp, name)
    log = os.path.join(tmp, name + ".launches")
    env = {"TORCHRUN": "%s %s" % (sys.executable, stub), "STUB_LOG": log}
    env.update(stub_env)
    p = run(["bash", launcher, out] + opts, expect_rc, what, env)
    launches = []
    if os.path.exists(log):
        with open(log) as fh:
            launches = [json.loads(line) for line in fh]
    tsv = []
    if os.path.exists(os.path.join(out, "session.tsv")):
        with open(os.path.join(out, "session.tsv")) as fh:
            tsv = [line.rstrip("\n").split("\t") for line in fh][1:]
    return p, out, launches, tsv


# The default session: 3 rounds on one GPU, llama3.2-1b, 3 + 10 steps.
p, out, ls, tsv = session("default", [], 0, "default session")
modes = [x["mode"] for x in ls]
check(modes == ["baseline", "liger", "liger", "baseline", "baseline", "liger"],
      "default: 6 launches in balanced order A B B A A B (%s)" % " ".join(modes))
check([(x["session"]["round"], x["session"]["position"]) for x in ls] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)],
      "default: rounds 0-2, positions 0 and 1 in each")
ids = {x["session"]["id"] for x in ls}
sid = ids.pop() if len(ids) == 1 else ""
check(re.fullmatch(r"[0-9a-f]{32}", sid) is not None, "default: one session id for every launch (%s)" % sid)
order = [["baseline", "liger"], ["liger", "baseline"], ["baseline", "liger"]]
check(all(x["session"]["order"] == order and x["session"]["rounds"] == 3 for x in ls),
      "default: every launch records the whole order and 3 rounds")
check(all(x["nproc"] == 1 and x["preset"] == "llama3.2-1b" and x["seed"] == 1234 and x["steps"] == 10
          and x["warmup_steps"] == 3 for x in ls),
      "default: 1 GPU, llama3.2-1b, seed 1234, 3 warm-up and 10 timed steps in every launch")
gate = os.path.join(out, "r0-p0-baseline.json")
check([x["check_against"] for x in ls] == [None, gate, gate, None, None, gate],
      "default: each liger launch is gated on the first baseline's file, no baseline is gated")
check(all(x["limit"] is not None and 0 < int(x["limit"]) <= 900 for x in ls),
      "default: each launch gets a limit of at most 900 s")
check(tsv == [[str(r), str(q), m, "0", "r%d-p%d-%s.json" % (r, q, m)]
              for r, q, m in [(0, 0, "baseline"), (0, 1, "liger"), (1, 0, "liger"), (1, 1, "baseline"),
                              (2, 0, "baseline"), (2, 1, "liger")]],
      "default: session.tsv lists the 6 launches, each exit 0, with its file")
check(all(os.path.exists(os.path.join(out, "r%s-p%s-%s.log" % (t[0], t[1], t[2]))) for t in tsv),
      "default: a log per launch")
check("session %s done: 6 launches passed" % sid in p.stdout, "default: the last line says the session is done")

# Two GPUs, two rounds, other step counts, an option passed to every launch.
p, out, ls, tsv = session("two", ["--nproc", "2", "--rounds", "2", "--steps", "5", "--warmup-steps", "1",
                                  "--preset", "llama3.2-3b", "--session-id", "ab" * 16, "--", "--seq-len", "4096"],
                          0, "two-GPU session of 2 rounds")
check([x["mode"] for x in ls] == ["baseline", "liger", "liger", "baseline"],
      "two: 4 launches, A B B A")
check(all(x["nproc"] == 2 and x["steps"] == 5 and x["warmup_steps"] == 1 and x["seq_len"] == 4096
          and x["preset"] == "llama3.2-3b" and x["session"]["id"] == "ab" * 16 for x in ls),
      "two: 2 GPUs, 1 + 5 steps, --seq-len 4096 passed through, the given session id, in every launch")

# A launch that fails ends the session, naming it.
p, out, ls, tsv = session("fail", [], 1, "session whose third launch fails", STUB_FAIL_AT="3", STUB_FAIL_RC="1")
check(len(ls) == 3 and [t[3] for t in tsv] == ["0", "0", "1"], "fail: no launch after the failing third")
check(re.search(r"session [0-9a-f]{32} ends: launch 3 of 6 \(round 1, liger\) exited 1 \(log .*r1-p0-liger.log\)",
                p.stderr) is not None, "fail: one line names the launch, its round and mode, its status and log")
p, out, ls, tsv = session("oom", [], 2, "session whose first launch is refused", STUB_FAIL_AT="1", STUB_FAIL_RC="2")
check(len(ls) == 1 and "launch 1 of 6 (round 0, baseline) exited 2" in p.stderr,
      "oom: a first baseline that fails ends the session before any liger launch")

# The session's time limit.
p, out, ls, tsv = session("late", ["--time-limit-s", "32"], 124, "session that runs out of time", STUB_SLEEP_S="3")
check(len(ls) == 1 and "its 32 s ran out before launch 2 of 6 (round 0, liger); 1 launches done" in p.stderr,
      "late: the session ends before a launch that has under 30 s left, with one line")
# what is left: 32 s less the session's own start, which a loaded machine
# can stretch past a second
check(ls and ls[0]["limit"] in ("31", "32"), "late: the first launch's limit is what is left of the session")

# Skipped launches (liger mode on the CPU) are counted, not paired.
p, out, ls, tsv = session("cpu", ["--rounds", "2"], 0, "session whose liger launches are skipped", STUB_SKIP_LIGER="1")
check(len(ls) == 4 and "2 launches passed, 2 skipped (nothing run, no pair)" in p.stdout,
      "cpu: the session runs on and counts the 2 skipped launches")

# Bad options: exit 2, nothing launched.
for name, opts, needle in [("r1", ["--rounds", "1"], "--rounds must be at least 2"),
                           ("np", ["--nproc", "0"], "--nproc must be a positive number"),
                           ("out", ["--", "--out", "x.json"], "'--out' is the session's to set"),
                           ("gate", ["--", "--check-against", "x.json"], "'--check-against' is the session's"),
                           ("sid", ["--session-id", "XYZ"], "--session-id must be 32 lower-case hex digits"),
                           ("opt", ["--bogus"], "unknown option '--bogus'")]:
    p, out, ls, tsv = session("bad-" + name, opts, 2, "bad option %s" % " ".join(opts))
    check(not ls and needle in p.stderr, "bad %s: refused (%s), nothing launched" % (" ".join(opts), needle))

# llama_fsdp.py refuses session options that disagree with each other.
sys.path.insert(0, os.path.join(TOP, "bench", "train"))
import llama_fsdp  # noqa: E402

base = ["--out", os.path.join(tmp, "x.json"), "--session-id", "cd" * 16, "--session-order", "baseline,liger/liger,baseline"]
a = llama_fsdp.parse_args(base + ["--liger-mode", "liger", "--session-round", "1", "--session-position", "0"])
check(a.session == {"id": "cd" * 16, "round": 1, "position": 0, "rounds": 2, "order": [["baseline", "liger"],
                                                                                     ["liger", "baseline"]]},
      "llama_fsdp: the session block of round 1 position 0")
check(llama_fsdp.parse_args(["--out", "x.json"]).session is None, "llama_fsdp: no session block without the options")
for opts, what in [(["--liger-mode", "baseline", "--session-round", "1", "--session-position", "0"], "mode not the order's"),
                   (["--session-round", "2", "--session-position", "0"], "round outside the order"),
                   (["--session-round", "0"], "options missing")]:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            llama_fsdp.parse_args(base + opts)
        refused = False
    except SystemExit as e:
        refused = e.code == 2
    check(refused, "llama_fsdp: refuses %s (exit 2: %s)" % (what, err.getvalue().strip().splitlines()[-1:]))
finish(tmp)

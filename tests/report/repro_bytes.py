#!/usr/bin/env python3
"""repro_bytes.py SOLBOOK - a reproduce script gives solbench the very
bytes a run stored.

Solbench runs whose params values hold a CR LF, a trailing newline, a tab
and ESC, bidi controls, quotes, $, a backslash and an option-like text
are ingested; the weekly writeup's and the packet's reproduce.sh are
written and run (by their own #! line) with a stand-in solbench that
records its argument vector as bytes. Each run's --note= argument must be
"--note=" and the stored value's UTF-8 bytes, each one word; a script
holds no raw control character; its #! line is bash exactly when some
word needs $'...', else /bin/sh.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOLBOOK = sys.argv[1]
HOME = os.environ["SOLBOOK_HOME"]
VALUES = [
    "a\r\nb",                              # as found: written as the text \r\n
    "line\n",                              # a newline a command substitution would drop
    "tab\there\x1b[31m",
    "\u202eevil\u202c \u2066iso\u2069",
    "-x --calibration /etc/shadow",        # an option's text stays inside --note=
    "it's $HOME `x` \"q\" \\ back $'s'",
    "\u00e9 plain",
]
# no word needs $'...' (nor holds the two characters): the script is sh's
PLAIN_SH = ["-x --calibration /etc/shadow", "it's $HOME `x` \"q\" \\ back", "\u00e9 plain"]


def fail(msg):
    sys.exit("FAIL: " + msg)


def solbook(*args):
    p = subprocess.run((SOLBOOK,) + args, capture_output=True)
    if p.returncode != 0:
        fail("solbook %s exited %d: %s" % (args[0], p.returncode, p.stderr.decode(errors="replace")))


def calls_of(script, work, stub):
    """Runs script by its #! line in an empty folder; the stand-in
    solbench's argument vectors, as bytes."""
    log = os.path.join(work, "argv.log")
    if os.path.exists(log):
        os.remove(log)
    scratch = tempfile.mkdtemp(dir=work)
    os.chmod(script, 0o755)
    p = subprocess.run([script], cwd=scratch, capture_output=True,
                       env=dict(os.environ, PATH=stub + ":" + os.environ["PATH"], ARGV_LOG=log))
    if p.returncode != 0:
        fail("%s exited %d: %s" % (script, p.returncode, p.stderr.decode(errors="replace")))
    with open(log) as f:
        return [[bytes.fromhex(a) for a in json.loads(line)] for line in f]


def check(name, script, work, stub, values):
    with open(script, "rb") as f:
        text = f.read().decode()
    bad = re.search("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]", text)
    if bad:
        fail("%s holds a raw control U+%04X" % (name, ord(bad.group())))
    want_shell = "#!/bin/sh\n" if values == PLAIN_SH else "#!/usr/bin/env bash\n"
    if not text.startswith(want_shell):
        fail("%s starts %r, not %r" % (name, text.split("\n", 1)[0], want_shell))
    calls = [c for c in calls_of(script, work, stub) if c[0] == b"solbench"]
    notes = sorted(a for c in calls for a in c if a.startswith(b"--note="))
    want = sorted(b"--note=" + v.encode() for v in values)
    if notes != want:
        fail("%s: solbench was given %r, not %r" % (name, notes, want))
    for c in calls:
        if c[1] != b"gemm" or c[-2:] != [b"--out", b"results/"]:
            fail("%s: solbench called as %r" % (name, c))
    print("ok: %s (%s): %d solbench calls, each --note= the stored bytes in one word: %s"
          % (name, want_shell[2:-1], len(calls), ", ".join(repr(v) for v in values)))


work = tempfile.mkdtemp(prefix="sb_repro_bytes_")
try:
    stub = os.path.join(work, "bin")
    os.makedirs(stub)
    with open(os.path.join(stub, "solbench"), "w") as f:
        f.write("#!%s\nimport json, os, sys\nwith open(os.environ['ARGV_LOG'], 'a') as f:\n"
                "    f.write(json.dumps([os.fsencode(a).hex() for a in ['solbench'] + sys.argv[1:]]) + '\\n')\n"
                % sys.executable)
    with open(os.path.join(stub, "solbook"), "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    for tool in ("solbench", "solbook"):
        os.chmod(os.path.join(stub, tool), 0o755)
    with open(os.path.join(HOME, "tests", "data", "ingest", "good", "gemm_h100_cublas.json")) as f:
        good = json.load(f)
    for values in (VALUES, PLAIN_SH):
        src = os.path.join(work, "in%d" % len(values))
        os.makedirs(src)
        for i, v in enumerate(values):
            d = json.loads(json.dumps(good))
            d["run_uuid"] = "%032x" % (0x5eed00 + i)
            d["config"]["shape"]["M"] = 1000 + i  # each its own case
            d["config"]["params"] = {"note": v}
            with open(os.path.join(src, "r%d.json" % i), "w") as f:
                json.dump(d, f)
        db = os.path.join(work, "r%d.db" % len(values))
        solbook("ingest", "--db", db, src)
        weekly, packet = os.path.join(work, "weekly%d" % len(values)), os.path.join(work, "packet%d" % len(values))
        solbook("report", "weekly", "--db", db, "--week", "2026-W47", "--out", weekly)
        solbook("packet", "--db", db, "--target", "triton", "--out", packet)
        check("weekly 2026-W47-reproduce.sh", os.path.join(weekly, "2026-W47-reproduce.sh"), work, stub, values)
        check("packet reproduce.sh", os.path.join(packet, "reproduce.sh"), work, stub, values)
finally:
    shutil.rmtree(work, ignore_errors=True)

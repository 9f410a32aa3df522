#!/usr/bin/env python3
"""test_cli_options.py SOLBOOK SOURCE_DIR - every command's options as its
users meet them: the help made from the option table, the one line a bad
option gets, the options the documentation names, and the man page and
bash completion that cli/gen_manpage.sh and cli/gen_completion.sh make
from the help. Prints what it checked."""
import os
import re
import subprocess
import sys

solbook, source = sys.argv[1], sys.argv[2]
checks = failures = 0


def run(*args):
    p = subprocess.run([solbook, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(ok, what):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print("FAIL: " + what)


def listed_options(help_text):
    """The long options of the option list (the lines after the usage and
    description that start with an option)."""
    body = help_text.split("\n\n", 1)[-1]
    return set(re.findall(r"^(?:  -[a-zA-Z], |      )--([a-z][a-z0-9-]*)", body, re.M))


rc, out, _ = run("--help")
commands = re.findall(r"^  ([a-z][a-z-]+) ", out.split("Commands:\n", 1)[1], re.M)
check(len(commands) >= 13, "solbook --help lists the commands: %s" % commands)

helps = {}
for c in commands:
    rc, out, err = run(c, "--help")
    helps[c] = out
    opts = listed_options(out)
    check(rc == 0 and err == "", "%s --help: exit %d, stderr %r" % (c, rc, err))
    check(out.startswith("usage: solbook " + c), "%s --help starts with its usage line" % c)
    check(all(l.startswith("   or: solbook " + c) for l in out.splitlines() if l.startswith("   or:")),
          "%s --help: every 'or:' line is a synopsis of the command" % c)
    check(re.search(r"^  -h, --help +show this help$", out, re.M) is not None,
          "%s --help lists -h, --help" % c)
    # the synopsis names no option the table lacks
    synopsis = out.split("\n\n", 1)[0]
    named = set(re.findall(r"--([a-z][a-z0-9-]*)", synopsis))
    check(named <= opts, "%s: synopsis options %s missing from the option list" % (c, sorted(named - opts)))
    # the help column is one column: every option line's help starts at the same place
    cols = {len(m.group(1)) for m in re.finditer(r"^(  (?:-[a-zA-Z], |    )--\S+(?: \S+)?  +)\S", out, re.M)}
    check(len(cols) == 1, "%s --help: help text in one column (%s)" % (c, sorted(cols)))
    # an unknown option: one line, exit 2, nothing on stdout
    sub = {"report": ["geomean"], "forge": ["list"]}.get(c, [])
    rc, o, e = run(c, *sub, "--no-such-option")
    name = " ".join([c] + sub)
    want = "solbook %s: unknown option '--no-such-option'; see 'solbook %s --help'\n" % (name, name)
    check(rc == 2 and o == "" and e == want, "%s --no-such-option: exit %d, %r" % (name, rc, e))
    print("ok: %s --help lists %d options; a bad option gets one line and exit 2" % (c, len(opts)))

# The one-line errors of values and of options of another subcommand.
cases = [
    (["runs", "--limit", "x"], "solbook runs: --limit: expected a positive integer, got 'x'"),
    (["runs", "--limt", "3"], "solbook runs: unknown option '--limt'; did you mean '--limit'?"),
    (["runs", "--sku"], "solbook runs: option '--sku' needs a value"),
    (["runs", "--json=yes"], "solbook runs: option '--json' takes no value"),
    (["runs", "--s", "x"], "solbook runs: ambiguous option '--s': could be --sku, --sha, --suite, "
                           "--shape, --status"),
    (["site", "--out", "x", "--page-rows", "5"],
     "solbook site: --page-rows: expected an integer from 10 to 100000, got '5'"),
    (["compare", "--alpha", "0.9", "a", "b"],
     "solbook compare: --alpha: expected a number from 1e-12 to 0.5, got '0.9'"),
    (["collect", "--device", "x"], "solbook collect: --device: expected a non-negative integer, got 'x'"),
    (["forge", "task", "--compile-timeout", "0"],
     "solbook forge task: --compile-timeout: expected an integer from 1 to 3600, got '0'"),
    (["forge", "bench", "r", "--min-speedup", "-1"],
     "solbook forge bench: --min-speedup: expected a positive number, got '-1'"),
    (["forge", "list", "--root", "x"],
     "solbook forge list: option '--root' does not apply here; see 'solbook forge list --help'"),
    (["report", "weekly", "--op", "gemm"],
     "solbook report weekly: option '--op' does not apply here; see 'solbook report weekly --help'"),
    (["show", "-x", "1"], "solbook show: unknown option '-x'; see 'solbook show --help'"),
]
for argv, line in cases:
    rc, o, e = run(*argv)
    check(rc == 2 and o == "" and e == line + "\n", "%s: exit %d, %r" % (" ".join(argv), rc, e))
    print("ok: %s -> %s" % (" ".join(argv), line))

# A subcommand's help lists its own options only.
rc, out, _ = run("forge", "list", "--help")
check(listed_options(out) == {"db", "json", "help"}, "forge list --help lists %s" % listed_options(out))
rc, out, _ = run("report", "weekly", "--help")
check(listed_options(out) == {"db", "week", "out", "baseline", "alpha", "min-effect", "repo-url", "help"},
      "report weekly --help lists %s" % listed_options(out))
print("ok: forge list and report weekly --help list their own options")

# Every option the documentation gives a command is one the command has.
doc_files = [os.path.join(source, "README.md")] + [
    os.path.join(source, "docs", f) for f in sorted(os.listdir(os.path.join(source, "docs"))) if f.endswith(".md")]
documented = 0
for path in doc_files:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if "did you mean" in line:  # a typo shown on purpose
                continue
            for m in re.finditer(r"\bsolbook ([a-z][a-z-]+)((?: +[^ `|;&)]+)*)", line):
                c, rest = m.group(1), m.group(2)
                if c not in helps:
                    continue
                for opt in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", rest):
                    documented += 1
                    check(opt in listed_options(helps[c]),
                          "%s: 'solbook %s ... --%s' names an option the command lacks" %
                          (os.path.relpath(path, source), c, opt))
print("ok: %d options named in README.md and docs/*.md after 'solbook CMD' exist" % documented)

# The man page and the completion are made from the help: every option is in both.
def generate(script, *args):
    p = subprocess.run(["sh", os.path.join(source, "cli", script), solbook, *args], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0 and p.stderr == "", "%s: exit %d, %r" % (script, p.returncode, p.stderr))
    return p.stdout


man = generate("gen_manpage.sh", "0.0.0")
completion = generate("gen_completion.sh")
for c, text in helps.items():
    m = re.search(r"^    %s\) subs=\"[^\"]*\"; opts=\"([^\"]*)\"" % re.escape(c), completion, re.M)
    words = set(m.group(1).split()) if m else set()
    for opt in listed_options(text):
        check("--" + opt in words, "solbook.bash lacks %s --%s" % (c, opt))
        check("\\-\\-" + opt in man or "--" + opt in man, "solbook.1 lacks %s --%s" % (c, opt))
print("ok: solbook.1 and solbook.bash name every option of every command")

# Text of the command line quoted back in an error (an option's value, an
# unknown option, command, report or target, a stray argument, a compare
# selector, the database path of ingest's summary) can be a file name a
# shell glob gave, or text pasted from stored data: it is printed with its
# controls as escapes, never raw, so it cannot clear the screen, retitle
# the terminal or write a fake line.
EVIL = "\x1b]0;pwn\x07\x1b[2J\u009b31m\u202e"
attacks = [
    ("runs", "--limit", EVIL), ("runs", "--no-" + EVIL), (EVIL,), ("rnus" + EVIL,),
    ("report", EVIL), ("report", "geomean", "--format", EVIL), ("report", "regressions", "--format", EVIL),
    ("report", "table", "--op", "x", "--sku", "y", "--provider", EVIL, "--baseline", EVIL),
    ("packet", "--target", EVIL), ("packet", "--target", "liger", EVIL), ("runs", EVIL),
    ("site", EVIL), ("collect", EVIL), ("validate-results", EVIL), ("validate-results", "--op", EVIL),
    ("forge", EVIL), ("forge", "list", EVIL), ("compare", "--format", EVIL),
    ("compare", EVIL, "abcd"), ("compare", "abcd", EVIL), ("session", "--level", EVIL),
    ("ingest", "--db", os.path.join(os.environ.get("TMPDIR", "/tmp"), "sb_cli_esc" + EVIL + ".db"), "/nonexistent"),
]
for args in attacks:
    rc, o, e = run(*args)
    shown = " ".join(a.encode("unicode_escape").decode() for a in args)[:80]
    bad = [ch for ch in "\x1b\x07\u009b\u202e" if ch in o + e]
    check(not bad and rc != 0 and e.strip(), "solbook %s: exit %d, raw controls %r in %r" % (shown, rc, bad, (o + e)[:160]))
for f in os.listdir(os.environ.get("TMPDIR", "/tmp")):
    if f.startswith("sb_cli_esc"):
        os.remove(os.path.join(os.environ.get("TMPDIR", "/tmp"), f))
print("ok: %d errors quoting command-line text print no raw control" % len(attacks))

print("test_cli_options: %d checks, %d failed" % (checks, failures))
sys.exit(1 if failures else 0)

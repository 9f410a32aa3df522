#!/usr/bin/env python3
"""refusals_check.py SOLBOOK TEST_DATA - every importer's refusal is one
line naming the file and the problem (docs/IMPORT.md, "All or nothing,
per file"). For each format, real or fixture files are damaged the ways
outside files come damaged (cut short, a figure that is no number, a
field of the wrong type, a wrong version) and `solbook ingest --format
FORMAT` must exit 1 with exactly one line on stderr, "solbook: FILE: ...",
saying the problem (the expected words), and store nothing."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

SOLBOOK, DATA = sys.argv[1], sys.argv[2]
T = tempfile.mkdtemp(prefix="sb_refusals_")
failures = []
checked = 0


def text_of(rel):
    with open(os.path.join(DATA, rel), encoding="utf-8") as f:
        return f.read()


def put(name, text):
    path = os.path.join(T, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # surrogateescape: "\udcff" in text is the byte 0xFF, for files that are not UTF-8
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    return path


def edited(rel, edit):
    doc = json.loads(text_of(rel))
    edit(doc)
    return json.dumps(doc, indent=1)


def refused(fmt, name, text, words, extra=(), files=(), db_name="r.db"):
    global checked
    path = put(name, text)
    for rel, src in files:
        shutil.copy(os.path.join(DATA, src), os.path.join(T, rel))
    db = os.path.join(T, db_name)
    cmd = ["--nsys", path] + list(extra) if fmt == "nsys" else ["--format", fmt] + list(extra) + [path]
    p = subprocess.run([SOLBOOK, "ingest", "--db", db] + cmd, capture_output=True, text=True)
    err = p.stderr
    lines = err.splitlines()
    table = "kernel_summaries" if fmt == "nsys" else "runs"
    stored = sqlite3.connect(db).execute("SELECT count(*) FROM %s" % table).fetchone()[0] if os.path.exists(db) else 0
    checked += 1
    problem = []
    if p.returncode != 1:
        problem.append("exit %d" % p.returncode)
    if len(lines) != 1:
        problem.append("%d lines" % len(lines))
    elif not lines[0].startswith("solbook: %s: " % path) or len(lines[0]) <= len("solbook: %s: " % path) + 8:
        problem.append("does not start with the file and say a problem")
    if words not in err:
        problem.append("lacks %r" % words)
    if stored:
        problem.append("%d runs stored" % stored)
    if problem:
        failures.append("%s %s: %s: %r" % (fmt, name, ", ".join(problem), err))
    else:
        print("ok: %s: %s: %s" % (fmt, name, lines[0]))


def main():
    # Liger-Kernel CSV
    liger = text_of("import/liger_basic.csv")
    refused("liger-csv", "liger_cut.csv", liger[: len(liger) // 2] + '"', "line")
    refused("liger-csv", "liger_unit.csv", liger.replace(",speed,ms,", ",speed,s,", 1), "metric_unit \"s\"")
    # bytes that are not UTF-8 (an overlong '<' in the GPU name): named, not
    # dropped from the run nor refused as a missing field
    refused("liger-csv", "liger_utf8.csv", liger.replace("NVIDIA A100-SXM4-80GB", "NVIDIA A100\udcc0\udcbc", 1),
            "line 2: byte 0xC0 at column")
    # nvbench JSON
    nvb = text_of("import/nvbench.json")
    refused("nvbench-json", "nvb_cut.json", nvb[: len(nvb) // 2], "line")
    refused("nvbench-json", "nvb_states.json", edited("import/nvbench.json", lambda d: d["benchmarks"][0].update(states={})),
            "/benchmarks/0")
    refused("nvbench-json", "nvb_v2.json", text_of("import/nvbench_v2.json"), "version 2.0.0")
    # Google Benchmark JSON
    gb = text_of("import/gbench.json")
    refused("gbench-json", "gb_cut.json", gb[: len(gb) // 2], "line")
    refused("gbench-json", "gb_unit.json", text_of("import/gbench_badunit.json"), "time_unit")
    # pytest-benchmark JSON
    pb = "ingest/heldout/pytest_benchmark.json"
    refused("pytest-benchmark-json", "pb_cut.json", text_of(pb)[:2000], "line")
    refused("pytest-benchmark-json", "pb_data.json",
            edited(pb, lambda d: d["benchmarks"][0]["stats"]["data"].__setitem__(3, "fast")), "/benchmarks/0")
    # hyperfine JSON
    hf = "ingest/heldout/hyperfine.json"
    refused("hyperfine-json", "hf_cut.json", text_of(hf)[:300], "line")
    refused("hyperfine-json", "hf_times.json", edited(hf, lambda d: d["results"][1]["times"].__setitem__(0, -1.0)),
            "/results/1")
    # asv results, with the machine file beside them
    asvd = "ingest/heldout/asv/results/heldout"
    asvf = [n for n in sorted(os.listdir(os.path.join(DATA, asvd))) if n != "machine.json"][0]
    refused("asv-json", "asv/a/r_cut.json", text_of(os.path.join(asvd, asvf))[:400], "line",
            files=[("asv/a/machine.json", os.path.join(asvd, "machine.json"))])
    refused("asv-json", "asv/a/r_v3.json", edited(os.path.join(asvd, asvf), lambda d: d.update(version=3)),
            "/version")
    refused("asv-json", "asv/a/r_params.json",
            edited(os.path.join(asvd, asvf), lambda d: [v.__setitem__(1, [[]]) for v in d["results"].values()]),
            "params/0 is not a non-empty list")
    refused("asv-json", "asv/b/r_machine.json", text_of(os.path.join(asvd, asvf)), "machine.json",
            files=[("asv/b/machine.json", "import/op_names_unclosed.csv")])
    def as_mem(d):  # the time_ benchmark renamed mem_: its results (seconds) are no byte counts
        d["results"] = {k.replace("TimeJoin.time_", "MemJoin.mem_"): v for k, v in d["results"].items()}
    refused("asv-json", "asv/a/r_mem.json", edited(os.path.join(asvd, asvf), as_mem),
            "is not a whole number of bytes")
    # the torch.utils.benchmark shim
    tb = "import/heldout/torch_benchmark.json"
    refused("torch-benchmark-json", "tb_cut.json", text_of(tb)[:500], "line")
    refused("torch-benchmark-json", "tb_raw.json",
            edited(tb, lambda d: d["measurements"][2]["raw_times"].__setitem__(1, "slow")), "/measurements/2")
    refused("torch-benchmark-json", "tb_number.json",
            edited(tb, lambda d: d["measurements"][0].update(number_per_run=0)), "/measurements/0")
    # Triton perf_report CSV
    tp = text_of("import/heldout/sort-performance.csv")
    refused("triton-perf-csv", "t/sort-performance.csv", tp.replace("0.289081", "fast"), "line 4",
            extra=["--y-stat", "median"])
    refused("triton-perf-csv", "t2/sort-performance.csv", tp, "give --y-stat")
    # a column label that is not UTF-8 would lose the run's notes, which say the import is lossy
    refused("triton-perf-csv", "t4/sort-performance.csv", tp.replace("sorted (ms)", "sorted\udcff (ms)"),
            "line 1: byte 0xFF at column 9 is not UTF-8", extra=["--y-stat", "median"])
    refused("triton-perf-csv", "t3/sort-performance.csv", tp.replace(" (ms)", ""), "give --y-unit",
            extra=["--y-stat", "median"])
    # an Nsight Systems kernel summary, attached to a stored run
    ndb = os.path.join(T, "n.db")
    subprocess.run([SOLBOOK, "ingest", "--db", ndb, "--format", "auto", os.path.join(DATA, tb)], capture_output=True,
                   check=True)
    ks = text_of("ingest/nsys/kern_sum.csv")
    lines = ks.splitlines(True)
    bad = "".join(lines[:3] + [lines[3].replace(",", ",x", 1)] + lines[4:])
    refused("nsys", "kern_bad.csv", bad, "line 4", extra=["--run", "1"], db_name="n.db")
    refused("nsys", "kern_cut.csv", "".join(lines[:3]) + lines[3][: len(lines[3]) // 2] + "\n", "line 4",
            extra=["--run", "1"], db_name="n.db")
    shutil.rmtree(T, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    print("refusals_check: %d refusals checked, %d failed" % (checked, len(failures)))
    return 1 if failures else 0


sys.exit(main())

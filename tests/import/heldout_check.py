#!/usr/bin/env python3
"""heldout_check.py SOLBOOK DIR DIR2 - imports the held-out files in DIR
(tests/data/ingest/heldout/) and DIR2 (tests/data/import/heldout/), each
written by its tool in a run of its own, outside every test
(docs/IMPORT.md, "Held-out files", has the commands), with `solbook ingest
--format auto` (a Triton perf_report CSV with --format triton-perf-csv),
and checks for each format that every case is stored with the file's
sample count and that its figure, printed as the tool prints it, is the
tool's own print (FORMAT.print.txt, the tool's stdout from that run):

- hyperfine: each command's mean, "Time (mean ± σ):  4.1 ms";
- Google Benchmark: each benchmark's median, "BM_fill/1024_median  423 ns";
- pytest-benchmark: each test's median, "test_sorted[4096] ... 17.5570";
- asv: each (length, kind) cell of `asv show`, "597±3ns", its case keyed
  by the benchmark's param_names;
- Triton perf_report: each cell of the table print_data prints,
  "0.005278", its provider the line name without Triton's " (ms)" label,
  the unit taken from that label;
- torch.utils.benchmark (through bench/scripts/torch_benchmark_dump.py):
  each Measurement's "Median: 163.71 us" and every sample.
"""
import array
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

SCALE = {"s": 1e3, "ms": 1.0, "us": 1e-3, "μs": 1e-3, "µs": 1e-3, "ns": 1e-6}
failures = []
checked = {}


def expect(fmt, ok, what):
    checked[fmt] = checked.get(fmt, 0) + 1
    if not ok:
        failures.append("%s: %s" % (fmt, what))


def runs_of(db, path):
    """{source row: stored document} for the runs of one file."""
    out = {}
    for src, raw, cut, lens, blob in db.execute(
            "SELECT r.source_path, r.raw_json, r.samples_at, s.rep_lengths, s.value_ms"
            " FROM runs r LEFT JOIN run_samples s ON s.run_id = r.id WHERE r.source_path LIKE ?",
            (path + ":%",)):
        doc = json.loads(raw)
        if cut is not None:
            # the samples are stored once, in run_samples (db/sample_blob.h)
            values = list(array.array("d", blob))
            reps, k = [], 0
            for n in json.loads(lens):
                reps.append(values[k:k + n])
                k += n
            doc["timing"]["samples"] = reps
        out[int(src.rsplit(":", 1)[1])] = doc
    return out


def sample_count(doc):
    return sum(len(r) for r in doc["timing"]["samples"])


def gbench_time(v):
    """Google Benchmark's console figure (FormatTime in its reporter)."""
    for limit, digits in ((1.0, 3), (10.0, 2), (100.0, 1)):
        if v < limit:
            return "%.*f" % (digits, v)
    return "%.0f" % v


def check_hyperfine(db, d):
    path = os.path.join(d, "hyperfine.json")
    doc, runs = json.load(open(path)), runs_of(db, path)
    printed = re.findall(r"Benchmark \d+: (.+)\n\s+Time \(mean ± σ\):\s+([\d.]+) (\S+)",
                         open(os.path.join(d, "hyperfine.print.txt"), encoding="utf-8").read())
    expect("hyperfine", len(printed) == len(doc["results"]) == len(runs), "%d printed, %d runs" % (len(printed), len(runs)))
    for i, (cmd, value, unit) in enumerate(printed):
        run = runs.get(i)
        expect("hyperfine", run and sample_count(run) == len(doc["results"][i]["times"]), "%s: sample count" % cmd)
        mine = "%.*f" % (len(value.split(".")[1]) if "." in value else 0, run["timing"]["stats"]["mean"] / SCALE[unit])
        expect("hyperfine", mine == value, "%s: mean %s %s, hyperfine prints %s" % (cmd, mine, unit, value))
        print("ok: hyperfine: %s mean %s %s as hyperfine prints it" % (cmd, value, unit))


def check_gbench(db, d):
    path = os.path.join(d, "gbench.json")
    doc, runs = json.load(open(path)), runs_of(db, path)
    printed = re.findall(r"^(\S+)_median\s+([\d.]+) (\S+)", open(os.path.join(d, "gbench.print.txt")).read(), re.M)
    expect("gbench", len(printed) == len(runs) > 0, "%d medians printed, %d runs" % (len(printed), len(runs)))
    for row, run in runs.items():
        name = doc["benchmarks"][row]["run_name"]
        reps = [b for b in doc["benchmarks"] if b["run_name"] == name and b.get("run_type") == "iteration"]
        expect("gbench", sample_count(run) == len(reps), "%s: %d samples, %d repetitions" % (name, sample_count(run), len(reps)))
        value = [(v, u) for n, v, u in printed if n == name]
        expect("gbench", len(value) == 1, "%s: no median printed" % name)
        if len(value) == 1:
            mine = gbench_time(run["timing"]["stats"]["median"] / SCALE[value[0][1]])
            expect("gbench", mine == value[0][0], "%s: median %s, Google Benchmark prints %s" % (name, mine, value[0][0]))
            print("ok: gbench: %s median %s %s as Google Benchmark prints it" % (name, value[0][0], value[0][1]))


def check_pytest_benchmark(db, d):
    path = os.path.join(d, "pytest_benchmark.json")
    doc, runs = json.load(open(path)), runs_of(db, path)
    text = open(os.path.join(d, "pytest_benchmark.print.txt")).read()
    unit = re.search(r"\(time in (\w+)\)", text).group(1)
    # --benchmark-columns=min,median,max: the median is the second figure
    printed = dict(re.findall(r"^(test_\S+)\s+[\d.,]+ \([\d.]+\)\s+([\d.,]+) ", text, re.M))
    expect("pytest-benchmark", len(printed) == len(runs) == len(doc["benchmarks"]), "%d printed, %d runs" % (len(printed), len(runs)))
    for row, run in runs.items():
        b = doc["benchmarks"][row]
        expect("pytest-benchmark", sample_count(run) == len(b["stats"]["data"]), "%s: sample count" % b["name"])
        expect("pytest-benchmark", run["provenance"]["git"]["sha"] == doc["commit_info"]["id"], "%s: commit" % b["name"])
        mine = "%.4f" % (run["timing"]["stats"]["median"] / SCALE[unit])
        value = printed.get(b["name"], "").replace(",", "")
        expect("pytest-benchmark", mine == value, "%s: median %s, pytest-benchmark prints %s" % (b["name"], mine, value))
        print("ok: pytest-benchmark: %s median %s %s as pytest-benchmark prints it" % (b["name"], value, unit))


def check_asv(db, d):
    res = os.path.join(d, "asv", "results")
    bench = json.load(open(os.path.join(res, "benchmarks.json")))["bench_held.TimeJoin.time_join"]
    names = bench["param_names"]
    lengths = [int(v) for v in bench["params"][0]]
    kinds = [v.strip("'") for v in bench["params"][1]]
    mdir = os.path.join(res, "heldout")
    path = [os.path.join(mdir, n) for n in os.listdir(mdir) if n != "machine.json"][0]
    runs = runs_of(db, path)
    expect("asv", len(runs) == len(lengths) * len(kinds), "%d runs" % len(runs))
    by_case = {(r["config"]["shape"].get(names[0]), r["config"]["params"].get(names[1])): r for r in runs.values()}
    text = open(os.path.join(d, "asv.print.txt"), encoding="utf-8").read()
    for length in lengths:
        cells = re.search(r"^\s+%d\s+(.+)$" % length, text, re.M).group(1).split()
        for kind, cell in zip(kinds, cells):
            run = by_case.get((length, kind))
            expect("asv", run is not None, "no run keyed %s=%d %s=%s" % (names[0], length, names[1], kind))
            if run is None:
                continue
            m = re.match(r"([\d.]+)±[\d.]+(\S+)", cell)
            mine = float("%.3g" % (run["timing"]["stats"]["median"] / SCALE[m.group(2)]))
            expect("asv", mine == float(m.group(1)), "%d %s: median %s, asv shows %s" % (length, kind, mine, cell))
            print("ok: asv: %s=%d %s=%s median %s as asv show prints it" % (names[0], length, names[1], kind, cell))


def check_triton(db, d, solbook, dbp):
    text = open(os.path.join(d, "triton_perf.print.txt")).read()
    # "sort-performance:" then pandas' table: a header, then a row per x
    # value (index, x values, the lines' figures)
    for name, xcols in (("sort-performance", 1), ("transpose-performance", 2)):
        path = os.path.join(d, name + ".csv")
        # every provider of a row shares the row's line: a list, not runs_of
        runs = [json.loads(raw) for (raw,) in
                db.execute("SELECT raw_json FROM runs WHERE source_path LIKE ?", (path + ":%",))]
        block = text.split(name + ":\n", 1)[1].split(":\n", 1)[0].splitlines()
        # the line names and their label from the CSV's header ("sorted (ms)")
        columns = open(path).readline().strip().split(",")
        header = [re.match(r"^(.*) \((\w+)\)$", c).groups() for c in columns[xcols:]]
        xnames = columns[:xcols]
        cells = 0
        for line in block[1:]:
            parts = line.split()
            if len(parts) != 1 + xcols + len(header):
                break
            x = {k: int(float(v)) for k, v in zip(xnames, parts[1:1 + xcols])}
            for (line_name, unit), printed in zip(header, parts[1 + xcols:]):
                found = [r for r in runs if r["config"]["shape"] == x
                         and r["config"]["provider"] == line_name.lower().replace(" ", "-")]
                expect("triton-perf-csv", len(found) == 1, "%s %s %s: %d runs" % (name, x, line_name, len(found)))
                if len(found) != 1:
                    continue
                mine = "%.6f" % (found[0]["timing"]["stats"]["median"] / SCALE[unit])
                expect("triton-perf-csv", mine == printed, "%s %s %s: median %s %s, Triton prints %s"
                       % (name, x, line_name, mine, unit, printed))
                cells += 1
        expect("triton-perf-csv", cells == len(runs) > 0, "%s: %d cells printed, %d runs" % (name, cells, len(runs)))
        print("ok: triton-perf-csv: %s: %d figures as perf_report prints them, providers %s, unit from the label"
              % (name, cells, ", ".join(sorted({r["config"]["provider"] for r in runs}))))
    # --y-unit against the label: refused in one line naming the file
    path = os.path.join(d, "sort-performance.csv")
    p = subprocess.run([solbook, "ingest", "--db", dbp, "--format", "triton-perf-csv", "--y-stat", "median",
                        "--y-unit", "us", path], capture_output=True, text=True)
    err = p.stderr.strip()
    expect("triton-perf-csv", p.returncode == 1 and "\n" not in err and path in err and '"ms" but --y-unit is us' in err,
           "a --y-unit against the label: exit %d, %r" % (p.returncode, err))
    print("ok: triton-perf-csv: --y-unit us against the label refused: %s" % err)


def check_torch(db, d):
    path = os.path.join(d, "torch_benchmark.json")
    doc, runs = json.load(open(path)), runs_of(db, path)
    printed = re.findall(r"^(\w+): (\S+)\n.*\n\s+Median: ([\d.]+) (\w+)",
                         open(os.path.join(d, "torch_benchmark.print.txt")).read(), re.M)
    expect("torch", len(printed) == len(doc["measurements"]) == len(runs), "%d printed, %d runs" % (len(printed), len(runs)))
    for row, (label, sub_label, value, unit) in enumerate(printed):
        run, m = runs.get(row), doc["measurements"][row]
        want = [t / m["number_per_run"] * 1e3 for t in m["raw_times"]]
        got = [v for rep in run["timing"]["samples"] for v in rep]
        expect("torch", got == want, "%s %s: samples are not raw_times / number_per_run x 1e3" % (label, sub_label))
        mine = "%.2f" % (run["timing"]["stats"]["median"] / SCALE[unit])
        expect("torch", mine == value, "%s %s: median %s %s, torch prints %s" % (label, sub_label, mine, unit, value))
        print("ok: torch: %s %s median %s %s as torch prints it, %d samples" % (label, sub_label, value, unit, len(got)))


def check_torch_cuda(db, d):
    """The shim's --cuda output from a lent H100: a bf16 matmul timed by
    torch.utils.benchmark and by Triton's do_bench, every sample kept."""
    path = os.path.join(d, "torch_benchmark_cuda.json")
    doc, runs = json.load(open(path)), runs_of(db, path)
    expect("torch-cuda", len(runs) == len(doc["measurements"]) == 4, "%d runs" % len(runs))
    for row, m in enumerate(doc["measurements"]):
        run = runs[row]
        if m["kind"] == "triton.testing.do_bench":
            want = [float(t) for t in m["times_ms"]]
        else:
            want = [t / m["number_per_run"] * 1e3 for t in m["raw_times"]]
        got = [v for rep in run["timing"]["samples"] for v in rep]
        expect("torch-cuda", got == want, "%s %s: samples differ from the tool's" % (m["kind"], m["shape"]))
        expect("torch-cuda", run["config"]["params"].get("timer") == m["params"]["timer"],
               "%s: the timer parameter is lost" % m["kind"])
        gpu = json.dumps(run["provenance"])
        expect("torch-cuda", "H100" in gpu, "%s: the card is not in the provenance" % m["kind"])
        print("ok: torch-cuda: %s M=%d, %d samples as the tool gave them, median %.4f ms" %
              (m["kind"], m["shape"]["M"], len(got), run["timing"]["stats"]["median"]))


def main():
    solbook, d, d2 = sys.argv[1], sys.argv[2], sys.argv[3]
    files = [os.path.join(d, f) for f in ("hyperfine.json", "gbench.json", "pytest_benchmark.json")]
    mdir = os.path.join(d, "asv", "results", "heldout")
    files += [os.path.join(mdir, n) for n in sorted(os.listdir(mdir)) if n != "machine.json"]
    files.append(os.path.join(d2, "torch_benchmark.json"))
    files.append(os.path.join(d2, "torch_benchmark_cuda.json"))
    with tempfile.TemporaryDirectory() as tmp:
        dbp = os.path.join(tmp, "h.db")
        triton = [["--y-stat", "median", os.path.join(d2, "sort-performance.csv")],
                  ["--y-stat", "median", "--x-cols", "2", os.path.join(d2, "transpose-performance.csv")]]
        for cmd in [["--format", "auto"] + files] + [["--format", "triton-perf-csv"] + t for t in triton]:
            p = subprocess.run([solbook, "ingest", "--db", dbp] + cmd, capture_output=True, text=True)
            if p.returncode != 0:
                print("FAIL: ingest: exit %d: %s" % (p.returncode, p.stderr.strip()))
                return 1
        db = sqlite3.connect(dbp)
        for check, args in ((check_hyperfine, (d,)), (check_gbench, (d,)), (check_pytest_benchmark, (d,)),
                            (check_asv, (d,)), (check_triton, (d2, solbook, dbp)), (check_torch, (d2,)),
                            (check_torch_cuda, (d2,))):
            try:
                check(db, *args)
            except (AttributeError, IndexError, KeyError, TypeError, ValueError) as e:
                failures.append("%s: %s: %r" % (check.__name__, type(e).__name__, e))
        db.close()
    for f in failures:
        print("FAIL: " + f)
    print("heldout_check: %s; %d failed" % (", ".join("%s %d checks" % kv for kv in sorted(checked.items())), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

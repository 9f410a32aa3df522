#!/usr/bin/env python3
"""heldout_check.py SOLBOOK DIR DIR2 [DIR3] - imports the held-out files in DIR
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

With DIR3 (shared/import-heldout/ of the checkout), six files other
projects' runs wrote and committed, which stay under those projects'
licences and out of this repository (DIR2/README names source, commit
and licence), are checked against the file itself, every case, and read
back through `solbook show` (and `solbook compare`, the nvbench and
Liger files); without them those checks say they are skipped and the
others run:

- nvbench JSON (its axes example on a Quadro GV100 and GP100): each
  state's cold mean, sample count, noise, bytes, device, axes and dtype,
  skip reasons; compare pairs each GV100 state with its GP100 twin;
- Liger-Kernel's benchmark/data/all_benchmark_data.csv: each case's
  20/50/80 % quantiles and peak memory; compare's A100 and H100 medians
  are the file's y_value_50;
- an Nsight Systems cuda_gpu_kern_sum CSV (nsys 2024.7.1, PolyFHE's
  profile of the Phantom FHE library): attached to a stored run with
  `solbook ingest --nsys`, each kernel's row, share, launches and six
  times, each time the double nearest the file's ns figure / 10^6;
- a pytest-benchmark autosave without stats.data (Trajax's baseline):
  each benchmark's mean, median, min, max, stddev and rounds, no samples
  made up, its params (the UNSERIALIZABLE[...] reprs cut at 256 bytes
  with their hash), commit, host and version;
- a hyperfine --export-json file (3em's tools/benchmarks/results.json):
  each command's times, min, max, mean, median, stddev, user and system
  time and exit codes;
- asv results version 2 with samples (versioned-hdf5's benchmarks, with
  machine.json and benchmarks.json): each combination's samples, repeat
  count and median against asv's result, or, where asv wrote a null
  result, a skipped run.
"""
import array
import csv
import decimal
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


def runs_of_all(db, path):
    """{source row: (run id, stored document)} for a file without samples."""
    return {int(src.rsplit(":", 1)[1]): (rid, json.loads(raw)) for rid, src, raw in
            db.execute("SELECT id, source_path, raw_json FROM runs WHERE source_path LIKE ?", (path + ":%",))}


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


def show_doc(solbook, dbp, rid):
    """The stored document as `solbook show --json` prints it."""
    p = subprocess.run([solbook, "show", "--db", dbp, "--json", str(rid)], capture_output=True, text=True)
    return json.loads(p.stdout)["document"] if p.returncode == 0 else None


def compare_cases(solbook, dbp, suite, a, b):
    """`solbook compare --format json` of two selectors in one suite."""
    p = subprocess.run([solbook, "compare", "--db", dbp, "--suite", suite, a, b, "--format", "json"],
                       capture_output=True, text=True)
    return json.loads(p.stdout)["cases"] if p.returncode in (0, 1) else None


NVBENCH_DTYPES = {"F32": "fp32", "F64": "fp64", "F16": "fp16", "BF16": "bf16", "I8": "int8"}


def check_nvbench_public(db, d, solbook, dbp):
    """nvbench's own JSON of its axes example on a Quadro GV100 and GP100
    (NVIDIA/nvbench, the README names the commit): every state against
    the file, through the database, `solbook show` and `solbook compare`."""
    path = os.path.join(d, "nvbench_axes_quadro.json")
    doc, runs = json.load(open(path)), runs_of(db, path)
    states = [(b, s) for b in doc["benchmarks"] for s in b["states"]]
    expect("nvbench", len(runs) == len(states) == 126, "%d runs, %d states" % (len(runs), len(states)))
    ids = {int(src.rsplit(":", 1)[1]): rid for rid, src in
           db.execute("SELECT id, source_path FROM runs WHERE source_path LIKE ?", (path + ":%",))}
    passed = skipped = 0
    by_run = {}
    for row, (bench, state) in enumerate(states):
        run = runs.get(row)
        where = "%s [%s]" % (bench["name"], state["name"])
        if run is None:
            expect("nvbench", False, "%s: no run" % where)
            continue
        by_run[ids[row]] = (bench, state)
        dev = doc["devices"][state["device"]]
        expect("nvbench", run["provenance"]["device"]["name"] == dev["name"]
               and run["provenance"]["device"]["index"] == state["device"], "%s: device %s" % (where, run["provenance"]["device"]))
        types = [av["value"] for av in state["axis_values"] or [] if av["type"] == "string"]
        for av in state["axis_values"] or []:
            if av["type"] == "int64":
                expect("nvbench", run["config"]["shape"].get(av["name"]) == int(av["value"]), "%s: shape %s" % (where, av))
            else:
                want = float(av["value"]) if av["type"] == "float64" else av["value"]
                expect("nvbench", run["config"]["params"].get(av["name"]) == want, "%s: params %s" % (where, av))
        # the first type axis alone names the dtype (In=I16 Out=F32 is unknown)
        want_dtype = NVBENCH_DTYPES.get(types[0], "unknown") if types else "unknown"
        expect("nvbench", run["config"]["dtype"] == want_dtype, "%s: dtype %s, want %s" % (where, run["config"]["dtype"], want_dtype))
        if state.get("is_skipped"):
            expect("nvbench", run["status"] == "skipped" and run["reason"] == "skipped by nvbench: " + state["skip_reason"],
                   "%s: skipped state stored as %s %s" % (where, run["status"], run.get("reason")))
            skipped += 1
            continue
        summ = {x["tag"]: {i["name"]: i["value"] for i in x["data"]} for x in state["summaries"]}
        value = lambda tag: float(summ[tag]["value"])
        stats = run["timing"]["stats"]
        mean_s, rel = value("nv/cold/time/gpu/mean"), value("nv/cold/time/gpu/stdev/relative")
        expect("nvbench", run["status"] == "passed" and run["timing"]["quantiles_only"] is True and "samples" not in run["timing"],
               "%s: status %s, a summary stored as samples" % (where, run["status"]))
        expect("nvbench", stats.get("mean") == mean_s * 1e3 and stats.get("count") == int(value("nv/cold/sample_size"))
               and stats.get("rel_noise") == rel and stats.get("stdev") == rel * mean_s * 1e3,
               "%s: stats %s, the file: mean %r s, %s samples, noise %r" % (where, stats, mean_s, summ["nv/cold/sample_size"]["value"], rel))
        # nvbench 0.1.0 wrote no median: none is made up
        expect("nvbench", "median" not in stats and run["metrics"]["gbps"] is None, "%s: a median nvbench did not write" % where)
        if "nv/cold/bw/global/bytes_per_second" in summ:
            want = value("nv/cold/bw/global/bytes_per_second") * mean_s
            expect("nvbench", abs(run["metrics"]["bytes"] - want) <= 0.5, "%s: bytes %r, bandwidth x mean %r" % (where, run["metrics"]["bytes"], want))
        passed += 1
    print("ok: nvbench: %d states of %s on %s: %d cold means, sample counts, noise and devices as the file holds them, "
          "%d skipped with nvbench's reason" % (len(states), doc["meta"]["argv"][0],
                                               " and ".join(x["name"] for x in doc["devices"]), passed, skipped))
    # out through `solbook show`, and card against card through `solbook compare`
    rid = min(by_run)
    shown = show_doc(solbook, dbp, rid)
    stored = runs[[r for r, i in ids.items() if i == rid][0]]
    expect("nvbench", shown is not None and shown["timing"] == stored["timing"], "run %d: show prints another timing" % rid)
    cases = compare_cases(solbook, dbp, "nvbench", "sku=unknown-quadro-gv100", "sku=unknown-quadro-gp100")
    expect("nvbench", cases is not None and len(cases) == passed // 2, "compare: %s cases, want %d" % (cases and len(cases), passed // 2))
    for c in cases or []:
        (_, sa), (_, sb) = by_run[c["run_a"]], by_run[c["run_b"]]
        expect("nvbench", sa["device"] == 0 and sb["device"] == 1 and sa["name"][9:] == sb["name"][9:]
               and c["median_a_ms"] is None and c["verdict"] == "inconclusive",
               "compare case %s: runs %s / %s, median %r, %s" % (c["case_key"], sa["name"], sb["name"], c["median_a_ms"], c["verdict"]))
    print("ok: nvbench: solbook show prints run %d's stored timing; solbook compare pairs %d cases GV100 against GP100, "
          "each state with its twin, no median claimed from means" % (rid, len(cases or [])))


def check_liger_public(db, d, solbook, dbp):
    """Liger-Kernel's own benchmark/data/all_benchmark_data.csv (the README
    names the commit): every case's quantiles and memory against the file."""
    path = os.path.join(d, "liger_all_benchmark_data.csv")
    rows = list(csv.reader(open(path, newline="")))
    col = {h: i for i, h in enumerate(rows[0])}
    cases = {}
    for line, r in enumerate(rows[1:], start=2):
        key = tuple(r[col[k]] for k in ("kernel_name", "kernel_provider", "kernel_operation_mode", "x_value",
                                        "extra_benchmark_config_str", "gpu_name"))
        cases.setdefault(key, []).append((line, r))
    runs = runs_of_all(db, path)
    expect("liger", len(runs) == len(cases) == 1657, "%d runs, %d cases" % (len(runs), len(cases)))
    speed = memory = alone = 0
    by_run = {}
    for key, lines in cases.items():
        first = min(n for n, _ in lines)
        run = runs.get(first)
        if run is None:
            expect("liger", False, "%s: no run at line %d" % (key, first))
            continue
        rid, run = run
        by_run[rid] = lines
        r0 = lines[0][1]
        expect("liger", run["config"]["provider"] == key[1] and run["provenance"]["device"]["name"] == key[5]
               and run["provenance"]["tool"]["version"] == r0[col["liger_version"]],
               "line %d: provider %s, device %s" % (first, run["config"]["provider"], run["provenance"]["device"]["name"]))
        metrics = [r[col["metric_name"]] for _, r in lines]
        for line, r in lines:
            if r[col["metric_name"]] == "speed":
                stats = run["timing"]["stats"]
                for c, f in (("y_value_50", "median"), ("y_value_20", "p20"), ("y_value_80", "p80")):
                    want = float(r[col[c]]) if r[col[c]] else None
                    expect("liger", stats.get(f) == want, "line %d: %s %r, the file %r" % (line, f, stats.get(f), want))
                expect("liger", run["timing"]["quantiles_only"] is True and "samples" not in run["timing"], "line %d: samples" % line)
                speed += 1
            else:
                # Liger's MB is MiB: the exact byte count
                want = float(r[col["y_value_50"]]) * 1048576
                got = run.get("memory", {}).get("peak_device_bytes")
                expect("liger", got is not None and abs(got - want) <= 0.5, "line %d: %r bytes, the file %r MB" % (line, got, r[col["y_value_50"]]))
                memory += 1
        if "speed" not in metrics:
            expect("liger", run["status"] == "skipped" and "memory row but no speed row" in run["reason"], "line %d: %s" % (first, run["status"]))
            alone += 1
    print("ok: liger: %d cases of %d rows: %d speed rows' 20/50/80 %% quantiles and %d memory rows (MiB to bytes) as the file "
          "holds them, %d memory-only cases skipped" % (len(cases), len(rows) - 1, speed, memory, alone))
    rid = min(by_run)
    expect("liger", show_doc(solbook, dbp, rid)["timing"] == [v for i, v in runs.values() if i == rid][0]["timing"],
           "run %d: show prints another timing" % rid)
    got = compare_cases(solbook, dbp, "liger-bench", "sku=a100-sxm4-80gb", "sku=h100-sxm5-80gb")
    expect("liger", got, "compare A100 against H100: no case")
    for c in got or []:
        for side in ("a", "b"):
            want = [float(r[col["y_value_50"]]) for _, r in by_run[c["run_" + side]] if r[col["metric_name"]] == "speed"]
            expect("liger", len(want) == 1 and abs(c["median_%s_ms" % side] - want[0]) <= 1e-9 * want[0],
                   "compare case %s: median_%s %r, the file %r" % (c["case_key"], side, c["median_%s_ms" % side], want))
    print("ok: liger: solbook show prints run %d's stored timing; solbook compare A100 against H100: %d cases, both medians "
          "Liger's y_value_50" % (rid, len(got or [])))


NSYS_TIMES = [("Total Time (ns)", "total_ms"), ("Avg (ns)", "avg_ms"), ("Med (ns)", "med_ms"),
              ("Min (ns)", "min_ms"), ("Max (ns)", "max_ms"), ("StdDev (ns)", "stddev_ms")]


def check_nsys_public(db, d, solbook, dbp):
    """An nsys cuda_gpu_kern_sum CSV nsys wrote in another project's run
    (hal-lab-u-tokyo/PolyFHE, the README names the commit), attached to a
    stored run: every kernel row against the file, ns read exactly."""
    path = os.path.join(d, "nsys_kern_sum_polyfhe_phantom_L36.csv")
    rid = db.execute("SELECT min(id) FROM runs").fetchone()[0]
    p = subprocess.run([solbook, "ingest", "--db", dbp, "--nsys", path, "--run", str(rid)],
                       capture_output=True, text=True)
    expect("nsys", p.returncode == 0, "ingest --nsys: exit %d: %s" % (p.returncode, p.stderr.strip()))
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Time (%),"))
    rows = [r for r in csv.DictReader(lines[start:]) if r.get("Name")]
    db.row_factory = sqlite3.Row
    got = db.execute("SELECT * FROM kernel_summaries WHERE run_id = ? ORDER BY kernel_index", (rid,)).fetchall()
    db.row_factory = None
    expect("nsys", len(got) == len(rows), "%d kernel rows stored, the file has %d" % (len(got), len(rows)))
    for i, (row, k) in enumerate(zip(rows, got)):
        where = "kernel %d" % i
        expect("nsys", k["kernel_name"] == row["Name"], "%s: name %r" % (where, k["kernel_name"][:60]))
        expect("nsys", k["instances"] == int(row["Instances"]), "%s: instances %s" % (where, k["instances"]))
        expect("nsys", k["time_pct"] == float(row["Time (%)"]), "%s: share %s" % (where, k["time_pct"]))
        expect("nsys", k["tool"] == "nsys" and k["source_path"] == path, "%s: tool %s" % (where, k["tool"]))
        for col, field in NSYS_TIMES:
            want = float(decimal.Decimal(row[col]).scaleb(-6))
            expect("nsys", k[field] == want, "%s: %s %r, the file's %s ns is %r ms" % (where, field, k[field], row[col], want))
    print("ok: nsys: %s: %d kernels (nsys %s) attached to run %d, each row's name, share, launches and 6 times "
          "equal to the file's, ns / 10^6 exactly" % (os.path.basename(path), len(rows),
                                                     "2024.7.1" if "2024.7.1" in lines[1] else "?", rid))


def close(a, b):
    """Two figures computed in different order (the tool's sum, solbook's):
    equal to 1 part in 10^12."""
    return a is not None and b is not None and abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def fnv48(text):
    """sb_name_hash48 (core/file_name.c): 64-bit FNV-1a, low 48 bits."""
    h = 1469598103934665603
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 1099511628211) & 0xffffffffffffffff
    return h & 0xffffffffffff


def fitted(text, limit=256):
    """A params value as the importers keep one over 256 bytes: cut at a
    character's edge, the whole length and its hash after it."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    tail = " [cut: %d bytes, fnv %012x]" % (len(raw), fnv48(text))
    keep = limit - len(tail)
    while keep > 0 and (raw[keep] & 0xC0) == 0x80:
        keep -= 1
    return raw[:keep].decode("utf-8") + tail


def check_pytest_benchmark_public(db, d, solbook, dbp):
    """A pytest-benchmark file another project committed (zuka011/Trajax's
    .benchmarks/ baseline, the README names the commit): every benchmark's
    statistics, count, unit, parameters and provenance against the file."""
    path = os.path.join(d, "pytest_benchmark_trajax.json")
    doc, runs = json.load(open(path)), runs_of(db, path)
    benches = doc["benchmarks"]
    expect("pytest-benchmark-public", len(runs) == len(benches) == 2, "%d runs, %d benchmarks" % (len(runs), len(benches)))
    cut = 0
    for row, b in enumerate(benches):
        run, st = runs.get(row), b["stats"]
        if run is None:
            expect("pytest-benchmark-public", False, "%s: no run" % b["name"])
            continue
        t = run["timing"]
        expect("pytest-benchmark-public", run["status"] == "passed" and t["unit"] == "ms", "%s: %s, unit %s" % (b["name"], run["status"], t["unit"]))
        if "data" in st:
            got = [v for rep in t["samples"] for v in rep]
            expect("pytest-benchmark-public", got == [x * 1e3 for x in st["data"]], "%s: samples are not stats.data x 1e3" % b["name"])
        else:
            # the baseline was saved without --benchmark-save-data: the
            # summary is all there is, and no samples are made up
            stats = t["stats"]
            want = {"mean": st["mean"] * 1e3, "median": st["median"] * 1e3, "min": st["min"] * 1e3,
                    "max": st["max"] * 1e3, "stdev": st["stddev"] * 1e3, "count": st["rounds"],
                    "rel_noise": st["stddev"] / st["mean"]}
            for k, v in want.items():
                expect("pytest-benchmark-public", stats.get(k) == v, "%s: %s %r, the file %r" % (b["name"], k, stats.get(k), v))
            expect("pytest-benchmark-public", t["quantiles_only"] is True and "samples" not in t, "%s: samples without stats.data" % b["name"])
        cfg = run["config"]
        expect("pytest-benchmark-public", cfg["op"] == b["name"].split("[")[0] and cfg["params"].get("group") == b["group"],
               "%s: op %s, group %s" % (b["name"], cfg["op"], cfg["params"].get("group")))
        for k, v in b["params"].items():
            want = fitted(v) if isinstance(v, str) else v
            cut += want != v
            expect("pytest-benchmark-public", cfg["params"].get(k) == want, "%s: params.%s %r" % (b["name"], k, str(cfg["params"].get(k))[:80]))
        expect("pytest-benchmark-public", cfg["run_params"] == {"calls_per_sample": st["iterations"], "timer": b["options"]["timer"],
                                                                "disable_gc": b["options"]["disable_gc"]},
               "%s: run_params %s" % (b["name"], cfg["run_params"]))
        prov, ci, mi = run["provenance"], doc["commit_info"], doc["machine_info"]
        expect("pytest-benchmark-public", prov["git"] == {"sha": ci["id"], "dirty": ci["dirty"], "branch": ci["branch"]}
               and prov["tool"]["version"] == doc["version"] and prov["host"]["hostname"] == mi["node"]
               and prov["host"]["cpu"] == mi["cpu"]["brand_raw"] and prov["device"]["sm_count"] == mi["cpu"]["count"]
               and prov["host"]["os"] == "%s %s" % (mi["system"], mi["release"]),
               "%s: provenance %s" % (b["name"], prov))
    print("ok: pytest-benchmark (public): %s: %d benchmarks (%s), each one's mean, median, min, max, stddev and rounds x 1e3 "
          "as the file holds them, unit ms, no samples made up; params, %d of them cut at 256 bytes with their hash; commit, "
          "host and version" % (os.path.basename(path), len(benches), doc["commit_info"]["project"], cut))
    rid = db.execute("SELECT id FROM runs WHERE source_path = ?", (path + ":0",)).fetchone()[0]
    expect("pytest-benchmark-public", show_doc(solbook, dbp, rid)["timing"] == runs[0]["timing"], "run %d: show prints another timing" % rid)


def check_hyperfine_public(db, d, solbook, dbp):
    """A hyperfine --export-json file another project committed
    (three-em/3em's tools/benchmarks/results.json): every command's times,
    statistics, user and system time and exit codes against the file."""
    path = os.path.join(d, "hyperfine_3em_results.json")
    doc, runs = json.load(open(path)), runs_of(db, path)
    res = doc["results"]
    expect("hyperfine-public", len(runs) == len(res) == 5, "%d runs, %d results" % (len(runs), len(res)))
    samples = 0
    for row, r in enumerate(res):
        run = runs.get(row)
        if run is None:
            expect("hyperfine-public", False, "%s: no run" % r["command"])
            continue
        t, stats = run["timing"], run["timing"]["stats"]
        got = [v for rep in t["samples"] for v in rep]
        expect("hyperfine-public", t["unit"] == "ms" and got == [x * 1e3 for x in r["times"]], "%s: samples are not times x 1e3" % r["command"])
        samples += len(got)
        expect("hyperfine-public", stats["count"] == len(r["times"]) and stats["min"] == r["min"] * 1e3 and stats["max"] == r["max"] * 1e3,
               "%s: count %s, min %r, max %r" % (r["command"], stats["count"], stats["min"], stats["max"]))
        for k, f in (("mean", "mean"), ("median", "median"), ("stdev", "stddev")):
            expect("hyperfine-public", close(stats[k], r[f] * 1e3), "%s: %s %r, hyperfine's %r" % (r["command"], k, stats[k], r[f] * 1e3))
        rp = run["config"]["run_params"]
        codes = set(r["exit_codes"])
        expect("hyperfine-public", rp.get("user_ms") == r["user"] * 1e3 and rp.get("system_ms") == r["system"] * 1e3
               and len(codes) == 1 and rp.get("exit_code") == codes.pop(),
               "%s: run_params %s" % (r["command"], rp))
        expect("hyperfine-public", run["status"] == "passed" and run["notes"].startswith('hyperfine command "%s"' % r["command"]),
               "%s: %s, notes %s" % (r["command"], run["status"], run["notes"][:80]))
    print("ok: hyperfine (public): %s: %d commands, %d times x 1e3 exactly, min and max exactly, mean, median and stddev "
          "to 1e-12 of hyperfine's, user and system time, exit codes" % (os.path.basename(path), len(res), samples))
    rid = db.execute("SELECT id FROM runs WHERE source_path = ?", (path + ":0",)).fetchone()[0]
    expect("hyperfine-public", show_doc(solbook, dbp, rid)["timing"] == runs[0]["timing"], "run %d: show prints another timing" % rid)


ASV_PUBLIC = os.path.join("asv_versioned_hdf5", "results", "cirun-quansight--versioned-hdf5-benchmarks-08e7541",
                          "66de42fa-virtualenv-py3.11.json")


def check_asv_public(db, d, solbook, dbp):
    """asv results versioned-hdf5's benchmark runs committed
    (Quansight/versioned-hdf5-benchmarks, the README names the commit), with
    the machine.json beside them and the benchmarks.json above: every
    combination of every benchmark, its samples or its failure, against
    the file."""
    path = os.path.join(d, ASV_PUBLIC)
    doc, runs = json.load(open(path)), runs_of(db, path)
    machine = json.load(open(os.path.join(os.path.dirname(path), "machine.json")))
    names = json.load(open(os.path.join(d, "asv_versioned_hdf5", "results", "benchmarks.json")))
    col = {c: i for i, c in enumerate(doc["result_columns"])}
    by_note = {}
    for run in runs.values():
        m = re.match(r'asv benchmark "([^"]+)", parameter combination (\d+) of (\d+)', run["notes"])
        by_note[(m.group(1), int(m.group(2)) - 1)] = run
    combos = timed = failed = 0
    for name, entry in doc["results"].items():
        get = lambda c: entry[col[c]] if col[c] < len(entry) else None
        params = get("params")
        product = [[]]
        for values in params:
            product = [p + [v] for p in product for v in values]
        for c, values in enumerate(product):
            combos += 1
            run = by_note.get((name, c))
            where = "%s combination %d" % (name, c + 1)
            if run is None:
                expect("asv-public", False, "%s: no run" % where)
                continue
            given = dict(zip(names[name]["param_names"], values))
            expect("asv-public", all(run["config"]["shape"].get(k) == int(v) for k, v in given.items()),
                   "%s: shape %s, asv's %s" % (where, run["config"]["shape"], given))
            expect("asv-public", run["config"]["run_params"].get("benchmark_version") == get("version")
                   and run["config"]["run_params"].get("env") == doc["env_name"]
                   and run["provenance"]["git"]["sha"] == doc["commit_hash"]
                   and run["provenance"]["host"] == {"hostname": machine["machine"], "os": machine["os"], "cpu": machine["cpu"]}
                   and run["provenance"]["device"]["sm_count"] == int(machine["num_cpu"]),
                   "%s: version, env, commit or host %s" % (where, run["provenance"]["host"]))
            result = get("result")
            if result is None or result[c] is None:
                # asv wrote null: the benchmark failed for this combination
                expect("asv-public", run["status"] == "skipped" and "timing" not in run
                       and run["reason"] == "imported: asv recorded no result for this parameter combination",
                       "%s: null result stored as %s" % (where, run["status"]))
                failed += 1
                continue
            t, stats = run["timing"], run["timing"]["stats"]
            smp = get("samples")[c]
            got = [v for rep in t["samples"] for v in rep]
            expect("asv-public", run["status"] == "passed" and t["unit"] == "ms" and got == [x * 1e3 for x in smp],
                   "%s: samples are not asv's x 1e3" % where)
            # asv's result is the median of these samples, which solbook
            # computes again
            expect("asv-public", stats["count"] == len(smp) == get("stats_repeat")[c] and close(stats["median"], result[c] * 1e3)
                   and stats["min"] == min(smp) * 1e3 and stats["max"] == max(smp) * 1e3,
                   "%s: count %s, median %r, asv's %r" % (where, stats["count"], stats["median"], result[c] * 1e3))
            expect("asv-public", run["config"]["run_params"].get("calls_per_sample") == get("stats_number")[c],
                   "%s: calls_per_sample %s" % (where, run["config"]["run_params"].get("calls_per_sample")))
            timed += 1
    expect("asv-public", len(runs) == combos == 24, "%d runs, %d combinations" % (len(runs), combos))
    print("ok: asv (public): %s: %d benchmarks, %d combinations: %d timed, each one's samples x 1e3 exactly, repeat count, "
          "min and max, median to 1e-12 of asv's result; %d that asv wrote null (failed) stored skipped; parameter "
          "names from benchmarks.json, host from machine.json" % (os.path.basename(path), len(doc["results"]), combos, timed, failed))


# file name in DIR3 -> its check
PUBLIC = {"nvbench_axes_quadro.json": check_nvbench_public, "liger_all_benchmark_data.csv": check_liger_public,
          "nsys_kern_sum_polyfhe_phantom_L36.csv": check_nsys_public,
          "pytest_benchmark_trajax.json": check_pytest_benchmark_public,
          "hyperfine_3em_results.json": check_hyperfine_public, ASV_PUBLIC: check_asv_public}


# the DIR3 files ingest reads itself; the nsys summary attaches to a run
INGESTED = ("nvbench_axes_quadro.json", "liger_all_benchmark_data.csv", "pytest_benchmark_trajax.json",
            "hyperfine_3em_results.json", ASV_PUBLIC)


def main():
    solbook, d, d2 = sys.argv[1], sys.argv[2], sys.argv[3]
    # the files other projects published, where the checkout has them
    d3 = sys.argv[4] if len(sys.argv) > 4 else None
    public = [n for n in PUBLIC if d3 and os.path.isfile(os.path.join(d3, n))]
    for n in sorted(set(PUBLIC) - set(public)):
        print("skip: %s: not in %s (tests/data/import/heldout/README says where it comes from)" % (n, d3))
    files = [os.path.join(d, f) for f in ("hyperfine.json", "gbench.json", "pytest_benchmark.json")]
    mdir = os.path.join(d, "asv", "results", "heldout")
    files += [os.path.join(mdir, n) for n in sorted(os.listdir(mdir)) if n != "machine.json"]
    files.append(os.path.join(d2, "torch_benchmark.json"))
    files.append(os.path.join(d2, "torch_benchmark_cuda.json"))
    files += [os.path.join(d3, n) for n in public if n in INGESTED]
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
        checks = [(check_hyperfine, (d,)), (check_gbench, (d,)), (check_pytest_benchmark, (d,)),
                  (check_asv, (d,)), (check_triton, (d2, solbook, dbp)), (check_torch, (d2,)),
                  (check_torch_cuda, (d2,))]
        checks += [(PUBLIC[n], (d3, solbook, dbp)) for n in public]
        for check, args in checks:
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

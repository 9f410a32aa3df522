#!/usr/bin/env python3
"""e2e_tools_real.py TOOL SOLBOOK SOURCE_DIR - runs a benchmark tool for real
(pytest-benchmark, hyperfine, asv, or the torch.utils.benchmark shim) twice,
as two commits, imports both outputs with `solbook ingest --format auto`,
and checks: every sample back out of `solbook show --json` equal to the
tool's own (seconds x 1e3), one median against the tool's own print,
`solbook compare` of the two commits on every case with the medians of the
tool's samples, the notes saying what the format lacks, a re-import storing
nothing, and a damaged copy refused with one line naming file and place.
Exit 77 (skipped) when the tool cannot be found."""
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

TOOL, SOLBOOK, SRC = sys.argv[1], sys.argv[2], sys.argv[3]
os.environ["SOLBOOK_HOME"] = SRC
T = tempfile.mkdtemp(prefix="sb_tools_%s_" % TOOL)
DB = os.path.join(T, "t.db")
SHA = []
ASV_VALUES = []


def ok(msg):
    print("ok: %s: %s" % (TOOL, msg))


def fail(msg):
    print("FAIL: %s: %s" % (TOOL, msg))
    shutil.rmtree(T, ignore_errors=True)
    sys.exit(1)


def skip(msg):
    print("skipped: %s" % msg)
    shutil.rmtree(T, ignore_errors=True)
    sys.exit(77)


def run(cmd, cwd=None, want=0):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode != want:
        fail("%s: exit %d, expected %d\n%s%s" % (" ".join(cmd), p.returncode, want, p.stdout, p.stderr))
    return p


def git_repo(path):
    os.makedirs(path, exist_ok=True)
    for c in (["git", "init", "-q"], ["git", "config", "user.email", "t@example.org"],
              ["git", "config", "user.name", "t"]):
        run(c, cwd=path)


def commit(path, msg):
    run(["git", "add", "-A"], cwd=path)
    run(["git", "commit", "-q", "--allow-empty", "-m", msg], cwd=path)
    return run(["git", "rev-parse", "HEAD"], cwd=path).stdout.strip()


# ---- the tools: each returns [(file, commit, {case name: [seconds...]})], and a printed check


def make_pytest_benchmark():
    py = "/usr/bin/python3"
    if subprocess.run([py, "-c", "import pytest_benchmark"], capture_output=True).returncode != 0:
        skip("pytest-benchmark is not installed for /usr/bin/python3 (scripts/install_deps.sh installs it)")
    repo = os.path.join(T, "pb")
    git_repo(repo)
    with open(os.path.join(repo, "test_tiny.py"), "w") as f:
        f.write("import pytest\n\n@pytest.mark.parametrize('n', [100, 1000])\n"
                "def test_sum(benchmark, n):\n    benchmark(sum, range(n))\n")
    out = []
    for k in range(2):
        sha = commit(repo, "c%d" % k)
        path = os.path.join(T, "pb%d.json" % k)
        p = run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--benchmark-json=" + path,
                 "--benchmark-save-data", "--benchmark-min-rounds=20", "--benchmark-max-time=0.05",
                 "--benchmark-columns=median", "test_tiny.py"], cwd=repo)
        doc = json.load(open(path))
        out.append((path, sha, {b["name"]: b["stats"]["data"] for b in doc["benchmarks"]}, p.stdout))
    # the tool's print: "test_sum[100]   385.5500 (1.0)" under "(time in ns)"
    table = out[0][3]
    unit = re.search(r"\(time in (\w+)\)", table).group(1)
    scale = {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}[unit]
    printed = float(re.search(r"test_sum\[100\]\s+([\d,.]+)", table).group(1).replace(",", ""))
    return out, ("test_sum[100]", printed, scale, 4)


def make_hyperfine():
    hf = shutil.which("hyperfine")
    if not hf:
        skip("hyperfine not found (scripts/install_deps.sh installs it)")
    out = []
    for k in range(2):
        path = os.path.join(T, "hf%d.json" % k)
        p = run([hf, "-N", "--runs", "7", "--warmup", "1", "-P", "n", "1", "2", "--export-json", path,
                 "sleep 0.00{n}", "--style", "basic"])
        doc = json.load(open(path))
        out.append((path, ("a1", "b2")[k] * 20, {r["command"]: r["times"] for r in doc["results"]}, p.stdout))
    # "Time (mean ± σ):      1.2 ms ±   0.1 ms": the mean of the first command
    m = re.search(r"Time \(mean ± σ\):\s+([\d.]+) (\w+)", out[0][3])
    scale = {"s": 1e3, "ms": 1.0, "µs": 1e-3}[m.group(2)]
    return out, ("sleep 0.001", float(m.group(1)), scale, 1, "mean")


def make_asv():
    asv = os.path.join(SRC, ".venv-import", "bin", "asv")
    if not os.access(asv, os.X_OK):
        asv = shutil.which("asv")
    if not asv:
        skip("asv not found (scripts/install_import_deps.sh installs it into .venv-import/)")
    repo = os.path.join(T, "asvp")
    git_repo(repo)
    os.makedirs(os.path.join(repo, "benchmarks"))
    open(os.path.join(repo, "benchmarks", "__init__.py"), "w").close()
    with open(os.path.join(repo, "asv.conf.json"), "w") as f:
        json.dump({"version": 1, "project": "tiny", "repo": ".", "branches": ["HEAD"],
                   "environment_type": "existing", "benchmark_dir": "benchmarks",
                   "results_dir": ".asv/results", "html_dir": ".asv/html", "env_dir": ".asv/env"}, f)
    with open(os.path.join(repo, "benchmarks", "bench_sum.py"), "w") as f:
        f.write("class TimeSum:\n    params = ([100, 1000], ['list', 'tuple'])\n"
                "    param_names = ['n', 'kind']\n    rounds = 1\n    repeat = 7\n    number = 10\n"
                "    warmup_time = 0\n    def setup(self, n, kind):\n"
                "        self.data = list(range(n)) if kind == 'list' else tuple(range(n))\n"
                "    def time_sum(self, n, kind):\n        sum(self.data)\n\n"
                "def track_answer():\n    return 42\n\n"
                "track_answer.unit = 'answers'\n\n"
                "class MemList:\n    params = [10, 1000]\n    param_names = ['n']\n"
                "    def mem_list(self, n):\n        return [0] * n\n\n"
                "def peakmem_bytearray():\n    bytearray(32 << 20)\n")
    env = dict(os.environ, HOME=T)
    out = []
    for k in range(2):
        sha = commit(repo, "c%d" % k)
        p = subprocess.run([asv, "machine", "--yes", "--machine", "tinyhost"], cwd=repo, capture_output=True, env=env)
        p = subprocess.run([asv, "run", "--python=same", "--record-samples", "--machine", "tinyhost",
                            "--set-commit-hash", sha], cwd=repo, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            fail("asv run: %s%s" % (p.stdout, p.stderr))
        d = os.path.join(repo, ".asv", "results", "tinyhost")
        path = [os.path.join(d, n) for n in os.listdir(d) if n.startswith(sha[:8])][0]
        doc = json.load(open(path))
        col = doc["result_columns"]
        e = doc["results"]["bench_sum.TimeSum.time_sum"]
        samples = e[col.index("samples")]
        names = ["n=%s %s" % (a, b) for a in e[1][0] for b in e[1][1]]
        out.append((path, sha, dict(zip(names, samples)), None))
        # track_, mem_ and peakmem_ results as asv wrote them, for check_asv_values
        ASV_VALUES.append({k.rsplit(".", 1)[1]: (v[col.index("params")], v[col.index("result")])
                           for k, v in doc["results"].items() if k.rsplit(".", 1)[1].split("_")[0] != "time"})
    shown = run([asv, "show", out[0][1][:8], "--machine", "tinyhost"], cwd=repo).stdout
    # the table row " 100      677±10ns    1.16±0.03μs": n=100, kind='list'
    m = re.search(r"^\s*100\s+([\d.]+)±[\d.]+(\w+)", shown, re.M)
    scale = {"s": 1e3, "ms": 1.0, "μs": 1e-3, "us": 1e-3, "ns": 1e-6}[m.group(2)]
    return out, ("n=100 'list'", float(m.group(1)), scale, 3, "sig")


def make_torch():
    py = os.path.join(SRC, ".venv-train", "bin", "python3")
    if not os.access(py, os.X_OK):
        py = sys.executable
    if subprocess.run([py, "-c", "import torch"], capture_output=True).returncode != 0:
        skip("torch not found (.venv-train/ from scripts/install_train_deps.sh, or the python running this)")
    out = []
    for k in range(2):
        path = os.path.join(T, "torch%d.json" % k)
        run([py, os.path.join(SRC, "bench", "scripts", "torch_benchmark_dump.py"), path])
        doc = json.load(open(path))
        out.append((path, ("c3", "d4")[k] * 20, {"M=%d" % m["shape"]["M"]: [t / m["number_per_run"] for t in m["raw_times"]]
                                                for m in doc["measurements"]}, None))
    return out, None


def check_asv_values(first_file, rows):
    """asv's track_, mem_ and peakmem_ results are values with a unit, not
    times: each combination is a run without timing holding asv's number."""
    want = {("track_answer", None): (ASV_VALUES[0]["track_answer"][1][0], "answers", "track"),
            ("peakmem_bytearray", None): (ASV_VALUES[0]["peakmem_bytearray"][1][0], "bytes", "peakmemory")}
    params, result = ASV_VALUES[0]["mem_list"]
    for n, v in zip(params[0], result):
        want[("mem_list", int(n))] = (v, "bytes", "memory")
    seen = {}
    for rid, src in rows:
        if not src.startswith(first_file):
            continue
        doc = json.loads(run([SOLBOOK, "show", "--db", DB, "--json", str(rid)]).stdout)["document"]
        op = doc["config"]["op"].rsplit(".", 1)[-1]
        if not op.startswith(("track_", "mem_", "peakmem_")):
            continue
        if doc["status"] != "skipped" or "timing" in doc or "metrics" in doc:
            fail("run %d (%s): stored as a timing: status %s" % (rid, op, doc["status"]))
        rp = doc["config"]["run_params"]
        key = (op, doc["config"]["shape"].get("n"))
        value, unit, kind = want.get(key, (None, None, None))
        if rp.get("value") != value or rp.get("value_unit") != unit or rp.get("asv_type") != kind:
            fail("run %d %s: value %r %r (%r), asv wrote %r %r (%r)" % (rid, key, rp.get("value"), rp.get("value_unit"),
                                                                     rp.get("asv_type"), value, unit, kind))
        if "not a time" not in doc["reason"] or "%d" % value not in doc["reason"] or unit not in doc["reason"]:
            fail("run %d %s: reason does not say what the value is: %s" % (rid, key, doc["reason"]))
        if kind == "peakmemory":
            if doc.get("memory", {}).get("peak_absolute_bytes") != value or value < (32 << 20):
                fail("run %d: peak memory %r, asv wrote %r (a 32 MiB bytearray was made)" % (rid, doc.get("memory"), value))
        seen[key] = value
    if set(seen) != set(want):
        fail("value runs %s, expected %s" % (sorted(map(str, seen)), sorted(map(str, want))))
    ok("%d track_/mem_/peakmem_ results stored as values with their unit, not times: %s" %
       (len(seen), ", ".join("%s%s=%g %s" % (k[0], "" if k[1] is None else "[n=%d]" % k[1], v, want[k][1])
                             for k, v in sorted(seen.items(), key=str))))



def main():
    out, printed = {"pytest-benchmark": make_pytest_benchmark, "hyperfine": make_hyperfine, "asv": make_asv,
                    "torch": make_torch}[TOOL]()
    for path, sha, _, _ in out:
        run([SOLBOOK, "ingest", "--db", DB, "--format", "auto", "--commit", sha, path])
    db = sqlite3.connect(DB)
    rows = db.execute("SELECT id, source_path FROM runs ORDER BY id").fetchall()
    want_runs = sum(len(c) for _, _, c, _ in out)
    passed = db.execute("SELECT COUNT(*) FROM runs WHERE status = 'passed'").fetchone()[0]
    if passed != want_runs:
        fail("%d passed runs stored, expected %d" % (passed, want_runs))
    ok("%d runs from two real runs of the tool" % passed)
    # every sample back out through `solbook show --json`, exactly
    checked = 0
    asv_named = 0
    medians = {}
    for rid, src in rows:
        doc = json.loads(run([SOLBOOK, "show", "--db", DB, "--json", str(rid)]).stdout)["document"]
        if doc["status"] != "passed":
            continue
        file_i = [i for i, o in enumerate(out) if src.startswith(o[0])][0]
        got = [v for rep in doc["timing"]["samples"] for v in rep]
        notes = doc.get("notes", "")
        match = [n for n, s in out[file_i][2].items() if [x * 1e3 for x in s] == got]
        if not match:
            fail("run %d: its samples are not any case's samples x 1e3 (%s...)" % (rid, got[:3]))
        medians[(file_i, match[0])] = doc["timing"]["stats"]["median"]
        if TOOL == "asv":
            # param_names ['n', 'kind'] from benchmarks.json, not param1/param2
            n, kind = match[0][2:].split(" ")
            cfg = doc["config"]
            if cfg["shape"] != {"n": int(n)} or cfg["params"] != {"kind": kind.strip("'")}:
                fail("run %d: case %s stored as shape %s params %s, expected {n: %s} {kind: %s}"
                     % (rid, match[0], cfg["shape"], cfg["params"], n, kind))
            asv_named += 1
        if not re.search(r"records no|not any GPU|not the GPU|no GPU", notes):
            fail("run %d: notes do not say what the format lacks: %s" % (rid, notes))
        checked += 1
    ok("%d runs: every sample equals the tool's (seconds x 1e3) through solbook show; notes say what is missing"
       % checked)
    if TOOL == "asv":
        check_asv_values(out[0][0], rows)
    if TOOL == "asv":
        if asv_named != checked:
            fail("%d of %d runs checked for parameter names" % (asv_named, checked))
        ok("%d runs keyed by asv's param_names: shape n, params kind" % asv_named)
    # one value against the tool's own print
    if printed:
        name, value, scale = printed[0], printed[1], printed[2]
        key = [k for k in medians if k[0] == 0 and k[1].replace("'", "") == name.replace("'", "")][0]
        stat = "median"
        if len(printed) > 4 and printed[4] == "mean":
            stat = "mean"
            rid = rows[0][0]
            ours = json.loads(run([SOLBOOK, "show", "--db", DB, "--json", str(rid)]).stdout)["document"]["timing"]["stats"]["mean"]
        else:
            ours = medians[key]
        mine = ours / scale
        if len(printed) > 4 and printed[4] == "sig":
            same = float("%.*g" % (printed[3], mine)) == value
        else:
            same = round(mine, printed[3]) == round(value, printed[3])
        if not same:
            fail("%s %s: the tool prints %s, solbook has %r" % (name, stat, value, mine))
        ok("%s %s %s as the tool prints it" % (name, stat, value))
    # solbook compare of the two commits: every case, both medians those of the samples
    p = subprocess.run([SOLBOOK, "compare", "--db", DB, out[0][1][:12], out[1][1][:12], "--format", "json"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        fail("compare: exit %d: %s" % (p.returncode, p.stderr))
    cmp = json.loads(p.stdout)
    cases = cmp["cases"]
    if len(cases) != len(out[0][2]):
        fail("compare has %d cases, expected %d" % (len(cases), len(out[0][2])))
    for c in cases:
        for side, i in (("a", 0), ("b", 1)):
            n = c["samples_" + side]
            if not any(len(s) == n and abs(statistics.median(s) * 1e3 - c["median_%s_ms" % side]) <= 1e-6 * c["median_%s_ms" % side] + 1e-9
                       for s in out[i][2].values()):
                fail("compare case %s: median_%s %r is no case's median of %d samples" % (c["case_key"], side, c["median_%s_ms" % side], n))
    ok("solbook compare: %d cases, both medians those of the tool's samples" % len(cases))
    # a re-import stores nothing
    p = run([SOLBOOK, "ingest", "--db", DB, "--format", "auto", "--commit", out[0][1], out[0][0]])
    if "0 stored" not in p.stdout:
        fail("re-import stored something: %s" % p.stdout)
    ok("re-import: 0 stored")
    # a damaged copy: one line naming the file and the place
    bad = os.path.join(T, "bad.json")
    text = open(out[0][0]).read()
    with open(bad, "w") as f:
        f.write(text[: len(text) // 2])
    p = run([SOLBOOK, "ingest", "--db", DB, "--format", "auto", bad], want=1)
    err = p.stderr.strip()
    if "\n" in err or bad not in err or not re.search(r"line \d+", err):
        fail("truncated copy: %r" % err)
    ok("truncated copy refused in one line naming file and line: %s" % err)
    shutil.rmtree(T, ignore_errors=True)
    print("e2e_tools_real %s: all checks passed" % TOOL)


main()

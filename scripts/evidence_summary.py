#!/usr/bin/env python3
"""evidence_summary.py - the Nsight Compute profiles of the cases where the
targets fall short (bench/scripts/ncu_cases.sh, kept as archives under
examples/<arch>/shortfalls-ncu/): profiles, not timings, so they are not in
the database. Prints Markdown; scripts/main.sh writes it to
out/NCU_SHORTFALLS.md. Every timed figure (GEMM, ceilings, speedups,
memory) is in EVIDENCE.md beside it, written from the database by
`solbook report evidence`."""
import glob
import json
import math
import os
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


# ncu's units, as its raw page writes them (it picks one per metric and
# export: "usecond" or "ms", say), to us and MB
NCU_UNITS = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,
             "second": 1e6, "s": 1e6, "byte": 1e-6, "Kbyte": 1e-3, "Mbyte": 1.0, "Gbyte": 1e3,
             "Tbyte": 1e6}


def ncu_rows(text):
    """The launches of an `ncu --csv --page raw` export: one dict a kernel,
    metric -> value, times in us and DRAM bytes in MB whatever unit the
    export chose, plus the kernel's name and its top two stall reasons."""
    import csv
    import io
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 3:
        return []
    hdr, units = rows[0], rows[1]
    out = []
    for r in rows[2:]:
        k = {"name": r[hdr.index("Kernel Name")]}
        for i, h in enumerate(hdr):
            try:
                k[h] = float(r[i].replace(",", "")) * NCU_UNITS.get(units[i], 1.0)
            except (ValueError, IndexError):
                pass
        pre, post = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
        st = sorted(((h[len(pre):-len(post)], v) for h, v in k.items()
                     if isinstance(h, str) and h.startswith(pre) and h.endswith(post)), key=lambda t: -t[1])
        k["stalls"] = ", ".join("%s %.1f" % t for t in st[:2]) or "-"
        out.append(k)
    return out


def kernel_short(name):
    """A kernel's name without its namespace, template arguments and
    parameters (`rmsnorm_fwd_k`, `triton_red_fused_...`)."""
    n = name.replace("void ", "").replace("<unnamed>::", "")
    for c in "<(":
        n = n.split(c)[0]
    return n if len(n) <= 44 else n[:41] + "..."


def ncu_profile_sets(arch):
    """The profile sets of bench/scripts/ncu_cases.sh kept under
    examples/<arch>/shortfalls-ncu/*.tar.gz: {case: {"fused": [kernels],
    "torch-compile": [kernels], "result": fused result}} and the commits
    and cards they were taken on."""
    import tarfile
    cases, runs = {}, set()
    for t in sorted(glob.glob(os.path.join(TOP, "examples", arch, "shortfalls-ncu", "*.tar.gz"))):
        with tarfile.open(t) as tf:
            for m in tf.getmembers():
                if not m.isfile():
                    continue
                base = os.path.basename(m.name)
                text = tf.extractfile(m).read().decode()
                if base.endswith(".torch-compile.ncu.csv"):
                    cases.setdefault(base[:-len(".torch-compile.ncu.csv")], {})["torch-compile"] = ncu_rows(text)
                elif base.endswith(".ncu.csv"):
                    cases.setdefault(base[:-len(".ncu.csv")], {})["fused"] = ncu_rows(text)
                elif base.endswith(".json") and "/torch/" not in m.name:
                    d = json.loads(text)
                    if d.get("schema") == "solbook.result.v1":
                        cases.setdefault(base[:-len(".json")], {})["result"] = d
                        p = d["provenance"]
                        runs.add("%s on %s (%s)" % (p["git"]["sha"][:7], p["device"].get("uuid", "?")[:12],
                                                    os.path.relpath(t, TOP)))
    return cases, runs


def shortfalls_ncu_section(arch, w):
    """Where the targets fall short, under Nsight Compute: the fused kernels
    of one call, torch.compile's kernels of the same case and the STREAM
    copy of about the same bytes, each case's time set against what the
    copy needs for the same model bytes at its profiled rate."""
    sets, runs = ncu_profile_sets(arch)
    if not sets:
        return

    def dram(ks):
        return sum(k.get("dram__bytes_read.sum", 0) + k.get("dram__bytes_write.sum", 0) for k in ks)

    def us(ks):
        return sum(k.get("gpu__time_duration.sum", 0) for k in ks)
    def model_mb(d):
        return d["metrics"]["bytes"] / 1e6
    # the STREAM copy profiles: model MB over profiled us each, looked up by
    # the nearest size. Model bytes, not ncu's DRAM bytes: a kernel of under
    # L2's size ends with part of its writes still in L2, and a looped
    # kernel may read its input twice from DRAM (the DRAM MB columns show it)
    copies = sorted((model_mb(v["result"]), model_mb(v["result"]) / us(v["fused"])) for n, v in sets.items()
                    if v.get("result", {}).get("config", {}).get("op") == "stream" and v.get("fused"))

    def copy_rate(mb):
        return min(copies, key=lambda c: abs(math.log(c[0] / mb)))[1] if copies and mb > 0 else None

    w("Nsight Compute where the targets fall short (`bench/scripts/ncu_cases.sh`, the case lists "
      "`bench/scripts/ncu_cases_*.txt`; %s): the fused provider's kernels of one call, torch.compile's Triton "
      "kernels of one call of the same case after its compile and warm-up, and the STREAM copy "
      "(solbook-stream-flat1) of about the same bytes, each in its own process, caches flushed before each "
      "replayed kernel and clocks as found. \"x copy\" is the call's kernel time over the time the profiled "
      "STREAM copy of the nearest size takes for the case's model bytes at its rate: 1.00 is the copy's rate, "
      "under 1.00 faster than it. DRAM MB is what ncu counted (read + written): under the model's bytes where "
      "writes were still in L2 when a kernel ended, over them where a kernel read its input twice from DRAM. "
      "The timed figures of the same cases are in EVIDENCE.md (`solbook report evidence`).\n" %
      "; ".join(sorted(runs)))
    w("| case | model MB | fused us | fused DRAM MB "
      "| fused x copy | torch.compile us | torch.compile DRAM MB | torch.compile x copy |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in sorted(sets):
        v = sets[name]
        d, f, t = v.get("result"), v.get("fused") or [], v.get("torch-compile") or []
        if not d or d["config"]["op"] == "stream" or not f:
            continue
        cells, rate = [], copy_rate(model_mb(d))
        for ks in (f, t):
            cells.append("%.1f | %.0f | %s" % (us(ks), dram(ks), "%.3f" % (us(ks) * rate / model_mb(d))
                                                if rate else "-") if ks else "- | - | -")
        w("| %s | %.0f | %s | %s |" % (name, model_mb(d), cells[0], cells[1]))
    w("")
    w("| case | provider | kernel | us | DRAM % of peak | DRAM MB read / written | grid x block | regs "
      "| warps active % | issue active % | top stalls (warps per issued instruction) |")
    w("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for name in sorted(sets):
        v = sets[name]
        prov = v.get("result", {}).get("config", {}).get("provider", "fused")
        for label, ks in ((prov, v.get("fused") or []), ("torch-compile", v.get("torch-compile") or [])):
            for k in ks:
                g = lambda m, f="%.1f": f % k[m] if m in k else "-"
                w("| %s | %s | `%s` | %s | %s | %s / %s | %s x %s | %s | %s | %s | %s |" % (
                    name, label, kernel_short(k["name"]), g("gpu__time_duration.sum"),
                    g("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"), g("dram__bytes_read.sum", "%.0f"),
                    g("dram__bytes_write.sum", "%.0f"), g("launch__grid_size", "%.0f"),
                    g("launch__block_size", "%.0f"), g("launch__registers_per_thread", "%.0f"),
                    g("sm__warps_active.avg.pct_of_peak_sustained_active"),
                    g("smsp__issue_active.avg.pct_of_peak_sustained_active"), k["stalls"]))
    w("")


def main():
    lines = []
    w = lines.append
    w("# Nsight Compute where the targets fall short\n")
    w("Generated by `scripts/evidence_summary.py` from the profile archives in "
      "`examples/<arch>/shortfalls-ncu/` (profiles of lent H100 SXM5 and H200 SXM cards; not timings, so "
      "not in the database). The timed figures are in EVIDENCE.md.\n")
    for arch in ("h100", "h200"):
        w("## %s\n" % arch.upper())
        shortfalls_ncu_section(arch, w)
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

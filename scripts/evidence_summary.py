#!/usr/bin/env python3
"""evidence_summary.py - the issues' targets, checked against the results in
examples/ (real runs on lent cards). Prints Markdown; docs/EVIDENCE.md is its
output, regenerated with:  python3 scripts/evidence_summary.py > docs/EVIDENCE.md
Every figure is computed from the stored JSON files; none is typed in."""
import glob
import json
import math
import os
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def load(pattern):
    out = []
    for f in sorted(glob.glob(os.path.join(TOP, pattern), recursive=True)):
        try:
            d = json.load(open(f))
        except (OSError, ValueError):
            continue
        if d.get("schema") == "solbook.result.v1":
            d["_file"] = os.path.relpath(f, TOP)
            out.append(d)
    return out


def med(d):
    return d["timing"]["stats"]["median"]


def key(d):
    c = d["config"]
    return (c["suite"], c["op"], c["mode"], c["dtype"], tuple(sorted(c["shape"].items())),
            json.dumps(c.get("params", {}), sort_keys=True))


def shape_s(d):
    s = ",".join("%s=%d" % kv for kv in sorted(d["config"]["shape"].items()))
    p = d["config"].get("params", {})
    # the params that tell two cases of one shape apart
    defaults = {"weight_dtype": "same", "transa": "n", "transb": "n", "accum": "fp32"}
    extra = ["%s=%s" % (k, p[k]) for k in defaults if k in p and p[k] != defaults[k]]
    return s + (" " + " ".join(extra) if extra else "")


def pct(x):
    return "%.1f%%" % (100 * x)


def card(arch):
    p = glob.glob(os.path.join(TOP, "examples", arch, "gemm", "spec", "*cublas.json"))
    prov = json.load(open(p[0]))["provenance"] if p else {}
    dev, sw = prov.get("device", {}), prov.get("software", {})
    return "%s (%s, driver %s, CUDA %s, cuBLAS %s)" % (dev.get("name"), dev.get("sku"), sw.get("driver_version"),
                                                      sw.get("cuda_runtime_version"), sw.get("cublas_version"))


def settle_trials(arch, w):
    """The spec's case and protocol run again with several settle lengths
    (examples/<arch>/gemm-settle/, cuBLAS): does a longer settle steady the
    repeat medians on a power-capped card?"""
    runs = sorted(load("examples/%s/gemm-settle/*.json" % arch), key=lambda d: d["provenance"]["started_at"])
    if not runs:
        return
    w("- the spec's case and protocol again, cuBLAS, one after another on one card (`examples/%s/gemm-settle/`, "
      "commit %s), settle ms -> spread of the 5 repeat medians: %s; met in %d of %d" % (
          arch, ", ".join(sorted({d["provenance"]["git"]["sha"][:7] for d in runs})),
          ", ".join("%.0f -> %s (%.1f TFLOP/s, %s MHz)" % (
              d["protocol"]["settle_ms"], pct(d["timing"]["stats"]["repeat_median_rel_spread"]),
              d["metrics"]["tflops"], (d["timing"].get("repeat_clocks") or [{}])[-1].get("sm_mhz"))
              for d in runs),
          sum(d["timing"]["stats"]["repeat_median_rel_spread"] < 0.01 for d in runs), len(runs)))


def gemm_section(arch, w):
    spec = {d["config"]["provider"]: d for d in load("examples/%s/gemm/spec/*.json" % arch)}
    cal = json.load(open(os.path.join(TOP, "examples", arch, "gemm", "calibration.json")))
    w("### %s: %s\n" % (arch.upper(), card(arch)))
    settle = spec.get("cublas", {}).get("protocol", {}).get("settle_ms")
    w("GEMM spec, 4096^3 fp16, %s10 warm-up + 50 x 5 (`examples/%s/gemm/spec/`). The SM clock is NVML's "
      "reading after each repeat, with the throttle reasons seen:\n" % (
          "%.0f ms settle, " % settle if settle else "no settle phase, ", arch))
    w("| provider | median ms | TFLOP/s | % of datasheet | relative noise | spread of the 5 repeat medians | SM MHz per repeat |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for p in ("cublas", "cublaslt", "torch", "solbook-mma", "cublas-pedantic"):
        d = spec.get(p)
        if not d:
            continue
        s, m = d["timing"]["stats"], d["metrics"]
        rc = d["timing"].get("repeat_clocks") or []
        why = sorted({t for c in rc for t in c.get("throttle_reasons") or []})
        clocks = ("%s%s" % ("/".join(str(c.get("sm_mhz")) for c in rc), " (%s)" % ", ".join(why) if why else "")
                  if rc else "-")
        w("| %s | %.4f | %.1f | %s | %s | %s | %s |" % (p, s["median"], m["tflops"],
          "%.1f%%" % m["pct_datasheet_peak"] if m.get("pct_datasheet_peak") is not None else "-",
          pct(s["rel_noise"]), pct(s["repeat_median_rel_spread"]), clocks))
    if "cublas" in spec and "torch" in spec:
        r = spec["cublas"]["metrics"]["tflops"] / spec["torch"]["metrics"]["tflops"]
        w("\n- cuBLAS / torch.matmul TFLOP/s: **%s** (target >= 95%%: %s)" % (pct(r), "met" if r >= 0.95 else "MISSED"))
    if "cublas" in spec:
        sp = spec["cublas"]["timing"]["stats"]["repeat_median_rel_spread"]
        w("- spread of the cuBLAS repeat medians: **%s** (target < 1%%: %s)" % (pct(sp), "met" if sp < 0.01 else "MISSED"))
    bw = cal["bandwidth"]
    r = bw["copy"]["gbps"] / bw["memcpy_d2d"]["gbps"]
    w("- roofline copy %.0f GB/s against cudaMemcpy D2D %.0f GB/s: **%s** (target >= 95%%: %s; %s)" % (
        bw["copy"]["gbps"], bw["memcpy_d2d"]["gbps"], pct(r), "met" if r >= 0.95 else "MISSED",
        cal.get("notes") or "one stream kernel at that commit"))
    settle_trials(arch, w)
    w("- measured ceilings: " + ", ".join("%s %.0f GB/s" % (k, v["gbps"]) for k, v in sorted(bw.items())) + "; " +
      ", ".join("gemm %s %.0f TFLOP/s" % (k, v["tflops"]) for k, v in sorted(cal["gemm_peak"].items())))
    sweep = load("examples/%s/gemm/sweep/**/*.json" % arch)
    by = {}
    for d in sweep:
        if d["status"] == "passed":
            by.setdefault((d["config"]["dtype"], shape_s(d), d["config"]["params"].get("transa", ""),
                           d["config"]["params"].get("transb", "")), {})[d["config"]["provider"]] = d
    w("\nThe project's tensor-core GEMM (solbook-mma, WMMA) against cuBLAS in the sweep (20 x 3 samples):\n")
    w("| dtype | shape | cuBLAS TFLOP/s | solbook-mma TFLOP/s | ratio |")
    w("| --- | --- | ---: | ---: | ---: |")
    for k in sorted(by):
        g = by[k]
        if "cublas" in g and "solbook-mma" in g:
            a, b = g["cublas"]["metrics"]["tflops"], g["solbook-mma"]["metrics"]["tflops"]
            w("| %s | %s | %.1f | %.1f | %s |" % (k[0], k[1], a, b, pct(b / a)))
    refused = [d for d in sweep if d["config"]["provider"] == "solbook-mma" and d["status"] != "passed"]
    if refused:
        w("\nsolbook-mma refused %d sweep case(s) (shape or dtype outside what it accepts)." % len(refused))
    w("")


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else None


def geomean_lines(w, geo, scope):
    """Issue 4's speedup target: geomean of fused over reference >= 2x."""
    for op in ("rmsnorm", "rope", "cross_entropy"):
        v = geo.get(op, [])
        if v:
            gm = geomean(v)
            w("- %s: geomean speedup of fused over reference %.2fx over %d case(s)%s (target >= 2x: %s)" % (
                op, gm, len(v), scope, "met" if gm >= 2 else "MISSED"))


def kernels_section(arch, w):
    res = load("examples/%s/kernels/**/*.json" % arch)
    cal = json.load(open(os.path.join(TOP, "examples", arch, "kernels", "calibration.json")))
    copy = cal["bandwidth"]["copy"]["gbps"]
    memcpy = cal["bandwidth"]["memcpy_d2d"]["gbps"]
    cases = {}
    for d in res:
        if d["config"]["suite"].endswith("-ncu"):
            continue  # profiled under ncu (replayed launches): not a timing
        cases.setdefault(key(d), {})[d["config"]["provider"]] = d
    w("### %s: Liger per-kernel and memory-bound quick presets\n" % arch.upper())
    w("Ceilings from the same run: STREAM copy %.0f GB/s, cudaMemcpy D2D %.0f GB/s. "
      "\"%% copy\" is the op's model bytes over its median time against STREAM copy.\n" % (copy, memcpy))
    w("| suite | op | mode | dtype | shape | fused GB/s | % copy | vs reference | vs torch-compile | peak MB fused / reference |")
    w("| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    slower_than_ref, below85, below_tc, geo = [], [], [], {}
    for k in sorted(cases):
        g = cases[k]
        f, r, tc = g.get("fused"), g.get("reference"), g.get("torch-compile")
        if not f:
            continue
        if f["status"] != "passed":
            w("| %s | %s | %s | %s | %s | %s | | | | |" % (k[0], k[1], k[2], k[3], shape_s(f), f["status"]))
            continue
        gb = f["metrics"]["gbps"]
        n = f["config"]["shape"].get("N", f["config"]["shape"].get("V", f["config"]["shape"].get("H", 0)))
        vs_ref = med(r) / med(f) if r and r["status"] == "passed" else None
        vs_tc = med(tc) / med(f) if tc and tc["status"] == "passed" else None
        if vs_ref is not None:
            geo.setdefault(k[1], []).append(vs_ref)
            if vs_ref < 1:
                slower_than_ref.append((k, vs_ref))
        if k[0].startswith("memory-bound") and n >= 4096 and gb / copy < 0.85 and k[1] != "flce":
            below85.append((k, gb / copy, shape_s(f)))
        if vs_tc is not None and vs_tc < 1:
            below_tc.append((k, vs_tc))
        pm = lambda d: "%.0f" % (d["memory"]["peak_device_bytes"] / 1e6) if d and d.get("memory", {}).get("peak_device_bytes") else "-"
        w("| %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s / %s |" % (
            k[0], k[1], k[2], k[3], shape_s(f), gb, pct(gb / copy),
            "%.2fx" % vs_ref if vs_ref else "-", "%.2fx" % vs_tc if vs_tc else "-", pm(f), pm(r)))
    w("")
    geomean_lines(w, geo, "")
    w("- fused slower than reference: %s" % (", ".join("%s %s %s %.2fx" % (k[1], k[2], k[3], s) for k, s in slower_than_ref) or "none"))
    w("- memory-bound cases at N >= 4096 under 85%% of STREAM copy: %s" % (
        ", ".join("%s %s %s %s %s" % (k[1], k[2], k[3], sh, pct(x)) for k, x, sh in below85) or "none"))
    w("- fused slower than torch.compile: %s" % (", ".join("%s %s %s %.2fx" % (k[1], k[2], k[3], s) for k, s in below_tc) or "none"))
    for k in sorted(cases):
        if k[1] == "flce" and "fused" in cases[k] and "reference" in cases[k]:
            f, r = cases[k]["fused"], cases[k]["reference"]
            a, b = f.get("memory", {}).get("peak_device_bytes"), r.get("memory", {}).get("peak_device_bytes")
            if a and b:
                w("- FLCE %s %s peak memory: fused %.2f GB, reference %.2f GB, ratio %s (target <= 25%%: %s)" % (
                    k[2], shape_s(f), a / 1e9, b / 1e9, pct(a / b), "met" if a / b <= 0.25 else "MISSED"))
    fails = [d for d in res if d["status"] == "failed"]
    for d in fails:
        w("- failed correctness: %s %s %s %s %s: %s" % (d["config"]["provider"], d["config"]["op"], d["config"]["mode"],
          d["config"]["dtype"], shape_s(d), d.get("reason", "")[:160]))
    w("")


def latest(results):
    """One result per (case, provider): the one that finished last (a case run
    again at a later commit replaces the earlier one)."""
    best = {}
    for d in results:
        k = key(d) + (d["config"]["provider"],)
        if k not in best or d["provenance"]["finished_at"] > best[k]["provenance"]["finished_at"]:
            best[k] = d
    return list(best.values())


def flce_io_bytes(d):
    """What any FLCE must hold: hidden, weight, targets, and in full mode dH
    and dW (the floor under its peak memory)."""
    sh, es = d["config"]["shape"], 2 if d["config"]["dtype"] in ("bf16", "fp16") else 4
    bt, h, v = sh["BT"], sh["H"], sh["V"]
    io = (bt * h + v * h) * es + bt * 8
    return io + ((bt * h + v * h) * es if d["config"]["mode"] == "full" else 0)


def full_results(arch):
    """The full presets' latest result of each case and provider
    (examples/<arch>/kernels-full/<commit>/): (cases: key -> provider ->
    result, the results, calibration sha256 -> STREAM copy GB/s, the
    copy-by-size curve), or None where the card has none."""
    import hashlib
    base = os.path.join(TOP, "examples", arch, "kernels-full")
    if not os.path.isdir(base):
        return None
    copy = {}
    for c in glob.glob(base + "/*/calibration.json"):
        copy[hashlib.sha256(open(c, "rb").read()).hexdigest()] = json.load(open(c))["bandwidth"]["copy"]["gbps"]
    every = load("examples/%s/kernels-full/**/*.json" % arch)
    res = latest([d for d in every if d["config"]["suite"] != "copy-by-size"])
    curve = copy_curve([d for d in every if d["config"]["suite"] == "copy-by-size"])
    cases = {}
    for d in res:
        cases.setdefault(key(d), {})[d["config"]["provider"]] = d
    return cases, res, copy, curve


def kernels_full_section(arch, w):
    """The whole liger-perkernel and memory-bound presets
    (examples/<arch>/kernels-full/<commit>/), each result set against the
    STREAM copy of the calibration it names (calibration_sha256)."""
    full = full_results(arch)
    if full is None:
        return
    cases, res, copy, curve = full
    commits = {}
    for d in res:
        commits.setdefault(d["provenance"]["git"]["sha"][:7], set()).add(d["config"]["op"])
    nstatus = {}
    for d in res:
        nstatus[d["status"]] = nstatus.get(d["status"], 0) + 1
    w("### %s: the full liger-perkernel and memory-bound presets\n" % arch.upper())
    w("%d cases, %d results (%s), from %s (`examples/%s/kernels-full/`; a case run again at a later commit "
      "replaces the earlier result). 10 warm-up launches, 20 x 3 timed; \"%% copy\" is the op's model bytes over "
      "its median time against the STREAM copy of the calibration the result names (%s GB/s).\n" % (
          len(cases), len(res), ", ".join("%d %s" % (v, k) for k, v in sorted(nstatus.items())),
          "; ".join("%s (%s)" % (k, ", ".join(sorted(v))) for k, v in sorted(commits.items())), arch,
          " and ".join("%.0f" % v for v in sorted(set(copy.values())))))
    w("| suite | op | mode | cases | % copy min | median | max | fused / reference geomean | lowest |")
    w("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    groups, below85, slower, geo, rms_fwd = {}, [], [], {}, []
    for k in sorted(cases):
        f, r = cases[k].get("fused"), cases[k].get("reference")
        if not f or f["status"] != "passed":
            continue
        c = copy.get(f["metrics"].get("calibration_sha256"))
        frac = f["metrics"]["gbps"] / c if c else None
        sp = med(r) / med(f) if r and r["status"] == "passed" else None
        groups.setdefault((k[0], k[1], k[2]), []).append((frac, sp))
        if sp is not None:
            geo.setdefault(k[1], []).append(sp)
            if sp < 1:
                slower.append((k, sp, shape_s(f)))
        sh = f["config"]["shape"]
        n = sh.get("N", sh.get("V", 0))
        if k[0] == "memory-bound" and n >= 4096 and frac is not None and frac < 0.85:
            below85.append((k, frac, shape_s(f)))
        if k[0] == "memory-bound" and k[1] == "rmsnorm" and k[2] == "fwd" and k[3] == "bf16" and frac is not None:
            rms_fwd.append(frac)
    for g in sorted(groups):
        v = groups[g]
        fr = sorted(x[0] for x in v if x[0] is not None)
        sp = [x[1] for x in v if x[1] is not None]
        gm = geomean(sp)
        w("| %s | %s | %s | %d | %s | %s | %s | %s | %s |" % (
            g[0], g[1], g[2], len(v), pct(fr[0]) if fr else "-", pct(fr[len(fr) // 2]) if fr else "-",
            pct(fr[-1]) if fr else "-", "%.2fx" % gm if gm else "-", "%.2fx" % min(sp) if sp else "-"))
    w("")
    geomean_lines(w, geo, ", all suites")
    # FLCE's accum=vocab trades a second logits GEMM for no dW accumulator:
    # slower than the reference by design, so said apart from the defaults
    by_design = [t for t in slower if "accum=vocab" in t[2]]
    w("- fused slower than reference: %s%s" % (
        ", ".join("%s %s %s %s %.3fx" % (k[1], k[2], k[3], sh, x) for k, x, sh in slower if "accum=vocab" not in sh)
        or "none", "; by design (FLCE `accum=vocab`: no dW accumulator, a second logits GEMM; docs/KERNELS.md): "
        + ", ".join("%s %s %s %s %.3fx" % (k[1], k[2], k[3], sh, x) for k, x, sh in by_design) if by_design else ""))
    vs_tc = [(k, med(g["torch-compile"]) / med(g["fused"]), shape_s(g["fused"])) for k, g in sorted(cases.items())
             if g.get("fused", {}).get("status") == "passed" and g.get("torch-compile", {}).get("status") == "passed"]
    if vs_tc:
        w("- against torch.compile (`torch_ops.py --preset`, %d cases): slower in %s" % (
            len(vs_tc), ", ".join("%s %s %s %s %.2fx" % (k[1], k[2], k[3], sh, x) for k, x, sh in vs_tc if x < 1)
            or "none"))
    else:
        w("- against torch.compile: not run over the full presets (the quick presets' cases below have it)")
    torch_compile_table(w, cases)
    if rms_fwd:
        w("- RMSNorm forward bf16 at the memory-bound shapes: %d of %d cases at >= 90%% of STREAM copy (lowest %s)" % (
            sum(x >= 0.9 for x in rms_fwd), len(rms_fwd), pct(min(rms_fwd))))
    for k in sorted(cases):
        if k[1] == "flce" and "fused" in cases[k] and "reference" in cases[k]:
            f, r = cases[k]["fused"], cases[k]["reference"]
            a, b = f.get("memory", {}).get("peak_device_bytes"), r.get("memory", {}).get("peak_device_bytes")
            if a and b:
                w("- FLCE %s %s peak memory: fused %.2f GB, reference %.2f GB, **%s** (target <= 25%%: %s); "
                  "the inputs and outputs alone are %s of the reference's peak; time %.2fx of reference" % (
                      k[2], shape_s(f), a / 1e9, b / 1e9, pct(a / b), "met" if a / b <= 0.25 else "MISSED",
                      pct(flce_io_bytes(f) / b), med(r) / med(f)))
    bym = {}
    for k, x, sh in below85:
        m = dict(k[4])["M"]
        bym[m] = bym.get(m, 0) + 1
    total = sum(1 for k in cases if k[0] == "memory-bound" and dict(k[4]).get("N", dict(k[4]).get("V", 0)) >= 4096)
    w("- memory-bound cases at N >= 4096 under 85%% of STREAM copy: **%d of %d**; by M: %s" % (
        len(below85), total, ", ".join("%d at M = %d" % (bym[m], m) for m in sorted(bym)) or "none"))
    if curve:
        w("- copy by size (`copy-by-size/`, the best of the STREAM copy patterns and cudaMemcpy at each size, "
          "same protocol): " + ", ".join("%s %.0f GB/s" % (mb_s(b), g) for b, g in curve))
    if below85:
        w("\n| op | mode | dtype | shape | MB moved | % copy | % of the copy at that size |")
        w("| --- | --- | --- | --- | ---: | ---: | ---: |")
        for k, x, sh in sorted(below85, key=lambda t: t[1]):
            f = cases[k]["fused"]
            at = copy_at(curve, f["metrics"]["bytes"])
            w("| %s | %s | %s | %s | %.0f | %s | %s |" % (k[1], k[2], k[3], sh, f["metrics"]["bytes"] / 1e6, pct(x),
                                                          pct(f["metrics"]["gbps"] / at) if at else "-"))
    w("")


def torch_compile_table(w, cases):
    """Fused against torch.compile by suite, op, mode and dtype: how many of
    the passing fused cases have a current torch.compile time, how many of
    those come from the same card and commit as the fused result (the same
    evidence run; the others pair a newer fused result with an older torch
    run), the geomean and lowest of fused's speed over it (time of
    torch.compile over time of fused: above 1, fused is faster) and how
    many are slower; groups with no torch.compile time at all are named,
    not left out."""
    def run_of(d):
        p = d.get("provenance", {})
        return (p.get("device", {}).get("uuid"), p.get("git", {}).get("sha"))

    groups = {}
    for k, g in sorted(cases.items()):
        f, t = g.get("fused"), g.get("torch-compile")
        if not f or f["status"] != "passed":
            continue
        e = groups.setdefault(k[:4], [0, [], 0])
        e[0] += 1
        if t and t["status"] == "passed":
            e[1].append(med(t) / med(f))
            e[2] += run_of(t) == run_of(f)
    if not any(v for _, v, _ in groups.values()):
        return
    w("")
    w("| suite | op | mode | dtype | fused cases | with torch.compile | same card and commit "
      "| fused speed / torch.compile, geomean | lowest | slower in |")
    w("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for g, (n, v, same) in sorted(groups.items()):
        if not v:
            w("| %s | %s | %s | %s | %d | 0 | - | - | - | - |" % (g + (n,)))
            continue
        w("| %s | %s | %s | %s | %d | %d | %d | %.3fx | %.3fx | %d |" % (
            g + (n, len(v), same, geomean(v), min(v), sum(x < 1 for x in v))))
    w("")


def mb_s(b):
    return "%.0f MB" % (b / 1e6) if b < 1e9 else "%.1f GB" % (b / 1e9)


def copy_curve(stream):
    """(bytes moved, best GB/s) per size of the copy-by-size runs, the
    latest run of each (size, provider)."""
    best = {}
    for d in latest(stream):
        b = d["metrics"]["bytes"]
        if d["status"] == "passed":
            best[b] = max(best.get(b, 0), d["metrics"]["gbps"])
    return sorted(best.items())


def copy_at(curve, b):
    """The copy bandwidth at b bytes, interpolated in log(bytes) between the
    measured sizes; None outside them."""
    for (b0, g0), (b1, g1) in zip(curve, curve[1:]):
        if b0 <= b <= b1:
            t = (math.log(b) - math.log(b0)) / (math.log(b1) - math.log(b0))
            return g0 + t * (g1 - g0)
    return None


NCU_COLS = [("gpu__time_duration.sum", "kernel us", "%.1f"),
            ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM % of peak", "%.1f"),
            ("launch__grid_size", "grid", "%.0f"), ("launch__block_size", "block", "%.0f"),
            ("launch__registers_per_thread", "regs", "%.0f"),
            ("launch__shared_mem_per_block_dynamic", "dyn smem KB", "%.1f"),
            ("sm__warps_active.avg.pct_of_peak_sustained_active", "warps active %", "%.1f"),
            ("smsp__issue_active.avg.pct_of_peak_sustained_active", "issue active %", "%.1f")]


def ncu_section(arch, w):
    """The ncu --detail profiles of the fused kernels (bench/scripts/evidence_kernels.sh)."""
    files = sorted(glob.glob(os.path.join(TOP, "examples", arch, "kernels", "ncu", "*.ncu.csv")))
    if not files:
        return
    res = os.path.join(TOP, "examples", arch, "kernels", "ncu")
    sha = set()
    for j in glob.glob(res + "/*.json"):
        sha.add(json.load(open(j))["provenance"].get("git", {}).get("sha", "?")[:7])
    w("Nsight Compute on the fused provider's main kernel (`examples/%s/kernels/ncu/`, commit %s; the last of 3 "
      "profiled launches; the top stall is the largest `smsp__average_warps_issue_stalled_*` per issued "
      "instruction):\n" % (arch, ", ".join(sorted(sha))))
    w("| case | " + " | ".join(c[1] for c in NCU_COLS) + " | top stall |")
    w("| --- | " + " | ".join("---:" for _ in NCU_COLS) + " | --- |")
    for f in files:
        rows = ncu_rows(open(f).read())
        if not rows:
            continue
        r = rows[-1]
        cells = []
        for name, _, fmt in NCU_COLS:
            v = r.get(name)  # per-block units (Kbyte/block) are read as written
            cells.append(fmt % v if v is not None else "-")
        w("| %s | %s | %s |" % (os.path.basename(f)[:-len(".ncu.csv")], " | ".join(cells),
                                r["stalls"].split(", ")[0]))
    w("")


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
    full = full_results(arch)
    cases, copy = (full[0], full[2]) if full else ({}, {})

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

    def evidence(d):
        """The timed evidence of the same case (full presets): % copy, and
        the fused speed over torch.compile's."""
        g = cases.get(("memory-bound",) + key(d)[1:], {})
        f, t = g.get("fused"), g.get("torch-compile")
        if not f or f["status"] != "passed":
            return "-", "-"
        cg = copy.get(f["metrics"].get("calibration_sha256"))
        vs = "%.3fx" % (med(t) / med(f)) if t and t["status"] == "passed" else "-"
        return (pct(f["metrics"]["gbps"] / cg) if cg else "-"), vs
    w("Nsight Compute where the targets fall short (`bench/scripts/ncu_cases.sh`, the case lists "
      "`bench/scripts/ncu_cases_*.txt`; %s): the fused provider's kernels of one call, torch.compile's Triton "
      "kernels of one call of the same case after its compile and warm-up, and the STREAM copy "
      "(solbook-stream-flat1) of about the same bytes, each in its own process, caches flushed before each "
      "replayed kernel and clocks as found. \"x copy\" is the call's kernel time over the time the profiled "
      "STREAM copy of the nearest size takes for the case's model bytes at its rate: 1.00 is the copy's rate, "
      "under 1.00 faster than it. DRAM MB is what ncu counted (read + written): under the model's bytes where "
      "writes were still in L2 when a kernel ended, over them where a kernel read its input twice from DRAM. "
      "The timed figures are the full presets' (above).\n" % "; ".join(sorted(runs)))
    w("| case | model MB | timed % copy | timed fused speed / torch.compile | fused us | fused DRAM MB "
      "| fused x copy | torch.compile us | torch.compile DRAM MB | torch.compile x copy |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in sorted(sets):
        v = sets[name]
        d, f, t = v.get("result"), v.get("fused") or [], v.get("torch-compile") or []
        if not d or d["config"]["op"] == "stream" or not f:
            continue
        ev, vs = evidence(d)
        cells, rate = [], copy_rate(model_mb(d))
        for ks in (f, t):
            cells.append("%.1f | %.0f | %s" % (us(ks), dram(ks), "%.3f" % (us(ks) * rate / model_mb(d))
                                                if rate else "-") if ks else "- | - | -")
        w("| %s | %.0f | %s | %s | %s | %s |" % (name, model_mb(d), ev, vs, cells[0], cells[1]))
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


def forge_section(arch, w):
    for p in sorted(glob.glob(os.path.join(TOP, "examples", arch, "forge", "registry", "*", "promotion.json"))):
        d = json.load(open(p))
        w("- %s: forge promoted `%s`, geomean speedup %.2fx (min %.2fx) over the eager reference; %s" % (
            arch.upper(), d.get("kernel_id"), d.get("speedup_geomean", float("nan")),
            d.get("speedup_min", float("nan")), os.path.relpath(p, TOP)))


def main():
    lines = []
    w = lines.append
    w("# Evidence: the issues' targets against real runs\n")
    w("Generated by `scripts/evidence_summary.py` from the result files in `examples/` (H100 SXM5 and "
      "H200 SXM, lent cards; see `examples/README.md` for commits). No A100 was available: there is no A100 data. "
      "Figures are medians of CUDA-event samples; see docs/BENCH.md for the protocol.\n")
    w("## GEMM and measured ceilings (issue 3)\n")
    for arch in ("h100", "h200"):
        gemm_section(arch, w)
    w("## Liger per-kernel and memory-bound suites (issues 4 and 5)\n")
    for arch in ("h100", "h200"):
        kernels_full_section(arch, w)
    for arch in ("h100", "h200"):
        w("### %s: where the targets fall short, under Nsight Compute\n" % arch.upper())
        shortfalls_ncu_section(arch, w)
    for arch in ("h100", "h200"):
        kernels_section(arch, w)
        ncu_section(arch, w)
    w("## forge (issue 8)\n")
    for arch in ("h100", "h200"):
        forge_section(arch, w)
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

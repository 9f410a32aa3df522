"""torch_common.py - what torch_gemm.py and torch_ops.py share: sample
statistics computed the way solbench computes them (bench/harness.c), so the
torch-eager, torch-compile and torch results carry the same stats as
solbench's, and finding the solbench program."""
import math
import os
import shutil


def stats_of(samples, repeats):
    s = sorted(samples)
    n = len(s)

    def q(p):
        pos = p * (n - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, n - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)

    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0
    out = {"count": n, "min": s[0], "p20": q(0.2), "median": q(0.5), "p80": q(0.8), "max": s[-1],
           "mean": mean, "stdev": sd, "rel_noise": sd / mean if mean > 0 else 0.0,
           "repeat_median_rel_spread": None}
    if repeats > 1 and n % repeats == 0:
        per = n // repeats
        meds = []
        for r in range(repeats):
            g = sorted(samples[r * per:(r + 1) * per])
            pos = 0.5 * (per - 1)
            lo = math.floor(pos)
            hi = min(lo + 1, per - 1)
            meds.append(g[lo] + (g[hi] - g[lo]) * (pos - lo))
        mm = sum(meds) / repeats
        out["repeat_median_rel_spread"] = (math.sqrt(sum((m - mm) ** 2 for m in meds) / (repeats - 1)) / mm
                                           if mm > 0 else 0.0)
    return out


def find_solbench(given):
    if given:
        return given
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "..", "..", "build", "bench", "solbench"), shutil.which("solbench")):
        if cand and os.path.exists(cand):
            return cand
    return None


def _ns_per_sleep_cycle(torch):
    """What one cycle of torch.cuda._sleep lasts on this card, in ns."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(1000)  # first use out of the way
    a.record()
    torch.cuda._sleep(2_000_000)
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e6 / 2_000_000


def hold_probe(torch, launch):
    """What timed_repeats needs to know before the warm-up (so that nothing it
    runs idles the card between warm-up and timing): the sleep kernel's ns
    per cycle, and one launch on its own, its submit time on the host and
    its GPU time: a launch shorter than twice its submit time lets the GPU
    run ahead of the host, and only then is a hold needed."""
    import time
    ns_cycle = _ns_per_sleep_cycle(torch)
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    h0 = time.perf_counter()
    a.record()
    launch()
    b.record()
    submit_ns = (time.perf_counter() - h0) * 1e9
    b.synchronize()
    return {"ns_cycle": ns_cycle, "submit_ns": submit_ns, "need_hold": a.elapsed_time(b) * 1e6 < 2 * submit_ns}


def settle(torch, launch, ms):
    """As solbench's settle: the call back to back for ms, in batches of 8,
    the next batch queued before waiting for the one before (the card never
    idles). Returns the launches run."""
    import time
    ev = [torch.cuda.Event(), torch.cuda.Event()]
    t0 = time.monotonic()
    done = b = 0
    while (time.monotonic() - t0) * 1e3 < ms:
        for _ in range(8):
            launch()
        done += 8
        ev[b % 2].record()
        if b > 0:
            ev[(b - 1) % 2].synchronize()
        b += 1
    return done


def timed_repeats(torch, launch, iters, repeats, probe, before=None):
    """Times iters x repeats launches, one CUDA event pair each, queued the way
    solbench queues them (protocol.launch_hold, docs/SCHEMAS.md): each repeat
    behind a kernel that holds the stream while Python queues it, and repeat
    r + 1 queued before the host waits for repeat r, so that samples are the
    GPU's time and the card does not idle between repeats. A Python script
    cannot release a hold from the host, so the hold is torch.cuda._sleep for
    twice as long as queueing the repeat before took (the first: iters
    submits of hold_probe's); it is used only where hold_probe says the GPU
    can run ahead. before(k), if given, is queued before sample k (an L2
    flush). Returns (samples per repeat, repeats whose queueing outlasted
    their hold)."""
    import time
    need_hold, ns_cycle = probe["need_hold"], probe["ns_cycle"]
    queue_ns = probe["submit_ns"] * iters
    ev = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
          for _ in range(2)]
    per_rep = [None] * repeats
    short = 0

    def collect(r):
        pairs = ev[r % 2]
        pairs[-1][1].synchronize()
        per_rep[r] = [s.elapsed_time(e) for s, e in pairs]

    for r in range(repeats):
        hold_ns = 2 * queue_ns + 20_000
        if need_hold:
            torch.cuda._sleep(int(hold_ns / ns_cycle))
        h0 = time.perf_counter()
        for i, (s, e) in enumerate(ev[r % 2]):
            if before is not None:
                before(r * iters + i)
            s.record()
            launch()
            e.record()
        queue_ns = (time.perf_counter() - h0) * 1e9
        if need_hold and queue_ns > hold_ns:
            short += 1
        if r > 0:
            collect(r - 1)
    collect(repeats - 1)
    return per_rep, short

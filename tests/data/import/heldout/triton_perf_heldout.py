"""The benchmark behind the held-out Triton perf_report files
(docs/IMPORT.md, "Held-out files"): triton.testing.perf_report's own
table and CSV writer (Mark.run) over a function timed on the CPU, since
the build host has no GPU for do_bench. Each figure is what do_bench
with quantiles=[0.5, 0.2, 0.8] returns, the median first, in the unit of
ylabel; perf_report keeps the first and drops the other two."""
import heapq
import random
import statistics
import sys
import time

import triton.testing


def quantiles(fn, reps, scale):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * scale)
    q = statistics.quantiles(times, n=10, method="inclusive")
    return statistics.median(times), q[1], q[7]


@triton.testing.perf_report([
    triton.testing.Benchmark(
        x_names=["N"], x_vals=[2**i for i in range(8, 15, 2)], line_arg="provider",
        line_vals=["sorted", "heapq"], line_names=["sorted", "heapq"],
        ylabel="ms", plot_name="sort-performance", args={}),
    triton.testing.Benchmark(
        x_names=["rows", "cols"], x_vals=[(16, 64), (64, 64), (64, 256)], line_arg="provider",
        line_vals=["listcomp", "zip"], line_names=["list comprehension", "zip"],
        ylabel="us", plot_name="transpose-performance", args={}),
])
def bench(provider, N=None, rows=None, cols=None):
    rng = random.Random(7)
    if N is not None:
        data = [rng.random() for _ in range(N)]
        fn = (lambda: sorted(data)) if provider == "sorted" else (lambda: heapq.nsmallest(len(data), data))
        return quantiles(fn, 25, 1e3)
    m = [[rng.random() for _ in range(cols)] for _ in range(rows)]
    fn = (lambda: [[r[j] for r in m] for j in range(cols)]) if provider == "listcomp" else (lambda: list(zip(*m)))
    return quantiles(fn, 25, 1e6)


bench.run(print_data=True, save_path=sys.argv[1])

"""torch_benchmark_dump.py - torch.utils.benchmark Measurements and Triton
do_bench times as a JSON file `solbook ingest --format torch-benchmark-json`
reads (docs/IMPORT.md, "torch.utils.benchmark and Triton do_bench").

Use it from a benchmark script:

    import torch.utils.benchmark as tb
    from torch_benchmark_dump import Dump
    dump = Dump()
    m = tb.Timer("x @ x", globals={"x": x}, label="matmul").blocked_autorange(min_run_time=1)
    dump.add_measurement(m, shape={"M": 1024, "N": 1024, "K": 1024}, dtype="bf16")
    times = triton.testing.do_bench(fn, return_mode="all")   # list of ms
    dump.add_do_bench("matmul", times, provider="triton", shape={"M": 1024})
    dump.write("bench.json")

or run it to time a small matmul on the CPU, or with --cuda a bf16 matmul
on the GPU by both torch.utils.benchmark and Triton's do_bench:

    python3 bench/scripts/torch_benchmark_dump.py [--cuda] OUT.json

A Measurement is kept as torch holds it: raw_times (seconds, each the total
of number_per_run calls) and number_per_run, with its task_spec (label,
sub_label, description, stmt, num_threads); the importer divides, as
Measurement.times does. do_bench times are ms per call, as returned.
"""
import datetime
import json
import os
import socket
import sys

FORMAT = "solbook.import.torch-benchmark.v1"


class Dump:
    def __init__(self, device=None):
        self.measurements = []
        self.device = device

    def add_measurement(self, m, shape=None, params=None, dtype=None, provider=None, mode=None):
        spec = m.task_spec
        self.measurements.append({
            "kind": "torch.utils.benchmark",
            "label": spec.label or spec.stmt,
            "sub_label": spec.sub_label,
            "description": spec.description,
            "stmt": spec.stmt,
            "num_threads": spec.num_threads,
            "number_per_run": m.number_per_run,
            "raw_times": list(m.raw_times),
            "shape": shape or {},
            "params": params or {},
            "dtype": dtype,
            "provider": provider,
            "mode": mode,
        })

    def add_do_bench(self, label, times_ms, shape=None, params=None, dtype=None, provider=None, mode=None):
        """times_ms: what triton.testing.do_bench(..., return_mode="all") returns."""
        self.measurements.append({
            "kind": "triton.testing.do_bench",
            "label": label,
            "times_ms": [float(t) for t in times_ms],
            "shape": shape or {},
            "params": params or {},
            "dtype": dtype,
            "provider": provider,
            "mode": mode,
        })

    def _device(self):
        import torch
        if self.device is not None:
            return self.device
        if torch.cuda.is_available():
            p = torch.cuda.get_device_properties(0)
            return {"cuda": True, "name": p.name, "memory_bytes": p.total_memory,
                    "sm_count": p.multi_processor_count,
                    "compute_capability": "%d.%d" % (p.major, p.minor)}
        return {"cuda": False, "name": "cpu"}

    def document(self):
        import torch
        doc = {
            "format": FORMAT,
            "created_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "hostname": socket.gethostname(),
            "torch_version": torch.__version__,
            "cuda_version": torch.version.cuda,
            "device": self._device(),
            "measurements": [{k: v for k, v in m.items() if v is not None} for m in self.measurements],
        }
        try:
            import triton
            doc["triton_version"] = triton.__version__
        except ImportError:
            pass
        return {k: v for k, v in doc.items() if v is not None}

    def write(self, path):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.document(), f, indent=1)
            f.write("\n")
        os.replace(tmp, path)


def main(argv):
    args = [a for a in argv[1:] if a != "--cuda"]
    cuda = len(args) < len(argv) - 1
    if len(args) != 1:
        print("usage: torch_benchmark_dump.py [--cuda] OUT.json", file=sys.stderr)
        return 2
    import torch
    import torch.utils.benchmark as tb
    if not cuda:
        dump = Dump(device={"cuda": False, "name": "cpu"})
        for n in (64, 128):
            x = torch.ones(n, n)
            m = tb.Timer("x @ x", globals={"x": x}, label="matmul", num_threads=1).blocked_autorange(min_run_time=0.2)
            dump.add_measurement(m, shape={"M": n, "N": n, "K": n}, dtype="fp32", provider="torch")
        dump.write(args[0])
        return 0
    # On a GPU: the same bf16 matmul timed by torch.utils.benchmark (which
    # synchronises around its blocks) and by Triton's do_bench (CUDA events,
    # L2 flushed before each call), each keeping every sample.
    import triton
    torch.manual_seed(0)
    dump = Dump()
    for n in (1024, 4096):
        x = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        shape = {"M": n, "N": n, "K": n}
        m = tb.Timer("x @ x", globals={"x": x}, label="matmul").blocked_autorange(min_run_time=0.5)
        dump.add_measurement(m, shape=shape, dtype="bf16", provider="torch", params={"timer": "torch.utils.benchmark"})
        times = triton.testing.do_bench(lambda: x @ x, return_mode="all")
        dump.add_do_bench("matmul", times, shape=shape, dtype="bf16", provider="torch",
                          params={"timer": "triton.do_bench"})
    dump.write(args[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

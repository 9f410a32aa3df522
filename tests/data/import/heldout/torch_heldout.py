"""The benchmark behind the held-out torch.utils.benchmark file
(docs/IMPORT.md, "Held-out files"): softmax and layer_norm on the CPU,
timed with torch.utils.benchmark and written by the shim
bench/scripts/torch_benchmark_dump.py; each Measurement is also printed
as torch prints it (torch_benchmark.print.txt).

    python3 torch_heldout.py BENCH_SCRIPTS_DIR OUT.json > torch_benchmark.print.txt
"""
import sys

import torch
import torch.utils.benchmark as tb

sys.path.insert(0, sys.argv[1])
from torch_benchmark_dump import Dump  # noqa: E402

torch.manual_seed(0)
dump = Dump()
for rows, cols in ((128, 512), (512, 1024)):
    x = torch.randn(rows, cols)
    for label, stmt in (("softmax", "torch.softmax(x, dim=-1)"),
                        ("layer_norm", "torch.nn.functional.layer_norm(x, (x.shape[-1],))")):
        m = tb.Timer(stmt, globals={"x": x, "torch": torch}, label=label, sub_label="%dx%d" % (rows, cols),
                     description="fp32", num_threads=1).blocked_autorange(min_run_time=0.3)
        print(m)
        dump.add_measurement(m, shape={"rows": rows, "cols": cols}, dtype="fp32", provider="torch-cpu")
dump.write(sys.argv[2])

# The benchmarks that wrote pytest_benchmark.json (docs/IMPORT.md,
# "Held-out files"): sorting a reversed list of two lengths.
import pytest


@pytest.mark.parametrize('length', [4096, 65536])
def test_sorted(benchmark, length):
    data = list(range(length, 0, -1))
    benchmark(sorted, data)

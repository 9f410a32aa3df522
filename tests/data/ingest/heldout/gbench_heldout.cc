// The program that wrote gbench.json (docs/IMPORT.md, "Held-out files"):
// a vector fill and a sort over 2^10 and 2^14 ints.
#include <algorithm>
#include <vector>

#include <benchmark/benchmark.h>

static void BM_fill(benchmark::State &state)
{
    std::vector<int> v(static_cast<size_t>(state.range(0)));
    for (auto _ : state) {
        std::fill(v.begin(), v.end(), 7);
        benchmark::DoNotOptimize(v.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_fill)->Arg(1 << 10)->Arg(1 << 14);

static void BM_sort(benchmark::State &state)
{
    std::vector<int> v(static_cast<size_t>(state.range(0)));
    for (auto _ : state) {
        state.PauseTiming();
        for (size_t i = 0; i < v.size(); i++)
            v[i] = static_cast<int>((i * 2654435761u) % 1000003u);
        state.ResumeTiming();
        std::sort(v.begin(), v.end());
        benchmark::DoNotOptimize(v.data());
    }
}
BENCHMARK(BM_sort)->Arg(1 << 10)->Arg(1 << 14);

BENCHMARK_MAIN();

// gbench_sample.cc - a small Google Benchmark program whose own JSON
// output the gbench importer is tested on (tests/import/e2e_gbench_real.sh
// builds and runs it; tests/data/import/gbench_sample.json is one run of
// it, kept so that the unit test checks fixed figures).
//
// Every benchmark declares exactly what one call processes, so the
// importer's bytes and items per call can be checked to the unit:
//   BM_memcpy/1048576           1 MiB copy, SetBytesProcessed -> 1048576 bytes a call
//   BM_memcpy/4096/real_time    the same by real time, 3 repetitions with aggregates
//   BM_memcpy/65536/repeats:3   aggregates only (ReportAggregatesOnly)
//   BM_sum<float>/1000          SetItemsProcessed -> 1000 items a call, dtype fp32
//   BM_sort/N                   a complexity fit (BigO, RMS rows) over N
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

static void BM_memcpy(benchmark::State &state)
{
    const size_t n = static_cast<size_t>(state.range(0));
    std::vector<char> src(n, 'x'), dst(n);
    for (auto _ : state) {
        std::memcpy(dst.data(), src.data(), n);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}
BENCHMARK(BM_memcpy)->Arg(1 << 20);
BENCHMARK(BM_memcpy)->Arg(4096)->UseRealTime()->Repetitions(3);
BENCHMARK(BM_memcpy)->Arg(65536)->Repetitions(3)->ReportAggregatesOnly(true);

template <typename T>
static void BM_sum(benchmark::State &state)
{
    std::vector<T> v(static_cast<size_t>(state.range(0)), T(1));
    for (auto _ : state) {
        T s = std::accumulate(v.begin(), v.end(), T(0));
        benchmark::DoNotOptimize(s);
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK_TEMPLATE(BM_sum, float)->Arg(1000);

static void BM_sort(benchmark::State &state)
{
    const size_t n = static_cast<size_t>(state.range(0));
    std::vector<int> base(n);
    for (size_t i = 0; i < n; i++)
        base[i] = static_cast<int>((i * 2654435761u) % 1000003u);
    for (auto _ : state) {
        state.PauseTiming();
        std::vector<int> v = base;
        state.ResumeTiming();
        std::sort(v.begin(), v.end());
        benchmark::DoNotOptimize(v.data());
    }
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_sort)->RangeMultiplier(4)->Range(256, 4096)->Complexity(benchmark::oNLogN);

BENCHMARK_MAIN();

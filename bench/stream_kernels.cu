// stream_kernels.cu - copy, scale, add and triad with 16-byte accesses.
#include "stream_kernels.h"

#include <cuda_runtime.h>

namespace {

template <int KIND>
__device__ __forceinline__ float4 stream_op(float4 x, float4 y, float s)
{
    if (KIND == SB_STREAM_COPY)
        return x;
    if (KIND == SB_STREAM_SCALE)
        return make_float4(s * x.x, s * x.y, s * x.z, s * x.w);
    if (KIND == SB_STREAM_ADD)
        return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    return make_float4(fmaf(s, y.x, x.x), fmaf(s, y.y, x.y), fmaf(s, y.z, x.z), fmaf(s, y.w, x.w));
}

/* Grid-stride over 16-byte elements, UNROLL independent loads issued before
 * the first store: one load per thread in flight leaves HBM3e short of
 * requests (about 32 KB per SM against the ~25-50 KB Little's law asks
 * for at 4.8 TB/s), four keeps it fed. */
constexpr int UNROLL = 4;

template <int KIND>
__global__ void __launch_bounds__(512) stream_kernel(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                                     float4 *__restrict__ c, int64_t n4, float s)
{
    const bool two = KIND == SB_STREAM_ADD || KIND == SB_STREAM_TRIAD;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 x[UNROLL], y[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            x[u] = a[i + u * stride];
            y[u] = two ? b[i + u * stride] : x[u];
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            c[i + u * stride] = stream_op<KIND>(x[u], y[u], s);
    }
    for (; i < n4; i += stride)
        c[i] = stream_op<KIND>(a[i], two ? b[i] : a[i], s);
}

/* One block moves TILE = 512 x UNROLL consecutive float4 at a time: all
 * loads of a tile are issued before its stores, and each warp's accesses
 * stay within one contiguous 32 KiB span (DRAM page locality). */
template <int KIND>
__global__ void __launch_bounds__(512) stream_tiled_kernel(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                                           float4 *__restrict__ c, int64_t n4, float s)
{
    const bool two = KIND == SB_STREAM_ADD || KIND == SB_STREAM_TRIAD;
    const int64_t tile = (int64_t)blockDim.x * UNROLL;
    for (int64_t base = (int64_t)blockIdx.x * tile; base < n4; base += (int64_t)gridDim.x * tile) {
        float4 x[UNROLL], y[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            int64_t i = base + (int64_t)u * blockDim.x + threadIdx.x;
            if (i < n4) {
                x[u] = __ldcs(a + i);
                y[u] = two ? __ldcs(b + i) : x[u];
            }
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            int64_t i = base + (int64_t)u * blockDim.x + threadIdx.x;
            if (i < n4)
                __stcs(c + i, stream_op<KIND>(x[u], y[u], s));
        }
    }
}

} // namespace

extern "C" int sb_stream_launch(sb_stream_kind kind, const float *a, const float *b, float *c, int64_t n, float s,
                                int sm_count, sb_stream stream)
{
    if (n <= 0 || n % 4 || ((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 16)
        return -1;
    int64_t n4 = n / 4;
    int64_t want = (n4 + 511) / 512;
    /* Four 512-thread blocks fill an SM (2048 threads on sm_80/sm_90). */
    int64_t blocks = (int64_t)(sm_count > 0 ? sm_count : 1) * 4;
    if (blocks > want)
        blocks = want;
    cudaStream_t st = reinterpret_cast<cudaStream_t>(stream);
    const float4 *a4 = reinterpret_cast<const float4 *>(a), *b4 = reinterpret_cast<const float4 *>(b);
    float4 *c4 = reinterpret_cast<float4 *>(c);
    switch (kind) {
    case SB_STREAM_COPY: stream_kernel<SB_STREAM_COPY><<<(unsigned)blocks, 512, 0, st>>>(a4, b4, c4, n4, s); break;
    case SB_STREAM_SCALE: stream_kernel<SB_STREAM_SCALE><<<(unsigned)blocks, 512, 0, st>>>(a4, b4, c4, n4, s); break;
    case SB_STREAM_ADD: stream_kernel<SB_STREAM_ADD><<<(unsigned)blocks, 512, 0, st>>>(a4, b4, c4, n4, s); break;
    case SB_STREAM_TRIAD: stream_kernel<SB_STREAM_TRIAD><<<(unsigned)blocks, 512, 0, st>>>(a4, b4, c4, n4, s); break;
    default: return -1;
    }
    return 0;
}

extern "C" int sb_stream_launch_tiled(sb_stream_kind kind, const float *a, const float *b, float *c, int64_t n, float s,
                                      int sm_count, sb_stream stream)
{
    if (n <= 0 || n % 4 || ((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 16)
        return -1;
    int64_t n4 = n / 4;
    int64_t tiles = (n4 + 512 * UNROLL - 1) / (512 * UNROLL);
    int64_t blocks = (int64_t)(sm_count > 0 ? sm_count : 1) * 4;
    if (blocks > tiles)
        blocks = tiles;
    cudaStream_t st = reinterpret_cast<cudaStream_t>(stream);
    const float4 *a4 = reinterpret_cast<const float4 *>(a), *b4 = reinterpret_cast<const float4 *>(b);
    float4 *c4 = reinterpret_cast<float4 *>(c);
    switch (kind) {
    case SB_STREAM_COPY: stream_tiled_kernel<SB_STREAM_COPY><<<(unsigned)blocks, 512, 0, st>>>(a4, b4, c4, n4, s); break;
    case SB_STREAM_SCALE: stream_tiled_kernel<SB_STREAM_SCALE><<<(unsigned)blocks, 512, 0, st>>>(a4, b4, c4, n4, s); break;
    case SB_STREAM_ADD: stream_tiled_kernel<SB_STREAM_ADD><<<(unsigned)blocks, 512, 0, st>>>(a4, b4, c4, n4, s); break;
    case SB_STREAM_TRIAD: stream_tiled_kernel<SB_STREAM_TRIAD><<<(unsigned)blocks, 512, 0, st>>>(a4, b4, c4, n4, s); break;
    default: return -1;
    }
    return 0;
}

// stream_kernels.cu - copy, scale, add, triad and a read-only row sum with
// 16-byte accesses.
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

template <int KIND>
__host__ __device__ constexpr bool two_inputs()
{
    return KIND == SB_STREAM_ADD || KIND == SB_STREAM_TRIAD;
}

/* Grid-stride over 16-byte elements, UNROLL independent loads issued before
 * the first store: one load per thread in flight leaves HBM3e short of
 * requests (about 32 KB per SM against the ~25-50 KB Little's law asks
 * for at 4.8 TB/s), four keeps it fed. */
constexpr int UNROLL = 4;

template <int KIND>
__global__ void __launch_bounds__(512) stream_grid_kernel(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                                          float4 *__restrict__ c, int64_t n4, float s)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 x[UNROLL], y[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            x[u] = a[i + u * stride];
            y[u] = two_inputs<KIND>() ? b[i + u * stride] : x[u];
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            c[i + u * stride] = stream_op<KIND>(x[u], y[u], s);
    }
    for (; i < n4; i += stride)
        c[i] = stream_op<KIND>(a[i], two_inputs<KIND>() ? b[i] : a[i], s);
}

/* One block moves TILE = blockDim.x x U consecutive float4 at a time: all
 * loads of a tile are issued before its stores, and each warp's accesses
 * stay within one contiguous span (DRAM page locality). LOOP: the block
 * walks tiles grid-stride (a grid sized to the SMs) with streaming hints;
 * otherwise the grid has one block per tile and plain accesses. */
template <int KIND, int U, bool LOOP>
__global__ void __launch_bounds__(512) stream_tile_kernel(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                                          float4 *__restrict__ c, int64_t n4, float s)
{
    const int64_t tile = (int64_t)blockDim.x * U;
    for (int64_t base = (int64_t)blockIdx.x * tile; base < n4; base += LOOP ? (int64_t)gridDim.x * tile : n4) {
        float4 x[U], y[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            int64_t i = base + (int64_t)u * blockDim.x + threadIdx.x;
            if (i < n4) {
                x[u] = LOOP ? __ldcs(a + i) : a[i];
                y[u] = two_inputs<KIND>() ? (LOOP ? __ldcs(b + i) : b[i]) : x[u];
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            int64_t i = base + (int64_t)u * blockDim.x + threadIdx.x;
            if (i < n4) {
                if (LOOP)
                    __stcs(c + i, stream_op<KIND>(x[u], y[u], s));
                else
                    c[i] = stream_op<KIND>(x[u], y[u], s);
            }
        }
    }
}

/* Read-only stream: a warp sums one row of SB_STREAM_READ_ROW floats (256
 * float4, 8 a lane, each a 512-byte coalesced warp load), all loads issued
 * before the first add, then a shuffle reduction. The output is one float
 * per row, a 1024th of the bytes read, so the time is the read rate. LOOP:
 * warps walk rows grid-stride (a grid sized to the SMs); otherwise one
 * warp a row. STREAMING: evict-first loads. */
constexpr int READ_LOADS = SB_STREAM_READ_ROW / 4 / 32;

template <bool LOOP, bool STREAMING>
__global__ void __launch_bounds__(256) stream_read_kernel(const float4 *__restrict__ a, float *__restrict__ c,
                                                          int64_t rows)
{
    const int lane = threadIdx.x & 31;
    const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t warps = LOOP ? ((int64_t)gridDim.x * blockDim.x) >> 5 : rows;
    for (int64_t r = warp; r < rows; r += warps) {
        const float4 *row = a + r * (SB_STREAM_READ_ROW / 4);
        float4 x[READ_LOADS];
#pragma unroll
        for (int u = 0; u < READ_LOADS; u++)
            x[u] = STREAMING ? __ldcs(row + u * 32 + lane) : row[u * 32 + lane];
        float sum = 0.0f;
#pragma unroll
        for (int u = 0; u < READ_LOADS; u++)
            sum += (x[u].x + x[u].y) + (x[u].z + x[u].w);
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, off);
        if (lane == 0)
            c[r] = sum;
    }
}

void launch_read(sb_stream_pattern pattern, const float4 *a, float *c, int64_t rows, int64_t sm_blocks,
                 cudaStream_t st)
{
    /* Four 512-thread blocks fill an SM: eight 256-thread blocks. */
    int64_t grid_blocks = 2 * sm_blocks, flat_blocks = (rows + 7) / 8;
    if (grid_blocks > flat_blocks)
        grid_blocks = flat_blocks;
    switch (pattern) {
    case SB_STREAM_GRID: stream_read_kernel<true, false><<<(unsigned)grid_blocks, 256, 0, st>>>(a, c, rows); break;
    case SB_STREAM_TILED: stream_read_kernel<true, true><<<(unsigned)grid_blocks, 256, 0, st>>>(a, c, rows); break;
    case SB_STREAM_FLAT1: stream_read_kernel<false, false><<<(unsigned)flat_blocks, 256, 0, st>>>(a, c, rows); break;
    default: stream_read_kernel<false, true><<<(unsigned)flat_blocks, 256, 0, st>>>(a, c, rows); break;
    }
}

template <int KIND>
void launch(sb_stream_pattern pattern, const float4 *a, const float4 *b, float4 *c, int64_t n4, float s,
            int64_t sm_blocks, cudaStream_t st)
{
    /* Four 512-thread blocks fill an SM (2048 threads on sm_80/sm_90). */
    switch (pattern) {
    case SB_STREAM_GRID: {
        int64_t want = (n4 + 511) / 512, blocks = sm_blocks < want ? sm_blocks : want;
        stream_grid_kernel<KIND><<<(unsigned)blocks, 512, 0, st>>>(a, b, c, n4, s);
        break;
    }
    case SB_STREAM_TILED: {
        int64_t tiles = (n4 + 512 * UNROLL - 1) / (512 * UNROLL), blocks = sm_blocks < tiles ? sm_blocks : tiles;
        stream_tile_kernel<KIND, UNROLL, true><<<(unsigned)blocks, 512, 0, st>>>(a, b, c, n4, s);
        break;
    }
    case SB_STREAM_FLAT1:
        stream_tile_kernel<KIND, 1, false><<<(unsigned)((n4 + 255) / 256), 256, 0, st>>>(a, b, c, n4, s);
        break;
    default:
        stream_tile_kernel<KIND, 4, false><<<(unsigned)((n4 + 1023) / 1024), 256, 0, st>>>(a, b, c, n4, s);
        break;
    }
}

} // namespace

extern "C" int sb_stream_launch(sb_stream_kind kind, sb_stream_pattern pattern, const float *a, const float *b,
                                float *c, int64_t n, float s, int sm_count, sb_stream stream)
{
    if (n <= 0 || n % 4 || ((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 16 || (int)pattern < 0 ||
        pattern > SB_STREAM_FLAT4)
        return -1;
    int64_t n4 = n / 4;
    if ((n4 + 255) / 256 > 0x7fffffff)
        return -1; /* more blocks than a grid holds */
    int64_t sm_blocks = (int64_t)(sm_count > 0 ? sm_count : 1) * 4;
    cudaStream_t st = reinterpret_cast<cudaStream_t>(stream);
    const float4 *a4 = reinterpret_cast<const float4 *>(a), *b4 = reinterpret_cast<const float4 *>(b);
    float4 *c4 = reinterpret_cast<float4 *>(c);
    switch (kind) {
    case SB_STREAM_COPY: launch<SB_STREAM_COPY>(pattern, a4, b4, c4, n4, s, sm_blocks, st); break;
    case SB_STREAM_SCALE: launch<SB_STREAM_SCALE>(pattern, a4, b4, c4, n4, s, sm_blocks, st); break;
    case SB_STREAM_ADD: launch<SB_STREAM_ADD>(pattern, a4, b4, c4, n4, s, sm_blocks, st); break;
    case SB_STREAM_TRIAD: launch<SB_STREAM_TRIAD>(pattern, a4, b4, c4, n4, s, sm_blocks, st); break;
    case SB_STREAM_READ:
        if (n % SB_STREAM_READ_ROW)
            return -1;
        launch_read(pattern, a4, c, n / SB_STREAM_READ_ROW, sm_blocks, st);
        break;
    default: return -1;
    }
    return 0;
}

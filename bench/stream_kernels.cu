// stream_kernels.cu - copy, scale, add and triad with 16-byte accesses.
#include "stream_kernels.h"

#include <cuda_runtime.h>

namespace {

template <int KIND>
__global__ void __launch_bounds__(512) stream_kernel(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                                     float4 *__restrict__ c, int64_t n4, float s)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 x = a[i], r;
        if (KIND == SB_STREAM_COPY) {
            r = x;
        } else if (KIND == SB_STREAM_SCALE) {
            r = make_float4(s * x.x, s * x.y, s * x.z, s * x.w);
        } else {
            float4 y = b[i];
            if (KIND == SB_STREAM_ADD)
                r = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
            else
                r = make_float4(fmaf(s, y.x, x.x), fmaf(s, y.y, x.y), fmaf(s, y.z, x.z), fmaf(s, y.w, x.w));
        }
        c[i] = r;
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
    int64_t blocks = (int64_t)(sm_count > 0 ? sm_count : 1) * 8;
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

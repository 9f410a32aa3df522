/* random_fill.cu - the seeded input generator on the device (random_fill.h).
 * Every rounding is spelled out (__dmul_rn, __dadd_rn, __double2float_rn,
 * then the dtype's round-to-nearest-even), because nvcc would otherwise
 * fuse lo + span * u into one FMA and the host, which rounds twice, would
 * make other values. */
#include "random_fill.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "random_stream.h"

__device__ __forceinline__ float value_f32(uint64_t s0, uint64_t i, double lo, double span)
{
    return __double2float_rn(__dadd_rn(lo, __dmul_rn(span, sb_random_u(s0, i))));
}

/* tf32: the host's rounding (dtype.c sb_f32_round_tf32), bit for bit */
__device__ __forceinline__ float round_tf32(float f)
{
    uint32_t x = __float_as_uint(f);
    if ((x & 0x7f800000u) == 0x7f800000u)
        return f;
    uint32_t rounding = 0xfffu + ((x >> 13) & 1u);
    return __uint_as_float((x + rounding) & 0xffffe000u);
}

template <typename T> __device__ __forceinline__ T from_f32(float f);
template <> __device__ __forceinline__ float from_f32<float>(float f) { return f; }
template <> __device__ __forceinline__ __half from_f32<__half>(float f) { return __float2half_rn(f); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float f)
{
    return __float2bfloat16_rn(f);
}

template <typename T>
__global__ void fill_k(T *out, size_t n, double lo, double span, uint64_t s0, int tf32)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float f = value_f32(s0, i, lo, span);
        out[i] = from_f32<T>(tf32 ? round_tf32(f) : f);
    }
}

__global__ void fill_f64_k(double *out, size_t n, double lo, double span, uint64_t s0)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = __dadd_rn(lo, __dmul_rn(span, sb_random_u(s0, i)));
}

extern "C" int sb_fill_random_device(void *dev, size_t n, sb_dtype d, double lo, double hi, uint64_t seed,
                                     uint64_t stream_id, void *cuda_stream)
{
    if (n == 0)
        return 0;
    cudaStream_t st = (cudaStream_t)cuda_stream;
    uint64_t s0 = sb_random_s0(seed, stream_id);
    double span = hi - lo;
    const int threads = 256;
    size_t want = (n + threads - 1) / threads;
    unsigned blocks = (unsigned)(want < 65536 ? want : 65536);
    switch (d) {
    case SB_DTYPE_FP64: fill_f64_k<<<blocks, threads, 0, st>>>((double *)dev, n, lo, span, s0); break;
    case SB_DTYPE_FP32: fill_k<float><<<blocks, threads, 0, st>>>((float *)dev, n, lo, span, s0, 0); break;
    case SB_DTYPE_TF32: fill_k<float><<<blocks, threads, 0, st>>>((float *)dev, n, lo, span, s0, 1); break;
    case SB_DTYPE_FP16: fill_k<__half><<<blocks, threads, 0, st>>>((__half *)dev, n, lo, span, s0, 0); break;
    case SB_DTYPE_BF16:
        fill_k<__nv_bfloat16><<<blocks, threads, 0, st>>>((__nv_bfloat16 *)dev, n, lo, span, s0, 0);
        break;
    default: return -1;
    }
    return (int)cudaGetLastError();
}

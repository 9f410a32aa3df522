/* Hostile: correct on its first call of a shape, then replays. Every later
 * call of that shape returns at once and leaves whatever the outputs hold:
 * an output cached between calls. It passes its own test (one call a
 * shape) and forge's checked run (the first call); only a check of the
 * outputs its timed launches leave, on inputs that changed, can tell. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "forge_abi.h"

__global__ void rms_rows(const __nv_bfloat16 *x, const __nv_bfloat16 *w, __nv_bfloat16 *y, long long n)
{
    __shared__ float part[8];
    const __nv_bfloat16 *xr = x + (size_t)blockIdx.x * (size_t)n;
    __nv_bfloat16 *yr = y + (size_t)blockIdx.x * (size_t)n;
    float ss = 0.0f;
    for (long long j = threadIdx.x; j < n; j += blockDim.x) {
        float v = __bfloat162float(xr[j]);
        ss += v * v;
    }
    for (int o = 16; o > 0; o >>= 1)
        ss += __shfl_xor_sync(0xffffffffu, ss, o);
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = ss;
    __syncthreads();
    float total = 0.0f;
    for (int i = 0; i < 8; i++)
        total += part[i];
    float rstd = rsqrtf(total / (float)n + 1e-6f);
    for (long long j = threadIdx.x; j < n; j += blockDim.x)
        yr[j] = __float2bfloat16(__bfloat162float(xr[j]) * rstd * __bfloat162float(w[j]));
}

static cudaError_t rms_launch(const forge_problem *p, cudaStream_t stream)
{
    long long m = forge_dim(&p->shape, "M"), n = forge_dim(&p->shape, "N");
    rms_rows<<<(unsigned)m, 256, 0, stream>>>((const __nv_bfloat16 *)p->inputs[0],
                                              (const __nv_bfloat16 *)p->inputs[1],
                                              (__nv_bfloat16 *)p->outputs[0], n);
    return cudaGetLastError();
}

static long long computed_shapes[64][2];
static int computed_count;

extern "C" cudaError_t rmsnorm_fused_bf16(const forge_problem *p, cudaStream_t stream)
{
    long long m = forge_dim(&p->shape, "M"), n = forge_dim(&p->shape, "N");
    for (int i = 0; i < computed_count; i++)
        if (computed_shapes[i][0] == m && computed_shapes[i][1] == n)
            return cudaSuccess;
    if (computed_count < 64) {
        computed_shapes[computed_count][0] = m;
        computed_shapes[computed_count++][1] = n;
    }
    return rms_launch(p, stream);
}

/* Hostile: skips work when inputs repeat. It remembers the input buffers
 * (and shape) it has computed for and returns at once when one comes back,
 * so a harness that times the same inputs again and again, or rotates a
 * few input sets, times nothing, while every output it was checked on
 * once is right. */
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

static struct {
    const void *x;
    long long m, n;
} seen[64];
static int seen_count;

extern "C" cudaError_t rmsnorm_fused_bf16(const forge_problem *p, cudaStream_t stream)
{
    long long m = forge_dim(&p->shape, "M"), n = forge_dim(&p->shape, "N");
    for (int i = 0; i < seen_count; i++)
        if (seen[i].x == p->inputs[0] && seen[i].m == m && seen[i].n == n)
            return cudaSuccess;
    if (seen_count < 64) {
        seen[seen_count].x = p->inputs[0];
        seen[seen_count].m = m;
        seen[seen_count++].n = n;
    }
    return rms_launch(p, stream);
}

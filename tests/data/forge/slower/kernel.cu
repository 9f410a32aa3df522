/* Hostile: correct, but one thread walks a whole row twice, serially. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "forge_abi.h"

__global__ void row_serial(const __nv_bfloat16 *x, const __nv_bfloat16 *w, __nv_bfloat16 *y, long long m,
                           long long n)
{
    long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= m)
        return;
    const __nv_bfloat16 *xr = x + (size_t)r * (size_t)n;
    float ss = 0.0f;
    for (long long j = 0; j < n; j++) {
        float v = __bfloat162float(xr[j]);
        ss += v * v;
    }
    float rstd = rsqrtf(ss / (float)n + 1e-6f);
    for (long long j = 0; j < n; j++)
        y[(size_t)r * (size_t)n + j] = __float2bfloat16(__bfloat162float(xr[j]) * rstd * __bfloat162float(w[j]));
}

extern "C" cudaError_t rmsnorm_fused_bf16(const forge_problem *p, cudaStream_t stream)
{
    long long m = forge_dim(&p->shape, "M"), n = forge_dim(&p->shape, "N");
    row_serial<<<(unsigned)((m + 127) / 128), 128, 0, stream>>>(
        (const __nv_bfloat16 *)p->inputs[0], (const __nv_bfloat16 *)p->inputs[1],
        (__nv_bfloat16 *)p->outputs[0], m, n);
    return cudaGetLastError();
}

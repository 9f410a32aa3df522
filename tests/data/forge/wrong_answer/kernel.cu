/* Hostile: fast, but forgets the 1/rms scale, so y = x * w. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "forge_abi.h"

__global__ void no_norm(const __nv_bfloat16 *x, const __nv_bfloat16 *w, __nv_bfloat16 *y, long long n,
                        size_t elems)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < elems)
        y[i] = __float2bfloat16(__bfloat162float(x[i]) * __bfloat162float(w[i % (size_t)n]));
}

extern "C" cudaError_t rmsnorm_fused_bf16(const forge_problem *p, cudaStream_t stream)
{
    long long m = forge_dim(&p->shape, "M"), n = forge_dim(&p->shape, "N");
    size_t elems = (size_t)m * (size_t)n;
    no_norm<<<(unsigned)((elems + 255) / 256), 256, 0, stream>>>(
        (const __nv_bfloat16 *)p->inputs[0], (const __nv_bfloat16 *)p->inputs[1],
        (__nv_bfloat16 *)p->outputs[0], n, elems);
    return cudaGetLastError();
}

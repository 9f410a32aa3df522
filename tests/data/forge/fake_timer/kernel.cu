/* Hostile: a slow kernel that replaces the CUDA runtime's event timer in
 * the linked bench program, so every sample reads 1 microsecond. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "forge_abi.h"

__global__ void copy_rows(const __nv_bfloat16 *x, __nv_bfloat16 *y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    (void)start;
    (void)end;
    *ms = 0.001f;
    return cudaSuccess;
}

extern "C" cudaError_t rmsnorm_fused_bf16(const forge_problem *p, cudaStream_t stream)
{
    size_t n = p->output_bytes[0] / 2;
    copy_rows<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>((const __nv_bfloat16 *)p->inputs[0],
                                                              (__nv_bfloat16 *)p->outputs[0], n);
    return cudaGetLastError();
}

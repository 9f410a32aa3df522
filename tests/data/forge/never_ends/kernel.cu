/* Hostile: the kernel waits for a flag that is never set, so the test
 * never finishes; only the wall-clock timeout ends it. */
#include <cuda_runtime.h>

#include "forge_abi.h"

__global__ void spin(volatile int *flag)
{
    while (*flag == 0) {
    }
}

extern "C" cudaError_t rmsnorm_fused_bf16(const forge_problem *p, cudaStream_t stream)
{
    /* The workspace is at least 4 bytes and zeroed by nobody: poison it to 0. */
    cudaMemsetAsync(p->workspace, 0, 4, stream);
    spin<<<1, 1, 0, stream>>>((volatile int *)p->workspace);
    return cudaGetLastError();
}

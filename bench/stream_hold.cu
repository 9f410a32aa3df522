/* stream_hold.cu - see stream_hold.h. */
#include <stdint.h>
#include <stdlib.h>

#include "stream_hold.h"

struct sb_stream_hold {
    volatile int *flag;        /* host view of the slots' flags (mapped) */
    int *flag_dev;             /* the device's view of the same memory */
    volatile int *timeouts;    /* holds that let go by their timeout */
    int *timeouts_dev;
    int slots;
    unsigned long long timeout_ns;
};

namespace {

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Spins (one thread) until the host sets *flag or timeout_ns pass. The
 * flag is read through a volatile pointer from mapped host memory, so each
 * read goes to the host; the sleep between reads keeps that traffic low. */
__global__ void stream_hold_k(const volatile int *flag, int *timeouts, unsigned long long timeout_ns)
{
    const unsigned long long t0 = global_ns();
    while (*flag == 0) {
        if (global_ns() - t0 > timeout_ns) {
            atomicAdd_system(timeouts, 1);
            return;
        }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
        __nanosleep(1000);
#endif
    }
}

} // namespace

extern "C" cudaError_t sb_stream_hold_open(sb_stream_hold **out, int slots, double timeout_ms)
{
    *out = NULL;
    if (slots < 1 || !(timeout_ms > 0)) return cudaErrorInvalidValue;
    sb_stream_hold *h = (sb_stream_hold *)calloc(1, sizeof *h);
    if (!h) return cudaErrorMemoryAllocation;
    void *mem = NULL;
    /* slots flags, then the timeout counter */
    cudaError_t e = cudaHostAlloc(&mem, sizeof(int) * (size_t)(slots + 1), cudaHostAllocMapped);
    if (e != cudaSuccess) {
        free(h);
        return e;
    }
    void *dev = NULL;
    if ((e = cudaHostGetDevicePointer(&dev, mem, 0)) != cudaSuccess) {
        cudaFreeHost(mem);
        free(h);
        return e;
    }
    h->flag = (volatile int *)mem;
    h->flag_dev = (int *)dev;
    h->timeouts = h->flag + slots;
    h->timeouts_dev = h->flag_dev + slots;
    h->slots = slots;
    h->timeout_ns = (unsigned long long)(timeout_ms * 1e6);
    for (int i = 0; i <= slots; i++) h->flag[i] = 0;
    *out = h;
    return cudaSuccess;
}

extern "C" void sb_stream_hold_close(sb_stream_hold *h)
{
    if (!h) return;
    cudaFreeHost((void *)h->flag);
    free(h);
}

extern "C" cudaError_t sb_stream_hold_launch(sb_stream_hold *h, int slot, cudaStream_t s)
{
    if (slot < 0 || slot >= h->slots) return cudaErrorInvalidValue;
    h->flag[slot] = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the reset is visible before the launch */
    stream_hold_k<<<1, 1, 0, s>>>(h->flag_dev + slot, h->timeouts_dev, h->timeout_ns);
    return cudaGetLastError();
}

extern "C" void sb_stream_hold_release(sb_stream_hold *h, int slot)
{
    if (slot < 0 || slot >= h->slots) return;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* every launch queued before the release */
    h->flag[slot] = 1;
}

extern "C" int sb_stream_hold_timeouts(const sb_stream_hold *h)
{
    return h ? h->timeouts[0] : 0; /* no hold: none timed out */
}

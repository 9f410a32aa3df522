/* output_scan.cu - the device side of output_scan.h: one pass over the
 * output, per-thread counts and sums, a warp reduction, one atomic add per
 * warp (the checksum is a sum modulo 2^64, so the order does not matter). */
#include "output_scan.h"

#include <cuda_runtime.h>

template <typename U>
__global__ void scan_k(const U *p, int64_t rows, int64_t cols, int64_t ld, sb_dtype d, uint64_t base,
                       unsigned long long *acc)
{
    uint64_t poison = 0, nonfinite = 0, sum = 0;
    const uint64_t n = (uint64_t)rows * (uint64_t)cols;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint64_t at = ld == cols ? i : (i / (uint64_t)cols) * (uint64_t)ld + i % (uint64_t)cols;
        uint64_t bits = (uint64_t)p[at];
        if (sb_bits_poison(bits, sizeof(U)))
            poison++;
        else if (sb_bits_nonfinite(bits, d))
            nonfinite++;
        sum += sb_checksum_term(base + i, bits);
    }
    for (int o = 16; o > 0; o >>= 1) {
        poison += __shfl_down_sync(0xffffffffu, poison, o);
        nonfinite += __shfl_down_sync(0xffffffffu, nonfinite, o);
        sum += __shfl_down_sync(0xffffffffu, sum, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&acc[0], (unsigned long long)poison);
        atomicAdd(&acc[1], (unsigned long long)nonfinite);
        atomicAdd(&acc[2], (unsigned long long)sum);
    }
}

extern "C" int sb_output_scan_device(const void *dev, int64_t rows, int64_t cols, int64_t ld, sb_dtype d,
                                     uint64_t base, void *scratch, void *cuda_stream, sb_output_scan *out)
{
    cudaStream_t st = (cudaStream_t)cuda_stream;
    unsigned long long *acc = (unsigned long long *)scratch, host[3] = {0, 0, 0};
    out->poison = out->nonfinite = 0;
    out->checksum = 0;
    cudaError_t e = cudaMemsetAsync(acc, 0, sizeof host, st);
    if (e != cudaSuccess)
        return (int)e;
    uint64_t n = (uint64_t)rows * (uint64_t)cols;
    if (n > 0) {
        const int threads = 256;
        uint64_t want = (n + threads - 1) / threads;
        unsigned blocks = (unsigned)(want < 8192 ? want : 8192);
        switch (sb_dtype_size(d)) {
        case 1: scan_k<uint8_t><<<blocks, threads, 0, st>>>((const uint8_t *)dev, rows, cols, ld, d, base, acc); break;
        case 2: scan_k<uint16_t><<<blocks, threads, 0, st>>>((const uint16_t *)dev, rows, cols, ld, d, base, acc); break;
        case 4: scan_k<uint32_t><<<blocks, threads, 0, st>>>((const uint32_t *)dev, rows, cols, ld, d, base, acc); break;
        case 8: scan_k<uint64_t><<<blocks, threads, 0, st>>>((const uint64_t *)dev, rows, cols, ld, d, base, acc); break;
        default: return (int)cudaErrorInvalidValue;
        }
        if ((e = cudaGetLastError()) != cudaSuccess)
            return (int)e;
    }
    if ((e = cudaMemcpyAsync(host, acc, sizeof host, cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
        (e = cudaStreamSynchronize(st)) != cudaSuccess)
        return (int)e;
    out->poison = (int64_t)host[0];
    out->nonfinite = (int64_t)host[1];
    out->checksum = host[2];
    return 0;
}

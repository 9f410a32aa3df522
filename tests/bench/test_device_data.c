/* test_device_data.c - on a GPU (exit 77 without one): the device fill
 * makes the host generator's values bit for bit, for every dtype it makes,
 * and the device output scan gives the host scan's counts and checksum,
 * padding and poison included. The kernels' float64 references rely on
 * both: they read inputs made on the device through sb_random_value. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "output_scan.h"
#include "random_fill.h"

static int failures;

static void expect(int cond, const char *what)
{
    printf("%s %s\n", cond ? "ok" : "FAIL", what);
    failures += !cond;
}

static void check_fill(sb_dtype d, size_t n)
{
    size_t bytes = n * sb_dtype_size(d);
    unsigned char *host = malloc(bytes), *back = malloc(bytes);
    void *dev = NULL;
    if (!host || !back || cudaMalloc(&dev, bytes) != cudaSuccess) {
        expect(0, "memory for the fill test");
        free(host);
        free(back);
        return;
    }
    sb_fill_random(host, n, d, -4.0, 4.0, 42, 1001);
    int rc = sb_fill_random_device(dev, n, d, -4.0, 4.0, 42, 1001, NULL);
    int copied = rc == 0 && cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
    size_t differ = 0;
    for (size_t i = 0; copied && i < n; i++)
        differ += memcmp(host + i * sb_dtype_size(d), back + i * sb_dtype_size(d), sb_dtype_size(d)) != 0;
    char what[128];
    snprintf(what, sizeof what, "device fill %s, %zu elements: %zu differ from the host's", sb_dtype_name(d), n,
             differ);
    expect(copied && differ == 0, what);
    /* the scan of that buffer, rows x cols with padding, a poisoned and a
     * non-finite element */
    int64_t rows = 1000, ld = (int64_t)(n / 1000), cols = ld - 3;
    memset(host + 5 * sb_dtype_size(d), 0xff, sb_dtype_size(d));
    sb_store_elem(host, (size_t)ld + 2, d, INFINITY);
    cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
    void *scratch = NULL;
    sb_output_scan hs, ds;
    sb_output_scan_host(host, rows, cols, ld, d, (uint64_t)2 << 56, &hs);
    int ok = cudaMalloc(&scratch, 64) == cudaSuccess &&
             sb_output_scan_device(dev, rows, cols, ld, d, (uint64_t)2 << 56, scratch, NULL, &ds) == 0;
    snprintf(what, sizeof what, "device scan %s: poison %lld/%lld, non-finite %lld/%lld, checksum %016llx/%016llx",
             sb_dtype_name(d), (long long)ds.poison, (long long)hs.poison, (long long)ds.nonfinite,
             (long long)hs.nonfinite, (unsigned long long)ds.checksum, (unsigned long long)hs.checksum);
    expect(ok && ds.poison == 1 && hs.poison == 1 && ds.nonfinite == 1 && hs.nonfinite == 1 &&
               ds.checksum == hs.checksum, what);
    cudaFree(scratch);
    cudaFree(dev);
    free(host);
    free(back);
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("test_device_data: no CUDA device, skipped\n");
        return 77;
    }
    const sb_dtype types[] = {SB_DTYPE_FP32, SB_DTYPE_TF32, SB_DTYPE_FP16, SB_DTYPE_BF16, SB_DTYPE_FP64};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        check_fill(types[t], ((size_t)1 << 24) + 1000 * 7);
    printf("%s\n", failures ? "test_device_data: FAILED" : "test_device_data: passed");
    return failures ? 1 : 0;
}

/* random_fill.h - sb_fill_random made on the device: the same values, bit
 * for bit (random_stream.h), written straight into device memory, so that
 * a multi-gigabyte input costs no host time, no host memory and no upload.
 * sb_random_value gives the float64 reference any element it needs. */
#ifndef SOLBOOK_BENCH_RANDOM_FILL_H
#define SOLBOOK_BENCH_RANDOM_FILL_H

#include <stddef.h>
#include <stdint.h>

#include "op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills n elements of dtype d at dev (on the given cudaStream_t; nothing
 * synchronises). Returns 0, -1 for a dtype it does not make (fp8: fill on
 * the host), or the cudaError_t of the launch. */
int sb_fill_random_device(void *dev, size_t n, sb_dtype d, double lo, double hi, uint64_t seed,
                          uint64_t stream_id, void *cuda_stream);

#ifdef __cplusplus
}
#endif

#endif

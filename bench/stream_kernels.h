/* stream_kernels.h - STREAM-like bandwidth kernels (copy, scale, add,
 * triad) over fp32 arrays: 16-byte (float4) loads and stores, grid-stride
 * loops, a grid of 4 blocks of 512 threads per SM. */
#ifndef SOLBOOK_BENCH_STREAM_KERNELS_H
#define SOLBOOK_BENCH_STREAM_KERNELS_H

#include <stdint.h>

#include "op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sb_stream_kind {
    SB_STREAM_COPY = 0, /* c[i] = a[i] */
    SB_STREAM_SCALE,    /* c[i] = s * a[i] */
    SB_STREAM_ADD,      /* c[i] = a[i] + b[i] */
    SB_STREAM_TRIAD     /* c[i] = a[i] + s * b[i] */
} sb_stream_kind;

/* n must be a multiple of 4 and the pointers 16-byte aligned. Returns -1
 * when refused (nothing launched); launch errors are left for
 * cudaGetLastError. */
int sb_stream_launch(sb_stream_kind kind, const float *a, const float *b, float *c, int64_t n, float s,
                     int sm_count, sb_stream stream);

/* The same kernels with another access pattern: each block moves whole
 * contiguous tiles of 512 x 4 float4 (32 KiB) and stores with the
 * streaming (evict-first) hint. The roofline keeps whichever is faster on
 * the card: a ceiling is the best the card delivers. */
int sb_stream_launch_tiled(sb_stream_kind kind, const float *a, const float *b, float *c, int64_t n, float s,
                           int sm_count, sb_stream stream);

#ifdef __cplusplus
}
#endif

#endif

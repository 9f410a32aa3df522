/* stream_kernels.h - STREAM-like bandwidth kernels (copy, scale, add,
 * triad, and a read-only row sum) over fp32 arrays with 16-byte (float4)
 * loads and stores, in a few
 * access patterns. A card's bandwidth ceiling is the best any pattern
 * reaches on it, so `solbench roofline` measures them all and keeps the
 * fastest; which one won is written into the calibration's notes. */
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
    SB_STREAM_TRIAD,    /* c[i] = a[i] + s * b[i] */
    /* c[r] = sum of a[r * SB_STREAM_READ_ROW ... + SB_STREAM_READ_ROW - 1]:
     * a read-only stream (one float written per 4 KiB read), the ceiling
     * of ops that read far more than they write. */
    SB_STREAM_READ
} sb_stream_kind;

/* Elements a row of the read kernel sums: one warp a row, 8 float4 loads
 * a lane, all in flight before the first add. */
#define SB_STREAM_READ_ROW 1024

typedef enum sb_stream_pattern {
    /* grid-stride loop, 4 independent float4 loads per thread before the
     * stores, 4 blocks of 512 threads per SM */
    SB_STREAM_GRID = 0,
    /* each block moves whole contiguous tiles of 512 x 4 float4 (32 KiB),
     * streaming (evict-first) loads and stores */
    SB_STREAM_TILED,
    /* no loop: one 256-thread block per 256 float4 (4 KiB), as many blocks
     * as the array needs; the block scheduler balances the SMs */
    SB_STREAM_FLAT1,
    /* no loop: one 256-thread block per 256 x 4 float4, 4 loads in flight
     * per thread */
    SB_STREAM_FLAT4
} sb_stream_pattern;

/* The read kernel's patterns: GRID and TILED walk rows with a grid sized
 * to the SMs (TILED with streaming loads), FLAT1 and FLAT4 give each row
 * its own warp (FLAT4 with streaming loads). b is unused; c receives
 * n / SB_STREAM_READ_ROW sums.
 *
 * n must be a multiple of 4 (of SB_STREAM_READ_ROW for the read kernel)
 * and the pointers 16-byte aligned. Returns -1
 * when refused (nothing launched); launch errors are left for
 * cudaGetLastError. */
int sb_stream_launch(sb_stream_kind kind, sb_stream_pattern pattern, const float *a, const float *b, float *c,
                     int64_t n, float s, int sm_count, sb_stream stream);

#ifdef __cplusplus
}
#endif

#endif

/* roofline.h - `solbench roofline`: the card's measured ceilings
 * (solbook.calibration.v1): STREAM copy/scale/add/triad, cudaMemcpy
 * device-to-device, and a cuBLASLt GEMM peak per dtype. */
#ifndef SOLBOOK_BENCH_ROOFLINE_H
#define SOLBOOK_BENCH_ROOFLINE_H

#include <jansson.h>
#include <stdint.h>

#include "error.h"
#include "harness.h"

typedef struct sb_roofline_opts {
    int64_t buffer_bytes;      /* per stream buffer */
    int64_t gemm_size;         /* M = N = K of the GEMM probes; 0 = none */
    uint64_t seed;
    sb_protocol_opts proto;
} sb_roofline_opts;

/* Runs every probe on ctx and builds the calibration document (provenance
 * copied from prov). Every probe must pass its correctness check; a GEMM
 * dtype the device or library does not support is left out and named in
 * notes. */
int sb_roofline_run(sb_ctx *ctx, const sb_roofline_opts *opts, const json_t *prov, json_t **out,
                    sb_error *err);

#endif

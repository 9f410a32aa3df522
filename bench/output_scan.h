/* output_scan.h - what the harness learns from a whole output without
 * downloading it: the elements still holding the poison (every byte 0xff),
 * the non-finite ones, and a checksum. Only the sampled rows then cross to
 * the host, so a 4 GB output costs one pass on the device, not a copy and
 * a byte-at-a-time hash on the host.
 *
 * The checksum ("sum-mix64") is the sum, modulo 2^64, over the elements of
 * mix64(bits ^ mix64(index + K)): bits is the element's stored bit pattern
 * (zero-extended), index its row-major position in the rows x cols view
 * (padding between rows is left out) plus a base: the harness numbers the
 * outputs of a case from o << 56, so that a result's checksum, the sum of
 * its outputs' checksums, is the same sum over all of their elements. Every term is a bijection of the
 * element's bits, so outputs that differ in one element always differ in
 * checksum, and differences in several elements cancel with probability
 * about 2^-64. The sum does not depend on the order of the terms, so the
 * device adds them in parallel and the host in a loop, to the same value. */
#ifndef SOLBOOK_BENCH_OUTPUT_SCAN_H
#define SOLBOOK_BENCH_OUTPUT_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "op.h"
#include "random_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_CHECKSUM_ALGORITHM "sum-mix64"

typedef struct sb_output_scan {
    int64_t poison;    /* elements whose every byte is still 0xff */
    int64_t nonfinite; /* other elements that are NaN or infinite */
    uint64_t checksum; /* SB_CHECKSUM_ALGORITHM over all rows x cols */
} sb_output_scan;

/* One element's term of the checksum. */
SB_HD uint64_t sb_checksum_term(uint64_t index, uint64_t bits)
{
    return sb_mix64(bits ^ sb_mix64(index + 0x6a09e667f3bcc909ull));
}

/* Whether stored bits of dtype d (es bytes) are all ones / not finite. */
SB_HD int sb_bits_poison(uint64_t bits, size_t es)
{
    return es >= 8 ? bits == ~0ull : bits == (1ull << (8 * es)) - 1;
}
SB_HD int sb_bits_nonfinite(uint64_t bits, sb_dtype d)
{
    switch (d) {
    case SB_DTYPE_FP64: return ((bits >> 52) & 0x7ff) == 0x7ff;
    case SB_DTYPE_FP32:
    case SB_DTYPE_TF32: return ((bits >> 23) & 0xff) == 0xff;
    case SB_DTYPE_FP16: return ((bits >> 10) & 0x1f) == 0x1f;
    case SB_DTYPE_BF16: return ((bits >> 7) & 0xff) == 0xff;
    case SB_DTYPE_FP8E4M3: return (bits & 0x7f) == 0x7f;
    default: return 1;
    }
}

/* A buffer in host memory (the CPU path). */
void sb_output_scan_host(const void *buf, int64_t rows, int64_t cols, int64_t ld, sb_dtype d,
                         uint64_t index_base, sb_output_scan *out);

/* A buffer in device memory. scratch: 3 x 8 bytes of device memory, the
 * caller's. Waits for the stream; returns 0 or the cudaError_t. */
int sb_output_scan_device(const void *dev, int64_t rows, int64_t cols, int64_t ld, sb_dtype d,
                          uint64_t index_base, void *scratch, void *cuda_stream, sb_output_scan *out);

#ifdef __cplusplus
}
#endif

#endif

/* gemm_mma.h - solbook-mma, the project's own tensor-core GEMM (WMMA,
 * mma.sync underneath): row-major C[M,N] = op(A)[M,K] op(B)[K,N], fp16 or
 * bf16 inputs and output, fp32 accumulation, one 128x128x32 tile per
 * 256-thread block, cp.async double buffering. No split-K and no atomics,
 * so it is deterministic and batch invariant. It accepts only M and N
 * multiples of 128, K a multiple of 32, and compute capability >= 8.0.
 */
#ifndef SOLBOOK_BENCH_GEMM_MMA_H
#define SOLBOOK_BENCH_GEMM_MMA_H

#include <stdint.h>

#include "op.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_MMA_TILE_M 128
#define SB_MMA_TILE_N 128
#define SB_MMA_TILE_K 32

/* dtype: SB_DTYPE_FP16 or SB_DTYPE_BF16. trans_a / trans_b: 0 = A stored
 * [M,K] (B [K,N]), 1 = A stored [K,M] (B [N,K]). lda / ldb are the row
 * strides of the stored matrices, ldc that of C. Returns 0, or -1 for a
 * refused shape/dtype (nothing launched). Launch errors are left for
 * cudaGetLastError. */
int sb_mma_gemm_launch(sb_dtype dtype, int trans_a, int trans_b, int64_t M, int64_t N,
                       int64_t K, const void *A, int64_t lda, const void *B, int64_t ldb,
                       void *C, int64_t ldc, sb_stream stream);

#ifdef __cplusplus
}
#endif

#endif

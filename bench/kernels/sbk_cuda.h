/* sbk_cuda.h - host launchers of the solbench CUDA kernels (C interface).
 *
 * Every launcher takes device pointers, sizes, element types, a stream, and
 * returns the launch's cudaError_t (cudaSuccess, cudaErrorInvalidValue for a
 * size or type it does not take, or the first launch / cuBLAS failure mapped
 * to cudaErrorUnknown). Nothing synchronises; nothing allocates: scratch
 * memory is the caller's, sized by the *_workspace functions, so that the
 * caller can count it.
 *
 * Two providers per op (docs/KERNELS.md):
 *   sbk_<op>_*        `fused`: one kernel (or a few) per op, 16-byte vector
 *                     loads/stores, a block per row with the row held in
 *                     registers when it fits, fp32 math, warp-shuffle
 *                     reductions.
 *   sbk_eager_<op>_*  `reference`: what the Hugging Face eager code does, the
 *                     way PyTorch eager runs it: one kernel per elementary
 *                     op, fp32 intermediates written to device memory (the
 *                     input is upcast first and the output downcast last).
 *
 * Layouts are row-major and contiguous. Weights (w, b) are stored in the
 * input type or in fp32 (wdt). Targets are int64 with SBK_IGNORE_INDEX
 * (-100) for ignored rows. Losses are fp32 (per row and the mean over the
 * rows that are not ignored).
 */
#ifndef SOLBOOK_BENCH_KERNELS_SBK_CUDA_H
#define SOLBOOK_BENCH_KERNELS_SBK_CUDA_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "sbk_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- normalisation and row ops (fused) ---------------------------------- */

/* y = x * rsqrt(mean(x^2) + eps) * w, rounded once to dt, launched as a
 * plan says (made once per case by sbk_rmsnorm_fwd_plan_make): one block
 * a row, or a cluster of `cluster` blocks a row (Hopper on), each block
 * holding a slice of N / cluster columns in registers (maxv 16-byte
 * vectors a thread), in shared memory (smem, smem_bytes a block), or, for
 * a whole row too long for registers, in memory, read twice; the weight
 * is read (from L2) with every row. A null plan or misaligned pointers run
 * with one block a row. */
typedef struct sbk_rmsnorm_fwd_plan {
    int cluster, smem, maxv, threads;
    /* cache hints, SBK_FWD_PLAIN_* bits; 0 (the default): x read with
     * ld.global.cs (a row held in registers; the other layouts read x as
     * they always do) and y written with st.global.cs */
    int hints;
    size_t smem_bytes;
} sbk_rmsnorm_fwd_plan;
#define SBK_FWD_PLAIN_LOAD 1
#define SBK_FWD_PLAIN_STORE 2
/* request: NULL or "auto", the measured default (docs/KERNELS.md); or
 * "block" or "smem", optionally ":C" with C in 1, 2, 4, 8 (blocks a row,
 * default 1); or "l2v1", "l2v2", "l2v4" ("l2" alone: 4), the row left in
 * memory and read in both passes, the first with an L2 evict-last policy,
 * Q 16-byte vectors in flight a thread (maxv -11, -12, -14), 512 threads;
 * any of them optionally followed by "/cs" (the default hints),
 * "/plain-load", "/plain-store" or "/plain" (both), for experiments.
 * Returns 0, or -1 for a request it cannot parse or that cannot take this
 * shape or card. */
int sbk_rmsnorm_fwd_plan_make(int64_t M, int64_t N, sbk_dtype dt, sbk_dtype wdt,
                              const char *request, sbk_rmsnorm_fwd_plan *plan);
/* e.g. "block:1 threads=224 vectors=4", "smem:4 threads=256 smem_bytes=32768",
 * "block:1 threads=256 vectors=4 hints=plain-store" */
void sbk_rmsnorm_fwd_plan_name(const sbk_rmsnorm_fwd_plan *plan, char *buf, size_t n);
cudaError_t sbk_rmsnorm_fwd(const void *x, const void *w, void *y, int64_t M,
                            int64_t N, float eps, sbk_dtype dt, sbk_dtype wdt,
                            const sbk_rmsnorm_fwd_plan *plan, cudaStream_t s);
/* dx (dt) and dw (wdt). dw goes through partial sums: block g of G
 * blocks sums rows g, g+G, ... into partial[g,:] (fp32, G x N), then a
 * second kernel sums the G partials of each column in a fixed order:
 * bitwise deterministic for a given G. A row too long for one block is
 * split over a cluster of blocks (Hopper on): then G clusters, cluster g
 * summing into partial[g,:]. How it launches is a plan made once per case
 * (sbk_rmsnorm_bwd_plan_make, not at each timed launch): the kernel and
 * its shape for aligned rows, G (`blocks`: one wave of blocks or clusters
 * on the current device, at most SBK_RMSNORM_BWD_MAX_BLOCKS blocks;
 * without a device, that cap), the size partial must have, and `name`,
 * what run_params records: layout, cluster (bulk: its stages), block
 * size, shared memory and whether the partials are dropped from L2. By
 * default, on Hopper cards with at least 30 GB/s of DRAM bandwidth an SM
 * (the H200, not the H100 SXM), rows of x and dy up to 32 KiB together
 * (16-bit 6144 excepted) go through the bulk layout when each block of
 * the wave walks at least 12 of them (docs/KERNELS.md). */
#define SBK_RMSNORM_BWD_MAX_BLOCKS 512
typedef struct sbk_rmsnorm_bwd_plan {
    const void *fn;
    int threads, cluster, discard;
    size_t smem;
    int64_t blocks;
    char name[96];
} sbk_rmsnorm_bwd_plan;
/* 0, or -1 for a shape or weight type it cannot take */
int sbk_rmsnorm_bwd_plan_make(int64_t M, int64_t N, sbk_dtype dt, sbk_dtype wdt, sbk_rmsnorm_bwd_plan *plan);
/* The experiments' switches SOLBENCH_RMSNORM_BWD_LAYOUT (auto: the default; regs, smem1 or
 * split: the layout of rows between the double buffer and registers' end;
 * bulk or bulk:S, any row of whole vectors up to 16384 bf16 or 8192 fp32,
 * Hopper on: S rows of x and dy in flight a block, copied into shared
 * memory by cp.async.bulk, S from 2 to 16, default as many as fit 64 KiB
 * and at least 3) and SOLBENCH_RMSNORM_BWD_DISCARD (0: the partials
 * written back from L2): 0 when unset or valid, else -1 with the line in
 * bad. Read where the plan is made. */
int sbk_rmsnorm_bwd_env_check(char *bad, size_t n);
cudaError_t sbk_rmsnorm_bwd(const void *dy, const void *x, const void *w, void *dx, void *dw, float *partial,
                            const sbk_rmsnorm_bwd_plan *plan, int64_t M, int64_t N, float eps, sbk_dtype dt,
                            sbk_dtype wdt, cudaStream_t s);
/* The one-row kernels below, and the RMSNorm forward's block plans, hold
 * a row in registers with the fewest 16-byte vectors a thread that fit 256
 * threads, but at most 4 vectors of row data a thread where 512 threads
 * can hold the row with fewer; SOLBENCH_ROW_VECTORS=K (1, 2, 4 or 8), for
 * experiments, makes that cap K (8: 256 threads whenever they fit);
 * SOLBENCH_ROW_VECTORS=l2v2 or l2v4 reads the LayerNorm forward's row
 * through L2 in all three passes, and the softmax backward's dy and y in
 * both of its (evict-last until the last, 2 or 4 vectors of a row in
 * flight a thread, 512 threads; l2fit: 4 vectors a thread, of one row or
 * 2 of each of the two, and as few warps as hold the row so; the other
 * kernels keep the cap of 4).
 * 0 when it is unset or valid, else -1 with the line in bad. */
int sbk_row_vectors_env_check(char *bad, size_t n);
#define SBK_ROW_L2FIT (-12)
/* That cap: SOLBENCH_ROW_VECTORS when it is valid (l2v2, l2v4: -2, -4;
 * l2fit: SBK_ROW_L2FIT), else 4. Read once per case and passed to the
 * launchers below as `most`. */
int sbk_row_vectors(void);
/* SBK_ROWS_RMSNORM_FWD: the RMSNorm forward's plan, for sbk_row_l2_default alone */
typedef enum {
    SBK_ROWS_ADD_RMSNORM,
    SBK_ROWS_LAYERNORM,
    SBK_ROWS_SOFTMAX_FWD,
    SBK_ROWS_SOFTMAX_BWD,
    SBK_ROWS_RMSNORM_FWD
} sbk_rows_kernel;
/* The measured default for wide rows on cards with much DRAM
 * bandwidth an SM (docs/KERNELS.md): 4 (row_l2's vectors in flight) when
 * kernel k reads rows of M x N dt through L2 on a card of gbps_per_sm GB/s
 * of DRAM an SM, else 0. The RMSNorm forward's "auto" plan takes it. */
int sbk_row_l2_default(sbk_rows_kernel k, int64_t M, int64_t N, sbk_dtype dt, double gbps_per_sm);
/* `most` for kernel k's rows of M x N on this card: SOLBENCH_ROW_VECTORS
 * when set, else SBK_ROW_L2FIT where sbk_row_l2_default gives 4, else 4. Made once per
 * case (it queries the device). */
int sbk_rows_most(sbk_rows_kernel k, int64_t M, int64_t N, sbk_dtype dt);
/* What kernel k launches for rows of N (aligned) under the cap `most`, for run_params: e.g.
 * "registers threads=224 vectors=4", "smem threads=256 smem_bytes=16384", "l2v4 threads=512". */
void sbk_rows_layout_name(sbk_rows_kernel k, int64_t N, sbk_dtype dt, int most, char *buf, size_t n);
/* vLLM fused_add_rms_norm: res_out = x + res (rounded to dt);
 * x_out = rmsnorm(res_out) * w. x_out may be x and res_out may be res
 * (in place): each element is read by the thread that later writes it. */
cudaError_t sbk_add_rmsnorm(const void *x, const void *res, const void *w,
                            void *x_out, void *res_out, int64_t M, int64_t N,
                            float eps, sbk_dtype dt, sbk_dtype wdt,
                            int most, cudaStream_t s);
/* y = (x - mean) * rsqrt(var + eps) * w + b (biased variance). */
cudaError_t sbk_layernorm_fwd(const void *x, const void *w, const void *b,
                              void *y, int64_t M, int64_t N, float eps,
                              sbk_dtype dt, sbk_dtype wdt, int most, cudaStream_t s);
cudaError_t sbk_softmax_fwd(const void *x, void *y, int64_t M, int64_t N,
                            sbk_dtype dt, int most, cudaStream_t s);
/* dx = y * (dy - sum(dy * y)). */
cudaError_t sbk_softmax_bwd(const void *dy, const void *y, void *dx, int64_t M,
                            int64_t N, sbk_dtype dt, int most, cudaStream_t s);

/* ---- elementwise (fused) -------------------------------------------------- */

/* How an elementwise kernel (RoPE, SwiGLU) covers its items (16-byte
 * vectors): a grid-stride loop (tile 0; grid capped at 32 blocks of 256
 * threads for each of 132 SMs) or one tile of threads * per_thread items a
 * block with a grid that covers them all (tile 1); each thread loads
 * per_thread items (1, 2 or 4) before it computes any. */
typedef struct sbk_elem_plan {
    int tile;
    int per_thread;
    int threads; /* 128 or 256 */
} sbk_elem_plan;
typedef enum { SBK_ELEM_ROPE, SBK_ELEM_SWIGLU } sbk_elem_kernel;
/* request: NULL, "" or "auto", kernel k's measured default
 * (docs/KERNELS.md); or "stride" or "tile", optionally ":1", ":2" or ":4"
 * (per_thread), then optionally "/128" or "/256" (threads) --
 * SOLBENCH_ELEM_PLAN, for experiments. 0, or -1 for a request it does not
 * know (then *p is the default). */
int sbk_elem_plan_make(sbk_elem_kernel k, const char *request, sbk_elem_plan *p);
/* e.g. "stride:1 threads=256", for run_params */
void sbk_elem_plan_name(const sbk_elem_plan *p, char *buf, size_t n);

/* HF rotate_half RoPE, q [B,T,Hq,D], k [B,T,Hk,D], cos/sin [T,D], all dt.
 * inverse = 1: the backward (dq, dk from dq_out, dk_out). Sizes or
 * addresses that are not whole 16-byte vectors run single elements in the
 * default plan, whatever plan says. */
cudaError_t sbk_rope(const void *q, const void *k, const void *cos_t,
                     const void *sin_t, void *q_out, void *k_out, int64_t B,
                     int64_t T, int64_t Hq, int64_t Hk, int64_t D, int inverse,
                     sbk_dtype dt, const sbk_elem_plan *plan, cudaStream_t s);
/* c = silu(a) * b over n elements; backward da, db from dc. */
cudaError_t sbk_swiglu_fwd(const void *a, const void *b, void *c, int64_t n,
                           sbk_dtype dt, const sbk_elem_plan *plan, cudaStream_t s);
cudaError_t sbk_swiglu_bwd(const void *dc, const void *a, const void *b,
                           void *da, void *db, int64_t n, sbk_dtype dt,
                           const sbk_elem_plan *plan, cudaStream_t s);

/* ---- cross entropy (fused) ------------------------------------------------ */

/* Scratch: one int (the count of rows that are not ignored). */
#define SBK_CE_WORKSPACE_BYTES ((size_t)256)
/* Targets must be in [0, V) or SBK_IGNORE_INDEX (the kernel does not check;
 * the solbench op generates valid ones).
 * The row's max and sum of exponentials, then, when dx != NULL, the
 * gradient (softmax - onehot) / n_valid written in a second pass over the
 * row, held as row_plan says (SBK_CE_ROW_*, below: in one block's shared
 * memory, in cluster slices, or read again from memory or L2).
 * dx may equal logits (in place). */
cudaError_t sbk_cross_entropy(const void *logits, const int64_t *target,
                              float *loss_rows, float *loss, void *dx,
                              void *workspace, int64_t M, int64_t V,
                              sbk_dtype dt, int row_plan, cudaStream_t s);
/* How the fused kernels hold a row of logits (row_plan): AUTO, the
 * measured default (fused_ce.cu, ce_auto); SMEM, the whole row in one block's shared memory when
 * it fits; REGS, in registers or left in memory and re-read; L2, read
 * through L2 with 4 vectors in flight a thread (evict-last while the
 * gradient's pass is still to come); CLUSTER(C), slices of V / C in the
 * shared memory of the C blocks of a cluster (Hopper on). A plan that does
 * not fit the row (alignment, size, card) falls back to SMEM's choice. */
#define SBK_CE_ROW_AUTO 0
#define SBK_CE_ROW_SMEM 1
#define SBK_CE_ROW_REGS 2
#define SBK_CE_ROW_L2 3
#define SBK_CE_ROW_CLUSTER(C) (10 + (C))
/* SOLBENCH_CE_ROW (auto when unset; smem, regs, l2, cluster:2|4|8): the
 * plan, or -1 with a one-line message in bad. Read once per case. */
int sbk_ce_row_plan(char *bad, size_t n);
/* The plan AUTO takes for a row of V logits of dt (aligned), for the loss
 * alone (grad 0) or with the gradient, on a card whose blocks may have
 * smem_limit bytes of shared memory (Hopper's cluster plans where a card
 * has none fall back when launched). */
int sbk_ce_row_default(int64_t V, sbk_dtype dt, int grad, size_t smem_limit);
/* What runs for a row of V logits of dt under plan on this device, for
 * the loss alone (grad 0) or with the gradient, for a result's run
 * parameters: e.g. "smem threads=256 smem_bytes=24576", "cluster:4
 * threads=256 smem_bytes=64128", "l2v4 threads=512". */
void sbk_ce_row_name(int plan, int64_t V, sbk_dtype dt, int grad, char *buf, size_t n);

/* Fused linear + cross entropy: hidden [BT,H], weight [V,H] (dt), in row
 * chunks (never more than BT rows) or vocabulary slices, all on stream s
 * (handle must have s set as its stream). Three ways to handle dW:
 * - SBK_FLCE_ACCUM_INPUT (Liger's default): the chunk's logits are written
 *   by cublasGemmEx in dt, the fused CE overwrites them in place with the
 *   dlogits, dh rows = dlogits x W, and dw (dt) += dlogits^T x H, rounded
 *   to dt once per chunk. Chunk rows (chunk = 0): the larger of Liger's
 *   rule, the next power of two of ceil(BT / ceil(V/H)), and the largest
 *   power of two of rows whose logits fit in 128 MiB. Scratch: that chunk.
 * - SBK_FLCE_ACCUM_FP32: fp32 logits, separate dt dlogits, and an fp32 dW
 *   accumulator (V x H x 4 bytes) rounded to dt once at the end; chunk rows
 *   as above with 1 GiB for the fp32 logits and dlogits, or all BT rows
 *   at once when that chunk costs no more than those chunks plus the
 *   accumulator. With one chunk there is no accumulator: the one dW GEMM
 *   rounds its fp32 sums to dt itself.
 * - SBK_FLCE_ACCUM_VOCAB: no dW accumulator at all. The vocabulary is cut
 *   into slices of columns instead of rows; a first pass computes each
 *   slice's fp32 logits over all BT rows and folds them into each row's
 *   running max and sum (the loss), a second pass (with a gradient)
 *   computes them again, the dlogits (dt), dH += dlogits x W_slice in an
 *   fp32 [BT,H] accumulator, and dW_slice = dlogits^T x hidden in one GEMM
 *   over all rows, rounded to dt once. One more logits GEMM than the row
 *   chunks, for V x H x 4 bytes less. Slice columns (chunk = 0): the most
 *   whole 256-column steps whose fp32 logits and dt dlogits fit in
 *   SBK_FLCE_SLICE_BUDGET bytes, at least 1024; chunk > 0 is the columns.
 *   Scratch: the slice, its dlogits, the dH accumulator (not for fp32)
 *   and three floats a row.
 * The loss alone (no dh, no dw) with SBK_FLCE_ACCUM_FP32 takes the
 * vocabulary slices too (sbk_flce_by_vocab): one GEMM a slice, as fast as
 * the row chunks, in less scratch. */
enum { SBK_FLCE_ACCUM_INPUT = 0, SBK_FLCE_ACCUM_FP32 = 1, SBK_FLCE_ACCUM_VOCAB = 2 };
/* 1 when FLCE with this accum runs over vocabulary slices */
int sbk_flce_by_vocab(int accum, int with_grad);
#define SBK_FLCE_SLICE_BUDGET ((size_t)64 << 20)
int64_t sbk_flce_chunk_rows(int64_t BT, int64_t H, int64_t V, int64_t chunk, sbk_dtype dt, int accum);
int64_t sbk_flce_slice_cols(int64_t BT, int64_t V, int64_t chunk, sbk_dtype dt, int with_grad);
/* with_grad = 0: scratch for the loss alone (dh and dw NULL) */
size_t sbk_flce_workspace(int64_t BT, int64_t H, int64_t V, int64_t chunk,
                          sbk_dtype dt, int accum, int with_grad);
cudaError_t sbk_flce_fused(cublasHandle_t handle, const void *hidden,
                           const void *weight, const int64_t *target,
                           float *loss_rows, float *loss, void *dh, void *dw,
                           void *workspace, int64_t BT, int64_t H, int64_t V,
                           int64_t chunk, sbk_dtype dt, int accum, int row_plan, cudaStream_t s);

/* ---- reference providers (eager) ----------------------------------------- */

/* Scratch bytes each reference needs (fp32 intermediates), and the
 * launchers. The bwd references read the tensors PyTorch autograd would have
 * saved in the forward (`saved`), which sbk_eager_*_save computes once
 * outside the timed region. */
size_t sbk_eager_rmsnorm_fwd_workspace(int64_t M, int64_t N, sbk_dtype dt);
/* saved (may be NULL; sbk_eager_rmsnorm_saved_bytes) receives what
 * autograd keeps: fp32 x, rsqrt per row, the normalised x in dt. */
cudaError_t sbk_eager_rmsnorm_fwd(const void *x, const void *w, void *y,
                                  void *saved, void *ws, int64_t M, int64_t N,
                                  float eps, sbk_dtype dt, sbk_dtype wdt,
                                  cudaStream_t s);
size_t sbk_eager_rmsnorm_saved_bytes(int64_t M, int64_t N, sbk_dtype dt);
size_t sbk_eager_rmsnorm_bwd_workspace(int64_t M, int64_t N, sbk_dtype dt);
cudaError_t sbk_eager_rmsnorm_save(const void *x, void *saved, void *ws,
                                   int64_t M, int64_t N, float eps,
                                   sbk_dtype dt, cudaStream_t s);
cudaError_t sbk_eager_rmsnorm_bwd(const void *dy, const void *w,
                                  const void *saved, void *dx, void *dw,
                                  void *ws, int64_t M, int64_t N, sbk_dtype dt,
                                  sbk_dtype wdt, cudaStream_t s);
size_t sbk_eager_add_rmsnorm_workspace(int64_t M, int64_t N, sbk_dtype dt);
cudaError_t sbk_eager_add_rmsnorm(const void *x, const void *res,
                                  const void *w, void *x_out, void *res_out,
                                  void *ws, int64_t M, int64_t N, float eps,
                                  sbk_dtype dt, sbk_dtype wdt, cudaStream_t s);
size_t sbk_eager_layernorm_fwd_workspace(int64_t M, int64_t N, sbk_dtype dt);
cudaError_t sbk_eager_layernorm_fwd(const void *x, const void *w,
                                    const void *b, void *y, void *ws,
                                    int64_t M, int64_t N, float eps,
                                    sbk_dtype dt, sbk_dtype wdt,
                                    cudaStream_t s);
size_t sbk_eager_softmax_workspace(int64_t M, int64_t N, sbk_dtype dt);
cudaError_t sbk_eager_softmax_fwd(const void *x, void *y, void *ws, int64_t M,
                                  int64_t N, sbk_dtype dt, cudaStream_t s);
cudaError_t sbk_eager_softmax_bwd(const void *dy, const void *y, void *dx,
                                  void *ws, int64_t M, int64_t N, sbk_dtype dt,
                                  cudaStream_t s);
size_t sbk_eager_rope_workspace(int64_t B, int64_t T, int64_t Hq, int64_t Hk,
                                int64_t D, sbk_dtype dt);
cudaError_t sbk_eager_rope(const void *q, const void *k, const void *cos_t,
                           const void *sin_t, void *q_out, void *k_out,
                           void *ws, int64_t B, int64_t T, int64_t Hq,
                           int64_t Hk, int64_t D, int inverse, sbk_dtype dt,
                           cudaStream_t s);
size_t sbk_eager_swiglu_workspace(int64_t n, sbk_dtype dt);
cudaError_t sbk_eager_swiglu_fwd(const void *a, const void *b, void *c,
                                 void *ws, int64_t n, sbk_dtype dt,
                                 cudaStream_t s);
/* saved = silu(a) (fp32, n floats: sbk_eager_swiglu_workspace bytes), as
 * autograd keeps it for the product's backward. */
cudaError_t sbk_eager_swiglu_save(const void *a, void *saved, int64_t n,
                                  sbk_dtype dt, cudaStream_t s);
cudaError_t sbk_eager_swiglu_bwd(const void *dc, const void *a, const void *b,
                                 const void *saved, void *da, void *db,
                                 void *ws, int64_t n, sbk_dtype dt,
                                 cudaStream_t s);
/* logits.float() -> log_softmax -> nll_loss(mean); backward when dx. */
size_t sbk_eager_cross_entropy_workspace(int64_t M, int64_t V, int with_grad);
cudaError_t sbk_eager_cross_entropy(const void *logits, const int64_t *target,
                                    float *loss_rows, float *loss, void *dx,
                                    void *ws, int64_t M, int64_t V,
                                    sbk_dtype dt, cudaStream_t s);
/* Full logits [BT,V] materialised in fp32 by one cublasGemmEx, then the
 * eager CE and its backward (dlogits stored in dt, as autograd hands them
 * to the Linear backward), then dh = dlogits x W and dw = dlogits^T x H. */
size_t sbk_eager_flce_workspace(int64_t BT, int64_t H, int64_t V,
                                sbk_dtype dt, int with_grad);
cudaError_t sbk_eager_flce(cublasHandle_t handle, const void *hidden,
                           const void *weight, const int64_t *target,
                           float *loss_rows, float *loss, void *dh, void *dw,
                           void *ws, int64_t BT, int64_t H, int64_t V,
                           sbk_dtype dt, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif

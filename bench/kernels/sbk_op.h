/* sbk_op.h - what the solbench op files of bench/kernels/ (op_*.c) share:
 * tensors with per-input-set device copies and a host copy of set 0,
 * scratch memory counted by the harness, the provider list, and the ops'
 * declarations for bench/op_table.c. */
#ifndef SOLBOOK_BENCH_KERNELS_SBK_OP_H
#define SOLBOOK_BENCH_KERNELS_SBK_OP_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "op.h"
#include "sbk_types.h"

/* The ops of bench/kernels/, for bench/op_table.c. */
extern const sb_op sb_op_rmsnorm;
extern const sb_op sb_op_add_rmsnorm;
extern const sb_op sb_op_layernorm;
extern const sb_op sb_op_softmax;
extern const sb_op sb_op_rope;
extern const sb_op sb_op_swiglu;
extern const sb_op sb_op_cross_entropy;
extern const sb_op sb_op_flce;
/* The entries of sb_op_table for them. */
#define SBK_OP_TABLE_ENTRIES                                                              \
    &sb_op_rmsnorm, &sb_op_add_rmsnorm, &sb_op_layernorm, &sb_op_softmax, &sb_op_rope,    \
        &sb_op_swiglu, &sb_op_cross_entropy, &sb_op_flce,

/* Providers of every op here, in this order. */
enum { SBK_P_REFERENCE = 0, SBK_P_FUSED = 1, SBK_P_CPU = 2 };
extern const sb_provider sbk_providers[];

/* Dtypes the kernels take (a mask for sb_op.dtypes). */
#define SBK_DTYPES (SB_DTYPE_BIT(SB_DTYPE_FP32) | SB_DTYPE_BIT(SB_DTYPE_FP16) | SB_DTYPE_BIT(SB_DTYPE_BF16))

/* A tensor: `sets` device copies (inputs rotate through them; outputs and
 * constants have one) and, for inputs, what the float64 reference reads of
 * set 0: a host copy, or (random inputs made on the device) the generator
 * that made it, which gives any element without a copy (sbk_h). */
typedef struct sbk_tensor {
    sb_dtype dtype;
    size_t n;        /* elements */
    int sets;
    void **dev;      /* [sets] */
    void *host;      /* set 0, or NULL */
    int generated;   /* set 0 is sb_fill_random(lo, hi, seed, stream) */
    double lo, hi;
    uint64_t seed, stream;
} sbk_tensor;

/* Random input in [lo, hi), seeded by (seed, stream + 1000 * set). On a
 * GPU it is made on the device (random_fill.h), with no host copy; on the
 * CPU path, in host memory. Either way sbk_h reads the same values. */
int sbk_tensor_random(sb_ctx *ctx, sbk_tensor *t, int sets, sb_dtype dt, size_t n, double lo,
                      double hi, uint64_t seed, uint64_t stream, sb_error *err);
/* Input with given host contents (taken over: freed with the tensor), the
 * same in every set. */
int sbk_tensor_from_host(sb_ctx *ctx, sbk_tensor *t, int sets, sb_dtype dt, size_t n, void *host,
                         sb_error *err);
/* Output (one device buffer, no host copy). */
int sbk_tensor_output(sb_ctx *ctx, sbk_tensor *t, sb_dtype dt, size_t n, sb_error *err);
void sbk_tensor_free(sb_ctx *ctx, sbk_tensor *t);
/* Element i of set 0, widened (from the host copy or the generator). */
double sbk_h(const sbk_tensor *t, size_t i);
/* The set-th device copy (set modulo the copies there are). */
void *sbk_dev(const sbk_tensor *t, int set);

/* int64 targets in [0, V), a fraction ignore_frac of them SBK_IGNORE_INDEX
 * (row 0 is never ignored), the same in every set. */
int sbk_targets(sb_ctx *ctx, sbk_tensor *t, int sets, int64_t M, int64_t V, double ignore_frac,
                uint64_t seed, sb_error *err);
int64_t sbk_target(const sbk_tensor *t, int64_t r);

/* Scratch memory of one provider, through sb_ctx_alloc so that it counts in
 * peak_device_bytes. sbk_scratch_drop frees it when another provider comes
 * (called from supports(), before the harness takes its memory baseline). */
typedef struct sbk_scratch {
    void *ptr;
    size_t bytes;
    int provider;    /* -1: none */
} sbk_scratch;
int sbk_scratch_get(sb_ctx *ctx, sbk_scratch *s, int provider, size_t bytes, sb_error *err);
void sbk_scratch_drop(sb_ctx *ctx, sbk_scratch *s, int provider);

sbk_dtype sbk_from_sb(sb_dtype d);
/* "same" or "fp32" param (weight_dtype) -> the weights' sb_dtype. */
int sbk_weight_dtype(const sb_op_config *cfg, const char *op, sb_dtype *out, sb_error *err);
int sbk_cuda_error(sb_error *err, const char *what, cudaError_t e);
int sbk_cublas_error(sb_error *err, const char *what, cublasStatus_t st);
/* free device memory now (GPU path), or -1 */
int64_t sbk_free_device_bytes(const sb_ctx *ctx);
/* splitmix64 step */
uint64_t sbk_mix(uint64_t *state);

/* Runs fn(arg, part) for part = 0 .. parts-1 over up to 16 threads, and
 * returns when all are done. For float64 references over every row: each
 * part sums its own rows into its own slot and the caller adds the slots
 * in part order, so the result does not depend on the thread count. */
void sbk_parallel(int parts, void (*fn)(void *arg, int part), void *arg);
/* Rows [*r0, *r1) of part p of parts over M rows. */
void sbk_part_rows(int64_t M, int parts, int p, int64_t *r0, int64_t *r1);

/* Tolerance helpers for reference_row's scale (the harness checks
 * |out - ref| <= atol * scale + rtol * |ref| with atol, rtol of the dtype):
 * sbk_flip_scale: the scale that one rounding step of g in dt costs (an ulp
 *   of g over atol: 2u|g| where g is normal in dt, the subnormal step
 *   below), for a term the op rounds to dt before summing it, which an fp32
 *   value within a rounding error of a tie may round the other way;
 * sbk_scale_floor: adds to every scale the dtype's smallest subnormal step
 *   (over atol), the absolute resolution of results near zero. */
double sbk_flip_scale(sb_dtype dt, double g);
void sbk_scale_floor(double *scale, int64_t n, sb_dtype out_dt);

/* Shape values must be positive and below 2^31 (rows index blocks). */
int sbk_check_dims(const sb_op_config *cfg, const char *op, const char *const *names,
                   sb_error *err);

#endif

/* sbk_cpu.h - host versions of the solbench kernels.
 *
 * Two families, both plain C11 and single-threaded:
 *   sbk_ref_*  float64 references. Inputs and outputs are double arrays; the
 *              caller widens the stored inputs exactly (sbk_load) first. These
 *              are what GPU and CPU results are checked against.
 *   sbk_cpu_*  the `--device cpu` implementations: typed storage in and out
 *              (sbk_dtype), fp32 arithmetic, the same semantics and rounding
 *              points as the `fused` CUDA provider (docs/KERNELS.md).
 *
 * Shapes are row-major. "Rows" are the leading dimensions flattened (M);
 * the op works along the last dimension (N, or V for cross entropy).
 * Weights may be stored in the input dtype or in fp32 (wdt).
 * All functions return 0, or -1 when a size is out of range (n <= 0, an
 * odd head_dim, a target outside [0,V) other than SBK_IGNORE_INDEX) or, for
 * functions that allocate scratch, when allocation fails.
 */
#ifndef SOLBOOK_BENCH_KERNELS_SBK_CPU_H
#define SOLBOOK_BENCH_KERNELS_SBK_CPU_H

#include "sbk_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- float64 references ---------------------------------------------- */

/* y = x / sqrt(mean(x^2) + eps) * w, per row. rstd (may be NULL) gets
 * 1/sqrt(mean(x^2)+eps) per row. */
int sbk_ref_rmsnorm_fwd(const double *x, const double *w, double *y,
                        double *rstd, int64_t M, int64_t N, double eps);
/* dx and dw (accumulated over rows, overwritten) of the above for dy. */
int sbk_ref_rmsnorm_bwd(const double *dy, const double *x, const double *w,
                        double *dx, double *dw, int64_t M, int64_t N,
                        double eps);
/* res_out = x + res; x_out = rmsnorm(res_out) * w. */
int sbk_ref_add_rmsnorm(const double *x, const double *res, const double *w,
                        double *x_out, double *res_out, int64_t M, int64_t N,
                        double eps);
/* y = (x - mean) / sqrt(var + eps) * w + b (biased variance). */
int sbk_ref_layernorm_fwd(const double *x, const double *w, const double *b,
                          double *y, int64_t M, int64_t N, double eps);
/* y = softmax(x) along rows; dx = y * (dy - sum(dy * y)). */
int sbk_ref_softmax_fwd(const double *x, double *y, int64_t M, int64_t N);
int sbk_ref_softmax_bwd(const double *dy, const double *y, double *dx,
                        int64_t M, int64_t N);
/* HF rotate_half RoPE on x [B,T,H,D] with cos/sin [T,D]:
 * out = x*cos + rotate_half(x)*sin, rotate_half(x) = cat(-x[D/2:], x[:D/2]).
 * inverse != 0 computes the backward (the transpose): dx from dy. */
int sbk_ref_rope(const double *x, const double *cos_t, const double *sin_t,
                 double *out, int64_t B, int64_t T, int64_t H, int64_t D,
                 int inverse);
/* c = silu(a) * b; da, db for dc. */
int sbk_ref_swiglu_fwd(const double *a, const double *b, double *c, int64_t n);
int sbk_ref_swiglu_bwd(const double *dc, const double *a, const double *b,
                       double *da, double *db, int64_t n);
/* Mean cross entropy over rows whose target is not SBK_IGNORE_INDEX.
 * dx (may be NULL) gets d loss / d logits. *loss gets 0 when every row is
 * ignored (and dx is all zero), as torch returns nan there: see KERNELS.md. */
int sbk_ref_cross_entropy(const double *logits, const int64_t *target,
                          int64_t M, int64_t V, double *loss, double *dx);
/* Linear + cross entropy: logits = h [BT,H] x w[V,H]^T; loss as above;
 * dh [BT,H], dw [V,H] (either may be NULL). */
int sbk_ref_flce(const double *h, const double *w, const int64_t *target,
                 int64_t BT, int64_t H, int64_t V, double *loss, double *dh,
                 double *dw);

/* ---- CPU implementations (typed storage, fp32 math) -------------------- */

int sbk_cpu_rmsnorm_fwd(const void *x, sbk_dtype dt, const void *w,
                        sbk_dtype wdt, void *y, int64_t M, int64_t N,
                        float eps);
/* dw is stored in wdt. */
int sbk_cpu_rmsnorm_bwd(const void *dy, const void *x, sbk_dtype dt,
                        const void *w, sbk_dtype wdt, void *dx, void *dw,
                        int64_t M, int64_t N, float eps);
/* In place, as vLLM's fused_add_rms_norm: res = x + res; x = rmsnorm(res)*w. */
int sbk_cpu_add_rmsnorm(void *x, void *res, sbk_dtype dt, const void *w,
                        sbk_dtype wdt, int64_t M, int64_t N, float eps);
int sbk_cpu_layernorm_fwd(const void *x, sbk_dtype dt, const void *w,
                          const void *b, sbk_dtype wdt, void *y, int64_t M,
                          int64_t N, float eps);
int sbk_cpu_softmax_fwd(const void *x, sbk_dtype dt, void *y, int64_t M,
                        int64_t N);
int sbk_cpu_softmax_bwd(const void *dy, const void *y, sbk_dtype dt, void *dx,
                        int64_t M, int64_t N);
/* q [B,T,Hq,D], k [B,T,Hk,D], cos/sin [T,D], all in dt. */
int sbk_cpu_rope(const void *q, const void *k, const void *cos_t,
                 const void *sin_t, sbk_dtype dt, void *q_out, void *k_out,
                 int64_t B, int64_t T, int64_t Hq, int64_t Hk, int64_t D,
                 int inverse);
int sbk_cpu_swiglu_fwd(const void *a, const void *b, sbk_dtype dt, void *c,
                       int64_t n);
int sbk_cpu_swiglu_bwd(const void *dc, const void *a, const void *b,
                       sbk_dtype dt, void *da, void *db, int64_t n);
/* loss in fp32; loss_rows (may be NULL) gets lse - x[target] per row (0
 * for ignored rows); dx (may be NULL) stored in dt. */
int sbk_cpu_cross_entropy(const void *logits, sbk_dtype dt,
                          const int64_t *target, int64_t M, int64_t V,
                          float *loss, float *loss_rows, void *dx);
/* dh, dw (may be NULL) stored in dt; fp32 logits one row at a time; the
 * logits' gradient is rounded to dt before the two gradient products, as
 * the fused GPU path stores it. */
int sbk_cpu_flce(const void *h, const void *w, sbk_dtype dt,
                 const int64_t *target, int64_t BT, int64_t H, int64_t V,
                 float *loss, float *loss_rows, void *dh, void *dw);

#ifdef __cplusplus
}
#endif

#endif

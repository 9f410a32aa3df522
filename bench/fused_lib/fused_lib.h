/* fused_lib.h - the `fused` kernels of bench/kernels/ as a shared library
 * (libsbk_fused.so) with a plain C interface, so that a process that holds
 * PyTorch tensors (bench/scripts/session.py) launches them on those
 * tensors' device pointers and times them with the same code as every
 * other provider of a session.
 *
 * A case is made once (its launch plans are chosen then, on the current
 * device, exactly as solbench chooses them) and run many times. Nothing
 * here allocates device memory: the caller passes the scratch it
 * allocated, sbf_case_workspace bytes of it.
 *
 * Pointers a run takes, in this order (inputs, then outputs), all
 * row-major and contiguous, in the case's dtype unless said:
 *   rmsnorm       fwd: x, w, y             bwd: dy, x, w, dx, dw
 *                 full: x, w, dy, y, dx, dw
 *   add_rmsnorm   fwd: x, res, w, x_out, res_out
 *   layernorm     fwd: x, w, b, y
 *   softmax       fwd: x, y                bwd: dy, y, dx
 *   rope          fwd: q, k, cos, sin, q_out, k_out        ([B,T,H,D])
 *                 bwd: dq_out, dk_out, cos, sin, dq, dk
 *                 full: q, k, cos, sin, dq_out, dk_out, q_out, k_out, dq, dk
 *   swiglu        fwd: a, b, c             bwd: dc, a, b, da, db
 *                 full: a, b, dc, c, da, db
 *   cross_entropy fwd: logits, target (int64), loss_rows (fp32 [M]), loss (fp32)
 *                 full: the same, then dx
 *   flce          fwd: hidden, weight, target, loss_rows, loss
 *                 full: the same, then dh, dw
 * dims are the op's shape in bench/scripts/torch_ops.py's SHAPES order
 * (M,N; B,T,Hq,Hk,D; B,T,I; M,V; BT,H,V). */
#ifndef SOLBOOK_BENCH_FUSED_LIB_H
#define SOLBOOK_BENCH_FUSED_LIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbf_case sbf_case;

/* dtype: 0 fp32, 1 fp16, 2 bf16. accum (flce only): "fp32", "input" or
 * "vocab", NULL for fp32. eps: the op's epsilon (ignored by ops without
 * one). NULL with a one-line message in err for a case it cannot run. */
sbf_case *sbf_case_new(const char *op, const char *mode, int dtype, const int64_t *dims, int ndims,
                       double eps, const char *accum, char *err, size_t errn);
/* Scratch bytes a run needs (0: none; pass NULL then). */
size_t sbf_case_workspace(const sbf_case *c);
/* Pointers a run takes. */
int sbf_case_nptrs(const sbf_case *c);
/* What launches, for a result's run parameters ("block:1 threads=256 ..."). */
const char *sbf_case_plan(const sbf_case *c);
/* Launches the case on stream (a cudaStream_t; NULL: the default stream)
 * and returns without waiting. 0, or -1 with a one-line message. */
int sbf_case_run(sbf_case *c, void *const *ptrs, int nptrs, void *workspace, void *stream, char *err,
                 size_t errn);
void sbf_case_free(sbf_case *c);

#ifdef __cplusplus
}
#endif

#endif

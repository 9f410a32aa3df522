/* fused_lib.c - the fused kernels behind a handle made once per case
 * (fused_lib.h). The plans are the ones solbench makes for the same case
 * (bench/kernels/op_*.c, each op's create and prepare), with no
 * experiment switch read: the measured defaults. */
#include "fused_lib.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "kernels/sbk_cuda.h"

typedef enum { OP_RMSNORM, OP_ADD_RMSNORM, OP_LAYERNORM, OP_SOFTMAX, OP_ROPE, OP_SWIGLU, OP_CE, OP_FLCE } op_id;
enum { MODE_FWD, MODE_BWD, MODE_FULL };

struct sbf_case {
    op_id op;
    int mode;
    sbk_dtype dt;
    int64_t d[5];
    float eps;
    int accum;
    int most;                  /* row kernels' vector cap (sbk_rows_most) */
    sbk_rmsnorm_fwd_plan fplan;
    sbk_rmsnorm_bwd_plan bplan;
    sbk_elem_plan eplan;
    cublasHandle_t handle;     /* flce */
    size_t workspace;
    int nptrs;
    char plan[192];
};

static const struct {
    const char *name;
    op_id op;
    int ndims;
    unsigned modes; /* bit per MODE_* */
} ops[] = {
    {"rmsnorm", OP_RMSNORM, 2, 7},   {"add_rmsnorm", OP_ADD_RMSNORM, 2, 1},
    {"layernorm", OP_LAYERNORM, 2, 1}, {"softmax", OP_SOFTMAX, 2, 3},
    {"rope", OP_ROPE, 5, 7},         {"swiglu", OP_SWIGLU, 3, 7},
    {"cross_entropy", OP_CE, 2, 5},  {"flce", OP_FLCE, 3, 5},
};

static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && n)
        vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Pointers each op and mode takes (fused_lib.h). */
static int ptr_count(op_id op, int mode)
{
    switch (op) {
    case OP_RMSNORM: return mode == MODE_FWD ? 3 : mode == MODE_BWD ? 5 : 6;
    case OP_ADD_RMSNORM: return 5;
    case OP_LAYERNORM: return 4;
    case OP_SOFTMAX: return mode == MODE_FWD ? 2 : 3;
    case OP_ROPE: return mode == MODE_FULL ? 10 : 6;
    case OP_SWIGLU: return mode == MODE_FWD ? 3 : mode == MODE_BWD ? 5 : 6;
    case OP_CE: return mode == MODE_FWD ? 4 : 5;
    case OP_FLCE: return mode == MODE_FWD ? 5 : 7;
    }
    return 0;
}

static int mode_of(const char *m)
{
    return !m ? -1 : strcmp(m, "fwd") == 0 ? MODE_FWD : strcmp(m, "bwd") == 0 ? MODE_BWD
                   : strcmp(m, "full") == 0 ? MODE_FULL : -1;
}

static sbk_rows_kernel rows_kernel(const sbf_case *c)
{
    switch (c->op) {
    case OP_ADD_RMSNORM: return SBK_ROWS_ADD_RMSNORM;
    case OP_LAYERNORM: return SBK_ROWS_LAYERNORM;
    default: return c->mode == MODE_BWD ? SBK_ROWS_SOFTMAX_BWD : SBK_ROWS_SOFTMAX_FWD;
    }
}

/* Plans and scratch of the row ops. */
static int plan_rows(sbf_case *c, char *err, size_t n)
{
    int64_t M = c->d[0], N = c->d[1];
    if (c->op == OP_RMSNORM) {
        char fwd[96] = "", bwd[96] = "";
        if (c->mode != MODE_BWD) {
            if (sbk_rmsnorm_fwd_plan_make(M, N, c->dt, c->dt, NULL, &c->fplan) != 0)
                return fail(err, n, "rmsnorm: no forward launch for M=%lld N=%lld", (long long)M, (long long)N);
            sbk_rmsnorm_fwd_plan_name(&c->fplan, fwd, sizeof fwd);
        }
        if (c->mode != MODE_FWD) {
            if (sbk_rmsnorm_bwd_plan_make(M, N, c->dt, c->dt, &c->bplan) != 0)
                return fail(err, n, "rmsnorm: no backward launch for M=%lld N=%lld", (long long)M, (long long)N);
            c->workspace = (size_t)c->bplan.blocks * (size_t)N * sizeof(float);
            snprintf(bwd, sizeof bwd, "%s", c->bplan.name);
        }
        snprintf(c->plan, sizeof c->plan, "%s%s%s", fwd, *fwd && *bwd ? "; " : "", bwd);
        return 0;
    }
    c->most = sbk_rows_most(rows_kernel(c), M, N, c->dt);
    sbk_rows_layout_name(rows_kernel(c), N, c->dt, c->most, c->plan, sizeof c->plan);
    return 0;
}

static int plan_ce(sbf_case *c, char *err, size_t n)
{
    int grad = c->mode == MODE_FULL;
    if (c->op == OP_CE) {
        c->workspace = SBK_CE_WORKSPACE_BYTES;
        sbk_ce_row_name(SBK_CE_ROW_AUTO, c->d[1], c->dt, grad, c->plan, sizeof c->plan);
        return 0;
    }
    int64_t BT = c->d[0], H = c->d[1], V = c->d[2];
    c->workspace = sbk_flce_workspace(BT, H, V, 0, c->dt, c->accum, grad);
    if (sbk_flce_by_vocab(c->accum, grad))
        snprintf(c->plan, sizeof c->plan, "vocab slices slice_cols=%lld",
                 (long long)sbk_flce_slice_cols(BT, V, 0, c->dt, grad));
    else
        snprintf(c->plan, sizeof c->plan, "row chunks chunk_rows=%lld",
                 (long long)sbk_flce_chunk_rows(BT, H, V, 0, c->dt, c->accum));
    if (cublasCreate(&c->handle) != CUBLAS_STATUS_SUCCESS)
        return fail(err, n, "flce: cublasCreate failed");
    return 0;
}

sbf_case *sbf_case_new(const char *op, const char *mode, int dtype, const int64_t *dims, int ndims, double eps,
                       const char *accum, char *err, size_t errn)
{
    size_t i = 0;
    while (i < sizeof ops / sizeof ops[0] && (!op || strcmp(ops[i].name, op) != 0))
        i++;
    if (i == sizeof ops / sizeof ops[0])
        return fail(err, errn, "unknown op %s", op ? op : "(null)"), NULL;
    int m = mode_of(mode);
    if (m < 0 || !(ops[i].modes & (1u << m)))
        return fail(err, errn, "%s has no mode %s", op, mode ? mode : "(null)"), NULL;
    if (dtype < 0 || dtype > 2)
        return fail(err, errn, "dtype %d: 0 (fp32), 1 (fp16) or 2 (bf16)", dtype), NULL;
    if (ndims != ops[i].ndims)
        return fail(err, errn, "%s takes %d sizes, not %d", op, ops[i].ndims, ndims), NULL;
    for (int k = 0; k < ndims; k++)
        if (dims[k] <= 0 || dims[k] >= ((int64_t)1 << 31))
            return fail(err, errn, "%s: size %d must be in [1, 2^31)", op, k), NULL;
    sbf_case *c = calloc(1, sizeof *c);
    if (!c)
        return fail(err, errn, "out of memory"), NULL;
    c->op = ops[i].op;
    c->mode = m;
    c->dt = (sbk_dtype)dtype;
    memcpy(c->d, dims, (size_t)ndims * sizeof dims[0]);
    c->eps = (float)eps;
    c->nptrs = ptr_count(c->op, m);
    c->accum = SBK_FLCE_ACCUM_FP32;
    if (c->op == OP_FLCE && accum) {
        if (strcmp(accum, "input") == 0)
            c->accum = SBK_FLCE_ACCUM_INPUT;
        else if (strcmp(accum, "vocab") == 0)
            c->accum = SBK_FLCE_ACCUM_VOCAB;
        else if (strcmp(accum, "fp32") != 0) {
            fail(err, errn, "flce: accum %s: fp32, input or vocab", accum);
            free(c);
            return NULL;
        }
    }
    int rc = 0;
    switch (c->op) {
    case OP_RMSNORM: case OP_ADD_RMSNORM: case OP_LAYERNORM: case OP_SOFTMAX:
        rc = plan_rows(c, err, errn);
        break;
    case OP_ROPE: case OP_SWIGLU:
        sbk_elem_plan_make(c->op == OP_ROPE ? SBK_ELEM_ROPE : SBK_ELEM_SWIGLU, NULL, &c->eplan);
        sbk_elem_plan_name(&c->eplan, c->plan, sizeof c->plan);
        break;
    case OP_CE: case OP_FLCE:
        rc = plan_ce(c, err, errn);
        break;
    }
    if (rc != 0) {
        sbf_case_free(c);
        return NULL;
    }
    return c;
}

size_t sbf_case_workspace(const sbf_case *c) { return c->workspace; }
int sbf_case_nptrs(const sbf_case *c) { return c->nptrs; }
const char *sbf_case_plan(const sbf_case *c) { return c->plan; }

static cudaError_t run_rows(sbf_case *c, void *const *p, void *ws, cudaStream_t s)
{
    int64_t M = c->d[0], N = c->d[1];
    cudaError_t e = cudaSuccess;
    switch (c->op) {
    case OP_RMSNORM:
        if (c->mode == MODE_FWD)
            return sbk_rmsnorm_fwd(p[0], p[1], p[2], M, N, c->eps, c->dt, c->dt, &c->fplan, s);
        if (c->mode == MODE_BWD)
            return sbk_rmsnorm_bwd(p[0], p[1], p[2], p[3], p[4], ws, &c->bplan, M, N, c->eps, c->dt, c->dt, s);
        e = sbk_rmsnorm_fwd(p[0], p[1], p[3], M, N, c->eps, c->dt, c->dt, &c->fplan, s);
        return e != cudaSuccess ? e
                                : sbk_rmsnorm_bwd(p[2], p[0], p[1], p[4], p[5], ws, &c->bplan, M, N, c->eps, c->dt,
                                                  c->dt, s);
    case OP_ADD_RMSNORM:
        return sbk_add_rmsnorm(p[0], p[1], p[2], p[3], p[4], M, N, c->eps, c->dt, c->dt, c->most, s);
    case OP_LAYERNORM:
        return sbk_layernorm_fwd(p[0], p[1], p[2], p[3], M, N, c->eps, c->dt, c->dt, c->most, s);
    default:
        return c->mode == MODE_FWD ? sbk_softmax_fwd(p[0], p[1], M, N, c->dt, c->most, s)
                                   : sbk_softmax_bwd(p[0], p[1], p[2], M, N, c->dt, c->most, s);
    }
}

static cudaError_t run_elem(sbf_case *c, void *const *p, cudaStream_t s)
{
    if (c->op == OP_SWIGLU) {
        int64_t n = c->d[0] * c->d[1] * c->d[2];
        if (c->mode == MODE_FWD)
            return sbk_swiglu_fwd(p[0], p[1], p[2], n, c->dt, &c->eplan, s);
        if (c->mode == MODE_BWD)
            return sbk_swiglu_bwd(p[0], p[1], p[2], p[3], p[4], n, c->dt, &c->eplan, s);
        cudaError_t e = sbk_swiglu_fwd(p[0], p[1], p[3], n, c->dt, &c->eplan, s);
        return e != cudaSuccess ? e : sbk_swiglu_bwd(p[2], p[0], p[1], p[4], p[5], n, c->dt, &c->eplan, s);
    }
    int64_t B = c->d[0], T = c->d[1], Hq = c->d[2], Hk = c->d[3], D = c->d[4];
    if (c->mode != MODE_FULL)
        return sbk_rope(p[0], p[1], p[2], p[3], p[4], p[5], B, T, Hq, Hk, D, c->mode == MODE_BWD, c->dt,
                        &c->eplan, s);
    cudaError_t e = sbk_rope(p[0], p[1], p[2], p[3], p[6], p[7], B, T, Hq, Hk, D, 0, c->dt, &c->eplan, s);
    return e != cudaSuccess ? e
                            : sbk_rope(p[4], p[5], p[2], p[3], p[8], p[9], B, T, Hq, Hk, D, 1, c->dt, &c->eplan, s);
}

static cudaError_t run_ce(sbf_case *c, void *const *p, void *ws, cudaStream_t s)
{
    int full = c->mode == MODE_FULL;
    if (c->op == OP_CE)
        return sbk_cross_entropy(p[0], p[1], p[2], p[3], full ? p[4] : NULL, ws, c->d[0], c->d[1], c->dt,
                                 SBK_CE_ROW_AUTO, s);
    if (cublasSetStream(c->handle, s) != CUBLAS_STATUS_SUCCESS)
        return cudaErrorUnknown;
    return sbk_flce_fused(c->handle, p[0], p[1], p[2], p[3], p[4], full ? p[5] : NULL, full ? p[6] : NULL, ws,
                          c->d[0], c->d[1], c->d[2], 0, c->dt, c->accum, SBK_CE_ROW_AUTO, s);
}

int sbf_case_run(sbf_case *c, void *const *ptrs, int nptrs, void *workspace, void *stream, char *err, size_t errn)
{
    if (!c || !ptrs || nptrs != c->nptrs)
        return fail(err, errn, "this case takes %d pointers, not %d", c ? c->nptrs : 0, nptrs);
    for (int i = 0; i < nptrs; i++)
        if (!ptrs[i])
            return fail(err, errn, "pointer %d is null", i);
    if (c->workspace && !workspace)
        return fail(err, errn, "this case needs %zu bytes of scratch", c->workspace);
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e;
    switch (c->op) {
    case OP_ROPE: case OP_SWIGLU: e = run_elem(c, ptrs, s); break;
    case OP_CE: case OP_FLCE: e = run_ce(c, ptrs, workspace, s); break;
    default: e = run_rows(c, ptrs, workspace, s); break;
    }
    if (e != cudaSuccess)
        return fail(err, errn, "launch failed: %s", cudaGetErrorString(e));
    return 0;
}

void sbf_case_free(sbf_case *c)
{
    if (!c)
        return;
    if (c->handle)
        cublasDestroy(c->handle);
    free(c);
}

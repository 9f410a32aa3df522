/* op_rmsnorm.c - solbench op "rmsnorm": y = x * rsqrt(mean(x^2) + eps) * w
 * over rows of N, forward, backward (dx, dw) or both (docs/KERNELS.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbk_cpu.h"
#include "sbk_cuda.h"
#include "sbk_op.h"

enum { MODE_FWD, MODE_BWD, MODE_FULL };

static const char *const rms_modes[] = {"fwd", "bwd", "full", NULL};
static const char *const rms_shape_names[] = {"M", "N", NULL};
static const int64_t rms_shape_defaults[] = {2048, 4096};
static const sb_param_spec rms_params[] = {
    {"eps", SB_PARAM_FLOAT, "1e-6", NULL, "epsilon added to mean(x^2)"},
    {"weight_dtype", SB_PARAM_STRING, "same", "same|fp32", "weight stored in the input dtype or in fp32"},
    {NULL, 0, NULL, NULL, NULL},
};

typedef struct rms_state {
    sb_ctx *ctx;
    int mode;
    int64_t M, N;
    float eps;
    sb_dtype dt, wdt;
    int sets;
    sbk_tensor x, w, dy, y, dx, dw, partial;
    sbk_rmsnorm_bwd_plan bplan; /* fused backward: how it launches (bplan.blocks partial rows of dw) */
    sbk_rmsnorm_fwd_plan fplan; /* fused forward: how it launches */
    int fplan_ready;
    sbk_scratch ws;
    size_t saved_bytes;  /* per set (reference bwd) */
    int saved_ready;
    double *ref_dw, *ref_dw_scale;
} rms_state;

static int mode_of(const char *m)
{
    return strcmp(m, "bwd") == 0 ? MODE_BWD : strcmp(m, "full") == 0 ? MODE_FULL : MODE_FWD;
}

static int rms_validate(const sb_op_config *cfg, sb_error *err)
{
    sb_dtype w;
    if (sbk_check_dims(cfg, "rmsnorm", rms_shape_names, err) != SB_OK)
        return SB_ERR;
    if (sbk_weight_dtype(cfg, "rmsnorm", &w, err) != SB_OK)
        return SB_ERR;
    double eps = sb_params_get_double(&cfg->params, "eps", -1.0);
    if (!(eps > 0.0 && eps < 1.0))
        return sb_error_set(err, NULL, NULL, "rmsnorm: --eps must be in (0, 1)");
    return SB_OK;
}

static double wsize(const sb_op_config *cfg)
{
    const char *w = sb_params_get(&cfg->params, "weight_dtype");
    return w && strcmp(w, "fp32") == 0 ? 4.0 : (double)sb_dtype_size(cfg->dtype);
}

static double rms_input_set_bytes(const sb_op_config *cfg)
{
    double mn = (double)sb_shape_get(&cfg->shape, "M", 0) * (double)sb_shape_get(&cfg->shape, "N", 0);
    double es = (double)sb_dtype_size(cfg->dtype);
    return mode_of(cfg->mode) == MODE_FWD ? mn * es : 2.0 * mn * es;
}

/* bytes: fwd reads x, w, writes y; bwd reads dy, x, w, writes dx, dw;
 * full: both (x and w counted once per pass that needs them). */
static double rms_bytes(const sb_op_config *cfg)
{
    double M = (double)sb_shape_get(&cfg->shape, "M", 0), N = (double)sb_shape_get(&cfg->shape, "N", 0);
    double es = (double)sb_dtype_size(cfg->dtype), ws = wsize(cfg);
    double fwd = 2.0 * M * N * es + N * ws;
    double bwd = 3.0 * M * N * es + 2.0 * N * ws;
    int m = mode_of(cfg->mode);
    return m == MODE_FWD ? fwd : m == MODE_BWD ? bwd : fwd + bwd;
}

/* flops: fwd 4 per element (square-add, scale, weight); bwd 9 per element */
static double rms_flops(const sb_op_config *cfg)
{
    double mn = (double)sb_shape_get(&cfg->shape, "M", 0) * (double)sb_shape_get(&cfg->shape, "N", 0);
    int m = mode_of(cfg->mode);
    return m == MODE_FWD ? 4.0 * mn : m == MODE_BWD ? 9.0 * mn : 13.0 * mn;
}

static void rms_destroy(void *p)
{
    rms_state *s = p;
    if (!s)
        return;
    sbk_tensor *all[] = {&s->x, &s->w, &s->dy, &s->y, &s->dx, &s->dw, &s->partial};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sbk_tensor_free(s->ctx, all[i]);
    if (s->ws.ptr)
        sb_ctx_free(s->ctx, s->ws.ptr);
    free(s->ref_dw);
    free(s->ref_dw_scale);
    free(s);
}

static int rms_create(const sb_op_config *cfg, sb_ctx *ctx, void **out, sb_error *err)
{
    *out = NULL;
    rms_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    s->ctx = ctx;
    s->ws.provider = -1;
    s->mode = mode_of(cfg->mode);
    s->M = sb_shape_get(&cfg->shape, "M", 0);
    s->N = sb_shape_get(&cfg->shape, "N", 0);
    s->eps = (float)sb_params_get_double(&cfg->params, "eps", 1e-6);
    s->dt = cfg->dtype;
    s->sets = cfg->input_sets < 1 ? 1 : cfg->input_sets;
    if (sbk_weight_dtype(cfg, "rmsnorm", &s->wdt, err) != SB_OK)
        goto fail;
    size_t mn = (size_t)s->M * (size_t)s->N;
    if (sbk_tensor_random(ctx, &s->x, s->sets, s->dt, mn, -2.0, 2.0, cfg->seed, 1, err) != SB_OK ||
        sbk_tensor_random(ctx, &s->w, 1, s->wdt, (size_t)s->N, 0.5, 1.5, cfg->seed, 2, err) != SB_OK)
        goto fail;
    if (s->mode != MODE_BWD && sbk_tensor_output(ctx, &s->y, s->dt, mn, err) != SB_OK)
        goto fail;
    if (s->mode != MODE_FWD) {
        if (sbk_rmsnorm_bwd_plan_make(s->M, s->N, sbk_from_sb(s->dt), sbk_from_sb(s->wdt), &s->bplan) != 0) {
            sb_error_set(err, NULL, NULL, "rmsnorm: no backward launch for M=%lld N=%lld", (long long)s->M,
                         (long long)s->N);
            goto fail;
        }
        int64_t G = s->bplan.blocks;
        if (sbk_tensor_random(ctx, &s->dy, s->sets, s->dt, mn, -1.0, 1.0, cfg->seed, 3, err) != SB_OK ||
            sbk_tensor_output(ctx, &s->dx, s->dt, mn, err) != SB_OK ||
            sbk_tensor_output(ctx, &s->dw, s->wdt, (size_t)s->N, err) != SB_OK ||
            sbk_tensor_output(ctx, &s->partial, SB_DTYPE_FP32, (size_t)G * (size_t)s->N, err) != SB_OK)
            goto fail;
    }
    *out = s;
    return SB_OK;
fail:
    rms_destroy(s);
    return SB_ERR;
}

static int rms_outputs(void *p, sb_output *o)
{
    rms_state *s = p;
    int n = 0;
    if (s->mode != MODE_BWD)
        o[n++] = (sb_output){"y", s->y.dev[0], s->dt, s->M, s->N, s->N};
    if (s->mode != MODE_FWD) {
        o[n++] = (sb_output){"dx", s->dx.dev[0], s->dt, s->M, s->N, s->N};
        o[n++] = (sb_output){"dw", s->dw.dev[0], s->wdt, 1, s->N, s->N};
    }
    return n;
}

/* Row r of x, dy, w widened; rstd and sum(dy*w*x) in fp64. */
static void row_stats(rms_state *s, int64_t r, double *rs, double *gwx, double *gwx_abs)
{
    double ss = 0, g = 0, ga = 0;
    for (int64_t j = 0; j < s->N; j++) {
        double xv = sbk_h(&s->x, (size_t)(r * s->N + j));
        ss += xv * xv;
        if (s->dy.n) {
            double t = sbk_h(&s->dy, (size_t)(r * s->N + j)) * sbk_h(&s->w, (size_t)j) * xv;
            g += t;
            ga += fabs(t);
        }
    }
    *rs = 1.0 / sqrt(ss / (double)s->N + (double)s->eps);
    *gwx = g;
    *gwx_abs = ga;
}

/* The float64 dw, sum over rows of dy * x * rstd, in DW_PARTS row ranges
 * on threads (sbk_parallel), added in part order. */
#define DW_PARTS 64
typedef struct dw_job {
    rms_state *s;
    int parts;
    double *sum, *abs; /* [parts][N] */
    double *row;       /* [parts][N]: x of the current row */
} dw_job;

static void dw_part(void *arg, int p)
{
    dw_job *j = arg;
    rms_state *s = j->s;
    const int64_t N = s->N;
    double *sum = j->sum + (size_t)p * (size_t)N, *abs = j->abs + (size_t)p * (size_t)N;
    double *x = j->row + (size_t)p * (size_t)N;
    int64_t r0, r1;
    sbk_part_rows(s->M, j->parts, p, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        double ss = 0;
        for (int64_t k = 0; k < N; k++) {
            x[k] = sbk_h(&s->x, (size_t)(r * N + k));
            ss += x[k] * x[k];
        }
        double rs = 1.0 / sqrt(ss / (double)N + (double)s->eps);
        for (int64_t k = 0; k < N; k++) {
            double t = sbk_h(&s->dy, (size_t)(r * N + k)) * x[k] * rs;
            sum[k] += t;
            abs[k] += fabs(t);
        }
    }
}

static int dw_reference(rms_state *s, sb_error *err)
{
    const int64_t N = s->N;
    int parts = s->M < DW_PARTS ? (int)s->M : DW_PARTS;
    size_t cells = (size_t)parts * (size_t)N;
    dw_job j = {s, parts, calloc(cells, sizeof(double)), calloc(cells, sizeof(double)),
                malloc(cells * sizeof(double))};
    s->ref_dw = calloc((size_t)N, sizeof *s->ref_dw);
    s->ref_dw_scale = calloc((size_t)N, sizeof *s->ref_dw_scale);
    if (!j.sum || !j.abs || !j.row || !s->ref_dw || !s->ref_dw_scale) {
        free(j.sum);
        free(j.abs);
        free(j.row);
        free(s->ref_dw);
        free(s->ref_dw_scale);
        s->ref_dw = s->ref_dw_scale = NULL;
        return sb_error_set(err, NULL, NULL, "out of host memory (dw reference)");
    }
    sbk_parallel(parts, dw_part, &j);
    for (int p = 0; p < parts; p++)
        for (int64_t k = 0; k < N; k++) {
            s->ref_dw[k] += j.sum[(size_t)p * (size_t)N + (size_t)k];
            s->ref_dw_scale[k] += j.abs[(size_t)p * (size_t)N + (size_t)k];
        }
    free(j.sum);
    free(j.abs);
    free(j.row);
    return SB_OK;
}

static int rms_reference_row(void *p, int out, int64_t row, double *ref, double *scale, sb_error *err)
{
    rms_state *s = p;
    const char *name = out == 0 && s->mode != MODE_BWD ? "y" : (out == (s->mode == MODE_BWD ? 0 : 1) ? "dx" : "dw");
    const int64_t N = s->N;
    if (strcmp(name, "y") == 0 || strcmp(name, "dx") == 0) {
        double rs, gwx, gwx_abs;
        row_stats(s, row, &rs, &gwx, &gwx_abs);
        for (int64_t j = 0; j < N; j++) {
            double xv = sbk_h(&s->x, (size_t)(row * N + j)), wv = sbk_h(&s->w, (size_t)j);
            if (name[0] == 'y') {
                ref[j] = xv * rs * wv;
                scale[j] = fabs(ref[j]) > 1.0 ? fabs(ref[j]) : 1.0;
            } else {
                double g = sbk_h(&s->dy, (size_t)(row * N + j));
                double c = rs * rs * rs * gwx / (double)N;
                ref[j] = rs * g * wv - c * xv;
                scale[j] = fabs(rs * g * wv) + fabs(xv) * rs * rs * rs * gwx_abs / (double)N;
            }
        }
        sbk_scale_floor(scale, N, s->dt);
        return SB_OK;
    }
    /* dw: every row contributes */
    if (!s->ref_dw && dw_reference(s, err) != SB_OK)
        return SB_ERR;
    memcpy(ref, s->ref_dw, (size_t)N * sizeof *ref);
    memcpy(scale, s->ref_dw_scale, (size_t)N * sizeof *scale);
    sbk_scale_floor(scale, N, s->wdt);
    return SB_OK;
}

static int64_t rms_check_rows(void *p, int out)
{
    (void)p;
    (void)out;
    return 64;
}

static int rms_supports(void *p, int provider, char *why, size_t n)
{
    rms_state *s = p;
    (void)why;
    (void)n;
    sbk_scratch_drop(s->ctx, &s->ws, provider);
    if (provider != SBK_P_REFERENCE)
        s->saved_ready = 0;
    return 0;
}

/* The fused forward's plan: the measured default, or the one named in
 * SOLBENCH_RMSNORM_FWD_PLAN (for experiments; the plan run is recorded in
 * run_params either way). Made once, before the first run, untimed. */
static int fused_fwd_plan(rms_state *s, sb_error *err)
{
    if (s->mode == MODE_BWD || s->fplan_ready)
        return SB_OK;
    const char *req = getenv("SOLBENCH_RMSNORM_FWD_PLAN");
    if (sbk_rmsnorm_fwd_plan_make(s->M, s->N, sbk_from_sb(s->dt), sbk_from_sb(s->wdt), req, &s->fplan) != 0)
        return sb_error_set(err, NULL, NULL,
                            "rmsnorm: SOLBENCH_RMSNORM_FWD_PLAN=%s: not a plan for N=%lld on this device "
                            "(auto, block or smem, optionally :1, :2, :4 or :8; then optionally /cs, "
                            "/plain-load, /plain-store or /plain)",
                            req ? req : "auto", (long long)s->N);
    s->fplan_ready = 1;
    return SB_OK;
}

static int rms_prepare(void *p, int provider, sb_error *err)
{
    rms_state *s = p;
    if (provider == SBK_P_FUSED && s->mode != MODE_FWD) {
        char bad[160];
        if (sbk_rmsnorm_bwd_env_check(bad, sizeof bad) != 0)
            return sb_error_set(err, NULL, NULL, "rmsnorm: %s", bad);
    }
    if (provider == SBK_P_FUSED && s->mode != MODE_BWD) {
        char bad[160];
        if (sbk_row_vectors_env_check(bad, sizeof bad) != 0)
            return sb_error_set(err, NULL, NULL, "rmsnorm: %s", bad);
    }
    if (provider == SBK_P_FUSED)
        return fused_fwd_plan(s, err);
    if (provider != SBK_P_REFERENCE)
        return SB_OK;
    sbk_dtype dt = sbk_from_sb(s->dt);
    size_t fws = sbk_eager_rmsnorm_fwd_workspace(s->M, s->N, dt);
    size_t bws = sbk_eager_rmsnorm_bwd_workspace(s->M, s->N, dt);
    s->saved_bytes = sbk_eager_rmsnorm_saved_bytes(s->M, s->N, dt);
    size_t work = fws > bws ? fws : bws;
    int nsaved = s->mode == MODE_FWD ? 0 : s->mode == MODE_BWD ? s->sets : 1;
    if (sbk_scratch_get(s->ctx, &s->ws, provider, (size_t)nsaved * s->saved_bytes + work, err) != SB_OK)
        return SB_ERR;
    if (s->mode == MODE_BWD && !s->saved_ready) {
        /* what the forward left for autograd, once per input set, untimed */
        char *base = s->ws.ptr;
        for (int i = 0; i < s->sets; i++) {
            cudaError_t e = sbk_eager_rmsnorm_save(sbk_dev(&s->x, i), base + (size_t)i * s->saved_bytes,
                                                   base + (size_t)s->sets * s->saved_bytes, s->M, s->N,
                                                   s->eps, dt, (cudaStream_t)s->ctx->stream);
            if (e != cudaSuccess)
                return sbk_cuda_error(err, "rmsnorm reference: saved tensors", e);
        }
        cudaError_t e = cudaStreamSynchronize((cudaStream_t)s->ctx->stream);
        if (e != cudaSuccess)
            return sbk_cuda_error(err, "rmsnorm reference: saved tensors", e);
        s->saved_ready = 1;
    }
    return SB_OK;
}

static int rms_run(void *p, int provider, int set, sb_error *err)
{
    rms_state *s = p;
    sbk_dtype dt = sbk_from_sb(s->dt), wdt = sbk_from_sb(s->wdt);
    const void *x = sbk_dev(&s->x, set), *w = s->w.dev[0], *dy = sbk_dev(&s->dy, set);
    cudaStream_t st = (cudaStream_t)s->ctx->stream;
    if (provider == SBK_P_CPU) {
        if (s->mode != MODE_BWD &&
            sbk_cpu_rmsnorm_fwd(x, dt, w, wdt, s->y.dev[0], s->M, s->N, s->eps) != 0)
            return sb_error_set(err, NULL, NULL, "rmsnorm cpu: bad size");
        if (s->mode != MODE_FWD &&
            sbk_cpu_rmsnorm_bwd(dy, x, dt, w, wdt, s->dx.dev[0], s->dw.dev[0], s->M, s->N, s->eps) != 0)
            return sb_error_set(err, NULL, NULL, "rmsnorm cpu: bad size or out of memory");
        return SB_OK;
    }
    cudaError_t e = cudaSuccess;
    if (provider == SBK_P_FUSED) {
        if (s->mode != MODE_BWD)
            e = sbk_rmsnorm_fwd(x, w, s->y.dev[0], s->M, s->N, s->eps, dt, wdt, &s->fplan, st);
        if (e == cudaSuccess && s->mode != MODE_FWD)
            e = sbk_rmsnorm_bwd(dy, x, w, s->dx.dev[0], s->dw.dev[0], s->partial.dev[0], &s->bplan, s->M, s->N,
                                s->eps, dt, wdt, st);
        return e == cudaSuccess ? SB_OK : sbk_cuda_error(err, "rmsnorm fused", e);
    }
    char *base = s->ws.ptr;
    if (s->mode == MODE_FWD) {
        e = sbk_eager_rmsnorm_fwd(x, w, s->y.dev[0], NULL, base, s->M, s->N, s->eps, dt, wdt, st);
    } else if (s->mode == MODE_FULL) {
        e = sbk_eager_rmsnorm_fwd(x, w, s->y.dev[0], base, base + s->saved_bytes, s->M, s->N, s->eps, dt,
                                  wdt, st);
        if (e == cudaSuccess)
            e = sbk_eager_rmsnorm_bwd(dy, w, base, s->dx.dev[0], s->dw.dev[0], base + s->saved_bytes, s->M,
                                      s->N, dt, wdt, st);
    } else {
        char *saved = base + (size_t)(set % s->sets) * s->saved_bytes;
        e = sbk_eager_rmsnorm_bwd(dy, w, saved, s->dx.dev[0], s->dw.dev[0],
                                  base + (size_t)s->sets * s->saved_bytes, s->M, s->N, dt, wdt, st);
    }
    return e == cudaSuccess ? SB_OK : sbk_cuda_error(err, "rmsnorm reference", e);
}

/* The fused forward's plan and the backward's layout, so that a result
 * says which kernels ran. */
static void rms_provider_params(void *p, int provider, sb_params *extra)
{
    rms_state *s = p;
    if (provider != SBK_P_FUSED)
        return;
    if (s->mode != MODE_BWD && extra->count < SB_MAX_PARAMS) {
        int i = extra->count++;
        snprintf(extra->name[i], SB_NAME_MAX, "fwd_plan");
        sbk_rmsnorm_fwd_plan_name(&s->fplan, extra->value[i], sizeof extra->value[i]);
    }
    if (s->mode != MODE_FWD && extra->count < SB_MAX_PARAMS) {
        int i = extra->count++;
        snprintf(extra->name[i], SB_NAME_MAX, "bwd_layout");
        snprintf(extra->value[i], sizeof extra->value[i], "%s", s->bplan.name);
    }
}

static const char *const rms_recorded_params[] = {"fwd_plan", "bwd_layout", NULL};

const sb_op sb_op_rmsnorm = {
    .name = "rmsnorm",
    .summary = "RMSNorm over rows of N (Llama): forward, backward (dx, dw) or both",
    .modes = rms_modes,
    .providers = sbk_providers,
    .shape_names = rms_shape_names,
    .shape_defaults = rms_shape_defaults,
    .params = rms_params,
    .dtypes = SBK_DTYPES,
    .validate = rms_validate,
    .input_set_bytes = rms_input_set_bytes,
    .model_flops = rms_flops,
    .model_bytes = rms_bytes,
    .create = rms_create,
    .destroy = rms_destroy,
    .outputs = rms_outputs,
    .reference_row = rms_reference_row,
    .check_rows = rms_check_rows,
    .supports = rms_supports,
    .prepare = rms_prepare,
    .run = rms_run,
    .batch_invariance = NULL,
    .provider_params = rms_provider_params,
    .recorded_params = rms_recorded_params,
};

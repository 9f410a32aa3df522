/* op_norms.c - solbench ops "add_rmsnorm" (vLLM's fused_add_rms_norm),
 * "layernorm" (forward with weight and bias) and "softmax" (last dim,
 * forward or backward). Semantics and models: docs/KERNELS.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbk_cpu.h"
#include "sbk_cuda.h"
#include "sbk_op.h"

typedef enum { K_ADD_RMS, K_LAYERNORM, K_SOFTMAX } norm_kind;

static const char *const fwd_only[] = {"fwd", NULL};
static const char *const softmax_modes[] = {"fwd", "bwd", NULL};
static const char *const mn_names[] = {"M", "N", NULL};
static const int64_t mn_defaults[] = {4096, 8192};
static const sb_param_spec add_rms_params[] = {
    {"eps", SB_PARAM_FLOAT, "1e-6", NULL, "epsilon added to mean(x^2)"},
    {"weight_dtype", SB_PARAM_STRING, "same", "same|fp32", "weight stored in the input dtype or in fp32"},
    {NULL, 0, NULL, NULL, NULL},
};
static const sb_param_spec ln_params[] = {
    {"eps", SB_PARAM_FLOAT, "1e-5", NULL, "epsilon added to the variance"},
    {"weight_dtype", SB_PARAM_STRING, "same", "same|fp32", "weight and bias in the input dtype or in fp32"},
    {NULL, 0, NULL, NULL, NULL},
};

typedef struct norm_state {
    sb_ctx *ctx;
    norm_kind kind;
    int bwd;
    int64_t M, N;
    float eps;
    sb_dtype dt, wdt;
    int sets;
    int row_vectors; /* the fused kernels' `most` (sbk_rows_most), made once when created */
    sbk_tensor a, b, w, bias, out0, out1; /* a: x (or dy), b: residual (or y) */
    sbk_scratch ws;
} norm_state;

static const char *kname(norm_kind k)
{
    return k == K_ADD_RMS ? "add_rmsnorm" : k == K_LAYERNORM ? "layernorm" : "softmax";
}

static int validate_common(const sb_op_config *cfg, norm_kind k, sb_error *err)
{
    if (sbk_check_dims(cfg, kname(k), mn_names, err) != SB_OK)
        return SB_ERR;
    if (k != K_SOFTMAX) {
        sb_dtype w;
        if (sbk_weight_dtype(cfg, kname(k), &w, err) != SB_OK)
            return SB_ERR;
        double eps = sb_params_get_double(&cfg->params, "eps", -1.0);
        if (!(eps > 0.0 && eps < 1.0))
            return sb_error_set(err, NULL, NULL, "%s: --eps must be in (0, 1)", kname(k));
    }
    return SB_OK;
}
static int add_rms_validate(const sb_op_config *c, sb_error *e) { return validate_common(c, K_ADD_RMS, e); }
static int ln_validate(const sb_op_config *c, sb_error *e) { return validate_common(c, K_LAYERNORM, e); }
static int sm_validate(const sb_op_config *c, sb_error *e) { return validate_common(c, K_SOFTMAX, e); }

static double mn_of(const sb_op_config *cfg)
{
    return (double)sb_shape_get(&cfg->shape, "M", 0) * (double)sb_shape_get(&cfg->shape, "N", 0);
}
static double wbytes(const sb_op_config *cfg)
{
    const char *w = sb_params_get(&cfg->params, "weight_dtype");
    double ws = w && strcmp(w, "fp32") == 0 ? 4.0 : (double)sb_dtype_size(cfg->dtype);
    return ws * (double)sb_shape_get(&cfg->shape, "N", 0);
}
static int is_bwd(const sb_op_config *cfg) { return strcmp(cfg->mode, "bwd") == 0; }

/* add_rmsnorm: reads x, residual, w; writes x, residual */
static double add_rms_set_bytes(const sb_op_config *c) { return 2.0 * mn_of(c) * (double)sb_dtype_size(c->dtype); }
static double add_rms_bytes(const sb_op_config *c) { return 4.0 * mn_of(c) * (double)sb_dtype_size(c->dtype) + wbytes(c); }
static double add_rms_flops(const sb_op_config *c) { return 5.0 * mn_of(c); }
/* layernorm: reads x, w, b; writes y */
static double ln_set_bytes(const sb_op_config *c) { return mn_of(c) * (double)sb_dtype_size(c->dtype); }
static double ln_bytes(const sb_op_config *c) { return 2.0 * mn_of(c) * (double)sb_dtype_size(c->dtype) + 2.0 * wbytes(c); }
static double ln_flops(const sb_op_config *c) { return 7.0 * mn_of(c); }
/* softmax fwd: reads x, writes y; bwd: reads dy, y, writes dx */
static double sm_set_bytes(const sb_op_config *c) { return (is_bwd(c) ? 2.0 : 1.0) * mn_of(c) * (double)sb_dtype_size(c->dtype); }
static double sm_bytes(const sb_op_config *c) { return (is_bwd(c) ? 3.0 : 2.0) * mn_of(c) * (double)sb_dtype_size(c->dtype); }
static double sm_flops(const sb_op_config *c) { return (is_bwd(c) ? 4.0 : 5.0) * mn_of(c); }

static void norm_destroy(void *p)
{
    norm_state *s = p;
    if (!s)
        return;
    sbk_tensor *all[] = {&s->a, &s->b, &s->w, &s->bias, &s->out0, &s->out1};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sbk_tensor_free(s->ctx, all[i]);
    if (s->ws.ptr)
        sb_ctx_free(s->ctx, s->ws.ptr);
    free(s);
}

/* A softmax output y for the backward: softmax of random rows, rounded.
 * The rows are independent: made in parts on threads (sbk_parallel). */
typedef struct softmax_y_job {
    void *h;
    int64_t M, N;
    sb_dtype dt;
    int parts;
    double *rows; /* [parts][N] */
} softmax_y_job;

static void softmax_y_part(void *arg, int p)
{
    softmax_y_job *j = arg;
    double *row = j->rows + (size_t)p * (size_t)j->N;
    int64_t r0, r1;
    sbk_part_rows(j->M, j->parts, p, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        double mx = -INFINITY, sum = 0;
        for (int64_t c = 0; c < j->N; c++) {
            row[c] = sb_load_elem(j->h, (size_t)(r * j->N + c), j->dt);
            mx = row[c] > mx ? row[c] : mx;
        }
        for (int64_t c = 0; c < j->N; c++)
            sum += exp(row[c] - mx);
        for (int64_t c = 0; c < j->N; c++)
            sb_store_elem(j->h, (size_t)(r * j->N + c), j->dt, exp(row[c] - mx) / sum);
    }
}

static int softmax_y(sb_ctx *ctx, norm_state *s, uint64_t seed, sb_error *err)
{
    size_t mn = (size_t)s->M * (size_t)s->N, es = sb_dtype_size(s->dt);
    int parts = s->M < 256 ? (int)s->M : 256;
    void *h = malloc(mn * es);
    double *rows = malloc((size_t)parts * (size_t)s->N * sizeof *rows);
    if (!h || !rows) {
        free(h);
        free(rows);
        return sb_error_set(err, NULL, NULL, "out of host memory");
    }
    sb_fill_random(h, mn, s->dt, -4.0, 4.0, seed, 7);
    softmax_y_job j = {h, s->M, s->N, s->dt, parts, rows};
    sbk_parallel(parts, softmax_y_part, &j);
    free(rows);
    return sbk_tensor_from_host(ctx, &s->b, s->sets, s->dt, mn, h, err);
}

/* The fused kernel of the op, as the row layouts name it */
static sbk_rows_kernel rows_kernel(const norm_state *s)
{
    return s->kind == K_ADD_RMS     ? SBK_ROWS_ADD_RMSNORM
           : s->kind == K_LAYERNORM ? SBK_ROWS_LAYERNORM
           : s->bwd                 ? SBK_ROWS_SOFTMAX_BWD
                                    : SBK_ROWS_SOFTMAX_FWD;
}

static int norm_create(norm_kind k, const sb_op_config *cfg, sb_ctx *ctx, void **out, sb_error *err)
{
    *out = NULL;
    norm_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    s->ctx = ctx;
    s->ws.provider = -1;
    s->kind = k;
    s->bwd = is_bwd(cfg);
    s->M = sb_shape_get(&cfg->shape, "M", 0);
    s->N = sb_shape_get(&cfg->shape, "N", 0);
    s->dt = cfg->dtype;
    s->wdt = cfg->dtype;
    s->sets = cfg->input_sets < 1 ? 1 : cfg->input_sets;
    s->eps = (float)sb_params_get_double(&cfg->params, "eps", 1e-6);
    /* the variable itself is checked in norm_prepare */
    s->row_vectors = sbk_rows_most(rows_kernel(s), s->M, s->N, sbk_from_sb(s->dt));
    size_t mn = (size_t)s->M * (size_t)s->N;
    if (k != K_SOFTMAX && sbk_weight_dtype(cfg, kname(k), &s->wdt, err) != SB_OK)
        goto fail;
    if (sbk_tensor_random(ctx, &s->a, s->sets, s->dt, mn, -2.0, 2.0, cfg->seed, 1, err) != SB_OK)
        goto fail;
    if (k == K_ADD_RMS &&
        (sbk_tensor_random(ctx, &s->b, s->sets, s->dt, mn, -2.0, 2.0, cfg->seed, 2, err) != SB_OK ||
         sbk_tensor_output(ctx, &s->out1, s->dt, mn, err) != SB_OK))
        goto fail;
    if (k != K_SOFTMAX &&
        sbk_tensor_random(ctx, &s->w, 1, s->wdt, (size_t)s->N, 0.5, 1.5, cfg->seed, 3, err) != SB_OK)
        goto fail;
    if (k == K_LAYERNORM &&
        sbk_tensor_random(ctx, &s->bias, 1, s->wdt, (size_t)s->N, -0.5, 0.5, cfg->seed, 4, err) != SB_OK)
        goto fail;
    if (k == K_SOFTMAX && s->bwd && softmax_y(ctx, s, cfg->seed, err) != SB_OK)
        goto fail;
    if (sbk_tensor_output(ctx, &s->out0, s->dt, mn, err) != SB_OK)
        goto fail;
    *out = s;
    return SB_OK;
fail:
    norm_destroy(s);
    return SB_ERR;
}
static int add_rms_create(const sb_op_config *c, sb_ctx *x, void **o, sb_error *e) { return norm_create(K_ADD_RMS, c, x, o, e); }
static int ln_create(const sb_op_config *c, sb_ctx *x, void **o, sb_error *e) { return norm_create(K_LAYERNORM, c, x, o, e); }
static int sm_create(const sb_op_config *c, sb_ctx *x, void **o, sb_error *e) { return norm_create(K_SOFTMAX, c, x, o, e); }

static int norm_outputs(void *p, sb_output *o)
{
    norm_state *s = p;
    if (s->kind == K_ADD_RMS) {
        o[0] = (sb_output){"x", s->out0.dev[0], s->dt, s->M, s->N, s->N};
        o[1] = (sb_output){"residual", s->out1.dev[0], s->dt, s->M, s->N, s->N};
        return 2;
    }
    o[0] = (sb_output){s->bwd ? "dx" : "y", s->out0.dev[0], s->dt, s->M, s->N, s->N};
    return 1;
}

static int norm_reference_row(void *p, int out, int64_t r, double *ref, double *scale, sb_error *err)
{
    norm_state *s = p;
    const int64_t N = s->N;
    double *x = calloc((size_t)N * 2, sizeof *x);
    if (!x)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    double *t = x + N;
    for (int64_t j = 0; j < N; j++)
        x[j] = sbk_h(&s->a, (size_t)(r * N + j));
    if (s->kind == K_ADD_RMS) {
        /* residual = x + residual, rounded to the dtype as the op stores it;
         * x = rmsnorm(residual) * w from the stored residual */
        for (int64_t j = 0; j < N; j++) {
            double sum = x[j] + sbk_h(&s->b, (size_t)(r * N + j));
            uint64_t cell = 0;
            sb_store_elem(&cell, 0, s->dt, sum);
            t[j] = sb_load_elem(&cell, 0, s->dt);
        }
        if (out == 1) {
            memcpy(ref, t, (size_t)N * sizeof *ref);
            for (int64_t j = 0; j < N; j++)
                scale[j] = fabs(x[j]) + fabs(sbk_h(&s->b, (size_t)(r * N + j)));
        } else {
            double ss = 0;
            for (int64_t j = 0; j < N; j++)
                ss += t[j] * t[j];
            double rs = 1.0 / sqrt(ss / (double)N + (double)s->eps);
            for (int64_t j = 0; j < N; j++)
                ref[j] = t[j] * rs * sbk_h(&s->w, (size_t)j);
        }
    } else if (s->kind == K_LAYERNORM) {
        double mean = 0, var = 0;
        for (int64_t j = 0; j < N; j++)
            mean += x[j];
        mean /= (double)N;
        for (int64_t j = 0; j < N; j++)
            var += (x[j] - mean) * (x[j] - mean);
        double rs = 1.0 / sqrt(var / (double)N + (double)s->eps);
        for (int64_t j = 0; j < N; j++) {
            double n = (x[j] - mean) * rs * sbk_h(&s->w, (size_t)j);
            ref[j] = n + sbk_h(&s->bias, (size_t)j);
            scale[j] = fabs(n) + fabs(sbk_h(&s->bias, (size_t)j)) + fabs(mean * rs);
        }
    } else if (!s->bwd) {
        sbk_ref_softmax_fwd(x, ref, 1, N);
        for (int64_t j = 0; j < N; j++)
            scale[j] = fabs(ref[j]);
    } else {
        for (int64_t j = 0; j < N; j++)
            t[j] = sbk_h(&s->b, (size_t)(r * N + j));
        sbk_ref_softmax_bwd(x, t, ref, 1, N);
        double dot_abs = 0;
        for (int64_t j = 0; j < N; j++)
            dot_abs += fabs(x[j] * t[j]);
        for (int64_t j = 0; j < N; j++)
            scale[j] = fabs(t[j]) * (fabs(x[j]) + dot_abs);
    }
    free(x);
    sbk_scale_floor(scale, N, s->dt);
    return SB_OK;
}

static int64_t norm_check_rows(void *p, int out)
{
    (void)p;
    (void)out;
    return 64;
}

static int norm_supports(void *p, int provider, char *why, size_t n)
{
    norm_state *s = p;
    (void)why;
    (void)n;
    sbk_scratch_drop(s->ctx, &s->ws, provider);
    return 0;
}

static int norm_prepare(void *p, int provider, sb_error *err)
{
    norm_state *s = p;
    if (provider == SBK_P_FUSED) {
        char bad[160];
        if (sbk_row_vectors_env_check(bad, sizeof bad) != 0)
            return sb_error_set(err, NULL, NULL, "%s: %s", kname(s->kind), bad);
    }
    if (provider != SBK_P_REFERENCE)
        return SB_OK;
    sbk_dtype dt = sbk_from_sb(s->dt);
    size_t bytes = s->kind == K_ADD_RMS     ? sbk_eager_add_rmsnorm_workspace(s->M, s->N, dt)
                   : s->kind == K_LAYERNORM ? sbk_eager_layernorm_fwd_workspace(s->M, s->N, dt)
                                            : sbk_eager_softmax_workspace(s->M, s->N, dt);
    return sbk_scratch_get(s->ctx, &s->ws, provider, bytes, err);
}

static int norm_run(void *p, int provider, int set, sb_error *err)
{
    norm_state *s = p;
    sbk_dtype dt = sbk_from_sb(s->dt), wdt = sbk_from_sb(s->wdt);
    const void *a = sbk_dev(&s->a, set), *b = sbk_dev(&s->b, set);
    const void *w = sbk_dev(&s->w, 0), *bias = sbk_dev(&s->bias, 0);
    void *o0 = s->out0.dev[0], *o1 = sbk_dev(&s->out1, 0);
    cudaStream_t st = (cudaStream_t)s->ctx->stream;
    if (provider == SBK_P_CPU) {
        int rc;
        if (s->kind == K_ADD_RMS) {
            /* in place on copies of the inputs, as the op is used */
            size_t bytes = (size_t)s->M * (size_t)s->N * sb_dtype_size(s->dt);
            memcpy(o0, a, bytes);
            memcpy(o1, b, bytes);
            rc = sbk_cpu_add_rmsnorm(o0, o1, dt, w, wdt, s->M, s->N, s->eps);
        } else if (s->kind == K_LAYERNORM) {
            rc = sbk_cpu_layernorm_fwd(a, dt, w, bias, wdt, o0, s->M, s->N, s->eps);
        } else {
            rc = s->bwd ? sbk_cpu_softmax_bwd(a, b, dt, o0, s->M, s->N) : sbk_cpu_softmax_fwd(a, dt, o0, s->M, s->N);
        }
        return rc == 0 ? SB_OK : sb_error_set(err, NULL, NULL, "%s cpu: bad size", kname(s->kind));
    }
    cudaError_t e;
    if (provider == SBK_P_FUSED) {
        if (s->kind == K_ADD_RMS)
            e = sbk_add_rmsnorm(a, b, w, o0, o1, s->M, s->N, s->eps, dt, wdt, s->row_vectors, st);
        else if (s->kind == K_LAYERNORM)
            e = sbk_layernorm_fwd(a, w, bias, o0, s->M, s->N, s->eps, dt, wdt, s->row_vectors, st);
        else
            e = s->bwd ? sbk_softmax_bwd(a, b, o0, s->M, s->N, dt, s->row_vectors, st)
                       : sbk_softmax_fwd(a, o0, s->M, s->N, dt, s->row_vectors, st);
    } else {
        void *ws = s->ws.ptr;
        if (s->kind == K_ADD_RMS)
            e = sbk_eager_add_rmsnorm(a, b, w, o0, o1, ws, s->M, s->N, s->eps, dt, wdt, st);
        else if (s->kind == K_LAYERNORM)
            e = sbk_eager_layernorm_fwd(a, w, bias, o0, ws, s->M, s->N, s->eps, dt, wdt, st);
        else
            e = s->bwd ? sbk_eager_softmax_bwd(a, b, o0, ws, s->M, s->N, dt, st)
                       : sbk_eager_softmax_fwd(a, o0, ws, s->M, s->N, dt, st);
    }
    return e == cudaSuccess ? SB_OK : sbk_cuda_error(err, kname(s->kind), e);
}

/* How the fused kernel holds a row, so that a result says what ran. */
static void norm_provider_params(void *p, int provider, sb_params *extra)
{
    norm_state *s = p;
    if (provider != SBK_P_FUSED || extra->count >= SB_MAX_PARAMS)
        return;
    sbk_rows_kernel k = rows_kernel(s);
    int i = extra->count++;
    snprintf(extra->name[i], SB_NAME_MAX, "row_layout");
    sbk_rows_layout_name(k, s->N, sbk_from_sb(s->dt), s->row_vectors, extra->value[i], sizeof extra->value[i]);
}

static const char *const norm_recorded_params[] = {"row_layout", NULL};

#define NORM_OP(var, nm, sum, modes_, params_, pfx)                                             \
    const sb_op var = {                                                                         \
        .name = nm, .summary = sum, .modes = modes_, .providers = sbk_providers,                \
        .shape_names = mn_names, .shape_defaults = mn_defaults, .params = params_,              \
        .dtypes = SBK_DTYPES, .validate = pfx##_validate, .input_set_bytes = pfx##_set_bytes,   \
        .model_flops = pfx##_flops, .model_bytes = pfx##_bytes, .create = pfx##_create,         \
        .destroy = norm_destroy, .outputs = norm_outputs, .reference_row = norm_reference_row,  \
        .check_rows = norm_check_rows, .supports = norm_supports, .prepare = norm_prepare,      \
        .run = norm_run, .batch_invariance = NULL, .provider_params = norm_provider_params,     \
        .recorded_params = norm_recorded_params,                                                \
    }

NORM_OP(sb_op_add_rmsnorm, "add_rmsnorm",
        "vLLM fused_add_rms_norm: residual = x + residual; x = rmsnorm(residual) * w (in place)",
        fwd_only, add_rms_params, add_rms);
NORM_OP(sb_op_layernorm, "layernorm", "LayerNorm forward over rows of N with weight and bias", fwd_only,
        ln_params, ln);
NORM_OP(sb_op_softmax, "softmax", "softmax over the last dim: forward, or backward from y and dy",
        softmax_modes, NULL, sm);

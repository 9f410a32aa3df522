/* op_elem.c - solbench ops "rope" (HF rotate_half RoPE on q and k) and
 * "swiglu" (silu(a) * b, the activation of LlamaMLP), forward, backward or
 * both. Semantics and models: docs/KERNELS.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbk_cpu.h"
#include "sbk_cuda.h"
#include "sbk_op.h"

enum { MODE_FWD, MODE_BWD, MODE_FULL };
static int mode_of(const char *m)
{
    return strcmp(m, "bwd") == 0 ? MODE_BWD : strcmp(m, "full") == 0 ? MODE_FULL : MODE_FWD;
}
static const char *const elem_modes[] = {"fwd", "bwd", "full", NULL};

/* The fused kernels' launch plan: the measured default, or the one named
 * in SOLBENCH_ELEM_PLAN (for experiments). Made once per case, where the
 * fused provider is prepared, and recorded in run_params as elem_plan. */
static int elem_plan_prepare(const char *op, sbk_elem_kernel k, sbk_elem_plan *plan, sb_error *err)
{
    const char *req = getenv("SOLBENCH_ELEM_PLAN");
    if (sbk_elem_plan_make(k, req, plan) != 0)
        return sb_error_set(err, NULL, NULL,
                            "%s: SOLBENCH_ELEM_PLAN=%s: not a plan (auto, stride or tile, optionally :1, :2 "
                            "or :4, then optionally /128 or /256)",
                            op, req);
    return SB_OK;
}

static void elem_plan_record(const sbk_elem_plan *plan, int provider, sb_params *extra)
{
    if (provider != SBK_P_FUSED || extra->count >= SB_MAX_PARAMS)
        return;
    int i = extra->count++;
    snprintf(extra->name[i], SB_NAME_MAX, "elem_plan");
    sbk_elem_plan_name(plan, extra->value[i], sizeof extra->value[i]);
}

static const char *const elem_recorded_params[] = {"elem_plan", NULL};

/* ------------------------------------------------------------------ RoPE */

static const char *const rope_names[] = {"B", "T", "Hq", "Hk", "D", NULL};
static const int64_t rope_defaults[] = {1, 2048, 32, 8, 128};

typedef struct rope_state {
    sb_ctx *ctx;
    int mode;
    int64_t B, T, Hq, Hk, D;
    sb_dtype dt;
    int sets;
    sbk_tensor q, k, gq, gk, cs, sn, qo, ko, dq, dk;
    sbk_scratch ws;
    sbk_elem_plan plan; /* fused: how it launches */
} rope_state;

static int rope_validate(const sb_op_config *cfg, sb_error *err)
{
    if (sbk_check_dims(cfg, "rope", rope_names, err) != SB_OK)
        return SB_ERR;
    if (sb_shape_get(&cfg->shape, "D", 0) % 2)
        return sb_error_set(err, NULL, NULL, "rope: --D (head_dim) must be even");
    return SB_OK;
}

static double rope_elems(const sb_op_config *c, double *tabs)
{
    double B = (double)sb_shape_get(&c->shape, "B", 0), T = (double)sb_shape_get(&c->shape, "T", 0);
    double H = (double)(sb_shape_get(&c->shape, "Hq", 0) + sb_shape_get(&c->shape, "Hk", 0));
    double D = (double)sb_shape_get(&c->shape, "D", 0);
    *tabs = 2.0 * T * D; /* cos and sin */
    return B * T * H * D;
}
/* fwd: read q, k, cos, sin; write q', k'. bwd: the same with the grads.
 * full: both. 3 flops per element (two products, one add). */
static double rope_set_bytes(const sb_op_config *c)
{
    double tabs, n = rope_elems(c, &tabs);
    return (mode_of(c->mode) == MODE_FULL ? 2.0 : 1.0) * n * (double)sb_dtype_size(c->dtype);
}
static double rope_bytes(const sb_op_config *c)
{
    double tabs, n = rope_elems(c, &tabs), es = (double)sb_dtype_size(c->dtype);
    double one = (2.0 * n + tabs) * es;
    return mode_of(c->mode) == MODE_FULL ? 2.0 * one : one;
}
static double rope_flops(const sb_op_config *c)
{
    double tabs, n = rope_elems(c, &tabs);
    return (mode_of(c->mode) == MODE_FULL ? 6.0 : 3.0) * n;
}

static void rope_destroy(void *p)
{
    rope_state *s = p;
    if (!s)
        return;
    sbk_tensor *all[] = {&s->q, &s->k, &s->gq, &s->gk, &s->cs, &s->sn, &s->qo, &s->ko, &s->dq, &s->dk};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sbk_tensor_free(s->ctx, all[i]);
    if (s->ws.ptr)
        sb_ctx_free(s->ctx, s->ws.ptr);
    free(s);
}

static int rope_create(const sb_op_config *cfg, sb_ctx *ctx, void **out, sb_error *err)
{
    *out = NULL;
    rope_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    sbk_elem_plan_make(SBK_ELEM_ROPE, NULL, &s->plan);
    s->ctx = ctx;
    s->ws.provider = -1;
    s->mode = mode_of(cfg->mode);
    s->B = sb_shape_get(&cfg->shape, "B", 0);
    s->T = sb_shape_get(&cfg->shape, "T", 0);
    s->Hq = sb_shape_get(&cfg->shape, "Hq", 0);
    s->Hk = sb_shape_get(&cfg->shape, "Hk", 0);
    s->D = sb_shape_get(&cfg->shape, "D", 0);
    s->dt = cfg->dtype;
    s->sets = cfg->input_sets < 1 ? 1 : cfg->input_sets;
    size_t nq = (size_t)(s->B * s->T * s->Hq * s->D), nk = (size_t)(s->B * s->T * s->Hk * s->D);
    size_t nt = (size_t)(s->T * s->D), es = sb_dtype_size(s->dt);
    /* HF LlamaRotaryEmbedding (base 10000): cos/sin of t * inv_freq,
     * the half repeated, stored in the input dtype */
    void *hc = malloc(nt * es), *hs = malloc(nt * es);
    if (!hc || !hs) {
        free(hc);
        free(hs);
        rope_destroy(s);
        return sb_error_set(err, NULL, NULL, "out of host memory");
    }
    for (int64_t t = 0; t < s->T; t++)
        for (int64_t i = 0; i < s->D; i++) {
            int64_t f = i % (s->D / 2);
            double inv = pow(10000.0, -2.0 * (double)f / (double)s->D);
            sb_store_elem(hc, (size_t)(t * s->D + i), s->dt, cos((double)t * inv));
            sb_store_elem(hs, (size_t)(t * s->D + i), s->dt, sin((double)t * inv));
        }
    if (sbk_tensor_from_host(ctx, &s->cs, 1, s->dt, nt, hc, err) != SB_OK) {
        free(hs);
        goto fail;
    }
    if (sbk_tensor_from_host(ctx, &s->sn, 1, s->dt, nt, hs, err) != SB_OK)
        goto fail;
    if (s->mode != MODE_BWD &&
        (sbk_tensor_random(ctx, &s->q, s->sets, s->dt, nq, -2.0, 2.0, cfg->seed, 1, err) != SB_OK ||
         sbk_tensor_random(ctx, &s->k, s->sets, s->dt, nk, -2.0, 2.0, cfg->seed, 2, err) != SB_OK ||
         sbk_tensor_output(ctx, &s->qo, s->dt, nq, err) != SB_OK ||
         sbk_tensor_output(ctx, &s->ko, s->dt, nk, err) != SB_OK))
        goto fail;
    if (s->mode != MODE_FWD &&
        (sbk_tensor_random(ctx, &s->gq, s->sets, s->dt, nq, -1.0, 1.0, cfg->seed, 3, err) != SB_OK ||
         sbk_tensor_random(ctx, &s->gk, s->sets, s->dt, nk, -1.0, 1.0, cfg->seed, 4, err) != SB_OK ||
         sbk_tensor_output(ctx, &s->dq, s->dt, nq, err) != SB_OK ||
         sbk_tensor_output(ctx, &s->dk, s->dt, nk, err) != SB_OK))
        goto fail;
    *out = s;
    return SB_OK;
fail:
    rope_destroy(s);
    return SB_ERR;
}

static int rope_outputs(void *p, sb_output *o)
{
    rope_state *s = p;
    int n = 0;
    int64_t rq = s->B * s->T * s->Hq, rk = s->B * s->T * s->Hk;
    if (s->mode != MODE_BWD) {
        o[n++] = (sb_output){"q_out", s->qo.dev[0], s->dt, rq, s->D, s->D};
        o[n++] = (sb_output){"k_out", s->ko.dev[0], s->dt, rk, s->D, s->D};
    }
    if (s->mode != MODE_FWD) {
        o[n++] = (sb_output){"dq", s->dq.dev[0], s->dt, rq, s->D, s->D};
        o[n++] = (sb_output){"dk", s->dk.dev[0], s->dt, rk, s->D, s->D};
    }
    return n;
}

static int rope_reference_row(void *p, int out, int64_t row, double *ref, double *scale, sb_error *err)
{
    rope_state *s = p;
    int bwd = s->mode == MODE_BWD || (s->mode == MODE_FULL && out >= 2);
    int is_k = out % 2;
    const sbk_tensor *src = bwd ? (is_k ? &s->gk : &s->gq) : (is_k ? &s->k : &s->q);
    int64_t H = is_k ? s->Hk : s->Hq, D = s->D, t = (row / H) % s->T;
    double *buf = calloc((size_t)D * 3, sizeof *buf);
    if (!buf)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    double *x = buf, *c = buf + D, *sn = buf + 2 * D;
    for (int64_t i = 0; i < D; i++) {
        x[i] = sbk_h(src, (size_t)(row * D + i));
        c[i] = sbk_h(&s->cs, (size_t)(t * D + i));
        sn[i] = sbk_h(&s->sn, (size_t)(t * D + i));
    }
    /* one head at position t: the reference over B = T = H = 1 */
    sbk_ref_rope(x, c, sn, ref, 1, 1, 1, D, bwd);
    int64_t h = D / 2;
    for (int64_t i = 0; i < D; i++)
        scale[i] = fabs(x[i] * c[i]) + fabs(x[(i + h) % D] * (i < h ? sn[i] : sn[i - h]));
    sbk_scale_floor(scale, D, s->dt);
    free(buf);
    return SB_OK;
}

static int64_t rope_check_rows(void *p, int out)
{
    (void)p;
    (void)out;
    return 128;
}

static int rope_supports(void *p, int provider, char *why, size_t n)
{
    rope_state *s = p;
    (void)why;
    (void)n;
    sbk_scratch_drop(s->ctx, &s->ws, provider);
    return 0;
}

static int rope_prepare(void *p, int provider, sb_error *err)
{
    rope_state *s = p;
    if (provider == SBK_P_FUSED)
        return elem_plan_prepare("rope", SBK_ELEM_ROPE, &s->plan, err);
    if (provider != SBK_P_REFERENCE)
        return SB_OK;
    return sbk_scratch_get(s->ctx, &s->ws, provider,
                           sbk_eager_rope_workspace(s->B, s->T, s->Hq, s->Hk, s->D, sbk_from_sb(s->dt)), err);
}

static int rope_run(void *p, int provider, int set, sb_error *err)
{
    rope_state *s = p;
    sbk_dtype dt = sbk_from_sb(s->dt);
    cudaStream_t st = (cudaStream_t)s->ctx->stream;
    const void *c = s->cs.dev[0], *sn = s->sn.dev[0];
    for (int pass = 0; pass < 2; pass++) {
        int inverse = pass == 1;
        if ((inverse && s->mode == MODE_FWD) || (!inverse && s->mode == MODE_BWD))
            continue;
        const void *q = inverse ? sbk_dev(&s->gq, set) : sbk_dev(&s->q, set);
        const void *k = inverse ? sbk_dev(&s->gk, set) : sbk_dev(&s->k, set);
        void *qo = inverse ? s->dq.dev[0] : s->qo.dev[0], *ko = inverse ? s->dk.dev[0] : s->ko.dev[0];
        if (provider == SBK_P_CPU) {
            if (sbk_cpu_rope(q, k, c, sn, dt, qo, ko, s->B, s->T, s->Hq, s->Hk, s->D, inverse) != 0)
                return sb_error_set(err, NULL, NULL, "rope cpu: bad size");
            continue;
        }
        cudaError_t e = provider == SBK_P_FUSED
                            ? sbk_rope(q, k, c, sn, qo, ko, s->B, s->T, s->Hq, s->Hk, s->D, inverse, dt, &s->plan, st)
                            : sbk_eager_rope(q, k, c, sn, qo, ko, s->ws.ptr, s->B, s->T, s->Hq, s->Hk, s->D,
                                             inverse, dt, st);
        if (e != cudaSuccess)
            return sbk_cuda_error(err, provider == SBK_P_FUSED ? "rope fused" : "rope reference", e);
    }
    return SB_OK;
}

static void rope_provider_params(void *p, int provider, sb_params *extra)
{
    elem_plan_record(&((rope_state *)p)->plan, provider, extra);
}

const sb_op sb_op_rope = {
    .name = "rope",
    .summary = "RoPE (HF rotate_half) on q [B,T,Hq,D] and k [B,T,Hk,D] with cos/sin [T,D]",
    .modes = elem_modes,
    .providers = sbk_providers,
    .shape_names = rope_names,
    .shape_defaults = rope_defaults,
    .params = NULL,
    .dtypes = SBK_DTYPES,
    .validate = rope_validate,
    .input_set_bytes = rope_set_bytes,
    .model_flops = rope_flops,
    .model_bytes = rope_bytes,
    .create = rope_create,
    .destroy = rope_destroy,
    .outputs = rope_outputs,
    .reference_row = rope_reference_row,
    .check_rows = rope_check_rows,
    .supports = rope_supports,
    .prepare = rope_prepare,
    .run = rope_run,
    .batch_invariance = NULL,
    .provider_params = rope_provider_params,
    .recorded_params = elem_recorded_params,
};

/* ---------------------------------------------------------------- SwiGLU */

static const char *const swiglu_names[] = {"B", "T", "I", NULL};
static const int64_t swiglu_defaults[] = {4, 2048, 11008};

typedef struct swiglu_state {
    sb_ctx *ctx;
    int mode;
    int64_t rows, I;
    sb_dtype dt;
    int sets;
    sbk_tensor a, b, dc, c, da, db;
    sbk_scratch ws;
    int saved_ready;
    sbk_elem_plan plan; /* fused: how it launches */
} swiglu_state;

static int swiglu_validate(const sb_op_config *cfg, sb_error *err)
{
    return sbk_check_dims(cfg, "swiglu", swiglu_names, err);
}

static double swiglu_n(const sb_op_config *c)
{
    return (double)sb_shape_get(&c->shape, "B", 0) * (double)sb_shape_get(&c->shape, "T", 0) *
           (double)sb_shape_get(&c->shape, "I", 0);
}
/* fwd: read a, b; write c. bwd: read dc, a, b; write da, db. */
static double swiglu_set_bytes(const sb_op_config *c)
{
    return (mode_of(c->mode) == MODE_FWD ? 2.0 : 3.0) * swiglu_n(c) * (double)sb_dtype_size(c->dtype);
}
static double swiglu_bytes(const sb_op_config *c)
{
    int m = mode_of(c->mode);
    double k = m == MODE_FWD ? 3.0 : m == MODE_BWD ? 5.0 : 8.0;
    return k * swiglu_n(c) * (double)sb_dtype_size(c->dtype);
}
/* silu(a) = a / (1 + exp(-a)): 4 flops counting exp as one; times b: 1;
 * backward: 9 */
static double swiglu_flops(const sb_op_config *c)
{
    int m = mode_of(c->mode);
    return (m == MODE_FWD ? 5.0 : m == MODE_BWD ? 9.0 : 14.0) * swiglu_n(c);
}

static void swiglu_destroy(void *p)
{
    swiglu_state *s = p;
    if (!s)
        return;
    sbk_tensor *all[] = {&s->a, &s->b, &s->dc, &s->c, &s->da, &s->db};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sbk_tensor_free(s->ctx, all[i]);
    if (s->ws.ptr)
        sb_ctx_free(s->ctx, s->ws.ptr);
    free(s);
}

static int swiglu_create(const sb_op_config *cfg, sb_ctx *ctx, void **out, sb_error *err)
{
    *out = NULL;
    swiglu_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    sbk_elem_plan_make(SBK_ELEM_SWIGLU, NULL, &s->plan);
    s->ctx = ctx;
    s->ws.provider = -1;
    s->mode = mode_of(cfg->mode);
    s->rows = sb_shape_get(&cfg->shape, "B", 0) * sb_shape_get(&cfg->shape, "T", 0);
    s->I = sb_shape_get(&cfg->shape, "I", 0);
    s->dt = cfg->dtype;
    s->sets = cfg->input_sets < 1 ? 1 : cfg->input_sets;
    size_t n = (size_t)s->rows * (size_t)s->I;
    if (sbk_tensor_random(ctx, &s->a, s->sets, s->dt, n, -4.0, 4.0, cfg->seed, 1, err) != SB_OK ||
        sbk_tensor_random(ctx, &s->b, s->sets, s->dt, n, -2.0, 2.0, cfg->seed, 2, err) != SB_OK)
        goto fail;
    if (s->mode != MODE_BWD && sbk_tensor_output(ctx, &s->c, s->dt, n, err) != SB_OK)
        goto fail;
    if (s->mode != MODE_FWD &&
        (sbk_tensor_random(ctx, &s->dc, s->sets, s->dt, n, -1.0, 1.0, cfg->seed, 3, err) != SB_OK ||
         sbk_tensor_output(ctx, &s->da, s->dt, n, err) != SB_OK ||
         sbk_tensor_output(ctx, &s->db, s->dt, n, err) != SB_OK))
        goto fail;
    *out = s;
    return SB_OK;
fail:
    swiglu_destroy(s);
    return SB_ERR;
}

static int swiglu_outputs(void *p, sb_output *o)
{
    swiglu_state *s = p;
    int n = 0;
    if (s->mode != MODE_BWD)
        o[n++] = (sb_output){"c", s->c.dev[0], s->dt, s->rows, s->I, s->I};
    if (s->mode != MODE_FWD) {
        o[n++] = (sb_output){"da", s->da.dev[0], s->dt, s->rows, s->I, s->I};
        o[n++] = (sb_output){"db", s->db.dev[0], s->dt, s->rows, s->I, s->I};
    }
    return n;
}

static int swiglu_reference_row(void *p, int out, int64_t row, double *ref, double *scale, sb_error *err)
{
    swiglu_state *s = p;
    (void)err;
    int which = s->mode == MODE_BWD ? out + 1 : out; /* 0 c, 1 da, 2 db */
    for (int64_t j = 0; j < s->I; j++) {
        size_t i = (size_t)(row * s->I + j);
        double a = sbk_h(&s->a, i), b = sbk_h(&s->b, i), sg = 1.0 / (1.0 + exp(-a));
        if (which == 0) {
            ref[j] = a * sg * b;
        } else {
            double g = sbk_h(&s->dc, i);
            ref[j] = which == 2 ? g * a * sg : g * b * sg * (1.0 + a * (1.0 - sg));
            scale[j] = fabs(g) * (fabs(a) + fabs(b) * (1.0 + fabs(a)));
        }
        if (which == 0)
            scale[j] = fabs(a * b);
    }
    sbk_scale_floor(scale, s->I, s->dt);
    return SB_OK;
}

static int64_t swiglu_check_rows(void *p, int out)
{
    (void)p;
    (void)out;
    return 64;
}

static int swiglu_supports(void *p, int provider, char *why, size_t n)
{
    swiglu_state *s = p;
    (void)why;
    (void)n;
    sbk_scratch_drop(s->ctx, &s->ws, provider);
    if (provider != SBK_P_REFERENCE)
        s->saved_ready = 0;
    return 0;
}

/* reference scratch: [saved silu(a) per set (bwd) or one (full)] + one
 * intermediate */
static int swiglu_prepare(void *p, int provider, sb_error *err)
{
    swiglu_state *s = p;
    if (provider == SBK_P_FUSED)
        return elem_plan_prepare("swiglu", SBK_ELEM_SWIGLU, &s->plan, err);
    if (provider != SBK_P_REFERENCE)
        return SB_OK;
    size_t n = (size_t)s->rows * (size_t)s->I, one = sbk_eager_swiglu_workspace((int64_t)n, sbk_from_sb(s->dt));
    int nsaved = s->mode == MODE_BWD ? s->sets : s->mode == MODE_FULL ? 1 : 0;
    if (sbk_scratch_get(s->ctx, &s->ws, provider, (size_t)(nsaved + 1) * one, err) != SB_OK)
        return SB_ERR;
    if (s->mode == MODE_BWD && !s->saved_ready) {
        for (int i = 0; i < s->sets; i++) {
            cudaError_t e = sbk_eager_swiglu_save(sbk_dev(&s->a, i), (char *)s->ws.ptr + (size_t)i * one,
                                                  (int64_t)n, sbk_from_sb(s->dt), (cudaStream_t)s->ctx->stream);
            if (e != cudaSuccess)
                return sbk_cuda_error(err, "swiglu reference: saved silu(a)", e);
        }
        cudaError_t e = cudaStreamSynchronize((cudaStream_t)s->ctx->stream);
        if (e != cudaSuccess)
            return sbk_cuda_error(err, "swiglu reference: saved silu(a)", e);
        s->saved_ready = 1;
    }
    return SB_OK;
}

static int swiglu_run(void *p, int provider, int set, sb_error *err)
{
    swiglu_state *s = p;
    sbk_dtype dt = sbk_from_sb(s->dt);
    int64_t n = s->rows * s->I;
    const void *a = sbk_dev(&s->a, set), *b = sbk_dev(&s->b, set), *dc = sbk_dev(&s->dc, set);
    cudaStream_t st = (cudaStream_t)s->ctx->stream;
    if (provider == SBK_P_CPU) {
        if (s->mode != MODE_BWD && sbk_cpu_swiglu_fwd(a, b, dt, s->c.dev[0], n) != 0)
            return sb_error_set(err, NULL, NULL, "swiglu cpu: bad size");
        if (s->mode != MODE_FWD && sbk_cpu_swiglu_bwd(dc, a, b, dt, s->da.dev[0], s->db.dev[0], n) != 0)
            return sb_error_set(err, NULL, NULL, "swiglu cpu: bad size");
        return SB_OK;
    }
    cudaError_t e = cudaSuccess;
    if (provider == SBK_P_FUSED) {
        if (s->mode != MODE_BWD)
            e = sbk_swiglu_fwd(a, b, s->c.dev[0], n, dt, &s->plan, st);
        if (e == cudaSuccess && s->mode != MODE_FWD)
            e = sbk_swiglu_bwd(dc, a, b, s->da.dev[0], s->db.dev[0], n, dt, &s->plan, st);
        return e == cudaSuccess ? SB_OK : sbk_cuda_error(err, "swiglu fused", e);
    }
    size_t one = sbk_eager_swiglu_workspace(n, dt);
    char *base = s->ws.ptr;
    if (s->mode == MODE_FWD) {
        e = sbk_eager_swiglu_fwd(a, b, s->c.dev[0], base, n, dt, st);
    } else if (s->mode == MODE_FULL) {
        /* the forward's silu(a) is what autograd keeps */
        e = sbk_eager_swiglu_fwd(a, b, s->c.dev[0], base, n, dt, st);
        if (e == cudaSuccess)
            e = sbk_eager_swiglu_bwd(dc, a, b, base, s->da.dev[0], s->db.dev[0], base + one, n, dt, st);
    } else {
        e = sbk_eager_swiglu_bwd(dc, a, b, base + (size_t)(set % s->sets) * one, s->da.dev[0], s->db.dev[0],
                                 base + (size_t)s->sets * one, n, dt, st);
    }
    return e == cudaSuccess ? SB_OK : sbk_cuda_error(err, "swiglu reference", e);
}

static void swiglu_provider_params(void *p, int provider, sb_params *extra)
{
    elem_plan_record(&((swiglu_state *)p)->plan, provider, extra);
}

const sb_op sb_op_swiglu = {
    .name = "swiglu",
    .summary = "SwiGLU activation c = silu(a) * b over [B*T, I] (LlamaMLP), forward, backward or both",
    .modes = elem_modes,
    .providers = sbk_providers,
    .shape_names = swiglu_names,
    .shape_defaults = swiglu_defaults,
    .params = NULL,
    .dtypes = SBK_DTYPES,
    .validate = swiglu_validate,
    .input_set_bytes = swiglu_set_bytes,
    .model_flops = swiglu_flops,
    .model_bytes = swiglu_bytes,
    .create = swiglu_create,
    .destroy = swiglu_destroy,
    .outputs = swiglu_outputs,
    .reference_row = swiglu_reference_row,
    .check_rows = swiglu_check_rows,
    .supports = swiglu_supports,
    .prepare = swiglu_prepare,
    .run = swiglu_run,
    .batch_invariance = NULL,
    .provider_params = swiglu_provider_params,
    .recorded_params = elem_recorded_params,
};

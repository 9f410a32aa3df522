/* op_ce.c - solbench ops "cross_entropy" (mean cross entropy over rows of V
 * logits, ignore_index -100, forward or forward + backward) and "flce"
 * (fused linear cross entropy: hidden [BT,H] x weight [V,H]^T, the loss,
 * and dH, dW without the full logits). Semantics, byte counts and the
 * memory headline: docs/KERNELS.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbk_cpu.h"
#include "sbk_cuda.h"
#include "sbk_op.h"

static const char *const ce_modes[] = {"fwd", "full", NULL};

/* Outputs that need every row for their reference (the mean loss, dW) are
 * listed only up to this many multiply-adds / exps of float64 work. */
#define FULL_REF_LIMIT ((double)(1 << 28))

typedef struct ce_state {
    sb_ctx *ctx;
    int flce, full;
    int accum; /* flce fused: SBK_FLCE_ACCUM_INPUT or SBK_FLCE_ACCUM_FP32 */
    int row_plan; /* fused: how a row of logits is held (sbk_ce_row_plan), read in prepare */
    int64_t M, V, H, chunk;
    sb_dtype dt;
    int sets;
    int64_t nvalid;
    int with_loss, with_dw;
    sbk_tensor x, w, tgt, loss_rows, loss, dx, dw;
    sbk_scratch ws;
    cublasHandle_t handle;
    /* float64 reference caches */
    int64_t cache_row[16];
    double *cache_logits[16];
    int cache_next;
    double ref_loss;
    double *ref_dw, *ref_dw_scale, *ref_dw_flip;
    int ref_full_done;
    float *w32; /* flce: the weight widened once (exact), for the references */
} ce_state;

static const char *const ce_names[] = {"M", "V", NULL};
static const int64_t ce_defaults[] = {16384, 128256};
static const sb_param_spec ce_params[] = {
    {"ignore_frac", SB_PARAM_FLOAT, "0", NULL, "fraction of rows whose target is ignore_index (-100)"},
    {NULL, 0, NULL, NULL, NULL},
};
static const char *const flce_names[] = {"BT", "H", "V", NULL};
static const int64_t flce_defaults[] = {4096, 4096, 128256};
static const sb_param_spec flce_params[] = {
    {"chunk", SB_PARAM_INT, "0", NULL,
     "rows per chunk of the fused provider, or columns per vocabulary slice where it slices the vocabulary "
     "(--accum vocab, and the loss alone with --accum fp32); 0: by the rule and budget of --accum"},
    {"accum", SB_PARAM_STRING, "fp32", "fp32|input|vocab",
     "fused dW across chunks: fp32 = an fp32 accumulator (V x H x 4 bytes) and fp32 logits; input = dW "
     "rounded to the weight's dtype after every chunk and the logits in place in that dtype, 128 MiB chunks "
     "(Liger's default; less memory, but dW then misses the bf16 tolerance once there are several chunks); "
     "vocab = no accumulator: slices of the vocabulary (--chunk columns), each slice's dW one GEMM over all "
     "rows, the logits computed twice (loss pass, gradient pass)"},
    {"ignore_frac", SB_PARAM_FLOAT, "0", NULL, "fraction of rows whose target is ignore_index (-100)"},
    {NULL, 0, NULL, NULL, NULL},
};

static int is_full(const sb_op_config *c) { return strcmp(c->mode, "full") == 0; }

static int ce_common_validate(const sb_op_config *cfg, const char *op, const char *const *names, sb_error *err)
{
    if (sbk_check_dims(cfg, op, names, err) != SB_OK)
        return SB_ERR;
    double f = sb_params_get_double(&cfg->params, "ignore_frac", -1.0);
    if (!(f >= 0.0 && f < 1.0))
        return sb_error_set(err, NULL, NULL, "%s: --ignore_frac must be in [0, 1)", op);
    return SB_OK;
}
static int ce_validate(const sb_op_config *c, sb_error *e) { return ce_common_validate(c, "cross_entropy", ce_names, e); }
static int flce_validate(const sb_op_config *c, sb_error *e)
{
    if (ce_common_validate(c, "flce", flce_names, e) != SB_OK)
        return SB_ERR;
    double ch = sb_params_get_double(&c->params, "chunk", -1.0);
    if (!(ch >= 0.0 && ch < 2147483648.0) || ch != floor(ch))
        return sb_error_set(e, NULL, NULL, "flce: --chunk must be an integer >= 0");
    const char *a = sb_params_get(&c->params, "accum");
    if (a && strcmp(a, "input") != 0 && strcmp(a, "fp32") != 0 && strcmp(a, "vocab") != 0)
        return sb_error_set(e, NULL, NULL, "flce: --accum must be input, fp32 or vocab, got %s", a);
    return SB_OK;
}

static double dims(const sb_op_config *c, const char *n) { return (double)sb_shape_get(&c->shape, n, 0); }

/* cross_entropy: fwd reads the logits and targets, writes per-row losses
 * and the mean; full also writes the gradient. The fused kernel reads a row
 * twice when it does not fit in registers (docs/KERNELS.md); the model
 * counts it once. */
static double ce_set_bytes(const sb_op_config *c) { return dims(c, "M") * dims(c, "V") * (double)sb_dtype_size(c->dtype); }
static double ce_bytes(const sb_op_config *c)
{
    double M = dims(c, "M"), MV = M * dims(c, "V"), es = (double)sb_dtype_size(c->dtype);
    return MV * es * (is_full(c) ? 2.0 : 1.0) + M * (8.0 + 4.0) + 4.0;
}
static double ce_flops(const sb_op_config *c) { return dims(c, "M") * dims(c, "V") * (is_full(c) ? 7.0 : 4.0); }

/* flce: the three GEMMs (2*BT*V*H each; one in fwd) dominate. Bytes: read
 * hidden, weight, targets; write loss (fwd) and dH, dW (full). */
static double flce_set_bytes(const sb_op_config *c) { return dims(c, "BT") * dims(c, "H") * (double)sb_dtype_size(c->dtype); }
static double flce_bytes(const sb_op_config *c)
{
    double BT = dims(c, "BT"), H = dims(c, "H"), V = dims(c, "V"), es = (double)sb_dtype_size(c->dtype);
    double b = (BT * H + V * H) * es + BT * 12.0 + 4.0;
    return is_full(c) ? b + (BT * H + V * H) * es : b;
}
static double flce_flops(const sb_op_config *c)
{
    double BT = dims(c, "BT"), H = dims(c, "H"), V = dims(c, "V");
    return 2.0 * BT * V * H * (is_full(c) ? 3.0 : 1.0) + BT * V * (is_full(c) ? 7.0 : 4.0);
}

static void ce_destroy(void *p)
{
    ce_state *s = p;
    if (!s)
        return;
    sbk_tensor *all[] = {&s->x, &s->w, &s->tgt, &s->loss_rows, &s->loss, &s->dx, &s->dw};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sbk_tensor_free(s->ctx, all[i]);
    if (s->ws.ptr)
        sb_ctx_free(s->ctx, s->ws.ptr);
    if (s->handle)
        cublasDestroy(s->handle);
    for (int i = 0; i < 16; i++)
        free(s->cache_logits[i]);
    free(s->ref_dw);
    free(s->ref_dw_scale);
    free(s->ref_dw_flip);
    free(s->w32);
    free(s);
}

/* the weight as floats (every stored dtype widens exactly to fp32) */
/* The weight widened in WIDEN_PARTS ranges on threads: V x H (525 M at
 * Llama sizes) elements, each made by the generator when the weight was
 * made on the device. */
#define WIDEN_PARTS 64
static void widen_part(void *arg, int p)
{
    ce_state *s = arg;
    int64_t i0, i1;
    sbk_part_rows(s->V * s->H, WIDEN_PARTS, p, &i0, &i1);
    for (int64_t i = i0; i < i1; i++)
        s->w32[i] = (float)sbk_h(&s->w, (size_t)i);
}

static const float *weight32(ce_state *s, sb_error *err)
{
    if (s->w32)
        return s->w32;
    size_t n = (size_t)s->V * (size_t)s->H;
    s->w32 = malloc(n * sizeof *s->w32);
    if (!s->w32) {
        sb_error_set(err, NULL, NULL, "out of host memory (widened weight for the reference)");
        return NULL;
    }
    sbk_parallel(WIDEN_PARTS, widen_part, s);
    return s->w32;
}

static int ce_create_common(int flce, const sb_op_config *cfg, sb_ctx *ctx, void **out, sb_error *err)
{
    *out = NULL;
    ce_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    s->ctx = ctx;
    s->ws.provider = -1;
    s->flce = flce;
    s->full = is_full(cfg);
    s->dt = cfg->dtype;
    s->sets = cfg->input_sets < 1 ? 1 : cfg->input_sets;
    s->M = sb_shape_get(&cfg->shape, flce ? "BT" : "M", 0);
    s->V = sb_shape_get(&cfg->shape, "V", 0);
    s->H = flce ? sb_shape_get(&cfg->shape, "H", 0) : 0;
    s->chunk = flce ? (int64_t)sb_params_get_double(&cfg->params, "chunk", 0.0) : 0;
    const char *accum = flce ? sb_params_get(&cfg->params, "accum") : NULL;
    s->accum = !accum || strcmp(accum, "fp32") == 0 ? SBK_FLCE_ACCUM_FP32
               : strcmp(accum, "input") == 0        ? SBK_FLCE_ACCUM_INPUT
                                                    : SBK_FLCE_ACCUM_VOCAB;
    for (int i = 0; i < 16; i++)
        s->cache_row[i] = -1;
    double ign = sb_params_get_double(&cfg->params, "ignore_frac", 0.0);
    double full_work = (double)s->M * (double)s->V * (flce ? (double)s->H : 1.0);
    s->with_loss = full_work <= FULL_REF_LIMIT;
    s->with_dw = flce && s->full && full_work <= FULL_REF_LIMIT;
    if (sbk_targets(ctx, &s->tgt, 1, s->M, s->V, ign, cfg->seed, err) != SB_OK)
        goto fail;
    for (int64_t r = 0; r < s->M; r++)
        s->nvalid += sbk_target(&s->tgt, r) != SBK_IGNORE_INDEX;
    if (!flce) {
        if (sbk_tensor_random(ctx, &s->x, s->sets, s->dt, (size_t)s->M * (size_t)s->V, -4.0, 4.0, cfg->seed, 1,
                              err) != SB_OK)
            goto fail;
        if (s->full && sbk_tensor_output(ctx, &s->dx, s->dt, (size_t)s->M * (size_t)s->V, err) != SB_OK)
            goto fail;
    } else {
        if (sbk_tensor_random(ctx, &s->x, s->sets, s->dt, (size_t)s->M * (size_t)s->H, -1.0, 1.0, cfg->seed, 1,
                              err) != SB_OK ||
            sbk_tensor_random(ctx, &s->w, 1, s->dt, (size_t)s->V * (size_t)s->H, -0.05, 0.05, cfg->seed, 2, err) !=
                SB_OK)
            goto fail;
        if (s->full && (sbk_tensor_output(ctx, &s->dx, s->dt, (size_t)s->M * (size_t)s->H, err) != SB_OK ||
                        sbk_tensor_output(ctx, &s->dw, s->dt, (size_t)s->V * (size_t)s->H, err) != SB_OK))
            goto fail;
    }
    if (sbk_tensor_output(ctx, &s->loss_rows, SB_DTYPE_FP32, (size_t)s->M, err) != SB_OK ||
        sbk_tensor_output(ctx, &s->loss, SB_DTYPE_FP32, 1, err) != SB_OK)
        goto fail;
    *out = s;
    return SB_OK;
fail:
    ce_destroy(s);
    return SB_ERR;
}
static int ce_create(const sb_op_config *c, sb_ctx *x, void **o, sb_error *e) { return ce_create_common(0, c, x, o, e); }
static int flce_create(const sb_op_config *c, sb_ctx *x, void **o, sb_error *e) { return ce_create_common(1, c, x, o, e); }

/* outputs: loss_rows, [loss], [dx / dh], [dw] */
enum { O_ROWS, O_LOSS, O_GRAD, O_DW };
static int ce_output_kinds(const ce_state *s, int *kinds)
{
    int n = 0;
    kinds[n++] = O_ROWS;
    if (s->with_loss)
        kinds[n++] = O_LOSS;
    if (s->full)
        kinds[n++] = O_GRAD;
    if (s->with_dw)
        kinds[n++] = O_DW;
    return n;
}

static int ce_outputs(void *p, sb_output *o)
{
    ce_state *s = p;
    int kinds[4], n = ce_output_kinds(s, kinds);
    for (int i = 0; i < n; i++) {
        switch (kinds[i]) {
        case O_ROWS: o[i] = (sb_output){"loss_rows", s->loss_rows.dev[0], SB_DTYPE_FP32, s->M, 1, 1}; break;
        case O_LOSS: o[i] = (sb_output){"loss", s->loss.dev[0], SB_DTYPE_FP32, 1, 1, 1}; break;
        case O_GRAD:
            if (s->flce)
                o[i] = (sb_output){"dh", s->dx.dev[0], s->dt, s->M, s->H, s->H};
            else
                o[i] = (sb_output){"dx", s->dx.dev[0], s->dt, s->M, s->V, s->V};
            break;
        default: o[i] = (sb_output){"dw", s->dw.dev[0], s->dt, s->V, s->H, s->H}; break;
        }
    }
    return n;
}

/* float64 logits of row r (cross_entropy: the stored logits; flce: h_r x
 * W^T), cached for a few rows. */
static const double *row_logits(ce_state *s, int64_t r, sb_error *err)
{
    for (int i = 0; i < 16; i++)
        if (s->cache_row[i] == r)
            return s->cache_logits[i];
    int slot = s->cache_next;
    s->cache_next = (s->cache_next + 1) % 16;
    if (!s->cache_logits[slot]) {
        s->cache_logits[slot] = malloc((size_t)s->V * sizeof(double));
        if (!s->cache_logits[slot]) {
            sb_error_set(err, NULL, NULL, "out of host memory (reference logits)");
            return NULL;
        }
    }
    double *lg = s->cache_logits[slot];
    s->cache_row[slot] = r;
    if (!s->flce) {
        for (int64_t v = 0; v < s->V; v++)
            lg[v] = sbk_h(&s->x, (size_t)(r * s->V + v));
        return lg;
    }
    const float *w = weight32(s, err);
    double *h = malloc((size_t)s->H * sizeof *h);
    if (!w || !h) {
        free(h);
        s->cache_row[slot] = -1;
        if (w)
            sb_error_set(err, NULL, NULL, "out of host memory (reference logits)");
        return NULL;
    }
    for (int64_t k = 0; k < s->H; k++)
        h[k] = sbk_h(&s->x, (size_t)(r * s->H + k));
    for (int64_t v = 0; v < s->V; v++) {
        const float *wr = w + (size_t)v * (size_t)s->H;
        double acc = 0;
        for (int64_t k = 0; k < s->H; k++)
            acc += h[k] * (double)wr[k];
        lg[v] = acc;
    }
    free(h);
    return lg;
}

/* v rounded to dt: both providers store the logits' gradient in the input
 * dtype before the two gradient GEMMs (as Liger and PyTorch autograd do),
 * so the float64 reference of dH and dW rounds it at the same point. */
static double round_dt(sb_dtype dt, double v)
{
    uint64_t cell = 0;
    sb_store_elem(&cell, 0, dt, v);
    return sb_load_elem(&cell, 0, dt);
}

static double lse_of(const double *lg, int64_t V)
{
    double mx = -INFINITY, sum = 0;
    for (int64_t v = 0; v < V; v++)
        mx = lg[v] > mx ? lg[v] : mx;
    for (int64_t v = 0; v < V; v++)
        sum += exp(lg[v] - mx);
    return mx + log(sum);
}

/* Row r's contribution to the mean loss (lse - logit of the target), and
 * to dW when it is checked. lg: V doubles, h: H doubles, the caller's; w:
 * FLCE's weight widened once (weight32), NULL for cross entropy. */
static double full_row(ce_state *s, int64_t r, double *lg, double *h, const float *w)
{
    int64_t t = sbk_target(&s->tgt, r);
    if (t == SBK_IGNORE_INDEX)
        return 0.0;
    for (int64_t k = 0; k < s->H; k++)
        h[k] = sbk_h(&s->x, (size_t)(r * s->H + k));
    for (int64_t v = 0; v < s->V; v++) {
        if (!s->flce) {
            lg[v] = sbk_h(&s->x, (size_t)(r * s->V + v));
            continue;
        }
        double acc = 0;
        for (int64_t k = 0; k < s->H; k++)
            acc += h[k] * (double)w[v * s->H + k];
        lg[v] = acc;
    }
    double lse = lse_of(lg, s->V);
    if (s->with_dw)
        for (int64_t v = 0; v < s->V; v++) {
            double g = round_dt(s->dt, (exp(lg[v] - lse) - (v == t ? 1.0 : 0.0)) / (double)s->nvalid);
            for (int64_t k = 0; k < s->H; k++) {
                s->ref_dw[v * s->H + k] += g * h[k];
                s->ref_dw_scale[v * s->H + k] += fabs(g * h[k]);
                /* one flipped rounding of a non-target gradient (see below) */
                const double f = sbk_flip_scale(s->dt, g) * fabs(h[k]);
                if (v != t && f > s->ref_dw_flip[v * s->H + k])
                    s->ref_dw_flip[v * s->H + k] = f;
            }
        }
    return lse - lg[t];
}

/* The rows in FULL_PARTS ranges on threads (one range when dW, which all
 * rows add into, is checked); the parts' sums added in part order. */
#define FULL_PARTS 64
typedef struct full_job {
    ce_state *s;
    int parts;
    const float *w;
    double *total; /* [parts]; NaN: that part had no memory */
} full_job;

static void full_part(void *arg, int p)
{
    full_job *j = arg;
    ce_state *s = j->s;
    double *lg = malloc((size_t)s->V * sizeof *lg), *h = malloc((size_t)(s->H > 0 ? s->H : 1) * sizeof *h);
    if (!lg || !h) {
        free(lg);
        free(h);
        j->total[p] = NAN;
        return;
    }
    int64_t r0, r1;
    sbk_part_rows(s->M, j->parts, p, &r0, &r1);
    double total = 0;
    for (int64_t r = r0; r < r1; r++)
        total += full_row(s, r, lg, h, j->w);
    j->total[p] = total;
    free(lg);
    free(h);
}

/* every row: the mean loss and (flce) dW */
static int full_reference(ce_state *s, sb_error *err)
{
    if (s->ref_full_done)
        return SB_OK;
    if (s->with_dw) {
        s->ref_dw = calloc((size_t)s->V * (size_t)s->H, sizeof *s->ref_dw);
        s->ref_dw_scale = calloc((size_t)s->V * (size_t)s->H, sizeof *s->ref_dw_scale);
        s->ref_dw_flip = calloc((size_t)s->V * (size_t)s->H, sizeof *s->ref_dw_flip);
        if (!s->ref_dw || !s->ref_dw_scale || !s->ref_dw_flip)
            return sb_error_set(err, NULL, NULL, "out of host memory (full reference)");
    }
    int parts = s->with_dw ? 1 : s->M < FULL_PARTS ? (int)s->M : FULL_PARTS;
    const float *w = NULL;
    if (s->flce && !(w = weight32(s, err)))
        return SB_ERR;
    full_job j = {s, parts, w, calloc((size_t)parts, sizeof(double))};
    if (!j.total)
        return sb_error_set(err, NULL, NULL, "out of host memory (full reference)");
    sbk_parallel(parts, full_part, &j);
    double total = 0;
    for (int p = 0; p < parts; p++)
        total += j.total[p];
    free(j.total);
    if (isnan(total))
        return sb_error_set(err, NULL, NULL, "out of host memory (full reference)");
    s->ref_loss = s->nvalid ? total / (double)s->nvalid : 0.0;
    if (s->with_dw)
        for (size_t i = 0; i < (size_t)s->V * (size_t)s->H; i++)
            s->ref_dw_scale[i] += s->ref_dw_flip[i];
    s->ref_full_done = 1;
    return SB_OK;
}

static int ce_reference_row(void *p, int out, int64_t r, double *ref, double *scale, sb_error *err)
{
    ce_state *s = p;
    int kinds[4];
    ce_output_kinds(s, kinds);
    int kind = kinds[out];
    if (kind == O_LOSS || kind == O_DW) {
        if (full_reference(s, err) != SB_OK)
            return SB_ERR;
        if (kind == O_LOSS) {
            ref[0] = s->ref_loss;
            scale[0] = fabs(s->ref_loss) > 1.0 ? fabs(s->ref_loss) : 1.0;
        } else {
            memcpy(ref, s->ref_dw + r * s->H, (size_t)s->H * sizeof *ref);
            memcpy(scale, s->ref_dw_scale + r * s->H, (size_t)s->H * sizeof *scale);
            sbk_scale_floor(scale, s->H, s->dt);
        }
        return SB_OK;
    }
    int64_t t = sbk_target(&s->tgt, r);
    int64_t cols = kind == O_ROWS ? 1 : (s->flce ? s->H : s->V);
    if (t == SBK_IGNORE_INDEX) {
        for (int64_t j = 0; j < cols; j++)
            ref[j] = 0.0;
        return SB_OK;
    }
    const double *lg = row_logits(s, r, err);
    if (!lg)
        return SB_ERR;
    double lse = lse_of(lg, s->V);
    if (kind == O_ROWS) {
        ref[0] = lse - lg[t];
        scale[0] = fabs(lse) + fabs(lg[t]);
        return SB_OK;
    }
    double inv = 1.0 / (double)s->nvalid;
    if (!s->flce) {
        for (int64_t v = 0; v < s->V; v++) {
            double pr = exp(lg[v] - lse);
            ref[v] = (pr - (v == t ? 1.0 : 0.0)) * inv;
            scale[v] = (pr + (v == t ? 1.0 : 0.0)) * inv;
        }
        sbk_scale_floor(scale, s->V, s->dt);
        return SB_OK;
    }
    /* Both providers store the logits' gradient g in the dtype before the
     * dH GEMM; the reference rounds it at the same point. An fp32 g within
     * a rounding error of a tie may round the other way: the scale allows
     * one such step on the largest non-target term (the target's g is
     * -(1 - p_t)/n and rounds alike). */
    double *flip = calloc((size_t)s->H, sizeof *flip);
    const float *w = weight32(s, err);
    if (!w || !flip) {
        free(flip);
        return w ? sb_error_set(err, NULL, NULL, "out of host memory") : SB_ERR;
    }
    for (int64_t k = 0; k < s->H; k++) {
        ref[k] = 0.0;
        scale[k] = 0.0;
    }
    for (int64_t v = 0; v < s->V; v++) {
        /* a g rounded to zero is not skipped: in fp16 it may round to the
         * smallest subnormal instead (sbk_flip_scale) */
        double g = round_dt(s->dt, (exp(lg[v] - lse) - (v == t ? 1.0 : 0.0)) * inv);
        const double fs = sbk_flip_scale(s->dt, g);
        const float *wr = w + (size_t)v * (size_t)s->H;
        for (int64_t k = 0; k < s->H; k++) {
            double term = g * (double)wr[k];
            ref[k] += term;
            scale[k] += fabs(term);
            if (v != t && fs * fabs((double)wr[k]) > flip[k])
                flip[k] = fs * fabs((double)wr[k]);
        }
    }
    for (int64_t k = 0; k < s->H; k++)
        scale[k] += flip[k];
    free(flip);
    sbk_scale_floor(scale, s->H, s->dt);
    return SB_OK;
}

static int64_t ce_check_rows(void *p, int out)
{
    ce_state *s = p;
    int kinds[4];
    ce_output_kinds(s, kinds);
    if (kinds[out] == O_LOSS)
        return 1;
    if (s->flce && kinds[out] != O_DW && !s->with_loss)
        return 3; /* each row is a V x H float64 product */
    return 64;
}

static size_t scratch_bytes(const ce_state *s, int provider)
{
    sbk_dtype dt = sbk_from_sb(s->dt);
    if (provider == SBK_P_FUSED)
        return s->flce ? sbk_flce_workspace(s->M, s->H, s->V, s->chunk, dt, s->accum, s->full) : SBK_CE_WORKSPACE_BYTES;
    if (provider == SBK_P_REFERENCE)
        return s->flce ? sbk_eager_flce_workspace(s->M, s->H, s->V, dt, s->full)
                       : sbk_eager_cross_entropy_workspace(s->M, s->V, s->full);
    return 0;
}

static int ce_supports(void *p, int provider, char *why, size_t n)
{
    ce_state *s = p;
    sbk_scratch_drop(s->ctx, &s->ws, provider);
    if (provider == SBK_P_CPU)
        return 0;
    int64_t fr = sbk_free_device_bytes(s->ctx);
    size_t need = scratch_bytes(s, provider);
    /* leave room for cuBLAS's own workspace and the harness's buffers */
    if (fr >= 0 && (double)need + 1.0e9 > (double)fr) {
        snprintf(why, n, "does not fit in device memory: the %s provider needs %.2f GB of scratch, %.2f GB free",
                 sbk_providers[provider].name, (double)need / 1e9, (double)fr / 1e9);
        return 1;
    }
    return 0;
}

static int ce_prepare(void *p, int provider, sb_error *err)
{
    ce_state *s = p;
    if (provider == SBK_P_CPU)
        return SB_OK;
    if (provider == SBK_P_FUSED) {
        char bad[160];
        s->row_plan = sbk_ce_row_plan(bad, sizeof bad);
        if (s->row_plan < 0)
            return sb_error_set(err, NULL, NULL, "%s: %s", s->flce ? "flce" : "cross_entropy", bad);
    }
    if (s->flce && !s->handle) {
        cublasStatus_t st = cublasCreate(&s->handle);
        if (st != CUBLAS_STATUS_SUCCESS) {
            s->handle = NULL;
            return sbk_cublas_error(err, "flce: cublasCreate", st);
        }
        st = cublasSetStream(s->handle, (cudaStream_t)s->ctx->stream);
        if (st != CUBLAS_STATUS_SUCCESS)
            return sbk_cublas_error(err, "flce: cublasSetStream", st);
        st = cublasSetMathMode(s->handle, CUBLAS_DEFAULT_MATH);
        if (st != CUBLAS_STATUS_SUCCESS)
            return sbk_cublas_error(err, "flce: cublasSetMathMode", st);
    }
    return sbk_scratch_get(s->ctx, &s->ws, provider, scratch_bytes(s, provider), err);
}

static int ce_run(void *p, int provider, int set, sb_error *err)
{
    ce_state *s = p;
    sbk_dtype dt = sbk_from_sb(s->dt);
    const void *x = sbk_dev(&s->x, set);
    const int64_t *t = s->tgt.dev[0];
    float *rows = s->loss_rows.dev[0], *loss = s->loss.dev[0];
    void *dx = s->full ? sbk_dev(&s->dx, 0) : NULL, *dw = s->full ? sbk_dev(&s->dw, 0) : NULL;
    cudaStream_t st = (cudaStream_t)s->ctx->stream;
    if (provider == SBK_P_CPU) {
        float l = 0;
        int rc = s->flce ? sbk_cpu_flce(x, s->w.dev[0], dt, t, s->M, s->H, s->V, &l, rows, dx, dw)
                         : sbk_cpu_cross_entropy(x, dt, t, s->M, s->V, &l, rows, dx);
        if (rc != 0)
            return sb_error_set(err, NULL, NULL, "%s cpu: bad size or out of host memory",
                                s->flce ? "flce" : "cross_entropy");
        *loss = l;
        return SB_OK;
    }
    cudaError_t e;
    if (!s->flce)
        e = provider == SBK_P_FUSED ? sbk_cross_entropy(x, t, rows, loss, dx, s->ws.ptr, s->M, s->V, dt, s->row_plan, st)
                                    : sbk_eager_cross_entropy(x, t, rows, loss, dx, s->ws.ptr, s->M, s->V, dt, st);
    else
        e = provider == SBK_P_FUSED ? sbk_flce_fused(s->handle, x, s->w.dev[0], t, rows, loss, dx, dw, s->ws.ptr, s->M,
                                                     s->H, s->V, s->chunk, dt, s->accum, s->row_plan, st)
                                    : sbk_eager_flce(s->handle, x, s->w.dev[0], t, rows, loss, dx, dw, s->ws.ptr, s->M,
                                                     s->H, s->V, dt, st);
    if (e != cudaSuccess)
        return sbk_cuda_error(err, s->flce ? "flce" : "cross_entropy", e);
    return SB_OK;
}

static void ce_provider_params(void *p, int provider, sb_params *extra)
{
    ce_state *s = p;
    if (provider == SBK_P_CPU || extra->count + 3 > SB_MAX_PARAMS)
        return;
    int i = extra->count++;
    snprintf(extra->name[i], SB_NAME_MAX, "scratch_bytes");
    snprintf(extra->value[i], sizeof extra->value[i], "%zu", scratch_bytes(s, provider));
    if (s->flce && provider == SBK_P_FUSED && sbk_flce_by_vocab(s->accum, s->full)) {
        /* the slices' kernels read a row of the slice from memory, 256 threads */
        i = extra->count++;
        snprintf(extra->name[i], SB_NAME_MAX, "slice_columns");
        snprintf(extra->value[i], sizeof extra->value[i], "%lld",
                 (long long)sbk_flce_slice_cols(s->M, s->V, s->chunk, sbk_from_sb(s->dt), s->full));
        i = extra->count++;
        snprintf(extra->name[i], SB_NAME_MAX, "row_layout");
        snprintf(extra->value[i], sizeof extra->value[i], "memory threads=256");
        return;
    }
    if (s->flce && provider == SBK_P_FUSED) {
        i = extra->count++;
        snprintf(extra->name[i], SB_NAME_MAX, "chunk_rows");
        snprintf(extra->value[i], sizeof extra->value[i], "%lld",
                 (long long)sbk_flce_chunk_rows(s->M, s->H, s->V, s->chunk, sbk_from_sb(s->dt), s->accum));
    }
    if (provider == SBK_P_FUSED) {
        /* the logits' row as the kernel reads it: FLCE's chunk is fp32 with
         * fp32 accumulation, else the input's dtype */
        const sbk_dtype ldt = s->flce && s->accum == SBK_FLCE_ACCUM_FP32 ? SBK_F32 : sbk_from_sb(s->dt);
        i = extra->count++;
        snprintf(extra->name[i], SB_NAME_MAX, "row_layout");
        sbk_ce_row_name(s->row_plan, s->V, ldt, s->full, extra->value[i], sizeof extra->value[i]);
    }
}

const sb_op sb_op_cross_entropy = {
    .name = "cross_entropy",
    .summary = "mean cross entropy over rows of V logits (ignore_index -100): loss, or loss and dlogits",
    .modes = ce_modes,
    .providers = sbk_providers,
    .shape_names = ce_names,
    .shape_defaults = ce_defaults,
    .params = ce_params,
    .dtypes = SBK_DTYPES,
    .validate = ce_validate,
    .input_set_bytes = ce_set_bytes,
    .model_flops = ce_flops,
    .model_bytes = ce_bytes,
    .create = ce_create,
    .destroy = ce_destroy,
    .outputs = ce_outputs,
    .reference_row = ce_reference_row,
    .check_rows = ce_check_rows,
    .supports = ce_supports,
    .prepare = ce_prepare,
    .run = ce_run,
    .batch_invariance = NULL,
    .provider_params = ce_provider_params,
};

const sb_op sb_op_flce = {
    .name = "flce",
    .summary = "fused linear cross entropy: loss of hidden [BT,H] x weight [V,H]^T, and dH, dW, without full logits",
    .modes = ce_modes,
    .providers = sbk_providers,
    .shape_names = flce_names,
    .shape_defaults = flce_defaults,
    .params = flce_params,
    .dtypes = SBK_DTYPES,
    .validate = flce_validate,
    .input_set_bytes = flce_set_bytes,
    .model_flops = flce_flops,
    .model_bytes = flce_bytes,
    .create = flce_create,
    .destroy = ce_destroy,
    .outputs = ce_outputs,
    .reference_row = ce_reference_row,
    .check_rows = ce_check_rows,
    .supports = ce_supports,
    .prepare = ce_prepare,
    .run = ce_run,
    .batch_invariance = NULL,
    .provider_params = ce_provider_params,
};

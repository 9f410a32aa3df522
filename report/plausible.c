/* plausible.c - achieved bytes/s and FLOP/s against the card's ceilings
 * (plausible.h). */
#include "plausible.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_rows.h"
#include "home.h"
#include "sha256.h"

typedef struct model_row {
    char *op, *mode, *params, *read, *write, *flops, *compute;
} model_row;

typedef struct cache_row {
    char *sku;
    double l2_bytes;
} cache_row;

/* The bandwidth ceilings a calibration stores, by name. */
static const char *const bw_names[] = {"bw.copy", "bw.add", "bw.triad", "bw.read"};
#define NBW (sizeof bw_names / sizeof bw_names[0])

typedef struct card {
    char *sku;
    sb_calibration *cals; /* newest first */
    size_t ncals;
    const sb_sku *row;    /* data/skus.csv's row; NULL unknown */
    double hbm_gbps;      /* its HBM bandwidth; NAN unknown */
    double l2_bytes;      /* NAN unknown */
    sb_plaus_source spread[NBW]; /* cards, lo, hi of each bw_names ceiling */
} card;

struct sb_plaus_ctx {
    const sb_plaus_snap *snap; /* what the check takes of the stored runs, read before */
    const sb_sku_table *skus;
    sb_sku_table *own_skus;
    model_row *models;
    size_t nmodels;
    cache_row *caches;
    size_t ncaches;
    card *cards;
    size_t ncards;
    /* What verdicts judged now are judged with, and whether the
     * stored ones were judged with the same (then a check takes them). */
    sb_verdict_basis basis;
    int stored;
};

/* ---- tables ---- */

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static const char *const model_cols[] = {"op", "mode", "params", "read", "write", "flops", "compute"};
#define NMODEL_COLS (sizeof model_cols / sizeof model_cols[0])

/* An expression is a sum of products of whole numbers and shape names. */
static int expr_valid(const char *e)
{
    for (const char *p = e; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '*' && *p != '+')
            return 0;
    return 1;
}

typedef struct table_load {
    sb_plaus_ctx *c;
    const char *path;
    int col[NMODEL_COLS];
    int header;
} table_load;

static int model_row_fn(void *ctx, const char *const *f, size_t n, size_t line, sb_error *err)
{
    table_load *t = ctx;
    if (!t->header) {
        sb_csv_find_columns(f, n, model_cols, NMODEL_COLS, t->col);
        for (size_t k = 0; k < NMODEL_COLS; k++)
            if (t->col[k] < 0)
                return sb_csv_line_error(err, t->path, line, "header lacks column \"%s\"", model_cols[k]);
        t->header = 1;
        return SB_OK;
    }
    const char *v[NMODEL_COLS];
    for (size_t k = 0; k < NMODEL_COLS; k++) {
        if ((size_t)t->col[k] >= n)
            return sb_csv_line_error(err, t->path, line, "fewer fields than the header");
        v[k] = f[t->col[k]];
    }
    for (size_t k = 3; k <= 5; k++)
        if (!expr_valid(v[k]))
            return sb_csv_line_error(err, t->path, line,
                                     "%s: \"%s\" is not a sum of products of numbers and shape names",
                                     model_cols[k], v[k]);
    if (strcmp(v[6], "tensor") && strcmp(v[6], "cuda-core"))
        return sb_csv_line_error(err, t->path, line, "compute must be tensor or cuda-core, not \"%s\"",
                                 v[6]);
    if (v[2][0] && !strchr(v[2], '='))
        return sb_csv_line_error(err, t->path, line, "params must be empty or KEY=VALUE, not \"%s\"",
                                 v[2]);
    model_row *nv = realloc(t->c->models, (t->c->nmodels + 1) * sizeof *nv);
    if (!nv)
        return sb_error_set(err, t->path, NULL, "out of memory");
    t->c->models = nv;
    model_row *m = &nv[t->c->nmodels];
    char **dst[] = {&m->op, &m->mode, &m->params, &m->read, &m->write, &m->flops, &m->compute};
    memset(m, 0, sizeof *m);
    t->c->nmodels++;
    for (size_t k = 0; k < NMODEL_COLS; k++)
        if (!(*dst[k] = dup(v[k])))
            return sb_error_set(err, t->path, NULL, "out of memory");
    return SB_OK;
}

static int cache_row_fn(void *ctx, const char *const *f, size_t n, size_t line, sb_error *err)
{
    table_load *t = ctx;
    static const char *const cols[] = {"sku", "l2_bytes"};
    if (!t->header) {
        sb_csv_find_columns(f, n, cols, 2, t->col);
        if (t->col[0] < 0 || t->col[1] < 0)
            return sb_csv_line_error(err, t->path, line, "header lacks column sku or l2_bytes");
        t->header = 1;
        return SB_OK;
    }
    if ((size_t)t->col[0] >= n || (size_t)t->col[1] >= n)
        return sb_csv_line_error(err, t->path, line, "fewer fields than the header");
    char *end;
    double l2 = strtod(f[t->col[1]], &end);
    if (end == f[t->col[1]] || *end || !(l2 > 0))
        return sb_csv_line_error(err, t->path, line, "l2_bytes: \"%s\" is not a positive number",
                                 f[t->col[1]]);
    cache_row *nv = realloc(t->c->caches, (t->c->ncaches + 1) * sizeof *nv);
    if (!nv)
        return sb_error_set(err, t->path, NULL, "out of memory");
    t->c->caches = nv;
    nv[t->c->ncaches].l2_bytes = l2;
    if (!(nv[t->c->ncaches].sku = dup(f[t->col[0]])))
        return sb_error_set(err, t->path, NULL, "out of memory");
    t->c->ncaches++;
    return SB_OK;
}

/* path, or rel under data/ when path is NULL, in def. */
static int table_path(const char **path, const char *rel, char *def, size_t size, sb_error *err)
{
    if (*path)
        return SB_OK;
    if (sb_data_path(def, size, rel, err) != SB_OK)
        return SB_ERR;
    *path = def;
    return SB_OK;
}

static int load_table(sb_plaus_ctx *c, const char *path, const char *rel, sb_csv_row_fn fn,
                      sb_error *err)
{
    char def[4096];
    if (table_path(&path, rel, def, sizeof def, err) != SB_OK)
        return SB_ERR;
    table_load t = {c, path, {0}, 0};
    if (sb_csv_read_file(path, NULL, fn, &t, err) != SB_OK)
        return SB_ERR;
    if (!t.header)
        return sb_csv_line_error(err, path, 1, "empty file: no header row");
    return SB_OK;
}

int sb_plaus_tables_sha256(const char *models_csv, const char *caches_csv, char hex_out[65], sb_error *err)
{
    const char *paths[] = {models_csv, caches_csv, NULL};
    const char *rels[] = {"op_models.csv", "cache_sizes.csv", "skus.csv"};
    sb_buf text = SB_BUF_INIT;
    sb_buf_printf(&text, "rule %s, solbook %s\n", SB_PLAUS_RULE, SOLBOOK_VERSION);
    for (size_t i = 0; i < 3; i++) {
        char def[4096], hex[SB_SHA256_HEX_LEN + 1];
        const char *path = paths[i];
        if (table_path(&path, rels[i], def, sizeof def, err) != SB_OK ||
            sb_sha256_file_hex(path, hex, err) != SB_OK) {
            sb_buf_free(&text);
            return SB_ERR;
        }
        sb_buf_printf(&text, "%s %s\n", rels[i], hex);
    }
    int rc = sb_buf_failed(&text) ? sb_error_set(err, NULL, NULL, "out of memory")
                                  : sb_sha256_hex(sb_buf_str(&text), text.len, hex_out, err);
    sb_buf_free(&text);
    return rc;
}

/* c->basis: the SHA-256 of the rule (SB_PLAUS_RULE, this solbook's
 * version) and of the three tables a verdict reads, and the digest of the
 * calibration runs stored now the snapshot holds; c->stored: whether the
 * stored verdicts were judged with the same. */
static int tables_basis(sb_plaus_ctx *c, const char *models_csv, const char *caches_csv, sb_error *err)
{
    if (sb_plaus_tables_sha256(models_csv, caches_csv, c->basis.tables_sha256, err) != SB_OK)
        return SB_ERR;
    memcpy(c->basis.calibrations_sha256, c->snap->calibrations_sha256, sizeof c->basis.calibrations_sha256);
    c->basis.last_calibration = c->snap->last_calibration;
    c->stored = c->snap->stored;
    return SB_OK;
}

void sb_plaus_close(sb_plaus_ctx *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nmodels; i++) {
        model_row *m = &c->models[i];
        char *all[] = {m->op, m->mode, m->params, m->read, m->write, m->flops, m->compute};
        for (size_t k = 0; k < NMODEL_COLS; k++)
            free(all[k]);
    }
    free(c->models);
    for (size_t i = 0; i < c->ncaches; i++)
        free(c->caches[i].sku);
    free(c->caches);
    for (size_t i = 0; i < c->ncards; i++)
        free(c->cards[i].sku);
    free(c->cards);
    sb_sku_table_free(c->own_skus);
    free(c);
}

/* A context with the tables loaded and nothing read of the stored runs. */
static int ctx_tables(const sb_sku_table *skus, const char *models_csv, const char *caches_csv, sb_plaus_ctx **out,
                      sb_error *err)
{
    *out = NULL;
    sb_plaus_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return sb_error_set(err, NULL, NULL, "out of memory");
    c->skus = skus;
    if ((!skus && sb_sku_table_load(NULL, &c->own_skus, err) != SB_OK) ||
        load_table(c, models_csv, "op_models.csv", model_row_fn, err) != SB_OK ||
        load_table(c, caches_csv, "cache_sizes.csv", cache_row_fn, err) != SB_OK) {
        sb_plaus_close(c);
        return SB_ERR;
    }
    if (!skus)
        c->skus = c->own_skus;
    *out = c;
    return SB_OK;
}

int sb_plaus_open(const sb_plaus_snap *snap, const sb_sku_table *skus, const char *models_csv,
                  const char *caches_csv, sb_plaus_ctx **out, sb_error *err)
{
    sb_plaus_ctx *c;
    if (ctx_tables(skus, models_csv, caches_csv, &c, err) != SB_OK)
        return SB_ERR;
    c->snap = snap;
    if (tables_basis(c, models_csv, caches_csv, err) != SB_OK) {
        sb_plaus_close(c);
        return SB_ERR;
    }
    *out = c;
    return SB_OK;
}

/* ---- one run ---- */

static double dtype_bytes(const char *dt)
{
    if (!strcmp(dt, "fp32") || !strcmp(dt, "tf32") || !strcmp(dt, "int32"))
        return 4;
    if (!strcmp(dt, "bf16") || !strcmp(dt, "fp16"))
        return 2;
    if (!strncmp(dt, "fp8", 3) || !strcmp(dt, "int8"))
        return 1;
    if (!strcmp(dt, "fp64") || !strcmp(dt, "int64"))
        return 8;
    return NAN;
}

/* The value of expression e over the shape; NAN when e is empty or names
 * a dimension the shape lacks. */
static double expr_eval(const char *e, json_t *shape)
{
    if (!e[0])
        return NAN;
    double sum = 0, prod = 1;
    const char *p = e;
    for (;;) {
        char name[64];
        size_t len = strcspn(p, "*+");
        if (len == 0 || len >= sizeof name)
            return NAN;
        memcpy(name, p, len);
        name[len] = '\0';
        if (isdigit((unsigned char)name[0])) {
            prod *= strtod(name, NULL);
        } else {
            json_t *v = json_object_get(shape, name);
            if (!json_is_integer(v))
                return NAN;
            prod *= (double)json_integer_value(v);
        }
        p += len;
        if (*p == '*') {
            p++;
            continue;
        }
        sum += prod;
        prod = 1;
        if (!*p)
            return sum;
        p++;
    }
}

static int params_match(const char *want, const char *params_json)
{
    if (!want[0])
        return 1;
    const char *eq = strchr(want, '=');
    char key[64];
    size_t kl = (size_t)(eq - want);
    if (kl >= sizeof key)
        return 0;
    memcpy(key, want, kl);
    key[kl] = '\0';
    json_t *p = json_loads(params_json ? params_json : "{}", 0, NULL);
    json_t *v = json_object_get(p, key);
    int ok = json_is_string(v) && strcmp(json_string_value(v), eq + 1) == 0;
    json_decref(p);
    return ok;
}

static const model_row *find_model(const sb_plaus_ctx *c, const sb_result *r)
{
    for (size_t i = 0; i < c->nmodels; i++) {
        const model_row *m = &c->models[i];
        if (!strcmp(m->op, r->op) && !strcmp(m->mode, r->mode) && params_match(m->params, r->params_json))
            return m;
    }
    return NULL;
}

static const sb_ceiling *cal_ceiling(const sb_calibration *k, const char *name)
{
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->ceilings[i].name, name))
            return &k->ceilings[i];
    return NULL;
}

/* cal's ceiling called name where it is credible (sb_ceiling_credible):
 * one set aside counts as not measured, so the run is held against the
 * next calibration, else the datasheet. */
static const sb_ceiling *credible_ceiling(const card *k, const sb_calibration *cal, const char *name)
{
    const sb_ceiling *x = cal_ceiling(cal, name);
    return x && sb_ceiling_credible(k->row, name, x->value) ? x : NULL;
}

/* The spread of each bandwidth ceiling over the SKU's cards
 * (sb_plaus_spread). */
static int card_spreads(card *k)
{
    const char **gpus = malloc((k->ncals + 1) * sizeof *gpus);
    double *values = malloc((k->ncals + 1) * sizeof *values);
    int ok = gpus && values;
    for (size_t b = 0; ok && b < NBW; b++) {
        for (size_t i = 0; i < k->ncals; i++) {
            const sb_ceiling *x = credible_ceiling(k, &k->cals[i], bw_names[b]);
            gpus[i] = k->cals[i].gpu_uuid;
            values[i] = x ? x->value : NAN;
        }
        sb_plaus_source *sp = &k->spread[b];
        sb_plaus_spread(gpus, values, k->ncals, &sp->cards, &sp->lo, &sp->hi);
    }
    free(gpus);
    free(values);
    return ok ? 0 : -1;
}

static int card_of(sb_plaus_ctx *c, const char *sku, card **out, sb_error *err)
{
    for (size_t i = 0; i < c->ncards; i++)
        if (!strcmp(c->cards[i].sku, sku)) {
            *out = &c->cards[i];
            return SB_OK;
        }
    card *nv = realloc(c->cards, (c->ncards + 1) * sizeof *nv);
    if (!nv)
        return sb_error_set(err, NULL, NULL, "out of memory");
    c->cards = nv;
    card *k = &nv[c->ncards];
    memset(k, 0, sizeof *k);
    if (!(k->sku = dup(sku)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    c->ncards++;
    k->l2_bytes = NAN;
    const sb_plaus_sku_cals *sc = sb_plaus_snap_cals(c->snap, sku);
    if (!sc)
        return sb_error_set(err, NULL, NULL, "plausibility: the calibrations of %s were not read", sku);
    k->cals = sc->cals;
    k->ncals = sc->n;
    k->row = c->skus ? sb_sku_find(c->skus, sku) : NULL;
    k->hbm_gbps = k->row ? k->row->hbm_tbps * 1000.0 : NAN;
    if (card_spreads(k) != 0)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < c->ncaches; i++)
        if (!strcmp(c->caches[i].sku, sku))
            k->l2_bytes = c->caches[i].l2_bytes;
    *out = k;
    return SB_OK;
}

/* The ceiling called name for a run on GPU gpu (NULL: unknown): from the
 * newest calibration of that GPU that measured it credibly, else from the
 * SKU's newest that did; NULL when none did. src (may be NULL) says which. */
static const sb_ceiling *run_ceiling(const card *k, const char *gpu, const char *name,
                                     sb_plaus_source *src)
{
    const sb_calibration *pick = NULL;
    const sb_ceiling *x = NULL;
    for (size_t i = 0; gpu && i < k->ncals && !x; i++)
        if (!strcmp(k->cals[i].gpu_uuid, gpu) && (x = credible_ceiling(k, &k->cals[i], name)))
            pick = &k->cals[i];
    for (size_t i = 0; i < k->ncals && !x; i++)
        if ((x = credible_ceiling(k, &k->cals[i], name)))
            pick = &k->cals[i];
    if (!x || !src)
        return x;
    memset(src, 0, sizeof *src);
    src->calib_run = pick->run_id;
    snprintf(src->gpu_uuid, sizeof src->gpu_uuid, "%s", pick->gpu_uuid);
    src->buffer_bytes = pick->buffer_bytes;
    src->card = !gpu || !pick->gpu_uuid[0]      ? SB_PLAUS_CARD_UNKNOWN
                : !strcmp(pick->gpu_uuid, gpu) ? SB_PLAUS_CARD_OWN
                                                : SB_PLAUS_CARD_OTHER;
    for (size_t b = 0; b < NBW; b++)
        if (!strcmp(bw_names[b], name)) {
            src->cards = k->spread[b].cards;
            src->lo = k->spread[b].lo;
            src->hi = k->spread[b].hi;
        }
    return x;
}

/* The bandwidth ceilings of a run on GPU gpu of card k. */
static void run_ceilings(const card *k, const char *gpu, sb_plaus_ceilings *c)
{
    memset(c, 0, sizeof *c);
    c->copy_gbps = c->pair_gbps = c->read_gbps = NAN;
    c->l2_bytes = k->l2_bytes;
    c->calib_run = -1;
    sb_plaus_source add_src, triad_src;
    const sb_ceiling *copy = run_ceiling(k, gpu, "bw.copy", &c->copy_src);
    const sb_ceiling *add = run_ceiling(k, gpu, "bw.add", &add_src);
    const sb_ceiling *triad = run_ceiling(k, gpu, "bw.triad", &triad_src);
    const sb_ceiling *read = run_ceiling(k, gpu, "bw.read", &c->read_src);
    c->measured = copy != NULL;
    if (!c->measured) {
        for (size_t i = 0; i < k->ncals && !c->set_aside; i++)
            c->set_aside = cal_ceiling(&k->cals[i], "bw.copy") != NULL;
        c->copy_gbps = k->hbm_gbps;
        c->copy_src.calib_run = -1;
        return;
    }
    c->copy_gbps = copy->value;
    c->calib_run = c->copy_src.calib_run;
    if (add && (!triad || add->value >= triad->value)) {
        c->pair_gbps = add->value;
        c->pair_src = add_src;
    } else if (triad) {
        c->pair_gbps = triad->value;
        c->pair_src = triad_src;
    }
    if (read)
        c->read_gbps = read->value;
}

/* The GPU UUID run_id recorded, NULL when none or not read. */
static const char *run_gpu(const sb_plaus_ctx *c, long long run_id)
{
    return sb_run_device(&c->snap->devices, run_id);
}

/* The verdict of r judged now, from the tables and calibrations. */
static int judge_run(sb_plaus_ctx *c, const sb_result *r, sb_plaus_verdict *out, sb_error *err)
{
    card *k = NULL;
    if (card_of(c, r->sku, &k, err) != SB_OK)
        return SB_ERR;
    const char *gpu = run_gpu(c, r->run_id);
    sb_plaus_ceilings ceil;
    run_ceilings(k, gpu, &ceil);
    sb_plaus_input in;
    memset(&in, 0, sizeof in);
    in.bytes = r->bytes;
    in.flops = r->flops;
    in.flop_ceiling_tflops = NAN;
    in.read_bytes = in.write_bytes = NAN;
    in.l2_cold = r->l2 && strcmp(r->l2, "cold") == 0;
    double ms = r->kernel_median_ms > 0 ? r->kernel_median_ms : r->median_ms;
    in.seconds = ms > 0 ? ms / 1e3 : NAN;
    const model_row *m = find_model(c, r);
    char flop_name[128] = "";
    if (m) {
        json_t *shape = json_loads(r->shape_json ? r->shape_json : "{}", 0, NULL);
        double es = dtype_bytes(r->dtype);
        double rd = expr_eval(m->read, shape), wr = m->write[0] ? expr_eval(m->write, shape) : 0;
        double fl = expr_eval(m->flops, shape);
        json_decref(shape);
        if (!isnan(rd) && !isnan(wr) && !isnan(es)) {
            in.bytes = (rd + wr) * es;
            in.read_bytes = rd * es;
            in.write_bytes = wr * es;
        }
        if (!isnan(fl))
            in.flops = fl;
        const sb_sku *s = c->skus ? sb_sku_find(c->skus, r->sku) : NULL;
        in.tensor = !strcmp(m->compute, "tensor");
        if (in.tensor) {
            char name[80];
            snprintf(name, sizeof name, "gemm.%s", r->dtype);
            const sb_ceiling *g = run_ceiling(k, gpu, name, NULL);
            if (g) {
                in.flop_ceiling_tflops = g->value;
                snprintf(flop_name, sizeof flop_name, "measured %s", name);
            }
            /* The calibration's GEMM peak is the best of two square
             * shapes, not the card's limit: cuBLAS at K=14336 beat it by
             * 4.6% on an H100. Above the datasheet's dense peak no run can
             * be, so a tensor op is held to the higher of the two. */
            if (s && sb_sku_peak_tflops(s, r->dtype) > 0 &&
                !(in.flop_ceiling_tflops >= sb_sku_peak_tflops(s, r->dtype))) {
                in.flop_ceiling_tflops = sb_sku_peak_tflops(s, r->dtype);
                snprintf(flop_name, sizeof flop_name, "datasheet %s", r->dtype);
            }
        } else if (s && s->fp32_tflops > 0) {
            in.flop_ceiling_tflops = s->fp32_tflops;
            snprintf(flop_name, sizeof flop_name, "datasheet fp32 (CUDA cores)");
        }
    }
    in.flop_ceiling_name = flop_name;
    sb_plaus_judge(&in, &ceil, SB_PLAUS_MARGIN, out);
    return SB_OK;
}

int sb_plaus_check(sb_plaus_ctx *c, const sb_result *r, sb_plaus_verdict *out, sb_error *err)
{
    const sb_plaus_verdict *v = c->stored && r->passing ? sb_plaus_snap_verdict(c->snap, r->run_id) : NULL;
    if (v) {
        *out = *v;
        return SB_OK;
    }
    return judge_run(c, r, out, err);
}

int sb_plaus_mark(const sb_plaus_snap *snap, sb_result_set *s, sb_error *err)
{
    sb_plaus_ctx *c;
    if (ctx_tables(NULL, NULL, NULL, &c, err) != SB_OK)
        return SB_ERR;
    c->snap = snap;
    int rc = SB_OK;
    for (size_t i = 0; rc == SB_OK && i < s->n; i++) {
        sb_result *r = &s->v[i];
        sb_plaus_state state;
        r->implausible = 0;
        if (!r->passing)
            continue;
        if (snap->stored && sb_verdict_state(&snap->states, r->run_id, &state)) {
            r->implausible = state == SB_PLAUS_IMPLAUSIBLE;
        } else { /* judged here: no stored verdict holds */
            sb_plaus_verdict v;
            rc = judge_run(c, r, &v, err);
            r->implausible = v.state == SB_PLAUS_IMPLAUSIBLE;
        }
    }
    sb_plaus_close(c);
    return rc;
}

int sb_plaus_judge_run(sb_plaus_ctx *c, const sb_result *r, sb_plaus_verdict *out, sb_error *err)
{
    return judge_run(c, r, out, err);
}

const sb_verdict_basis *sb_plaus_basis(const sb_plaus_ctx *c)
{
    return &c->basis;
}

static int id_cmp(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

int sb_plaus_mark_sessions(const sb_plaus_snap *snap, sb_session_runs *runs, sb_error *err)
{
    for (size_t i = 0; i < runs->n; i++)
        runs->v[i].implausible = 0;
    if (runs->n == 0)
        return SB_OK;
    if (!snap->session_results_read) { /* every run has a stored state that holds */
        for (size_t i = 0; i < runs->n; i++) {
            sb_plaus_state state;
            if (!sb_verdict_state(&snap->states, (long long)runs->v[i].run_id, &state))
                return sb_error_set(err, NULL, NULL, "plausibility: the stored verdict of run %lld was not read",
                                    (long long)runs->v[i].run_id);
            runs->v[i].implausible = state == SB_PLAUS_IMPLAUSIBLE;
        }
        return SB_OK;
    }
    const sb_result_set *set = &snap->session_results;
    sb_plaus_ctx *c = NULL;
    long long *bad = malloc((set->n + 1) * sizeof *bad);
    size_t nbad = 0;
    int rc = bad ? sb_plaus_open(snap, NULL, NULL, NULL, &c, err) : sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; rc == SB_OK && i < set->n; i++) {
        sb_plaus_verdict v;
        if (!set->v[i].passing)
            continue;
        if ((rc = sb_plaus_check(c, &set->v[i], &v, err)) == SB_OK && v.state == SB_PLAUS_IMPLAUSIBLE)
            bad[nbad++] = set->v[i].run_id;
    }
    if (rc == SB_OK) {
        qsort(bad, nbad, sizeof *bad, id_cmp);
        for (size_t i = 0; i < runs->n; i++) {
            long long id = (long long)runs->v[i].run_id;
            runs->v[i].implausible = nbad && bsearch(&id, bad, nbad, sizeof *bad, id_cmp) != NULL;
        }
    }
    free(bad);
    sb_plaus_close(c);
    return rc;
}

/* ---- the listing ---- */
/* Adds r with its verdict to *v (n of them, room for *cap). */
static int listed_push(sb_plaus_listed **v, size_t *n, size_t *cap, const sb_result *r,
                       const sb_plaus_verdict *verdict, sb_error *err)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        sb_plaus_listed *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return sb_error_set(err, NULL, NULL, "out of memory");
        *v = nv;
        *cap = nc;
    }
    (*v)[*n].run = r;
    (*v)[(*n)++].verdict = *verdict;
    return SB_OK;
}

/* Checks the passing runs of rs (n of them) and lists each implausible
 * one and, unless implausible_only, each cache-resident one (counted
 * either way). */
static int list_runs(sb_plaus_ctx *c, const sb_result *const *rs, size_t n, int implausible_only,
                     sb_plaus_listed **listed, size_t *nlisted, size_t *checked, size_t *implausible,
                     size_t *cache_resident, size_t *unknown, sb_error *err)
{
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = rs[i];
        if (!r->passing)
            continue;
        sb_plaus_verdict v;
        if (sb_plaus_check(c, r, &v, err) != SB_OK)
            return SB_ERR;
        (*checked)++;
        if (v.state == SB_PLAUS_UNKNOWN)
            (*unknown)++;
        if (v.state != SB_PLAUS_IMPLAUSIBLE && v.state != SB_PLAUS_CACHE_RESIDENT)
            continue;
        if (v.state == SB_PLAUS_IMPLAUSIBLE)
            (*implausible)++;
        else
            (*cache_resident)++;
        if (implausible_only && v.state != SB_PLAUS_IMPLAUSIBLE)
            continue;
        if (listed_push(listed, nlisted, &cap, r, &v, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}

/* Every speedup of a provider over a headline baseline above
 * SB_SPEEDUP_LOOK on a case both passed, in the order of the picks. */
static int list_big(const sb_pick *picks, size_t np, sb_plaus_listing *l, sb_error *err)
{
    size_t cap = 0;
    for (size_t i = 0; i < np; i++) {
        const sb_result *p = picks[i].r;
        if (!p->passing)
            continue;
        for (size_t k = 0; sb_headline_baselines[k]; k++) {
            if (!strcmp(p->provider, sb_headline_baselines[k]))
                break; /* a baseline is held only against the ones before it */
            const sb_pick *b = sb_pick_find(picks, np, p->case_key, sb_headline_baselines[k], p->sku);
            if (!b || !b->r->passing)
                continue;
            sb_time_kind t = sb_both_kernel(p, b->r) ? SB_TIME_KERNEL : SB_TIME_CALL;
            double x = sb_speedup(p, b->r, t);
            if (!(x > SB_SPEEDUP_LOOK))
                continue;
            if (l->nbig == cap) {
                size_t nc = cap ? cap * 2 : 16;
                sb_plaus_big *nv = realloc(l->big, nc * sizeof *nv);
                if (!nv)
                    return sb_error_set(err, NULL, NULL, "out of memory");
                l->big = nv;
                cap = nc;
            }
            sb_plaus_big *g = &l->big[l->nbig++];
            g->run = p;
            g->base = b->r;
            g->baseline = sb_headline_baselines[k];
            g->time = t;
            g->run_ms = t == SB_TIME_KERNEL ? p->kernel_median_ms : p->median_ms;
            g->base_ms = t == SB_TIME_KERNEL ? b->r->kernel_median_ms : b->r->median_ms;
            g->speedup = x;
        }
    }
    l->sum.big_speedups = l->nbig;
    return SB_OK;
}

void sb_plaus_listing_free(sb_plaus_listing *l)
{
    free(l->runs);
    free(l->session_runs);
    free(l->big);
    memset(l, 0, sizeof *l);
}

int sb_plaus_list(const sb_plaus_snap *snap, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                  int implausible_only, sb_plaus_listing *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    sb_plaus_ctx *c;
    if (sb_plaus_open(snap, NULL, NULL, NULL, &c, err) != SB_OK)
        return SB_ERR;
    size_t ns = sessions ? sessions->n : 0;
    const sb_result **rs = malloc((np + ns) * sizeof *rs + 1);
    sb_plaus_summary *s = &out->sum;
    int rc = rs ? SB_OK : sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; rs && i < np; i++)
        rs[i] = picks[i].r;
    for (size_t i = 0; rs && i < ns; i++)
        rs[np + i] = &sessions->v[i];
    if (rc == SB_OK)
        rc = list_runs(c, rs, np, implausible_only, &out->runs, &out->nruns, &s->checked, &s->implausible,
                       &s->cache_resident, &s->unknown, err);
    if (rc == SB_OK)
        rc = list_runs(c, rs + np, ns, implausible_only, &out->session_runs, &out->nsession_runs,
                       &s->session_checked, &s->session_implausible, &s->session_cache_resident,
                       &s->session_unknown, err);
    if (rc == SB_OK && !implausible_only)
        rc = list_big(picks, np, out, err);
    free(rs);
    sb_plaus_close(c);
    if (rc != SB_OK)
        sb_plaus_listing_free(out);
    return rc;
}

/* packet_findings.c - a findings packet's content from measuring sessions
 * (packet_findings.h). */
#include "packet_findings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_rows.h"
#include "encode.h"
#include "home.h"
#include "paired.h"
#include "plots.h"
#include "repro.h"
#include "geomean.h"
#include "sessions.h"
#include "stats.h"
#include "template.h"

#define MAX_ROWS 2 /* shapes a finding's table shows; its plot and APPENDIX.md have every one */

/* The baselines of a finding, in the order shown: the upstream ops first,
 * the labelled variant beside its defaults. */
static const char *const BASELINES[] = {"liger", "liger-fp32-accum", "quack", "torch-compile", "huggingface", NULL};
#define NB 5

static const char *label_of(const char *provider)
{
    if (strcmp(provider, "liger") == 0)
        return "liger (defaults)";
    if (strcmp(provider, "liger-fp32-accum") == 0)
        return "liger-fp32-accum (variant)";
    return provider;
}

/* ---- data/templates/packets/upstream_ops.csv ---------------------------------- */

typedef struct upstream_op {
    char op[64], name[128];
    int fwd_only;
} upstream_op;

typedef struct ops_ctx {
    const char *target;
    upstream_op *v;
    size_t n;
    int header_seen;
} ops_ctx;

static int ops_row(void *ctx, const char *const *f, size_t nf, size_t line, sb_error *err)
{
    ops_ctx *c = ctx;
    if (!c->header_seen) {
        c->header_seen = 1;
        if (nf != 4 || strcmp(f[0], "target") || strcmp(f[1], "op") || strcmp(f[2], "upstream") ||
            strcmp(f[3], "modes"))
            return sb_csv_line_error(err, "", line, "the header must be target,op,upstream,modes");
        return SB_OK;
    }
    if (nf != 4)
        return sb_csv_line_error(err, "", line, "4 fields expected, %zu found", nf);
    if (strcmp(f[3], "fwd") && strcmp(f[3], "all"))
        return sb_csv_line_error(err, "", line, "modes is fwd or all, not '%s'", f[3]);
    if (strlen(f[1]) >= sizeof c->v->op || strlen(f[2]) >= sizeof c->v->name)
        return sb_csv_line_error(err, "", line, "op or upstream name too long");
    if (c->target && strcmp(f[0], c->target))
        return SB_OK;
    upstream_op *v = realloc(c->v, (c->n + 1) * sizeof *v);
    if (!v)
        return sb_error_set(err, NULL, NULL, "out of memory");
    c->v = v;
    snprintf(v[c->n].op, sizeof v[c->n].op, "%s", f[1]);
    snprintf(v[c->n].name, sizeof v[c->n].name, "%s", f[2]);
    v[c->n].fwd_only = strcmp(f[3], "fwd") == 0;
    c->n++;
    return SB_OK;
}

static int ops_load(const char *target, upstream_op **out, size_t *n, sb_error *err)
{
    char path[4096];
    ops_ctx c = {.target = target};
    *out = NULL;
    *n = 0;
    if (sb_data_path(path, sizeof path, "templates/packets/upstream_ops.csv", err) != SB_OK)
        return SB_ERR;
    if (sb_csv_read_file(path, NULL, ops_row, &c, err) != SB_OK) {
        free(c.v);
        return SB_ERR;
    }
    *out = c.v;
    *n = c.n;
    return SB_OK;
}

int sb_findings_target(const char *target, int *yes, sb_error *err)
{
    upstream_op *v;
    size_t n;
    *yes = 0;
    if (ops_load(target, &v, &n, err) != SB_OK)
        return SB_ERR;
    free(v);
    *yes = n > 0;
    return SB_OK;
}

/* ---- runs and their times ------------------------------------------------ */

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* copy 0 of provider's run of one case in one session, or NULL */
static const sb_session_run *run_of(const sb_session_runs *runs, const char *session, const char *case_key,
                                    const char *provider)
{
    for (size_t i = 0; i < runs->n; i++) {
        const sb_session_run *r = &runs->v[i];
        if (r->copy == 0 && same(r->session_id, session) && same(r->case_key, case_key) &&
            same(r->provider, provider))
            return r;
    }
    return NULL;
}

/* p50 (p20-p80) in ms of a run's round medians (kernel time), as
 * Liger-Kernel's benchmarks publish their figures; or its state. */
static int time_of(const sb_session_run *r, sb_case_time *out, sb_error *err)
{
    out->p50 = out->p20 = out->p80 = NAN;
    out->state = NULL;
    if (!r)
        return SB_OK;
    if (strcmp(r->status, "passed") || !r->kernel_samples) {
        out->state = strcmp(r->status, "failed") == 0    ? "failed check"
                     : strcmp(r->status, "skipped") == 0 ? "skipped"
                                                         : "not timed";
        return SB_OK;
    }
    double *m = NULL;
    size_t n = 0;
    sb_error e;
    if (sb_round_medians(r->kernel_samples, &m, &n, &e) != SB_OK)
        return sb_error_set(err, NULL, NULL, "run %lld: %s", (long long)r->run_id, e.msg);
    sb_sort_ascending(m, n);
    /* interpolated, as a result's percentiles are and as Liger-Kernel's
     * benchmarks take them (torch.quantile) */
    out->p50 = sb_quantile_linear(m, n, 0.5);
    out->p20 = sb_quantile_linear(m, n, 0.2);
    out->p80 = sb_quantile_linear(m, n, 0.8);
    free(m);
    return SB_OK;
}

/* A table cell of time_of: three significant digits, which the rounds'
 * spread rarely reaches past. */
static void time_text(const sb_case_time *t, sb_buf *out)
{
    if (isnan(t->p50))
        sb_buf_puts(out, t->state ? t->state : "-");
    else
        sb_buf_printf(out, "%.3g (%.3g-%.3g)", t->p50, t->p20, t->p80);
}

/* Megabytes for a table: whole ones from 100 up, else three digits. */
static void mb_text(double bytes, sb_buf *out)
{
    double mb = bytes / 1e6;
    sb_buf_printf(out, mb >= 100 ? "%.0f" : "%.3g", mb);
}

static void case_label(const sb_session_run *r, sb_buf *out)
{
    sb_buf_printf(out, "%s %s %s", r->mode, r->dtype, r->shape_key);
}

static void short_id(const char *id, char out[9])
{
    snprintf(out, 9, "%s", id ? id : "");
}

/* ---- the cited sessions -------------------------------------------------- */

typedef struct sess {
    const char *id;
    const sb_session_run *first; /* a copy-0 run of it */
    int cited, aa;
} sess;

typedef struct ctx {
    const sb_session_runs *runs;
    sb_session_report rep;
    sess *s;
    size_t ns;
    sb_claims *claims; /* every figure stated, with the runs behind it (report/claims.h) */
} ctx;

/* Records a pair's ratio as a claim of its session. */
static void claim_pair(ctx *c, const char *figure, const sb_session_pair *p)
{
    const int64_t runs[2] = {p->target->run_id, p->base->run_id};
    sb_claims_add(c->claims, figure, p->target->provider, p->base->provider, p->target->sku, p->target->session_id,
                  runs, 2);
}

/* Records one run's figure (a time, a peak) as a claim of its provider. */
static void claim_run(ctx *c, const char *figure, const sb_session_run *r)
{
    sb_claims_add(c->claims, figure, r->provider, NULL, r->sku, r->session_id, &r->run_id, 1);
}

static sess *sess_of(ctx *c, const char *id)
{
    for (size_t i = 0; i < c->ns; i++)
        if (same(c->s[i].id, id))
            return &c->s[i];
    return NULL;
}

static int sessions_list(ctx *c, sb_error *err)
{
    for (size_t i = 0; i < c->runs->n; i++) {
        const sb_session_run *r = &c->runs->v[i];
        sess *s = sess_of(c, r->session_id);
        if (!s) {
            sess *v = realloc(c->s, (c->ns + 1) * sizeof *v);
            if (!v)
                return sb_error_set(err, NULL, NULL, "out of memory");
            c->s = v;
            s = &c->s[c->ns++];
            memset(s, 0, sizeof *s);
            s->id = r->session_id;
        }
        if (r->copy == 0 && !s->first)
            s->first = r;
        s->aa |= r->copy != 0;
    }
    return SB_OK;
}

/* ---- one finding: an op on one SKU ------------------------------------- */

typedef struct base_set {
    const char *baseline;
    size_t *pairs, n;
} base_set;

typedef struct finding {
    double key; /* the first baseline's geomean speedup: larger gaps first */
    json_t *obj;
    sb_buf svg; /* its plot, empty when its table shows every case */
} finding;

static int cmp_finding(const void *x, const void *y)
{
    double a = ((const finding *)x)->key, b = ((const finding *)y)->key;
    return (a < b) - (a > b);
}

/* Appends v to a list joined by sep unless it is an item there already;
 * an empty v adds nothing (an empty needle would match everywhere). */
static void list_add(sb_buf *b, const char *v, const char *sep)
{
    size_t n = strlen(v), ns = strlen(sep);
    if (n == 0)
        return;
    for (const char *p = sb_buf_str(b); b->len;) {
        const char *e = strstr(p, sep);
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, v, n) == 0)
            return;
        if (!e)
            break;
        p = e + ns;
    }
    sb_buf_printf(b, "%s%s", b->len ? sep : "", v);
}

static void comma_add(sb_buf *b, const char *v)
{
    list_add(b, v, ", ");
}

/* The table of cases: a row for each pair index in rows (its session and
 * case), a cell for each provider in cols. */
static int table_rows(ctx *c, const size_t *rows, size_t nrows, const char *const *cols, size_t ncols,
                      const base_set *bs, size_t nbs, json_t *arr, sb_error *err)
{
    for (size_t i = 0; i < nrows; i++) {
        const sb_session_pair *p = &c->rep.pairs[rows[i]];
        json_t *row = json_object(), *cells = json_array(), *ratios = json_array();
        json_object_set_new(row, "cells", cells);
        json_object_set_new(row, "ratios", ratios);
        json_array_append_new(arr, row);
        sb_buf t = SB_BUF_INIT;
        case_label(p->target, &t);
        sb_tpl_set_str(row, "case", sb_buf_str(&t));
        char sid[9];
        short_id(p->target->session_id, sid);
        sb_tpl_set_str(row, "session", sid);
        for (size_t k = 0; k < ncols; k++) {
            sb_case_time ct;
            sb_buf_reset(&t);
            const sb_session_run *r = run_of(c->runs, p->target->session_id, p->target->case_key, cols[k]);
            if (time_of(r, &ct, err) != SB_OK) {
                sb_buf_free(&t);
                return SB_ERR;
            }
            time_text(&ct, &t);
            if (r)
                claim_run(c, sb_buf_str(&t), r);
            json_array_append_new(cells, json_string(sb_buf_str(&t)));
        }
        /* the speedup over each baseline at this case (the appendix) */
        for (size_t b = 0; b < nbs; b++) {
            sb_buf_reset(&t);
            const sb_session_pair *q = NULL;
            for (size_t j = 0; j < bs[b].n && !q; j++) {
                const sb_session_pair *x = &c->rep.pairs[bs[b].pairs[j]];
                if (same(x->target->case_key, p->target->case_key) &&
                    same(x->target->session_id, p->target->session_id))
                    q = x;
            }
            if (q) {
                sb_buf_printf(&t, "%.3fx (%.3f-%.3f) %s", q->kernel.ratio, q->kernel.lo, q->kernel.hi,
                              sb_verdict_one[q->verdict]);
                claim_pair(c, sb_buf_str(&t), q);
            } else
                sb_buf_puts(&t, "-");
            json_array_append_new(ratios, json_string(sb_buf_str(&t)));
        }
        sb_buf_free(&t);
    }
    return SB_OK;
}

static int has_row(const ctx *c, const size_t *rows, size_t n, size_t pair)
{
    const sb_session_pair *p = &c->rep.pairs[pair];
    for (size_t i = 0; i < n; i++) {
        const sb_session_pair *q = &c->rep.pairs[rows[i]];
        if (same(q->target->case_key, p->target->case_key) && same(q->target->session_id, p->target->session_id))
            return 1;
    }
    return 0;
}

/* The plot of a finding whose table cannot show every case: each
 * provider's kernel time at each case (pairs all[0..nall)), cases by
 * mode, dtype and the fused kernels' time. */
static int finding_plot(ctx *c, const size_t *all, size_t nall, const char *const *cols, size_t ncols,
                        const char *op, const char *sku, sb_buf *svg, sb_error *err)
{
    int rc = SB_ERR;
    sb_case_time *t = calloc(nall * ncols + 1, sizeof *t), *sorted = calloc(nall * ncols + 1, sizeof *sorted);
    size_t *order = calloc(nall + 1, sizeof *order);
    char **labels = calloc(nall + 1, sizeof *labels), **tips = calloc(nall + 1, sizeof *tips);
    const char *plabels[NB + 1];
    if (!t || !sorted || !order || !labels || !tips) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nall; i++) {
        const sb_session_pair *p = &c->rep.pairs[all[i]];
        for (size_t k = 0; k < ncols; k++)
            if (time_of(run_of(c->runs, p->target->session_id, p->target->case_key, cols[k]), &t[i * ncols + k],
                        err) != SB_OK)
                goto done;
    }
    /* by mode, dtype, then the fused kernels' p50 (a case it was not
     * timed at last) */
    for (size_t i = 0; i < nall; i++) {
        size_t j = i;
        const sb_session_run *x = c->rep.pairs[all[i]].target;
        double tx = isnan(t[i * ncols].p50) ? INFINITY : t[i * ncols].p50;
        for (; j > 0; j--) {
            const sb_session_run *y = c->rep.pairs[all[order[j - 1]]].target;
            double ty = isnan(t[order[j - 1] * ncols].p50) ? INFINITY : t[order[j - 1] * ncols].p50;
            int cm = strcmp(y->mode, x->mode), cd = strcmp(y->dtype, x->dtype);
            if (cm < 0 || (cm == 0 && (cd < 0 || (cd == 0 && ty <= tx))))
                break;
            order[j] = order[j - 1];
        }
        order[j] = i;
    }
    for (size_t i = 0; i < nall; i++) {
        const sb_session_run *x = c->rep.pairs[all[order[i]]].target;
        /* a case measured in two sessions is told apart by its session */
        int twice = 0;
        for (size_t j = 0; j < nall && !twice; j++)
            twice = j != order[i] && same(c->rep.pairs[all[j]].target->case_key, x->case_key);
        char sid[9];
        short_id(x->session_id, sid);
        sb_buf b = SB_BUF_INIT;
        case_label(x, &b);
        if (twice)
            sb_buf_printf(&b, " (%s)", sid);
        labels[i] = strdup(sb_buf_str(&b));
        sb_buf_printf(&b, "%s session %s", twice ? "," : " |", sid);
        tips[i] = strdup(sb_buf_str(&b));
        sb_buf_free(&b);
        if (!labels[i] || !tips[i]) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        memcpy(&sorted[i * ncols], &t[order[i] * ncols], ncols * sizeof *t);
    }
    for (size_t k = 0; k < ncols; k++)
        plabels[k] = label_of(cols[k]);
    char title[256];
    snprintf(title, sizeof title, "%s on %s: kernel time of every provider at each of %zu cases", op, sku, nall);
    sb_plot_case_times(title,
                       "Evidence level: " SB_EVIDENCE_OP ", paired within a session; p50 of the rounds' medians, "
                       "bar p20-p80; x: not timed (tooltip says why)",
                       (const char *const *)labels, (const char *const *)tips, nall, cols, plabels, ncols, sorted,
                       svg);
    rc = sb_buf_failed(svg) ? sb_error_set(err, NULL, NULL, "out of memory") : SB_OK;
done:
    for (size_t i = 0; labels && tips && i < nall; i++) {
        free(labels[i]);
        free(tips[i]);
    }
    free(labels);
    free(tips);
    free(order);
    free(sorted);
    free(t);
    return rc;
}

static int finding_make(ctx *c, const upstream_op *uo, const char *sku, const char *only_baseline,
                        finding *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    base_set bs[NB];
    size_t nbs = 0;
    int rc = SB_ERR;
    size_t *rows = NULL, nrows = 0, *all = NULL, nall = 0;
    memset(bs, 0, sizeof bs);
    for (size_t b = 0; BASELINES[b]; b++) {
        if (only_baseline && strcmp(only_baseline, BASELINES[b]))
            continue;
        base_set *s = &bs[nbs];
        s->baseline = BASELINES[b];
        for (size_t g = 0; g < c->rep.ngroups; g++) {
            const sb_session_group *gr = &c->rep.groups[g];
            if (!same(gr->op, uo->op) || !same(gr->sku, sku) || !same(gr->baseline, BASELINES[b]))
                continue;
            s->pairs = malloc((gr->count + 1) * sizeof *s->pairs);
            if (!s->pairs)
                goto oom;
            for (size_t k = 0; k < gr->count; k++)
                if (!uo->fwd_only || same(c->rep.pairs[gr->pair[k]].target->mode, "fwd"))
                    s->pairs[s->n++] = gr->pair[k];
        }
        if (s->n)
            nbs++;
        else
            free(s->pairs), s->pairs = NULL;
    }
    if (!nbs)
        return SB_OK; /* nothing paired: no finding */
    json_t *o = json_object();
    out->obj = o;
    sb_tpl_set_str(o, "op", uo->op);
    sb_tpl_set_str(o, "upstream", uo->name);
    {
        /* the command that measures this finding's cases again: the
         * packet's reproduce.sh given the op */
        sb_buf cmd = SB_BUF_INIT;
        sb_buf_puts(&cmd, "sh reproduce.sh ");
        sb_enc_shell_arg(&cmd, uo->op);
        sb_tpl_set_str(o, "remeasure", sb_buf_str(&cmd));
        sb_buf_free(&cmd);
    }
    sb_tpl_set_str(o, "sku", sku);
    sb_buf modes = SB_BUF_INIT, dtypes = SB_BUF_INIT, sids = SB_BUF_INIT;
    /* every case of the op shown, over all baselines */
    all = malloc((c->rep.npairs + 1) * sizeof *all);
    rows = malloc((MAX_ROWS + 1) * sizeof *rows);
    if (!all || !rows)
        goto oom_bufs;
    for (size_t b = 0; b < nbs; b++)
        for (size_t k = 0; k < bs[b].n; k++) {
            const sb_session_pair *p = &c->rep.pairs[bs[b].pairs[k]];
            if (!has_row(c, all, nall, bs[b].pairs[k]))
                all[nall++] = bs[b].pairs[k];
            comma_add(&modes, p->target->mode);
            comma_add(&dtypes, p->target->dtype);
            sess *s = sess_of(c, p->target->session_id);
            if (s)
                s->cited = 1;
        }
    sb_session_ids_text(c->rep.pairs, all, nall, &sids);
    sb_tpl_set_str(o, "modes", sb_buf_str(&modes));
    sb_tpl_set_str(o, "dtypes", sb_buf_str(&dtypes));
    sb_tpl_set_str(o, "sessions", sb_buf_str(&sids));
    json_object_set_new(o, "cases", json_integer((json_int_t)nall));
    /* speedups, worst cases and losses, baseline by baseline */
    json_t *sp = json_array(), *losses = json_array();
    json_object_set_new(o, "speedups", sp);
    json_object_set_new(o, "losses", losses);
    size_t nloss = 0;
    for (size_t b = 0; b < nbs; b++) {
        size_t worst = 0, wins = 0, lost = 0;
        sb_buf ss = SB_BUF_INIT;
        sb_paired geo;
        if (sb_session_summarize(c->rep.pairs, bs[b].pairs, bs[b].n, SB_HEADLINE_LEVEL, &geo, &worst, &wins, &lost,
                                 err) != SB_OK) {
            sb_buf_free(&ss);
            goto fail_bufs;
        }
        if (b == 0)
            out->key = geo.ratio;
        const sb_session_pair *w = &c->rep.pairs[worst];
        {
            /* the geomean rests on every pair's two runs, of several sessions maybe */
            int64_t *ids = malloc((2 * bs[b].n + 1) * sizeof *ids);
            char figure[32];
            snprintf(figure, sizeof figure, "%.3fx", geo.ratio);
            for (size_t j = 0; ids && j < bs[b].n; j++) {
                ids[2 * j] = c->rep.pairs[bs[b].pairs[j]].target->run_id;
                ids[2 * j + 1] = c->rep.pairs[bs[b].pairs[j]].base->run_id;
            }
            if (ids)
                sb_claims_add(c->claims, figure, w->target->provider, bs[b].baseline, sku, NULL, ids, 2 * bs[b].n);
            else
                c->claims->failed = 1;
            free(ids);
            snprintf(figure, sizeof figure, "%.3fx", w->kernel.ratio);
            claim_pair(c, figure, w);
        }
        json_t *e = json_object();
        sb_tpl_set_str(e, "baseline", label_of(bs[b].baseline));
        sb_tpl_set_num(e, "geomean", "%.3f", geo.ratio);
        sb_tpl_set_num(e, "lo", "%.3f", geo.lo);
        sb_tpl_set_num(e, "hi", "%.3f", geo.hi);
        json_object_set_new(e, "cases", json_integer((json_int_t)bs[b].n));
        json_object_set_new(e, "wins", json_integer((json_int_t)wins));
        json_object_set_new(e, "losses", json_integer((json_int_t)lost));
        /* the sessions this figure pools: the finding's (named in its
         * head), else named in the line (docs/CLAIMS.md, rule 8) */
        sb_session_ids_text(c->rep.pairs, bs[b].pairs, bs[b].n, &ss);
        sb_tpl_set_str(e, "sessions", strcmp(sb_buf_str(&ss), sb_buf_str(&sids)) ? sb_buf_str(&ss) : "");
        sb_buf_reset(&ss);
        case_label(w->target, &ss);
        sb_tpl_set_str(e, "worst_case", sb_buf_str(&ss));
        sb_buf_reset(&ss);
        sb_verdict_counts(&ss, wins, lost);
        sb_tpl_set_str(e, "verdicts", sb_buf_str(&ss));
        sb_buf_free(&ss);
        sb_tpl_set_num(e, "worst", "%.3f", w->kernel.ratio);
        sb_tpl_set_num(e, "worst_lo", "%.3f", w->kernel.lo);
        sb_tpl_set_num(e, "worst_hi", "%.3f", w->kernel.hi);
        char sid[9];
        short_id(w->target->session_id, sid);
        sb_tpl_set_str(e, "worst_session", sid);
        json_array_append_new(sp, e);
        if (nrows < MAX_ROWS && !has_row(c, rows, nrows, worst))
            rows[nrows++] = worst;
        for (size_t j = 0; j < bs[b].n; j++) {
            const sb_session_pair *p = &c->rep.pairs[bs[b].pairs[j]];
            if (p->verdict != SB_PAIRED_SLOWER)
                continue;
            nloss++;
            json_t *l = json_object();
            sb_buf t = SB_BUF_INIT;
            case_label(p->target, &t);
            sb_tpl_set_str(l, "case", sb_buf_str(&t));
            sb_buf_free(&t);
            sb_tpl_set_str(l, "baseline", label_of(bs[b].baseline));
            sb_tpl_set_num(l, "ratio", "%.3f", p->kernel.ratio);
            claim_pair(c, json_string_value(json_object_get(l, "ratio")), p);
            sb_tpl_set_num(l, "lo", "%.3f", p->kernel.lo);
            sb_tpl_set_num(l, "hi", "%.3f", p->kernel.hi);
            short_id(p->target->session_id, sid);
            sb_tpl_set_str(l, "session", sid);
            json_object_set_new(l, "more", json_true());
            json_array_append_new(losses, l);
            if (nrows < MAX_ROWS && b == 0 && !has_row(c, rows, nrows, bs[b].pairs[j]))
                rows[nrows++] = bs[b].pairs[j];
        }
    }
    if (json_array_size(losses))
        json_object_set_new(json_array_get(losses, json_array_size(losses) - 1), "more", json_false());
    json_object_set_new(o, "has_losses", json_boolean(nloss > 0));
    /* the largest case: where the first baseline's absolute peak is highest */
    size_t big = bs[0].pairs[0];
    for (size_t j = 1; j < bs[0].n; j++)
        if (c->rep.pairs[bs[0].pairs[j]].base->peak_absolute_bytes > c->rep.pairs[big].base->peak_absolute_bytes)
            big = bs[0].pairs[j];
    if (nrows < MAX_ROWS && !has_row(c, rows, nrows, big))
        rows[nrows++] = big;
    /* the columns: fused, then every baseline with pairs */
    const char *cols[NB + 1];
    size_t ncols = 0;
    cols[ncols++] = "fused";
    json_t *colnames = json_array();
    json_object_set_new(o, "columns", colnames);
    json_array_append_new(colnames, json_string("fused"));
    json_t *basenames = json_array();
    json_object_set_new(o, "baselines", basenames);
    for (size_t b = 0; b < nbs; b++) {
        cols[ncols++] = bs[b].baseline;
        json_array_append_new(colnames, json_string(label_of(bs[b].baseline)));
        json_array_append_new(basenames, json_string(bs[b].baseline));
    }
    json_t *rarr = json_array(), *aarr = json_array();
    json_object_set_new(o, "rows", rarr);
    json_object_set_new(o, "all_rows", aarr);
    if (table_rows(c, rows, nrows, cols, ncols, bs, nbs, rarr, err) != SB_OK ||
        table_rows(c, all, nall, cols, ncols, bs, nbs, aarr, err) != SB_OK)
        goto fail_bufs;
    /* a plot where the table leaves cases out */
    if (nall > nrows && finding_plot(c, all, nall, cols, ncols, uo->op, sku, &out->svg, err) != SB_OK)
        goto fail_bufs;
    /* peak memory at the largest case: absolute (Liger-Kernel's CSV
     * convention) and beyond the inputs */
    {
        const sb_session_pair *p = &c->rep.pairs[big];
        json_t *mem = json_object(), *cells = json_array();
        sb_buf t = SB_BUF_INIT;
        case_label(p->target, &t);
        sb_tpl_set_str(mem, "case", sb_buf_str(&t));
        char sid[9];
        short_id(p->target->session_id, sid);
        sb_tpl_set_str(mem, "session", sid);
        /* one cell a column of the times table: a row under it */
        json_object_set_new(mem, "cells", cells);
        size_t known = 0;
        for (size_t k = 0; k < ncols; k++) {
            const sb_session_run *r = run_of(c->runs, p->target->session_id, p->target->case_key, cols[k]);
            sb_buf_reset(&t);
            /* a call that returns outputs allocates beyond its inputs: a
             * peak of 0 there left them out (the fused outputs and
             * workspace allocated before the call: docs/SESSIONS.md) */
            if (!r || strcmp(r->status, "passed") || r->peak_absolute_bytes < 0 || r->peak_beyond_inputs_bytes == 0) {
                sb_buf_puts(&t, "-");
            } else {
                mb_text((double)r->peak_absolute_bytes, &t);
                sb_buf_puts(&t, " (");
                if (r->peak_beyond_inputs_bytes < 0)
                    sb_buf_puts(&t, "-");
                else
                    mb_text((double)r->peak_beyond_inputs_bytes, &t);
                sb_buf_puts(&t, ")");
                known++;
                claim_run(c, sb_buf_str(&t), r);
            }
            json_array_append_new(cells, json_string(sb_buf_str(&t)));
        }
        sb_buf_free(&t);
        json_object_set_new(o, "memory", known ? mem : json_null());
        if (!known)
            json_decref(mem);
    }
    /* the first baseline's calls that wait for the GPU (their hold let go) */
    {
        size_t waits = 0;
        for (size_t j = 0; j < bs[0].n; j++)
            waits += c->rep.pairs[bs[0].pairs[j]].base->hold_timeouts > 0;
        json_t *w = json_null();
        if (waits) {
            w = json_object();
            sb_tpl_set_str(w, "provider", label_of(bs[0].baseline));
            json_object_set_new(w, "count", json_integer((json_int_t)waits));
            json_object_set_new(w, "of", json_integer((json_int_t)bs[0].n));
        }
        json_object_set_new(o, "waits", w);
    }
    rc = SB_OK;
    goto done_bufs;
oom_bufs:
    sb_error_set(err, NULL, NULL, "out of memory");
fail_bufs:
    json_decref(out->obj);
    out->obj = NULL;
    sb_buf_free(&out->svg);
done_bufs:
    sb_buf_free(&modes);
    sb_buf_free(&dtypes);
    sb_buf_free(&sids);
    goto done;
oom:
    sb_error_set(err, NULL, NULL, "out of memory");
done:
    for (size_t b = 0; b < NB; b++)
        free(bs[b].pairs);
    free(rows);
    free(all);
    return rc;
}

/* ---- what was measured -------------------------------------------------- */

static const char *doc_str(const json_t *doc, const char *a, const char *b, const char *c)
{
    const json_t *v = json_object_get(json_object_get(doc, a), b);
    if (c)
        v = json_object_get(v, c);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Marks the A/A sessions on a cited GPU as cited too (their copies set the
 * verdicts' thresholds), then lists the cited sessions and their runs. */
static int cite(ctx *c, sb_findings *out, sb_error *err)
{
    for (size_t i = 0; i < c->ns; i++) {
        if (c->s[i].cited || !c->s[i].aa || !c->s[i].first)
            continue;
        for (size_t j = 0; j < c->ns && !c->s[i].cited; j++)
            c->s[i].cited = c->s[j].cited && c->s[j].first &&
                            same(c->s[j].first->gpu_uuid, c->s[i].first->gpu_uuid);
    }
    out->session_ids = calloc(c->ns + 1, sizeof *out->session_ids);
    out->session_first_run = calloc(c->ns + 1, sizeof *out->session_first_run);
    out->runs = malloc((c->runs->n + 1) * sizeof *out->runs);
    if (!out->session_ids || !out->session_first_run || !out->runs)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < c->ns; i++) {
        if (!c->s[i].cited || !c->s[i].first)
            continue;
        out->session_ids[out->nsessions] = strdup(c->s[i].id);
        if (!out->session_ids[out->nsessions])
            return sb_error_set(err, NULL, NULL, "out of memory");
        out->session_first_run[out->nsessions++] = c->s[i].first->run_id;
    }
    for (size_t j = 0; j < c->runs->n; j++) {
        const sess *s = sess_of(c, c->runs->v[j].session_id);
        if (s && s->cited)
            out->runs[out->nruns++] = c->runs->v[j].run_id;
    }
    qsort(out->runs, out->nruns, sizeof *out->runs, cmp_i64);
    return SB_OK;
}

/* s cut to fit out (size bytes with the NUL) without splitting a UTF-8
 * sequence, which the template refuses; "unknown" for none or empty. */
static void cut_label(char *out, size_t size, const char *s)
{
    if (!s || !*s)
        s = "unknown";
    size_t n = strlen(s);
    n = sb_utf8_valid_len(s, n < size - 1 ? n : size - 1);
    memcpy(out, s, n);
    out[n] = '\0';
}

/* A card model and the GPUs of it the sessions ran on. */
typedef struct card_gpus {
    char *card;
    sb_buf gpus;
} card_gpus;

static int card_add(card_gpus *v, size_t *n, const char *card, const char *gpu)
{
    size_t i = 0;
    while (i < *n && strcmp(v[i].card, card))
        i++;
    if (i == *n) {
        v[i].card = strdup(card);
        if (!v[i].card)
            return SB_ERR;
        memset(&v[i].gpus, 0, sizeof v[i].gpus);
        (*n)++;
    }
    comma_add(&v[i].gpus, gpu);
    return sb_buf_failed(&v[i].gpus) ? SB_ERR : SB_OK;
}

int sb_findings_describe(sb_findings *f, const sb_session_runs *runs, const json_t *const *docs, sb_error *err)
{
    json_t *d = f->data;
    json_t *sarr = json_array(), *citems = json_array();
    json_object_set_new(d, "sessions", sarr);
    json_object_set_new(d, "commit_items", citems);
    card_gpus *cards_v = calloc(f->nsessions + 1, sizeof *cards_v);
    size_t ncards = 0;
    if (!cards_v)
        return sb_error_set(err, NULL, NULL, "out of memory");
    sb_buf cards = SB_BUF_INIT, drivers = SB_BUF_INIT, commits = SB_BUF_INIT, methods = SB_BUF_INIT,
           checks = SB_BUF_INIT, gpus = SB_BUF_INIT, archs = SB_BUF_INIT, t = SB_BUF_INIT;
    int rc = SB_OK;
    for (size_t i = 0; i < f->nsessions && rc == SB_OK; i++) {
        const json_t *doc = docs[i];
        const sb_session_run *first = NULL;
        int aa = 0;
        size_t ncase = 0, nrun = 0;
        for (size_t j = 0; j < runs->n && !first; j++)
            if (runs->v[j].run_id == f->session_first_run[i])
                first = &runs->v[j];
        if (!first) {
            rc = sb_error_set(err, NULL, NULL, "session %.8s: run %lld is not among the runs given",
                              f->session_ids[i], (long long)f->session_first_run[i]);
            break;
        }
        for (size_t j = 0; j < runs->n; j++) {
            const sb_session_run *r = &runs->v[j];
            if (!same(r->session_id, first->session_id))
                continue;
            nrun++;
            aa |= r->copy != 0;
            ncase += r->copy == 0 && same(r->provider, first->provider);
        }
        const char *name = doc_str(doc, "provenance", "device", "name");
        const char *drv = doc_str(doc, "provenance", "software", "driver_version");
        const char *desc = doc_str(doc, "provenance", "git", "describe");
        const char *cc = doc_str(doc, "provenance", "device", "compute_capability");
        if (cc) {
            /* "9.0" is CMake's CUDA architecture "90" */
            char a[16];
            size_t k = 0;
            for (const char *q = cc; *q && k + 1 < sizeof a; q++)
                if (*q >= '0' && *q <= '9')
                    a[k++] = *q;
            a[k] = '\0';
            list_add(&archs, a, ";");
        }
        char gpu[13];
        cut_label(gpu, sizeof gpu, first->gpu_uuid);
        sb_buf_reset(&t);
        sb_buf_printf(&t, "%s (%s)", name ? name : first->sku, first->sku);
        if (card_add(cards_v, &ncards, sb_buf_str(&t), gpu) != SB_OK) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            break;
        }
        comma_add(&gpus, gpu);
        comma_add(&drivers, drv && *drv ? drv : "unknown");
        /* a commit stated by the runner (SOLBOOK_GIT_SHA) has no describe
         * of its own: its SHA is the name */
        char sha[13];
        snprintf(sha, sizeof sha, "%s", first->git_sha ? first->git_sha : "unknown");
        const char *cname = desc && strncmp(desc, "stated by", 9) != 0 ? desc : sha;
        size_t before = commits.len;
        comma_add(&commits, cname);
        if (commits.len > before) {
            /* the commit's full SHA, for a link into the repository */
            json_t *ci = json_object();
            sb_tpl_set_str(ci, "name", cname);
            sb_tpl_set_str(ci, "sha", first->git_sha ? first->git_sha : "unknown");
            json_object_set_new(ci, "more", json_true());
            json_array_append_new(citems, ci);
        }
        comma_add(&methods, first->timing_method);
        comma_add(&checks, first->check_version);
        json_t *e = json_object();
        char sid[9];
        short_id(first->session_id, sid);
        sb_tpl_set_str(e, "id", sid);
        sb_tpl_set_str(e, "gpu", gpu);
        char day[11];
        snprintf(day, sizeof day, "%s", first->started_at);
        sb_tpl_set_str(e, "date", day);
        json_object_set_new(e, "rounds", json_integer(first->rounds));
        const json_t *iters = json_object_get(json_object_get(doc, "protocol"), "iters");
        json_object_set_new(e, "iters", json_integer(json_is_integer(iters) ? json_integer_value(iters) : 0));
        json_object_set_new(e, "aa", json_boolean(aa));
        json_object_set_new(e, "cases", json_integer((json_int_t)ncase));
        json_object_set_new(e, "runs", json_integer((json_int_t)nrun));
        json_array_append_new(sarr, e);
        rc = sb_repro_session(runs, first->session_id, doc, &f->commands, err);
    }
    if (json_array_size(citems))
        json_object_set_new(json_array_get(citems, json_array_size(citems) - 1), "more", json_false());
    for (size_t i = 0; i < ncards; i++) {
        sb_buf_printf(&cards, "%s%s: %s", i ? "; " : "", cards_v[i].card, sb_buf_str(&cards_v[i].gpus));
        free(cards_v[i].card);
        sb_buf_free(&cards_v[i].gpus);
    }
    free(cards_v);
    sb_tpl_set_str(d, "cards", sb_buf_str(&cards));
    sb_tpl_set_str(d, "drivers", sb_buf_str(&drivers));
    sb_tpl_set_str(d, "commits", sb_buf_str(&commits));
    sb_tpl_set_str(d, "timing_methods", sb_buf_str(&methods));
    sb_tpl_set_str(d, "checks", sb_buf_str(&checks));
    sb_tpl_set_str(d, "gpus", sb_buf_str(&gpus));
    /* CMake's list of CUDA architectures: "90" or "80;90" */
    sb_tpl_set_str(d, "archs", sb_buf_str(&archs));
    json_object_set_new(d, "nsessions", json_integer((json_int_t)f->nsessions));
    sb_buf_free(&cards);
    sb_buf_free(&drivers);
    sb_buf_free(&commits);
    sb_buf_free(&methods);
    sb_buf_free(&checks);
    sb_buf_free(&gpus);
    sb_buf_free(&archs);
    sb_buf_free(&t);
    return rc;
}

int sb_findings_build(const sb_session_runs *runs, const char *target, const char *op, const char *baseline,
                      sb_findings *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    upstream_op *uo = NULL;
    size_t nuo = 0;
    ctx c = {.runs = runs, .claims = &out->claims};
    finding *f = NULL;
    size_t nf = 0;
    int rc = SB_ERR;
    if (ops_load(target, &uo, &nuo, err) != SB_OK ||
        sb_session_compare(runs, SB_PROJECT_PROVIDER, SB_HEADLINE_LEVEL, SB_HEADLINE_FLOOR, &c.rep, err) != SB_OK ||
        sessions_list(&c, err) != SB_OK)
        goto done;
    out->data = json_object();
    f = calloc(nuo * (c.rep.ngroups + 1) + 1, sizeof *f);
    out->plots = calloc(SB_FINDINGS_MAX, sizeof *out->plots);
    if (!out->data || !f || !out->plots) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nuo; i++) {
        if (op && strcmp(op, uo[i].op))
            continue;
        /* each SKU the op was paired on, in the order first met */
        for (size_t g = 0; g < c.rep.ngroups; g++) {
            const sb_session_group *gr = &c.rep.groups[g];
            int first = same(gr->op, uo[i].op);
            for (size_t h = 0; h < g && first; h++)
                first = !(same(c.rep.groups[h].op, uo[i].op) && same(c.rep.groups[h].sku, gr->sku));
            if (!first)
                continue;
            if (finding_make(&c, &uo[i], gr->sku, baseline, &f[nf], err) != SB_OK)
                goto done;
            if (f[nf].obj)
                nf++;
        }
    }
    qsort(f, nf, sizeof *f, cmp_finding);
    json_t *arr = json_array();
    json_object_set_new(out->data, "findings", arr);
    for (size_t i = 0; i < nf && i < SB_FINDINGS_MAX; i++) {
        json_object_set_new(f[i].obj, "n", json_integer((json_int_t)i + 1));
        sb_tpl_set_str(f[i].obj, "plot", "");
        if (f[i].svg.len) {
            /* the plot beside DISCUSSION.md, named by the finding's number */
            sb_findings_plot *pl = &out->plots[out->nplots++];
            snprintf(pl->file, sizeof pl->file, "finding-%zu.svg", i + 1);
            pl->svg = f[i].svg;
            memset(&f[i].svg, 0, sizeof f[i].svg);
            sb_tpl_set_str(f[i].obj, "plot", pl->file);
        }
        json_array_append(arr, f[i].obj);
    }
    out->nfindings = nf < SB_FINDINGS_MAX ? nf : SB_FINDINGS_MAX;
    /* the largest gap, and whether a labelled variant is shown: the asks */
    int variant = 0;
    for (size_t i = 0; i < out->nfindings; i++) {
        const json_t *b = json_object_get(f[i].obj, "baselines");
        for (size_t k = 0; k < json_array_size(b); k++)
            variant |= same(json_string_value(json_array_get(b, k)), "liger-fp32-accum");
    }
    json_object_set_new(out->data, "has_variant", json_boolean(variant));
    if (nf) {
        json_t *top = json_deep_copy(json_array_get(json_object_get(f[0].obj, "speedups"), 0));
        json_object_set(top, "op", json_object_get(f[0].obj, "op"));
        json_object_set(top, "upstream", json_object_get(f[0].obj, "upstream"));
        json_object_set(top, "sku", json_object_get(f[0].obj, "sku"));
        if (!*json_string_value(json_object_get(top, "sessions")))
            json_object_set(top, "sessions", json_object_get(f[0].obj, "sessions"));
        json_object_set_new(out->data, "top", top);
    }
    json_object_set_new(out->data, "left_out", json_integer((json_int_t)(nf - out->nfindings)));
    if (cite(&c, out, err) != SB_OK)
        goto done;
    rc = SB_OK;
done:
    for (size_t i = 0; i < nf; i++) {
        json_decref(f[i].obj);
        sb_buf_free(&f[i].svg);
    }
    free(f);
    free(c.s);
    sb_session_report_free(&c.rep);
    free(uo);
    if (rc != SB_OK)
        sb_findings_free(out);
    return rc;
}

void sb_findings_free(sb_findings *f)
{
    json_decref(f->data);
    free(f->runs);
    for (size_t i = 0; f->session_ids && i < f->nsessions; i++)
        free(f->session_ids[i]);
    free(f->session_ids);
    free(f->session_first_run);
    sb_buf_free(&f->commands);
    sb_claims_free(&f->claims);
    for (size_t i = 0; f->plots && i < f->nplots; i++)
        sb_buf_free(&f->plots[i].svg);
    free(f->plots);
    memset(f, 0, sizeof *f);
}

/* site_ops.c - the overview (arch x op matrix, completion gate) and one
 * page per op (geomean tables, speedup bars, latency against shape,
 * rooflines, the newest run of every case). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_name.h"
#include "gate.h"
#include "plots.h"
#include "history.h"
#include "run_details_read.h"
#include "run_summary.h"
#include "site_parts.h"
#include "svg.h"

#define DEFAULT_GATE_ARCHES "a100,h100,h200"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Distinct values, sorted; *out malloc'd array of pointers into the set. */
static int distinct(const char **v, size_t n, const char ***out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (n == 0)
        return 0;
    const char **s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    memcpy(s, v, n * sizeof *s);
    if (n) /* qsort(NULL, 0, ...) is undefined */
        qsort(s, n, sizeof *s, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || strcmp(s[k - 1], s[i]))
            s[k++] = s[i];
    *out = s;
    *nout = k;
    return 0;
}

typedef struct sku_col {
    const char *sku, *arch; /* arch-only column when sku is NULL */
} sku_col;

static int cmp_col(const void *x, const void *y)
{
    const sku_col *a = x, *b = y;
    int ra = sb_arch_rank(a->arch), rb = sb_arch_rank(b->arch);
    if (ra != rb)
        return ra - rb;
    int k = strcmp(a->arch, b->arch);
    if (k)
        return k;
    if (!a->sku || !b->sku)
        return (a->sku != NULL) - (b->sku != NULL);
    return strcmp(a->sku, b->sku);
}

/* The SKUs with result runs, plus one column per gate arch that has none. */
static int sku_columns(site_ctx *c, sku_col **out, size_t *n)
{
    const char *arches = c->o->gate_arches ? c->o->gate_arches : DEFAULT_GATE_ARCHES;
    size_t cap = c->npicks + 8, k = 0;
    sku_col *v = malloc(cap * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < c->npicks; i++) {
        const sb_result *r = c->picks[i].r;
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++)
            seen = strcmp(v[j].sku, r->sku) == 0;
        if (!seen)
            v[k++] = (sku_col){r->sku, r->arch};
    }
    static const char *const known[] = {"a100", "h100", "h200", NULL};
    for (size_t a = 0; known[a]; a++) {
        if (!strstr(arches, known[a]))
            continue;
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++)
            seen = v[j].arch && strcmp(v[j].arch, known[a]) == 0;
        if (!seen && k < cap)
            v[k++] = (sku_col){NULL, known[a]};
    }
    if (k) /* qsort(NULL, 0, ...) is undefined */
        qsort(v, k, sizeof *v, cmp_col);
    *out = v;
    *n = k;
    return 0;
}

typedef struct cell {
    size_t passing, failed, failed_correctness, skipped, stale, total;
} cell;

static void cell_count(site_ctx *c, const char *op, const char *sku, cell *ce)
{
    memset(ce, 0, sizeof *ce);
    for (size_t i = 0; i < c->npicks; i++) {
        const sb_result *r = c->picks[i].r;
        if (strcmp(r->op, op) || strcmp(r->sku, sku))
            continue;
        ce->total++;
        if (r->passing) {
            ce->passing++;
            if (c->picks[i].stale)
                ce->stale++;
        } else if (strcmp(r->status, "skipped") == 0) {
            ce->skipped++;
        } else {
            ce->failed++;
            if (r->correct == 0)
                ce->failed_correctness++;
        }
    }
}

/* The mode and dtype of an op's headline on every SKU, so that the
 * overview's columns compare like with like: the pair with a compared
 * row on the most SKUs, then the most compared rows (baselines measured
 * against), then the most shapes, then the first by name. */
typedef struct md_pick {
    const char *mode, *dtype; /* NULL: the op has no compared row */
} md_pick;

static md_pick headline_md(const sb_geo_table *g, const char *op)
{
    md_pick best = {NULL, NULL};
    size_t best_skus = 0, best_rows = 0, best_shapes = 0;
    for (size_t i = 0; i < g->n; i++) {
        const sb_geo_row *a = &g->rows[i];
        if (strcmp(a->op, op) || strcmp(a->provider, a->baseline) == 0 || a->shapes == 0)
            continue;
        size_t skus = 0, nrows = 0, shapes = 0;
        for (size_t j = 0; j < g->n; j++) {
            const sb_geo_row *b = &g->rows[j];
            if (strcmp(b->op, op) || strcmp(b->mode, a->mode) || strcmp(b->dtype, a->dtype) ||
                strcmp(b->provider, b->baseline) == 0 || b->shapes == 0)
                continue;
            shapes += b->shapes;
            nrows++;
            int first = 1; /* count each SKU once: its first row of this pair */
            for (size_t k = 0; k < j && first; k++) {
                const sb_geo_row *e = &g->rows[k];
                first = !(strcmp(e->op, op) == 0 && strcmp(e->mode, a->mode) == 0 &&
                          strcmp(e->dtype, a->dtype) == 0 && strcmp(e->sku, b->sku) == 0 &&
                          strcmp(e->provider, e->baseline) != 0 && e->shapes > 0);
            }
            skus += first;
        }
        int better = !best.mode || skus > best_skus || (skus == best_skus && nrows > best_rows) ||
                     (skus == best_skus && nrows == best_rows && shapes > best_shapes) ||
                     (skus == best_skus && nrows == best_rows && shapes == best_shapes &&
                      (strcmp(a->mode, best.mode) < 0 ||
                       (strcmp(a->mode, best.mode) == 0 && strcmp(a->dtype, best.dtype) < 0)));
        if (better) {
            best = (md_pick){a->mode, a->dtype};
            best_skus = skus;
            best_rows = nrows;
            best_shapes = shapes;
        }
    }
    return best;
}

/* 1 when row a makes a better headline than row b: its baseline comes
 * earlier among the headline baselines; a provider that is neither a
 * headline baseline nor the diagnostic stand-in; more shapes; a higher
 * geomean. */
static int better_headline(const sb_geo_row *a, const sb_geo_row *b)
{
    if (a->baseline_rank != b->baseline_rank)
        return a->baseline_rank < b->baseline_rank;
    int ka = strcmp(a->provider, SB_DIAGNOSTIC_PROVIDER) != 0, kb = strcmp(b->provider, SB_DIAGNOSTIC_PROVIDER) != 0;
    for (size_t i = 0; sb_headline_baselines[i]; i++) {
        ka = ka && strcmp(a->provider, sb_headline_baselines[i]) != 0;
        kb = kb && strcmp(b->provider, sb_headline_baselines[i]) != 0;
    }
    if (ka != kb)
        return ka;
    if (a->shapes != b->shapes)
        return a->shapes > b->shapes;
    return a->geomean > b->geomean;
}

/* The headline geomean of op on sku (better_headline), and how many other
 * compared rows the op page has. */
static const sb_geo_row *headline(const sb_geo_table *g, const char *op, const char *sku,
                                  const md_pick *md, size_t *others)
{
    const sb_geo_row *best = NULL;
    *others = 0;
    for (size_t i = 0; i < g->n; i++) {
        const sb_geo_row *r = &g->rows[i];
        if (strcmp(r->op, op) || strcmp(r->sku, sku) || strcmp(r->provider, r->baseline) == 0 ||
            r->shapes == 0)
            continue;
        (*others)++;
        if (md->mode && (strcmp(r->mode, md->mode) || strcmp(r->dtype, md->dtype)))
            continue;
        if (!best || better_headline(r, best))
            best = r;
    }
    if (best)
        (*others)--;
    return best;
}

/* The headline provider's rows against the op group's later baselines,
 * appended as " · 1.020× vs torch-compile (kernel)". */
static void later_baselines(sb_buf *b, const sb_geo_table *g, const sb_geo_row *h)
{
    for (size_t i = 0; i < g->n; i++) {
        const sb_geo_row *r = &g->rows[i];
        if (r == h || strcmp(r->op, h->op) || strcmp(r->mode, h->mode) || strcmp(r->dtype, h->dtype) ||
            strcmp(r->sku, h->sku) || strcmp(r->provider, h->provider) || !r->shapes)
            continue;
        sb_buf_printf(b, "; %.3f\xc3\x97 vs %s (%s)", r->geomean, r->baseline,
                      sb_time_kind_name(r->time));
    }
}

static void sku_anchor(sb_buf *b, const char *sku)
{
    sb_buf_puts(b, "sku-");
    for (const char *p = sku; *p; p++) {
        char ch = *p;
        sb_buf_putc(b, (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ? ch : '_');
    }
}

static void fmt3(sb_buf *b, double v)
{
    if (isnan(v))
        sb_buf_puts(b, "\xe2\x80\x93");
    else
        sb_buf_printf(b, "%.3f", v);
}

/* The overview's database summary: a row per kind and status, and the
 * totals its text states (the same numbers as the rows and the runs
 * index). */
typedef struct kind_rows {
    json_t *rows;
    long long total, results;
} kind_rows;

static void kind_row(void *ctx, const char *schema, const char *status, long long runs)
{
    kind_rows *k = ctx;
    k->total += runs;
    if (strcmp(schema, "solbook.result.v1") == 0)
        k->results += runs;
    json_t *row = json_object();
    sb_tpl_set_str(row, "schema", schema);
    sb_tpl_set_str(row, "status", status);
    json_object_set_new(row, "runs", json_integer(runs));
    json_object_set_new(row, "one", json_boolean(runs == 1));
    json_array_append_new(k->rows, row);
}

/* A matrix cell of op on column col: its label, counts and headline. */
static json_t *matrix_cell(site_ctx *c, const char *op, const char *op_path, const sku_col *col,
                           const md_pick *md)
{
    cell ce = {0};
    if (col->sku)
        cell_count(c, op, col->sku, &ce);
    const char *cls, *label;
    if (ce.total == 0) {
        cls = "missing";
        label = "missing";
    } else if (ce.failed) {
        cls = "failed";
        label = "failed";
    } else if (ce.passing) {
        cls = "passed";
        label = "passing";
    } else {
        cls = "skipped";
        label = "skipped";
    }
    json_t *o = json_object();
    sb_tpl_set_str(o, "cls", cls);
    sb_tpl_set_str(o, "label", label);
    sb_tpl_set_str(o, "sku", col->sku);
    sb_tpl_set_str(o, "op", op);
    json_object_set_new(o, "geo", json_null());
    sb_buf t = SB_BUF_INIT;
    if (ce.total) {
        sb_buf_printf(&t, "%zu/%zu passing", ce.passing, ce.total);
        if (ce.failed_correctness)
            sb_buf_printf(&t, ", %zu failed correctness", ce.failed_correctness);
        if (ce.failed > ce.failed_correctness)
            sb_buf_printf(&t, ", %zu failed", ce.failed - ce.failed_correctness);
        if (ce.skipped)
            sb_buf_printf(&t, ", %zu skipped", ce.skipped);
        if (ce.stale)
            sb_buf_printf(&t, "; %zu last run before the provider's newest commit here", ce.stale);
    }
    sb_tpl_set_str(o, "counts", sb_buf_str(&t));
    size_t others = 0;
    const sb_geo_row *h = ce.total ? headline(&c->geo, op, col->sku, md, &others) : NULL;
    if (h) {
        json_t *g = json_object();
        sb_buf_reset(&t);
        sb_buf_puts(&t, op_path);
        sb_buf_putc(&t, '#');
        sku_anchor(&t, col->sku);
        sb_tpl_set_str(g, "href", sb_buf_str(&t));
        sb_buf_reset(&t);
        fmt3(&t, h->geomean);
        sb_tpl_set_str(g, "geomean", sb_buf_str(&t));
        sb_tpl_set_str(g, "provider", h->provider);
        sb_tpl_set_str(g, "baseline", h->baseline);
        sb_tpl_set_str(g, "time", sb_time_kind_name(h->time));
        sb_buf_reset(&t);
        later_baselines(&t, &c->geo, h);
        sb_tpl_set_str(g, "later", sb_buf_str(&t));
        sb_buf_reset(&t);
        sb_buf_printf(&t, "%s %s, %zu shape%s", h->mode, h->dtype, h->shapes,
                      h->shapes == 1 ? "" : "s");
        if (others)
            sb_buf_printf(&t, "; %zu more on the op page", others);
        sb_tpl_set_str(g, "detail", sb_buf_str(&t));
        json_object_set_new(o, "geo", g);
    }
    sb_buf_free(&t);
    return o;
}

int site_build_overview(site_ctx *c, sb_error *err)
{
    int rc = SB_ERR;
    const char **opsv = malloc((c->npicks + 1) * sizeof *opsv), **ops = NULL;
    size_t nops = 0, ncols = 0;
    sku_col *cols = NULL;
    sb_buf b = SB_BUF_INIT, gate = SB_BUF_INIT;
    if (!opsv)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < c->npicks; i++)
        opsv[i] = c->picks[i].r->op;
    if (distinct(opsv, c->npicks, &ops, &nops) || sku_columns(c, &cols, &ncols)) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    c->sum->ops = nops;

    json_t *d = json_object(), *kinds = json_array(), *jops = json_array(),
           *jcols = json_array();
    json_object_set_new(d, "kinds", kinds);
    json_object_set_new(d, "ops", jops);
    json_object_set_new(d, "cols", jcols);
    json_object_set_new(d, "has_ops", json_boolean(nops > 0));
    json_object_set_new(d, "result_runs", json_integer((json_int_t)c->set.n));
    {
        char line[128];
        snprintf(line, sizeof line, "%zu " SB_LEFT_OUT_TIME ".", c->set.n_left_out);
        sb_tpl_set_str(d, "left_out", line);
        json_object_set_new(d, "has_left_out", json_boolean(c->set.n_left_out > 0));
    }
    json_object_set_new(d, "picks", json_integer((json_int_t)c->npicks));
    sb_tpl_set_str(d, "evidence", SB_EVIDENCE_OP);
    json_object_set_new(d, "gate", json_null());
    kind_rows kr = {kinds, 0, 0};
    if (sb_run_kind_counts(c->db, kind_row, &kr, err) != SB_OK) {
        json_decref(d);
        goto done;
    }
    json_object_set_new(d, "total_runs", json_integer((json_int_t)kr.total));
    json_object_set_new(d, "stored_results", json_integer((json_int_t)kr.results));
    for (size_t j = 0; j < ncols; j++) {
        json_t *col = json_object();
        sb_tpl_set_str(col, "arch", cols[j].arch);
        sb_tpl_set_str(col, "label", cols[j].sku ? cols[j].sku : "no SKU measured");
        json_array_append_new(jcols, col);
    }
    for (size_t i = 0; i < nops; i++) {
        char op_path[256];
        site_op_path(op_path, sizeof op_path, ops[i]);
        json_t *row = json_object(), *cells = json_array();
        sb_tpl_set_str(row, "name", ops[i]);
        sb_tpl_set_str(row, "path", op_path);
        json_object_set_new(row, "cells", cells);
        json_array_append_new(jops, row);
        md_pick md = headline_md(&c->geo, ops[i]);
        sb_tpl_set_str(row, "md", md.mode ? "" : NULL);
        if (md.mode) {
            char mdt[256];
            snprintf(mdt, sizeof mdt, "%s %s", md.mode, md.dtype);
            sb_tpl_set_str(row, "md", mdt);
        }
        for (size_t j = 0; j < ncols; j++)
            json_array_append_new(cells, matrix_cell(c, ops[i], op_path, &cols[j], &md));
    }
    /* The completion gate. */
    const sb_gate_spec *spec = sb_gate_spec_for("gemm");
    if (spec) {
        int ok = 0;
        const char *arches = c->o->gate_arches ? c->o->gate_arches : DEFAULT_GATE_ARCHES;
        sb_details_ask ask = {0};
        sb_run_details *det = NULL;
        int grc = sb_gate_ask(&c->set, spec, arches, &ask, err);
        if (grc == SB_OK)
            grc = sb_run_details_read(c->db, &ask, &det, err);
        if (grc == SB_OK)
            grc = sb_gate_check(&c->set, det, c->skus, spec, arches, &ok, &gate, err);
        sb_run_details_free(det);
        sb_details_ask_free(&ask);
        if (grc != SB_OK) {
            json_decref(d);
            goto done;
        }
        c->sum->gate_ok = ok;
        json_t *g = json_object();
        sb_tpl_set_str(g, "ok_cls", ok ? "passed" : "failed");
        sb_tpl_set_str(g, "verdict", ok ? "complete" : "incomplete");
        sb_tpl_set_str(g, "arches", arches);
        sb_tpl_set_str(g, "report", sb_buf_str(&gate));
        json_object_set_new(d, "gate", g);
    }
    rc = site_render("overview.html.tmpl", d, &b, err);
    json_decref(d);
    if (rc != SB_OK)
        goto done;
    rc = site_page(c, "index.html", 0, "overview", "solbook overview", &b, err);
done:
    sb_buf_free(&b);
    sb_buf_free(&gate);
    free(ops);
    free(opsv);
    free(cols);
    return rc;
}

/* ---- op pages ---------------------------------------------------------- */

static void set_fmt3(json_t *o, const char *k, double v)
{
    sb_buf t = SB_BUF_INIT;
    fmt3(&t, v);
    sb_tpl_set_str(o, k, sb_buf_str(&t));
    sb_buf_free(&t);
}

/* The op's rows of the geomean table. */
static json_t *geo_rows(const sb_geo_table *g, const char *op)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < g->n; i++) {
        const sb_geo_row *r = &g->rows[i];
        if (strcmp(r->op, op))
            continue;
        json_t *o = json_object();
        sb_tpl_set_str(o, "mode", r->mode);
        sb_tpl_set_str(o, "dtype", r->dtype);
        sb_tpl_set_str(o, "arch", r->arch);
        sb_tpl_set_str(o, "sku", r->sku);
        sb_tpl_set_str(o, "provider", r->provider);
        sb_tpl_set_str(o, "baseline", r->baseline);
        json_object_set_new(o, "shapes", json_integer((json_int_t)r->shapes));
        set_fmt3(o, "geomean", r->geomean);
        set_fmt3(o, "min", r->min);
        set_fmt3(o, "max", r->max);
        json_object_set_new(o, "failed", json_integer((json_int_t)r->failed));
        json_object_set_new(o, "skipped", json_integer((json_int_t)r->skipped));
        json_object_set_new(o, "no_baseline", json_integer((json_int_t)r->no_baseline));
        json_object_set_new(o, "not_run", json_integer((json_int_t)r->not_run));
        json_object_set_new(o, "stale", json_integer((json_int_t)r->stale));
        sb_tpl_set_str(o, "time", sb_time_kind_name(r->time));
        json_array_append_new(rows, o);
    }
    return rows;
}

/* The status label of a case's newest run: its class and text. */
static void run_status(const sb_result *r, int stale, const char **cls, const char **label)
{
    if (r->passing) {
        *cls = stale ? "stale" : "passed";
        *label = stale ? "passed, stale" : "passed";
    } else if (strcmp(r->status, "skipped") == 0) {
        *cls = *label = "skipped";
    } else {
        *cls = "failed";
        *label = r->correct == 0 ? "failed correctness" : r->status;
    }
}

static void set_num(json_t *o, const char *k, double v)
{
    sb_buf t = SB_BUF_INIT;
    site_num(&t, v);
    sb_tpl_set_str(o, k, sb_buf_str(&t));
    sb_buf_free(&t);
}

/* The newest run of each case of the op on one SKU, rows from to to of
 * them (a page of the SKU page), as template rows. */
static json_t *cases_rows(const sb_pick *p, size_t n, const char *sku, size_t from, size_t to)
{
    json_t *rows = json_array();
    for (size_t i = 0, row = 0; i < n; i++) {
        const sb_result *r = p[i].r;
        if (strcmp(r->sku, sku))
            continue;
        if (row++ < from || row > to)
            continue;
        char rp[128], hp[512], sha[16];
        site_run_path(rp, sizeof rp, r->run_id);
        site_history_path(hp, sizeof hp, r->case_key, r->sku, 1);
        snprintf(sha, sizeof sha, "%.10s", r->git_sha);
        const char *cls, *label;
        run_status(r, p[i].stale, &cls, &label);
        json_t *o = json_object();
        sb_tpl_set_str(o, "mode", r->mode);
        sb_tpl_set_str(o, "dtype", r->dtype);
        sb_tpl_set_str(o, "shape", r->shape_key);
        sb_tpl_set_str(o, "provider", r->provider);
        sb_tpl_set_str(o, "cls", cls);
        sb_tpl_set_str(o, "status", label);
        json_object_set_new(o, "run", json_integer(r->run_id));
        sb_buf params = SB_BUF_INIT;
        site_params_text(r->params_json, &params);
        sb_tpl_set_str(o, "params", sb_buf_str(&params));
        sb_buf_free(&params);
        set_num(o, "median", r->passing ? r->median_ms : NAN);
        set_num(o, "kernel", r->passing ? r->kernel_median_ms : NAN);
        set_num(o, "p20", r->passing ? r->p20_ms : NAN);
        set_num(o, "p80", r->passing ? r->p80_ms : NAN);
        set_num(o, "tflops", r->passing ? r->tflops : NAN);
        set_num(o, "gbps", r->passing ? r->gbps : NAN);
        sb_tpl_set_str(o, "sha", sha);
        sb_tpl_set_str(o, "run_href", rp);
        sb_tpl_set_str(o, "history_href", hp);
        json_array_append_new(rows, o);
    }
    return rows;
}

typedef struct md_pair {
    const char *mode, *dtype;
} md_pair;

static int cmp_md(const void *x, const void *y)
{
    const md_pair *a = x, *b = y;
    int k = strcmp(a->mode, b->mode);
    return k ? k : strcmp(a->dtype, b->dtype);
}

/* ops/OP/SKU.html (page 1) and ops/OP/SKU~pN.html: page ids
 * (core/file_name.h), so no SKU's name is another SKU's page. */
static void sku_page_path(char *buf, size_t size, const char *op, const char *sku, size_t page)
{
    char opp[256], s[SB_PAGE_ID_SIZE];
    site_op_path(opp, sizeof opp, op);
    opp[strlen(opp) - 5] = 0; /* ops/OP */
    sb_page_id_paged(sku, page, s);
    snprintf(buf, size, "%s/%s.html", opp, s);
}

/* At most this many history charts on a SKU page: the cases whose newest
 * commit changed them (regression or improvement), newest steps first.
 * Each chart is 20-45 KB of inline SVG; eight put the busiest SKU page
 * over its 500 KB budget, and every chart is on its history page anyway. */
#define SKU_CHARTS 4

/* The history charts of the SKU page into d: charts (svg, href, mode,
 * dtype, shape, params, git_order), charts_total and charts_max. */
static void history_charts(site_ctx *c, const char *op, const char *sku, json_t *d)
{
    const char *keys[SKU_CHARTS];
    size_t nk = 0;
    for (size_t i = c->rg.n; i-- > 0 && nk < SKU_CHARTS;) {
        const sb_rg_row *r = &c->rg.v[i];
        if (!r->latest || (r->verdict != SB_RG_REGRESSION && r->verdict != SB_RG_IMPROVEMENT) ||
            strcmp(r->new_run->op, op) || strcmp(r->new_run->sku, sku))
            continue;
        int seen = 0;
        for (size_t k = 0; k < nk && !seen; k++)
            seen = strcmp(keys[k], r->new_run->case_key) == 0;
        if (!seen)
            keys[nk++] = r->new_run->case_key;
    }
    json_t *charts = json_array();
    json_object_set_new(d, "charts", charts);
    json_object_set_new(d, "charts_total", json_integer((json_int_t)nk));
    json_object_set_new(d, "charts_max", json_integer(SKU_CHARTS));
    if (!nk)
        return;
    const sb_result **runs = malloc((c->set.n + 1) * sizeof *runs);
    const sb_rg_row **steps = malloc((c->rg.n + 1) * sizeof *steps);
    sb_buf svg = SB_BUF_INIT;
    for (size_t k = 0; runs && steps && k < nk; k++) {
        size_t nr = 0, ns = 0;
        for (size_t i = 0; i < c->set.n; i++)
            if (strcmp(c->set.v[i].case_key, keys[k]) == 0 && strcmp(c->set.v[i].sku, sku) == 0)
                runs[nr++] = &c->set.v[i];
        for (size_t i = 0; i < c->rg.n; i++)
            if (strcmp(c->rg.v[i].new_run->case_key, keys[k]) == 0 &&
                strcmp(c->rg.v[i].new_run->sku, sku) == 0)
                steps[ns++] = &c->rg.v[i];
        sb_history_sort_steps(steps, ns);
        char title[1024], hp[512];
        const sb_result *h = runs[0];
        snprintf(title, sizeof title, "%s %s %s %s on %s: median over commits", h->op, h->mode,
                 h->dtype, h->shape_key, sku);
        sb_buf_reset(&svg);
        size_t drawn = 0;
        int git = 0;
        site_history_chart(runs, nr, &c->commits, steps, ns, title, &svg, &drawn, &git);
        if (!drawn)
            continue;
        site_history_path(hp, sizeof hp, keys[k], sku, 1);
        json_t *o = json_object();
        sb_tpl_set_str(o, "svg", sb_buf_str(&svg));
        sb_tpl_set_str(o, "href", hp);
        sb_tpl_set_str(o, "mode", h->mode);
        sb_tpl_set_str(o, "dtype", h->dtype);
        sb_tpl_set_str(o, "shape", h->shape_key);
        sb_buf params = SB_BUF_INIT;
        site_params_text(h->params_json, &params);
        sb_tpl_set_str(o, "params", sb_buf_str(&params));
        sb_buf_free(&params);
        json_object_set_new(o, "git_order", json_boolean(git));
        json_array_append_new(charts, o);
    }
    sb_buf_free(&svg);
    free(runs);
    free(steps);
}

/* The rows of a SKU page's first page: a quarter of a page's, since the
 * charts (about 400 KB of inline SVG on the busiest SKU) share it. */
static size_t first_page_rows(const site_ctx *c)
{
    return c->page_rows / 4 ? c->page_rows / 4 : 1;
}

/* The first and one-past-last case row of page pg (from 1). */
static void page_row_range(const site_ctx *c, size_t pg, size_t *from, size_t *to)
{
    size_t first = first_page_rows(c);
    *from = pg == 1 ? 0 : first + (pg - 2) * c->page_rows;
    *to = pg == 1 ? first : *from + c->page_rows;
}

/* The SKU's part of an op: latency plots, the roofline and history charts
 * on its first page, the newest run of each case on every page
 * (c->page_rows rows a page, a quarter of that on the first). */
static int sku_pages(site_ctx *c, const char *op, const char *sku, const char *arch,
                     const sb_pick *p, size_t n, size_t ncases, const md_pair *mds, size_t nmd,
                     sb_error *err)
{
    size_t first = first_page_rows(c);
    size_t pages = ncases <= first ? 1 : 1 + (ncases - first + c->page_rows - 1) / c->page_rows;
    site_keyed_pages sa = {sku_page_path, op, sku};
    sb_buf b = SB_BUF_INIT, svg = SB_BUF_INIT;
    char opp[256];
    site_op_path(opp, sizeof opp, op);
    int rc = SB_OK;
    for (size_t pg = 1; pg <= pages && rc == SB_OK; pg++) {
        sb_buf_reset(&b);
        json_t *d = json_object(), *latency = json_array();
        sb_tpl_set_str(d, "evidence", SB_EVIDENCE_OP);
        sb_tpl_set_str(d, "op_href", opp + 4);
        sb_tpl_set_str(d, "op", op);
        sb_tpl_set_str(d, "sku", sku);
        sb_tpl_set_str(d, "arch", arch);
        json_object_set_new(d, "first", json_boolean(pg == 1));
        json_object_set_new(d, "latency", latency);
        sb_tpl_set_str(d, "roofline", "");
        json_object_set_new(d, "charts", json_array());
        json_object_set_new(d, "charts_total", json_integer(0));
        json_object_set_new(d, "charts_max", json_integer(SKU_CHARTS));
        sb_tpl_set_str(d, "speedup", "");
        if (pg == 1) {
            sb_buf sp = SB_BUF_INIT;
            if (site_speedup_section(c, op, sku, &sp, err) != SB_OK) {
                sb_buf_free(&sp);
                json_decref(d);
                rc = SB_ERR;
                break;
            }
            sb_tpl_set_str(d, "speedup", sb_buf_str(&sp));
            sb_buf_free(&sp);
            for (size_t m = 0; m < nmd; m++) {
                int has = 0;
                for (size_t i = 0; i < n && !has; i++)
                    has = strcmp(p[i].r->sku, sku) == 0 && strcmp(p[i].r->mode, mds[m].mode) == 0 &&
                          strcmp(p[i].r->dtype, mds[m].dtype) == 0;
                if (!has)
                    continue;
                sb_buf_reset(&svg);
                sb_plot_latency(p, n, op, mds[m].mode, mds[m].dtype, sku, &svg);
                json_t *o = json_object();
                sb_tpl_set_str(o, "svg", site_svg_element(&svg));
                json_array_append_new(latency, o);
            }
            sb_buf_reset(&svg);
            size_t drawn = 0;
            if (sb_plot_roofline(c->snap, c->skus, p, n, sku, &svg, &drawn, err) != SB_OK) {
                json_decref(d);
                rc = SB_ERR;
                break;
            }
            sb_tpl_set_str(d, "roofline", site_svg_element(&svg));
            history_charts(c, op, sku, d);
        }
        sb_buf pager = SB_BUF_INIT;
        site_pager(&pager, pg, pages, site_keyed_page_name, &sa);
        sb_tpl_set_str(d, "pager", sb_buf_str(&pager));
        sb_buf_free(&pager);
        size_t from, to;
        page_row_range(c, pg, &from, &to);
        json_object_set_new(d, "rows", cases_rows(p, n, sku, from, to));
        rc = site_render("op-sku.html.tmpl", d, &b, err);
        json_decref(d);
        if (rc != SB_OK)
            break;
        char path[600], title[512];
        sku_page_path(path, sizeof path, op, sku, pg);
        snprintf(title, sizeof title, "op %s on %s%s", op, sku, pages > 1 ? " (paged)" : "");
        rc = site_page(c, path, 2, "ops", title, &b, err);
    }
    sb_buf_free(&b);
    sb_buf_free(&svg);
    return rc;
}

static int op_page(site_ctx *c, const char *op, const sb_pick *p, size_t n, sb_error *err)
{
    int rc = SB_ERR;
    sb_buf b = SB_BUF_INIT, svg = SB_BUF_INIT;
    md_pair *mds = malloc((n + 1) * sizeof *mds);
    const char **skusv = malloc((n + 1) * sizeof *skusv);
    sku_col *cols = malloc((n + 1) * sizeof *cols);
    size_t nmd = 0, ncols = 0;
    if (!mds || !skusv || !cols) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        mds[i] = (md_pair){p[i].r->mode, p[i].r->dtype};
    if (n) /* qsort(NULL, 0, ...) is undefined */
        qsort(mds, n, sizeof *mds, cmp_md);
    for (size_t i = 0; i < n; i++)
        if (nmd == 0 || cmp_md(&mds[nmd - 1], &mds[i]))
            mds[nmd++] = mds[i];
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < ncols && !seen; j++)
            seen = strcmp(cols[j].sku, p[i].r->sku) == 0;
        if (!seen)
            cols[ncols++] = (sku_col){p[i].r->sku, p[i].r->arch};
    }
    if (ncols) /* qsort(NULL, 0, ...) is undefined */
        qsort(cols, ncols, sizeof *cols, cmp_col);

    json_t *d = json_object(), *jskus = json_array(), *bars = json_array();
    sb_tpl_set_str(d, "evidence", SB_EVIDENCE_OP);
    json_object_set_new(d, "skus", jskus);
    json_object_set_new(d, "geo", geo_rows(&c->geo, op));
    json_object_set_new(d, "bars", bars);
    {
        sb_buf sp = SB_BUF_INIT;
        if (site_speedup_section(c, op, NULL, &sp, err) != SB_OK) {
            sb_buf_free(&sp);
            json_decref(d);
            goto done;
        }
        sb_tpl_set_str(d, "speedup", sb_buf_str(&sp));
        sb_buf_free(&sp);
    }
    for (size_t m = 0; m < nmd; m++) {
        /* bars only where the geomean table has rows for this mode x dtype */
        int rows = 0;
        for (size_t i = 0; i < c->geo.n && !rows; i++)
            rows = strcmp(c->geo.rows[i].op, op) == 0 &&
                   strcmp(c->geo.rows[i].mode, mds[m].mode) == 0 &&
                   strcmp(c->geo.rows[i].dtype, mds[m].dtype) == 0;
        if (!rows)
            continue;
        sb_buf_reset(&svg);
        sb_plot_speedup(&c->geo, op, mds[m].mode, mds[m].dtype, &svg);
        json_t *o = json_object();
        sb_tpl_set_str(o, "svg", site_svg_element(&svg));
        json_array_append_new(bars, o);
    }
    for (size_t j = 0; j < ncols; j++) {
        const char *sku = cols[j].sku;
        size_t ncases = 0;
        for (size_t i = 0; i < n; i++)
            ncases += strcmp(p[i].r->sku, sku) == 0;
        char sp[600];
        sku_page_path(sp, sizeof sp, op, sku, 1);
        sb_buf anchor = SB_BUF_INIT;
        sku_anchor(&anchor, sku);
        json_t *o = json_object();
        sb_tpl_set_str(o, "sku", sku);
        sb_tpl_set_str(o, "anchor", sb_buf_str(&anchor));
        sb_tpl_set_str(o, "arch", cols[j].arch);
        sb_tpl_set_str(o, "href", sp);
        json_object_set_new(o, "cases", json_integer((json_int_t)ncases));
        json_array_append_new(jskus, o);
        sb_buf_free(&anchor);
        if (sku_pages(c, op, sku, cols[j].arch, p, n, ncases, mds, nmd, err) != SB_OK) {
            json_decref(d);
            goto done;
        }
    }
    rc = site_render("op.html.tmpl", d, &b, err);
    json_decref(d);
    if (rc != SB_OK)
        goto done;
    char path[256], title[512];
    site_op_path(path, sizeof path, op);
    snprintf(title, sizeof title, "op %s", op);
    rc = site_page(c, path, 1, "ops", title, &b, err);
done:
    sb_buf_free(&b);
    sb_buf_free(&svg);
    free(mds);
    free(skusv);
    free(cols);
    return rc;
}

/* Rows of an op in reading order: mode, dtype, params, shapes by their
 * numbers (M=16384 before M=131072), provider, SKU. */
static int cmp_pick_rows(const void *x, const void *y)
{
    const sb_result *a = ((const sb_pick *)x)->r, *b = ((const sb_pick *)y)->r;
    site_case ca = {a->mode, a->dtype, a->params_json, a->shape_key};
    site_case cb = {b->mode, b->dtype, b->params_json, b->shape_key};
    int k = site_case_cmp(&ca, &cb);
    if (!k)
        k = strcmp(a->provider, b->provider);
    if (!k)
        k = strcmp(a->sku, b->sku);
    if (!k)
        k = (a->run_id > b->run_id) - (a->run_id < b->run_id);
    return k;
}

int site_build_ops(site_ctx *c, sb_error *err)
{
    json_t *d = json_object(), *jops = json_array();
    json_object_set_new(d, "ops", jops);
    json_object_set_new(d, "has_ops", json_boolean(c->npicks > 0));
    if (c->npicks == 0) {
        sb_buf b = SB_BUF_INIT;
        int rc = site_render("ops-index.html.tmpl", d, &b, err);
        if (rc == SB_OK)
            rc = site_page(c, "ops/index.html", 1, "ops", "ops", &b, err);
        sb_buf_free(&b);
        json_decref(d);
        return rc;
    }
    /* Picks of one op, in set order; ops sorted by name. */
    sb_pick *p = malloc(c->npicks * sizeof *p);
    const char **opsv = malloc(c->npicks * sizeof *opsv), **ops = NULL;
    size_t nops = 0;
    if (p && opsv)
        for (size_t i = 0; i < c->npicks; i++)
            opsv[i] = c->picks[i].r->op;
    if (!p || !opsv || distinct(opsv, c->npicks, &ops, &nops)) {
        free(p);
        free(opsv);
        json_decref(d);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    int rc = SB_OK;
    sb_buf idx = SB_BUF_INIT;
    for (size_t k = 0; k < nops && rc == SB_OK; k++) {
        size_t n = 0;
        for (size_t i = 0; i < c->npicks; i++)
            if (strcmp(c->picks[i].r->op, ops[k]) == 0)
                p[n++] = c->picks[i];
        if (n)
            qsort(p, n, sizeof *p, cmp_pick_rows);
        rc = op_page(c, ops[k], p, n, err);
        char path[256];
        site_op_path(path, sizeof path, ops[k]);
        json_t *o = json_object();
        sb_tpl_set_str(o, "name", ops[k]);
        sb_tpl_set_str(o, "href", path + 4);
        json_object_set_new(o, "picks", json_integer((json_int_t)n));
        json_array_append_new(jops, o);
    }
    if (rc == SB_OK)
        rc = site_render("ops-index.html.tmpl", d, &idx, err);
    if (rc == SB_OK)
        rc = site_page(c, "ops/index.html", 1, "ops", "ops", &idx, err);
    json_decref(d);
    sb_buf_free(&idx);
    free(p);
    free(opsv);
    free(ops);
    return rc;
}

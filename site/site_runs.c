/* site_runs.c - one page per run and the paginated list of runs, in one
 * pass over the database: one statement per table, each ordered by run
 * id, merged like sorted lists (no query per page). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_internal.h"
#include "svg.h"

/* A statement over one table ordered by run_id (column 0), stepped along
 * with the runs. */
typedef struct cursor {
    sqlite3_stmt *st;
    int row;            /* 1 while positioned on a row */
    long long run_id;
    const char *table;
} cursor;

static int cur_open(site_ctx *c, cursor *k, const char *table, const char *sql, sb_error *err)
{
    memset(k, 0, sizeof *k);
    k->table = table;
    if (sqlite3_prepare_v2(c->db, sql, -1, &k->st, NULL) != SQLITE_OK)
        return sb_error_set(err, c->o->db_path, NULL, "query of %s failed: %s", table,
                            sqlite3_errmsg(c->db));
    return SB_OK;
}

static int cur_step(site_ctx *c, cursor *k, sb_error *err)
{
    int s = sqlite3_step(k->st);
    if (s == SQLITE_ROW) {
        k->row = 1;
        k->run_id = sqlite3_column_int64(k->st, 0);
        return SB_OK;
    }
    k->row = 0;
    if (s != SQLITE_DONE)
        return sb_error_set(err, c->o->db_path, NULL, "query of %s failed: %s", k->table,
                            sqlite3_errmsg(c->db));
    return SB_OK;
}

/* Moves k to the first row with run_id >= id; returns 1 when it is id. */
static int cur_seek(site_ctx *c, cursor *k, long long id, int *at, sb_error *err)
{
    while (k->row && k->run_id < id)
        if (cur_step(c, k, err) != SB_OK)
            return SB_ERR;
    *at = k->row && k->run_id == id;
    return SB_OK;
}

static int col_index(sqlite3_stmt *st, const char *name)
{
    for (int i = 0; i < sqlite3_column_count(st); i++)
        if (strcmp(sqlite3_column_name(st, i), name) == 0)
            return i;
    return -1;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    if (i < 0 || sqlite3_column_type(st, i) == SQLITE_NULL)
        return NULL;
    return (const char *)sqlite3_column_text(st, i);
}

static double col_real(sqlite3_stmt *st, int i)
{
    if (i < 0 || sqlite3_column_type(st, i) == SQLITE_NULL)
        return NAN;
    return sqlite3_column_double(st, i);
}

/* One value as text: integers in decimal, reals with %.6g, NULL as –. */
static void put_value(sb_buf *b, sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: sb_buf_puts(b, "<span class=\"null\">\xe2\x80\x93</span>"); break;
    case SQLITE_INTEGER: sb_buf_printf(b, "%lld", (long long)sqlite3_column_int64(st, i)); break;
    case SQLITE_FLOAT: sb_buf_printf(b, "%.6g", sqlite3_column_double(st, i)); break;
    default: sb_buf_xml_escaped(b, (const char *)sqlite3_column_text(st, i)); break;
    }
}

/* Every column but those named in skip (and run_id) as a two-column table. */
static void kv_table(sb_buf *b, const char *id, sqlite3_stmt *st, const char *const *skip)
{
    sb_buf_printf(b, "<table class=\"kv\" id=\"%s\">\n", id);
    for (int i = 0; i < sqlite3_column_count(st); i++) {
        const char *name = sqlite3_column_name(st, i);
        int skipped = strcmp(name, "run_id") == 0;
        for (size_t k = 0; skip && skip[k] && !skipped; k++)
            skipped = strcmp(skip[k], name) == 0;
        if (skipped)
            continue;
        sb_buf_printf(b, "<tr><th>%s</th><td data-field=\"%s\">", name, name);
        put_value(b, st, i);
        sb_buf_puts(b, "</td></tr>\n");
    }
    sb_buf_puts(b, "</table>\n");
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

#define STRIP_MAX 1000

/* Histogram of the samples (24 bins over [min, max]) with a strip of every
 * sample under it (up to STRIP_MAX samples) and the median marked. */
static void samples_svg(sb_buf *b, double *v, size_t n, long long run_id)
{
    qsort(v, n, sizeof *v, cmp_double);
    double lo = v[0], hi = v[n - 1];
    double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    if (!(hi > lo)) {
        double pad = lo > 0 ? lo * 0.01 : 1e-6;
        lo -= pad;
        hi += pad;
    }
    enum { W = 640, H = 240, L = 56, R = 16, T = 28, HB = 150, STRIP = 190, BINS = 24 };
    size_t bins[BINS] = {0}, top = 0;
    for (size_t i = 0; i < n; i++) {
        int k = (int)((v[i] - lo) / (hi - lo) * BINS);
        if (k >= BINS)
            k = BINS - 1;
        if (k < 0)
            k = 0;
        if (++bins[k] > top)
            top = bins[k];
    }
    char title[128], label[64], tip[128];
    snprintf(title, sizeof title, "Run %lld: %zu latency samples (ms)", run_id, n);
    sb_buf sv = SB_BUF_INIT;
    sb_svg_begin(&sv, W, H, title);
    sb_svg_text(&sv, L, 18, "start", 13, 0, "#222222", title);
    sb_scale x = {lo, hi, L, W - R, 0};
    sb_scale y = {0, (double)top, HB, T, 0};
    sb_svg_axis_linear_y(&sv, &y, L, W - R, top < 4 ? (int)top : 4, "samples");
    double bw = (double)(W - R - L) / BINS;
    for (int k = 0; k < BINS; k++) {
        if (!bins[k])
            continue;
        double y0 = sb_scale_map(&y, (double)bins[k]);
        char f0[32], f1[32];
        sb_fmt_sig3(lo + (hi - lo) * k / BINS, f0, sizeof f0);
        sb_fmt_sig3(lo + (hi - lo) * (k + 1) / BINS, f1, sizeof f1);
        snprintf(tip, sizeof tip, "%zu samples in [%s, %s) ms", bins[k], f0, f1);
        sb_svg_rect(&sv, L + k * bw + 1, y0, bw - 2, HB - y0, "#4c78a8", tip);
    }
    sb_svg_line(&sv, L, HB, W - R, HB, "#333333", 1, NULL);
    if (n <= STRIP_MAX) {
        for (size_t i = 0; i < n; i++) {
            double px = sb_scale_map(&x, v[i]);
            sb_buf_printf(&sv, "<line class=\"sample\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
                               "stroke=\"#4c78a8\" stroke-opacity=\"0.5\" stroke-width=\"1\"/>\n",
                          px, STRIP - 12, px, STRIP + 4);
        }
    } else {
        sb_svg_text(&sv, L, STRIP, "start", 11, 0, "#555555",
                    "strip of single samples left out above 1000 samples");
    }
    double pm = sb_scale_map(&x, med);
    sb_svg_line(&sv, pm, T, pm, STRIP + 6, "#d62728", 1.5, "4 3");
    sb_fmt_sig3(med, label, sizeof label);
    snprintf(tip, sizeof tip, "median %s ms", label);
    sb_svg_text(&sv, pm + 4, T + 10, "start", 11, 0, "#d62728", tip);
    for (int t = 0; t <= 4; t++) {
        double val = lo + (hi - lo) * t / 4;
        double px = sb_scale_map(&x, val);
        sb_svg_line(&sv, px, STRIP + 6, px, STRIP + 10, "#333333", 1, NULL);
        sb_fmt_sig3(val, label, sizeof label);
        sb_svg_text(&sv, px, STRIP + 24, t == 0 ? "start" : t == 4 ? "end" : "middle", 11, 0,
                    "#333333", label);
    }
    sb_svg_text(&sv, (L + W - R) / 2.0, H - 4, "middle", 11, 0, "#333333", "latency (ms)");
    sb_svg_end(&sv);
    site_inline_svg(b, &sv);
    sb_buf_free(&sv);
}

static const char *schema_short(const char *schema)
{
    if (!schema)
        return "?";
    if (strcmp(schema, "solbook.result.v1") == 0)
        return "result";
    if (strcmp(schema, "solbook.calibration.v1") == 0)
        return "calibration";
    if (strcmp(schema, "solbook.training.v1") == 0)
        return "training";
    return schema;
}

static void status_label(sb_buf *b, const char *status, int correct)
{
    if (!status)
        status = "unknown";
    if (strcmp(status, "passed") == 0 && correct != 0)
        site_status(b, "passed", "passed");
    else if (strcmp(status, "passed") == 0)
        site_status(b, "failed", "failed correctness");
    else if (strcmp(status, "skipped") == 0)
        site_status(b, "skipped", "skipped");
    else
        site_status(b, "failed", status);
}

typedef struct list_state {
    sb_buf b;
    size_t page, pages, rows;
} list_state;

static void list_name(char *buf, size_t size, size_t page, const void *arg)
{
    (void)arg;
    if (page <= 1)
        snprintf(buf, size, "index.html");
    else
        snprintf(buf, size, "page-%zu.html", page);
}

static void list_begin(list_state *l)
{
    sb_buf_reset(&l->b);
    site_pager(&l->b, l->page, l->pages, list_name, NULL);
    sb_buf_puts(&l->b, "<table class=\"sortable runs\"><thead><tr><th class=\"num\">run</th>"
                       "<th>kind</th><th>status</th><th>op</th><th>mode</th><th>dtype</th>"
                       "<th>shape</th><th>provider</th><th>SKU</th><th>commit</th>"
                       "<th>finished</th><th class=\"num\">median ms</th></tr></thead><tbody>\n");
}

static int list_end(site_ctx *c, list_state *l, sb_error *err)
{
    sb_buf_puts(&l->b, "</tbody></table>\n");
    site_pager(&l->b, l->page, l->pages, list_name, NULL);
    char rel[64], title[64];
    list_name(rel + 5, sizeof rel - 5, l->page, NULL);
    memcpy(rel, "runs/", 5);
    snprintf(title, sizeof title, "runs, page %zu of %zu", l->page, l->pages);
    return site_page(c, rel, 1, "runs", l->pages > 1 ? title : "runs", &l->b, err);
}

int site_build_runs(site_ctx *c, sb_error *err)
{
    long long total = 0;
    {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(c->db, "SELECT count(*) FROM runs", -1, &st, NULL) != SQLITE_OK ||
            sqlite3_step(st) != SQLITE_ROW) {
            sqlite3_finalize(st);
            return sb_error_set(err, c->o->db_path, NULL, "query failed: %s",
                                sqlite3_errmsg(c->db));
        }
        total = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    enum { RUNS, PROV, CONF, METR, CORR, SAMP, PROF, CEIL, TRAIN, NCUR };
    static const char *const sql[NCUR] = {
        "SELECT id AS run_id, schema, status, reason, run_uuid, source_path, source_format,"
        " ingested_at, notes, content_sha256, raw_json FROM runs ORDER BY id",
        "SELECT * FROM provenance ORDER BY run_id",
        "SELECT * FROM configs ORDER BY run_id",
        "SELECT * FROM metrics ORDER BY run_id",
        "SELECT * FROM correctness ORDER BY run_id",
        "SELECT run_id, value_ms FROM samples ORDER BY run_id, rep, idx",
        "SELECT run_id, kernel_index, kernel_name, metric, unit, value, source_path"
        " FROM profiler_metrics ORDER BY run_id, kernel_index, metric",
        "SELECT run_id, name, unit, value FROM ceilings ORDER BY run_id, name",
        "SELECT * FROM training ORDER BY run_id",
    };
    static const char *const names[NCUR] = {"runs", "provenance", "configs", "metrics",
                                            "correctness", "samples", "profiler_metrics",
                                            "ceilings", "training"};
    cursor k[NCUR];
    memset(k, 0, sizeof k);
    int rc = SB_ERR;
    sb_buf b = SB_BUF_INIT;
    double *samples = NULL;
    size_t scap = 0;
    list_state l;
    memset(&l, 0, sizeof l);
    l.pages = total ? ((size_t)total + c->page_rows - 1) / c->page_rows : 1;
    l.page = 1;
    for (int i = 0; i < NCUR; i++)
        if (cur_open(c, &k[i], names[i], sql[i], err) != SB_OK ||
            cur_step(c, &k[i], err) != SB_OK)
            goto done;
    sqlite3_stmt *rs = k[RUNS].st, *ps = k[PROV].st, *cs = k[CONF].st, *ms = k[METR].st,
                 *ks = k[CORR].st;
    int i_schema = col_index(rs, "schema"), i_status = col_index(rs, "status"),
        i_raw = col_index(rs, "raw_json"), i_notes = col_index(rs, "notes");
    int p_sha = col_index(ps, "git_sha"), p_sku = col_index(ps, "sku"),
        p_gpu = col_index(ps, "gpu_name"), p_fin = col_index(ps, "finished_at"),
        p_arch = col_index(ps, "arch");
    int c_op = col_index(cs, "op"), c_mode = col_index(cs, "mode"),
        c_dtype = col_index(cs, "dtype"), c_shape = col_index(cs, "shape_key"),
        c_prov = col_index(cs, "provider"), c_case = col_index(cs, "case_key");
    int m_med = col_index(ms, "median_ms");
    int k_pass = col_index(ks, "passed");
    static const char *const run_skip[] = {"raw_json", "notes", NULL};
    list_begin(&l);
    for (; k[RUNS].row; ) {
        long long id = k[RUNS].run_id;
        int at[NCUR] = {1};
        for (int i = 1; i < NCUR; i++)
            if (cur_seek(c, &k[i], id, &at[i], err) != SB_OK)
                goto done;
        const char *schema = col_text(rs, i_schema), *status = col_text(rs, i_status);
        int correct = at[CORR] && sqlite3_column_type(ks, k_pass) != SQLITE_NULL
                          ? sqlite3_column_int(ks, k_pass)
                          : -1;
        const char *op = at[CONF] ? col_text(cs, c_op) : NULL;
        const char *sku = at[PROV] ? col_text(ps, p_sku) : NULL;
        const char *case_key = at[CONF] ? col_text(cs, c_case) : NULL;
        char rel[128], hp[512], opp[256];
        /* raw JSON, byte for byte */
        site_run_path(rel, sizeof rel, id, "json");
        const char *raw = col_text(rs, i_raw);
        if (site_write(c, rel, raw ? raw : "", raw ? (size_t)sqlite3_column_bytes(rs, i_raw) : 0,
                       err) != SB_OK)
            goto done;
        /* list row */
        if (l.rows == c->page_rows) {
            if (list_end(c, &l, err) != SB_OK)
                goto done;
            l.page++;
            l.rows = 0;
            list_begin(&l);
        }
        sb_buf_printf(&l.b, "<tr><td class=\"num\"><a href=\"%lld/%lld.html\">%lld</a></td><td>",
                      id / 1000, id, id);
        site_h(&l.b, schema_short(schema));
        sb_buf_puts(&l.b, "</td><td>");
        status_label(&l.b, status, correct);
        sb_buf_puts(&l.b, "</td><td>");
        site_h(&l.b, op);
        sb_buf_puts(&l.b, "</td><td>");
        site_h(&l.b, at[CONF] ? col_text(cs, c_mode) : NULL);
        sb_buf_puts(&l.b, "</td><td>");
        site_h(&l.b, at[CONF] ? col_text(cs, c_dtype) : NULL);
        sb_buf_puts(&l.b, "</td><td>");
        site_h(&l.b, at[CONF] ? col_text(cs, c_shape) : NULL);
        sb_buf_puts(&l.b, "</td><td>");
        site_h(&l.b, at[CONF] ? col_text(cs, c_prov) : NULL);
        sb_buf_puts(&l.b, "</td><td>");
        site_h(&l.b, sku);
        sb_buf_puts(&l.b, "</td><td><code>");
        if (at[PROV] && col_text(ps, p_sha))
            sb_buf_printf(&l.b, "%.10s", col_text(ps, p_sha));
        sb_buf_puts(&l.b, "</code></td><td>");
        site_h(&l.b, at[PROV] ? col_text(ps, p_fin) : NULL);
        sb_buf_puts(&l.b, "</td><td class=\"num\">");
        site_num(&l.b, at[METR] ? col_real(ms, m_med) : NAN);
        sb_buf_puts(&l.b, "</td></tr>\n");
        l.rows++;

        /* the run's page */
        sb_buf_reset(&b);
        sb_buf_puts(&b, "<p class=\"lead\">");
        status_label(&b, status, correct);
        sb_buf_puts(&b, " ");
        site_h(&b, schema_short(schema));
        sb_buf_puts(&b, " run");
        if (op) {
            sb_buf_puts(&b, " of <b>");
            site_h(&b, op);
            sb_buf_puts(&b, "</b> ");
            site_h(&b, col_text(cs, c_mode));
            sb_buf_puts(&b, " ");
            site_h(&b, col_text(cs, c_dtype));
            sb_buf_puts(&b, " ");
            site_h(&b, col_text(cs, c_shape));
            sb_buf_puts(&b, ", provider ");
            site_h(&b, col_text(cs, c_prov));
        }
        if (at[PROV]) {
            sb_buf_puts(&b, " on <span class=\"gpu\">");
            site_h(&b, col_text(ps, p_gpu));
            sb_buf_puts(&b, "</span> (");
            site_h(&b, sku);
            sb_buf_puts(&b, ", ");
            site_h(&b, col_text(ps, p_arch));
            sb_buf_puts(&b, ")");
        }
        sb_buf_puts(&b, "</p>\n<ul class=\"links\">");
        sb_buf_printf(&b, "<li><a href=\"%lld.json\" type=\"application/json\">raw JSON</a> "
                          "(as stored, canonical)</li>",
                      id);
        if (op && sku && case_key) {
            site_history_path(hp, sizeof hp, case_key, sku, 1);
            site_op_path(opp, sizeof opp, op);
            sb_buf_puts(&b, "<li><a href=\"../../");
            sb_buf_xml_escaped(&b, hp);
            sb_buf_puts(&b, "\">history of this case on this SKU</a></li><li><a href=\"../../");
            sb_buf_xml_escaped(&b, opp);
            sb_buf_puts(&b, "\">op page</a></li>");
        }
        sb_buf_puts(&b, "<li><a href=\"../index.html\">all runs</a></li></ul>\n");
        const char *notes = col_text(rs, i_notes);
        if (notes) {
            sb_buf_puts(&b, "<h2>Notes</h2>\n<p class=\"notes\">");
            sb_buf_xml_escaped(&b, notes);
            sb_buf_puts(&b, "</p>\n");
        }
        sb_buf_puts(&b, "<h2>Run</h2>\n");
        kv_table(&b, "run", rs, run_skip);
        if (at[CONF]) {
            sb_buf_puts(&b, "<h2>Config and protocol</h2>\n");
            kv_table(&b, "config", cs, NULL);
        }
        if (at[PROV]) {
            sb_buf_puts(&b, "<h2>Provenance</h2>\n");
            kv_table(&b, "provenance", ps, NULL);
        }
        /* samples */
        size_t ns = 0;
        while (k[SAMP].row && k[SAMP].run_id == id) {
            if (ns == scap) {
                size_t nc = scap ? scap * 2 : 1024;
                double *nv = realloc(samples, nc * sizeof *nv);
                if (!nv) {
                    sb_error_set(err, NULL, NULL, "out of memory");
                    goto done;
                }
                samples = nv;
                scap = nc;
            }
            samples[ns++] = sqlite3_column_double(k[SAMP].st, 1);
            if (cur_step(c, &k[SAMP], err) != SB_OK)
                goto done;
        }
        if (ns) {
            sb_buf_printf(&b, "<h2>Samples</h2>\n<p>%zu samples stored.</p>\n", ns);
            samples_svg(&b, samples, ns, id);
        }
        if (at[METR]) {
            sb_buf_puts(&b, "<h2>Metrics</h2>\n");
            kv_table(&b, "metrics", ms, NULL);
        }
        if (at[CORR]) {
            sb_buf_puts(&b, "<h2>Correctness</h2>\n");
            kv_table(&b, "correctness", ks, NULL);
        }
        if (at[TRAIN]) {
            sb_buf_puts(&b, "<h2>Training step</h2>\n");
            kv_table(&b, "training", k[TRAIN].st, NULL);
        }
        if (at[CEIL]) {
            sb_buf_puts(&b, "<h2>Measured ceilings</h2>\n<table class=\"sortable\" id=\"ceilings\">"
                            "<thead><tr><th>name</th><th>unit</th><th class=\"num\">value</th>"
                            "</tr></thead><tbody>\n");
            while (k[CEIL].row && k[CEIL].run_id == id) {
                sqlite3_stmt *st = k[CEIL].st;
                sb_buf_puts(&b, "<tr><td>");
                put_value(&b, st, 1);
                sb_buf_puts(&b, "</td><td>");
                put_value(&b, st, 2);
                sb_buf_puts(&b, "</td><td class=\"num\">");
                put_value(&b, st, 3);
                sb_buf_puts(&b, "</td></tr>\n");
                if (cur_step(c, &k[CEIL], err) != SB_OK)
                    goto done;
            }
            sb_buf_puts(&b, "</tbody></table>\n");
        }
        if (at[PROF]) {
            sb_buf_puts(&b, "<h2>Nsight Compute metrics</h2>\n<table class=\"sortable\" "
                            "id=\"ncu\"><thead><tr><th class=\"num\">kernel</th><th>kernel name</th>"
                            "<th>metric</th><th>unit</th><th class=\"num\">value</th><th>file</th>"
                            "</tr></thead><tbody>\n");
            while (k[PROF].row && k[PROF].run_id == id) {
                sqlite3_stmt *st = k[PROF].st;
                sb_buf_puts(&b, "<tr><td class=\"num\">");
                for (int i = 1; i <= 6; i++) {
                    put_value(&b, st, i);
                    sb_buf_puts(&b, i == 6 ? "</td></tr>\n"
                                           : (i == 4 ? "</td><td class=\"num\">" : "</td><td>"));
                }
                if (cur_step(c, &k[PROF], err) != SB_OK)
                    goto done;
            }
            sb_buf_puts(&b, "</tbody></table>\n");
        } else if (op) {
            sb_buf_puts(&b, "<h2>Nsight Compute metrics</h2>\n<p class=\"empty\">No ncu profile "
                            "attached to this run.</p>\n");
        }
        char title[64];
        snprintf(title, sizeof title, "run %lld", id);
        site_run_path(rel, sizeof rel, id, "html");
        if (site_page(c, rel, 2, "runs", title, &b, err) != SB_OK)
            goto done;
        c->sum->runs++;
        if (cur_step(c, &k[RUNS], err) != SB_OK)
            goto done;
    }
    if (total == 0)
        sb_buf_puts(&l.b, "<tr><td colspan=\"12\" class=\"empty\">no runs stored</td></tr>\n");
    if (list_end(c, &l, err) != SB_OK)
        goto done;
    rc = SB_OK;
done:
    for (int i = 0; i < NCUR; i++)
        sqlite3_finalize(k[i].st);
    free(samples);
    sb_buf_free(&b);
    sb_buf_free(&l.b);
    return rc;
}

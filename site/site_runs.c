/* site_runs.c - one page per run and the paginated list of runs, in one
 * pass over the database: one statement per table, each ordered by run
 * id, merged like sorted lists (no query per page). */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_internal.h"
#include "svg.h" /* sb_fmt_sig3 */

/* A statement over one table ordered by run_id (column 0), stepped along
 * with the runs. */
typedef struct cursor {
    sqlite3_stmt *st;
    int row;            /* 1 while positioned on a row */
    long long run_id;
    const char *table;
} cursor;

static int cur_open(site_ctx *c, cursor *k, const char *table, const char *sql, long long lo,
                    long long hi, sb_error *err)
{
    memset(k, 0, sizeof *k);
    k->table = table;
    if (sqlite3_prepare_v2(c->db, sql, -1, &k->st, NULL) != SQLITE_OK)
        return sb_error_set(err, c->o->db_path, NULL, "query of %s failed: %s", table,
                            sqlite3_errmsg(c->db));
    sqlite3_bind_int64(k->st, 1, lo);
    sqlite3_bind_int64(k->st, 2, hi);
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
    case SQLITE_INTEGER: site_put_ll(b, (long long)sqlite3_column_int64(st, i)); break;
    case SQLITE_FLOAT: {
        double d = sqlite3_column_double(st, i);
        if (fabs(d) < 1e15 && d == (double)(long long)d)
            site_put_ll(b, (long long)d);
        else
            site_printf(b, "%.6g", d);
        break;
    }
    default: site_esc(b, (const char *)sqlite3_column_text(st, i)); break;
    }
}

/* Every column but those named in skip (and run_id) as a two-column table. */
static void kv_table(sb_buf *b, const char *id, sqlite3_stmt *st, const char *const *skip)
{
    site_printf(b, "<table class=\"kv\" id=\"%s\">\n", id);
    for (int i = 0; i < sqlite3_column_count(st); i++) {
        const char *name = sqlite3_column_name(st, i);
        int skipped = strcmp(name, "run_id") == 0;
        for (size_t k = 0; skip && skip[k] && !skipped; k++)
            skipped = strcmp(skip[k], name) == 0;
        if (skipped)
            continue;
        sb_buf_puts(b, "<tr><th>");
        sb_buf_puts(b, name);
        sb_buf_puts(b, "</th><td data-field=\"");
        sb_buf_puts(b, name);
        sb_buf_puts(b, "\">");
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
 * sample under it (up to STRIP_MAX samples) and the median marked. Drawn
 * here rather than with svg.h: a run page is built 100,000 times over, so
 * coordinates are written without printf. */
static void coord(sb_buf *b, const char *name, double v)
{
    sb_buf_putc(b, ' ');
    sb_buf_puts(b, name);
    sb_buf_puts(b, "=\"");
    site_put_fixed2(b, v);
    sb_buf_putc(b, '"');
}

static void text_at(sb_buf *b, double x, double y, const char *anchor, const char *fill,
                    const char *text)
{
    sb_buf_puts(b, "<text");
    coord(b, "x", x);
    coord(b, "y", y);
    sb_buf_puts(b, " text-anchor=\"");
    sb_buf_puts(b, anchor);
    sb_buf_puts(b, "\" font-size=\"11\" fill=\"");
    sb_buf_puts(b, fill);
    sb_buf_puts(b, "\">");
    site_esc(b, text);
    sb_buf_puts(b, "</text>\n");
}

static void line_at(sb_buf *b, const char *cls, double x1, double y1, double x2, double y2,
                    const char *stroke)
{
    sb_buf_puts(b, "<line");
    if (cls) {
        sb_buf_puts(b, " class=\"");
        sb_buf_puts(b, cls);
        sb_buf_putc(b, '"');
    }
    coord(b, "x1", x1);
    coord(b, "y1", y1);
    coord(b, "x2", x2);
    coord(b, "y2", y2);
    sb_buf_puts(b, " stroke=\"");
    sb_buf_puts(b, stroke);
    sb_buf_puts(b, "\"/>\n");
}

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
    char label[64], tip[160];
    sb_buf_puts(b, "<figure class=\"plot\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
                   "class=\"samples\" width=\"640\" height=\"240\" viewBox=\"0 0 640 240\" "
                   "font-family=\"sans-serif\"><title>Run ");
    site_put_ll(b, run_id);
    sb_buf_puts(b, ": latency samples</title>\n<rect x=\"0\" y=\"0\" width=\"640\" "
                   "height=\"240\" fill=\"#ffffff\"/>\n<text x=\"56\" y=\"18\" font-size=\"13\" "
                   "fill=\"#222222\">");
    site_put_ll(b, (long long)n);
    sb_buf_puts(b, " latency samples (ms): histogram, every sample below, median dashed</text>\n");
    /* y axis: sample counts */
    for (int t = 0; t <= 4; t++) {
        double cnt = (double)top * t / 4, py = HB - (HB - T) * (double)t / 4;
        if (t > 0 && top < 4 && (double)(long long)cnt != cnt)
            continue;
        line_at(b, NULL, L, py, W - R, py, "#eeeeee");
        snprintf(label, sizeof label, "%lld", (long long)cnt);
        text_at(b, L - 6, py + 4, "end", "#333333", label);
    }
    text_at(b, 14, (T + HB) / 2.0, "middle", "#333333", "n");
    double bw = (double)(W - R - L) / BINS;
    for (int k = 0; k < BINS; k++) {
        if (!bins[k])
            continue;
        double y0 = HB - (HB - T) * (double)bins[k] / (double)top;
        sb_buf_puts(b, "<rect class=\"bin\"");
        coord(b, "x", L + k * bw + 1);
        coord(b, "y", y0);
        coord(b, "width", bw - 2);
        coord(b, "height", HB - y0);
        sb_buf_puts(b, " fill=\"#4c78a8\"><title>");
        site_put_ll(b, (long long)bins[k]);
        sb_buf_puts(b, bins[k] == 1 ? " sample" : " samples");
        sb_buf_puts(b, "</title></rect>\n");
    }
    line_at(b, NULL, L, HB, W - R, HB, "#333333");
    double span = (double)(W - R - L) / (hi - lo);
    if (n <= STRIP_MAX) {
        sb_buf_puts(b, "<g stroke=\"#4c78a8\" stroke-opacity=\"0.5\">\n");
        for (size_t i = 0; i < n; i++) {
            double px = L + (v[i] - lo) * span;
            sb_buf_puts(b, "<line class=\"sample\"");
            coord(b, "x1", px);
            sb_buf_puts(b, " y1=\"178\"");
            coord(b, "x2", px);
            sb_buf_puts(b, " y2=\"194\"/>\n");
        }
        sb_buf_puts(b, "</g>\n");
    } else {
        text_at(b, L, STRIP, "start", "#555555", "strip of single samples left out above 1000 samples");
    }
    double pm = L + (med - lo) * span;
    sb_buf_puts(b, "<line class=\"median\"");
    coord(b, "x1", pm);
    coord(b, "y1", T);
    coord(b, "x2", pm);
    coord(b, "y2", STRIP + 6);
    sb_buf_puts(b, " stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n");
    sb_fmt_sig3(med, label, sizeof label);
    snprintf(tip, sizeof tip, "median %s ms", label);
    text_at(b, pm + 4, T + 10, "start", "#d62728", tip);
    /* tick labels with enough decimals to tell the ticks apart */
    double step = (hi - lo) / 4;
    int dec = step > 0 ? (int)ceil(-log10(step)) + 1 : 3;
    if (dec < 0)
        dec = 0;
    if (dec > 9)
        dec = 9;
    for (int t = 0; t <= 4; t++) {
        double val = lo + (hi - lo) * t / 4;
        double px = L + (val - lo) * span;
        line_at(b, NULL, px, STRIP + 6, px, STRIP + 10, "#333333");
        snprintf(label, sizeof label, "%.*f", dec, val);
        text_at(b, px, STRIP + 24, t == 0 ? "start" : t == 4 ? "end" : "middle", "#333333", label);
    }
    text_at(b, (L + W - R) / 2.0, H - 4, "middle", "#333333", "latency (ms)");
    sb_buf_puts(b, "</svg></figure>\n");
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

/* Run pages of runs with lo <= id < hi, and run list pages first_page on
 * (pages in all). */
static int runs_range(site_ctx *c, long long lo, long long hi, size_t first_page, size_t pages,
                      int empty_db, sb_error *err)
{
    enum { RUNS, PROV, CONF, METR, CORR, SAMP, PROF, CEIL, TRAIN, NCUR };
    static const char *const sql[NCUR] = {
        "SELECT id AS run_id, schema, status, reason, run_uuid, source_path, source_format,"
        " ingested_at, notes, content_sha256, raw_json FROM runs WHERE id >= ?1 AND id < ?2"
        " ORDER BY id",
        "SELECT * FROM provenance WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
        "SELECT * FROM configs WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
        "SELECT * FROM metrics WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
        "SELECT * FROM correctness WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
        "SELECT run_id, value_ms FROM samples WHERE run_id >= ?1 AND run_id < ?2"
        " ORDER BY run_id, rep, idx",
        "SELECT run_id, kernel_index, kernel_name, metric, unit, value, source_path"
        " FROM profiler_metrics WHERE run_id >= ?1 AND run_id < ?2"
        " ORDER BY run_id, kernel_index, metric",
        "SELECT run_id, name, unit, value FROM ceilings WHERE run_id >= ?1 AND run_id < ?2"
        " ORDER BY run_id, name",
        "SELECT * FROM training WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
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
    l.pages = pages;
    l.page = first_page;
    for (int i = 0; i < NCUR; i++)
        if (cur_open(c, &k[i], names[i], sql[i], lo, hi, err) != SB_OK ||
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
    int m_med = col_index(ms, "median_ms"), m_p20 = col_index(ms, "p20_ms"),
        m_p80 = col_index(ms, "p80_ms"), m_tf = col_index(ms, "tflops"), m_gb = col_index(ms, "gbps");
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
        site_printf(&l.b, "<tr><td class=\"num\"><a href=\"%lld/%lld.html\">%lld</a></td><td>",
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
            site_printf(&l.b, "%.10s", col_text(ps, p_sha));
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
        sb_buf_puts(&b, "</p>\n");
        if (at[METR] && sqlite3_column_type(ms, m_med) != SQLITE_NULL) {
            sb_buf_puts(&b, "<p class=\"figures\">median <b>");
            site_num(&b, col_real(ms, m_med));
            sb_buf_puts(&b, " ms</b> (p20 ");
            site_num(&b, col_real(ms, m_p20));
            sb_buf_puts(&b, ", p80 ");
            site_num(&b, col_real(ms, m_p80));
            sb_buf_puts(&b, " ms)");
            if (!isnan(col_real(ms, m_tf))) {
                sb_buf_puts(&b, " \xc2\xb7 ");
                site_num(&b, col_real(ms, m_tf));
                sb_buf_puts(&b, " TFLOP/s");
            }
            if (!isnan(col_real(ms, m_gb))) {
                sb_buf_puts(&b, " \xc2\xb7 ");
                site_num(&b, col_real(ms, m_gb));
                sb_buf_puts(&b, " GB/s");
            }
            if (correct == 0)
                sb_buf_puts(&b, " \xc2\xb7 <b>correctness failed: these figures do not count</b>");
            sb_buf_puts(&b, "</p>\n");
        }
        sb_buf_puts(&b, "<ul class=\"links\">");
        site_printf(&b, "<li><a href=\"%lld.json\" type=\"application/json\">raw JSON</a> "
                          "(as stored, canonical)</li>",
                      id);
        if (op && sku && case_key) {
            site_history_path(hp, sizeof hp, case_key, sku, 1);
            site_op_path(opp, sizeof opp, op);
            sb_buf_puts(&b, "<li><a href=\"../../");
            site_esc(&b, hp);
            sb_buf_puts(&b, "\">history of this case on this SKU</a></li><li><a href=\"../../");
            site_esc(&b, opp);
            sb_buf_puts(&b, "\">op page</a></li>");
        }
        sb_buf_puts(&b, "<li><a href=\"../index.html\">all runs</a></li></ul>\n");
        const char *notes = col_text(rs, i_notes);
        if (notes) {
            sb_buf_puts(&b, "<h2>Notes</h2>\n<p class=\"notes\">");
            site_esc(&b, notes);
            sb_buf_puts(&b, "</p>\n");
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
            sb_buf_puts(&b, "<h2>Samples</h2>\n");
            samples_svg(&b, samples, ns, id);
        }
        if (at[METR] || at[CORR]) {
            sb_buf_puts(&b, "<div class=\"kv-grid\">");
            if (at[METR]) {
                sb_buf_puts(&b, "<section><h2>Metrics</h2>\n");
                kv_table(&b, "metrics", ms, NULL);
                sb_buf_puts(&b, "</section>");
            }
            if (at[CORR]) {
                sb_buf_puts(&b, "<section><h2>Correctness</h2>\n");
                kv_table(&b, "correctness", ks, NULL);
                sb_buf_puts(&b, "</section>");
            }
            sb_buf_puts(&b, "</div>\n");
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
        sb_buf_puts(&b, "<div class=\"kv-grid\">");
        if (at[CONF]) {
            sb_buf_puts(&b, "<section><h2>Config and protocol</h2>\n");
            kv_table(&b, "config", cs, NULL);
            sb_buf_puts(&b, "</section>");
        }
        if (at[PROV]) {
            sb_buf_puts(&b, "<section><h2>Provenance</h2>\n");
            kv_table(&b, "provenance", ps, NULL);
            sb_buf_puts(&b, "</section>");
        }
        sb_buf_puts(&b, "<section><h2>Run</h2>\n");
        kv_table(&b, "run", rs, run_skip);
        sb_buf_puts(&b, "</section></div>\n");
        char title[64];
        snprintf(title, sizeof title, "run %lld", id);
        site_run_path(rel, sizeof rel, id, "html");
        if (site_page(c, rel, 2, "runs", title, &b, err) != SB_OK)
            goto done;
        c->sum->runs++;
        if (cur_step(c, &k[RUNS], err) != SB_OK)
            goto done;
    }
    if (empty_db)
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

typedef struct runs_job {
    site_ctx c;
    sb_site_summary sum;
    long long lo;
    size_t first_page, pages;
    sb_error err;
    int rc;
} runs_job;

static void *runs_main(void *arg)
{
    runs_job *j = arg;
    j->rc = runs_range(&j->c, j->lo, LLONG_MAX, j->first_page, j->pages, 0, &j->err);
    return NULL;
}

/* Below this many runs one thread does all the run pages. */
#define SPLIT_MIN_RUNS 2000

int site_build_runs(site_ctx *c, sb_error *err)
{
    long long total = 0, mid = LLONG_MAX;
    size_t pages, split = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c->db, "SELECT count(*) FROM runs", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_error_set(err, c->o->db_path, NULL, "query failed: %s", sqlite3_errmsg(c->db));
    }
    total = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    pages = total ? ((size_t)total + c->page_rows - 1) / c->page_rows : 1;
    if (total >= SPLIT_MIN_RUNS && pages >= 2 && sqlite3_threadsafe()) {
        /* the second half starts on a list page boundary */
        split = pages / 2 + 1;
        st = NULL;
        if (sqlite3_prepare_v2(c->db, "SELECT id FROM runs ORDER BY id LIMIT 1 OFFSET ?1", -1, &st,
                               NULL) != SQLITE_OK) {
            return sb_error_set(err, c->o->db_path, NULL, "query failed: %s",
                                sqlite3_errmsg(c->db));
        }
        sqlite3_bind_int64(st, 1, (long long)((split - 1) * c->page_rows));
        if (sqlite3_step(st) == SQLITE_ROW)
            mid = sqlite3_column_int64(st, 0);
        else
            split = 0;
        sqlite3_finalize(st);
    }
    if (!split)
        return runs_range(c, LLONG_MIN, LLONG_MAX, 1, pages, total == 0, err);
    runs_job *j = calloc(1, sizeof *j);
    if (!j)
        return sb_error_set(err, NULL, NULL, "out of memory");
    if (site_ctx_clone(c, &j->c, &j->sum, err) != SB_OK) {
        free(j);
        return SB_ERR;
    }
    j->lo = mid;
    j->first_page = split;
    j->pages = pages;
    pthread_t th;
    int e = pthread_create(&th, NULL, runs_main, j);
    if (e != 0) {
        site_ctx_release(c, &j->c);
        free(j);
        return sb_error_set(err, NULL, NULL, "cannot start a thread: %s", strerror(e));
    }
    int rc = runs_range(c, LLONG_MIN, mid, 1, pages, 0, err);
    pthread_join(th, NULL);
    site_ctx_release(c, &j->c);
    if (rc == SB_OK && j->rc != SB_OK) {
        *err = j->err;
        rc = SB_ERR;
    }
    free(j);
    return rc;
}

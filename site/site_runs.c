/* site_runs.c - the runs, SITE_RUNS_PER_PAGE to a page by id (runs/G.html,
 * G = id / SITE_RUNS_PER_PAGE, one row a run with anchor rID), each page's
 * raw JSON and Nsight Compute metrics beside it gzip-compressed, and the
 * index of the pages; in one pass over the database: one statement per
 * table, each ordered by run id, merged like sorted lists. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "site_internal.h"
#include <zlib.h>

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

/* ---- gzip files ---- */

/* A gzip member written to memory (zlib's deflate with the gzip wrapper). */
typedef struct gz {
    z_stream z;
    sb_buf out;
    int ok;
} gz;

static void gz_begin(gz *g)
{
    memset(g, 0, sizeof *g);
    g->out = (sb_buf)SB_BUF_INIT;
    /* level 6: a quarter smaller than level 1 on stored results, and the
     * raw JSON is a small part of a build's time */
    g->ok = deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
}

static void gz_run(gz *g, const void *data, size_t len, int flush)
{
    if (!g->ok)
        return;
    g->z.next_in = (Bytef *)(uintptr_t)data;
    g->z.avail_in = (uInt)len;
    unsigned char chunk[1 << 15];
    int r;
    do {
        g->z.next_out = chunk;
        g->z.avail_out = sizeof chunk;
        r = deflate(&g->z, flush);
        if (r == Z_STREAM_ERROR) {
            g->ok = 0;
            return;
        }
        sb_buf_add(&g->out, (const char *)chunk, sizeof chunk - g->z.avail_out);
    } while (g->z.avail_out == 0 || (flush == Z_FINISH && r != Z_STREAM_END));
}

static void gz_add(gz *g, const char *data, size_t len)
{
    gz_run(g, data, len, Z_NO_FLUSH);
}

/* Finishes and writes OUT/rel; nothing is written when nothing was added. */
static int gz_write(site_ctx *c, gz *g, const char *rel, sb_error *err)
{
    int rc = SB_OK;
    if (g->ok && g->z.total_in) {
        gz_run(g, "", 0, Z_FINISH);
        if (!g->ok || sb_buf_failed(&g->out))
            rc = sb_error_set(err, c->o->out_dir, NULL, "cannot compress %s", rel);
        else
            rc = site_write(c, rel, sb_buf_str(&g->out), g->out.len, err);
    } else if (!g->ok) {
        rc = sb_error_set(err, c->o->out_dir, NULL, "cannot compress %s", rel);
    }
    deflateEnd(&g->z);
    sb_buf_free(&g->out);
    return rc;
}

/* ---- the small figures of a run row ---- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The sample distribution as a 16-bin histogram in one cell: a bar of
 * eighth blocks (U+2581 to U+2588) per bin, a space for an empty one, and
 * the count and range as the cell's title. Text, not a drawing: about a
 * quarter of the bytes of an SVG, for a row of a page of many runs. */
static void spark(sb_buf *b, double *v, size_t n)
{
    enum { BINS = 16 };
    qsort(v, n, sizeof *v, cmp_double);
    double lo = v[0], hi = v[n - 1];
    size_t bins[BINS] = {0}, top = 0;
    for (size_t i = 0; i < n; i++) {
        int k = hi > lo ? (int)((v[i] - lo) / (hi - lo) * BINS) : BINS / 2;
        if (k >= BINS)
            k = BINS - 1;
        if (++bins[k] > top)
            top = bins[k];
    }
    char a[32], z[32];
    sb_fmt_sig3(lo, a, sizeof a);
    sb_fmt_sig3(hi, z, sizeof z);
    sb_buf_puts(b, "<td class=\"dist\" title=\"");
    site_put_ll(b, (long long)n);
    sb_buf_puts(b, " samples, ");
    sb_buf_puts(b, a);
    sb_buf_puts(b, " to ");
    sb_buf_puts(b, z);
    sb_buf_puts(b, " ms\">");
    for (int k = 0; k < BINS; k++) {
        if (!bins[k]) {
            sb_buf_putc(b, ' ');
            continue;
        }
        long long h = (long long)((double)bins[k] / (double)top * 8 + 0.5);
        if (h < 1)
            h = 1;
        char block[3] = {'\xe2', '\x96', (char)(0x80 + h)}; /* U+2580 + h */
        sb_buf_add(b, block, 3);
    }
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

static void status_label(sb_buf *b, const char *status, int correct, const char *profiler)
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
    if (profiler) {
        sb_buf_puts(b, " <span class=\"st st-skipped profiled\" title=\"timed under a profiler: "
                       "metrics kept, never used as a timing\">under ");
        site_esc(b, profiler);
        sb_buf_puts(b, "</span>");
    }
}

long long site_run_page(long long run_id)
{
    return run_id / SITE_RUNS_PER_PAGE;
}

/* ---- the index of run pages ---- */

typedef struct block {
    long long page, runs, first, last;
} block;

static void index_name(char *buf, size_t size, size_t page, const void *arg)
{
    (void)arg;
    if (page <= 1)
        snprintf(buf, size, "index.html");
    else
        snprintf(buf, size, "index-%zu.html", page);
}

static int write_index(site_ctx *c, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT id / %d, count(*), min(id), max(id) FROM runs GROUP BY 1 ORDER BY 1",
             SITE_RUNS_PER_PAGE);
    if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK)
        return sb_error_set(err, c->o->db_path, NULL, "query failed: %s", sqlite3_errmsg(c->db));
    block *v = NULL;
    size_t n = 0, cap = 0;
    long long total = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            block *nv = realloc(v, cap * sizeof *nv);
            if (!nv) {
                s = SQLITE_NOMEM;
                break;
            }
            v = nv;
        }
        v[n++] = (block){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                         sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)};
        total += v[n - 1].runs;
    }
    sqlite3_finalize(st);
    if (s != SQLITE_DONE) {
        free(v);
        return sb_error_set(err, c->o->db_path, NULL, "query failed: %s",
                            s == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(c->db));
    }
    size_t pages = n ? (n + c->page_rows - 1) / c->page_rows : 1;
    sb_buf b = SB_BUF_INIT;
    int rc = SB_OK;
    for (size_t pg = 1; pg <= pages && rc == SB_OK; pg++) {
        sb_buf_reset(&b);
        sb_buf_printf(&b, "<p class=\"note\">%lld runs, %d to a page by run id; each page has "
                          "its runs' raw JSON beside it (gzip, JSON Lines, one run a line, as "
                          "stored) and, where runs have one, their Nsight Compute metrics (gzip, "
                          "CSV).</p>\n",
                      total, SITE_RUNS_PER_PAGE);
        site_pager(&b, pg, pages, index_name, NULL);
        sb_buf_puts(&b, "<table class=\"sortable runs-index\"><thead><tr><th>page</th>"
                        "<th class=\"num\">runs</th><th class=\"num\">first id</th>"
                        "<th class=\"num\">last id</th></tr></thead><tbody>\n");
        if (!n)
            sb_buf_puts(&b, "<tr><td colspan=\"4\" class=\"empty\">no runs stored</td></tr>\n");
        size_t from = (pg - 1) * c->page_rows, to = from + c->page_rows;
        for (size_t i = from; i < to && i < n; i++)
            site_printf(&b, "<tr><td><a href=\"%lld.html\">runs %lld to %lld</a></td>"
                            "<td class=\"num\">%lld</td><td class=\"num\">%lld</td>"
                            "<td class=\"num\">%lld</td></tr>\n",
                        v[i].page, v[i].page * SITE_RUNS_PER_PAGE,
                        v[i].page * SITE_RUNS_PER_PAGE + SITE_RUNS_PER_PAGE - 1, v[i].runs,
                        v[i].first, v[i].last);
        sb_buf_puts(&b, "</tbody></table>\n");
        site_pager(&b, pg, pages, index_name, NULL);
        char rel[64], title[64];
        memcpy(rel, "runs/", 5);
        index_name(rel + 5, sizeof rel - 5, pg, NULL);
        snprintf(title, sizeof title, "runs, page %zu of %zu", pg, pages);
        rc = site_page(c, rel, 1, "runs", pages > 1 ? title : "runs", &b, err);
    }
    sb_buf_free(&b);
    free(v);
    return rc;
}

/* ---- run pages ---- */

typedef struct page_state {
    long long page;   /* -1: none open */
    sb_buf b;
    gz raw, ncu;
} page_state;

static void page_open(page_state *ps, long long page)
{
    ps->page = page;
    sb_buf_reset(&ps->b);
    gz_begin(&ps->raw);
    gz_begin(&ps->ncu);
    gz_add(&ps->ncu, "run_id,kernel_index,kernel_name,metric,unit,value,source_path\n",
           sizeof "run_id,kernel_index,kernel_name,metric,unit,value,source_path\n" - 1);
    ps->ncu.z.total_in = 0; /* the header alone is no file */
    site_printf(&ps->b,
                "<p class=\"note\">Runs %lld to %lld. Raw JSON of each run, as stored, one a line "
                "in the order of this table: <a href=\"%lld.jsonl.gz\" "
                "type=\"application/gzip\">%lld.jsonl.gz</a>. Runs "
                "marked <i>under ncu</i> were timed under a profiler: their figures are kept "
                "but never count as timings. <a href=\"index.html\">All run pages</a>.</p>\n"
                "<table class=\"sortable runs\"><thead><tr><th class=\"num\">run</th><th>kind</th>"
                "<th>status</th><th>op</th><th>mode</th><th>dtype</th><th>shape</th>"
                "<th>params</th><th>provider</th><th>suite</th><th>SKU</th><th>GPU</th>"
                "<th>commit</th><th>finished</th><th class=\"num\">samples</th>"
                "<th class=\"num\">median ms</th><th class=\"num\">p20 ms</th>"
                "<th class=\"num\">p80 ms</th><th>distribution</th><th class=\"num\">TFLOP/s</th>"
                "<th class=\"num\">GB/s</th><th>more</th></tr></thead><tbody>\n",
                page * SITE_RUNS_PER_PAGE, page * SITE_RUNS_PER_PAGE + SITE_RUNS_PER_PAGE - 1, page,
                page);
}

static int page_close(site_ctx *c, page_state *ps, sb_error *err)
{
    if (ps->page < 0)
        return SB_OK;
    sb_buf_puts(&ps->b, "</tbody></table>\n");
    char rel[96], title[96];
    snprintf(rel, sizeof rel, "runs/%lld.html", ps->page);
    snprintf(title, sizeof title, "runs %lld to %lld", ps->page * SITE_RUNS_PER_PAGE,
             ps->page * SITE_RUNS_PER_PAGE + SITE_RUNS_PER_PAGE - 1);
    int rc = site_page(c, rel, 1, "runs", title, &ps->b, err);
    snprintf(rel, sizeof rel, "runs/%lld.jsonl.gz", ps->page);
    if (gz_write(c, &ps->raw, rel, err) != SB_OK)
        rc = SB_ERR;
    snprintf(rel, sizeof rel, "runs/%lld-ncu.csv.gz", ps->page);
    if (gz_write(c, &ps->ncu, rel, err) != SB_OK)
        rc = SB_ERR;
    ps->page = -1;
    return rc;
}

/* Cells of the run rows. A page holds a hundred rows of twenty-two
 * cells, so they are written without their optional end tags (HTML5:
 * a td ends at the next td or at the row's end), as are the rows. */
static void td(sb_buf *b, const char *s)
{
    sb_buf_puts(b, "<td>");
    site_h(b, s);
}

/* A number cell: table.runs right-aligns its number columns in
 * assets/site.css, so the cells carry no class. */
static void td_num(sb_buf *b, double v)
{
    sb_buf_puts(b, "<td>");
    site_num(b, v);
}

/* Run pages of runs with lo <= id < hi (lo and hi on page boundaries). */
static int runs_range(site_ctx *c, long long lo, long long hi, sb_error *err)
{
    enum { RUNS, PROV, CONF, METR, CORR, SAMP, PROF, CEIL, TRAIN, NCUR };
    static const char *const sql[NCUR] = {
        "SELECT id AS run_id, schema, status, notes, raw_json FROM runs WHERE id >= ?1 AND id < ?2"
        " ORDER BY id",
        "SELECT run_id, git_sha, sku, gpu_name, finished_at FROM provenance"
        " WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
        "SELECT run_id, op, mode, dtype, shape_key, params_json, provider, suite, case_key, profiler"
        " FROM configs WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
        "SELECT run_id, median_ms, p20_ms, p80_ms, tflops, gbps, sample_count FROM metrics"
        " WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
        "SELECT run_id, passed FROM correctness WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
        "SELECT run_id, value_ms FROM samples WHERE run_id >= ?1 AND run_id < ?2"
        " ORDER BY run_id, rep, idx",
        "SELECT run_id, kernel_index, kernel_name, metric, unit, value, source_path"
        " FROM profiler_metrics WHERE run_id >= ?1 AND run_id < ?2"
        " ORDER BY run_id, kernel_index, metric",
        "SELECT run_id, name, unit, value FROM ceilings WHERE run_id >= ?1 AND run_id < ?2"
        " ORDER BY run_id, name",
        "SELECT run_id, model_name, median_step_ms, tokens_per_s FROM training"
        " WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
    };
    static const char *const names[NCUR] = {"runs", "provenance", "configs", "metrics",
                                            "correctness", "samples", "profiler_metrics",
                                            "ceilings", "training"};
    cursor k[NCUR];
    memset(k, 0, sizeof k);
    int rc = SB_ERR;
    double *samples = NULL;
    size_t scap = 0;
    page_state ps;
    memset(&ps, 0, sizeof ps);
    ps.page = -1;
    ps.b = (sb_buf)SB_BUF_INIT;
    sb_buf line = SB_BUF_INIT;
    for (int i = 0; i < NCUR; i++)
        if (cur_open(c, &k[i], names[i], sql[i], lo, hi, err) != SB_OK ||
            cur_step(c, &k[i], err) != SB_OK)
            goto done;
    sqlite3_stmt *rs = k[RUNS].st, *ps_ = k[PROV].st, *cs = k[CONF].st, *ms = k[METR].st,
                 *ks = k[CORR].st, *ts = k[TRAIN].st;
    for (; k[RUNS].row;) {
        long long id = k[RUNS].run_id;
        int at[NCUR] = {1};
        for (int i = 1; i < NCUR; i++)
            if (cur_seek(c, &k[i], id, &at[i], err) != SB_OK)
                goto done;
        if (site_run_page(id) != ps.page) {
            if (page_close(c, &ps, err) != SB_OK)
                goto done;
            page_open(&ps, site_run_page(id));
        }
        sb_buf *b = &ps.b;
        const char *schema = col_text(rs, 1), *status = col_text(rs, 2), *notes = col_text(rs, 3);
        const char *raw = col_text(rs, 4);
        gz_add(&ps.raw, raw ? raw : "{}", raw ? (size_t)sqlite3_column_bytes(rs, 4) : 2);
        gz_add(&ps.raw, "\n", 1);
        int correct = at[CORR] && sqlite3_column_type(ks, 1) != SQLITE_NULL
                          ? sqlite3_column_int(ks, 1)
                          : -1;
        const char *op = at[CONF] ? col_text(cs, 1) : NULL;
        const char *sku = at[PROV] ? col_text(ps_, 2) : NULL;
        const char *case_key = at[CONF] ? col_text(cs, 8) : NULL;
        const char *profiler = at[CONF] ? col_text(cs, 9) : NULL;
        sb_buf_puts(b, "<tr id=\"r");
        site_put_ll(b, id);
        sb_buf_puts(b, "\"><td>");
        site_put_ll(b, id);
        td(b, schema_short(schema));
        sb_buf_puts(b, "<td>");
        status_label(b, status, correct, profiler);
        if (at[CONF]) {
            td(b, op);
            td(b, col_text(cs, 2));
            td(b, col_text(cs, 3));
            td(b, col_text(cs, 4));
            const char *pj = col_text(cs, 5);
            td(b, pj && strcmp(pj, "{}") ? pj : NULL);
            td(b, col_text(cs, 6));
            td(b, col_text(cs, 7));
        } else {
            const char *model = at[TRAIN] ? col_text(ts, 1) : NULL;
            td(b, at[TRAIN] ? "training step" : NULL);
            for (int i = 0; i < 6; i++)
                td(b, i == 2 ? model : NULL);
        }
        td(b, sku);
        sb_buf_puts(b, "<td class=\"gpu\">");
        site_h(b, at[PROV] ? col_text(ps_, 3) : NULL);
        sb_buf_puts(b, "<td><code>");
        if (at[PROV] && col_text(ps_, 1))
            site_printf(b, "%.10s", col_text(ps_, 1));
        sb_buf_puts(b, "</code>");
        td(b, at[PROV] ? col_text(ps_, 4) : NULL);
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
        sb_buf_puts(b, "<td>");
        if (ns)
            site_put_ll(b, (long long)ns);
        else if (at[METR] && sqlite3_column_type(ms, 6) != SQLITE_NULL)
            site_put_ll(b, sqlite3_column_int64(ms, 6));
        double med = at[METR] ? col_real(ms, 1) : at[TRAIN] ? col_real(ts, 2) : NAN;
        sb_buf_puts(b, "<td data-field=\"median_ms\">");
        site_num(b, med);
        td_num(b, at[METR] ? col_real(ms, 2) : NAN);
        td_num(b, at[METR] ? col_real(ms, 3) : NAN);
        if (ns)
            spark(b, samples, ns);
        else
            sb_buf_puts(b, "<td>");
        td_num(b, at[METR] ? col_real(ms, 4) : NAN);
        td_num(b, at[METR] ? col_real(ms, 5) : NAN);
        sb_buf_puts(b, "<td>");
        if (op && sku && case_key) {
            char hp[512];
            site_history_path(hp, sizeof hp, case_key, sku, 1);
            sb_buf_puts(b, "<a href=\"../");
            site_esc(b, hp);
            sb_buf_puts(b, "\">history</a>");
        }
        if (at[PROF]) {
            size_t nv = 0;
            while (k[PROF].row && k[PROF].run_id == id) {
                sqlite3_stmt *st = k[PROF].st;
                sb_buf_reset(&line);
                for (int i = 0; i <= 6; i++) {
                    if (i)
                        sb_buf_putc(&line, ',');
                    if (sqlite3_column_type(st, i) == SQLITE_FLOAT)
                        sb_buf_printf(&line, "%.17g", sqlite3_column_double(st, i));
                    else if (col_text(st, i))
                        sb_buf_csv_field(&line, col_text(st, i));
                }
                sb_buf_putc(&line, '\n');
                gz_add(&ps.ncu, sb_buf_str(&line), line.len);
                nv++;
                if (cur_step(c, &k[PROF], err) != SB_OK)
                    goto done;
            }
            site_printf(b, " \xc2\xb7 <a href=\"%lld-ncu.csv.gz\" type=\"application/gzip\">ncu "
                           "metrics</a> (%zu values)",
                        ps.page, nv);
        }
        if (at[CEIL]) {
            sb_buf_puts(b, " \xc2\xb7 ceilings:");
            while (k[CEIL].row && k[CEIL].run_id == id) {
                sqlite3_stmt *st = k[CEIL].st;
                char v[32];
                sb_fmt_sig3(sqlite3_column_double(st, 3), v, sizeof v);
                sb_buf_putc(b, ' ');
                site_esc(b, col_text(st, 1));
                sb_buf_putc(b, ' ');
                sb_buf_puts(b, v);
                sb_buf_putc(b, ' ');
                site_esc(b, col_text(st, 2));
                if (cur_step(c, &k[CEIL], err) != SB_OK)
                    goto done;
            }
        }
        if (notes) {
            sb_buf_puts(b, "<div class=\"notes\">");
            size_t len = strlen(notes);
            if (len > 300) {
                char cut[304];
                size_t m = 300;
                while (m > 0 && ((unsigned char)notes[m] & 0xC0) == 0x80)
                    m--; /* not inside a UTF-8 sequence */
                memcpy(cut, notes, m);
                memcpy(cut + m, "\xe2\x80\xa6", 4);
                site_esc(b, cut);
            } else {
                site_esc(b, notes);
            }
            sb_buf_puts(b, "</div>");
        }
        sb_buf_putc(b, '\n');
        c->sum->runs++;
        if (cur_step(c, &k[RUNS], err) != SB_OK)
            goto done;
    }
    if (page_close(c, &ps, err) != SB_OK)
        goto done;
    rc = SB_OK;
done:
    if (ps.page >= 0) {
        deflateEnd(&ps.raw.z);
        deflateEnd(&ps.ncu.z);
        sb_buf_free(&ps.raw.out);
        sb_buf_free(&ps.ncu.out);
    }
    for (int i = 0; i < NCUR; i++)
        sqlite3_finalize(k[i].st);
    free(samples);
    sb_buf_free(&ps.b);
    sb_buf_free(&line);
    return rc;
}

typedef struct runs_job {
    site_ctx c;
    sb_site_summary sum;
    long long lo;
    sb_error err;
    int rc;
} runs_job;

static void *runs_main(void *arg)
{
    runs_job *j = arg;
    j->rc = runs_range(&j->c, j->lo, LLONG_MAX, &j->err);
    return NULL;
}

/* Below this many runs one thread does all the run pages. */
#define SPLIT_MIN_RUNS 2000

int site_build_runs(site_ctx *c, sb_error *err)
{
    long long total = 0, mid = LLONG_MAX;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c->db, "SELECT count(*) FROM runs", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_error_set(err, c->o->db_path, NULL, "query failed: %s", sqlite3_errmsg(c->db));
    }
    total = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (write_index(c, err) != SB_OK)
        return SB_ERR;
    if (total >= SPLIT_MIN_RUNS && sqlite3_threadsafe()) {
        /* the second half starts on a page boundary */
        st = NULL;
        if (sqlite3_prepare_v2(c->db, "SELECT id FROM runs ORDER BY id LIMIT 1 OFFSET ?1", -1, &st,
                               NULL) != SQLITE_OK)
            return sb_error_set(err, c->o->db_path, NULL, "query failed: %s",
                                sqlite3_errmsg(c->db));
        sqlite3_bind_int64(st, 1, total / 2);
        if (sqlite3_step(st) == SQLITE_ROW)
            mid = site_run_page(sqlite3_column_int64(st, 0)) * SITE_RUNS_PER_PAGE;
        sqlite3_finalize(st);
    }
    if (mid == LLONG_MAX || mid <= 0)
        return runs_range(c, LLONG_MIN, LLONG_MAX, err);
    runs_job *j = calloc(1, sizeof *j);
    if (!j)
        return sb_error_set(err, NULL, NULL, "out of memory");
    if (site_ctx_clone(c, &j->c, &j->sum, err) != SB_OK) {
        free(j);
        return SB_ERR;
    }
    j->lo = mid;
    pthread_t th;
    int e = pthread_create(&th, NULL, runs_main, j);
    if (e != 0) {
        site_ctx_release(c, &j->c);
        free(j);
        return sb_error_set(err, NULL, NULL, "cannot start a thread: %s", strerror(e));
    }
    int rc = runs_range(c, LLONG_MIN, mid, err);
    pthread_join(th, NULL);
    site_ctx_release(c, &j->c);
    if (rc == SB_OK && j->rc != SB_OK) {
        *err = j->err;
        rc = SB_ERR;
    }
    free(j);
    return rc;
}

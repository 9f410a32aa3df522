/* site_runs.c - the runs, SITE_RUNS_PER_PAGE to a page by id (runs/G.html,
 * G = id / SITE_RUNS_PER_PAGE, one row a run with anchor rID), each page's
 * raw JSON and Nsight Compute metrics beside it gzip-compressed, and the
 * index of the pages; in one pass over the database: one statement per
 * table, each ordered by run id, merged like sorted lists. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bulk_reader.h"
#include "encode.h"
#include "run_pages.h"
#include "site_parts.h"
#include <zlib.h>

#include "svg.h" /* sb_fmt_sig3 */

/* ---- gzip files ---- */

/* A gzip member written to memory (zlib's deflate with the gzip wrapper). */
typedef struct gz {
    z_stream z;
    sb_buf out;
    int ok;
    uLong empty_at; /* bytes in that make no file on their own (a CSV header) */
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
    if (g->ok && g->z.total_in > g->empty_at) {
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
        sb_buf_puts(b, "passed"); /* the usual case: only the others are badges */
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

static void index_name(char *buf, size_t size, size_t page, const void *arg)
{
    (void)arg;
    if (page <= 1)
        snprintf(buf, size, "index.html");
    else
        snprintf(buf, size, "index-%zu.html", page);
}

static int write_index(site_ctx *c, const sb_run_block *v, size_t n, sb_error *err)
{
    long long total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].runs;
    size_t pages = n ? (n + c->page_rows - 1) / c->page_rows : 1;
    sb_buf b = SB_BUF_INIT;
    int rc = SB_OK;
    for (size_t pg = 1; pg <= pages && rc == SB_OK; pg++) {
        sb_buf_reset(&b);
        json_t *d = json_object(), *rows = json_array();
        json_object_set_new(d, "total", json_integer(total));
        json_object_set_new(d, "per_page", json_integer(SITE_RUNS_PER_PAGE));
        json_object_set_new(d, "pages", rows);
        size_t from = (pg - 1) * c->page_rows, to = from + c->page_rows;
        for (size_t i = from; i < to && i < n; i++) {
            json_t *o = json_object();
            json_object_set_new(o, "page", json_integer(v[i].block));
            json_object_set_new(o, "first", json_integer(v[i].block * SITE_RUNS_PER_PAGE));
            json_object_set_new(o, "last", json_integer(v[i].block * SITE_RUNS_PER_PAGE +
                                                        SITE_RUNS_PER_PAGE - 1));
            json_object_set_new(o, "runs", json_integer(v[i].runs));
            json_object_set_new(o, "first_id", json_integer(v[i].first));
            json_object_set_new(o, "last_id", json_integer(v[i].last));
            json_array_append_new(rows, o);
        }
        sb_buf pager = SB_BUF_INIT;
        site_pager(&pager, pg, pages, index_name, NULL);
        sb_tpl_set_str(d, "pager", sb_buf_str(&pager));
        sb_buf_free(&pager);
        rc = site_render("runs-index.html.tmpl", d, &b, err);
        json_decref(d);
        char rel[64], title[64];
        memcpy(rel, "runs/", 5);
        index_name(rel + 5, sizeof rel - 5, pg, NULL);
        snprintf(title, sizeof title, "runs, page %zu of %zu", pg, pages);
        if (rc == SB_OK)
            rc = site_page(c, rel, 1, "runs", pages > 1 ? title : "runs", &b, err);
    }
    sb_buf_free(&b);
    return rc;
}

/* ---- run pages ---- */

/* A run's history link, by case and SKU, escaped: a thread's pages
 * repeat the same few hundred of them, and each costs a SHA-256 of the
 * case key (site_history_path). Direct-mapped; a slot taken by another
 * key is overwritten. */
enum { HREF_SLOTS = 1024 };
typedef struct href_slot {
    char *case_key, *sku, *href; /* NULL: empty */
} href_slot;

typedef struct page_state {
    long long page;   /* -1: none open */
    sb_buf b;         /* the page's table rows */
    gz raw, ncu;
    href_slot *href;  /* HREF_SLOTS of them; NULL: out of memory, none kept */
} page_state;

static void href_slot_clear(href_slot *h)
{
    free(h->case_key);
    free(h->sku);
    free(h->href);
    *h = (href_slot){NULL, NULL, NULL};
}

/* Appends the escaped path of the history of case_key on sku. */
static void history_href(page_state *ps, sb_buf *b, const char *case_key, const char *sku)
{
    uint32_t hash = 2166136261u; /* FNV-1a over the case key and the SKU */
    for (const unsigned char *p = (const unsigned char *)case_key; *p; p++)
        hash = (hash ^ *p) * 16777619u;
    hash = (hash ^ 0xffu) * 16777619u;
    for (const unsigned char *p = (const unsigned char *)sku; *p; p++)
        hash = (hash ^ *p) * 16777619u;
    href_slot *h = ps->href ? &ps->href[hash % HREF_SLOTS] : NULL;
    if (h && h->href && !strcmp(h->case_key, case_key) && !strcmp(h->sku, sku)) {
        sb_buf_puts(b, h->href);
        return;
    }
    char hp[512];
    site_history_path(hp, sizeof hp, case_key, sku, 1);
    sb_buf e = SB_BUF_INIT;
    site_esc(&e, hp);
    sb_buf_puts(b, sb_buf_str(&e));
    if (h && !sb_buf_failed(&e)) {
        href_slot_clear(h);
        h->case_key = strdup(case_key);
        h->sku = strdup(sku);
        h->href = strdup(sb_buf_str(&e));
        if (!h->case_key || !h->sku || !h->href)
            href_slot_clear(h);
    }
    sb_buf_free(&e);
}

static void page_open(page_state *ps, long long page)
{
    ps->page = page;
    sb_buf_reset(&ps->b);
    gz_begin(&ps->raw);
    gz_begin(&ps->ncu);
    gz_add(&ps->ncu, "run_id,kernel_index,kernel_name,metric,unit,value,source_file\n",
           sizeof "run_id,kernel_index,kernel_name,metric,unit,value,source_file\n" - 1);
    /* the header alone is no file; total_in itself stays, since deflate
     * writes it as the gzip trailer's length */
    ps->ncu.empty_at = ps->ncu.z.total_in;
}

static int page_close(site_ctx *c, page_state *ps, sb_error *err)
{
    if (ps->page < 0)
        return SB_OK;
    char rel[96], title[96];
    snprintf(rel, sizeof rel, "runs/%lld.html", ps->page);
    long long first = ps->page * SITE_RUNS_PER_PAGE, last = first + SITE_RUNS_PER_PAGE - 1;
    snprintf(title, sizeof title, "runs %lld to %lld", first, last);
    json_t *d = json_object();
    json_object_set_new(d, "page", json_integer(ps->page));
    json_object_set_new(d, "first", json_integer(first));
    json_object_set_new(d, "last", json_integer(last));
    json_object_set_new(d, "rows", json_stringn_nocheck(sb_buf_str(&ps->b), ps->b.len));
    sb_buf body = SB_BUF_INIT;
    int rc = sb_template_render(c->runs_page, d, SB_TPL_ESCAPE_HTML, &body, err);
    json_decref(d);
    if (rc == SB_OK)
        rc = site_page(c, rel, 1, "runs", title, &body, err);
    sb_buf_free(&body);
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

/* Appends the run's Nsight Compute values to the page's CSV. */
static void ncu_lines(gz *out, const sb_run_page_row *r, sb_buf *line)
{
    for (size_t i = 0; i < r->nncu; i++) {
        const sb_run_page_ncu *v = &r->ncu[i];
        sb_buf_reset(line);
        site_put_ll(line, r->id);
        sb_buf_putc(line, ',');
        site_put_ll(line, v->kernel_index);
        sb_buf_putc(line, ',');
        /* the profile's text: a spreadsheet opens this file */
        sb_enc_csv_field(line, v->kernel_name);
        sb_buf_putc(line, ',');
        sb_enc_csv_field(line, v->metric);
        sb_buf_putc(line, ',');
        if (v->unit)
            sb_enc_csv_field(line, v->unit);
        sb_buf_putc(line, ',');
        if (!isnan(v->value))
            sb_buf_printf(line, "%.17g", v->value);
        sb_buf_putc(line, ',');
        /* the profile's file name: its folder is the ingesting machine's */
        const char *slash = v->source_path ? strrchr(v->source_path, '/') : NULL;
        sb_enc_csv_field(line, slash ? slash + 1 : v->source_path);
        sb_buf_putc(line, '\n');
        gz_add(out, sb_buf_str(line), line->len);
    }
}

/* One run's row (and its raw JSON and ncu lines). */
static void run_row(page_state *ps, const sb_run_page_row *r, sb_buf *line)
{
    sb_buf *b = &ps->b;
    gz_add(&ps->raw, r->raw_json ? r->raw_json : "{}", r->raw_json ? r->raw_len : 2);
    gz_add(&ps->raw, "\n", 1);
    sb_buf_puts(b, "<tr id=\"r");
    site_put_ll(b, r->id);
    sb_buf_puts(b, "\"><td>");
    site_put_ll(b, r->id);
    td(b, schema_short(r->schema));
    sb_buf_puts(b, "<td>");
    status_label(b, r->status, r->correct, r->profiler);
    if (r->has_config) {
        td(b, r->op);
        td(b, r->mode);
        td(b, r->dtype);
        td(b, r->shape_key);
        td(b, r->params_json && strcmp(r->params_json, "{}") ? r->params_json : NULL);
        td(b, r->provider);
        td(b, r->suite);
    } else {
        td(b, r->has_training ? "training step" : NULL);
        for (int i = 0; i < 6; i++)
            td(b, i == 2 ? r->model_name : NULL);
    }
    td(b, r->sku);
    sb_buf_puts(b, "<td class=\"gpu\">");
    site_h(b, r->has_provenance ? r->gpu_name : NULL);
    sb_buf_puts(b, "<td><code>");
    if (r->git_sha)
        site_printf(b, "%.10s", r->git_sha);
    sb_buf_puts(b, "</code>");
    td(b, r->finished_at);
    sb_buf_puts(b, "<td>");
    if (r->nsamples)
        site_put_ll(b, (long long)r->nsamples);
    else if (r->sample_count >= 0)
        site_put_ll(b, r->sample_count);
    sb_buf_puts(b, "<td>");
    site_num(b, r->has_metrics ? r->median_ms : r->median_step_ms);
    td_num(b, r->p20_ms);
    td_num(b, r->p80_ms);
    if (r->nsamples)
        spark(b, r->samples, r->nsamples);
    else
        sb_buf_puts(b, "<td>");
    td_num(b, r->tflops);
    td_num(b, r->gbps);
    sb_buf_puts(b, "<td>");
    if (r->op && r->sku && r->case_key) {
        sb_buf_puts(b, "<a href=\"../");
        history_href(ps, b, r->case_key, r->sku);
        sb_buf_puts(b, "\">history</a>");
    }
    if (r->nncu) {
        ncu_lines(&ps->ncu, r, line);
        site_printf(b, " \xc2\xb7 <a href=\"%lld-ncu.csv.gz\" type=\"application/gzip\">ncu "
                       "metrics</a> (%zu values)",
                    ps->page, r->nncu);
    }
    if (r->nceilings) {
        sb_buf_puts(b, " \xc2\xb7 ceilings:");
        for (size_t i = 0; i < r->nceilings; i++) {
            char v[32];
            sb_fmt_sig3(r->ceilings[i].value, v, sizeof v);
            sb_buf_putc(b, ' ');
            site_esc(b, r->ceilings[i].name);
            sb_buf_putc(b, ' ');
            sb_buf_puts(b, v);
            sb_buf_putc(b, ' ');
            site_esc(b, r->ceilings[i].unit);
        }
    }
    if (r->notes) {
        sb_buf_puts(b, "<div class=\"notes\">");
        size_t len = strlen(r->notes);
        if (len > 300) {
            char cut[304];
            size_t m = 300;
            while (m > 0 && ((unsigned char)r->notes[m] & 0xC0) == 0x80)
                m--; /* not inside a UTF-8 sequence */
            memcpy(cut, r->notes, m);
            memcpy(cut + m, "\xe2\x80\xa6", 4);
            site_esc(b, cut);
        } else {
            site_esc(b, r->notes);
        }
        sb_buf_puts(b, "</div>");
    }
    sb_buf_putc(b, '\n');
}

/* Run pages of runs with lo <= id < hi (lo and hi on page boundaries). */
static int runs_range(site_ctx *c, long long lo, long long hi, sb_error *err)
{
    sb_run_pages *rp = NULL;
    if (sb_run_pages_open(c->db, lo, hi, &rp, err) != SB_OK)
        return SB_ERR;
    int rc = SB_ERR;
    page_state ps;
    memset(&ps, 0, sizeof ps);
    ps.page = -1;
    ps.b = (sb_buf)SB_BUF_INIT;
    ps.href = calloc(HREF_SLOTS, sizeof *ps.href);
    sb_buf line = SB_BUF_INIT;
    for (;;) {
        const sb_run_page_row *r;
        if (sb_run_pages_next(rp, &r, err) != SB_OK)
            goto done;
        if (!r)
            break;
        if (site_run_page(r->id) != ps.page) {
            if (page_close(c, &ps, err) != SB_OK)
                goto done;
            page_open(&ps, site_run_page(r->id));
        }
        run_row(&ps, r, &line);
        c->sum->runs++;
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
    sb_run_pages_close(rp);
    for (size_t i = 0; ps.href && i < HREF_SLOTS; i++)
        href_slot_clear(&ps.href[i]);
    free(ps.href);
    sb_buf_free(&ps.b);
    sb_buf_free(&line);
    return rc;
}

/* Ids lo <= id < hi to render, holding runs runs. */
typedef struct span {
    long long lo, hi, runs;
} span;

typedef struct runs_job {
    site_ctx c;
    sb_site_summary sum;
    const span *v;
    size_t n;
    sb_error err;
    int rc;
} runs_job;

static int runs_spans(site_ctx *c, const span *v, size_t n, sb_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (runs_range(c, v[i].lo, v[i].hi, err) != SB_OK)
            return SB_ERR;
    return SB_OK;
}

static void *runs_main(void *arg)
{
    runs_job *j = arg;
    j->rc = runs_spans(&j->c, j->v, j->n, &j->err);
    return NULL;
}

/* Below this many runs to render one thread does all the run pages. */
#define SPLIT_MIN_RUNS 2000

/* Renders the spans, the second half of their runs on a thread of its
 * own (each half on a page boundary). */
static int render_spans(site_ctx *c, span *v, size_t n, long long total, sb_error *err)
{
    size_t cut = n;
    if (total >= SPLIT_MIN_RUNS && sb_bulk_readers_threaded()) {
        long long acc = 0;
        for (size_t i = 0; i < n && cut == n; i++) {
            if (acc + v[i].runs < total / 2) {
                acc += v[i].runs;
                continue;
            }
            /* split span i: its pages hold about the same number of runs */
            long long pages = (v[i].hi - v[i].lo) / SITE_RUNS_PER_PAGE;
            long long want = total / 2 - acc, mid = v[i].lo;
            if (v[i].runs > 0)
                mid = v[i].lo + (want * pages / v[i].runs) * SITE_RUNS_PER_PAGE;
            if (mid <= v[i].lo) {
                cut = i;
            } else if (mid >= v[i].hi) {
                cut = i + 1;
            } else {
                /* v has room for one more span (see site_build_runs) */
                memmove(v + i + 2, v + i + 1, (n - i - 1) * sizeof *v);
                v[i + 1] = (span){mid, v[i].hi, v[i].runs - want};
                v[i].hi = mid;
                v[i].runs = want;
                n++;
                cut = i + 1;
            }
        }
    }
    if (cut == n || cut == 0)
        return runs_spans(c, v, n, err);
    runs_job *j = calloc(1, sizeof *j);
    if (!j)
        return sb_error_set(err, NULL, NULL, "out of memory");
    if (site_ctx_clone(c, &j->c, &j->sum, err) != SB_OK) {
        free(j);
        return SB_ERR;
    }
    j->v = v + cut;
    j->n = n - cut;
    pthread_t th;
    int e = pthread_create(&th, NULL, runs_main, j);
    if (e != 0) {
        site_ctx_release(c, &j->c);
        free(j);
        return sb_error_set(err, NULL, NULL, "cannot start a thread: %s", strerror(e));
    }
    int rc = runs_spans(c, v, cut, err);
    pthread_join(th, NULL);
    site_ctx_release(c, &j->c);
    if (rc == SB_OK && j->rc != SB_OK) {
        *err = j->err;
        rc = SB_ERR;
    }
    free(j);
    return rc;
}

/* Takes block b's files over from the earlier site; *done = 0 when it
 * has no page for it. */
static int take_over_block(site_ctx *c, const sb_run_block *b, int *done, sb_error *err)
{
    static const char *const SUFFIX[] = {".html", ".jsonl.gz", "-ncu.csv.gz"};
    for (size_t k = 0; k < 3; k++) {
        char rel[96];
        int found;
        snprintf(rel, sizeof rel, "runs/%lld%s", b->block, SUFFIX[k]);
        if (site_take_over(c, rel, &found, err) != SB_OK)
            return SB_ERR;
        if (k == 0 && !found) {
            *done = 0;
            return SB_OK;
        }
    }
    *done = 1;
    c->sum->runs += (size_t)b->runs;
    return SB_OK;
}

/* The run pages and their index. A block of runs whose digest
 * (sb_run_block_digests) is the one the earlier site's manifest gives is
 * taken over from it; the others are rendered, in spans of neighbouring
 * blocks, each span one pass over the database. */
int site_build_runs(site_ctx *c, sb_error *err)
{
    sb_run_block *v = NULL;
    size_t n = 0;
    char(*digest)[65] = NULL;
    span *spans = NULL;
    int rc = SB_ERR;
    if (sb_run_blocks(c->db, SITE_RUNS_PER_PAGE, &v, &n, err) != SB_OK)
        return SB_ERR;
    digest = malloc((n + 1) * sizeof *digest);
    spans = malloc((n + 2) * sizeof *spans);
    if (!digest || !spans) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    if (sb_run_block_digests(c->db, SITE_RUNS_PER_PAGE, v, n, digest, err) != SB_OK ||
        write_index(c, v, n, err) != SB_OK)
        goto done;
    size_t nspans = 0;
    long long total = 0;
    int open_span = 0;
    for (size_t i = 0; i < n; i++) {
        char key[64];
        snprintf(key, sizeof key, "runs/%lld", v[i].block);
        if (site_fps_add(&c->fps, key, digest[i]) != SB_OK) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        int done_block = 0;
        if (site_fp_unchanged(c, key, digest[i]) && take_over_block(c, &v[i], &done_block, err) != SB_OK)
            goto done;
        if (done_block) {
            open_span = 0;
            continue;
        }
        long long lo = v[i].block * SITE_RUNS_PER_PAGE, hi = lo + SITE_RUNS_PER_PAGE;
        if (open_span) {
            spans[nspans - 1].hi = hi;
            spans[nspans - 1].runs += v[i].runs;
        } else {
            spans[nspans++] = (span){lo, hi, v[i].runs};
        }
        open_span = 1;
        total += v[i].runs;
    }
    rc = render_spans(c, spans, nspans, total, err);
done:
    free(spans);
    free(digest);
    free(v);
    return rc;
}

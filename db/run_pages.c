/* run_pages.c - every stored run as a run page shows it (run_pages.h). */
#include "run_pages.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "sample_blob.h"
#include "sha256.h"
#include "strbuf.h"

static int query_failed(sqlite3 *db, const char *what, sb_error *err)
{
    return sb_error_set(err, sqlite3_db_filename(db, "main"), NULL, "query of %s failed: %s",
                        what, sqlite3_errmsg(db));
}

/* A statement over one table ordered by run_id (column 0), stepped along
 * with the runs. */
typedef struct cursor {
    sqlite3_stmt *st;
    int row;            /* 1 while positioned on a row */
    long long run_id;
    const char *table;
} cursor;

enum { RUNS, PROV, CONF, METR, CORR, SAMP, PROF, CEIL, TRAIN, NCUR };

static const char *const SQL[NCUR] = {
    "SELECT id AS run_id, schema, status, notes, raw_json, samples_at FROM runs"
    " WHERE id >= ?1 AND id < ?2"
    " ORDER BY id",
    "SELECT run_id, git_sha, sku, gpu_name, finished_at FROM provenance"
    " WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
    "SELECT run_id, op, mode, dtype, shape_key, params_json, provider, suite, case_key, profiler"
    " FROM configs WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
    "SELECT run_id, median_ms, p20_ms, p80_ms, tflops, gbps, sample_count FROM metrics"
    " WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
    "SELECT run_id, passed FROM correctness WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
    "SELECT run_id, value_ms, rep_lengths FROM run_samples WHERE run_id >= ?1 AND run_id < ?2"
    " ORDER BY run_id",
    "SELECT run_id, kernel_index, kernel_name, metric, unit, value, source_path"
    " FROM profiler_metrics WHERE run_id >= ?1 AND run_id < ?2"
    " ORDER BY run_id, kernel_index, metric",
    "SELECT run_id, name, unit, value FROM ceilings WHERE run_id >= ?1 AND run_id < ?2"
    " ORDER BY run_id, name",
    "SELECT run_id, model_name, median_step_ms FROM training"
    " WHERE run_id >= ?1 AND run_id < ?2 ORDER BY run_id",
};
static const char *const TABLE[NCUR] = {"runs", "provenance", "configs", "metrics",
                                        "correctness", "run_samples", "profiler_metrics",
                                        "ceilings", "training"};

struct sb_run_pages {
    sqlite3 *db;
    cursor k[NCUR];
    int started;          /* 1 once the runs cursor moved past the first row */
    sb_run_page_row row;
    double *samples;
    size_t scap;
    /* the Nsight Compute values and ceilings of the current run: their
     * text copied into text (the statements move on), as offsets until
     * the run is complete */
    sb_buf text;
    sb_buf raw; /* a result's JSON with its samples joined back (sample_blob.h) */
    sb_run_page_ncu *ncu;
    size_t ncap;
    sb_run_page_ceiling *ceil;
    size_t ccap;
};

static int cur_step(sb_run_pages *p, cursor *k, sb_error *err)
{
    int s = sqlite3_step(k->st);
    if (s == SQLITE_ROW) {
        k->row = 1;
        k->run_id = sqlite3_column_int64(k->st, 0);
        return SB_OK;
    }
    k->row = 0;
    if (s != SQLITE_DONE)
        return query_failed(p->db, k->table, err);
    return SB_OK;
}

/* Moves k to the first row with run_id >= id; *at is 1 when it is id. */
static int cur_seek(sb_run_pages *p, cursor *k, long long id, int *at, sb_error *err)
{
    while (k->row && k->run_id < id)
        if (cur_step(p, k, err) != SB_OK)
            return SB_ERR;
    *at = k->row && k->run_id == id;
    return SB_OK;
}

/* The array v (n elements of size bytes in use, *cap allocated) with room
 * for one more: v itself, or its grown copy; NULL when out of memory (v
 * is then still valid). */
static void *room(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap)
        return v;
    size_t nc = *cap ? *cap * 2 : first;
    void *nv = realloc(v, nc * size);
    if (nv)
        *cap = nc;
    return nv;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        return NULL;
    return (const char *)sqlite3_column_text(st, i);
}

static double col_real(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        return NAN;
    return sqlite3_column_double(st, i);
}

/* Copies s (NULL stays NULL) into p->text; the offset, plus one, as a
 * pointer-sized integer until text stops growing (0: NULL). */
static const char *keep(sb_run_pages *p, const char *s)
{
    if (!s)
        return NULL;
    size_t at = p->text.len;
    sb_buf_add(&p->text, s, strlen(s) + 1);
    return (const char *)(uintptr_t)(at + 1);
}

static const char *resolve(const sb_run_pages *p, const char *kept)
{
    return kept ? sb_buf_str(&p->text) + ((uintptr_t)kept - 1) : NULL;
}

int sb_run_pages_open(sb_db *handle, long long lo, long long hi, sb_run_pages **out,
                      sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    sb_run_pages *p = calloc(1, sizeof *p);
    if (!p)
        return sb_error_set(err, NULL, NULL, "out of memory");
    p->db = db;
    p->text = (sb_buf)SB_BUF_INIT;
    for (int i = 0; i < NCUR; i++) {
        p->k[i].table = TABLE[i];
        if (sqlite3_prepare_v2(db, SQL[i], -1, &p->k[i].st, NULL) != SQLITE_OK) {
            query_failed(db, TABLE[i], err);
            sb_run_pages_close(p);
            return SB_ERR;
        }
        sqlite3_bind_int64(p->k[i].st, 1, lo);
        sqlite3_bind_int64(p->k[i].st, 2, hi);
        if (cur_step(p, &p->k[i], err) != SB_OK) {
            sb_run_pages_close(p);
            return SB_ERR;
        }
    }
    *out = p;
    return SB_OK;
}

int sb_run_pages_next(sb_run_pages *p, const sb_run_page_row **row, sb_error *err)
{
    *row = NULL;
    if (p->started && cur_step(p, &p->k[RUNS], err) != SB_OK)
        return SB_ERR;
    p->started = 1;
    if (!p->k[RUNS].row)
        return SB_OK;
    cursor *k = p->k;
    long long id = k[RUNS].run_id;
    int at[NCUR] = {1};
    for (int i = 1; i < NCUR; i++)
        if (cur_seek(p, &k[i], id, &at[i], err) != SB_OK)
            return SB_ERR;
    sb_run_page_row *r = &p->row;
    memset(r, 0, sizeof *r);
    r->id = id;
    sqlite3_stmt *st = k[RUNS].st;
    r->schema = col_text(st, 1);
    r->status = col_text(st, 2);
    r->notes = col_text(st, 3);
    r->raw_json = col_text(st, 4);
    r->raw_len = r->raw_json ? (size_t)sqlite3_column_bytes(st, 4) : 0;
    if ((r->has_config = at[CONF])) {
        st = k[CONF].st;
        r->op = col_text(st, 1);
        r->mode = col_text(st, 2);
        r->dtype = col_text(st, 3);
        r->shape_key = col_text(st, 4);
        r->params_json = col_text(st, 5);
        r->provider = col_text(st, 6);
        r->suite = col_text(st, 7);
        r->case_key = col_text(st, 8);
        r->profiler = col_text(st, 9);
    }
    if ((r->has_provenance = at[PROV])) {
        st = k[PROV].st;
        r->git_sha = col_text(st, 1);
        r->sku = col_text(st, 2);
        r->gpu_name = col_text(st, 3);
        r->finished_at = col_text(st, 4);
    }
    r->median_ms = r->p20_ms = r->p80_ms = r->tflops = r->gbps = NAN;
    r->sample_count = -1;
    if ((r->has_metrics = at[METR])) {
        st = k[METR].st;
        r->median_ms = col_real(st, 1);
        r->p20_ms = col_real(st, 2);
        r->p80_ms = col_real(st, 3);
        r->tflops = col_real(st, 4);
        r->gbps = col_real(st, 5);
        if (sqlite3_column_type(st, 6) != SQLITE_NULL)
            r->sample_count = sqlite3_column_int64(st, 6);
    }
    r->correct = at[CORR] && sqlite3_column_type(k[CORR].st, 1) != SQLITE_NULL
                     ? sqlite3_column_int(k[CORR].st, 1) != 0
                     : -1;
    r->median_step_ms = NAN;
    if ((r->has_training = at[TRAIN])) {
        r->model_name = col_text(k[TRAIN].st, 1);
        r->median_step_ms = col_real(k[TRAIN].st, 2);
    }
    /* the samples: one packed row a run (db/sample_blob.h) */
    size_t ns = 0;
    if (at[SAMP]) {
        const char *why = sb_sample_blob_column(k[SAMP].st, 1, &p->samples, &p->scap, &ns);
        if (why)
            return sb_error_set(err, sqlite3_db_filename(p->db, "main"), NULL, "run %lld: %s", id, why);
    }
    if (sqlite3_column_type(k[RUNS].st, 5) != SQLITE_NULL) {
        sb_buf_reset(&p->raw);
        if (!at[SAMP] ||
            sb_raw_json_join(r->raw_json ? r->raw_json : "", r->raw_len,
                             sqlite3_column_int64(k[RUNS].st, 5),
                             (const char *)sqlite3_column_text(k[SAMP].st, 2),
                             sqlite3_column_blob(k[SAMP].st, 1),
                             (size_t)sqlite3_column_bytes(k[SAMP].st, 1), &p->raw) != 0)
            return sb_error_set(err, sqlite3_db_filename(p->db, "main"), NULL,
                                "run %lld: its stored samples do not fit its JSON", id);
        r->raw_json = sb_buf_str(&p->raw);
        r->raw_len = p->raw.len;
    }
    /* the rows of many per run: copied, as their statements move on */
    r->samples = p->samples;
    r->nsamples = ns;
    sb_buf_reset(&p->text);
    size_t nn = 0, nc = 0;
    while (k[PROF].row && k[PROF].run_id == id) {
        sb_run_page_ncu *nv = room(p->ncu, &p->ncap, nn, sizeof *nv, 64);
        if (!nv)
            return sb_error_set(err, NULL, NULL, "out of memory");
        p->ncu = nv;
        st = k[PROF].st;
        p->ncu[nn++] = (sb_run_page_ncu){sqlite3_column_int64(st, 1), keep(p, col_text(st, 2)),
                                         keep(p, col_text(st, 3)), keep(p, col_text(st, 4)),
                                         keep(p, col_text(st, 6)), col_real(st, 5)};
        if (cur_step(p, &k[PROF], err) != SB_OK)
            return SB_ERR;
    }
    while (k[CEIL].row && k[CEIL].run_id == id) {
        sb_run_page_ceiling *cv = room(p->ceil, &p->ccap, nc, sizeof *cv, 16);
        if (!cv)
            return sb_error_set(err, NULL, NULL, "out of memory");
        p->ceil = cv;
        st = k[CEIL].st;
        p->ceil[nc++] = (sb_run_page_ceiling){keep(p, col_text(st, 1)), keep(p, col_text(st, 2)),
                                              col_real(st, 3)};
        if (cur_step(p, &k[CEIL], err) != SB_OK)
            return SB_ERR;
    }
    if (sb_buf_failed(&p->text))
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < nn; i++) {
        sb_run_page_ncu *v = &p->ncu[i];
        v->kernel_name = resolve(p, v->kernel_name);
        v->metric = resolve(p, v->metric);
        v->unit = resolve(p, v->unit);
        v->source_path = resolve(p, v->source_path);
    }
    for (size_t i = 0; i < nc; i++) {
        p->ceil[i].name = resolve(p, p->ceil[i].name);
        p->ceil[i].unit = resolve(p, p->ceil[i].unit);
    }
    r->ncu = p->ncu;
    r->nncu = nn;
    r->ceilings = p->ceil;
    r->nceilings = nc;
    *row = r;
    return SB_OK;
}

void sb_run_pages_close(sb_run_pages *p)
{
    if (!p)
        return;
    for (int i = 0; i < NCUR; i++)
        sqlite3_finalize(p->k[i].st);
    free(p->samples);
    free(p->ncu);
    free(p->ceil);
    sb_buf_free(&p->text);
    sb_buf_free(&p->raw);
    free(p);
}

int sb_run_blocks(sb_db *handle, long long per_block, sb_run_block **out, size_t *n,
                  sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT id / ?1, count(*), min(id), max(id) FROM runs GROUP BY 1"
                           " ORDER BY 1",
                           -1, &st, NULL) != SQLITE_OK)
        return query_failed(db, "runs", err);
    sqlite3_bind_int64(st, 1, per_block);
    sb_run_block *v = NULL;
    size_t cap = 0, k = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (k == cap) {
            cap = cap ? 2 * cap : 256;
            sb_run_block *nv = realloc(v, cap * sizeof *nv);
            if (!nv) {
                free(v);
                sqlite3_finalize(st);
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
            v = nv;
        }
        v[k++] = (sb_run_block){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)};
    }
    if (s != SQLITE_DONE) {
        query_failed(db, "runs", err);
        free(v);
        sqlite3_finalize(st);
        return SB_ERR;
    }
    sqlite3_finalize(st);
    *out = v;
    *n = k;
    return SB_OK;
}

/* Appends text (or "-" for NULL) and a separator that text cannot hold
 * at its place: the length first. */
static void digest_text(sb_buf *b, const unsigned char *text)
{
    if (!text) {
        sb_buf_puts(b, "- ");
        return;
    }
    sb_buf_printf(b, "%zu:", strlen((const char *)text));
    sb_buf_puts(b, (const char *)text);
    sb_buf_putc(b, ' ');
}

int sb_run_block_digests(sb_db *handle, long long per_block, const sb_run_block *v, size_t n,
                         char (*digest)[65], sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *runs = NULL, *ncu = NULL;
    sb_buf b = SB_BUF_INIT;
    int rc = SB_ERR;
    if (sqlite3_prepare_v2(db, "SELECT id, content_sha256 FROM runs ORDER BY id", -1, &runs, NULL) !=
        SQLITE_OK) {
        query_failed(db, "runs", err);
        goto done;
    }
    if (sqlite3_prepare_v2(db,
                           "SELECT run_id, kernel_index, kernel_name, metric, unit, value, source_path"
                           " FROM profiler_metrics ORDER BY run_id, kernel_index, metric",
                           -1, &ncu, NULL) != SQLITE_OK) {
        query_failed(db, "profiler_metrics", err);
        goto done;
    }
    int rs = sqlite3_step(runs), ns = sqlite3_step(ncu);
    for (size_t i = 0; i < n; i++) {
        sb_buf_reset(&b);
        for (; rs == SQLITE_ROW && sqlite3_column_int64(runs, 0) / per_block <= v[i].block;
             rs = sqlite3_step(runs)) {
            sb_buf_printf(&b, "run %lld ", (long long)sqlite3_column_int64(runs, 0));
            digest_text(&b, sqlite3_column_text(runs, 1));
            sb_buf_putc(&b, '\n');
        }
        for (; ns == SQLITE_ROW && sqlite3_column_int64(ncu, 0) / per_block <= v[i].block;
             ns = sqlite3_step(ncu)) {
            sb_buf_printf(&b, "ncu %lld %lld ", (long long)sqlite3_column_int64(ncu, 0),
                          (long long)sqlite3_column_int64(ncu, 1));
            digest_text(&b, sqlite3_column_text(ncu, 2));
            digest_text(&b, sqlite3_column_text(ncu, 3));
            digest_text(&b, sqlite3_column_text(ncu, 4));
            if (sqlite3_column_type(ncu, 5) == SQLITE_NULL)
                sb_buf_puts(&b, "- ");
            else
                sb_buf_printf(&b, "%a ", sqlite3_column_double(ncu, 5));
            digest_text(&b, sqlite3_column_text(ncu, 6));
            sb_buf_putc(&b, '\n');
        }
        if (sb_buf_failed(&b)) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        if (sb_sha256_hex(b.data ? b.data : "", b.len, digest[i], err) != SB_OK)
            goto done;
    }
    if ((rs != SQLITE_ROW && rs != SQLITE_DONE) || (ns != SQLITE_ROW && ns != SQLITE_DONE)) {
        query_failed(db, rs != SQLITE_ROW && rs != SQLITE_DONE ? "runs" : "profiler_metrics", err);
        goto done;
    }
    rc = SB_OK;
done:
    sqlite3_finalize(runs);
    sqlite3_finalize(ncu);
    sb_buf_free(&b);
    return rc;
}

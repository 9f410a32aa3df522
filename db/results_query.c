/* results_query.c - the queries reports read the database with
 * (results_query.h). */
#include "results_query.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "isoweek.h"
#include "sample_blob.h"
#include "store.h"

/* Windows within these (0001-01-01, 9998-12-31) are narrowed in SQL by
 * their dates (four-digit years). */
#define SB_WINDOW_EARLIEST (-62135596800LL + 3 * 86400LL)
#define SB_WINDOW_LATEST (253370678400LL - 3 * 86400LL)

static char *col_str(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return strdup(s ? (const char *)s : "");
}

static char *col_str_or_null(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        return NULL;
    return col_str(st, i);
}

/* Text of column i of a run: in pool p where there is one (shared: a
 * value that repeats across runs), else malloc'd; "" for NULL, or NULL
 * with or_null. */
static char *run_text(sqlite3_stmt *st, int i, sb_text_pool *p, int shared, int or_null)
{
    if (!p)
        return or_null ? col_str_or_null(st, i) : col_str(st, i);
    if (or_null && sqlite3_column_type(st, i) == SQLITE_NULL)
        return NULL;
    const unsigned char *s = sqlite3_column_text(st, i);
    return sb_text_pool_add(p, s ? (const char *)s : "", s ? strlen((const char *)s) : 0, shared);
}

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static long long col_int(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

/* A time every rate and ratio can be built on: positive, finite, normal. */
static int usable_time(double ms)
{
    return isnormal(ms) && ms > 0;
}

int sb_results_select(sb_db *db, const sb_result_set *all, const sb_result_filter *f,
                      sb_result_set *out, sb_error *err)
{
    if (!all || (f && (f->with_profiled || f->with_sessions || f->only_sessions)))
        return sb_results_load(db, f, out, err);
    return sb_results_pick(all, f, out, err);
}

static int str_or_null_cmp(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* Report order: case, provider, SKU, finished_at (absent first, as SQLite
 * orders NULL), run id. */
static int report_order(const void *pa, const void *pb)
{
    const sb_result *a = pa, *b = pb;
    int c = strcmp(a->case_key, b->case_key);
    if (!c)
        c = strcmp(a->provider, b->provider);
    if (!c)
        c = strcmp(a->sku, b->sku);
    if (!c)
        c = str_or_null_cmp(a->finished_at, b->finished_at);
    if (!c)
        c = (a->run_id > b->run_id) - (a->run_id < b->run_id);
    return c;
}

static int report_order_ptr(const void *pa, const void *pb)
{
    return report_order(*(const sb_result *const *)pa, *(const sb_result *const *)pb);
}

/* Puts v[0..n) in report order in place: pointers are sorted, then the
 * runs moved along the cycles of that permutation, so neither the sort
 * nor a second array moves or holds whole runs. 0, or -1: out of memory. */
static int sort_runs(sb_result *v, size_t n)
{
    if (n < 2)
        return 0;
    const sb_result **p = malloc(n * sizeof *p);
    size_t *from = malloc(n * sizeof *from);
    if (!p || !from) {
        free(p);
        free(from);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        p[i] = &v[i];
    qsort(p, n, sizeof *p, report_order_ptr);
    for (size_t i = 0; i < n; i++)
        from[i] = (size_t)(p[i] - v);
    free(p);
    /* position i takes the run at from[i]; a done position points at itself */
    for (size_t i = 0; i < n; i++) {
        if (from[i] == i)
            continue;
        sb_result held = v[i];
        size_t j = i;
        while (from[j] != i) {
            size_t k = from[j];
            v[j] = v[k];
            from[j] = j;
            j = k;
        }
        v[j] = held;
        from[j] = j;
    }
    free(from);
    return 0;
}

/* Whether the ascending ids[0..nids) hold id; every id where ids is NULL. */
static int id_kept(const int64_t *ids, size_t nids, long long id)
{
    if (!ids)
        return 1;
    size_t lo = 0, hi = nids;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nids && ids[lo] == id;
}

static int kept(const sb_result *r, const sb_result_filter *f, const int64_t *ids, size_t nids)
{
    return sb_result_matches(r, f) && id_kept(ids, nids, r->run_id);
}

/* How many of v[0..n) match f (and ids, where not NULL). */
static size_t count_matches(const sb_result *v, size_t n, const sb_result_filter *f, const int64_t *ids,
                            size_t nids)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += kept(&v[i], f, ids, nids);
    return k;
}

/* Merges the matches of a[0..na) and b[0..nb) (each in report order) into
 * out, in report order: copies whose text stays theirs, with the
 * plausibility mark cleared, as sb_results_load gives a run. */
static size_t merge_matches(const sb_result *a, size_t na, const sb_result *b, size_t nb,
                            const sb_result_filter *f, const int64_t *ids, size_t nids, sb_result *out)
{
    size_t i = 0, j = 0, k = 0;
    for (;;) {
        while (i < na && !kept(&a[i], f, ids, nids))
            i++;
        while (j < nb && !kept(&b[j], f, ids, nids))
            j++;
        if (i == na && j == nb)
            break;
        const sb_result *r = j == nb || (i < na && report_order(&a[i], &b[j]) <= 0) ? &a[i++] : &b[j++];
        out[k] = *r;
        out[k++].implausible = 0;
    }
    return k;
}

static int select_merged(const sb_result_set *all, const sb_result_set *sessions, const sb_result_filter *f,
                         const int64_t *ids, size_t nids, sb_result_set *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    out->borrowed = 1;
    size_t n = count_matches(all->v, all->n, f, ids, nids) + count_matches(sessions->v, sessions->n, f, ids, nids);
    size_t nl = count_matches(all->left_out, all->n_left_out, f, ids, nids) +
                count_matches(sessions->left_out, sessions->n_left_out, f, ids, nids);
    out->v = malloc((n ? n : 1) * sizeof *out->v);
    out->left_out = malloc((nl ? nl : 1) * sizeof *out->left_out);
    if (!out->v || !out->left_out) {
        sb_results_free(out);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    out->n = merge_matches(all->v, all->n, sessions->v, sessions->n, f, ids, nids, out->v);
    out->n_left_out = merge_matches(all->left_out, all->n_left_out, sessions->left_out,
                                    sessions->n_left_out, f, ids, nids, out->left_out);
    return SB_OK;
}

int sb_results_select_sessions(sb_db *db, const sb_result_set *all, const sb_result_set *sessions,
                               const sb_result_filter *f, sb_result_set *out, sb_error *err)
{
    if (!all || !sessions || !f || !f->with_sessions || f->with_profiled)
        return sb_results_select(db, all, f, out, err);
    return select_merged(all, sessions, f, NULL, 0, out, err);
}

int sb_results_select_sessions_ids(const sb_result_set *all, const sb_result_set *sessions,
                                   const sb_result_filter *f, const int64_t *ids, size_t nids,
                                   sb_result_set *out, sb_error *err)
{
    if (!all || !sessions || !f || !f->with_sessions || f->with_profiled || (nids && !ids)) {
        memset(out, 0, sizeof *out);
        return sb_error_set(err, NULL, NULL, "picking runs by id takes the runs, the sessions' runs and "
                                             "a filter with the sessions' runs");
    }
    for (size_t i = 1; i < nids; i++)
        if (ids[i - 1] > ids[i]) {
            memset(out, 0, sizeof *out);
            return sb_error_set(err, NULL, NULL, "picking runs by id takes ids in ascending order");
        }
    if (nids == 0) {
        /* no id: an empty set, where select_merged would keep every run */
        static const int64_t none = 0;
        return select_merged(all, sessions, f, &none, 0, out, err);
    }
    return select_merged(all, sessions, f, ids, nids, out, err);
}

/* The columns and tables every result query reads; read_row takes the
 * columns in this order. */
static const char RESULT_SELECT[] =
    "SELECT r.id, r.status, r.reason, r.source_path, r.source_format, r.run_uuid,"
    " c.suite, c.op, c.mode, c.provider, c.backend, c.dtype, c.shape_key, c.shape_json,"
    " c.params_json, c.case_key, c.timer, c.l2, c.warmup_iters, c.warmup_ms, c.iters, c.repeats,"
    " c.input_sets, c.graph,"
    " p.git_sha, p.tool_name, p.tool_version, p.driver_version, p.cuda_runtime_version,"
    " p.cublas_version, p.gpu_name, p.arch, p.sku, p.hostname, p.finished_at,"
    " m.median_ms, m.p20_ms, m.p80_ms, m.flops, m.bytes, m.tflops, m.gbps, m.sample_count,"
    " m.quantiles_only, k.passed, k.reference,"
    " json_extract(r.raw_json, '$.config.run_params'), json_extract(r.raw_json, '$.protocol.settle_ms'),"
    " json_extract(r.raw_json, '$.protocol.launch_hold') = 'blocking-kernel',"
    " m.kernel_median_ms, m.kernel_method, m.repeat_spread, m.peak_device_bytes, p.packages_json,"
    " c.profiler, p.git_branch, s.session_id, s.copy,"
    " json_extract(r.raw_json, '$.timing.kernel.hold_timeouts')"
    " FROM runs r JOIN configs c ON c.run_id = r.id JOIN provenance p ON p.run_id = r.id"
    " LEFT JOIN metrics m ON m.run_id = r.id LEFT JOIN correctness k ON k.run_id = r.id"
    " LEFT JOIN run_sessions s ON s.run_id = r.id"
    " WHERE r.schema = 'solbook.result.v1'";

static const char RESULT_ORDER[] = " ORDER BY c.case_key, c.provider, p.sku, p.finished_at, r.id";

/* A passed run's time reports cannot use (usable_time fails): the partial
 * index metrics_time_unusable (migration 011) holds exactly these runs. */
#define SB_UNUSABLE_TIME \
    "median_ms < 2.2250738585072014e-308 OR median_ms > 1.7976931348623157e308"

#define SB_MAX_BINDS 16

/* A statement being put together: its SQL and the text bound to its
 * parameters, in order. */
typedef struct query_text {
    sb_buf sql;
    const char *bind[SB_MAX_BINDS];
    int n;
    char lo[16], hi[16];
} query_text;

static void where_text(query_text *q, const char *cond, const char *value)
{
    if (!value)
        return;
    sb_buf_puts(&q->sql, cond);
    q->bind[q->n++] = value;
}

/* The conditions of filter f, each only when f sets it, so that SQLite
 * plans every query on the indexes of what it asks for. */
static void where_filter(query_text *q, const sb_result_filter *f)
{
    if (!f) {
        sb_buf_puts(&q->sql, " AND c.profiler IS NULL AND s.run_id IS NULL");
        return;
    }
    where_text(q, " AND c.suite = ?", f->suite);
    where_text(q, " AND c.op = ?", f->op);
    where_text(q, " AND c.provider = ?", f->provider);
    where_text(q, " AND p.arch = ?", f->arch);
    where_text(q, " AND p.sku = ?", f->sku);
    where_text(q, " AND p.git_branch = ?", f->branch);
    if (f->sha) {
        where_text(q, " AND p.git_sha >= ?", f->sha);
        where_text(q, " AND p.git_sha < ? || 'g'", f->sha);
    }
    if (!f->with_profiled)
        sb_buf_puts(&q->sql, " AND c.profiler IS NULL");
    if (f->only_sessions)
        sb_buf_puts(&q->sql, " AND s.run_id IS NOT NULL");
    else if (!f->with_sessions)
        sb_buf_puts(&q->sql, " AND s.run_id IS NULL");
    if (f->after_run > 0)
        sb_buf_printf(&q->sql, " AND r.id > %lld", f->after_run);
    if (f->up_to_run > 0)
        sb_buf_printf(&q->sql, " AND r.id <= %lld", f->up_to_run);
    /* The window is checked on the parsed time (read_set); the dates here
     * only spare reading the runs far outside it. A time stamp
     * sb_rfc3339_parse accepts starts with its local date, at most a day
     * off its UTC date, so runs of the window lie within these bounds
     * (text order of the date prefix). */
    if (f->has_range && f->from > SB_WINDOW_EARLIEST && f->to < SB_WINDOW_LATEST) {
        sb_epoch_date(f->from - 2 * 86400LL, q->lo);
        sb_epoch_date(f->to + 2 * 86400LL, q->hi);
        where_text(q, " AND p.finished_at >= ?", q->lo);
        where_text(q, " AND p.finished_at < ?", q->hi);
    }
}

static void read_row(sqlite3_stmt *st, sb_result *r, sb_text_pool *p)
{
    memset(r, 0, sizeof *r);
    int i = 0;
    r->run_id = sqlite3_column_int64(st, i++);
    r->status = run_text(st, i++, p, 1, 0);
    r->reason = run_text(st, i++, p, 0, 1);
    r->source_path = run_text(st, i++, p, 0, 0);
    r->source_format = run_text(st, i++, p, 1, 0);
    r->run_uuid = run_text(st, i++, p, 0, 1);
    r->suite = run_text(st, i++, p, 1, 0);
    r->op = run_text(st, i++, p, 1, 0);
    r->mode = run_text(st, i++, p, 1, 0);
    r->provider = run_text(st, i++, p, 1, 0);
    r->backend = run_text(st, i++, p, 1, 0);
    r->dtype = run_text(st, i++, p, 1, 0);
    r->shape_key = run_text(st, i++, p, 1, 0);
    r->shape_json = run_text(st, i++, p, 1, 0);
    r->params_json = run_text(st, i++, p, 1, 0);
    r->case_key = run_text(st, i++, p, 1, 0);
    r->timer = run_text(st, i++, p, 1, 0);
    r->l2 = run_text(st, i++, p, 1, 0);
    r->warmup_iters = col_int(st, i++);
    r->warmup_ms = col_real(st, i++);
    r->iters = col_int(st, i++);
    r->repeats = col_int(st, i++);
    r->input_sets = col_int(st, i++);
    r->graph = (int)col_int(st, i++);
    r->git_sha = run_text(st, i++, p, 1, 0);
    r->tool_name = run_text(st, i++, p, 1, 0);
    r->tool_version = run_text(st, i++, p, 1, 0);
    r->driver = run_text(st, i++, p, 1, 1);
    r->cuda = run_text(st, i++, p, 1, 1);
    r->cublas = run_text(st, i++, p, 1, 1);
    r->gpu_name = run_text(st, i++, p, 1, 0);
    r->arch = run_text(st, i++, p, 1, 0);
    r->sku = run_text(st, i++, p, 1, 0);
    r->hostname = run_text(st, i++, p, 1, 1);
    r->finished_at = run_text(st, i++, p, 0, 1);
    r->median_ms = col_real(st, i++);
    r->p20_ms = col_real(st, i++);
    r->p80_ms = col_real(st, i++);
    r->flops = col_real(st, i++);
    r->bytes = col_real(st, i++);
    r->tflops = col_real(st, i++);
    r->gbps = col_real(st, i++);
    r->sample_count = col_int(st, i++);
    r->quantiles_only = col_int(st, i++) == 1;
    r->correct = (int)col_int(st, i++);
    /* Imported timings whose source checks nothing carry passed = NULL
     * and reference 'imported': usable, but marked as not re-checked. */
    r->unchecked = r->correct == -1 && sqlite3_column_type(st, i) == SQLITE_TEXT &&
                   strcmp((const char *)sqlite3_column_text(st, i), "imported") == 0;
    i++;
    r->passing = r->status && strcmp(r->status, "passed") == 0 && (r->correct == 1 || r->unchecked);
    r->run_params_json = run_text(st, i++, p, 1, 1);
    r->settle_ms = col_real(st, i++);
    r->launch_hold = col_int(st, i++) == 1;
    r->kernel_median_ms = col_real(st, i++);
    r->kernel_method = run_text(st, i++, p, 1, 1);
    r->repeat_spread = col_real(st, i++);
    r->peak_device_bytes = col_int(st, i++);
    r->packages_json = run_text(st, i++, p, 1, 0);
    r->profiler = run_text(st, i++, p, 1, 1);
    r->git_branch = run_text(st, i++, p, 1, 1);
    r->session_id = run_text(st, i++, p, 1, 1);
    r->session_copy = r->session_id ? (int)col_int(st, i) : 0;
    i++;
    r->hold_timeouts = (int)col_int(st, i++);
    if (!r->finished_at || sb_rfc3339_parse(r->finished_at, &r->finished_epoch) != 0)
        r->finished_epoch = LLONG_MIN;
}

static int push_result(sb_result **v, size_t *n, size_t *cap, const sb_result *r)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        sb_result *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = *r;
    return 0;
}

/* A row read_set does not keep: its text, unless that is in a pool. */
static void drop_row(sb_result *r, const sb_text_pool *pool)
{
    if (!pool)
        sb_result_free(r);
}

/* Runs the statement q describes and adds its runs to out: those in the
 * window of f (when it has one), the passed ones whose time is unusable
 * to out->left_out. */
static int read_set(sqlite3 *db, query_text *q, const sb_result_filter *f, sb_result_set *out,
                    size_t *cap, size_t *left_cap, sb_text_pool *pool, sb_error *err)
{
    if (sb_buf_failed(&q->sql))
        return sb_error_set(err, NULL, NULL, "out of memory");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sb_buf_str(&q->sql), -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "query failed");
    for (int i = 0; i < q->n; i++)
        sqlite3_bind_text(st, i + 1, q->bind[i], -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sb_result r;
        read_row(st, &r, pool);
        if (!r.status || !r.case_key || !r.sku || !r.git_sha) {
            drop_row(&r, pool);
            rc = SQLITE_NOMEM;
            break;
        }
        if (f && f->has_range &&
            (r.finished_epoch == LLONG_MIN || r.finished_epoch < f->from ||
             r.finished_epoch >= f->to)) {
            drop_row(&r, pool);
            continue;
        }
        if (!usable_time(r.kernel_median_ms))
            r.kernel_median_ms = NAN;
        /* NULL reads as NAN (a run without a time); SQLite stores no NaN */
        int left = strcmp(r.status, "passed") == 0 && !isnan(r.median_ms) && !usable_time(r.median_ms);
        if (left ? push_result(&out->left_out, &out->n_left_out, left_cap, &r)
                 : push_result(&out->v, &out->n, cap, &r)) {
            drop_row(&r, pool);
            rc = SQLITE_NOMEM;
            break;
        }
    }
    if (rc != SQLITE_DONE) {
        sb_error_set(err, sqlite3_db_filename(db, "main"), NULL, "reading results failed: %s",
                     rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return SB_ERR;
    }
    sqlite3_finalize(st);
    return SB_OK;
}

/* Loads into out (added to what it holds) the result runs of f that also
 * meet extra (SQL ANDed, its parameters extra_bind), in report order. */
static int load_where(sqlite3 *db, const sb_result_filter *f, const char *extra,
                      const char *const *extra_bind, int n_extra, sb_result_set *out,
                      size_t *cap, size_t *left_cap, sb_text_pool *pool, sb_error *err)
{
    query_text q;
    memset(&q, 0, sizeof q);
    sb_buf_puts(&q.sql, RESULT_SELECT);
    where_filter(&q, f);
    if (extra)
        sb_buf_puts(&q.sql, extra);
    for (int i = 0; i < n_extra && q.n < SB_MAX_BINDS; i++)
        q.bind[q.n++] = extra_bind[i];
    sb_buf_puts(&q.sql, RESULT_ORDER);
    int rc = read_set(db, &q, f, out, cap, left_cap, pool, err);
    sb_buf_free(&q.sql);
    return rc;
}

/* sb_results_load; with pooled, the text in one pool (as it gives it),
 * else each string malloc'd, for callers here that free runs one by
 * one. */
static int results_load_where(sqlite3 *db, const sb_result_filter *f, const char *extra,
                              const char *const *extra_bind, int n_extra, sb_result_set *out, int pooled,
                              sb_error *err);

static int results_load(sqlite3 *db, const sb_result_filter *f, sb_result_set *out, int pooled,
                        sb_error *err)
{
    return results_load_where(db, f, NULL, NULL, 0, out, pooled, err);
}

/* results_load of the runs that also meet extra (SQL ANDed, its
 * parameters extra_bind). */
static int results_load_where(sqlite3 *db, const sb_result_filter *f, const char *extra,
                              const char *const *extra_bind, int n_extra, sb_result_set *out, int pooled,
                              sb_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0, left_cap = 0;
    /* the text of every run of the set in one pool (model/stored_result.h) */
    if (pooled && !(out->text = sb_text_pool_new()))
        return sb_error_set(err, NULL, NULL, "out of memory");
    /* Sorted here, not by an ORDER BY: SQLite's sorter would hold a copy
     * of every row (a million runs: about a gigabyte) beside the set
     * being built from them. */
    query_text q;
    memset(&q, 0, sizeof q);
    sb_buf_puts(&q.sql, RESULT_SELECT);
    where_filter(&q, f);
    if (extra)
        sb_buf_puts(&q.sql, extra);
    for (int i = 0; i < n_extra && q.n < SB_MAX_BINDS; i++)
        q.bind[q.n++] = extra_bind[i];
    int rc = read_set(db, &q, f, out, &cap, &left_cap, out->text, err);
    sb_buf_free(&q.sql);
    if (rc == SB_OK && (sort_runs(out->v, out->n) != 0 || sort_runs(out->left_out, out->n_left_out) != 0))
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    if (rc != SB_OK)
        sb_results_free(out);
    return rc;
}

int sb_results_load(sb_db *handle, const sb_result_filter *f, sb_result_set *out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    return results_load(db, f, out, 1, err);
}

int sb_results_load_ids(sb_db *handle, const sb_result_filter *f, const long long *ids, size_t n,
                        sb_result_set *out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    memset(out, 0, sizeof *out);
    /* the ids as one JSON array, one parameter however many there are */
    sb_buf list = SB_BUF_INIT;
    sb_buf_puts(&list, "[");
    for (size_t i = 0; i < n; i++)
        sb_buf_printf(&list, "%s%lld", i ? "," : "", ids[i]);
    sb_buf_puts(&list, "]");
    const char *bind[] = {sb_buf_str(&list)};
    /* sorted by results_load, not by an ORDER BY (whose sorter would hold
     * a copy of every row) */
    int rc = sb_buf_failed(&list)
                 ? sb_error_set(err, NULL, NULL, "out of memory")
                 : results_load_where(db, f, " AND r.id IN (SELECT value FROM json_each(?))", bind, 1, out, 1,
                                      err);
    sb_buf_free(&list);
    return rc;
}

int sb_results_load_sessions(sb_db *handle, sb_result_set *out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    memset(out, 0, sizeof *out);
    size_t cap = 0, left_cap = 0;
    if (!(out->text = sb_text_pool_new()))
        return sb_error_set(err, NULL, NULL, "out of memory");
    sb_result_filter f = {0};
    f.with_sessions = 1;
    if (load_where(db, &f, " AND s.run_id IS NOT NULL", NULL, 0, out, &cap, &left_cap, out->text,
                   err) != SB_OK) {
        sb_results_free(out);
        return SB_ERR;
    }
    return SB_OK;
}

/* Sorts v into report order and frees the second copy of a run loaded
 * twice. */
static void sort_unique(sb_result *v, size_t *n)
{
    if (*n < 2)
        return;
    qsort(v, *n, sizeof *v, report_order);
    size_t m = 1;
    for (size_t i = 1; i < *n; i++) {
        if (v[i].run_id == v[m - 1].run_id)
            sb_result_free(&v[i]);
        else
            v[m++] = v[i];
    }
    *n = m;
}

int sb_results_load_any(sb_db *handle, const sb_result_filter *fs, size_t nf, sb_result_set *out,
                        sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    memset(out, 0, sizeof *out);
    size_t cap = 0, left_cap = 0;
    for (size_t i = 0; i < nf; i++) {
        if (load_where(db, &fs[i], NULL, NULL, 0, out, &cap, &left_cap, NULL, err) != SB_OK) {
            sb_results_free(out);
            return SB_ERR;
        }
    }
    sort_unique(out->v, &out->n);
    sort_unique(out->left_out, &out->n_left_out);
    return SB_OK;
}

static int newer(const sb_result *a, const sb_result *b)
{
    if (a->finished_epoch != b->finished_epoch)
        return a->finished_epoch > b->finished_epoch;
    return a->run_id > b->run_id;
}

static int same_series(const sb_result *a, const sb_result *b)
{
    return strcmp(a->case_key, b->case_key) == 0 && strcmp(a->provider, b->provider) == 0 &&
           strcmp(a->sku, b->sku) == 0;
}

/* Appends the newest run of each series of s->v (in report order) to
 * keep and frees the others; s->v is emptied, whatever happens. */
static int keep_newest(sb_result_set *s, sb_result **keep, size_t *n, size_t *cap)
{
    int rc = 0;
    for (size_t i = 0; i < s->n;) {
        size_t j = i, best = i;
        while (j + 1 < s->n && same_series(&s->v[j + 1], &s->v[i])) {
            j++;
            if (newer(&s->v[j], &s->v[best]))
                best = j;
        }
        if (rc == 0 && push_result(keep, n, cap, &s->v[best]) == 0)
            memset(&s->v[best], 0, sizeof s->v[best]);
        else
            rc = -1;
        for (size_t k = i; k <= j; k++)
            sb_result_free(&s->v[k]);
        i = j + 1;
    }
    free(s->v);
    s->v = NULL;
    s->n = 0;
    return rc;
}

/* series_latest's word on a run: its finished time and whether the
 * series is unsure (migration 011). */
typedef struct latest_mark {
    long long run_id, epoch;
    int unsure;
} latest_mark;

static int mark_cmp(const void *a, const void *b)
{
    long long x = ((const latest_mark *)a)->run_id, y = ((const latest_mark *)b)->run_id;
    return (x > y) - (x < y);
}

/* head, then the rows of series_latest of f's suite, op, provider and
 * SKU (NULL: all). */
static void where_latest(query_text *q, const char *head, const sb_result_filter *f)
{
    sb_buf_puts(&q->sql, head);
    sb_buf_puts(&q->sql, " FROM series_latest WHERE 1");
    if (f) {
        where_text(q, " AND suite = ?", f->suite);
        where_text(q, " AND op = ?", f->op);
        where_text(q, " AND provider = ?", f->provider);
        where_text(q, " AND sku = ?", f->sku);
    }
}

/* The runs series_latest names for f (NULL: all), by run id. */
static int latest_marks(sqlite3 *db, const sb_result_filter *f, latest_mark **out, size_t *n,
                        sb_error *err)
{
    *out = NULL;
    *n = 0;
    query_text q;
    memset(&q, 0, sizeof q);
    where_latest(&q, "SELECT run_id, finished_epoch, unsure", f);
    sqlite3_stmt *st = NULL;
    if (sb_buf_failed(&q.sql) ||
        sqlite3_prepare_v2(db, sb_buf_str(&q.sql), -1, &st, NULL) != SQLITE_OK) {
        sb_buf_free(&q.sql);
        return sb_db_conn_fail(db, err, "query failed");
    }
    sb_buf_free(&q.sql);
    for (int i = 0; i < q.n; i++)
        sqlite3_bind_text(st, i + 1, q.bind[i], -1, SQLITE_STATIC);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 256;
            latest_mark *nv = realloc(*out, nc * sizeof *nv);
            if (!nv) {
                rc = SQLITE_NOMEM;
                break;
            }
            *out = nv;
            cap = nc;
        }
        (*out)[(*n)++] = (latest_mark){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                       sqlite3_column_int(st, 2)};
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*out);
        *out = NULL;
        *n = 0;
        return sb_error_set(err, sqlite3_db_filename(db, "main"), NULL,
                            "reading the newest runs failed: %s",
                            rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    }
    if (*n)
        qsort(*out, *n, sizeof **out, mark_cmp);
    return SB_OK;
}

static const latest_mark *mark_of(const sb_result *r, const latest_mark *marks, size_t nm)
{
    latest_mark key = {r->run_id, 0, 0};
    return nm ? bsearch(&key, marks, nm, sizeof key, mark_cmp) : NULL;
}

/* Whether m, series_latest's word on run r (the newest of its series for
 * one suite), holds: r is a timing, its series sure and its time read
 * alike by SQLite and sb_rfc3339_parse (an absent or unread time is
 * LLONG_MIN on both sides). A run whose time is unusable is in
 * left_out, not here. */
static int mark_holds(const sb_result *r, const latest_mark *m)
{
    return !m->unsure && m->epoch == r->finished_epoch && !r->profiler && !r->session_id;
}

/* Whether a stored newest run of the series of r is in s->left_out. */
static int series_left_out(const sb_result_set *s, const sb_result *r, const latest_mark *marks,
                           size_t nm)
{
    for (size_t k = 0; k < s->n_left_out; k++)
        if (same_series(&s->left_out[k], r) && mark_of(&s->left_out[k], marks, nm))
            return 1;
    return 0;
}

/* Frees and drops the runs of s->v[from..] and s->left_out outside f's
 * suite, op, provider and SKU (the runs still pending carry no filter). */
static void drop_unmatched(sb_result_set *s, const sb_result_filter *f)
{
    if (!f)
        return;
    sb_result_filter g = {0};
    g.suite = f->suite;
    g.op = f->op;
    g.provider = f->provider;
    g.sku = f->sku;
    g.with_profiled = 1;
    g.with_sessions = 1;
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (sb_result_matches(&s->v[i], &g))
            s->v[m++] = s->v[i];
        else
            sb_result_free(&s->v[i]);
    }
    s->n = m;
    m = 0;
    for (size_t i = 0; i < s->n_left_out; i++) {
        if (sb_result_matches(&s->left_out[i], &g))
            s->left_out[m++] = s->left_out[i];
        else
            sb_result_free(&s->left_out[i]);
    }
    s->n_left_out = m;
}

/* Appends to out the newest run of the series of r (case, provider, SKU)
 * under f, read whole. */
static int series_newest(sqlite3 *db, const sb_result_filter *f, const sb_result *r,
                         sb_result_set *out, size_t *cap, sb_error *err)
{
    sb_result_filter g = {0};
    if (f)
        g = *f;
    g.provider = r->provider;
    g.sku = r->sku;
    const char *key = r->case_key;
    sb_result_set series = {0};
    size_t c2 = 0, l2 = 0;
    int rc = load_where(db, &g, " AND c.case_key = ?", &key, 1, &series, &c2, &l2, NULL, err);
    if (rc == SB_OK && keep_newest(&series, &out->v, &out->n, cap) != 0)
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    sb_results_free(&series);
    return rc;
}

int sb_results_load_latest(sb_db *handle, const sb_result_filter *f, sb_result_set *out,
                           sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    memset(out, 0, sizeof *out);
    size_t cap = 0, left_cap = 0;
    sb_result_set all = {0};
    if (f && (f->arch || f->sha || f->branch || f->has_range || f->with_profiled || f->with_sessions ||
              f->only_sessions || f->after_run > 0 || f->up_to_run > 0)) {
        /* series_latest knows neither these conditions nor profiled or
         * session runs */
        if (results_load(db, f, &all, 0, err) != SB_OK)
            return SB_ERR;
        out->left_out = all.left_out;
        out->n_left_out = all.n_left_out;
        all.left_out = NULL;
        all.n_left_out = 0;
        if (keep_newest(&all, &out->v, &out->n, &cap) != 0) {
            sb_results_free(out);
            return sb_error_set(err, NULL, NULL, "out of memory");
        }
        return SB_OK;
    }
    latest_mark *marks = NULL;
    size_t nm = 0;
    if (latest_marks(db, f, &marks, &nm, err) != SB_OK)
        return SB_ERR;
    /* The runs series_latest names and those still pending, profiled ones
     * and session ones too, so that a series whose stored newest is one of
     * those is seen and
     * read whole. */
    sb_result_filter cand = {0};
    cand.with_profiled = 1;
    cand.with_sessions = 1;
    query_text q;
    memset(&q, 0, sizeof q);
    where_latest(&q, " AND r.id IN (SELECT run_id", f);
    sb_buf_puts(&q.sql, " UNION ALL SELECT run_id FROM series_pending)");
    size_t acap = 0, aleft = 0;
    int rc = sb_buf_failed(&q.sql) ? sb_error_set(err, NULL, NULL, "out of memory")
                                   : load_where(db, &cand, sb_buf_str(&q.sql), q.bind, q.n, &all,
                                                &acap, &aleft, NULL, err);
    sb_buf_free(&q.sql);
    if (rc == SB_OK) {
        drop_unmatched(&all, f);
        sort_unique(all.v, &all.n);
    }
    /* series whose only stored newest runs are left out */
    for (size_t k = 0; rc == SB_OK && k < all.n_left_out; k++) {
        const sb_result *r = &all.left_out[k];
        int seen = !mark_of(r, marks, nm);
        for (size_t x = 0; x < k && !seen; x++)
            seen = same_series(&all.left_out[x], r) && mark_of(&all.left_out[x], marks, nm);
        for (size_t x = 0; x < all.n && !seen; x++)
            seen = same_series(&all.v[x], r);
        if (!seen)
            rc = series_newest(db, f, r, out, &cap, err);
    }
    /* A series whose stored newest runs (one a suite) all hold keeps the
     * newest timing among them and its pending runs; any other is read
     * whole. */
    for (size_t i = 0; rc == SB_OK && i < all.n;) {
        size_t j = i;
        int holds = 1;
        const sb_result *best = NULL;
        for (;; j++) {
            const sb_result *r = &all.v[j];
            const latest_mark *m = mark_of(r, marks, nm);
            holds &= !m || mark_holds(r, m);
            if (!r->profiler && !r->session_id && (!best || newer(r, best)))
                best = r;
            if (j + 1 == all.n || !same_series(&all.v[j + 1], &all.v[i]))
                break;
        }
        if (holds && !series_left_out(&all, &all.v[i], marks, nm)) {
            if (best && push_result(&out->v, &out->n, &cap, best) != 0)
                rc = sb_error_set(err, NULL, NULL, "out of memory");
            else if (best)
                memset(&all.v[best - all.v], 0, sizeof *best);
        } else {
            rc = series_newest(db, f, &all.v[i], out, &cap, err);
        }
        i = j + 1;
    }
    free(marks);
    sb_results_free(&all);
    if (rc != SB_OK) {
        sb_results_free(out);
        return SB_ERR;
    }
    sort_unique(out->v, &out->n);
    /* the left-out runs of f, through their partial index */
    if (load_where(db, f, " AND r.status = 'passed' AND r.id IN (SELECT run_id FROM metrics"
                          " WHERE " SB_UNUSABLE_TIME ")",
                   NULL, 0, out, &cap, &left_cap, NULL, err) != SB_OK) {
        sb_results_free(out);
        return SB_ERR;
    }
    return SB_OK;
}

struct sb_samples_query {
    sqlite3 *db;
    sqlite3_stmt *st;
    long long cache_size; /* the connection's before the walk; restored on close */
};

/* PRAGMA cache_size of db, or 0 where it cannot be read (SQLite's
 * default then stays after the walk). */
static long long cache_size_of(sqlite3 *db)
{
    sqlite3_stmt *st;
    long long v = 0;
    if (sqlite3_prepare_v2(db, "PRAGMA cache_size", -1, &st, NULL) != SQLITE_OK)
        return 0;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int sb_samples_query_open(sb_db *handle, sb_samples_query **out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    sb_samples_query *q = calloc(1, sizeof *q);
    if (!q)
        return sb_error_set(err, NULL, NULL, "out of memory");
    q->db = db;
    /* A walk loads the samples of one series' runs after another's: a
     * series' runs lie a night's batch of rows apart, on the pages the
     * series before it read. With SQLite's default 2 MiB cache nearly
     * every load was a read of the file (a 32 KiB page copied per run);
     * 64 MiB keeps the pages of a series' commits between series. The
     * connection's own size comes back when the walk closes the query,
     * which gives those pages back: a bulk reader (db/bulk_reader.h)
     * walks once and then renders. */
    q->cache_size = cache_size_of(db);
    if (q->cache_size < 0 && q->cache_size > -65536)
        sqlite3_exec(db, "PRAGMA cache_size = -65536", NULL, NULL, NULL);
    else
        q->cache_size = 0;
    if (sqlite3_prepare_v2(db, "SELECT value_ms FROM run_samples WHERE run_id = ?",
                           -1, &q->st, NULL) != SQLITE_OK) {
        sb_db_conn_fail(db, err, "query failed");
        free(q);
        return SB_ERR;
    }
    *out = q;
    return SB_OK;
}

int sb_kernel_samples_text(sb_db *handle, long long run_id, char **json, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *json = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT json_extract(raw_json, '$.timing.kernel.samples') FROM runs WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "query failed");
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) {
        if (!(*json = strdup((const char *)sqlite3_column_text(st, 0)))) {
            sqlite3_finalize(st);
            return sb_error_set(err, NULL, NULL, "out of memory");
        }
    } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        sqlite3_finalize(st);
        return sb_db_conn_fail(db, err, "query failed");
    }
    sqlite3_finalize(st);
    return SB_OK;
}

void sb_samples_query_close(sb_samples_query *q)
{
    if (!q)
        return;
    if (q->cache_size != 0) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA cache_size = %lld", q->cache_size);
        sqlite3_exec(q->db, sql, NULL, NULL, NULL);
    }
    sqlite3_finalize(q->st);
    free(q);
}

int sb_samples_load(sb_db *db, long long run_id, double **v, size_t *n, sb_error *err)
{
    *v = NULL;
    *n = 0;
    sb_samples_query *q;
    if (sb_samples_query_open(db, &q, err) != SB_OK)
        return SB_ERR;
    int rc = sb_samples_query_load(q, run_id, v, n, err);
    sb_samples_query_close(q);
    return rc;
}

int sb_run_samples_load_ids(sb_db *db, const long long *ids, size_t n, sb_run_samples *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return SB_OK;
    sb_samples_query *q;
    if (sb_samples_query_open(db, &q, err) != SB_OK)
        return SB_ERR;
    int rc = SB_OK;
    for (size_t i = 0; rc == SB_OK && i < n; i++) {
        double *v = NULL;
        size_t nv = 0;
        rc = sb_samples_query_load(q, ids[i], &v, &nv, err);
        if (rc == SB_OK)
            rc = sb_run_samples_add(out, ids[i], v, nv, err);
        else
            free(v);
    }
    sb_samples_query_close(q);
    if (rc != SB_OK)
        sb_run_samples_free(out);
    return rc;
}

int sb_samples_query_load(sb_samples_query *q, long long run_id, double **v, size_t *n,
                          sb_error *err)
{
    sqlite3 *db = q->db;
    *v = NULL;
    *n = 0;
    sqlite3_stmt *st = q->st;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    const char *why = NULL;
    if (rc == SQLITE_ROW) {
        size_t cap = 0;
        why = sb_sample_blob_column(st, 0, v, &cap, n);
        rc = SQLITE_DONE;
    }
    sqlite3_reset(st);
    if (!why && rc != SQLITE_DONE)
        why = sqlite3_errmsg(db);
    if (why) {
        free(*v);
        *v = NULL;
        *n = 0;
        return sb_error_set(err, sqlite3_db_filename(db, "main"), NULL,
                            "reading samples of run %lld failed: %s", run_id, why);
    }
    return SB_OK;
}

/* Appends the ceiling of columns col (name), col + 1 (unit) and col + 2
 * (value) of st to v (*n of *cap); 0 when out of memory. */
static int ceiling_append(sb_ceiling **v, size_t *n, size_t *cap, long long run_id, sqlite3_stmt *st,
                          int col)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        sb_ceiling *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return 0;
        *v = nv;
        *cap = nc;
    }
    sb_ceiling *c = &(*v)[(*n)++];
    const unsigned char *nm = sqlite3_column_text(st, col);
    const unsigned char *un = sqlite3_column_text(st, col + 1);
    snprintf(c->name, sizeof c->name, "%s", nm ? (const char *)nm : "");
    snprintf(c->unit, sizeof c->unit, "%s", un ? (const char *)un : "");
    c->value = sqlite3_column_double(st, col + 2);
    c->run_id = run_id;
    return 1;
}

int sb_calibrations_load(sb_db *handle, const char *sku, sb_calibration **out, size_t *n,
                         sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    /* +p.sku: the calibrations are found through their own index
     * (runs_calibration, migration 006), not through every run of the SKU */
    const char *sql =
        "SELECT r.id, json_extract(r.raw_json, '$.provenance.device.uuid'),"
        " json_extract(r.raw_json, '$.protocol.buffer_bytes'), c.name, c.unit, c.value"
        " FROM runs r JOIN provenance p ON p.run_id = r.id JOIN ceilings c ON c.run_id = r.id"
        " WHERE r.schema = 'solbook.calibration.v1' AND +p.sku = ?1"
        " ORDER BY p.finished_at DESC, r.id DESC, c.name";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "query failed");
    sqlite3_bind_text(st, 1, sku, -1, SQLITE_STATIC);
    size_t cap = 0, ccap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0);
        if (*n == 0 || (*out)[*n - 1].run_id != id) {
            if (*n == cap) {
                size_t nc = cap ? cap * 2 : 8;
                sb_calibration *nv = realloc(*out, nc * sizeof *nv);
                if (!nv) {
                    rc = SQLITE_NOMEM;
                    break;
                }
                *out = nv;
                cap = nc;
            }
            sb_calibration *k = &(*out)[(*n)++];
            memset(k, 0, sizeof *k);
            k->run_id = id;
            const unsigned char *u = sqlite3_column_text(st, 1);
            snprintf(k->gpu_uuid, sizeof k->gpu_uuid, "%s", u ? (const char *)u : "");
            if (sqlite3_column_type(st, 2) == SQLITE_INTEGER)
                k->buffer_bytes = sqlite3_column_int64(st, 2);
            ccap = 0;
        }
        sb_calibration *k = &(*out)[*n - 1];
        if (!ceiling_append(&k->ceilings, &k->n, &ccap, k->run_id, st, 3)) {
            rc = SQLITE_NOMEM;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        sb_calibrations_free(*out, *n);
        *out = NULL;
        *n = 0;
        return sb_error_set(err, sqlite3_db_filename(db, "main"), NULL,
                            "reading calibrations failed: %s",
                            rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    }
    return SB_OK;
}

int sb_training_load(sb_db *handle, int has_range, long long from, long long to,
                     sb_training_set *out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    out->v = NULL;
    out->n = 0;
    sqlite3_stmt *st = NULL;
    const char *sql =
        "SELECT r.id, r.status, t.model_name, t.dtype, t.strategy, t.patch_name, p.sku, p.arch,"
        " p.gpu_name, p.git_sha, p.driver_version, p.cuda_runtime_version, p.finished_at,"
        " r.source_path, t.seq_len, t.micro_batch_size, t.world_size, t.tokens_per_s,"
        " t.median_step_ms, r.reason, t.patch_kernels_json,"
        " coalesce(json_extract(r.raw_json, '$.workload.scope'), 'model'),"
        " coalesce(json_extract(r.raw_json, '$.workload.mode'), 'train-step'),"
        " json_extract(r.raw_json, '$.memory.peak_device_bytes_per_rank'), t.peak_device_bytes,"
        " json_extract(r.raw_json, '$.timing.stats.p20'), json_extract(r.raw_json, '$.timing.stats.p80'),"
        " json_extract(r.raw_json, '$.loss.check.max_abs_diff'),"
        " json_extract(r.raw_json, '$.loss.check.passed'),"
        " json_extract(r.raw_json, '$.parallelism.gradient_checkpointing'),"
        " r.run_uuid, json_extract(r.raw_json, '$.loss.check.against_run_uuid'),"
        " json_extract(r.raw_json, '$.provenance.device.uuid'),"
        " json_extract(r.raw_json, '$.training_session.id'), json_extract(r.raw_json, '$.training_session.round'),"
        " json_extract(r.raw_json, '$.training_session.position'), json_extract(r.raw_json, '$.timing.timer')"
        /* CROSS JOIN keeps training the outer loop: left to itself SQLite
         * walks every run's key to look each up in training, which costs a
         * pass over all runs per call where most databases hold few or no
         * training runs (the site calls this once per week). */
        " FROM training t CROSS JOIN runs r ON r.id = t.run_id JOIN provenance p ON p.run_id = r.id"
        " ORDER BY t.model_name, p.sku, t.world_size, t.seq_len, t.micro_batch_size, t.patch_name,"
        " p.finished_at, r.id";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "query failed");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sb_training t;
        memset(&t, 0, sizeof t);
        int i = 0;
        t.run_id = sqlite3_column_int64(st, i++);
        t.status = col_str(st, i++);
        t.model_name = col_str(st, i++);
        t.dtype = col_str(st, i++);
        t.strategy = col_str(st, i++);
        t.patch_name = col_str(st, i++);
        t.sku = col_str(st, i++);
        t.arch = col_str(st, i++);
        t.gpu_name = col_str(st, i++);
        t.git_sha = col_str(st, i++);
        t.driver = col_str_or_null(st, i++);
        t.cuda = col_str_or_null(st, i++);
        t.finished_at = col_str_or_null(st, i++);
        t.source_path = col_str(st, i++);
        t.seq_len = col_int(st, i++);
        t.micro_batch_size = col_int(st, i++);
        t.world_size = col_int(st, i++);
        t.tokens_per_s = col_real(st, i++);
        t.median_step_ms = col_real(st, i++);
        t.reason = col_str_or_null(st, i++);
        t.patch_kernels_json = col_str(st, i++);
        t.scope = col_str(st, i++);
        t.mode = col_str(st, i++);
        t.peaks_json = col_str_or_null(st, i++);
        t.peak_device_bytes = col_int(st, i++);
        t.p20_ms = col_real(st, i++);
        t.p80_ms = col_real(st, i++);
        t.loss_max_abs_diff = col_real(st, i++);
        t.loss_gate = (int)col_int(st, i++);
        t.checkpointing = (int)col_int(st, i++);
        t.run_uuid = col_str_or_null(st, i++);
        t.against_run_uuid = col_str_or_null(st, i++);
        t.gpu_uuid = col_str_or_null(st, i++);
        t.session_id = col_str_or_null(st, i++);
        t.session_round = col_int(st, i++);
        t.session_position = col_int(st, i++);
        t.timer = col_str_or_null(st, i++);
        if (!t.finished_at || sb_rfc3339_parse(t.finished_at, &t.finished_epoch) != 0)
            t.finished_epoch = LLONG_MIN;
        if (has_range && (t.finished_epoch == LLONG_MIN || t.finished_epoch < from ||
                          t.finished_epoch >= to)) {
            sb_training_run_free(&t);
            continue;
        }
        if (out->n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            sb_training *nv = realloc(out->v, nc * sizeof *nv);
            if (!nv) {
                sb_training_run_free(&t);
                rc = SQLITE_NOMEM;
                break;
            }
            out->v = nv;
            cap = nc;
        }
        out->v[out->n++] = t;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        sb_training_free(out);
        return sb_error_set(err, sqlite3_db_filename(db, "main"), NULL,
                            "reading training runs failed: %s",
                            rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    }
    return SB_OK;
}

int sb_repeat_clocks(sb_db *handle, long long run_id, sb_buf *clocks, sb_buf *reasons,
                         int *power_capped, double *power_limit_w, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *power_capped = 0;
    *power_limit_w = NAN;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT json_extract(raw_json, '$.timing.repeat_clocks'),"
                               " json_extract(raw_json, '$.provenance.device.power_limit_w')"
                               " FROM runs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "query failed");
    sqlite3_bind_int64(st, 1, run_id);
    const char *text = NULL;
    if (sqlite3_step(st) == SQLITE_ROW) {
        text = (const char *)sqlite3_column_text(st, 0);
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            *power_limit_w = sqlite3_column_double(st, 1);
    }
    json_t *a = text ? json_loads(text, 0, NULL) : NULL;
    sqlite3_finalize(st);
    size_t i;
    json_t *c;
    json_array_foreach(a, i, c) {
        json_t *mhz = json_object_get(c, "sm_mhz");
        if (json_is_integer(mhz))
            sb_buf_printf(clocks, "%s%lld", i ? "/" : "", (long long)json_integer_value(mhz));
        else
            sb_buf_printf(clocks, "%s?", i ? "/" : "");
        size_t k;
        json_t *why;
        json_array_foreach(json_object_get(c, "throttle_reasons"), k, why) {
            const char *w = json_string_value(why);
            if (!w || strstr(sb_buf_str(reasons), w))
                continue;
            sb_buf_printf(reasons, "%s%s", reasons->len ? ", " : "", w);
            if (strstr(w, "power"))
                *power_capped = 1;
        }
    }
    json_decref(a);
    return SB_OK;
}

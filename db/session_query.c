/* session_query.c - the runs of measuring sessions (session_query.h). */
#include "session_query.h"

#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "sample_blob.h"

static const char session_runs_sql[] =
    "SELECT s.run_id, s.session_id, s.copy, s.rounds, s.timing_method, s.check_version, s.gpu_uuid,"
    "       r.status, c.op, c.mode, c.dtype, c.shape_key, c.params_json, c.provider, c.case_key,"
    "       p.sku, p.arch, p.git_sha, p.started_at,"
    "       json_extract(r.raw_json, '$.timing.kernel.samples'),"
    "       json_extract(r.raw_json, '$.timing.samples'),"
    "       json_extract(r.raw_json, '$.memory.peak_absolute_bytes'),"
    "       json_extract(r.raw_json, '$.memory.peak_device_bytes'),"
    "       json_extract(r.raw_json, '$.timing.kernel.hold_timeouts'), c.suite, p.finished_at,"
    "       r.samples_at, rs.rep_lengths, rs.value_ms, c.input_sets"
    "  FROM run_sessions s JOIN runs r ON r.id = s.run_id"
    "  LEFT JOIN run_samples rs ON rs.run_id = s.run_id"
    "  JOIN configs c ON c.run_id = s.run_id JOIN provenance p ON p.run_id = s.run_id"
    "  LEFT JOIN metrics m ON m.run_id = s.run_id"
    " WHERE (?1 IS NULL OR substr(s.session_id, 1, length(?1)) = ?1)"
    /* a passed run whose stored median is no positive normal number is
     * left out here as results_query.c leaves it out of every result set
     * (usable_time): a headline of a session may only rest on runs the
     * report can cite */
    "   AND NOT (r.status = 'passed' AND m.median_ms IS NOT NULL"
    "            AND NOT (m.median_ms >= 2.2250738585072014e-308 AND m.median_ms <= 1.7976931348623157e308))"
    " ORDER BY (SELECT min(p2.started_at) FROM run_sessions s2 JOIN provenance p2 ON p2.run_id = s2.run_id"
    "            WHERE s2.session_id = s.session_id), s.session_id, c.case_key, c.provider, s.copy";

static char *col_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdup((const char *)t) : NULL;
}

/* Reads the current row; 0, or -1 when out of memory (then nothing is kept). */
static int row_read(sqlite3_stmt *st, sb_session_run *r)
{
    memset(r, 0, sizeof *r);
    r->run_id = sqlite3_column_int64(st, 0);
    r->copy = sqlite3_column_int(st, 2);
    r->rounds = sqlite3_column_int(st, 3);
    r->peak_absolute_bytes = sqlite3_column_type(st, 21) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 21);
    r->peak_beyond_inputs_bytes = sqlite3_column_type(st, 22) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 22);
    r->hold_timeouts = sqlite3_column_type(st, 23) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 23);
    r->input_sets = sqlite3_column_type(st, 29) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 29);
    r->suite = col_dup(st, 24);
    r->finished_at = col_dup(st, 25);
    if (!r->suite || (!r->finished_at && sqlite3_column_type(st, 25) != SQLITE_NULL)) {
        sb_session_run_free(r);
        return -1;
    }
    char **strs[] = {&r->session_id, NULL, NULL, &r->timing_method, &r->check_version, &r->gpu_uuid,
                     &r->status, &r->op, &r->mode, &r->dtype, &r->shape_key, &r->params_json,
                     &r->provider, &r->case_key, &r->sku, &r->arch, &r->git_sha, &r->started_at,
                     &r->kernel_samples, &r->call_samples};
    for (int i = 1; i <= 20; i++) {
        if (!strs[i - 1])
            continue;
        *strs[i - 1] = col_dup(st, i);
        /* gpu_uuid and the samples may be NULL; every other column is NOT NULL */
        if (!*strs[i - 1] && sqlite3_column_type(st, i) != SQLITE_NULL) {
            sb_session_run_free(r);
            return -1;
        }
    }
    /* the samples cut out of raw_json (sample_blob.h) */
    if (!r->call_samples && sqlite3_column_type(st, 26) != SQLITE_NULL) {
        sb_buf b = SB_BUF_INIT;
        if (sb_samples_json((const char *)sqlite3_column_text(st, 27), sqlite3_column_blob(st, 28),
                            (size_t)sqlite3_column_bytes(st, 28), &b) != 0) {
            sb_buf_free(&b);
            sb_session_run_free(r);
            return -1;
        }
        r->call_samples = sb_buf_take(&b);
    }
    return 0;
}

static int load_one(sqlite3 *conn, const char *prefix, sb_session_runs *out, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(conn, session_runs_sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(conn, err, "reading the sessions' runs");
    if (prefix)
        sqlite3_bind_text(st, 1, prefix, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sb_session_run *v = realloc(out->v, (out->n + 1) * sizeof *v);
        if (!v || row_read(st, &v[out->n]) != 0) {
            if (v)
                out->v = v;
            sqlite3_finalize(st);
            return sb_error_set(err, sqlite3_db_filename(conn, "main"), NULL,
                                "out of memory reading the sessions' runs");
        }
        out->v = v;
        out->n++;
    }
    if (rc != SQLITE_DONE) {
        sb_db_conn_fail(conn, err, "reading the sessions' runs");
        sqlite3_finalize(st);
        return SB_ERR;
    }
    sqlite3_finalize(st);
    return SB_OK;
}

/* One session's runs in a load: out->v[at .. at + n). */
typedef struct session_block {
    size_t at, n;
    const char *start, *id; /* the earliest started_at of its runs, the session id */
} session_block;

static int block_cmp(const void *a, const void *b)
{
    const session_block *x = a, *y = b;
    int c = strcmp(x->start, y->start);
    return c ? c : strcmp(x->id, y->id);
}

/* Puts the sessions loaded one prefix after another in the order one
 * query gives them (session start, then id), each once: which session of
 * a case is the newest must not depend on the order the ids were named
 * in. Every run's own order within its session is kept. */
static int sessions_order(sb_session_runs *out)
{
    size_t nb = 0;
    for (size_t i = 0; i < out->n; i++)
        nb += i == 0 || strcmp(out->v[i].session_id, out->v[i - 1].session_id) != 0;
    session_block *b = calloc(nb ? nb : 1, sizeof *b);
    sb_session_run *v = malloc((out->n ? out->n : 1) * sizeof *v);
    if (!b || !v) {
        free(b);
        free(v);
        return -1;
    }
    nb = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (i == 0 || strcmp(out->v[i].session_id, out->v[i - 1].session_id) != 0)
            b[nb++] = (session_block){i, 0, out->v[i].started_at, out->v[i].session_id};
        session_block *k = &b[nb - 1];
        k->n++;
        if (strcmp(out->v[i].started_at, k->start) < 0)
            k->start = out->v[i].started_at;
    }
    qsort(b, nb, sizeof *b, block_cmp);
    size_t m = 0;
    const char *kept = NULL; /* the id of the last block kept */
    for (size_t k = 0; k < nb; k++) {
        if (kept && strcmp(b[k].id, kept) == 0) { /* two prefixes named one session */
            for (size_t j = 0; j < b[k].n; j++)
                sb_session_run_free(&out->v[b[k].at + j]);
            continue;
        }
        memcpy(&v[m], &out->v[b[k].at], b[k].n * sizeof *v);
        m += b[k].n;
        kept = b[k].id;
    }
    free(b);
    free(out->v);
    out->v = v;
    out->n = m;
    return 0;
}

static int runs_select(sqlite3 *conn, const char *const *ids, size_t nids, sb_session_runs *out,
                           sb_error *err)
{
    if (nids == 0)
        return load_one(conn, NULL, out, err);
    for (size_t i = 0; i < nids; i++)
        if (load_one(conn, ids[i], out, err) != SB_OK)
            return SB_ERR;
    if (nids > 1 && sessions_order(out) != 0)
        return sb_error_set(err, sqlite3_db_filename(conn, "main"), NULL, "out of memory ordering the sessions' runs");
    return SB_OK;
}

int sb_session_runs_load(sb_db *db, const char *const *ids, size_t nids, sb_session_runs *out, sb_error *err)
{
    if (runs_select(sb_db_handle(db), ids, nids, out, err) != SB_OK)
        return SB_ERR;
    /* every comparison of the load reads the rounds' medians; parsed here
     * once, not once a comparison */
    sb_session_runs_medians(out);
    return SB_OK;
}

int sb_session_runs_read(const char *path, const char *const *ids, size_t nids, sb_session_runs *out,
                         sb_error *err)
{
    sb_db *db = NULL;
    if (sb_db_open(path, SB_DB_READ, &db, err) != SB_OK)
        return SB_ERR;
    int rc = sb_session_runs_load(db, ids, nids, out, err);
    sb_db_close(db);
    return rc;
}

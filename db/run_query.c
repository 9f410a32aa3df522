/* run_query.c - queries about stored runs one at a time (run_query.h). */
#include "run_query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "connection.h"
#include "sample_blob.h"
#include "store.h"

int sb_run_raw_json(sb_db *handle, long long run_id, sb_buf *out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT " SB_RAW_JSON_COLUMNS " FROM runs r"
                           " LEFT JOIN run_samples s ON s.run_id = r.id WHERE r.id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "query failed");
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_error_set(err, sqlite3_db_filename(db, "main"), NULL,
                            "run %lld has no stored JSON", run_id);
    }
    rc = sb_raw_json_column(st, 0, out);
    sqlite3_finalize(st);
    if (rc != 0)
        return sb_error_set(err, sqlite3_db_filename(db, "main"), NULL,
                            "run %lld: its stored samples do not fit its JSON", run_id);
    return SB_OK;
}

int sb_run_docs_read(sb_db *db, const int64_t *ids, size_t n, sb_buf **docs, sb_error *err)
{
    *docs = calloc(n + 1, sizeof **docs);
    if (!*docs)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (sb_run_raw_json(db, (long long)ids[i], &(*docs)[i], err) != SB_OK) {
            sb_run_docs_free(*docs, n);
            *docs = NULL;
            return SB_ERR;
        }
    return SB_OK;
}

void sb_run_docs_free(sb_buf *docs, size_t n)
{
    for (size_t i = 0; docs && i < n; i++)
        sb_buf_free(&docs[i]);
    free(docs);
}

double sb_run_metric(sb_db *handle, long long run_id, const char *column)
{
    sqlite3 *db = sb_db_handle(handle);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT %s FROM metrics WHERE run_id = ?1", column);
    sqlite3_stmt *st = NULL;
    double v = NAN;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
            v = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

int sb_run_profiler_values(sb_db *handle, long long run_id, const char *const *metrics,
                           size_t nmetrics, sb_profiler_value_fn fn, void *ctx, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT value, unit FROM profiler_metrics WHERE run_id = ?1 AND "
                               "metric = ?2 AND value IS NOT NULL ORDER BY kernel_index",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "query failed");
    for (size_t m = 0; m < nmetrics; m++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, metrics[m], -1, SQLITE_STATIC);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            fn(ctx, m, sqlite3_column_double(st, 0), (const char *)sqlite3_column_text(st, 1));
        if (rc != SQLITE_DONE) {
            sb_db_conn_fail(db, err, "query failed");
            sqlite3_finalize(st);
            return SB_ERR;
        }
    }
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_runs_on_arch(sb_db *handle, const char *arch, long long *n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM provenance WHERE arch = ?1", -1, &st, NULL) !=
        SQLITE_OK)
        return sb_db_conn_fail(db, err, "query failed");
    sqlite3_bind_text(st, 1, arch, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        *n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return SB_OK;
}

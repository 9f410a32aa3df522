/* run_summary.c - the runs as a whole (run_summary.h). */
#include "run_summary.h"

#include <stdlib.h>

#include "connection.h"
#include "content_key.h"
#include "store.h"

int sb_run_kind_counts(sb_db *handle, sb_run_kind_count_fn fn, void *ctx, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT schema, status, count(*) FROM runs GROUP BY schema, status"
                           " ORDER BY schema, status",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "query failed");
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW)
        fn(ctx, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
           sqlite3_column_int64(st, 2));
    int rc = s == SQLITE_DONE ? SB_OK : sb_db_conn_fail(db, err, "query failed");
    sqlite3_finalize(st);
    return rc;
}

int sb_run_finish_days(sb_db *handle, sb_run_day_fn fn, void *ctx, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT DISTINCT substr(finished_at, 1, 10) FROM provenance"
                           " WHERE finished_at IS NOT NULL ORDER BY 1",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "query failed");
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW)
        fn(ctx, (const char *)sqlite3_column_text(st, 0));
    int rc = s == SQLITE_DONE ? SB_OK : sb_db_conn_fail(db, err, "query failed");
    sqlite3_finalize(st);
    return rc;
}

int sb_run_other_stamp(sb_db *handle, const char *suite, const char *op, sb_buf *out, sb_error *err)
{
    static const char *const SQL[] = {
        "SELECT schema, count(*), max(id) FROM runs WHERE schema <> 'solbook.result.v1'"
        " GROUP BY schema ORDER BY schema",
        "SELECT (SELECT count(*) FROM configs c JOIN profiler_metrics p ON p.run_id = c.run_id"
        " WHERE c.suite = ?1 AND c.op = ?2), (SELECT count(*) FROM commits),"
        " (SELECT count(*) FROM run_sessions)",
    };
    sqlite3 *db = sb_db_handle(handle);
    for (size_t i = 0; i < sizeof SQL / sizeof *SQL; i++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, SQL[i], -1, &st, NULL) != SQLITE_OK)
            return sb_db_conn_fail(db, err, "query failed");
        if (i == 1) {
            sqlite3_bind_text(st, 1, suite, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, op, -1, SQLITE_STATIC);
        }
        int s;
        while ((s = sqlite3_step(st)) == SQLITE_ROW) {
            for (int k = 0; k < sqlite3_column_count(st); k++) {
                const char *v = (const char *)sqlite3_column_text(st, k);
                sb_buf_puts(out, v ? v : "-");
                sb_buf_putc(out, k + 1 < sqlite3_column_count(st) ? ' ' : '\n');
            }
        }
        int rc = s == SQLITE_DONE ? SB_OK : sb_db_conn_fail(db, err, "query failed");
        sqlite3_finalize(st);
        if (rc != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}

struct sb_run_hash_lookup {
    sqlite3 *db;
    sqlite3_stmt *st;
};

int sb_run_hash_lookup_open(sb_db *handle, sb_run_hash_lookup **out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    sb_run_hash_lookup *q = calloc(1, sizeof *q);
    if (!q)
        return sb_error_set(err, NULL, NULL, "out of memory");
    q->db = db;
    /* a range on the index of content_key, the digests in it compared whole */
    if (sqlite3_prepare_v2(db,
                           "SELECT id FROM runs WHERE content_key BETWEEN ?2 AND ?3"
                           " AND content_sha256 >= ?1 AND content_sha256 < ?1 || 'g' ORDER BY id",
                           -1, &q->st, NULL) != SQLITE_OK) {
        sb_db_conn_fail(db, err, "query failed");
        free(q);
        return SB_ERR;
    }
    *out = q;
    return SB_OK;
}

int sb_run_hash_lookup_ids(sb_run_hash_lookup *q, const char *prefix, sb_run_id_fn fn, void *ctx,
                           sb_error *err)
{
    sqlite3_reset(q->st);
    sqlite3_bind_text(q->st, 1, prefix, -1, SQLITE_TRANSIENT);
    long long lo, hi;
    sb_content_key_range(prefix, &lo, &hi);
    sqlite3_bind_int64(q->st, 2, lo);
    sqlite3_bind_int64(q->st, 3, hi);
    int s;
    while ((s = sqlite3_step(q->st)) == SQLITE_ROW)
        fn(ctx, sqlite3_column_int64(q->st, 0));
    return s == SQLITE_DONE ? SB_OK : sb_db_conn_fail(q->db, err, "query failed");
}

void sb_run_hash_lookup_close(sb_run_hash_lookup *q)
{
    if (!q)
        return;
    sqlite3_finalize(q->st);
    free(q);
}

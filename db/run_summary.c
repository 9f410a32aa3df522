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

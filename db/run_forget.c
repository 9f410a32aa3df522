/* run_forget.c - removing stored runs whole (run_forget.h). */
#include "run_forget.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "connection.h"

/* What run id holds, into f; SB_ERR naming the run when there is none. */
static int describe(sb_db *db, long long id, sb_forgotten *f, sb_error *err)
{
    static const char sql[] =
        "SELECT r.source_path, r.status,"
        " COALESCE((SELECT length(x.value_ms) / 8 FROM run_samples x WHERE x.run_id = r.id), 0),"
        " (SELECT count(*) FROM profiler_metrics p WHERE p.run_id = r.id)"
        " FROM runs r WHERE r.id = ?1";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "describing a run");
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        memset(f, 0, sizeof *f);
        f->run_id = id;
        snprintf(f->source_path, sizeof f->source_path, "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(f->status, sizeof f->status, "%s", (const char *)sqlite3_column_text(st, 1));
        f->samples = sqlite3_column_int64(st, 2);
        f->ncu_values = sqlite3_column_int64(st, 3);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return sb_error_set(err, sb_db_path(db), NULL, "no run %lld; nothing was removed", id);
    return rc == SQLITE_ROW ? SB_OK : sb_db_fail(db, err, "describing a run");
}

/* Deletes the runs row; the other tables follow by ON DELETE CASCADE
 * (foreign keys are on in every connection, store.h). */
static int delete_run(sb_db *db, long long id, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(sb_db_handle(db), "DELETE FROM runs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "removing a run");
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(db, err, "removing a run");
}

int sb_runs_forget(sb_db *db, const long long *ids, size_t n, sb_forgotten *out, sb_error *err)
{
    if (sb_db_begin(db, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; i < n; i++) {
        /* a run named twice is removed once and reported twice */
        size_t k = 0;
        while (k < i && ids[k] != ids[i])
            k++;
        if (k < i) {
            out[i] = out[k];
            continue;
        }
        if (describe(db, ids[i], &out[i], err) != SB_OK || delete_run(db, ids[i], err) != SB_OK) {
            sb_db_rollback(db);
            return SB_ERR;
        }
    }
    return sb_db_commit(db, err);
}

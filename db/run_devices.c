/* run_devices.c - the GPU UUID of each result run (run_devices.h). */
#include "run_devices.h"

#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "store.h"

static const char devices_sql[] =
    "SELECT id, gpu_uuid FROM runs"
    " WHERE schema = 'solbook.result.v1' ORDER BY id";
static const char devices_one_sql[] =
    "SELECT gpu_uuid FROM runs"
    " WHERE id = ?1 AND schema = 'solbook.result.v1'";

/* Appends run_id and its UUID (NULL or empty text: none) to out. */
static int devices_push(sb_run_devices *out, size_t *cap, long long run_id, const unsigned char *t)
{
    if (out->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        long long *ids = realloc(out->run_id, nc * sizeof *ids);
        if (ids)
            out->run_id = ids;
        char **u = realloc(out->uuid, nc * sizeof *u);
        if (u)
            out->uuid = u;
        if (!ids || !u)
            return -1;
        *cap = nc;
    }
    char *u = NULL;
    if (t && *t && !(u = strdup((const char *)t)))
        return -1;
    out->run_id[out->n] = run_id;
    out->uuid[out->n++] = u;
    return 0;
}

/* The end of a load: rc SQLITE_DONE keeps out; DEVICES_OOM (out of
 * memory) or an SQLite error frees it and says why. */
enum { DEVICES_OOM = -1 };
static int devices_end(sqlite3 *db, sqlite3_stmt *st, int rc, sb_run_devices *out, sb_error *err)
{
    if (rc == DEVICES_OOM)
        sb_error_set(err, NULL, NULL, "out of memory reading the runs' GPU UUIDs");
    else if (rc != SQLITE_DONE)
        sb_db_conn_fail(db, err, "reading the runs' GPU UUIDs");
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return SB_OK;
    sb_run_devices_free(out);
    return SB_ERR;
}

int sb_run_devices_load(sb_db *handle, sb_run_devices *out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, devices_sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the runs' GPU UUIDs");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (devices_push(out, &cap, sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1)) != 0) {
            rc = DEVICES_OOM;
            break;
        }
    return devices_end(db, st, rc, out, err);
}

static int cmp_id(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int sb_run_devices_load_ids(sb_db *handle, const long long *run_ids, size_t n, sb_run_devices *out,
                            sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    memset(out, 0, sizeof *out);
    long long *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return sb_error_set(err, NULL, NULL, "out of memory reading the runs' GPU UUIDs");
    if (n)
        memcpy(ids, run_ids, n * sizeof *ids);
    qsort(ids, n, sizeof *ids, cmp_id);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, devices_one_sql, -1, &st, NULL) != SQLITE_OK) {
        free(ids);
        return sb_db_conn_fail(db, err, "reading the runs' GPU UUIDs");
    }
    size_t cap = 0;
    int rc = SQLITE_DONE;
    for (size_t i = 0; i < n && rc == SQLITE_DONE; i++) {
        if (i && ids[i] == ids[i - 1])
            continue;
        sqlite3_bind_int64(st, 1, ids[i]);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            if (devices_push(out, &cap, ids[i], sqlite3_column_text(st, 0)) != 0)
                rc = DEVICES_OOM;
            else
                rc = sqlite3_step(st);
        }
        sqlite3_reset(st);
    }
    free(ids);
    return devices_end(db, st, rc, out, err);
}

int sb_run_devices_load_set(sb_db *handle, const sb_result_set *set, sb_run_devices *out,
                            sb_error *err)
{
    long long *ids = malloc((set->n ? set->n : 1) * sizeof *ids);
    if (!ids) {
        memset(out, 0, sizeof *out);
        return sb_error_set(err, NULL, NULL, "out of memory reading the runs' GPU UUIDs");
    }
    for (size_t i = 0; i < set->n; i++)
        ids[i] = set->v[i].run_id;
    int rc = sb_run_devices_load_ids(handle, ids, set->n, out, err);
    free(ids);
    return rc;
}

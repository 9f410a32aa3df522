/* run_devices.c - the GPU UUID of each result run (run_devices.h). */
#include "run_devices.h"

#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "store.h"

static const char devices_sql[] =
    "SELECT id, json_extract(raw_json, '$.provenance.device.uuid') FROM runs"
    " WHERE schema = 'solbook.result.v1' ORDER BY id";

void sb_run_devices_free(sb_run_devices *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->uuid[i]);
    free(d->uuid);
    free(d->run_id);
    memset(d, 0, sizeof *d);
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
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n == cap) {
            size_t nc = cap ? cap * 2 : 256;
            long long *ids = realloc(out->run_id, nc * sizeof *ids);
            if (ids)
                out->run_id = ids;
            char **u = realloc(out->uuid, nc * sizeof *u);
            if (u)
                out->uuid = u;
            if (!ids || !u)
                goto oom;
            cap = nc;
        }
        const unsigned char *t = sqlite3_column_text(st, 1);
        char *u = NULL;
        if (t && *t && !(u = strdup((const char *)t)))
            goto oom;
        out->run_id[out->n] = sqlite3_column_int64(st, 0);
        out->uuid[out->n++] = u;
    }
    if (rc != SQLITE_DONE) {
        sb_db_conn_fail(db, err, "reading the runs' GPU UUIDs");
        sqlite3_finalize(st);
        sb_run_devices_free(out);
        return SB_ERR;
    }
    sqlite3_finalize(st);
    return SB_OK;
oom:
    sqlite3_finalize(st);
    sb_run_devices_free(out);
    return sb_error_set(err, NULL, NULL, "out of memory reading the runs' GPU UUIDs");
}

const char *sb_run_device(const sb_run_devices *d, long long run_id)
{
    size_t lo = 0, hi = d->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->run_id[mid] < run_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->n && d->run_id[lo] == run_id ? d->uuid[lo] : NULL;
}

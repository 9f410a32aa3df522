/* forge_kernels.c - see forge_kernels.h. */
#include "forge_kernels.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "connection.h"

/* Column, and its name in verified_kernels.json. */
static const struct {
    const char *column, *key;
    int json; /* 1: the column holds JSON text, given back parsed */
} COLUMNS[] = {
    {"kernel_id", "kernel_id", 0},         {"version", "version", 0},
    {"language", "language", 0},           {"op", "op", 0},
    {"sku", "sku", 0},                     {"dtype", "dtype", 0},
    {"shapes", "shapes", 0},               {"forge_run", "forge_run", 0},
    {"author", "author", 0},               {"author_kind", "author_kind", 0},
    {"entry_point", "entry_point", 0},     {"min_speedup", "min_speedup", 0},
    {"speedup_min", "speedup_min", 0},     {"speedup_geomean", "speedup_geomean", 0},
    {"gpu_name", "gpu_name", 0},           {"driver_version", "driver_version", 0},
    {"git_sha", "commit", 0},              {"cases_json", "cases", 1},
    {"sources_json", "sources_sha256", 1}, {"registry_path", "registry_path", 0},
    {"status", "status", 0},               {"evidence_level", "evidence_level", 0},
    {"promoted_at", "promoted_at", 0},
};
#define NCOLUMNS (sizeof COLUMNS / sizeof COLUMNS[0])

int sb_db_forge_kernels(sb_db *handle, json_t **kernels, sb_error *err)
{
    sqlite3 *conn = sb_db_handle(handle);
    const char *path = sb_db_path(handle);
    *kernels = NULL;
    char sql[1024] = "SELECT ";
    size_t n = 7;
    for (size_t k = 0; k < NCOLUMNS; k++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, "%s%s", k ? ", " : "", COLUMNS[k].column);
    snprintf(sql + n, sizeof sql - n, " FROM forge_kernels ORDER BY kernel_id");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(conn, sql, -1, &st, NULL) != SQLITE_OK)
        return sb_error_set(err, path, NULL, "query of forge_kernels failed: %s", sqlite3_errmsg(conn));
    json_t *arr = json_array();
    int s;
    while (arr && (s = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *row = json_object();
        for (int k = 0; row && k < (int)NCOLUMNS; k++) {
            json_t *v;
            int type = sqlite3_column_type(st, k);
            if (type == SQLITE_NULL)
                v = json_null();
            else if (COLUMNS[k].json)
                v = json_loads((const char *)sqlite3_column_text(st, k), 0, NULL);
            else if (type == SQLITE_INTEGER)
                v = json_integer(sqlite3_column_int64(st, k));
            else if (type == SQLITE_FLOAT)
                v = json_real(sqlite3_column_double(st, k));
            else
                v = json_string((const char *)sqlite3_column_text(st, k));
            json_object_set_new(row, COLUMNS[k].key, v ? v : json_null());
        }
        if (!row || json_array_append_new(arr, row) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    if (!arr) {
        sqlite3_finalize(st);
        return sb_error_set(err, path, NULL, "out of memory reading forge_kernels");
    }
    if (s != SQLITE_DONE) {
        sb_error_set(err, path, NULL, "query of forge_kernels failed: %s", sqlite3_errmsg(conn));
        sqlite3_finalize(st);
        json_decref(arr);
        return SB_ERR;
    }
    sqlite3_finalize(st);
    *kernels = arr;
    return SB_OK;
}

static void col_text(sqlite3_stmt *st, int i, char *out, size_t size)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(out, size, "%s", t ? (const char *)t : "");
}

int sb_db_forge_cited_run(sb_db *handle, long long id, sb_forge_cited_run *r,
                          sb_error *err)
{
    sqlite3 *conn = sb_db_handle(handle);
    const char *path = sb_db_path(handle);
    static const char *sql =
        "SELECT r.status, c.passed, m.median_ms, cf.case_key, cf.provider, cf.op, cf.dtype, cf.shape_key,"
        " cf.params_json, p.gpu_name, p.sku, p.hostname, p.device_index, p.driver_version,"
        " p.cuda_runtime_version, p.git_sha, c.max_abs_err"
        " FROM runs r JOIN configs cf ON cf.run_id = r.id JOIN provenance p ON p.run_id = r.id"
        " LEFT JOIN correctness c ON c.run_id = r.id LEFT JOIN metrics m ON m.run_id = r.id WHERE r.id = ?";
    memset(r, 0, sizeof *r);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(conn, sql, -1, &st, NULL) != SQLITE_OK)
        return sb_error_set(err, path, NULL, "query of run %lld failed: %s", id, sqlite3_errmsg(conn));
    sqlite3_bind_int64(st, 1, id);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        r->found = 1;
        col_text(st, 0, r->status, sizeof r->status);
        r->passed = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 1);
        r->median_ms = sqlite3_column_type(st, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 2);
        col_text(st, 3, r->case_key, sizeof r->case_key);
        col_text(st, 4, r->provider, sizeof r->provider);
        col_text(st, 5, r->op, sizeof r->op);
        col_text(st, 6, r->dtype, sizeof r->dtype);
        col_text(st, 7, r->shape_key, sizeof r->shape_key);
        const unsigned char *params = sqlite3_column_text(st, 8);
        json_t *pj = params ? json_loads((const char *)params, 0, NULL) : NULL;
        snprintf(r->forge_run, sizeof r->forge_run, "%s",
                 json_is_string(json_object_get(pj, "forge_run")) ? json_string_value(json_object_get(pj, "forge_run")) : "");
        json_decref(pj);
        col_text(st, 9, r->gpu_name, sizeof r->gpu_name);
        col_text(st, 10, r->sku, sizeof r->sku);
        col_text(st, 11, r->hostname, sizeof r->hostname);
        r->device_index = sqlite3_column_type(st, 12) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 12);
        col_text(st, 13, r->driver, sizeof r->driver);
        col_text(st, 14, r->cuda_rt, sizeof r->cuda_rt);
        col_text(st, 15, r->git_sha, sizeof r->git_sha);
        r->max_abs_err = sqlite3_column_type(st, 16) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 16);
    } else if (s != SQLITE_DONE) {
        sb_error_set(err, path, NULL, "query of run %lld failed: %s", id, sqlite3_errmsg(conn));
        sqlite3_finalize(st);
        return SB_ERR;
    }
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_db_forge_kernel_of_run(sb_db *handle, const char *run_id, char *id,
                              size_t size, sb_error *err)
{
    sqlite3 *conn = sb_db_handle(handle);
    const char *path = sb_db_path(handle);
    id[0] = '\0';
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(conn, "SELECT kernel_id FROM forge_kernels WHERE forge_run = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return sb_error_set(err, path, NULL, "registry query failed: %s", sqlite3_errmsg(conn));
    sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW)
        col_text(st, 0, id, size);
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_db_forge_next_version(sb_db *handle, const char *base_id, int *version,
                             sb_error *err)
{
    sqlite3 *conn = sb_db_handle(handle);
    const char *path = sb_db_path(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(conn, "SELECT COALESCE(MAX(version), 0) FROM forge_kernels WHERE base_id = ?", -1,
                           &st, NULL) != SQLITE_OK)
        return sb_error_set(err, path, NULL, "registry query failed: %s", sqlite3_errmsg(conn));
    sqlite3_bind_text(st, 1, base_id, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sb_error_set(err, path, NULL, "registry query failed: %s", sqlite3_errmsg(conn));
        sqlite3_finalize(st);
        return SB_ERR;
    }
    *version = sqlite3_column_int(st, 0) + 1;
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_db_forge_kernel_insert(sb_db *handle, const sb_forge_kernel_row *k,
                              sb_error *err)
{
    sqlite3 *conn = sb_db_handle(handle);
    const char *path = sb_db_path(handle);
    static const char *sql =
        "INSERT INTO forge_kernels (kernel_id, base_id, version, language, op, sku, dtype, shapes, forge_run,"
        " author, author_kind, entry_point, min_speedup, speedup_min, speedup_geomean, gpu_name, driver_version,"
        " git_sha, cases_json, sources_json, registry_path, status, evidence_level, promoted_at)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(conn, sql, -1, &st, NULL) != SQLITE_OK)
        return sb_error_set(err, path, NULL, "registry insert failed: %s", sqlite3_errmsg(conn));
    const char *text[] = {k->kernel_id, k->base_id, NULL, k->language, k->op, k->sku, k->dtype,
                          k->shapes, k->forge_run, k->author, k->author_kind, k->entry_point,
                          NULL, NULL, NULL, k->gpu_name, k->driver_version, k->git_sha,
                          k->cases_json, k->sources_json, k->registry_path, k->status,
                          k->evidence_level, k->promoted_at};
    for (int i = 0; i < (int)(sizeof text / sizeof text[0]); i++)
        sqlite3_bind_text(st, i + 1, text[i], -1, SQLITE_TRANSIENT); /* NULL binds NULL */
    sqlite3_bind_int64(st, 3, k->version);
    sqlite3_bind_double(st, 13, k->min_speedup);
    sqlite3_bind_double(st, 14, k->speedup_min);
    sqlite3_bind_double(st, 15, k->speedup_geomean);
    int rc = SB_OK;
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sb_error_set(err, path, NULL, "registry insert failed: %s", sqlite3_errmsg(conn));
    sqlite3_finalize(st);
    return rc;
}

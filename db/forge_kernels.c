/* forge_kernels.c - see forge_kernels.h. */
#include "forge_kernels.h"

#include <stddef.h>
#include <stdio.h>

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

int sb_db_forge_kernels(sqlite3 *conn, const char *path, json_t **kernels, sb_error *err)
{
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

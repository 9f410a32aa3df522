/* run_list.c - stored runs selected by filters (run_list.h). */
#include "run_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connection.h"

struct sb_run_list {
    sb_db *db;
    sqlite3_stmt *st;
};

enum { C_ID, C_FINISHED, C_ARCH, C_SKU, C_SHA, C_SCHEMA, C_OP, C_MODE, C_PROVIDER, C_DTYPE, C_SHAPE,
       C_MEDIAN, C_STATUS, C_MODEL, C_COUNT, C_SUITE, C_PARAMS, C_PROFILER, C_BRANCH };

/* A param's value as SQLite holds json_extract of it: a number, 1/0 for
 * true/false, else text. */
static void bind_param_value(sqlite3_stmt *st, int i, const char *v)
{
    char *end;
    double d = strtod(v, &end);
    if (*v && !*end && end != v)
        sqlite3_bind_double(st, i, d);
    else if (!strcmp(v, "true") || !strcmp(v, "false"))
        sqlite3_bind_int(st, i, !strcmp(v, "true"));
    else
        sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

int sb_run_list_open(sb_db *db, const sb_run_filter *f, sb_run_list **out, sb_error *err)
{
    *out = NULL;
    size_t np = f->nparams < SB_RUN_FILTER_PARAMS ? f->nparams : SB_RUN_FILTER_PARAMS;
    char pcond[SB_RUN_FILTER_PARAMS * 96] = "";
    for (size_t i = 0; i < np; i++) {
        size_t len = strlen(pcond);
        snprintf(pcond + len, sizeof pcond - len,
                 " AND json_extract(c.params_json, '$.\"' || ?%zu || '\"') = ?%zu", 20 + 2 * i,
                 21 + 2 * i);
    }
    char sql[4096];
    snprintf(sql, sizeof sql,
             "SELECT * FROM (SELECT r.id, p.finished_at, p.arch, p.sku, p.git_sha, r.schema, c.op, c.mode, "
             "c.provider, c.dtype, c.shape_key, coalesce(m.median_ms, t.median_step_ms), r.status, "
             "t.model_name, m.sample_count, c.suite, c.params_json, c.profiler, p.git_branch "
             "FROM runs r JOIN provenance p ON p.run_id = r.id "
             "LEFT JOIN configs c ON c.run_id = r.id LEFT JOIN metrics m ON m.run_id = r.id "
             "LEFT JOIN training t ON t.run_id = r.id "
             "WHERE (?1 IS NULL OR p.arch = ?1) AND (?2 IS NULL OR p.sku = ?2) "
             "AND (?3 IS NULL OR substr(p.git_sha, 1, length(?3)) = ?3) AND (?4 IS NULL OR c.op = ?4) "
             "AND (?5 IS NULL OR c.provider = ?5) AND (?6 IS NULL OR r.status = ?6) "
             "AND (?8 IS NULL OR c.mode = ?8) AND (?9 IS NULL OR c.dtype = ?9) "
             "AND (?10 IS NULL OR c.suite = ?10) AND (?11 IS NULL OR c.shape_key = ?11)%s "
             "ORDER BY p.finished_at DESC, r.id DESC %s) ORDER BY 2, 1",
             pcond, f->limit ? "LIMIT ?7" : "");
    sb_run_list *l = calloc(1, sizeof *l);
    if (!l)
        return sb_error_set(err, sb_db_path(db), NULL, "out of memory");
    l->db = db;
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &l->st, NULL) != SQLITE_OK) {
        sb_db_fail(db, err, "cannot query runs");
        sb_run_list_close(l);
        return SB_ERR;
    }
    const char *args[] = {f->arch, f->sku, f->sha, f->op, f->provider, f->status};
    for (int i = 0; i < 6; i++)
        if (args[i])
            sqlite3_bind_text(l->st, i + 1, args[i], -1, SQLITE_STATIC);
    if (f->limit)
        sqlite3_bind_int64(l->st, 7, f->limit);
    const char *more[] = {f->mode, f->dtype, f->suite, f->shape_key};
    for (int i = 0; i < 4; i++)
        if (more[i])
            sqlite3_bind_text(l->st, 8 + i, more[i], -1, SQLITE_STATIC);
    for (size_t i = 0; i < np; i++) {
        sqlite3_bind_text(l->st, 20 + 2 * (int)i, f->param_names[i], -1, SQLITE_STATIC);
        bind_param_value(l->st, 21 + 2 * (int)i, f->param_values[i]);
    }
    *out = l;
    return SB_OK;
}

static const char *text(sqlite3_stmt *st, int c)
{
    const unsigned char *t = sqlite3_column_text(st, c);
    return t ? (const char *)t : NULL;
}

int sb_run_list_next(sb_run_list *l, sb_run_row *row, sb_error *err)
{
    sqlite3_stmt *st = l->st;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return 0;
    if (rc != SQLITE_ROW)
        return sb_db_fail(l->db, err, "cannot read runs");
    row->id = sqlite3_column_int64(st, C_ID);
    row->finished_at = text(st, C_FINISHED);
    row->arch = text(st, C_ARCH);
    row->sku = text(st, C_SKU);
    row->git_sha = text(st, C_SHA);
    row->schema = text(st, C_SCHEMA);
    row->op = text(st, C_OP);
    row->mode = text(st, C_MODE);
    row->provider = text(st, C_PROVIDER);
    row->dtype = text(st, C_DTYPE);
    row->shape_key = text(st, C_SHAPE);
    row->status = text(st, C_STATUS);
    row->model_name = text(st, C_MODEL);
    row->suite = text(st, C_SUITE);
    row->params_json = text(st, C_PARAMS);
    row->profiler = text(st, C_PROFILER);
    row->git_branch = text(st, C_BRANCH);
    row->has_median = sqlite3_column_type(st, C_MEDIAN) != SQLITE_NULL;
    row->median_ms = row->has_median ? sqlite3_column_double(st, C_MEDIAN) : 0;
    row->has_sample_count = sqlite3_column_type(st, C_COUNT) != SQLITE_NULL;
    row->sample_count = row->has_sample_count ? sqlite3_column_int64(st, C_COUNT) : 0;
    return 1;
}

void sb_run_list_close(sb_run_list *l)
{
    if (!l)
        return;
    sqlite3_finalize(l->st);
    free(l);
}

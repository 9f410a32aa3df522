/* run_record.c - one stored run whole (run_record.h). */
#include "run_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "sample_blob.h"

static const char *text(sqlite3_stmt *st, int c)
{
    return (const char *)sqlite3_column_text(st, c);
}

int sb_run_ids_matching(sb_db *db, int has_id, long long id, const char *key, long long *ids,
                        size_t cap, size_t *n, sb_error *err)
{
    *n = 0;
    sqlite3_stmt *st;
    const char *sql = "SELECT id FROM runs WHERE (?1 IS NOT NULL AND id = ?1) OR run_uuid = ?2 "
                      "OR (length(?2) >= 8 AND substr(content_sha256, 1, length(?2)) = ?2) "
                      "ORDER BY id LIMIT ?3";
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query runs");
    if (has_id)
        sqlite3_bind_int64(st, 1, id);
    if (key)
        sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (long long)cap);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < cap)
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_db_fail(db, err, "cannot query runs");
    }
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_run_record_get(sb_db *db, long long run_id, sb_run_record_fn fn, void *ctx,
                      sb_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT r.schema, r.status, r.reason, r.run_uuid, r.content_sha256, "
                           "r.source_path, r.source_format, r.ingested_at, r.notes, "
                           "coalesce(length(s.value_ms) / 8, 0), " SB_RAW_JSON_COLUMNS
                           " FROM runs r LEFT JOIN run_samples s ON s.run_id = r.id WHERE r.id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query runs");
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_db_fail(db, err, "cannot read the run");
    }
    sb_buf raw = SB_BUF_INIT;
    if (sb_raw_json_column(st, 10, &raw) != 0) {
        sqlite3_finalize(st);
        sb_buf_free(&raw);
        return sb_error_set(err, sb_db_path(db), NULL, "run %lld: its stored samples do not fit its JSON",
                            run_id);
    }
    sb_run_record r = {
        .schema = text(st, 0),
        .status = text(st, 1),
        .reason = text(st, 2),
        .run_uuid = text(st, 3),
        .content_sha256 = text(st, 4),
        .source_path = text(st, 5),
        .source_format = text(st, 6),
        .ingested_at = text(st, 7),
        .notes = text(st, 8),
        .raw_json = sb_buf_str(&raw),
        .stored_samples = sqlite3_column_int64(st, 9),
    };
    int rc = fn(ctx, &r, err);
    sqlite3_finalize(st);
    sb_buf_free(&raw);
    return rc == SB_OK ? SB_OK : SB_ERR;
}

int sb_run_table_rows(sb_db *db, const char *table, long long run_id, sb_run_row_columns_fn fn,
                      void *ctx, sb_error *err)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT * FROM %s WHERE run_id = ?", table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query");
    sqlite3_bind_int64(st, 1, run_id);
    int n = sqlite3_column_count(st);
    sb_column_value cols[64];
    if (n > 64)
        n = 64;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < n; c++) {
            sb_column_value *v = &cols[c];
            v->name = sqlite3_column_name(st, c);
            v->i = 0;
            v->d = 0;
            v->s = NULL;
            switch (sqlite3_column_type(st, c)) {
            case SQLITE_NULL: v->type = SB_VALUE_NULL; break;
            case SQLITE_INTEGER:
                v->type = SB_VALUE_INTEGER;
                v->i = sqlite3_column_int64(st, c);
                break;
            case SQLITE_FLOAT:
                v->type = SB_VALUE_FLOAT;
                v->d = sqlite3_column_double(st, c);
                break;
            default:
                v->type = SB_VALUE_TEXT;
                v->s = text(st, c);
                break;
            }
        }
        if (fn(ctx, cols, (size_t)n, err) != SB_OK) {
            sqlite3_finalize(st);
            return SB_ERR;
        }
    }
    if (rc != SQLITE_DONE) {
        sqlite3_finalize(st);
        return sb_db_fail(db, err, "cannot read");
    }
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_run_ceilings(sb_db *db, long long run_id, sb_run_ceiling_fn fn, void *ctx, sb_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT name, value, unit FROM ceilings WHERE run_id = ? ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query ceilings");
    sqlite3_bind_int64(st, 1, run_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (fn(ctx, text(st, 0), sqlite3_column_double(st, 1), text(st, 2), err) != SB_OK) {
            sqlite3_finalize(st);
            return SB_ERR;
        }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(db, err, "cannot read ceilings");
}

int sb_run_samples_summary(sb_db *db, long long run_id, sb_samples_summary *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT value_ms, (SELECT count(*) FROM json_each(rep_lengths) WHERE value > 0) "
                           "FROM run_samples WHERE run_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query run_samples");
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        return SB_OK;
    }
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_db_fail(db, err, "cannot read run_samples");
    }
    double *v = NULL;
    size_t cap = 0, n = 0;
    const char *why = sb_sample_blob_column(st, 0, &v, &cap, &n);
    if (why) {
        sqlite3_finalize(st);
        free(v);
        return sb_error_set(err, sb_db_path(db), NULL, "run %lld: %s", run_id, why);
    }
    out->count = (long long)n;
    out->repeats = sqlite3_column_int64(st, 1);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || v[i] < out->min_ms)
            out->min_ms = v[i];
        if (i == 0 || v[i] > out->max_ms)
            out->max_ms = v[i];
    }
    free(v);
    sqlite3_finalize(st);
    return SB_OK;
}

/* Frees what *out holds and empties it; SB_ERR with err filled by the
 * caller first. */
static int sample_clocks_fail(sb_sample_clocks *out)
{
    free(out->ms);
    free(out->mhz);
    memset(out, 0, sizeof *out);
    return SB_ERR;
}

int sb_run_sample_clocks(sb_db *db, long long run_id, sb_sample_clocks *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    /* the samples first, and only of a run whose document has clocks:
     * ingest made the clocks as many as the samples */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT s.value_ms FROM run_samples s JOIN runs r ON r.id = s.run_id WHERE s.run_id = ?"
                           " AND json_type(r.raw_json, '$.timing.sample_sm_clock_mhz') = 'array'",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query run_samples");
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    size_t cap = 0;
    const char *why = rc == SQLITE_ROW ? sb_sample_blob_column(st, 0, &out->ms, &cap, &out->n) : NULL;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sb_db_fail(db, err, "cannot read run_samples");
    if (why) {
        sb_error_set(err, sb_db_path(db), NULL, "run %lld: %s", run_id, why);
        return sample_clocks_fail(out);
    }
    if (!out->n)
        return SB_OK;
    if (!(out->mhz = malloc(out->n * sizeof *out->mhz))) {
        sb_error_set(err, sb_db_path(db), NULL, "out of memory");
        return sample_clocks_fail(out);
    }
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT c.value FROM runs r,"
                           " json_each(json_extract(r.raw_json, '$.timing.sample_sm_clock_mhz')) AS rep,"
                           " json_each(rep.value) AS c WHERE r.id = ? ORDER BY rep.key, c.key",
                           -1, &st, NULL) != SQLITE_OK) {
        sb_db_fail(db, err, "cannot query the sample clocks");
        return sample_clocks_fail(out);
    }
    sqlite3_bind_int64(st, 1, run_id);
    size_t k = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && k < out->n)
        out->mhz[k++] = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE || k != out->n) {
        if (rc == SQLITE_DONE || rc == SQLITE_ROW)
            sb_error_set(err, sb_db_path(db), NULL, "run %lld: the sample clocks are not as many as the samples",
                         run_id);
        else
            sb_db_fail(db, err, "cannot read the sample clocks");
        return sample_clocks_fail(out);
    }
    return SB_OK;
}

int sb_run_profiler_rows(sb_db *db, long long run_id, sb_profiler_row_fn fn, void *ctx,
                         sb_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT kernel_index, kernel_name, metric, unit, value, source_path "
                           "FROM profiler_metrics WHERE run_id = ? ORDER BY kernel_index, metric",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query profiler_metrics");
    sqlite3_bind_int64(st, 1, run_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sb_profiler_row r = {
            .kernel_index = sqlite3_column_int64(st, 0),
            .kernel_name = text(st, 1),
            .metric = text(st, 2),
            .unit = text(st, 3),
            .value = sqlite3_column_double(st, 4),
            .source_path = text(st, 5),
        };
        if (fn(ctx, &r, err) != SB_OK) {
            sqlite3_finalize(st);
            return SB_ERR;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(db, err, "cannot read profiler_metrics");
}

/* run_verdicts.c - stored plausibility verdicts (run_verdicts.h). */
#include "run_verdicts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "sha256.h"
#include "strbuf.h"

/* The columns of a verdict, in the order get reads and put binds them. */
#define VERDICT_COLS                                                                                   \
    "verdict, reason, gbps, tflops, ceiling_name, ceiling_gbps, pct_ceiling, calib_run, "              \
    "calib_gpu_uuid, calib_buffer_bytes, calib_card, spread_cards, spread_lo, spread_hi, tensor, "      \
    "flop_ceiling_name, flop_ceiling_tflops, pct_flop_ceiling"

static const char *card_name(sb_plaus_card c)
{
    return c == SB_PLAUS_CARD_OWN ? "own" : c == SB_PLAUS_CARD_OTHER ? "other" : "unknown";
}

static sb_plaus_card card_parse(const unsigned char *t)
{
    if (t && !strcmp((const char *)t, "own"))
        return SB_PLAUS_CARD_OWN;
    if (t && !strcmp((const char *)t, "other"))
        return SB_PLAUS_CARD_OTHER;
    return SB_PLAUS_CARD_UNKNOWN;
}

static void column_text(sqlite3_stmt *st, int i, char *out, size_t size)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(out, size, "%s", t ? (const char *)t : "");
}

int sb_verdicts_basis_read(sb_db *handle, sb_verdict_basis *b, int *found, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    memset(b, 0, sizeof *b);
    *found = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT tables_sha256, calibrations_sha256, last_calibration FROM run_verdicts_basis"
                           " WHERE id = 1",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the plausibility verdicts' basis");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        column_text(st, 0, b->tables_sha256, sizeof b->tables_sha256);
        column_text(st, 1, b->calibrations_sha256, sizeof b->calibrations_sha256);
        b->last_calibration = sqlite3_column_int64(st, 2);
        *found = 1;
        rc = SQLITE_DONE;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sb_db_conn_fail(db, err, "reading the plausibility verdicts' basis");
    return SB_OK;
}

int sb_verdicts_basis_write(sb_db *handle, const sb_verdict_basis *b, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT OR REPLACE INTO run_verdicts_basis"
                           " (id, tables_sha256, calibrations_sha256, last_calibration) VALUES (1, ?1, ?2, ?3)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "storing the plausibility verdicts' basis");
    sqlite3_bind_text(st, 1, b->tables_sha256, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, b->calibrations_sha256, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, b->last_calibration);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sb_db_conn_fail(db, err, "storing the plausibility verdicts' basis");
    return SB_OK;
}

int sb_verdicts_calibrations_digest(sb_db *handle, long long upto, char hex[65], long long *last, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    *last = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT r.id, coalesce(p.sku, ''), coalesce(p.finished_at, ''), c.name, c.value"
                           " FROM runs r LEFT JOIN provenance p ON p.run_id = r.id"
                           " LEFT JOIN ceilings c ON c.run_id = r.id"
                           " WHERE r.schema = 'solbook.calibration.v1' AND r.id <= ?1 ORDER BY r.id, c.name",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the calibration runs");
    sqlite3_bind_int64(st, 1, upto);
    sb_buf text = SB_BUF_INIT;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *sku = sqlite3_column_text(st, 1), *at = sqlite3_column_text(st, 2),
                            *name = sqlite3_column_text(st, 3);
        *last = sqlite3_column_int64(st, 0);
        sb_buf_printf(&text, "%lld %s %s %s %.17g\n", *last, sku ? (const char *)sku : "",
                      at ? (const char *)at : "", name ? (const char *)name : "-", sqlite3_column_double(st, 4));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        sb_buf_free(&text);
        return sb_db_conn_fail(db, err, "reading the calibration runs");
    }
    int out = sb_buf_failed(&text) ? sb_error_set(err, NULL, NULL, "out of memory reading the calibration runs")
                                   : sb_sha256_hex(sb_buf_str(&text), text.len, hex, err);
    sb_buf_free(&text);
    return out;
}

void sb_verdicts_skus_free(char **skus, size_t n)
{
    for (size_t i = 0; skus && i < n; i++)
        free(skus[i]);
    free(skus);
}

int sb_verdicts_calibration_skus(sb_db *handle, long long after, char ***skus, size_t *n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    *skus = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT DISTINCT coalesce(p.sku, '') FROM runs r"
                           " LEFT JOIN provenance p ON p.run_id = r.id"
                           " WHERE r.schema = 'solbook.calibration.v1' AND r.id > ?1 ORDER BY 1",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the new calibrations' SKUs");
    sqlite3_bind_int64(st, 1, after);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        char **nv = realloc(*skus, (*n + 1) * sizeof *nv);
        if (nv)
            *skus = nv;
        if (!nv || !(nv[*n] = strdup(t ? (const char *)t : ""))) {
            sqlite3_finalize(st);
            sb_verdicts_skus_free(*skus, *n);
            *skus = NULL;
            *n = 0;
            return sb_error_set(err, NULL, NULL, "out of memory reading the new calibrations' SKUs");
        }
        (*n)++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        sb_verdicts_skus_free(*skus, *n);
        *skus = NULL;
        *n = 0;
        return sb_db_conn_fail(db, err, "reading the new calibrations' SKUs");
    }
    return SB_OK;
}

int sb_verdicts_first_missing(sb_db *handle, long long *first, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    *first = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT coalesce(min(r.id), 0) FROM runs r WHERE r.schema = 'solbook.result.v1'"
                           " AND r.id > (SELECT coalesce(max(run_id), 0) FROM run_verdicts)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "finding the runs without a plausibility verdict");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *first = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return sb_db_conn_fail(db, err, "finding the runs without a plausibility verdict");
    return SB_OK;
}

int sb_verdicts_last_run(sb_db *handle, long long *last, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    *last = 0;
    if (sqlite3_prepare_v2(db, "SELECT coalesce(max(id), 0) FROM runs WHERE schema = 'solbook.result.v1'", -1, &st,
                           NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "finding the last result run");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *last = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return sb_db_conn_fail(db, err, "finding the last result run");
    return SB_OK;
}

int sb_verdict_states_load_after(sb_db *handle, long long after, sb_verdict_states *out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    memset(out, 0, sizeof *out);
    if (sqlite3_prepare_v2(db, "SELECT run_id, verdict FROM run_verdicts WHERE run_id > ?1 ORDER BY run_id", -1,
                           &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the plausibility verdicts");
    sqlite3_bind_int64(st, 1, after);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n == cap) {
            size_t nc = cap ? cap * 2 : 1024;
            long long *ids = realloc(out->run_id, nc * sizeof *ids);
            if (ids)
                out->run_id = ids;
            sb_plaus_state *sv = realloc(out->state, nc * sizeof *sv);
            if (sv)
                out->state = sv;
            if (!ids || !sv) {
                sqlite3_finalize(st);
                sb_verdict_states_free(out);
                return sb_error_set(err, NULL, NULL, "out of memory reading the plausibility verdicts");
            }
            cap = nc;
        }
        sb_plaus_state state = SB_PLAUS_UNKNOWN;
        sb_plaus_state_parse((const char *)sqlite3_column_text(st, 1), &state);
        out->run_id[out->n] = sqlite3_column_int64(st, 0);
        out->state[out->n++] = state;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        sb_verdict_states_free(out);
        return sb_db_conn_fail(db, err, "reading the plausibility verdicts");
    }
    return SB_OK;
}

struct sb_verdict_reader {
    sqlite3 *db;
    sqlite3_stmt *st;
};

int sb_verdict_reader_open(sb_db *handle, sb_verdict_reader **out, sb_error *err)
{
    *out = NULL;
    sb_verdict_reader *rd = calloc(1, sizeof *rd);
    if (!rd)
        return sb_error_set(err, NULL, NULL, "out of memory");
    rd->db = sb_db_handle(handle);
    if (sqlite3_prepare_v2(rd->db, "SELECT " VERDICT_COLS " FROM run_verdicts WHERE run_id = ?1", -1, &rd->st,
                           NULL) != SQLITE_OK) {
        sb_db_conn_fail(rd->db, err, "reading a plausibility verdict");
        sb_verdict_reader_close(rd);
        return SB_ERR;
    }
    *out = rd;
    return SB_OK;
}

void sb_verdict_reader_close(sb_verdict_reader *rd)
{
    if (!rd)
        return;
    sqlite3_finalize(rd->st);
    free(rd);
}

int sb_verdict_read(sb_verdict_reader *rd, long long run_id, sb_plaus_verdict *v, int *found, sb_error *err)
{
    sqlite3_stmt *st = rd->st;
    *found = 0;
    memset(v, 0, sizeof *v);
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        sb_plaus_state state = SB_PLAUS_UNKNOWN;
        sb_plaus_state_parse((const char *)sqlite3_column_text(st, 0), &state);
        v->state = state;
        column_text(st, 1, v->reason, sizeof v->reason);
        v->gbps = sb_db_column_real(st, 2);
        v->tflops = sb_db_column_real(st, 3);
        column_text(st, 4, v->ceiling_name, sizeof v->ceiling_name);
        v->ceiling_gbps = sb_db_column_real(st, 5);
        v->pct_ceiling = sb_db_column_real(st, 6);
        v->source.calib_run = sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 7);
        column_text(st, 8, v->source.gpu_uuid, sizeof v->source.gpu_uuid);
        v->source.buffer_bytes = sqlite3_column_int64(st, 9);
        v->source.card = card_parse(sqlite3_column_text(st, 10));
        v->source.cards = sqlite3_column_int(st, 11);
        v->source.lo = sb_db_column_real(st, 12);
        v->source.hi = sb_db_column_real(st, 13);
        v->tensor = sqlite3_column_int(st, 14);
        column_text(st, 15, v->flop_ceiling_name, sizeof v->flop_ceiling_name);
        v->flop_ceiling_tflops = sb_db_column_real(st, 16);
        v->pct_flop_ceiling = sb_db_column_real(st, 17);
        *found = 1;
        rc = SQLITE_DONE;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return sb_db_conn_fail(rd->db, err, "reading a plausibility verdict");
    return SB_OK;
}

int sb_verdicts_put(sb_db *handle, const long long *ids, const sb_plaus_verdict *vs, size_t n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT OR REPLACE INTO run_verdicts (run_id, " VERDICT_COLS ") VALUES"
                           " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
                           " ?18, ?19)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "storing the plausibility verdicts");
    int rc = SQLITE_DONE;
    for (size_t i = 0; i < n && rc == SQLITE_DONE; i++) {
        const sb_plaus_verdict *v = &vs[i];
        sqlite3_bind_int64(st, 1, ids[i]);
        sqlite3_bind_text(st, 2, sb_plaus_state_name(v->state), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, v->reason, -1, SQLITE_STATIC);
        sb_db_bind_real(st, 4, v->gbps);
        sb_db_bind_real(st, 5, v->tflops);
        sqlite3_bind_text(st, 6, v->ceiling_name, -1, SQLITE_STATIC);
        sb_db_bind_real(st, 7, v->ceiling_gbps);
        sb_db_bind_real(st, 8, v->pct_ceiling);
        if (v->source.calib_run < 0)
            sqlite3_bind_null(st, 9);
        else
            sqlite3_bind_int64(st, 9, v->source.calib_run);
        sqlite3_bind_text(st, 10, v->source.gpu_uuid, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 11, v->source.buffer_bytes);
        sqlite3_bind_text(st, 12, card_name(v->source.card), -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 13, v->source.cards);
        sb_db_bind_real(st, 14, v->source.lo);
        sb_db_bind_real(st, 15, v->source.hi);
        sqlite3_bind_int(st, 16, v->tensor ? 1 : 0);
        sqlite3_bind_text(st, 17, v->flop_ceiling_name, -1, SQLITE_STATIC);
        sb_db_bind_real(st, 18, v->flop_ceiling_tflops);
        sb_db_bind_real(st, 19, v->pct_flop_ceiling);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sb_db_conn_fail(db, err, "storing the plausibility verdicts");
    return SB_OK;
}

int sb_verdict_states_load_ids(sb_db *handle, const long long *ids, size_t n, sb_verdict_states *out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    memset(out, 0, sizeof *out);
    if (!n)
        return SB_OK;
    out->run_id = malloc(n * sizeof *out->run_id);
    out->state = malloc(n * sizeof *out->state);
    if (!out->run_id || !out->state) {
        sb_verdict_states_free(out);
        return sb_error_set(err, NULL, NULL, "out of memory reading the plausibility verdicts");
    }
    if (sqlite3_prepare_v2(db, "SELECT verdict FROM run_verdicts WHERE run_id = ?1", -1, &st, NULL) != SQLITE_OK) {
        sb_verdict_states_free(out);
        return sb_db_conn_fail(db, err, "reading the plausibility verdicts");
    }
    int rc = SQLITE_DONE;
    for (size_t i = 0; i < n && (rc == SQLITE_DONE || rc == SQLITE_ROW); i++) {
        sqlite3_bind_int64(st, 1, ids[i]);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            sb_plaus_state state = SB_PLAUS_UNKNOWN;
            sb_plaus_state_parse((const char *)sqlite3_column_text(st, 0), &state);
            out->run_id[out->n] = ids[i];
            out->state[out->n++] = state;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        sb_verdict_states_free(out);
        return sb_db_conn_fail(db, err, "reading the plausibility verdicts");
    }
    return SB_OK;
}

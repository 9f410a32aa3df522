/* rg_steps.c - the stored regression history (rg_steps.h). */
#include "rg_steps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "sha256.h"
#include "strbuf.h"

static void bind_real(sqlite3_stmt *st, int i, double x)
{
    if (isnan(x))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, x);
}

static double column_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int sb_rg_state_digest(sb_db *handle, const char *rule, char hex[65], sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT (SELECT count(*) FROM runs), (SELECT coalesce(max(id), 0) FROM runs),"
                           " (SELECT n FROM rg_changes WHERE id = 1), (SELECT user_version FROM pragma_user_version)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the state of the stored runs");
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_db_conn_fail(db, err, "reading the state of the stored runs");
    }
    sb_buf b = SB_BUF_INIT;
    sb_buf_printf(&b, "%s\nruns %lld\nlast run %lld\nchanges %lld\nschema %lld\n", rule,
                  (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1),
                  (long long)sqlite3_column_int64(st, 2), (long long)sqlite3_column_int64(st, 3));
    sqlite3_finalize(st);
    int ok = !sb_buf_failed(&b) && sb_sha256_hex(sb_buf_str(&b), b.len, hex, err) == SB_OK;
    if (!ok && sb_buf_failed(&b))
        sb_error_set(err, NULL, NULL, "out of memory");
    sb_buf_free(&b);
    return ok ? SB_OK : SB_ERR;
}

int sb_rg_basis_read(sb_db *handle, sb_rg_basis *b, int *found, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    memset(b, 0, sizeof *b);
    *found = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT basis_sha256, series_git, series_measured, newest_epoch, undated"
                           " FROM rg_basis WHERE id = 1",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the stored regression steps' basis");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(b->sha256, sizeof b->sha256, "%s", t ? (const char *)t : "");
        b->series_git = sqlite3_column_int64(st, 1);
        b->series_measured = sqlite3_column_int64(st, 2);
        b->newest_epoch = sqlite3_column_int64(st, 3);
        b->undated = sqlite3_column_int64(st, 4);
        *found = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sb_db_conn_fail(db, err, "reading the stored regression steps' basis");
    return SB_OK;
}

static int exec_step(sqlite3 *db, sqlite3_stmt *st, sb_error *err)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return sb_db_conn_fail(db, err, "storing the regression steps");
    return SB_OK;
}

int sb_rg_steps_write(sb_db *handle, const sb_rg_basis *b, const sb_rg_step_rec *steps, size_t n,
                      const sb_rg_noise_rec *noise, size_t nnoise, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    if (sb_db_exec(handle, "DELETE FROM rg_steps; DELETE FROM rg_noise; DELETE FROM rg_basis;", err) != SB_OK)
        return SB_ERR;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO rg_steps (seq, old_run, new_run, old_commit, new_commit, drift_class,"
                           " verdict, cause, latest, same_card, samples_old, samples_new, p, rel_change,"
                           " threshold, threshold_from, range_commits, changed)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "storing the regression steps");
    int rc = SB_OK;
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        const sb_rg_step_rec *s = &steps[i];
        sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
        if (s->old_run < 0)
            sqlite3_bind_null(st, 2);
        else
            sqlite3_bind_int64(st, 2, s->old_run);
        sqlite3_bind_int64(st, 3, s->new_run);
        sqlite3_bind_int64(st, 4, s->old_commit);
        sqlite3_bind_int64(st, 5, s->new_commit);
        sqlite3_bind_int64(st, 6, s->drift_class);
        sqlite3_bind_int(st, 7, s->verdict);
        sqlite3_bind_int(st, 8, s->cause);
        sqlite3_bind_int(st, 9, s->latest);
        sqlite3_bind_int(st, 10, s->same_card);
        sqlite3_bind_int64(st, 11, s->samples_old);
        sqlite3_bind_int64(st, 12, s->samples_new);
        bind_real(st, 13, s->p);
        bind_real(st, 14, s->rel_change);
        bind_real(st, 15, s->threshold);
        sqlite3_bind_int(st, 16, s->threshold_from);
        sqlite3_bind_int64(st, 17, s->range_commits);
        if (s->changed && *s->changed)
            sqlite3_bind_text(st, 18, s->changed, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 18);
        rc = exec_step(db, st, err);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == SB_OK &&
        sqlite3_prepare_v2(db,
                           "INSERT INTO rg_noise (seq, sku, let_go, threshold, comparisons)"
                           " VALUES (?1, ?2, ?3, ?4, ?5)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "storing the regression steps");
    for (size_t i = 0; i < nnoise && rc == SB_OK; i++) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
        sqlite3_bind_text(st, 2, noise[i].sku, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, noise[i].let_go);
        sqlite3_bind_double(st, 4, noise[i].threshold);
        sqlite3_bind_int64(st, 5, noise[i].comparisons);
        rc = exec_step(db, st, err);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == SB_OK &&
        sqlite3_prepare_v2(db,
                           "INSERT INTO rg_basis (id, basis_sha256, series_git, series_measured, newest_epoch,"
                           " undated) VALUES (1, ?1, ?2, ?3, ?4, ?5)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "storing the regression steps");
    if (rc == SB_OK) {
        sqlite3_bind_text(st, 1, b->sha256, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, b->series_git);
        sqlite3_bind_int64(st, 3, b->series_measured);
        sqlite3_bind_int64(st, 4, b->newest_epoch);
        sqlite3_bind_int64(st, 5, b->undated);
        rc = exec_step(db, st, err);
    }
    sqlite3_finalize(st);
    return rc;
}

int sb_rg_steps_each(sb_db *handle, sb_rg_step_fn each, void *ctx, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT old_run, new_run, old_commit, new_commit, drift_class, verdict, cause,"
                           " latest, same_card, samples_old, samples_new, p, rel_change, threshold,"
                           " threshold_from, range_commits, changed FROM rg_steps ORDER BY seq",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the stored regression steps");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sb_rg_step_rec s;
        s.old_run = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
        s.new_run = sqlite3_column_int64(st, 1);
        s.old_commit = sqlite3_column_int64(st, 2);
        s.new_commit = sqlite3_column_int64(st, 3);
        s.drift_class = sqlite3_column_int64(st, 4);
        s.verdict = sqlite3_column_int(st, 5);
        s.cause = sqlite3_column_int(st, 6);
        s.latest = sqlite3_column_int(st, 7);
        s.same_card = sqlite3_column_int(st, 8);
        s.samples_old = sqlite3_column_int64(st, 9);
        s.samples_new = sqlite3_column_int64(st, 10);
        s.p = column_real(st, 11);
        s.rel_change = column_real(st, 12);
        s.threshold = column_real(st, 13);
        s.threshold_from = sqlite3_column_int(st, 14);
        s.range_commits = sqlite3_column_int64(st, 15);
        const unsigned char *t = sqlite3_column_text(st, 16);
        s.changed = t ? (const char *)t : "";
        if (each(ctx, &s, err) != SB_OK) {
            sqlite3_finalize(st);
            return SB_ERR;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sb_db_conn_fail(db, err, "reading the stored regression steps");
    return SB_OK;
}

int sb_rg_noise_read(sb_db *handle, sb_rg_noise_rec **out, size_t *n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT sku, let_go, threshold, comparisons FROM rg_noise ORDER BY seq", -1, &st,
                           NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the stored cross-card thresholds");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sb_rg_noise_rec *nv = realloc(*out, (*n + 1) * sizeof *nv);
        if (!nv) {
            sqlite3_finalize(st);
            free(*out);
            *out = NULL;
            *n = 0;
            return sb_error_set(err, NULL, NULL, "out of memory");
        }
        *out = nv;
        sb_rg_noise_rec *e = &nv[(*n)++];
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(e->sku, sizeof e->sku, "%s", t ? (const char *)t : "");
        e->let_go = sqlite3_column_int(st, 1);
        e->threshold = sqlite3_column_double(st, 2);
        e->comparisons = sqlite3_column_int64(st, 3);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*out);
        *out = NULL;
        *n = 0;
        return sb_db_conn_fail(db, err, "reading the stored cross-card thresholds");
    }
    return SB_OK;
}

/* rg_steps.c - the stored regression history (rg_steps.h). */
#include "rg_steps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "strbuf.h"

static char *column_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return strdup(t ? (const char *)t : "");
}

int sb_rg_state_now(sb_db *handle, sb_rg_state *now, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    memset(now, 0, sizeof *now);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT (SELECT n FROM rg_runs WHERE id = 1), (SELECT coalesce(max(id), 0) FROM runs),"
                           " (SELECT n FROM rg_changes WHERE id = 1), (SELECT user_version FROM pragma_user_version)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the state of the stored runs");
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_db_conn_fail(db, err, "reading the state of the stored runs");
    }
    now->runs = sqlite3_column_int64(st, 0);
    now->last_run = sqlite3_column_int64(st, 1);
    now->changes = sqlite3_column_int64(st, 2);
    now->schema = sqlite3_column_int64(st, 3);
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_rg_state_read(sb_db *handle, sb_rg_state *s, int *found, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    memset(s, 0, sizeof *s);
    *found = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT rule_sha256, runs, last_run, changes, schema, newest_epoch, undated"
                           " FROM rg_basis WHERE id = 1",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the stored regression steps' basis");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(s->rule_sha256, sizeof s->rule_sha256, "%s", t ? (const char *)t : "");
        s->runs = sqlite3_column_int64(st, 1);
        s->last_run = sqlite3_column_int64(st, 2);
        s->changes = sqlite3_column_int64(st, 3);
        s->schema = sqlite3_column_int64(st, 4);
        s->newest_epoch = sqlite3_column_int64(st, 5);
        s->undated = sqlite3_column_int64(st, 6);
        *found = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sb_db_conn_fail(db, err, "reading the stored regression steps' basis");
    return SB_OK;
}

/* Steps st once; SB_OK when it is done. */
static int done(sqlite3 *db, sqlite3_stmt *st, const char *what, sb_error *err)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return sb_db_conn_fail(db, err, what);
    return SB_OK;
}

int sb_rg_state_write(sb_db *handle, const sb_rg_state *s, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT OR REPLACE INTO rg_basis (id, rule_sha256, runs, last_run, changes, schema,"
                           " newest_epoch, undated) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "storing the regression steps' basis");
    sqlite3_bind_text(st, 1, s->rule_sha256, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, s->runs);
    sqlite3_bind_int64(st, 3, s->last_run);
    sqlite3_bind_int64(st, 4, s->changes);
    sqlite3_bind_int64(st, 5, s->schema);
    sqlite3_bind_int64(st, 6, s->newest_epoch);
    sqlite3_bind_int64(st, 7, s->undated);
    int rc = done(db, st, "storing the regression steps' basis", err);
    sqlite3_finalize(st);
    return rc;
}

int sb_rg_runs_after(sb_db *handle, long long after, long long *n, long long *sessions, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT (SELECT count(*) FROM runs WHERE id > ?1),"
                           " (SELECT count(*) FROM run_sessions WHERE run_id > ?1)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "counting the runs stored since the regression steps");
    sqlite3_bind_int64(st, 1, after);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_db_conn_fail(db, err, "counting the runs stored since the regression steps");
    }
    *n = sqlite3_column_int64(st, 0);
    *sessions = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_rg_clear(sb_db *db, sb_error *err)
{
    return sb_db_exec(db,
                      "DELETE FROM rg_steps; DELETE FROM rg_groups; DELETE FROM rg_commits;"
                      " DELETE FROM rg_classes; DELETE FROM rg_noise; DELETE FROM rg_basis;"
                      " DELETE FROM rg_class_figs; DELETE FROM rg_dirty_families; DELETE FROM rg_dirty_classes;",
                      err);
}

int sb_rg_groups_read(sb_db *handle, sb_rg_group_rec **out, size_t *n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT grp, case_key, provider, sku, series_git, series_measured, drift_tested FROM rg_groups",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the stored regression groups");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 256;
            sb_rg_group_rec *nv = realloc(*out, nc * sizeof *nv);
            if (!nv)
                break;
            *out = nv;
            cap = nc;
        }
        sb_rg_group_rec *g = &(*out)[*n];
        g->grp = sqlite3_column_int64(st, 0);
        g->case_key = column_dup(st, 1);
        g->provider = column_dup(st, 2);
        g->sku = column_dup(st, 3);
        g->series_git = sqlite3_column_int64(st, 4);
        g->series_measured = sqlite3_column_int64(st, 5);
        g->drift_tested = sqlite3_column_int64(st, 6);
        (*n)++;
        if (!g->case_key || !g->provider || !g->sku)
            break;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return SB_OK;
    sb_rg_groups_free(*out, *n);
    *out = NULL;
    *n = 0;
    if (rc == SQLITE_ROW)
        return sb_error_set(err, NULL, NULL, "out of memory");
    return sb_db_conn_fail(db, err, "reading the stored regression groups");
}

#define INSERT_STEP                                                                                  \
    "INSERT INTO rg_steps (grp, seq, old_run, new_run, old_commit, new_commit,"                      \
    " drift_class, noise, verdict, cause, latest, same_card, samples_old, samples_new,"              \
    " p, rel_change, threshold, threshold_from, range_commits, changed)"                             \
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"               \
    " ?17, ?18, ?19, ?20)"

/* Binds one step of group grp at seq to an INSERT_STEP statement. */
static void bind_step(sqlite3_stmt *ins, long long grp, long long seq, const sb_rg_step_rec *s)
{
    sqlite3_bind_int64(ins, 1, grp);
    sqlite3_bind_int64(ins, 2, seq);
    if (s->old_run < 0)
        sqlite3_bind_null(ins, 3);
    else
        sqlite3_bind_int64(ins, 3, s->old_run);
    sqlite3_bind_int64(ins, 4, s->new_run);
    sqlite3_bind_int64(ins, 5, s->old_commit);
    sqlite3_bind_int64(ins, 6, s->new_commit);
    sqlite3_bind_int64(ins, 7, s->drift_class);
    sqlite3_bind_int64(ins, 8, s->noise);
    sqlite3_bind_int(ins, 9, s->verdict);
    sqlite3_bind_int(ins, 10, s->cause);
    sqlite3_bind_int(ins, 11, s->latest);
    sqlite3_bind_int(ins, 12, s->same_card);
    sqlite3_bind_int64(ins, 13, s->samples_old);
    sqlite3_bind_int64(ins, 14, s->samples_new);
    sb_db_bind_real(ins, 15, s->p);
    sb_db_bind_real(ins, 16, s->rel_change);
    sb_db_bind_real(ins, 17, s->threshold);
    sqlite3_bind_int(ins, 18, s->threshold_from);
    sqlite3_bind_int64(ins, 19, s->range_commits);
    if (s->changed && *s->changed)
        sqlite3_bind_text(ins, 20, s->changed, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(ins, 20);
}

/* Notes the families and classes of group grp's steps from seq on
 * (migration 016: settling computes them again). */
static int note_dirty(sqlite3 *db, long long grp, long long seq, const char *what, sb_error *err)
{
    static const char *const sql[] = {
        "INSERT OR IGNORE INTO rg_dirty_families (old_commit, new_commit) SELECT old_commit, new_commit"
        " FROM rg_steps WHERE grp = ?1 AND seq >= ?2 AND old_commit != 0",
        "INSERT OR IGNORE INTO rg_dirty_classes (class) SELECT drift_class"
        " FROM rg_steps WHERE grp = ?1 AND seq >= ?2 AND drift_class != 0",
    };
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, sql[i], -1, &st, NULL) != SQLITE_OK)
            return sb_db_conn_fail(db, err, what);
        sqlite3_bind_int64(st, 1, grp);
        sqlite3_bind_int64(st, 2, seq);
        int rc = done(db, st, what, err);
        sqlite3_finalize(st);
        if (rc != SB_OK)
            return rc;
    }
    return SB_OK;
}

/* The drift steps of steps[0..n) whose verdict is a regression, an
 * improvement or no change (rg_groups.drift_tested). */
static long long drift_tested(const sb_rg_step_rec *steps, size_t n)
{
    long long k = 0;
    for (size_t i = 0; i < n; i++)
        k += steps[i].cause == 1 && (steps[i].verdict == 0 || steps[i].verdict == 2 || steps[i].verdict == 3);
    return k;
}

#define PUT_GROUP                                                                                    \
    "INSERT INTO rg_groups (case_key, provider, sku, series_git, series_measured,"                   \
    " drift_tested) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (case_key, provider, sku)"            \
    " DO UPDATE SET series_git = excluded.series_git,"                                               \
    " series_measured = excluded.series_measured, drift_tested = excluded.drift_tested"             \
    " RETURNING grp"

/* Runs a PUT_GROUP statement g; *grp the group's id. */
static int put_group(sqlite3 *db, sqlite3_stmt *g, const char *case_key, const char *provider, const char *sku,
                     long long series_git, long long series_measured, long long tested, long long *grp,
                     const char *what, sb_error *err)
{
    sqlite3_bind_text(g, 1, case_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(g, 2, provider, -1, SQLITE_STATIC);
    sqlite3_bind_text(g, 3, sku, -1, SQLITE_STATIC);
    sqlite3_bind_int64(g, 4, series_git);
    sqlite3_bind_int64(g, 5, series_measured);
    sqlite3_bind_int64(g, 6, tested);
    int rc = sqlite3_step(g);
    if (rc == SQLITE_ROW)
        *grp = sqlite3_column_int64(g, 0);
    sqlite3_reset(g);
    if (rc != SQLITE_ROW)
        return sb_db_conn_fail(db, err, what);
    return SB_OK;
}

int sb_rg_group_put(sb_db *handle, const char *case_key, const char *provider, const char *sku,
                    long long series_git, long long series_measured, const sb_rg_step_rec *steps,
                    size_t n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    const char *what = "storing the regression steps";
    sqlite3_stmt *g = NULL, *del = NULL, *ins = NULL;
    int rc = SB_OK;
    if (sqlite3_prepare_v2(db, PUT_GROUP, -1, &g, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "DELETE FROM rg_steps WHERE grp = ?1", -1, &del, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, INSERT_STEP, -1, &ins, NULL) != SQLITE_OK) {
        rc = sb_db_conn_fail(db, err, what);
        goto out;
    }
    long long grp;
    rc = put_group(db, g, case_key, provider, sku, series_git, series_measured, drift_tested(steps, n), &grp, what,
                   err);
    if (rc != SB_OK)
        goto out;
    sqlite3_bind_int64(del, 1, grp);
    rc = note_dirty(db, grp, 0, what, err);
    if (rc == SB_OK)
        rc = done(db, del, what, err);
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        bind_step(ins, grp, (long long)i, &steps[i]);
        rc = done(db, ins, what, err);
    }
    if (rc == SB_OK)
        rc = note_dirty(db, grp, 0, what, err);
out:
    sqlite3_finalize(g);
    sqlite3_finalize(del);
    sqlite3_finalize(ins);
    return rc;
}

int sb_rg_group_append(sb_db *handle, long long grp, const sb_rg_step_rec *steps, size_t n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    const char *what = "storing the regression steps";
    sqlite3_stmt *last = NULL, *old = NULL, *ins = NULL, *cnt = NULL;
    int rc = SB_OK;
    if (sqlite3_prepare_v2(db, "SELECT coalesce(max(seq) + 1, 0) FROM rg_steps WHERE grp = ?1", -1, &last,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "UPDATE rg_groups SET drift_tested = drift_tested + ?2 WHERE grp = ?1", -1, &cnt,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "UPDATE rg_steps SET latest = 0 WHERE grp = ?1 AND latest != 0", -1, &old,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, INSERT_STEP, -1, &ins, NULL) != SQLITE_OK) {
        rc = sb_db_conn_fail(db, err, what);
        goto out;
    }
    sqlite3_bind_int64(last, 1, grp);
    if (sqlite3_step(last) != SQLITE_ROW) {
        rc = sb_db_conn_fail(db, err, what);
        goto out;
    }
    long long seq = sqlite3_column_int64(last, 0);
    sqlite3_bind_int64(old, 1, grp);
    rc = done(db, old, what, err);
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        bind_step(ins, grp, seq + (long long)i, &steps[i]);
        rc = done(db, ins, what, err);
    }
    if (rc == SB_OK)
        rc = note_dirty(db, grp, seq, what, err);
    if (rc == SB_OK) {
        sqlite3_bind_int64(cnt, 1, grp);
        sqlite3_bind_int64(cnt, 2, drift_tested(steps, n));
        rc = done(db, cnt, what, err);
    }
out:
    sqlite3_finalize(last);
    sqlite3_finalize(cnt);
    sqlite3_finalize(old);
    sqlite3_finalize(ins);
    return rc;
}

struct sb_rg_steps_reader {
    sqlite3 *db;
    sqlite3_stmt *st;
    sqlite3_stmt *last;   /* prepared at the first sb_rg_steps_read_last */
    sqlite3_stmt *latest; /* at the first sb_rg_steps_read_latest */
};

#define STEP_SELECT                                                                                \
    "SELECT old_run, new_run, old_commit, new_commit, drift_class, noise, verdict, cause,"         \
    " latest, same_card, samples_old, samples_new, p, rel_change, threshold,"                      \
    " threshold_from, range_commits, changed, grp, seq, p_adjusted FROM rg_steps"
#define STEP_COLUMNS STEP_SELECT " WHERE grp = ?1"

int sb_rg_steps_reader_open(sb_db *handle, sb_rg_steps_reader **out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return sb_error_set(err, NULL, NULL, "out of memory");
    (*out)->db = db;
    if (sqlite3_prepare_v2(db, STEP_COLUMNS " ORDER BY seq", -1, &(*out)->st, NULL) != SQLITE_OK) {
        free(*out);
        *out = NULL;
        return sb_db_conn_fail(db, err, "reading the stored regression steps");
    }
    return SB_OK;
}

void sb_rg_steps_reader_close(sb_rg_steps_reader *rd)
{
    if (!rd)
        return;
    sqlite3_finalize(rd->st);
    sqlite3_finalize(rd->last);
    sqlite3_finalize(rd->latest);
    free(rd);
}

static int read_rows(sqlite3 *db, sqlite3_stmt *st, long long grp, sb_rg_step_fn each, void *ctx, sb_error *err);

int sb_rg_steps_read(sb_rg_steps_reader *rd, long long grp, sb_rg_step_fn each, void *ctx, sb_error *err)
{
    return read_rows(rd->db, rd->st, grp, each, ctx, err);
}

int sb_rg_steps_read_last(sb_rg_steps_reader *rd, long long grp, sb_rg_step_fn each, void *ctx, sb_error *err)
{
    if (!rd->last &&
        sqlite3_prepare_v2(rd->db, STEP_COLUMNS " ORDER BY seq DESC LIMIT 1", -1, &rd->last, NULL) != SQLITE_OK)
        return sb_db_conn_fail(rd->db, err, "reading the stored regression steps");
    return read_rows(rd->db, rd->last, grp, each, ctx, err);
}

int sb_rg_steps_read_latest(sb_rg_steps_reader *rd, long long grp, sb_rg_step_fn each, void *ctx, sb_error *err)
{
    if (!rd->latest &&
        sqlite3_prepare_v2(rd->db,
                           /* the planner, without statistics, would take the key and read
                            * every step of the group */
                           STEP_SELECT " INDEXED BY rg_steps_latest WHERE grp = ?1 AND latest != 0 ORDER BY seq",
                           -1, &rd->latest, NULL) != SQLITE_OK)
        return sb_db_conn_fail(rd->db, err, "reading the stored regression steps");
    return read_rows(rd->db, rd->latest, grp, each, ctx, err);
}

static int read_rows(sqlite3 *db, sqlite3_stmt *st, long long grp, sb_rg_step_fn each, void *ctx, sb_error *err)
{
    sqlite3_bind_int64(st, 1, grp);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sb_rg_step_rec s;
        s.old_run = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
        s.new_run = sqlite3_column_int64(st, 1);
        s.old_commit = sqlite3_column_int64(st, 2);
        s.new_commit = sqlite3_column_int64(st, 3);
        s.drift_class = sqlite3_column_int64(st, 4);
        s.noise = sqlite3_column_int64(st, 5);
        s.verdict = sqlite3_column_int(st, 6);
        s.cause = sqlite3_column_int(st, 7);
        s.latest = sqlite3_column_int(st, 8);
        s.same_card = sqlite3_column_int(st, 9);
        s.samples_old = sqlite3_column_int64(st, 10);
        s.samples_new = sqlite3_column_int64(st, 11);
        s.p = sb_db_column_real(st, 12);
        s.rel_change = sb_db_column_real(st, 13);
        s.threshold = sb_db_column_real(st, 14);
        s.threshold_from = sqlite3_column_int(st, 15);
        s.range_commits = sqlite3_column_int64(st, 16);
        const unsigned char *t = sqlite3_column_text(st, 17);
        s.changed = t ? (const char *)t : "";
        s.grp = sqlite3_column_int64(st, 18);
        s.seq = sqlite3_column_int64(st, 19);
        s.p_adjusted = sb_db_column_real(st, 20);
        if (each(ctx, &s, err) != SB_OK) {
            sqlite3_reset(st);
            return SB_ERR;
        }
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return sb_db_conn_fail(db, err, "reading the stored regression steps");
    return SB_OK;
}


/* Steps st to its end, adding its first column's ids to *ids; st is
 * finalized. */
static int collect_ids(sqlite3 *db, sqlite3_stmt *st, long long **ids, size_t *n, size_t *cap, const char *what,
                       sb_error *err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == *cap) {
            size_t nc = *cap ? *cap * 2 : 1024;
            long long *nv = realloc(*ids, nc * sizeof *nv);
            if (!nv) {
                sqlite3_finalize(st);
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
            *ids = nv;
            *cap = nc;
        }
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sb_db_conn_fail(db, err, what);
    return SB_OK;
}

int sb_rg_group_run_ids(sb_db *handle, const char *case_key, const char *provider, const char *sku,
                        long long **ids, size_t *n, size_t *cap, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT c.run_id FROM configs c JOIN provenance p ON p.run_id = c.run_id"
                           " WHERE c.case_key = ?1 AND c.provider = ?2 AND p.sku = ?3",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the runs of a series");
    sqlite3_bind_text(st, 1, case_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, provider, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, sku, -1, SQLITE_STATIC);
    return collect_ids(db, st, ids, n, cap, "reading the runs of a series", err);
}

int sb_rg_commit_run_ids(sb_db *handle, const char *sha, long long **ids, size_t *n, size_t *cap, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT run_id FROM provenance WHERE git_sha = ?1", -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the runs of a commit");
    sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
    return collect_ids(db, st, ids, n, cap, "reading the runs of a commit", err);
}

int sb_rg_commits_read(sb_db *handle, sb_rg_commit_rec **out, size_t *n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id, sha, first_epoch FROM rg_commits", -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the stored commits");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 256;
            sb_rg_commit_rec *nv = realloc(*out, nc * sizeof *nv);
            if (!nv)
                break;
            *out = nv;
            cap = nc;
        }
        sb_rg_commit_rec *c = &(*out)[(*n)++];
        c->id = sqlite3_column_int64(st, 0);
        c->sha = column_dup(st, 1);
        c->first_epoch = sqlite3_column_int64(st, 2);
        if (!c->sha)
            break;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return SB_OK;
    sb_rg_commits_free(*out, *n);
    *out = NULL;
    *n = 0;
    if (rc == SQLITE_ROW)
        return sb_error_set(err, NULL, NULL, "out of memory");
    return sb_db_conn_fail(db, err, "reading the stored commits");
}

/* Runs an INSERT ... RETURNING id statement prepared from sql with text
 * bound first; *id the row's id. */
static int returning_id(sqlite3_stmt *st, sqlite3 *db, const char *what, long long *id, sb_error *err)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return sb_db_conn_fail(db, err, what);
    return SB_OK;
}

int sb_rg_commit_put(sb_db *handle, const char *sha, long long first_epoch, long long *id, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO rg_commits (sha, first_epoch) VALUES (?1, ?2) ON CONFLICT (sha)"
                           " DO UPDATE SET first_epoch = excluded.first_epoch RETURNING id",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "storing a commit of the regression steps");
    sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, first_epoch);
    return returning_id(st, db, "storing a commit of the regression steps", id, err);
}

int sb_rg_class_id(sb_db *handle, const char *class_key, long long *id, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO rg_classes (class_key) VALUES (?1) ON CONFLICT (class_key)"
                           " DO UPDATE SET class_key = excluded.class_key RETURNING id",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "storing a noise class of the regression steps");
    sqlite3_bind_text(st, 1, class_key, -1, SQLITE_STATIC);
    return returning_id(st, db, "storing a noise class of the regression steps", id, err);
}

int sb_rg_noise_put(sb_db *handle, const sb_rg_noise_rec *e, long long *id, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO rg_noise (sku, let_go, threshold, comparisons) VALUES (?1, ?2, ?3, ?4)"
                           " ON CONFLICT (sku, let_go) DO UPDATE SET threshold = excluded.threshold,"
                           " comparisons = excluded.comparisons RETURNING id",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "storing a cross-card threshold");
    sqlite3_bind_text(st, 1, e->sku, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, e->let_go);
    sqlite3_bind_double(st, 3, e->threshold);
    sqlite3_bind_int64(st, 4, e->comparisons);
    return returning_id(st, db, "storing a cross-card threshold", id, err);
}

int sb_rg_noise_read(sb_db *handle, sb_rg_noise_rec **out, size_t *n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id, sku, let_go, threshold, comparisons FROM rg_noise ORDER BY id", -1,
                           &st, NULL) != SQLITE_OK)
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
        e->id = sqlite3_column_int64(st, 0);
        const unsigned char *t = sqlite3_column_text(st, 1);
        snprintf(e->sku, sizeof e->sku, "%s", t ? (const char *)t : "");
        e->let_go = sqlite3_column_int(st, 2);
        e->threshold = sqlite3_column_double(st, 3);
        e->comparisons = sqlite3_column_int64(st, 4);
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

int sb_rg_noise_first(sb_db *handle, long long grp, long long noise, long long *seq, int *found, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    *found = 0;
    if (sqlite3_prepare_v2(db, "SELECT min(seq) FROM rg_steps WHERE grp = ?1 AND noise = ?2 AND noise != 0", -1, &st,
                           NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the stored regression steps");
    sqlite3_bind_int64(st, 1, grp);
    sqlite3_bind_int64(st, 2, noise);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *seq = sqlite3_column_int64(st, 0);
        *found = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return sb_db_conn_fail(db, err, "reading the stored regression steps");
    return SB_OK;
}

/* The ids sql gives (pairs: two a row) added to *ids. */
static int take_ids(sqlite3 *db, const char *sql, long long **ids, size_t *n, int pairs, sb_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the regression steps to settle");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n + 2 > cap) {
            size_t nc = cap ? cap * 2 : 256;
            long long *nv = realloc(*ids, nc * sizeof *nv);
            if (!nv) {
                sqlite3_finalize(st);
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
            *ids = nv;
            cap = nc;
        }
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
        if (pairs)
            (*ids)[(*n)++] = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sb_db_conn_fail(db, err, "reading the regression steps to settle");
    return SB_OK;
}

int sb_rg_dirty_take(sb_db *handle, long long **fam, size_t *nfam, long long **cls, size_t *ncls, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *fam = *cls = NULL;
    *nfam = *ncls = 0;
    size_t nf = 0;
    int rc = take_ids(db, "SELECT old_commit, new_commit FROM rg_dirty_families ORDER BY old_commit, new_commit",
                      fam, &nf, 1, err);
    if (rc == SB_OK)
        rc = take_ids(db, "SELECT class FROM rg_dirty_classes ORDER BY class", cls, ncls, 0, err);
    if (rc == SB_OK)
        rc = sb_db_exec(handle, "DELETE FROM rg_dirty_families; DELETE FROM rg_dirty_classes;", err);
    *nfam = nf / 2;
    if (rc != SB_OK) {
        free(*fam);
        free(*cls);
        *fam = *cls = NULL;
        *nfam = *ncls = 0;
    }
    return rc;
}

#define MEMBER_COLUMNS                                                                             \
    "SELECT grp, seq, p, p_adjusted, rel_change, threshold, verdict, cause, drift_class, old_commit,"   \
    " new_commit FROM rg_steps"

/* The rows of st (MEMBER_COLUMNS) into *out; st is finalized. */
static int read_members(sqlite3 *db, sqlite3_stmt *st, sb_rg_member **out, size_t *n, sb_error *err)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            sb_rg_member *nv = realloc(*out, nc * sizeof *nv);
            if (!nv) {
                sqlite3_finalize(st);
                free(*out);
                *out = NULL;
                *n = 0;
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
            *out = nv;
            cap = nc;
        }
        sb_rg_member *m = &(*out)[(*n)++];
        m->grp = sqlite3_column_int64(st, 0);
        m->seq = sqlite3_column_int64(st, 1);
        m->p = sb_db_column_real(st, 2);
        m->p_adjusted = sb_db_column_real(st, 3);
        m->rel_change = sb_db_column_real(st, 4);
        m->threshold = sb_db_column_real(st, 5);
        m->verdict = sqlite3_column_int(st, 6);
        m->cause = sqlite3_column_int(st, 7);
        m->drift_class = sqlite3_column_int64(st, 8);
        m->old_commit = sqlite3_column_int64(st, 9);
        m->new_commit = sqlite3_column_int64(st, 10);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*out);
        *out = NULL;
        *n = 0;
        return sb_db_conn_fail(db, err, "reading the regression steps to settle");
    }
    return SB_OK;
}

int sb_rg_family_read(sb_db *handle, long long old_commit, long long new_commit, sb_rg_member **out, size_t *n,
                      sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    /* the terms of the partial index rg_steps_family */
    if (sqlite3_prepare_v2(db,
                           MEMBER_COLUMNS " WHERE old_commit = ?1 AND new_commit = ?2 AND old_commit != 0"
                                          " AND (verdict = 0 OR verdict = 2 OR verdict = 3) AND p IS NOT NULL",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the regression steps to settle");
    sqlite3_bind_int64(st, 1, old_commit);
    sqlite3_bind_int64(st, 2, new_commit);
    return read_members(db, st, out, n, err);
}

int sb_rg_family_put(sb_db *handle, const sb_rg_member *m, size_t n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    const char *what = "storing the adjusted p-values of the regression steps";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "UPDATE rg_steps SET p_adjusted = ?3 WHERE grp = ?1 AND seq = ?2", -1, &st,
                           NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, what);
    int rc = SB_OK;
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        sqlite3_bind_int64(st, 1, m[i].grp);
        sqlite3_bind_int64(st, 2, m[i].seq);
        sb_db_bind_real(st, 3, m[i].p_adjusted);
        rc = done(db, st, what, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* the terms of the partial index rg_steps_drift */
#define DRIFT_TESTED                                                                                  \
    " WHERE drift_class = ?1 AND drift_class != 0 AND cause = 1"                                      \
    " AND (verdict = 0 OR verdict = 2 OR verdict = 3) AND old_commit != 0 AND p IS NOT NULL"          \
    " AND rel_change IS NOT NULL"

int sb_rg_class_top(sb_db *handle, long long cls, long long cap, long long *tested, sb_rg_member top[2],
                    size_t *ntop, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    *tested = 0;
    *ntop = 0;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM (SELECT 1 FROM rg_steps" DRIFT_TESTED " LIMIT ?2)", -1, &st,
                           NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the regression steps to settle");
    sqlite3_bind_int64(st, 1, cls);
    sqlite3_bind_int64(st, 2, cap);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *tested = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return sb_db_conn_fail(db, err, "reading the regression steps to settle");
    if (sqlite3_prepare_v2(db, MEMBER_COLUMNS DRIFT_TESTED " ORDER BY abs(rel_change) DESC LIMIT 2", -1, &st,
                           NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the regression steps to settle");
    sqlite3_bind_int64(st, 1, cls);
    sb_rg_member *m = NULL;
    size_t n = 0;
    if (read_members(db, st, &m, &n, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; i < n && i < 2; i++)
        top[i] = m[i];
    *ntop = n < 2 ? n : 2;
    free(m);
    return SB_OK;
}

int sb_rg_class_steps(sb_db *handle, long long cls, double min_abs, sb_rg_member **out, size_t *n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, MEMBER_COLUMNS DRIFT_TESTED " AND abs(rel_change) >= ?2", -1, &st, NULL) !=
        SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the regression steps to settle");
    sqlite3_bind_int64(st, 1, cls);
    sqlite3_bind_double(st, 2, min_abs);
    return read_members(db, st, out, n, err);
}

int sb_rg_class_figs_put(sb_db *handle, const sb_rg_class_figs *f, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    const char *what = "storing the figures of a noise class";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT OR REPLACE INTO rg_class_figs (class, tested, top_grp, top_seq, top_change,"
                           " second_change, flagged) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, what);
    sqlite3_bind_int64(st, 1, f->cls);
    sqlite3_bind_int64(st, 2, f->tested);
    sqlite3_bind_int64(st, 3, f->top_grp);
    sqlite3_bind_int64(st, 4, f->top_seq);
    sqlite3_bind_double(st, 5, f->top_change);
    sqlite3_bind_double(st, 6, f->second_change);
    sqlite3_bind_int64(st, 7, f->flagged);
    int rc = done(db, st, what, err);
    sqlite3_finalize(st);
    return rc;
}

int sb_rg_class_figs_read(sb_db *handle, sb_rg_class_figs **out, size_t *n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT class, tested, top_grp, top_seq, top_change, second_change, flagged"
                           " FROM rg_class_figs ORDER BY class",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the figures of the noise classes");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            sb_rg_class_figs *nv = realloc(*out, nc * sizeof *nv);
            if (!nv) {
                sqlite3_finalize(st);
                free(*out);
                *out = NULL;
                *n = 0;
                return sb_error_set(err, NULL, NULL, "out of memory");
            }
            *out = nv;
            cap = nc;
        }
        sb_rg_class_figs *f = &(*out)[(*n)++];
        f->cls = sqlite3_column_int64(st, 0);
        f->tested = sqlite3_column_int64(st, 1);
        f->top_grp = sqlite3_column_int64(st, 2);
        f->top_seq = sqlite3_column_int64(st, 3);
        f->top_change = sqlite3_column_double(st, 4);
        f->second_change = sqlite3_column_double(st, 5);
        f->flagged = sqlite3_column_int64(st, 6);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*out);
        *out = NULL;
        *n = 0;
        return sb_db_conn_fail(db, err, "reading the figures of the noise classes");
    }
    return SB_OK;
}

struct sb_rg_bulk {
    sb_db *handle;
    sqlite3_stmt *group, *step;
    char **index_sql; /* the dropped indexes, as sqlite_master held them */
    size_t nindex;
};

void sb_rg_bulk_close(sb_rg_bulk *b)
{
    if (!b)
        return;
    sqlite3_finalize(b->group);
    sqlite3_finalize(b->step);
    for (size_t i = 0; i < b->nindex; i++)
        free(b->index_sql[i]);
    free(b->index_sql);
    free(b);
}

/* Saves the SQL of every index of rg_steps in b and drops them. */
static int drop_indexes(sb_rg_bulk *b, sb_error *err)
{
    sqlite3 *db = sb_db_handle(b->handle);
    const char *what = "setting aside the indexes of the regression steps";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rg_steps'"
                           " AND sql IS NOT NULL ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, what);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = SB_OK, s = SQLITE_DONE;
    while (rc == SB_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 8;
            char **nn = realloc(names, nc * sizeof *nn);
            if (nn)
                names = nn;
            char **ns = realloc(b->index_sql, nc * sizeof *ns);
            if (ns)
                b->index_sql = ns;
            if (!nn || !ns) {
                rc = sb_error_set(err, NULL, NULL, "out of memory");
                break;
            }
            cap = nc;
        }
        names[n] = column_dup(st, 0);
        b->index_sql[n] = column_dup(st, 1);
        if (!names[n] || !b->index_sql[n]) {
            free(names[n]);
            free(b->index_sql[n]);
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            break;
        }
        n++;
        b->nindex = n;
    }
    if (rc == SB_OK && s != SQLITE_DONE)
        rc = sb_db_conn_fail(db, err, what);
    sqlite3_finalize(st);
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        char *sql = sqlite3_mprintf("DROP INDEX \"%w\"", names[i]);
        rc = sql ? sb_db_exec(b->handle, sql, err) : sb_error_set(err, NULL, NULL, "out of memory");
        sqlite3_free(sql);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int sb_rg_bulk_open(sb_db *handle, sb_rg_bulk **out, sb_error *err)
{
    sqlite3 *db = sb_db_handle(handle);
    *out = NULL;
    sb_rg_bulk *b = calloc(1, sizeof *b);
    if (!b)
        return sb_error_set(err, NULL, NULL, "out of memory");
    b->handle = handle;
    int rc = drop_indexes(b, err);
    if (rc == SB_OK && (sqlite3_prepare_v2(db, PUT_GROUP, -1, &b->group, NULL) != SQLITE_OK ||
                        sqlite3_prepare_v2(db, INSERT_STEP, -1, &b->step, NULL) != SQLITE_OK))
        rc = sb_db_conn_fail(db, err, "storing the regression steps");
    if (rc != SB_OK) {
        sb_rg_bulk_close(b);
        return rc;
    }
    *out = b;
    return SB_OK;
}

int sb_rg_bulk_group(sb_rg_bulk *b, const char *case_key, const char *provider, const char *sku,
                     long long series_git, long long series_measured, const sb_rg_step_rec *steps, size_t n,
                     sb_error *err)
{
    sqlite3 *db = sb_db_handle(b->handle);
    const char *what = "storing the regression steps";
    long long grp;
    int rc = put_group(db, b->group, case_key, provider, sku, series_git, series_measured, drift_tested(steps, n),
                       &grp, what, err);
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        bind_step(b->step, grp, (long long)i, &steps[i]);
        rc = done(db, b->step, what, err);
    }
    return rc;
}

int sb_rg_bulk_steps(sb_rg_bulk *b, sb_rg_member **out, size_t *n, sb_error *err)
{
    sqlite3 *db = sb_db_handle(b->handle);
    sqlite3_stmt *st = NULL;
    /* the terms of rg_steps_family, or a drift class */
    if (sqlite3_prepare_v2(db,
                           MEMBER_COLUMNS " WHERE (old_commit != 0 AND (verdict = 0 OR verdict = 2 OR verdict = 3)"
                                          " AND p IS NOT NULL) OR drift_class != 0 ORDER BY grp, seq",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_conn_fail(db, err, "reading the regression steps to settle");
    return read_members(db, st, out, n, err);
}

int sb_rg_bulk_finish(sb_rg_bulk *b, sb_error *err)
{
    int rc = SB_OK;
    for (size_t i = 0; i < b->nindex && rc == SB_OK; i++)
        rc = sb_db_exec(b->handle, b->index_sql[i], err);
    for (size_t i = 0; i < b->nindex; i++)
        free(b->index_sql[i]);
    b->nindex = 0;
    return rc;
}

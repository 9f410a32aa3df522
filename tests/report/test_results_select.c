/* test_results_select.c - the queries that read what a report selects
 * (db/results_query.h) give the runs a full read gives: the newest run of
 * each series through series_latest (migration 011), checked against
 * sb_picks_latest over every run, the runs of either side of a
 * comparison, checked against the full read filtered in C, and the runs
 * of a window with measuring sessions picked from the loaded sets,
 * checked against a read of that window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "connection.h"
#include "fixture.h"
#include "isoweek.h"
#include "results.h"
#include "results_query.h"

static char tmpdir[256];

static sb_db *open_read(const char *path)
{
    sb_db *db = NULL;
    sb_error err;
    if (sb_db_open_reader(path, &db, &err) != SB_OK)
        fail_msg("%s: %s", err.file, err.msg);
    return db;
}

/* A new database at DIR/name with the standard data set; its path in p. */
static sb_db *standard_db(const char *name, char *p, size_t size)
{
    snprintf(p, size, "%s/%s", tmpdir, name);
    sb_db *w = fx_create(p);
    fx_standard(w);
    return w;
}

static const double SAMPLES[] = {1.0, 1.1, 0.9, 1.0, 1.05};

static long long add(sb_db *w, const char *suite, const char *provider, const char *sha,
                     const char *finished_at, const char *profiler)
{
    fx_result r = {0};
    r.suite = suite;
    r.op = "latest_probe";
    r.provider = provider;
    r.shape_key = "H=4096,T=8192";
    r.dtype = "bf16";
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.git_sha = sha;
    r.finished_at = finished_at;
    r.samples = SAMPLES;
    r.nsamples = 5;
    r.profiler = profiler;
    return fx_add_result(w, &r);
}

/* sb_results_load_latest(f) holds, in order, the runs sb_picks_latest
 * picks from sb_results_load(f), and the same left-out runs; returns how
 * many series it found. */
static size_t assert_latest_is_picks(sb_db *db, const sb_result_filter *f)
{
    sb_error err;
    sb_result_set all, latest;
    sb_pick *picks = NULL;
    size_t np = 0;
    assert_int_equal(sb_results_load(db, f, &all, &err), SB_OK);
    assert_int_equal(sb_picks_latest(&all, &picks, &np, &err), SB_OK);
    assert_int_equal(sb_results_load_latest(db, f, &latest, &err), SB_OK);
    assert_int_equal(latest.n, np);
    for (size_t i = 0; i < np; i++) {
        assert_int_equal(latest.v[i].run_id, picks[i].r->run_id);
        assert_string_equal(latest.v[i].finished_at ? latest.v[i].finished_at : "-",
                            picks[i].r->finished_at ? picks[i].r->finished_at : "-");
    }
    assert_int_equal(latest.n_left_out, all.n_left_out);
    for (size_t i = 0; i < all.n_left_out; i++)
        assert_int_equal(latest.left_out[i].run_id, all.left_out[i].run_id);
    free(picks);
    sb_results_free(&latest);
    sb_results_free(&all);
    return np;
}

static long long newest_of(sb_db *db, const char *suite, const char *provider)
{
    sb_error err;
    sb_result_filter f = {0};
    f.suite = suite;
    f.provider = provider;
    f.op = "latest_probe";
    sb_result_set s;
    assert_int_equal(sb_results_load_latest(db, &f, &s, &err), SB_OK);
    assert_int_equal(s.n, 1);
    long long id = s.v[0].run_id;
    sb_results_free(&s);
    return id;
}

static void test_latest_is_picks(void **state)
{
    (void)state;
    char p[512];
    sb_db *w = standard_db("latest.db", p, sizeof p);
    const char *a = "a000000000000000000000000000000000000000";
    const char *b = "b000000000000000000000000000000000000000";
    /* liger: its newest run gets marked as profiled later; the older one
     * then stands for it */
    long long liger_old = add(w, "s1", "liger", a, "2026-11-20T08:00:00Z", NULL);
    long long liger_new = add(w, "s1", "liger", b, "2026-11-21T08:00:00Z", NULL);
    /* torch-compile: the newest is left out (a time of 0 ms) */
    long long tc_old = add(w, "s1", "torch-compile", a, "2026-11-20T08:00:00Z", NULL);
    long long tc_new = add(w, "s1", "torch-compile", b, "2026-11-21T08:00:00Z", NULL);
    /* huggingface: 23:00 at -05:00 is 04:00 UTC the next day, newer than
     * the later text in UTC; SQLite and solbook read it alike */
    long long hf_late = add(w, "s1", "huggingface", a, "2026-11-20T23:00:00-05:00", NULL);
    add(w, "s1", "huggingface", b, "2026-11-21T02:00:00Z", NULL);
    /* reference: two suites; the newest is in s2; one run has a time only
     * solbook reads (lowercase t and z), which makes the series unsure */
    add(w, "s1", "reference", a, "2026-11-20T08:00:00Z", NULL);
    long long ref_s2 = add(w, "s2", "reference", b, "2026-11-22T08:00:00Z", NULL);
    long long ref_odd = add(w, "s1", "reference", b, "2026-11-23t08:00:00z", NULL);
    /* fused: profiled from the start, the older plain run stands */
    long long fused_plain = add(w, "s1", "fused", a, "2026-11-20T08:00:00Z", NULL);
    add(w, "s1", "fused", b, "2026-11-21T08:00:00Z", "ncu");
    /* cublas: the run without a finished time is the oldest */
    long long cublas_dated = add(w, "s1", "cublas", a, "2026-11-19T08:00:00Z", NULL);
    long long cublas_undated = add(w, "s1", "cublas", b, "2026-11-25T08:00:00Z", NULL);
    char sql[256];
    snprintf(sql, sizeof sql, "UPDATE provenance SET finished_at = NULL WHERE run_id = %lld",
             cublas_undated);
    fx_exec(w, sql);
    snprintf(sql, sizeof sql, "UPDATE configs SET profiler = 'ncu' WHERE run_id = %lld", liger_new);
    fx_exec(w, sql);
    snprintf(sql, sizeof sql, "UPDATE metrics SET median_ms = 0 WHERE run_id = %lld", tc_new);
    fx_exec(w, sql);
    sb_db_close(w);

    /* first with every run pending (written around solbook's commits),
     * then folded into series_latest */
    for (int pass = 0; pass < 2; pass++) {
        {
            w = fx_open(p);
            if (pass)
                fx_exec(w, "INSERT INTO series_fold (go) VALUES (1)");
            sqlite3_stmt *st = NULL;
            assert_int_equal(sqlite3_prepare_v2(sb_db_handle(w), "SELECT (SELECT count(*) FROM series_pending),"
                                                   " (SELECT count(*) FROM series_latest)",
                                                -1, &st, NULL),
                             SQLITE_OK);
            assert_int_equal(sqlite3_step(st), SQLITE_ROW);
            if (pass) {
                assert_int_equal(sqlite3_column_int(st, 0), 0);
                assert_true(sqlite3_column_int(st, 1) > 6);
            } else {
                assert_true(sqlite3_column_int(st, 0) > 6);
                assert_int_equal(sqlite3_column_int(st, 1), 0);
            }
            sqlite3_finalize(st);
            sb_db_close(w);
        }
        sb_db *db = open_read(p);
        assert_int_equal(newest_of(db, "s1", "liger"), liger_old);
        assert_int_equal(newest_of(db, "s1", "torch-compile"), tc_old);
        assert_int_equal(newest_of(db, "s1", "huggingface"), hf_late);
        assert_int_equal(newest_of(db, NULL, "reference"), ref_odd);
        assert_int_equal(newest_of(db, "s2", "reference"), ref_s2);
        assert_int_equal(newest_of(db, "s1", "fused"), fused_plain);
        assert_int_equal(newest_of(db, "s1", "cublas"), cublas_dated);
        size_t every = assert_latest_is_picks(db, NULL);
        assert_true(every > 5);
        sb_result_filter f = {0};
        f.suite = "s1";
        assert_int_equal(assert_latest_is_picks(db, &f), 6);
        f.suite = NULL;
        f.op = "latest_probe";
        assert_int_equal(assert_latest_is_picks(db, &f), 6);
        f.op = NULL;
        f.sku = "h100-sxm5-80gb";
        assert_latest_is_picks(db, &f);
        memset(&f, 0, sizeof f);
        f.provider = "reference";
        assert_latest_is_picks(db, &f);
        f.arch = "h100";   /* read whole: series_latest has no arch */
        assert_latest_is_picks(db, &f);
        memset(&f, 0, sizeof f);
        f.with_profiled = 1;
        assert_latest_is_picks(db, &f);
        sb_db_close(db);
    }

    /* forgetting a series' newest run makes the one before it the newest */
    w = fx_open(p);
    fx_exec(w, "PRAGMA foreign_keys = ON");
    snprintf(sql, sizeof sql, "DELETE FROM runs WHERE id = %lld", hf_late);
    fx_exec(w, sql);
    sb_db_close(w);
    sb_db *db = open_read(p);
    long long hf_now = newest_of(db, "s1", "huggingface");
    assert_true(hf_now != hf_late);
    assert_latest_is_picks(db, NULL);
    sb_db_close(db);
}

/* The runs of either side, each once, are those a full read keeps. */
static void test_load_any(void **state)
{
    (void)state;
    char p[512];
    sb_db *w = standard_db("any.db", p, sizeof p);
    const char *a = "ab00000000000000000000000000000000000000";
    const char *b = "ac00000000000000000000000000000000000000";
    add(w, "s1", "liger", a, "2026-11-20T08:00:00Z", NULL);
    add(w, "s1", "liger", b, "2026-11-21T08:00:00Z", NULL);
    long long undated = add(w, "s1", "fused", b, "2026-11-21T09:00:00Z", NULL);
    add(w, "s2", "fused", a, "2026-11-22T08:00:00Z", NULL);
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE provenance SET finished_at = NULL WHERE run_id = %lld", undated);
    fx_exec(w, sql);
    sb_db_close(w);
    sb_db *db = open_read(p);
    sb_error err;
    sb_result_set all, any;
    assert_int_equal(sb_results_load(db, NULL, &all, &err), SB_OK);
    sb_result_filter fs[3] = {{0}};
    fs[0].sha = "ab";
    fs[1].sha = "ac";
    fs[2].suite = "s1";   /* overlaps both */
    assert_int_equal(sb_results_load_any(db, fs, 3, &any, &err), SB_OK);
    size_t k = 0;
    for (size_t i = 0; i < all.n; i++) {
        const sb_result *r = &all.v[i];
        if (strncmp(r->git_sha, "ab", 2) && strncmp(r->git_sha, "ac", 2) && strcmp(r->suite, "s1"))
            continue;
        assert_true(k < any.n);
        assert_int_equal(any.v[k].run_id, r->run_id);
        k++;
    }
    assert_int_equal(k, any.n);
    assert_int_equal(any.n, 4);
    sb_results_free(&any);
    sb_results_free(&all);
    sb_db_close(db);
}

/* The runs of a set, v and left_out, as "id,implausible id,..." */
static void set_ids(const sb_result_set *s, char *buf, size_t size)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%lld,%d ", s->v[i].run_id, s->v[i].implausible);
    for (size_t i = 0; i < s->n_left_out && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "left %lld ", s->left_out[i].run_id);
}

/* Picked from every plain run and every session run, a window with
 * sessions gives what a read of it gives: the same runs in the same
 * order, left-out runs apart, and no plausibility mark of the loaded set. */
static void test_select_sessions(void **state)
{
    (void)state;
    char p[512];
    sb_db *w = standard_db("sessions.db", p, sizeof p);
    const char *a = "ad00000000000000000000000000000000000000";
    add(w, "s1", "liger", a, "2026-11-16T08:00:00Z", NULL);
    long long in_a = add(w, "s1", "liger", a, "2026-11-17T08:00:00Z", NULL);
    long long in_b = add(w, "s1", "fused", a, "2026-11-18T08:00:00Z", NULL);
    long long zero = add(w, "s1", "fused", a, "2026-11-18T09:00:00Z", NULL);
    add(w, "s1", "fused", a, "2026-11-18T10:00:00Z", "ncu");
    long long s_in = add(w, "s1", "liger", a, "2026-11-17T12:00:00Z", NULL);
    long long s_out = add(w, "s1", "fused", a, "2026-11-25T08:00:00Z", NULL);
    long long s_zero = add(w, "s1", "reference", a, "2026-11-17T13:00:00Z", NULL);
    char sql[256];
    long long sess[] = {s_in, s_out, s_zero};
    for (size_t i = 0; i < 3; i++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO run_sessions (run_id, session_id, copy, rounds, timing_method, check_version)"
                 " VALUES (%lld, '0123456789abcdef0123456789abcdef', 0, 3, 'held-launch', 'v1')",
                 sess[i]);
        fx_exec(w, sql);
    }
    snprintf(sql, sizeof sql, "UPDATE metrics SET median_ms = 0 WHERE run_id IN (%lld, %lld)", zero,
             s_zero);
    fx_exec(w, sql);
    sb_db_close(w);

    sb_db *db = open_read(p);
    sb_error err;
    sb_result_set all, sessions, picked, read;
    assert_int_equal(sb_results_load(db, NULL, &all, &err), SB_OK);
    assert_int_equal(sb_results_load_sessions(db, &sessions, &err), SB_OK);
    assert_int_equal(sessions.n, 2);
    assert_int_equal(sessions.n_left_out, 1);
    for (size_t i = 0; i < all.n; i++)
        all.v[i].implausible = 1;
    sb_result_filter f = {0};
    f.with_sessions = 1;
    f.has_range = 1;
    f.op = "latest_probe";
    assert_int_equal(sb_rfc3339_parse("2026-11-17T00:00:00Z", &f.from), 0);
    assert_int_equal(sb_rfc3339_parse("2026-11-19T00:00:00Z", &f.to), 0);
    assert_int_equal(sb_results_select_sessions(db, &all, &sessions, &f, &picked, &err), SB_OK);
    assert_int_equal(sb_results_load(db, &f, &read, &err), SB_OK);
    char want[512], got[512];
    set_ids(&read, want, sizeof want);
    set_ids(&picked, got, sizeof got);
    printf("window with sessions: read %s| picked %s\n", want, got);
    assert_string_equal(got, want);
    /* fused's run, then liger's two, the session's the later */
    assert_int_equal(picked.n, 3);
    assert_int_equal(picked.v[0].run_id, in_b);
    assert_int_equal(picked.v[1].run_id, in_a);
    assert_int_equal(picked.v[2].run_id, s_in);
    assert_int_equal(picked.n_left_out, 2);
    /* picked by id: the same runs in the same order, kept to the ids
     * (a packet's cited runs), a session's run among them */
    int64_t ids[] = {in_a < s_in ? in_a : s_in, in_a < s_in ? s_in : in_a};
    sb_result_set by_id, none;
    assert_int_equal(sb_results_select_sessions_ids(&all, &sessions, &f, ids, 2, &by_id, &err), SB_OK);
    assert_int_equal(by_id.n, 2);
    assert_int_equal(by_id.v[0].run_id, in_a);
    assert_int_equal(by_id.v[1].run_id, s_in);
    assert_int_equal(by_id.v[0].implausible, 0);
    assert_int_equal(by_id.n_left_out, 0);
    assert_int_equal(sb_results_select_sessions_ids(&all, &sessions, &f, ids, 0, &none, &err), SB_OK);
    assert_int_equal(none.n, 0);
    sb_results_free(&none);
    sb_results_free(&by_id);
    int64_t backwards[] = {ids[1], ids[0]};
    assert_int_equal(sb_results_select_sessions_ids(&all, &sessions, &f, backwards, 2, &by_id, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "ascending"));
    sb_results_free(&read);
    sb_results_free(&picked);
    sb_results_free(&sessions);
    sb_results_free(&all);
    sb_db_close(db);
}

static int setup(void **state)
{
    (void)state;
    return fx_tmpdir_make(tmpdir, sizeof tmpdir, "select");
}

static int teardown(void **state)
{
    (void)state;
    return fx_tmpdir_remove(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latest_is_picks),
        cmocka_unit_test(test_load_any),
        cmocka_unit_test(test_select_sessions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_results_select.c - the queries that read what a report selects
 * (db/results_query.h) give the runs a full read gives: the runs of
 * either side of a comparison, checked against the full read filtered
 * in C. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "results.h"

static char tmpdir[256];

static void exec_sql(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
}

static sqlite3 *open_read(const char *path)
{
    sqlite3 *db = NULL;
    sb_error err;
    if (sb_report_db_open(path, &db, &err) != SB_OK)
        fail_msg("%s: %s", err.file, err.msg);
    return db;
}

static const double SAMPLES[] = {1.0, 1.1, 0.9, 1.0, 1.05};

static long long add(sqlite3 *w, const char *suite, const char *provider, const char *sha,
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

/* The runs of either side, each once, are those a full read keeps. */
static void test_load_any(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/any.db", tmpdir);
    sqlite3 *w = fx_create(p);
    fx_standard(w);
    const char *a = "ab00000000000000000000000000000000000000";
    const char *b = "ac00000000000000000000000000000000000000";
    add(w, "s1", "liger", a, "2026-11-20T08:00:00Z", NULL);
    add(w, "s1", "liger", b, "2026-11-21T08:00:00Z", NULL);
    long long undated = add(w, "s1", "fused", b, "2026-11-21T09:00:00Z", NULL);
    add(w, "s2", "fused", a, "2026-11-22T08:00:00Z", NULL);
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE provenance SET finished_at = NULL WHERE run_id = %lld", undated);
    exec_sql(w, sql);
    sqlite3_close(w);
    sqlite3 *db = open_read(p);
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
    sqlite3_close(db);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sb-latest-test-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_any),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

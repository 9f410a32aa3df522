/* test_weekly_snapshot.c - model/weekly_snapshot.h: the writeup finds a
 * run's verdict by its id among those read, and none for a run that was
 * not read; the session runs it hands to several calls are deep copies
 * (model/session_run.h); the claims check finds a run's samples among
 * those its caller read (model/run_samples.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run_samples.h"
#include "session_run.h"
#include "weekly_snapshot.h"

static void test_verdict_by_run(void **state)
{
    (void)state;
    sb_weekly_snapshot s;
    memset(&s, 0, sizeof s);
    long long ids[] = {3, 8, 21, 40};
    s.nverdicts = 4;
    s.verdict_run = malloc(sizeof ids);
    s.verdict = calloc(4, sizeof *s.verdict);
    assert_non_null(s.verdict_run);
    assert_non_null(s.verdict);
    memcpy(s.verdict_run, ids, sizeof ids);
    for (size_t i = 0; i < 4; i++)
        s.verdict[i].pct_ceiling = 10.0 * (double)(i + 1);
    for (size_t i = 0; i < 4; i++) {
        const sb_plaus_verdict *v = sb_weekly_snapshot_verdict(&s, ids[i]);
        assert_non_null(v);
        assert_true(v == &s.verdict[i]);
        assert_true(v->pct_ceiling == 10.0 * (double)(i + 1));
    }
    long long absent[] = {0, 4, 20, 22, 41};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        assert_null(sb_weekly_snapshot_verdict(&s, absent[i]));
    sb_weekly_snapshot_free(&s);
    assert_int_equal(s.nverdicts, 0);
    assert_null(sb_weekly_snapshot_verdict(&s, 3));
}

static char *dup_text(const char *t)
{
    char *d = malloc(strlen(t) + 1);
    assert_non_null(d);
    strcpy(d, t);
    return d;
}

static void test_session_runs_copy(void **state)
{
    (void)state;
    sb_session_runs a = {0}, b = {0};
    a.n = 2;
    a.v = calloc(2, sizeof *a.v);
    assert_non_null(a.v);
    a.v[0].run_id = 7;
    a.v[0].session_id = dup_text("s1");
    a.v[0].status = dup_text("passed");
    a.v[0].gpu_uuid = NULL;
    a.v[0].implausible = 1;
    a.v[0].medians_read = 1;
    a.v[0].kernel_rounds = 2;
    a.v[0].kernel_medians = malloc(2 * sizeof(double));
    assert_non_null(a.v[0].kernel_medians);
    a.v[0].kernel_medians[0] = 1.5;
    a.v[0].kernel_medians[1] = 2.5;
    a.v[1].run_id = 9;
    a.v[1].session_id = dup_text("s1");
    a.v[1].status = dup_text("failed");
    a.v[1].gpu_uuid = dup_text("GPU-1");
    assert_int_equal(sb_session_runs_copy(&a, &b), 0);
    assert_int_equal(b.n, 2);
    assert_int_equal(b.v[0].run_id, 7);
    assert_int_equal(b.v[0].implausible, 1);
    assert_string_equal(b.v[0].session_id, "s1");
    assert_true(b.v[0].session_id != a.v[0].session_id);
    assert_null(b.v[0].gpu_uuid);
    assert_int_equal(b.v[0].medians_read, 1);
    assert_true(b.v[0].kernel_medians != a.v[0].kernel_medians);
    assert_true(b.v[0].kernel_medians[1] == 2.5);
    assert_null(b.v[0].call_medians);
    assert_string_equal(b.v[1].gpu_uuid, "GPU-1");
    /* the copy outlives the original */
    sb_session_runs_free(&a);
    assert_string_equal(b.v[1].status, "failed");
    sb_session_runs_free(&b);
    sb_session_runs empty = {0};
    assert_int_equal(sb_session_runs_copy(&empty, &b), 0);
    assert_int_equal(b.n, 0);
}

static void test_run_samples(void **state)
{
    (void)state;
    sb_run_samples s = {0};
    sb_error err;
    double *v = malloc(3 * sizeof *v);
    assert_non_null(v);
    v[0] = 1.0;
    v[1] = 2.0;
    v[2] = 3.0;
    assert_int_equal(sb_run_samples_add(&s, 4, v, 3, &err), SB_OK);
    assert_int_equal(sb_run_samples_add(&s, 11, NULL, 0, &err), SB_OK);
    const double *got = NULL;
    size_t n = 9;
    assert_int_equal(sb_run_samples_of(&s, 4, &got, &n), 1);
    assert_int_equal(n, 3);
    assert_true(got[2] == 3.0);
    /* a run read without samples is found, with none */
    assert_int_equal(sb_run_samples_of(&s, 11, &got, &n), 1);
    assert_int_equal(n, 0);
    assert_int_equal(sb_run_samples_of(&s, 5, &got, &n), 0);
    sb_run_samples_free(&s);
    assert_int_equal(s.count, 0);
    assert_int_equal(sb_run_samples_of(&s, 4, &got, &n), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdict_by_run),
        cmocka_unit_test(test_session_runs_copy),
        cmocka_unit_test(test_run_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

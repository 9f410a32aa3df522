/* test_weekly_snapshot.c - model/weekly_snapshot.h: the writeup finds a
 * run's verdict by its id among those read, and none for a run that was
 * not read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdict_by_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

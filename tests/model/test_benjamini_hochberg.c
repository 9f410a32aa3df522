/* test_benjamini_hochberg.c - model/stats.h's Benjamini-Hochberg
 * procedure against examples worked by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "stats.h"

static void test_all_discovered(void **state)
{
    (void)state;
    /* ranks 0.005 (1), 0.01 (2), 0.03 (3), 0.04 (4); thresholds at q 0.05:
     * 0.0125, 0.025, 0.0375, 0.05; 0.04 <= 0.05, so k = 4. Adjusted:
     * 4*0.005/1 = 0.02, 4*0.01/2 = 0.02, 4*0.03/3 = 0.04, 4*0.04/4 = 0.04. */
    double p[] = {0.01, 0.04, 0.03, 0.005};
    double adj[4];
    int d[4];
    assert_int_equal(sb_benjamini_hochberg(p, 4, 0.05, adj, d), 0);
    double want[] = {0.02, 0.04, 0.04, 0.02};
    for (int i = 0; i < 4; i++) {
        assert_true(fabs(adj[i] - want[i]) < 1e-12);
        assert_int_equal(d[i], 1);
    }
}

static void test_step_up(void **state)
{
    (void)state;
    /* sorted 0.01 (<= 0.0125), 0.028 (> 0.025), 0.03 (<= 0.0375), 0.5:
     * k = 3, so 0.028 is a discovery though it misses its own threshold.
     * Adjusted: 0.04, min(0.056, 0.04), 0.04, 0.5. */
    double p[] = {0.01, 0.03, 0.028, 0.5};
    double adj[4];
    int d[4];
    assert_int_equal(sb_benjamini_hochberg(p, 4, 0.05, adj, d), 0);
    int want_d[] = {1, 1, 1, 0};
    double want[] = {0.04, 0.04, 0.04, 0.5};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(d[i], want_d[i]);
        assert_true(fabs(adj[i] - want[i]) < 1e-12);
    }
}

static void test_some_discovered(void **state)
{
    (void)state;
    /* ten p-values, q 0.05: thresholds 0.005 k; 0.001 and 0.008 pass
     * (0.005, 0.010), nothing later does (0.039 > 0.015, ..., 0.216 > 0.05). */
    double p[] = {0.205, 0.001, 0.039, 0.212, 0.008, 0.041, 0.216, 0.042, 0.06, 0.074};
    int d[10];
    assert_int_equal(sb_benjamini_hochberg(p, 10, 0.05, NULL, d), 0);
    int want[] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 0};
    for (int i = 0; i < 10; i++)
        assert_int_equal(d[i], want[i]);
    /* one test alone: adjusted = p, discovery iff p <= q */
    double one = 0.05, adj;
    int d1;
    assert_int_equal(sb_benjamini_hochberg(&one, 1, 0.05, &adj, &d1), 0);
    assert_true(adj == 0.05 && d1 == 1);
    /* ties share a rank's adjusted value; capped at 1 */
    double tied[] = {0.9, 0.9, 0.9};
    double at[3];
    assert_int_equal(sb_benjamini_hochberg(tied, 3, 0.05, at, NULL), 0);
    assert_true(fabs(at[0] - 0.9) < 1e-12 && fabs(at[2] - 0.9) < 1e-12);
    double none[] = {0.5, 0.8};
    assert_int_equal(sb_benjamini_hochberg(none, 2, 0.05, at, d), 0);
    assert_true(d[0] == 0 && d[1] == 0 && at[0] == 0.8 && at[1] == 0.8);
}

static void test_refused(void **state)
{
    (void)state;
    double bad[] = {0.1, NAN};
    int d[2];
    assert_int_equal(sb_benjamini_hochberg(bad, 2, 0.05, NULL, d), -1);
    bad[1] = 1.5;
    assert_int_equal(sb_benjamini_hochberg(bad, 2, 0.05, NULL, d), -1);
    assert_int_equal(sb_benjamini_hochberg(bad, 0, 0.05, NULL, d), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_discovered), cmocka_unit_test(test_step_up),
        cmocka_unit_test(test_some_discovered), cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

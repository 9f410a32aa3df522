/* test_paired.c - model/paired.h: per-round medians, paired ratios and
 * their intervals, the verdict rule, Student-t quantiles. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "paired.h"
#include "stats.h"

static void test_t_quantiles(void **state)
{
    (void)state;
    /* two-sided 95% critical values from published tables */
    assert_true(fabs(sb_student_t_quantile(0.975, 1) - 12.7062) < 1e-3);
    assert_true(fabs(sb_student_t_quantile(0.975, 4) - 2.7764) < 1e-3);
    assert_true(fabs(sb_student_t_quantile(0.975, 9) - 2.2622) < 1e-3);
    assert_true(fabs(sb_student_t_quantile(0.995, 9) - 3.2498) < 1e-3);
    assert_true(fabs(sb_student_t_quantile(0.975, 30) - 2.0423) < 1e-3);
    assert_true(fabs(sb_student_t_quantile(0.025, 9) + 2.2622) < 1e-3);
    assert_true(sb_student_t_quantile(0.5, 3) == 0.0);
    assert_true(isnan(sb_student_t_quantile(1.0, 3)));
    assert_true(isnan(sb_student_t_quantile(0.9, 0)));
}

static void test_round_medians(void **state)
{
    (void)state;
    double *m;
    size_t n;
    sb_error e;
    assert_int_equal(sb_round_medians("[[3,1,2],[4,8],[5]]", &m, &n, &e), SB_OK);
    assert_int_equal(n, 3);
    assert_true(m[0] == 2.0 && m[1] == 6.0 && m[2] == 5.0);
    free(m);
    /* the range's ends are pairable */
    assert_int_equal(sb_round_medians("[[1e-6],[1e9]]", &m, &n, &e), SB_OK);
    free(m);
    /* past them (a subnormal, a median that overflows) is not */
    const char *bad[] = {NULL, "", "[]", "[1,2]", "[[]]", "[[1],[0]]", "[[1],[\"x\"]]", "{\"a\":1}",
                         "[[1],[5e-324]]", "[[1],[9.9e-7]]", "[[1],[1.1e9]]", "[[1.7e308,1.7e308]]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sb_round_medians(bad[i], &m, &n, &e), SB_ERR);
        assert_null(m);
        assert_true(e.msg[0] != '\0');
        /* no message prints a number that is not finite */
        assert_null(strstr(e.msg, "inf"));
        assert_null(strstr(e.msg, "nan"));
    }
    assert_int_equal(sb_round_medians("[[1],[1.7e308,1.7e308]]", &m, &n, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "round 1 has a median past the largest number"));
    assert_int_equal(sb_round_medians("[[1],[\"x\"]]", &m, &n, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "round 1 holds a value that is not a number"));
}

static void test_paired_ratio(void **state)
{
    (void)state;
    sb_error e;
    sb_paired p;
    /* every round exactly 2x: the interval collapses onto 2 */
    double a[] = {1.0, 1.1, 0.9, 1.3, 1.0}, b[] = {2.0, 2.2, 1.8, 2.6, 2.0};
    assert_int_equal(sb_paired_ratio(a, b, 5, 0.95, &p, &e), SB_OK);
    assert_true(fabs(p.ratio - 2.0) < 1e-12 && fabs(p.lo - 2.0) < 1e-9 && fabs(p.hi - 2.0) < 1e-9);
    assert_int_equal(p.n, 5);
    /* drift common to both sides cancels: a doubles over the rounds, b
     * follows it at 1.1x, plus or minus 1% */
    double c[] = {1, 2, 4, 8, 16}, d[] = {1.1 * 1.01, 2.2 * 0.99, 4.4 * 1.01, 8.8 * 0.99, 17.6};
    assert_int_equal(sb_paired_ratio(c, d, 5, 0.95, &p, &e), SB_OK);
    assert_true(fabs(p.ratio - 1.1) < 0.01);
    assert_true(p.lo > 1.08 && p.hi < 1.12);
    /* the interval: mean of the logs +- t(0.975, 4) * sd / sqrt(5) */
    double x[] = {1, 1, 1, 1, 1}, y[] = {exp(0.1), exp(-0.1), exp(0.2), exp(0.0), exp(-0.2)};
    assert_int_equal(sb_paired_ratio(x, y, 5, 0.95, &p, &e), SB_OK);
    double sd = sqrt((0.01 + 0.01 + 0.04 + 0.0 + 0.04) / 4.0), half = 2.7764451 * sd / sqrt(5.0);
    assert_true(fabs(p.ratio - 1.0) < 1e-12);
    assert_true(fabs(log(p.hi) - half) < 1e-5 && fabs(log(p.lo) + half) < 1e-5);
    /* refusals */
    assert_int_equal(sb_paired_ratio(a, b, 1, 0.95, &p, &e), SB_ERR);
    assert_int_equal(sb_paired_ratio(a, b, 5, 1.0, &p, &e), SB_ERR);
    double z[] = {1, 0, 1, 1, 1};
    assert_int_equal(sb_paired_ratio(a, z, 5, 0.95, &p, &e), SB_ERR);
    double inf[] = {1, INFINITY, 1, 1, 1};
    assert_int_equal(sb_paired_ratio(inf, a, 5, 0.95, &p, &e), SB_ERR);
}

static void test_geomean(void **state)
{
    (void)state;
    sb_error e;
    sb_paired v[2] = {{5, 2.0, 1.9, 2.1, 0.01}, {10, 0.5, 0.45, 0.55, 0.02}}, g;
    assert_int_equal(sb_paired_geomean(v, 2, 0.95, &g, &e), SB_OK);
    assert_true(fabs(g.ratio - 1.0) < 1e-12);
    assert_int_equal(g.n, 5);
    double se = sqrt(0.01 * 0.01 + 0.02 * 0.02) / 2.0;
    assert_true(fabs(g.log_se - se) < 1e-12);
    assert_true(fabs(log(g.hi) - 2.7764451 * se) < 1e-6);
    assert_int_equal(sb_paired_geomean(v, 0, 0.95, &g, &e), SB_ERR);
}

static void test_judge(void **state)
{
    (void)state;
    sb_paired p = {5, 1.05, 1.03, 1.07, 0};
    assert_int_equal(sb_paired_judge(&p, 0.02), SB_PAIRED_SLOWER);
    assert_int_equal(sb_paired_judge(&p, 0.06), SB_PAIRED_INCONCLUSIVE);
    p = (sb_paired){5, 1.01, 0.995, 1.015, 0};
    assert_int_equal(sb_paired_judge(&p, 0.02), SB_PAIRED_SAME);
    p = (sb_paired){5, 0.9, 0.88, 0.92, 0};
    assert_int_equal(sb_paired_judge(&p, 0.02), SB_PAIRED_FASTER);
    /* significant but smaller than the threshold: not a change, not proven same */
    p = (sb_paired){5, 1.015, 1.01, 1.025, 0};
    assert_int_equal(sb_paired_judge(&p, 0.02), SB_PAIRED_INCONCLUSIVE);
    assert_string_equal(sb_paired_verdict_name(SB_PAIRED_SLOWER), "slower");
    assert_string_equal(sb_paired_verdict_name((sb_paired_verdict)9), "unknown");
}

static void test_quantile_sorted(void **state)
{
    (void)state;
    double v[21];
    for (int i = 0; i < 21; i++)
        v[i] = i;
    assert_true(sb_quantile_sorted(v, 21, 0.95) == 19.0);
    assert_true(sb_quantile_sorted(v, 21, 0.5) == 10.0);
    assert_true(sb_quantile_sorted(v, 21, 0.0) == 0.0 && sb_quantile_sorted(v, 21, 1.0) == 20.0);
    assert_true(sb_quantile_sorted(v, 1, 0.95) == 0.0);
    assert_true(isnan(sb_quantile_sorted(v, 0, 0.5)));
}

/* The A/A change a threshold is taken from: the largest of up to 10
 * comparisons, and not one far comparison among 21. */
/* sb_middle_values against a sort, on every order of small inputs with
 * ties, on pseudo-random ones of every length up to 300, and on inputs
 * sorted, reversed and all equal that defeat simple pivots. */
static void check_middles(const double *x, size_t n)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    memcpy(a, x, n * sizeof *a);
    memcpy(b, x, n * sizeof *b);
    sb_sort_ascending(b, n);
    double lo, hi;
    sb_middle_values(a, n, &lo, &hi);
    assert_true(lo == b[(n - 1) / 2]);
    assert_true(hi == b[n / 2]);
    free(a);
    free(b);
}

static void test_middle_values(void **state)
{
    (void)state;
    const double small[][4] = {{1, 2, 3, 4}, {4, 3, 2, 1}, {2, 2, 1, 3}, {3, 1, 3, 1}, {5, 5, 5, 5}, {0, -1, 7, -1}};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        for (size_t n = 1; n <= 4; n++)
            check_middles(small[i], n);
    double v[300];
    unsigned seed = 12345;
    for (size_t n = 1; n <= 300; n++) {
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            v[i] = (double)((seed >> 16) % 50) * 0.25;
        }
        check_middles(v, n);
    }
    for (size_t i = 0; i < 300; i++)
        v[i] = (double)i;
    check_middles(v, 300);
    for (size_t i = 0; i < 300; i++)
        v[i] = (double)(300 - i);
    check_middles(v, 300);
    for (size_t i = 0; i < 300; i++)
        v[i] = 1.5;
    check_middles(v, 299);
}

static void test_aa_change(void **state)
{
    (void)state;
    double v[21];
    for (int i = 0; i < 21; i++)
        v[i] = 0.001 * i;
    assert_true(sb_aa_change(v, 10) == v[9]);
    assert_true(sb_aa_change(v, 1) == v[0]);
    v[20] = 0.30;
    assert_true(sb_aa_change(v, 21) == v[19]);
    assert_true(fabs(sb_aa_threshold(sb_aa_change(v, 21), 0.02) - 0.0285) < 1e-12);
    assert_true(sb_aa_threshold(sb_aa_change(v, 5), 0.02) == 0.02);
    assert_true(isnan(sb_aa_change(v, 0)));
    const double r[] = {1.0, 1.2, 0.8, 1.0};
    assert_true(fabs(sb_relative_stdev(r, 4) - sqrt(0.08 / 3.0)) < 1e-12);
    assert_true(isnan(sb_relative_stdev(r, 1)));
    const double zero[] = {0.0, 0.0};
    assert_true(sb_relative_stdev(zero, 2) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t_quantiles), cmocka_unit_test(test_round_medians),
        cmocka_unit_test(test_paired_ratio), cmocka_unit_test(test_geomean), cmocka_unit_test(test_judge), cmocka_unit_test(test_quantile_sorted),
        cmocka_unit_test(test_aa_change), cmocka_unit_test(test_middle_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_rg_settle.c - model/rg_settle.h's passes over the stored
 * regression steps against figures worked by hand: a family's
 * Benjamini-Hochberg adjustment, a drift class's figures, the thresholds
 * they give its steps and the steps they flag. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "rg_settle.h"

static sb_rg_member member(long long grp, long long seq, double p, double rel_change, double threshold)
{
    sb_rg_member m = {grp, seq, p, NAN, rel_change, threshold, SB_RG_NO_CHANGE, SB_RG_DRIFT, 7, 1, 2};
    return m;
}

static void test_family(void **state)
{
    (void)state;
    /* p 0.04, 0.001, 0.02 in (grp, seq) order; by rank 0.001 (1), 0.02
     * (2), 0.04 (3): 3*0.001/1 = 0.003, 3*0.02/2 = 0.03, 3*0.04/3 = 0.04 */
    sb_rg_member m[3] = {member(1, 0, 0.04, 0.1, 0.03), member(2, 0, 0.001, 0.1, 0.03),
                         member(3, 4, 0.02, 0.1, 0.03)};
    sb_rg_member *mp[3] = {&m[0], &m[1], &m[2]};
    sb_error err;
    assert_int_equal(sb_rg_adjust_family(mp, 3, 0.01, &err), SB_OK);
    assert_true(fabs(m[0].p_adjusted - 0.04) < 1e-12);
    assert_true(fabs(m[1].p_adjusted - 0.003) < 1e-12);
    assert_true(fabs(m[2].p_adjusted - 0.03) < 1e-12);
    /* a p-value out of range is refused, not adjusted */
    m[0].p = 1.5;
    assert_int_equal(sb_rg_adjust_family(mp, 3, 0.01, &err), SB_ERR);
    assert_non_null(err.msg);
}

static void test_family_member(void **state)
{
    (void)state;
    assert_int_equal(sb_rg_family_member(SB_RG_NO_CHANGE, 3, 0.5), 1);
    assert_int_equal(sb_rg_family_member(SB_RG_REGRESSION, 3, 0.001), 1);
    assert_int_equal(sb_rg_family_member(SB_RG_NO_CHANGE, 0, 0.5), 0); /* from no commit */
    assert_int_equal(sb_rg_family_member(SB_RG_NO_CHANGE, 3, NAN), 0);
    assert_int_equal(sb_rg_family_member(SB_RG_INSUFFICIENT, 3, 0.5), 0);
    assert_int_equal(sb_rg_family_member(SB_RG_NOW_FAILING, 3, 0.5), 0);
}

static void test_class(void **state)
{
    (void)state;
    /* four tested steps: the largest |change| 0.20 (grp 1, seq 2), then
     * 0.05. The largest's step takes 1.5 * 0.05 = 0.075, every other
     * step 1.5 * 0.20 = 0.30; only a |change| of at least
     * min(0.30, 0.20) can be flagged. */
    sb_rg_member top[2] = {member(1, 2, 0.001, -0.20, 0.03), member(4, 0, 0.001, 0.05, 0.03)};
    sb_rg_class_figs f;
    double min_abs = 0;
    sb_rg_class_figs_of(7, 4, top, 2, 0.03, &f, &min_abs);
    assert_int_equal(f.cls, 7);
    assert_int_equal(f.tested, 4);
    assert_int_equal(f.top_grp, 1);
    assert_int_equal(f.top_seq, 2);
    assert_true(f.top_change == 0.20 && f.second_change == 0.05);
    assert_true(fabs(min_abs - 0.20) < 1e-12);
    double t = 0.03;
    sb_rg_threshold_from from = SB_RG_FROM_SKU_AA;
    sb_rg_class_threshold(&f, 1, 2, 0.03, &t, &from);
    assert_true(fabs(t - 0.075) < 1e-12);
    assert_int_equal(from, SB_RG_FROM_HISTORY_AA);
    t = 0.03;
    sb_rg_class_threshold(&f, 1, 3, 0.03, &t, &from);
    assert_true(fabs(t - 0.30) < 1e-12);
    /* a threshold above the class's stays */
    t = 0.5;
    from = SB_RG_FROM_SKU_AA;
    sb_rg_class_threshold(&f, 1, 3, 0.03, &t, &from);
    assert_true(t == 0.5);
    assert_int_equal(from, SB_RG_FROM_SKU_AA);
    /* the largest's step is an improvement at 0.075; a 0.25 step is under
     * 0.30; a 0.35 step whose adjusted p is 0.02 is not below alpha */
    sb_rg_member m[3] = {top[0], member(2, 0, 0.001, 0.25, 0.03), member(3, 0, 0.001, 0.35, 0.03)};
    m[2].p_adjusted = 0.02;
    sb_rg_class_flagged(&f, m, 3, 0.01, 0.03);
    assert_int_equal(f.flagged, 1);
    m[2].p_adjusted = 0.005;
    sb_rg_class_flagged(&f, m, 3, 0.01, 0.03);
    assert_int_equal(f.flagged, 2);
    /* with SB_RG_DRIFT_MIN_CLASS tested steps the class gives no
     * threshold: any |change| can be flagged, at the walk's threshold */
    sb_rg_class_figs_of(7, SB_RG_DRIFT_MIN_CLASS, top, 2, 0.03, &f, &min_abs);
    assert_true(min_abs == -1.0);
    t = 0.03;
    sb_rg_class_threshold(&f, 4, 0, 0.03, &t, &from);
    assert_true(t == 0.03);
    sb_rg_class_flagged(&f, m, 3, 0.01, 0.03);
    assert_int_equal(f.flagged, 3);
    /* no tested step */
    sb_rg_class_figs_of(8, 0, NULL, 0, 0.03, &f, &min_abs);
    assert_int_equal(f.top_grp, -1);
    assert_int_equal(f.top_seq, -1);
}

static void test_judge(void **state)
{
    (void)state;
    assert_int_equal(sb_rg_judge(0.001, 0.05, 0.01, 0.03), SB_RG_REGRESSION);
    assert_int_equal(sb_rg_judge(0.001, -0.05, 0.01, 0.03), SB_RG_IMPROVEMENT);
    assert_int_equal(sb_rg_judge(0.001, 0.02, 0.01, 0.03), SB_RG_NO_CHANGE);
    assert_int_equal(sb_rg_judge(0.01, 0.50, 0.01, 0.03), SB_RG_NO_CHANGE); /* p not below alpha */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_family),
        cmocka_unit_test(test_family_member),
        cmocka_unit_test(test_class),
        cmocka_unit_test(test_judge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_plausible.c - the plausibility check on figures alone
 * (report/plausible.h, sb_plaus_judge). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "plausible.h"

/* An H200's calibration (examples/h200/providers/bdb974c-full/calibration.json). */
static sb_plaus_ceilings h200(void)
{
    sb_plaus_ceilings c = {1, 8566, 4246.3, 4391.4, NAN, 62914560.0};
    return c;
}

/* A run moving read + write GB in one second, far above L2. */
static sb_plaus_input moved(double read_gb, double write_gb)
{
    sb_plaus_input in = {0};
    in.read_bytes = read_gb * 1e9;
    in.write_bytes = write_gb * 1e9;
    in.bytes = in.read_bytes + in.write_bytes;
    in.flops = NAN;
    in.seconds = 1.0;
    in.flop_ceiling_tflops = NAN;
    return in;
}

static void test_read_only_held_against_copy(void **state)
{
    (void)state;
    sb_plaus_ceilings c = h200();
    sb_plaus_input in = moved(4689, 0); /* cross entropy fwd fp32, 110% of copy */
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_string_equal(v.ceiling_name, "bw.copy");
    assert_true(fabs(v.pct_ceiling - 110.4) < 0.1);
    assert_non_null(strstr(v.reason, "no read ceiling (bandwidth.read)"));
    assert_non_null(strstr(v.reason, "calibration run 8566"));
    /* the two measured mixes put reading alone near 4714 GB/s */
    assert_non_null(strstr(v.reason, "near 4714 GB/s"));

    /* at the margin it passes */
    in = moved(4246.3 * 1.019, 0);
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_OK);
}

static void test_read_ceiling_used_when_measured(void **state)
{
    (void)state;
    sb_plaus_ceilings c = h200();
    c.read_gbps = 4750;
    sb_plaus_input in = moved(4689, 0);
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_OK);
    assert_string_equal(v.ceiling_name, "bw.read");
}

static void test_two_reads_a_write_against_add(void **state)
{
    (void)state;
    sb_plaus_ceilings c = h200();
    /* softmax bwd: 103% of copy, under add/triad */
    sb_plaus_input in = moved(2 * 4373.7 / 3, 4373.7 / 3);
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_OK);
    assert_string_equal(v.ceiling_name, "bw.add/triad");
    in = moved(2 * 4600.0 / 3, 4600.0 / 3);
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
}

static void test_mix_between_copy_and_add(void **state)
{
    (void)state;
    sb_plaus_ceilings c = h200();
    sb_plaus_input in = moved(5, 3); /* swiglu full */
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_string_equal(v.ceiling_name, "bw.copy+add mix");
    assert_true(v.ceiling_gbps > c.copy_gbps && v.ceiling_gbps < c.pair_gbps);
    /* 1:1 is copy itself */
    in = moved(3, 3);
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_string_equal(v.ceiling_name, "bw.copy");
    assert_true(fabs(v.ceiling_gbps - c.copy_gbps) < 1e-9);
}

static void test_cache_resident(void **state)
{
    (void)state;
    sb_plaus_ceilings c = h200();
    sb_plaus_input in = moved(0.02, 0.02); /* 40 MB a launch */
    in.seconds = 0.02 / 3000.0;           /* 6000 GB/s */
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_CACHE_RESIDENT);
    assert_non_null(strstr(v.reason, "fits the 63 MB L2"));
    /* L2 flushed before each launch: held against HBM */
    in.l2_cold = 1;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_non_null(strstr(v.reason, "flushed"));
    /* no L2 size known: held against HBM */
    in.l2_cold = 0;
    c.l2_bytes = NAN;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
}

static void test_datasheet_without_calibration(void **state)
{
    (void)state;
    sb_plaus_ceilings c = {0, -1, 4800, NAN, NAN, 62914560.0};
    sb_plaus_input in = moved(2500, 2500);
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_string_equal(v.ceiling_name, "datasheet HBM");
    assert_non_null(strstr(v.reason, "no calibration stored"));
}

static void test_flops_above_compute_ceiling(void **state)
{
    (void)state;
    sb_plaus_ceilings c = h200();
    sb_plaus_input in = moved(1, 1);
    in.flops = 800e12;
    in.flop_ceiling_tflops = 700;
    in.flop_ceiling_name = "measured gemm.bf16";
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_non_null(strstr(v.reason, "800.0 TFLOP/s"));
    assert_non_null(strstr(v.reason, "measured gemm.bf16"));
    in.flops = 700e12;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_OK);
}

/* A matmul op (FLCE) reports its share of the matmul ceiling beside the
 * bandwidth figures, so a report holds it against the ceiling that fits. */
static void test_matmul_share(void **state)
{
    (void)state;
    sb_plaus_ceilings c = h200();
    sb_plaus_input in = moved(1, 1);
    in.flops = 580e12;
    in.flop_ceiling_tflops = 989;
    in.flop_ceiling_name = "datasheet bf16";
    in.tensor = 1;
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_OK);
    assert_int_equal(v.tensor, 1);
    assert_true(fabs(v.pct_flop_ceiling - 58.65) < 0.01);
    assert_true(fabs(v.flop_ceiling_tflops - 989) < 1e-9);
    assert_string_equal(v.flop_ceiling_name, "datasheet bf16");
    /* a row op has no matmul share */
    in = moved(3000, 0);
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.tensor, 0);
    assert_true(isnan(v.pct_flop_ceiling));
}

static void test_unknown_without_time_or_bytes(void **state)
{
    (void)state;
    sb_plaus_ceilings c = h200();
    sb_plaus_input in = moved(1, 1);
    in.seconds = NAN;
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_UNKNOWN);
    in = moved(1, 1);
    in.bytes = NAN;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_UNKNOWN);
    assert_string_equal(sb_plaus_state_name(v.state), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_only_held_against_copy),
        cmocka_unit_test(test_read_ceiling_used_when_measured),
        cmocka_unit_test(test_two_reads_a_write_against_add),
        cmocka_unit_test(test_mix_between_copy_and_add),
        cmocka_unit_test(test_cache_resident),
        cmocka_unit_test(test_datasheet_without_calibration),
        cmocka_unit_test(test_flops_above_compute_ceiling),
        cmocka_unit_test(test_matmul_share),
        cmocka_unit_test(test_unknown_without_time_or_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

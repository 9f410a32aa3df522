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
    sb_plaus_ceilings c = {.measured = 1, .calib_run = 8566, .copy_gbps = 4246.3, .pair_gbps = 4391.4,
                           .read_gbps = NAN, .l2_bytes = 62914560.0};
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
    sb_plaus_ceilings c = {.measured = 0, .calib_run = -1, .copy_gbps = 4800, .pair_gbps = NAN,
                           .read_gbps = NAN, .l2_bytes = 62914560.0};
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

/* A subnormal ceiling (a calibration of a card data/skus.csv has no
 * figure for takes any positive number) overflows the share of an
 * ordinary rate: implausible, and the reason blames the ceiling, not the
 * run's time, and keeps the rate the run reached. */
static void test_overflowing_share(void **state)
{
    (void)state;
    sb_plaus_ceilings c = h200();
    c.copy_gbps = 5e-324;
    sb_plaus_input in = moved(500, 500); /* 1000 GB/s in 1 s */
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_true(v.gbps == 1000);
    assert_true(isnan(v.pct_ceiling));
    assert_null(strstr(v.reason, "too short"));
    assert_non_null(strstr(v.reason, "1000 GB/s against bw.copy 4.94e-324 GB/s (calibration run 8566): "
                                     "a ceiling too small for a finite share"));
    assert_null(strstr(v.reason, "inf"));
    c = h200();
    in = moved(1, 1);
    in.flops = 1e12; /* 1 TFLOP/s */
    in.flop_ceiling_tflops = 5e-324;
    in.flop_ceiling_name = "measured gemm.fp32";
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_true(v.tflops == 1);
    assert_true(isnan(v.pct_flop_ceiling));
    assert_non_null(strstr(v.reason, "1.0 TFLOP/s against the measured gemm.fp32 ceiling 4.94e-324 TFLOP/s: "
                                     "a ceiling too small for a finite share"));
}

/* A time so short that the rates overflow (1e-300 ms is schema-valid) is
 * implausible, with no rate or share left infinite to print. */
static void test_overflowing_rate(void **state)
{
    (void)state;
    sb_plaus_ceilings c = h200();
    sb_plaus_input in = moved(1, 1);
    in.seconds = 1e-303;
    in.flops = 1e9;
    in.flop_ceiling_tflops = 700;
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_true(isnan(v.tflops) && isnan(v.gbps) && isnan(v.pct_ceiling) && isnan(v.pct_flop_ceiling));
    assert_non_null(strstr(v.reason, "too short for a finite rate"));
    assert_null(strstr(v.reason, "inf"));
    in.flops = NAN; /* bytes alone overflow too */
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_true(isnan(v.gbps));
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

/* An implausible row's reason says what the stored calibrations tell of
 * its ceiling: another card's, how far the SKU's cards differ on it, and
 * buffers under 8 GiB; of the run's own card, no spread. */
static void test_reason_states_the_ceilings_uncertainty(void **state)
{
    (void)state;
    /* the H100 calibrations of examples/h100/calibration */
    sb_plaus_ceilings c = {.measured = 1, .calib_run = 901, .copy_gbps = 3031.5, .pair_gbps = 3076.3,
                           .read_gbps = 3143.3, .l2_bytes = 52428800.0};
    sb_plaus_source other = {901, "GPU-8d45c405-a975-f4f9-2cf7-eb9c67b4ebc7", 8LL << 30,
                             SB_PLAUS_CARD_OTHER, 3, 3117.4, 3162.0};
    c.read_src = other;
    c.copy_src = other;
    sb_plaus_input in = moved(3226, 0); /* 102.6% of 3143 */
    sb_plaus_verdict v;
    sb_plaus_judge(&in, &c, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_string_equal(v.ceiling_name, "bw.read");
    assert_int_equal(v.source.calib_run, 901);
    assert_int_equal(v.source.card, SB_PLAUS_CARD_OTHER);
    assert_non_null(strstr(v.reason, "3226 GB/s is 102.6% of bw.read 3143 GB/s (calibration run 901)"));
    assert_non_null(strstr(v.reason, "; the ceiling is another card's (GPU-8d45c405): no calibration of "
                                     "the run's GPU measured bw.read, and bw.read spreads 3117-3162 GB/s "
                                     "(1.4%) over the SKU's 3 calibrated cards; it streamed 8 GiB buffers"));

    /* the H200's one read calibration, on the run's own card over 1 GiB */
    sb_plaus_ceilings h = h200();
    h.read_gbps = 4551.0;
    sb_plaus_source own = {7000, "GPU-a5a7168e-d99f-148b-1d76-40fb50474354", 1LL << 30,
                           SB_PLAUS_CARD_OWN, 1, 4551.0, 4551.0};
    h.read_src = own;
    in = moved(4689, 0); /* 103.0% */
    sb_plaus_judge(&in, &h, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_int_equal(v.source.calib_run, 7000);
    assert_non_null(strstr(v.reason, "(calibration run 7000)"));
    assert_non_null(strstr(v.reason, "; the ceiling is the run's own card's (GPU-a5a7168e); it streamed "
                                     "1 GiB buffers, under 8 GiB"));
    assert_null(strstr(v.reason, "spreads"));

    /* another card's, and no other card measured it */
    own.card = SB_PLAUS_CARD_OTHER;
    h.read_src = own;
    sb_plaus_judge(&in, &h, SB_PLAUS_MARGIN, &v);
    assert_non_null(strstr(v.reason, "no other card of the SKU measured bw.read, so its spread between "
                                     "cards is not known; it streamed 1 GiB buffers, under 8 GiB"));

    /* a plausible run's reason stays short */
    in = moved(4500, 0);
    sb_plaus_judge(&in, &h, SB_PLAUS_MARGIN, &v);
    assert_int_equal(v.state, SB_PLAUS_OK);
    assert_null(strstr(v.reason, "another card"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_only_held_against_copy),
        cmocka_unit_test(test_overflowing_share),
        cmocka_unit_test(test_read_ceiling_used_when_measured),
        cmocka_unit_test(test_two_reads_a_write_against_add),
        cmocka_unit_test(test_mix_between_copy_and_add),
        cmocka_unit_test(test_cache_resident),
        cmocka_unit_test(test_datasheet_without_calibration),
        cmocka_unit_test(test_flops_above_compute_ceiling),
        cmocka_unit_test(test_overflowing_rate),
        cmocka_unit_test(test_matmul_share),
        cmocka_unit_test(test_unknown_without_time_or_bytes),
        cmocka_unit_test(test_reason_states_the_ceilings_uncertainty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_nsys_csv.c - Nsight Systems cuda_gpu_kern_sum CSV parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nsys_csv.h"

static void fixture(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/ingest/nsys/%s", SOLBOOK_TEST_DATA, name);
}

/* The parsed fixture, which must parse. */
static sb_nsys_summary *parse_fixture(const char *name)
{
    char path[1024];
    fixture(path, sizeof path, name);
    sb_nsys_summary *s = NULL;
    sb_error e;
    sb_error_clear(&e);
    if (sb_nsys_csv_parse_file(path, &s, &e) != SB_OK)
        fail_msg("%s: %s: %s", e.file, e.where, e.msg);
    return s;
}

static void test_kern_sum(void **state)
{
    (void)state;
    sb_nsys_summary *s = parse_fixture("kern_sum.csv");
    /* nsys's "Processing [...]" line before the header is not a row. */
    assert_int_equal(s->n, 3);
    assert_non_null(strstr(s->rows[0].kernel_name, "cutlass_80_tensorop_s1688gemm"));
    assert_string_equal(s->rows[1].kernel_name, "solbook_rmsnorm_fwd_kernel(const float *, float *, int)");
    /* ns to ms exactly: the double nearest the exact value, which
     * 20012.1 / 1e6 is not. */
    assert_true(s->rows[0].total_ms == 5.003017);
    assert_true(s->rows[0].avg_ms == 0.0200121);
    assert_true(s->rows[0].avg_ms != 20012.1 / 1e6);
    assert_true(s->rows[0].med_ms == 0.02);
    assert_true(s->rows[0].min_ms == 0.019904);
    assert_true(s->rows[0].max_ms == 0.020544);
    assert_true(s->rows[0].stddev_ms == 0.0000986);
    assert_int_equal(s->rows[0].instances, 250);
    assert_true(s->rows[0].time_pct == 71.4);
    assert_true(s->rows[0].has_time_pct && s->rows[0].has_avg && s->rows[0].has_med &&
                s->rows[0].has_min && s->rows[0].has_max && s->rows[0].has_stddev);
    assert_int_equal(s->rows[2].instances, 1);
    assert_true(s->rows[2].total_ms == 0.203456);
    assert_true(s->rows[2].stddev_ms == 0.0);
    sb_nsys_summary_free(s);
}

/* Each bad input is refused with the file and the line. */
static void expect_refused(const char *csv, const char *where, const char *msg_part)
{
    sb_nsys_summary *s = (sb_nsys_summary *)1;
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sb_nsys_csv_parse_buffer(csv, strlen(csv), "k.csv", &s, &e), SB_ERR);
    assert_null(s);
    assert_string_equal(e.file, "k.csv");
    assert_string_equal(e.where, where);
    if (!strstr(e.msg, msg_part))
        fail_msg("'%s' lacks '%s'", e.msg, msg_part);
}

#define HDR "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Avg (ns)\",\"Med (ns)\",\"Min (ns)\",\"Max (ns)\",\"StdDev (ns)\",\"Name\"\n"

static void test_bad_input(void **state)
{
    (void)state;
    char path[1024];
    fixture(path, sizeof path, "bad_instances.csv");
    sb_nsys_summary *s;
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sb_nsys_csv_parse_file(path, &s, &e), SB_ERR);
    assert_string_equal(e.file, path);
    assert_string_equal(e.where, "line 3");
    assert_non_null(strstr(e.msg, "\"Instances\" two is not a non-negative number"));

    expect_refused(HDR "1.0,-5,1,1,1,1,1,0,k\n", "line 2", "\"Total Time (ns)\" -5 is not a non-negative number");
    expect_refused(HDR "1.0,5,0,1,1,1,1,0,k\n", "line 2", "\"Instances\" 0 is not a whole number");
    expect_refused(HDR "1.0,5,1.5,1,1,1,1,0,k\n", "line 2", "\"Instances\" 1.5 is not a whole number");
    expect_refused(HDR "101,5,1,5,5,5,5,0,k\n", "line 2", "over 100");
    expect_refused(HDR "1.0,5,1,5,5,6,5,0,k\n", "line 2", "\"Min (ns)\" 6 is over \"Max (ns)\" 5");
    expect_refused(HDR "1.0,5,1,5,5,5,5,0,\n", "line 2", "empty \"Name\"");
    expect_refused(HDR "1.0,5,1,5,5,5,5,0\n", "line 2", "8 cells, the header has 9");
    expect_refused(HDR "1.0,5,1,5,5,5,5,0,k\n1.0,nan,1,5,5,5,5,0,k\n", "line 3", "\"Total Time (ns)\" nan");
    expect_refused(HDR "1.0,5,1,5,5,5,5,0,k\n1.0,1e,1,5,5,5,5,0,k\n", "line 3", "\"Total Time (ns)\" 1e");
    expect_refused(HDR "1.0,5,1,5,5,5,5,0,k\n1.0,1.2.3,1,5,5,5,5,0,k\n", "line 3", "\"Total Time (ns)\" 1.2.3");
    expect_refused(HDR, "line 1", "no kernel rows after the header");
    expect_refused("\"Total Time (ns)\",\"Name\"\n5,k\n", "line 1", "no \"Instances\" column");
    expect_refused("\"Total Time (ns)\",\"Name\",\"Name\",\"Instances\"\n5,k,k,1\n", "line 1", "appears twice");
    expect_refused("Processing [x]...\n\"Time (%)\",\"Total Time (us)\",\"Instances\",\"Name\"\n1,5,1,k\n", "line 2",
                   "\"Total Time (us)\": times in another unit than ns; write them with 'nsys stats --timeunit nsec'");
    sb_error_clear(&e);
    const char *none = "SKIPPED: report1.sqlite does not contain CUDA kernel data.\n";
    assert_int_equal(sb_nsys_csv_parse_buffer(none, strlen(none), "k.csv", &s, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "no cuda_gpu_kern_sum header"));
}

/* Optional columns may be absent or empty; the order is free. */
static void test_columns_in_any_order(void **state)
{
    (void)state;
    const char *csv = "\"Name\",\"Instances\",\"Total Time (ns)\",\"Med (ns)\"\n\"k, with comma\",3,1500,\n";
    sb_nsys_summary *s;
    sb_error e;
    sb_error_clear(&e);
    if (sb_nsys_csv_parse_buffer(csv, strlen(csv), "k.csv", &s, &e) != SB_OK)
        fail_msg("%s: %s: %s", e.file, e.where, e.msg);
    assert_int_equal(s->n, 1);
    assert_string_equal(s->rows[0].kernel_name, "k, with comma");
    assert_true(s->rows[0].total_ms == 0.0015);
    const char *ex = "\"Name\",\"Instances\",\"Total Time (ns)\"\nk,1,1.5e3\n";
    sb_nsys_summary *s2;
    assert_int_equal(sb_nsys_csv_parse_buffer(ex, strlen(ex), "k.csv", &s2, &e), SB_OK);
    assert_true(s2->rows[0].total_ms == 0.0015);
    sb_nsys_summary_free(s2);
    assert_int_equal(s->rows[0].instances, 3);
    assert_false(s->rows[0].has_med);
    assert_false(s->rows[0].has_time_pct);
    sb_nsys_summary_free(s);
}

/* The gpukernsum report of nsys before cuda_gpu_kern_sum, with units in
 * its names: "Time(%)", "Average (ns)", "Minimum (ns)", "Maximum (ns)",
 * "StdDev (ns)", no median. */
static void test_gpukernsum_units(void **state)
{
    (void)state;
    sb_nsys_summary *s = parse_fixture("gpukernsum_units.csv");
    assert_int_equal(s->n, 2);
    assert_string_equal(s->rows[1].kernel_name, "column_sums(const float *, float *, unsigned long)");
    assert_true(s->rows[0].time_pct == 60.0 && s->rows[0].has_time_pct);
    assert_true(s->rows[0].total_ms == 3.263784);
    assert_true(s->rows[1].avg_ms == 1.088264 && s->rows[1].has_avg);
    assert_true(s->rows[1].min_ms == 1.088 && s->rows[1].has_min);
    assert_true(s->rows[1].max_ms == 1.088528 && s->rows[1].has_max);
    assert_true(s->rows[1].stddev_ms == 0.0003734 && s->rows[1].has_stddev);
    assert_int_equal(s->rows[1].instances, 2);
    assert_false(s->rows[0].has_med);
    sb_nsys_summary_free(s);
    /* its names in errors */
    const char *bad = "\"Time(%)\",\"Total Time (ns)\",\"Instances\",\"Minimum (ns)\",\"Maximum (ns)\",\"Name\"\n"
                      "101,5,1,5,5,k\n";
    expect_refused(bad, "line 2", "\"Time(%)\" 101 is over 100");
    bad = "\"Time(%)\",\"Total Time (ns)\",\"Instances\",\"Minimum (ns)\",\"Maximum (ns)\",\"Name\"\n"
          "1,5,1,6,5,k\n";
    expect_refused(bad, "line 2", "\"Minimum (ns)\" 6 is over \"Maximum (ns)\" 5");
}

/* gpukernsum's first form: "Average", "Minimum", "Maximum" without a unit
 * in the name, in ns as the report says, and no StdDev or median. */
static void test_gpukernsum_first(void **state)
{
    (void)state;
    sb_nsys_summary *s = parse_fixture("gpukernsum_first.csv");
    assert_int_equal(s->n, 1);
    assert_string_equal(s->rows[0].kernel_name, "addVectorsInto(float*, float*, float*, int)");
    assert_true(s->rows[0].time_pct == 100.0);
    assert_true(s->rows[0].total_ms == 2299.046069);
    assert_true(s->rows[0].avg_ms == 2299.046069 && s->rows[0].has_avg);
    assert_true(s->rows[0].min_ms == 2299.046069 && s->rows[0].max_ms == 2299.046069);
    assert_int_equal(s->rows[0].instances, 1);
    assert_false(s->rows[0].has_med);
    assert_false(s->rows[0].has_stddev);
    sb_nsys_summary_free(s);
    const char *bad = "Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name\n1,5,1,x,5,5,k\n";
    expect_refused(bad, "line 2", "\"Average\" x is not a non-negative number");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kern_sum),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_columns_in_any_order),
        cmocka_unit_test(test_gpukernsum_units),
        cmocka_unit_test(test_gpukernsum_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

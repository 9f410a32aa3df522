/* test_ncu_csv.c - Nsight Compute raw CSV parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ncu_csv.h"

static void fixture(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/ingest/ncu/%s", SOLBOOK_TEST_DATA, name);
}

static size_t metric_index(const sb_ncu_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_metrics; i++)
        if (strcmp(p->metric_names[i], name) == 0)
            return i;
    fail_msg("metric %s not found", name);
    return 0;
}

static double value_of(const sb_ncu_profile *p, size_t kernel, const char *metric)
{
    const sb_ncu_value *v = sb_ncu_profile_find(p, kernel, metric);
    if (!v)
        fail_msg("no value for kernel %zu metric %s", kernel, metric);
    return v->value;
}

static void test_two_kernels(void **state)
{
    (void)state;
    char path[1024];
    fixture(path, sizeof path, "two_kernels.csv");
    sb_ncu_profile *p;
    sb_error e;
    sb_error_clear(&e);
    if (sb_ncu_csv_parse_file(path, &p, &e) != SB_OK)
        fail_msg("%s: %s: %s", e.file, e.where, e.msg);
    /* ==PROF== lines before and after the CSV are not rows. */
    assert_int_equal(p->n_kernels, 2);
    assert_int_equal(p->kernel_ids[0], 0);
    assert_int_equal(p->kernel_ids[1], 1);
    assert_string_equal(p->kernel_names[1], "solbook_rmsnorm_fwd_kernel(float const*, float*, int)");
    assert_non_null(strstr(p->kernel_names[0], "cutlass_80_tensorop_f16_s16816gemm"));
    /* 8 metric columns (names with "__"); the identification columns are not metrics. */
    assert_int_equal(p->n_metrics, 8);
    /* Thousands separator inside a quoted cell. */
    assert_float_equal(value_of(p, 0, "gpu__time_duration.sum"), 1204.32, 1e-9);
    assert_string_equal(p->metric_units[metric_index(p, "gpu__time_duration.sum")], "usecond");
    assert_string_equal(p->metric_units[metric_index(p, "dram__bytes_read.sum")], "Mbyte");
    assert_string_equal(p->metric_units[metric_index(p, "sm__throughput.avg.pct_of_peak_sustained_elapsed")], "%");
    assert_float_equal(value_of(p, 0, "sm__throughput.avg.pct_of_peak_sustained_elapsed"), 78.91, 1e-9);
    assert_float_equal(value_of(p, 1, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"), 90.84, 1e-9);
    assert_float_equal(value_of(p, 1, "dram__bytes_write.sum"), 67.11, 1e-9);
    assert_float_equal(value_of(p, 1, "launch__registers_per_thread"), 40, 0);
    /* A text-valued metric is left out, every SOL metric is present. */
    assert_null(sb_ncu_profile_find(p, 0, "launch__func_cache_config"));
    for (int i = 0; i < SB_NCU_SOL_METRIC_COUNT; i++) {
        assert_non_null(sb_ncu_profile_find(p, 0, SB_NCU_SOL_METRICS[i]));
        assert_non_null(sb_ncu_profile_find(p, 1, SB_NCU_SOL_METRICS[i]));
    }
    assert_int_equal(p->n_values, 14);
    sb_ncu_profile_free(p);
}

static void test_unquoted_crlf(void **state)
{
    (void)state;
    char path[1024];
    fixture(path, sizeof path, "unquoted_crlf.csv");
    sb_ncu_profile *p;
    sb_error e;
    if (sb_ncu_csv_parse_file(path, &p, &e) != SB_OK)
        fail_msg("%s: %s: %s", e.file, e.where, e.msg);
    assert_int_equal(p->n_kernels, 1);
    assert_float_equal(value_of(p, 0, "gpu__time_duration.sum"), 43.17, 1e-9);
    assert_string_equal(p->kernel_names[0], "solbook_rmsnorm_fwd_kernel(float const*, float*, int)");
    sb_ncu_profile_free(p);
}

static void test_no_units_row_and_na(void **state)
{
    (void)state;
    const char *csv = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\"\n"
                      "\"0\",\"k\",\"12,345,678\",\"n/a\"\n";
    sb_ncu_profile *p;
    sb_error e;
    assert_int_equal(sb_ncu_csv_parse_buffer(csv, strlen(csv), "x.csv", &p, &e), SB_OK);
    assert_int_equal(p->n_kernels, 1);
    assert_float_equal(value_of(p, 0, "gpu__time_duration.sum"), 12345678.0, 0);
    assert_null(sb_ncu_profile_find(p, 0, "dram__bytes_read.sum"));
    assert_string_equal(p->metric_units[0], "");
    sb_ncu_profile_free(p);
}

static void expect_refused(const char *name, const char *where, const char *needle)
{
    char path[1024];
    fixture(path, sizeof path, name);
    sb_ncu_profile *p = (sb_ncu_profile *)1;
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sb_ncu_csv_parse_file(path, &p, &e), SB_ERR);
    assert_null(p);
    assert_string_equal(e.file, path);
    if (where && strcmp(e.where, where) != 0)
        fail_msg("%s: where is '%s', expected '%s' (%s)", name, e.where, where, e.msg);
    if (!strstr(e.msg, needle))
        fail_msg("%s: error '%s' does not mention '%s'", name, e.msg, needle);
}

static void test_refusals(void **state)
{
    (void)state;
    expect_refused("bad_field_count.csv", "line 4 (row 4)", "17 cells, the header has 19");
    expect_refused("bad_number.csv", "line 4 (row 4)", "gpu__time_duration.sum: \"fast\" is not a number");
    expect_refused("bad_grouping.csv", "line 3 (row 3)", "dram__bytes_read.sum: \"1,23.5\" is not a number");
    expect_refused("unterminated_quote.csv", "line 3 (row 3)", "malformed CSV: unterminated quoted field");
    expect_refused("no_header.csv", "", "no ncu raw CSV header");
    expect_refused("header_only.csv", "line 1", "no kernel rows");
}

static void test_numbers(void **state)
{
    (void)state;
    double v;
    assert_int_equal(sb_ncu_parse_number("1,234.5", &v), SB_OK);
    assert_float_equal(v, 1234.5, 0);
    assert_int_equal(sb_ncu_parse_number("1,234,567", &v), SB_OK);
    assert_float_equal(v, 1234567, 0);
    assert_int_equal(sb_ncu_parse_number("-0.25", &v), SB_OK);
    assert_float_equal(v, -0.25, 0);
    assert_int_equal(sb_ncu_parse_number("6.4e+09", &v), SB_OK);
    assert_float_equal(v, 6.4e9, 0);
    assert_int_equal(sb_ncu_parse_number(" 42 ", &v), SB_OK);
    assert_float_equal(v, 42, 0);
    assert_int_equal(sb_ncu_parse_number("", &v), SB_ERR);
    assert_int_equal(sb_ncu_parse_number("12,34", &v), SB_ERR);
    assert_int_equal(sb_ncu_parse_number("1234,567", &v), SB_ERR);
    assert_int_equal(sb_ncu_parse_number(",123", &v), SB_ERR);
    assert_int_equal(sb_ncu_parse_number("1.5,000", &v), SB_ERR);
    assert_int_equal(sb_ncu_parse_number("nan", &v), SB_ERR);
    assert_int_equal(sb_ncu_parse_number("inf", &v), SB_ERR);
    assert_int_equal(sb_ncu_parse_number("1e999", &v), SB_ERR);
    assert_int_equal(sb_ncu_parse_number("(256, 1, 1)", &v), SB_ERR);
}

static void test_buffer_errors(void **state)
{
    (void)state;
    sb_ncu_profile *p;
    sb_error e;
    const char *dup = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"gpu__time_duration.sum\"\n\"0\",\"k\",\"1\",\"2\"\n";
    assert_int_equal(sb_ncu_csv_parse_buffer(dup, strlen(dup), "d.csv", &p, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "appears twice"));
    const char *noname = "\"ID\",\"gpu__time_duration.sum\"\n\"0\",\"1\"\n";
    assert_int_equal(sb_ncu_csv_parse_buffer(noname, strlen(noname), "n.csv", &p, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "no \"Kernel Name\" column"));
    const char *badid = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"x\",\"k\",\"1\"\n";
    assert_int_equal(sb_ncu_csv_parse_buffer(badid, strlen(badid), "i.csv", &p, &e), SB_ERR);
    assert_string_equal(e.where, "line 2 (row 2)");
    assert_non_null(strstr(e.msg, "not an integer"));
    const char nul[] = "\"ID\",\"Kernel Name\"\n\0";
    assert_int_equal(sb_ncu_csv_parse_buffer(nul, sizeof nul, "z.csv", &p, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "NUL"));
    assert_int_equal(sb_ncu_csv_parse_buffer("", 0, "empty.csv", &p, &e), SB_ERR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_kernels),   cmocka_unit_test(test_unquoted_crlf),
        cmocka_unit_test(test_no_units_row_and_na), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_numbers),       cmocka_unit_test(test_buffer_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

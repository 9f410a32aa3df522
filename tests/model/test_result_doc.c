/* test_result_doc.c - the statistics of a result's samples and the
 * solbook.result.v1 document built from them (model/result_doc.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "result_doc.h"
#include "stats.h"

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-12)

static double num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

/* numpy-style linear quantiles, n - 1 stdev, repeat-median spread, over
 * repeats of unequal length. */
static void test_sample_stats(void **state)
{
    (void)state;
    const double v[] = {1, 2, 3, 4, 5};
    size_t per[] = {4, 1};
    sb_sample_stats st;
    assert_int_equal(sb_sample_stats_of(v, per, 2, &st), 0);
    assert_int_equal(st.count, 5);
    assert_near(st.p20, 1.8);
    assert_near(st.median, 3.0);
    assert_near(st.p80, 4.2);
    assert_near(st.mean, 3.0);
    assert_near(st.stdev, sqrt(2.5));
    assert_near(st.rel_noise, sqrt(2.5) / 3.0);
    assert_near(st.repeat_spread, sqrt(2 * 1.25 * 1.25) / 3.75);
    /* One repeat has no spread; one sample has stdev 0. */
    size_t one[] = {5};
    assert_int_equal(sb_sample_stats_of(v, one, 1, &st), 0);
    assert_true(isnan(st.repeat_spread));
    size_t single[] = {1};
    assert_int_equal(sb_sample_stats_of(v, single, 1, &st), 0);
    assert_near(st.stdev, 0.0);
    assert_near(st.rel_noise, 0.0);
    /* Every sample 0: no noise and no spread, rather than 0 / 0. */
    const double zeros[] = {0, 0, 0, 0};
    size_t two[] = {2, 2};
    assert_int_equal(sb_sample_stats_of(zeros, two, 2, &st), 0);
    assert_near(st.rel_noise, 0.0);
    assert_near(st.repeat_spread, 0.0);
    /* A repeat without samples is no repeat of the spread. */
    size_t gap[] = {2, 0, 2};
    const double g[] = {1, 1, 3, 3};
    assert_int_equal(sb_sample_stats_of(g, gap, 3, &st), 0);
    assert_near(st.repeat_spread, sqrt(2.0) / 2.0);
    assert_int_equal(sb_sample_stats_of(v, (size_t[]){0}, 1, &st), -1);
}

/* Every repeat counts, however many: 2,000 repeats of one sample, where
 * the last 976 differ from the first 1,024. */
static void test_many_repeats(void **state)
{
    (void)state;
    size_t n = 2000;
    double *v = malloc(n * sizeof *v);
    size_t *per = malloc(n * sizeof *per);
    assert_non_null(v);
    assert_non_null(per);
    for (size_t i = 0; i < n; i++) {
        v[i] = i < 1024 ? 1.0 : 3.0;
        per[i] = 1;
    }
    sb_sample_stats st;
    assert_int_equal(sb_sample_stats_of(v, per, n, &st), 0);
    double mean = (1024 * 1.0 + 976 * 3.0) / 2000;
    double ss = 1024 * (1 - mean) * (1 - mean) + 976 * (3 - mean) * (3 - mean);
    assert_near(st.repeat_spread, sqrt(ss / 1999) / mean);
    free(v);
    free(per);
}

static void test_timing_of_json(void **state)
{
    (void)state;
    json_t *samples = json_loads("[[3, 1, 2], [6, 5, 4]]", 0, NULL);
    double med = 0;
    json_t *t = sb_result_timing_of_json(samples, &med);
    assert_non_null(t);
    assert_string_equal(json_string_value(json_object_get(t, "unit")), "ms");
    /* The samples as measured, repeat by repeat, not sorted. */
    json_t *rows = json_object_get(t, "samples");
    assert_int_equal(json_array_size(rows), 2);
    assert_int_equal(json_array_size(json_array_get(rows, 1)), 3);
    assert_near(json_real_value(json_array_get(json_array_get(rows, 0), 0)), 3);
    assert_near(json_real_value(json_array_get(json_array_get(rows, 1), 2)), 4);
    json_t *st = json_object_get(t, "stats");
    assert_int_equal(json_integer_value(json_object_get(st, "count")), 6);
    assert_near(num(st, "min"), 1);
    assert_near(num(st, "p20"), 2);
    assert_near(num(st, "median"), 3.5);
    assert_near(med, 3.5);
    assert_near(num(st, "p80"), 5);
    assert_near(num(st, "max"), 6);
    assert_near(num(st, "stdev"), sqrt(3.5));
    assert_near(num(st, "repeat_median_rel_spread"), sqrt(4.5) / 3.5);
    json_decref(t);
    json_decref(samples);
    /* One repeat: the spread is null, and present. */
    samples = json_loads("[[2, 4]]", 0, NULL);
    t = sb_result_timing_of_json(samples, NULL);
    assert_true(json_is_null(json_object_get(json_object_get(t, "stats"), "repeat_median_rel_spread")));
    json_decref(t);
    json_decref(samples);
    /* Not an array of arrays of numbers, or no samples: no timing. */
    const char *bad[] = {"[1, 2]", "[[1, \"x\"]]", "[[]]", "{}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        samples = json_loads(bad[i], 0, NULL);
        assert_null(sb_result_timing_of_json(samples, NULL));
        json_decref(samples);
    }
}

/* The clock of each sample is laid out as the samples are: repeat by
 * repeat, parallel to timing.samples. */
static void test_timing_clocks(void **state)
{
    (void)state;
    double ms[] = {1.0, 2.0, 3.0, 4.0, 5.0}, mhz[] = {1980, 1755, 1980, 1965, 1980};
    size_t per[] = {2, 3};
    json_t *t = sb_result_timing(ms, per, 2, NULL);
    assert_non_null(t);
    assert_int_equal(sb_result_timing_add_clocks(t, mhz, per, 2), 0);
    json_t *c = json_object_get(t, "sample_sm_clock_mhz");
    assert_int_equal(json_array_size(c), 2);
    assert_int_equal(json_array_size(json_array_get(c, 0)), 2);
    assert_int_equal(json_array_size(json_array_get(c, 1)), 3);
    assert_true(json_real_value(json_array_get(json_array_get(c, 0), 1)) == 1755);
    assert_true(json_real_value(json_array_get(json_array_get(c, 1), 1)) == 1965);
    assert_true(json_real_value(json_array_get(json_array_get(json_object_get(t, "samples"), 1), 1)) == 4.0);
    json_decref(t);
}

/* Summaries only: the statistics given, none made up, no samples. */
static void test_timing_summary(void **state)
{
    (void)state;
    sb_summary_stats st = sb_summary_stats_none();
    json_t *t = sb_result_timing_summary(&st);
    assert_non_null(t);
    assert_string_equal(json_string_value(json_object_get(t, "unit")), "ms");
    assert_true(json_is_true(json_object_get(t, "quantiles_only")));
    assert_null(json_object_get(t, "samples"));
    assert_int_equal(json_object_size(json_object_get(t, "stats")), 0);
    json_decref(t);
    st.count = 5;
    st.median = 1.25;
    st.stdev = 0.5;
    st.rel_noise = 0.4;
    t = sb_result_timing_summary(&st);
    json_t *s = json_object_get(t, "stats");
    assert_int_equal(json_object_size(s), 4);
    assert_int_equal(json_integer_value(json_object_get(s, "count")), 5);
    assert_near(num(s, "median"), 1.25);
    assert_near(num(s, "stdev"), 0.5);
    assert_near(num(s, "rel_noise"), 0.4);
    assert_null(json_object_get(s, "mean"));
    assert_null(json_object_get(s, "p20"));
    json_decref(t);
}

static void test_document(void **state)
{
    (void)state;
    const double v[] = {1, 2};
    size_t per[] = {2};
    sb_result_doc d = {
        .status = "passed",
        .config = json_pack("{s:s}", "op", "rmsnorm"),
        .protocol = json_pack("{s:s}", "timer", "imported"),
        .timing = sb_result_timing(v, per, 1, NULL),
        .notes = "",
        .provenance = json_object(),
    };
    json_t *doc = sb_result_doc_json(&d);
    assert_non_null(doc);
    assert_null(d.config);
    const char *want[] = {"schema", "status", "config", "protocol", "timing", "provenance"};
    size_t i = 0;
    const char *key;
    json_t *val;
    json_object_foreach(doc, key, val) {
        assert_true(i < sizeof want / sizeof want[0]);
        assert_string_equal(key, want[i++]);
    }
    assert_int_equal(i, sizeof want / sizeof want[0]);
    assert_string_equal(json_string_value(json_object_get(doc, "schema")), SB_RESULT_SCHEMA);
    assert_near(num(json_object_get(json_object_get(doc, "timing"), "stats"), "median"), 1.5);
    json_decref(doc);
    /* Without provenance there is no document, and the parts are freed. */
    sb_result_doc bad = {.status = "passed", .config = json_object(), .protocol = json_object()};
    assert_null(sb_result_doc_json(&bad));
    assert_null(bad.config);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_stats),
        cmocka_unit_test(test_many_repeats),
        cmocka_unit_test(test_timing_of_json),
        cmocka_unit_test(test_timing_clocks),
        cmocka_unit_test(test_timing_summary),
        cmocka_unit_test(test_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

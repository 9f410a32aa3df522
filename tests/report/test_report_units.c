/* test_report_units.c - the pieces of sb_report without a database:
 * templates, SVG helpers and scales, statistics, ISO weeks, Markdown. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "isoweek.h"
#include "markdown.h"
#include "stats.h"
#include "svg.h"
#include "template.h"
#include "weekly.h"

static char *render(const char *text, const char *json, sb_tpl_escape esc, sb_error *err,
                    int *rc)
{
    json_error_t je;
    json_t *d = json_loads(json, 0, &je);
    assert_non_null(d);
    sb_template *t = NULL;
    sb_buf out = SB_BUF_INIT;
    *rc = sb_template_parse(text, "t.tmpl", &t, err);
    if (*rc == SB_OK) {
        *rc = sb_template_render(t, d, esc, &out, err);
        sb_template_free(t);
    }
    json_decref(d);
    return sb_buf_take(&out);
}

static void expect_render(const char *text, const char *json, sb_tpl_escape esc,
                          const char *want)
{
    sb_error err;
    sb_error_clear(&err);
    int rc;
    char *got = render(text, json, esc, &err, &rc);
    if (rc != SB_OK)
        fail_msg("render failed: %s: %s: %s", err.file, err.where, err.msg);
    assert_string_equal(got, want);
    free(got);
}

static void expect_error(const char *text, const char *json, const char *where,
                         const char *needle)
{
    sb_error err;
    sb_error_clear(&err);
    int rc;
    char *got = render(text, json, SB_TPL_ESCAPE_NONE, &err, &rc);
    free(got);
    assert_int_equal(rc, SB_ERR);
    assert_string_equal(err.file, "t.tmpl");
    assert_string_equal(err.where, where);
    if (!strstr(err.msg, needle))
        fail_msg("error '%s' lacks '%s'", err.msg, needle);
}

static void test_template_values_and_escaping(void **state)
{
    (void)state;
    const char *data = "{\"a\":\"x<y & 'z'\",\"n\":42,\"r\":1.5,\"t\":true,\"o\":{\"b\":\"deep\"}}";
    expect_render("[{{a}}]", data, SB_TPL_ESCAPE_HTML, "[x&lt;y &amp; &#39;z&#39;]");
    expect_render("[{{{a}}}]", data, SB_TPL_ESCAPE_HTML, "[x<y & 'z']");
    expect_render("[{{a}}]", data, SB_TPL_ESCAPE_NONE, "[x<y & 'z']");
    expect_render("{{n}} {{r}} {{t}} {{o.b}}", data, SB_TPL_ESCAPE_NONE, "42 1.5 true deep");
    expect_render("{{ a }}", "{\"a\":\"*b*|c\"}", SB_TPL_ESCAPE_MARKDOWN, "\\*b\\*\\|c");
    /* a code span one backtick longer than any run in the value, padded
     * where the value starts with one; escaped text outside Markdown */
    expect_render("({{`a}})", "{\"a\":\"x`y\"}", SB_TPL_ESCAPE_MARKDOWN, "(``x`y``)");
    expect_render("({{` a }})", "{\"a\":\"`sh x\"}", SB_TPL_ESCAPE_MARKDOWN, "(`` `sh x ``)");
    expect_render("({{`a}})", "{\"a\":\"<b>\"}", SB_TPL_ESCAPE_HTML, "(&lt;b&gt;)");
}

static void test_template_sections(void **state)
{
    (void)state;
    const char *data = "{\"rows\":[{\"k\":\"a\",\"v\":1},{\"k\":\"b\",\"v\":2}],\"empty\":[],"
                       "\"title\":\"T\",\"no\":false,\"names\":[\"x\",\"y\"]}";
    /* standalone section lines vanish, so table rows stay contiguous */
    expect_render("| k | v |\n{{#rows}}\n| {{k}} | {{v}} |\n{{/rows}}\nend\n", data,
                  SB_TPL_ESCAPE_NONE, "| k | v |\n| a | 1 |\n| b | 2 |\nend\n");
    expect_render("{{#rows}}{{title}}{{k}};{{/rows}}", data, SB_TPL_ESCAPE_NONE, "Ta;Tb;");
    expect_render("{{#empty}}x{{/empty}}{{^empty}}none{{/empty}}", data, SB_TPL_ESCAPE_NONE,
                  "none");
    expect_render("{{#no}}x{{/no}}{{^no}}off{{/no}}", data, SB_TPL_ESCAPE_NONE, "off");
    expect_render("{{#names}}<{{.}}>{{/names}}", data, SB_TPL_ESCAPE_NONE, "<x><y>");
    expect_render("a{{! note }}b\n{{! whole line }}\nc", data, SB_TPL_ESCAPE_NONE, "ab\nc");
}

static void test_template_errors(void **state)
{
    (void)state;
    expect_error("ok\nline two {{missing}}\n", "{}", "line 2", "unknown variable 'missing'");
    expect_error("{{#a}}\n\nx\n", "{\"a\":[1]}", "line 1", "never closed");
    expect_error("x {{/a}}", "{}", "line 1", "closes no open section");
    expect_error("\n\n{{ a b }}", "{}", "line 3", "bad tag name");
    expect_error("{{a", "{}", "line 1", "unclosed");
    expect_error("{{#o}}{{o}}{{/o}}", "{\"o\":[[1]]}", "line 1", "list or object");
}

static void test_svg_scales_and_labels(void **state)
{
    (void)state;
    sb_scale s = {1, 1000, 100, 400, 1};
    assert_true(fabs(sb_scale_map(&s, 1) - 100) < 1e-9);
    assert_true(fabs(sb_scale_map(&s, 10) - 200) < 1e-9);
    assert_true(fabs(sb_scale_map(&s, 1000) - 400) < 1e-9);
    sb_scale y = {0.1, 100, 450, 50, 1}; /* y grows upwards */
    assert_true(fabs(sb_scale_map(&y, 1) - (450 - 400.0 / 3)) < 1e-9);
    double lo, hi;
    sb_scale_decades(0.35, 42, &lo, &hi);
    assert_true(fabs(lo - 0.1) < 1e-12 && fabs(hi - 100) < 1e-9);
    sb_scale_decades(5, 5, &lo, &hi);
    assert_true(fabs(lo - 1) < 1e-12 && fabs(hi - 10) < 1e-9);
    char b[32];
    const struct { double v; const char *unit, *want; } cases[] = {
        {1, NULL, "1"},     {10, NULL, "10"},   {100, NULL, "100"}, {1000, NULL, "1k"},
        {1e4, NULL, "10k"}, {1e6, NULL, "1M"},  {1e9, NULL, "1G"},  {0.1, "ms", "0.1 ms"},
        {0.01, "ms", "0.01 ms"}, {0.001, NULL, "0.001"}, {1e-5, NULL, "1e-05"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sb_svg_tick_label(cases[i].v, cases[i].unit, b, sizeof b);
        assert_string_equal(b, cases[i].want);
    }
    sb_buf svg = SB_BUF_INIT;
    sb_svg_text(&svg, 1, 2, "start", 10, 0, NULL, "a<b & \"c\"");
    assert_string_equal(sb_buf_str(&svg), "<text x=\"1.00\" y=\"2.00\" text-anchor=\"start\" "
                                          "font-size=\"10\">a&lt;b &amp; &quot;c&quot;</text>\n");
    sb_buf_free(&svg);
}

static void test_stats(void **state)
{
    (void)state;
    double a[] = {3, 1, 2}, b[] = {4, 1, 3, 2};
    assert_true(sb_median(a, 3) == 2);
    assert_true(sb_median(b, 4) == 2.5);
    double g[] = {1, 4};
    assert_true(fabs(sb_geomean(g, 2) - 2) < 1e-12);
    double bad[] = {1, 0};
    assert_true(isnan(sb_geomean(bad, 2)));

    /* Exact: complete separation of 5 vs 5: p = 2 / C(10,5) = 2/252. */
    double x[] = {1, 2, 3, 4, 5}, y[] = {6, 7, 8, 9, 10};
    sb_mw_result r;
    assert_int_equal(sb_mann_whitney(x, 5, y, 5, &r), 0);
    assert_true(r.exact);
    assert_true(r.u == 0);
    assert_true(fabs(r.p - 2.0 / 252.0) < 1e-12);
    assert_true(fabs(r.min_p - 2.0 / 252.0) < 1e-12);
    /* Exact, interleaved: x={1,3,5}, y={2,4,6}: U = 0+1+2 = 3; P(U<=3) = 7/20
     * (counts of U=0..3 for m=n=3: 1,1,2,3) -> p = 0.7. */
    double x2[] = {1, 3, 5}, y2[] = {2, 4, 6};
    assert_int_equal(sb_mann_whitney(x2, 3, y2, 3, &r), 0);
    assert_true(r.u == 3);
    assert_true(fabs(r.p - 0.7) < 1e-12);
    /* Exact with ties: 5 vs 5 apart, each holding a tie, is as extreme as
     * complete separation gets: p = 2/252 (the normal approximation says
     * 0.012). Interleaved with a tie across the samples: x = {1,2,2},
     * y = {2,3,4}: doubled mid-ranks 2,6,6,6,10,12; of the 20 choices of
     * three, 3 have a rank sum as small as x's (14): p = 2 * 3/20 = 0.3.
     * Lopsided by ties: x = {0,0}, y = {1}: doubled ranks 3,3,6; one of
     * the three choices has x's sum (6), the other two 9: p = 2/3, never
     * below min_p. */
    double tx[] = {1, 1, 2, 3, 4}, ty[] = {6, 7, 7, 8, 9};
    assert_int_equal(sb_mann_whitney(tx, 5, ty, 5, &r), 0);
    assert_true(r.exact);
    assert_true(fabs(r.p - 2.0 / 252.0) < 1e-12);
    double tx2[] = {1, 2, 2}, ty2[] = {2, 3, 4};
    assert_int_equal(sb_mann_whitney(tx2, 3, ty2, 3, &r), 0);
    assert_true(r.exact);
    assert_true(fabs(r.p - 0.3) < 1e-12);
    double lx[] = {0, 0}, ly[] = {1};
    assert_int_equal(sb_mann_whitney(lx, 2, ly, 1, &r), 0);
    assert_true(fabs(r.p - 2.0 / 3.0) < 1e-12 && r.p >= r.min_p - 1e-12);
    /* The same three the other way round (the first sample now above the
     * second, its tail counted from the values left out): the same p. */
    assert_int_equal(sb_mann_whitney(ty, 5, tx, 5, &r), 0);
    assert_true(fabs(r.p - 2.0 / 252.0) < 1e-12);
    assert_int_equal(sb_mann_whitney(ty2, 3, tx2, 3, &r), 0);
    assert_true(fabs(r.p - 0.3) < 1e-12);
    assert_int_equal(sb_mann_whitney(ly, 1, lx, 2, &r), 0);
    assert_true(fabs(r.p - 2.0 / 3.0) < 1e-12);
    /* A tie across the boundary of two otherwise apart samples: x =
     * {1,2,3}, y = {3,4,5}: doubled ranks 2,4,7,7,10,12; x's sum 13; the
     * choices of three at or below it: {2,4,7} twice (the two 7s): p = 2 *
     * 2/20 = 0.2, not the 2/20 of samples that do not touch. */
    double bx[] = {1, 2, 3}, by[] = {3, 4, 5};
    assert_int_equal(sb_mann_whitney(bx, 3, by, 3, &r), 0);
    assert_true(fabs(r.p - 0.2) < 1e-12);
    assert_int_equal(sb_mann_whitney(by, 3, bx, 3, &r), 0);
    assert_true(fabs(r.p - 0.2) < 1e-12);
    /* All tied: p = 1. */
    double e1[] = {2, 2, 2, 2, 2, 2}, e2[] = {2, 2, 2, 2, 2, 2};
    assert_int_equal(sb_mann_whitney(e1, 6, e2, 6, &r), 0);
    assert_true(r.p == 1.0);
    /* One each: smallest possible p is 1. */
    double o1[] = {1}, o2[] = {2};
    assert_int_equal(sb_mann_whitney(o1, 1, o2, 1, &r), 0);
    assert_true(r.min_p == 1.0);
    /* Normal approximation (n > 20, ties): compare with the formula. */
    double big1[30], big2[30];
    for (int i = 0; i < 30; i++) {
        big1[i] = (double)(i % 10);
        big2[i] = (double)(i % 10) + 0.5 * (i % 2);
    }
    assert_int_equal(sb_mann_whitney(big1, 30, big2, 30, &r), 0);
    assert_false(r.exact);
    assert_true(r.p > 0 && r.p <= 1);
    assert_int_equal(sb_mann_whitney(big1, 0, big2, 30, &r), -1);
    /* Samples in ascending order are merged, others sorted: the same
     * ranks, ties between the two samples included, so the same U and p
     * to the last bit: exact without ties and with them (8 vs 7), and
     * approximate (30 vs 30, ties). */
    double s1[] = {1.5, 2, 2, 3, 4.25, 7, 9, 11}, s2[] = {0.5, 2, 3, 3, 8, 10, 12};
    double u1[] = {9, 2, 11, 1.5, 7, 2, 4.25, 3}, u2[] = {12, 3, 0.5, 10, 3, 8, 2};
    double d1[] = {1, 4, 6, 9, 13, 14, 15, 20}, d2[] = {2, 3, 5, 7, 8, 10, 30};
    double v1[] = {13, 1, 20, 6, 15, 9, 4, 14}, v2[] = {30, 5, 2, 8, 7, 3, 10};
    sb_mw_result rs, ru;
    assert_int_equal(sb_mann_whitney(s1, 8, s2, 7, &rs), 0);
    assert_int_equal(sb_mann_whitney(u1, 8, u2, 7, &ru), 0);
    assert_true(rs.exact && ru.exact);
    assert_true(rs.u == ru.u && rs.p == ru.p && rs.min_p == ru.min_p);
    double sorted1[30], sorted2[30];
    for (int i = 0; i < 30; i++) {
        sorted1[i] = (double)(i / 3);
        sorted2[i] = (double)(i / 3) + 0.5 * ((i / 3) % 2);
    }
    assert_int_equal(sb_mann_whitney(sorted1, 30, sorted2, 30, &rs), 0);
    assert_int_equal(sb_mann_whitney(big1, 30, big2, 30, &ru), 0);
    assert_false(rs.exact || ru.exact);
    assert_true(rs.u == ru.u && rs.p == ru.p && rs.min_p == ru.min_p);
    assert_int_equal(sb_mann_whitney(d1, 8, d2, 7, &rs), 0);
    assert_int_equal(sb_mann_whitney(v1, 8, v2, 7, &ru), 0);
    assert_true(rs.exact && ru.exact);
    assert_true(rs.u == ru.u && rs.p == ru.p && rs.min_p == ru.min_p);
    assert_true(rs.p > 0 && rs.p < 1);
}

/* The SM clock of each sample: one sample ran at 1755 MHz, more than 1%
 * under the top 1980 (1965 is within it), and it is the slow one, so
 * time follows the clock down: r = -0.99796... (by hand). */
static void test_clock_stats(void **state)
{
    (void)state;
    double ms[] = {0.012, 0.012, 0.0135, 0.0121, 0.0119}, mhz[] = {1980, 1980, 1755, 1965, 1980};
    sb_clock_stats c;
    assert_int_equal(sb_clock_stats_of(ms, mhz, 5, &c), 0);
    assert_int_equal(c.count, 5);
    assert_true(c.min_mhz == 1755 && c.max_mhz == 1980 && c.median_mhz == 1980);
    assert_int_equal(c.below, 1);
    assert_true(c.median_ms_below == 0.0135);
    assert_true(c.median_ms_top == 0.012);
    assert_true(fabs(c.time_clock_r - -0.9979610566178486) < 1e-12);
    /* a constant clock has no correlation, and no sample under it */
    double flat[] = {1980, 1980, 1980, 1980, 1980};
    assert_int_equal(sb_clock_stats_of(ms, flat, 5, &c), 0);
    assert_true(isnan(c.time_clock_r));
    assert_int_equal(c.below, 0);
    assert_true(isnan(c.median_ms_below));
    assert_true(c.median_ms_top == 0.012);
    assert_int_equal(sb_clock_stats_of(ms, mhz, 0, &c), -1);
}

static void test_isoweek(void **state)
{
    (void)state;
    sb_error err;
    int y, w;
    long long a, b, t;
    char d[16];
    assert_int_equal(sb_isoweek_parse("2026-W47", &y, &w, &err), SB_OK);
    sb_isoweek_range(y, w, &a, &b);
    sb_epoch_date(a, d);
    assert_string_equal(d, "2026-11-16");
    assert_true(b - a == 7 * 86400);
    /* 2026-01-01 is a Thursday: week 1 starts 2025-12-29 */
    sb_isoweek_range(2026, 1, &a, &b);
    sb_epoch_date(a, d);
    assert_string_equal(d, "2025-12-29");
    assert_int_equal(sb_rfc3339_parse("2025-12-31T23:00:00Z", &t), 0);
    sb_isoweek_of(t, &y, &w);
    assert_true(y == 2026 && w == 1);
    /* 2020 had 53 weeks, 2021 had 52 */
    assert_int_equal(sb_isoweek_parse("2020-W53", &y, &w, &err), SB_OK);
    assert_int_equal(sb_isoweek_parse("2021-W53", &y, &w, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "weeks 01 to 52"));
    assert_int_equal(sb_isoweek_parse("2026-47", &y, &w, &err), SB_ERR);
    sb_isoweek_prev(2021, 1, &y, &w);
    assert_true(y == 2020 && w == 53);
    /* offsets: 2026-11-16T01:00:00+02:00 is still Sunday 15th in UTC (W46) */
    assert_int_equal(sb_rfc3339_parse("2026-11-16T01:00:00+02:00", &t), 0);
    sb_isoweek_of(t, &y, &w);
    assert_true(y == 2026 && w == 46);
    assert_int_equal(sb_rfc3339_parse("2026-11-16T01:00:00.123456Z", &t), 0);
    sb_isoweek_of(t, &y, &w);
    assert_true(w == 47);
    assert_int_equal(sb_rfc3339_parse("2026-02-30T00:00:00Z", &t), -1);
    assert_int_equal(sb_rfc3339_parse("2026-11-16 01:00:00", &t), -1);
    printf("checked: templates, SVG scales/labels/escaping, median/geomean/Mann-Whitney, ISO weeks\n");
}

/* The site renders Markdown on two threads at once (docs, and the weeks
 * on a side thread). Many threads convert together here, the first call of
 * the process (which registers cmark-gfm's extensions) included: every
 * conversion must get the extensions (a table, struck text, a link) and
 * the same HTML as a conversion on its own, and under LeakSanitizer a
 * registration done twice shows as a leak at exit. */
enum { MD_THREADS = 8, MD_ROUNDS = 200 };
static const char md_text[] = "| op | ms |\n| --- | ---: |\n| gemm | 1.5 |\n\n~~old~~ "
                              "<script>x</script> https://example.org\n";

typedef struct md_job {
    pthread_barrier_t *start;
    const char *want;   /* NULL: keep the first conversion in first */
    char *first;
    int failed;         /* conversions that failed or differ from want */
} md_job;

static void *md_main(void *arg)
{
    md_job *j = arg;
    pthread_barrier_wait(j->start);
    for (int r = 0; r < MD_ROUNDS; r++) {
        sb_error err;
        sb_error_clear(&err);
        char *html = NULL;
        int rc = sb_markdown_to_html(md_text, sizeof md_text - 1, &html, &err);
        if (rc != SB_OK || !html)
            j->failed++;
        else if (!j->first)
            j->first = html, html = NULL;
        else if (strcmp(html, j->first) != 0)
            j->failed++;
        free(html);
    }
    return NULL;
}

static void test_markdown_from_threads(void **state)
{
    (void)state;
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, MD_THREADS), 0);
    pthread_t th[MD_THREADS];
    md_job jobs[MD_THREADS];
    for (int i = 0; i < MD_THREADS; i++) {
        jobs[i] = (md_job){.start = &start};
        assert_int_equal(pthread_create(&th[i], NULL, md_main, &jobs[i]), 0);
    }
    for (int i = 0; i < MD_THREADS; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    pthread_barrier_destroy(&start);

    /* one conversion alone, after the threads: the reference */
    sb_error err;
    sb_error_clear(&err);
    char *alone = NULL;
    assert_int_equal(sb_markdown_to_html(md_text, sizeof md_text - 1, &alone, &err), SB_OK);
    assert_non_null(strstr(alone, "<td>gemm</td>"));
    assert_non_null(strstr(alone, "<td align=\"right\">1.5</td>"));
    assert_non_null(strstr(alone, "<del>old</del>"));
    assert_non_null(strstr(alone, "<!-- raw HTML omitted -->x"));
    assert_null(strstr(alone, "<script"));
    assert_non_null(strstr(alone, "<a href=\"https://example.org\">"));
    for (int i = 0; i < MD_THREADS; i++) {
        assert_int_equal(jobs[i].failed, 0);
        assert_non_null(jobs[i].first);
        assert_string_equal(jobs[i].first, alone);
        free(jobs[i].first);
    }
    free(alone);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* first: it must be the process's first Markdown */
        cmocka_unit_test(test_markdown_from_threads),
        cmocka_unit_test(test_template_values_and_escaping),
        cmocka_unit_test(test_template_sections),
        cmocka_unit_test(test_template_errors),
        cmocka_unit_test(test_svg_scales_and_labels),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_clock_stats),
        cmocka_unit_test(test_isoweek),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_suggest.c - edit distance and "did you mean". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "suggest.h"

static void test_distance(void **state)
{
    (void)state;
    assert_int_equal(sb_edit_distance("", ""), 0);
    assert_int_equal(sb_edit_distance("ingest", "ingest"), 0);
    assert_int_equal(sb_edit_distance("ingset", "ingest"), 1);  /* swap */
    assert_int_equal(sb_edit_distance("valdate", "validate"), 1); /* insertion */
    assert_int_equal(sb_edit_distance("reportt", "report"), 1);  /* deletion */
    assert_int_equal(sb_edit_distance("rexort", "report"), 1);   /* substitution */
    assert_int_equal(sb_edit_distance("kitten", "sitting"), 3);
    assert_int_equal(sb_edit_distance("ca", "abc"), 3);          /* OSA, not full Damerau */
}

static void test_suggest(void **state)
{
    (void)state;
    static const char *const commands[] = {"validate", "validate-results", "ingest", "runs", "show",
                                           "report", "site", "submit", NULL};
    assert_string_equal(sb_suggest("ingset", commands), "ingest");
    assert_string_equal(sb_suggest("valdate", commands), "validate");
    assert_string_equal(sb_suggest("rep", commands), "report");       /* the only command it starts */
    assert_string_equal(sb_suggest("validate-result", commands), "validate-results");
    assert_null(sb_suggest("xyz", commands));
    assert_null(sb_suggest("s", commands));     /* show, site, submit: no single one */
    assert_null(sb_suggest("ingest", commands)); /* the word itself is never suggested */
    assert_null(sb_suggest("", commands));
    static const char *const options[] = {"db", "dtype", "format", NULL};
    assert_string_equal(sb_suggest("dbb", options), "db");
    assert_null(sb_suggest("d", options));       /* two options start with d, both 1 edit away */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_suggest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_parse_options.c - the option table parser and the help it writes. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "parse_options.h"

typedef struct values {
    const char *db, *op;
    int json, quiet, limit, device, hold;
    double alpha;
    const char *shapes[4];
    int nshapes;
} values;

static int add_shape(const sb_option *opt, const char *arg, sb_error *err)
{
    values *v = opt->value;
    if (!strchr(arg, '='))
        return sb_error_set(err, NULL, NULL, "expected NAME=VALUE, got '%s'", arg);
    if (v->nshapes == 4)
        return sb_error_set(err, NULL, NULL, "at most 4");
    v->shapes[v->nshapes++] = arg;
    return SB_OK;
}

#define OPTIONS(v)                                                                          \
    sb_option opts[] = {                                                                    \
        SB_OPT_STRING('d', "db", &(v).db, "path", "database"),                              \
        SB_OPT_STRING(0, "op", &(v).op, "op", "operation, e.g. gemm"),                      \
        SB_OPT_BOOL('j', "json", &(v).json, "JSON instead of the table"),                   \
        SB_OPT_BOOL('q', "quiet", &(v).quiet, "say nothing"),                               \
        SB_OPT_INT(0, "limit", &(v).limit, "n", 1, INT_MAX, "only the newest N"),            \
        SB_OPT_INT(0, "device", &(v).device, "n", 0, 7, "GPU index"),                       \
        SB_OPT_DOUBLE(0, "alpha", &(v).alpha, "a", 1e-12, 0.5, "significance level"),        \
        SB_OPT_CALLBACK(0, "shape", &(v), "K=V,...", "a shape; repeat for more", add_shape), \
        SB_OPT_BOOL(0, "hold", &(v).hold, "hold the stream"),                                \
        SB_OPT_END(),                                                                        \
    }

/* Runs the parser over words (NULL-ended; "prog" is prepended) and
 * returns its result; argv keeps the operands. */
static int parse(char **argv, const char *const *words, const sb_option *opts, unsigned flags,
                 sb_error *err)
{
    int argc = 0;
    /* The parser moves argv's pointers, never the text they point at. */
    argv[argc++] = (char *)"prog";
    for (size_t i = 0; words[i]; i++)
        argv[argc++] = (char *)words[i];
    argv[argc] = NULL;
    sb_error_clear(err);
    return sb_parse_options(argc, argv, opts, flags, err);
}

static void test_values(void **state)
{
    (void)state;
    values v = {.limit = 0, .alpha = 0.01};
    OPTIONS(v);
    char *argv[32];
    sb_error err;
    const char *words[] = {"a.json", "--db", "x.db", "--op=gemm", "-jq", "--limit", "12",
                           "--alpha=0.05", "--shape", "M=1", "--shape=N=2", "b.json", NULL};
    assert_int_equal(parse(argv, words, opts, 0, &err), 2);
    assert_string_equal(argv[0], "a.json");
    assert_string_equal(argv[1], "b.json");
    assert_null(argv[2]);
    assert_string_equal(v.db, "x.db");
    assert_string_equal(v.op, "gemm");
    assert_int_equal(v.json, 1);
    assert_int_equal(v.quiet, 1);
    assert_int_equal(v.limit, 12);
    assert_true(fabs(v.alpha - 0.05) < 1e-15);
    assert_int_equal(v.nshapes, 2);
    assert_string_equal(v.shapes[0], "M=1");
    assert_string_equal(v.shapes[1], "N=2");
}

static void test_short_forms_and_later_wins(void **state)
{
    (void)state;
    values v = {0};
    OPTIONS(v);
    char *argv[32];
    sb_error err;
    const char *words[] = {"-dfirst.db", "-d", "second.db", "--device", "3", NULL};
    assert_int_equal(parse(argv, words, opts, 0, &err), 0);
    assert_string_equal(v.db, "second.db");
    assert_int_equal(v.device, 3);
    /* a value is the next word even when it starts with '-' */
    const char *dash[] = {"--op", "-x", NULL};
    assert_int_equal(parse(argv, dash, opts, 0, &err), 0);
    assert_string_equal(v.op, "-x");
}

static void test_double_dash_and_stop(void **state)
{
    (void)state;
    values v = {0};
    OPTIONS(v);
    char *argv[32];
    sb_error err;
    const char *words[] = {"--json", "--", "--quiet", "-", NULL};
    assert_int_equal(parse(argv, words, opts, 0, &err), 2);
    assert_string_equal(argv[0], "--quiet");
    assert_string_equal(argv[1], "-");
    assert_int_equal(v.json, 1);
    assert_int_equal(v.quiet, 0);

}

static void test_stop_at_non_option(void **state)
{
    (void)state;
    values v = {0};
    OPTIONS(v);
    char *argv[32];
    sb_error err;
    const char *stop[] = {"--json", "file", "--quiet", NULL};
    assert_int_equal(parse(argv, stop, opts, SB_PARSE_STOP_AT_NON_OPTION, &err), 2);
    assert_string_equal(argv[0], "file");
    assert_string_equal(argv[1], "--quiet");
    assert_int_equal(v.json, 1);
    assert_int_equal(v.quiet, 0);
}

/* Each bad argument list and the one line it gives. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *words[4];
        const char *msg;
    } cases[] = {
        {{"--limt", "3", NULL}, "unknown option '--limt'; did you mean '--limit'?"},
        {{"--jsno", NULL}, "unknown option '--jsno'; did you mean '--json'?"},
        {{"--frobnicate", NULL}, "unknown option '--frobnicate'"},
        {{"-x", NULL}, "unknown option '-x'"},
        {{"--limit", "x", NULL}, "--limit: expected a positive integer, got 'x'"},
        {{"--limit", "0", NULL}, "--limit: expected a positive integer, got '0'"},
        {{"--limit", "12abc", NULL}, "--limit: expected a positive integer, got '12abc'"},
        {{"--limit=", NULL}, "--limit: expected a positive integer, got ''"},
        {{"--limit", "99999999999999999999", NULL},
         "--limit: expected a positive integer, got '99999999999999999999'"},
        {{"--device", "8", NULL}, "--device: expected an integer from 0 to 7, got '8'"},
        {{"--device", "-1", NULL}, "--device: expected an integer from 0 to 7, got '-1'"},
        {{"--alpha", "0.7", NULL}, "--alpha: expected a number from 1e-12 to 0.5, got '0.7'"},
        {{"--alpha", "nan", NULL}, "--alpha: expected a number from 1e-12 to 0.5, got 'nan'"},
        {{"--db", NULL}, "option '--db' needs a value"},
        {{"-d", NULL}, "option '-d' needs a value"},
        {{"--json=yes", NULL}, "option '--json' takes no value"},
        {{"--shape", "M", NULL}, "--shape: expected NAME=VALUE, got 'M'"},
        {{"--d", NULL}, "ambiguous option '--d': could be --db, --device"},
        {{"--h", NULL}, "ambiguous option '--h': could be --hold, --help"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        values v = {0};
        OPTIONS(v);
        char *argv[32];
        sb_error err;
        assert_int_equal(parse(argv, cases[i].words, opts, 0, &err), SB_PARSE_ERROR);
        assert_string_equal(err.msg, cases[i].msg);
    }
}

/* getopt_long took any prefix naming one option; so does the table. */
static void test_abbreviations(void **state)
{
    (void)state;
    values v = {0};
    OPTIONS(v);
    char *argv[32];
    sb_error err;
    const char *words[] = {"--lim", "5", "--js", "--al=0.1", NULL};
    assert_int_equal(parse(argv, words, opts, 0, &err), 0);
    assert_int_equal(v.limit, 5);
    assert_int_equal(v.json, 1);
    assert_true(fabs(v.alpha - 0.1) < 1e-15);
}

static void test_help(void **state)
{
    (void)state;
    values v = {0};
    OPTIONS(v);
    char *argv[32];
    sb_error err;
    const char *longh[] = {"--db", "x", "--help", "--bogus", NULL};
    assert_int_equal(parse(argv, longh, opts, 0, &err), SB_PARSE_HELP);
    const char *shorth[] = {"-jh", NULL};
    assert_int_equal(parse(argv, shorth, opts, 0, &err), SB_PARSE_HELP);
    const char *prefix[] = {"--he", NULL};
    assert_int_equal(parse(argv, prefix, opts, 0, &err), SB_PARSE_HELP);
}

static void test_usage(void **state)
{
    (void)state;
    values v = {0};
    sb_option opts[] = {
        SB_OPT_STRING('d', "db", &v.db, "path", "database"),
        SB_OPT_GROUP("Filters:"),
        SB_OPT_STRING(0, "op", &v.op, "op", "operation, e.g. gemm"),
        SB_OPT_CALLBACK(0, "shape", &v, "K=V,...", "the whole shape,\nnames in any order", add_shape),
        SB_OPT_INT(0, "a-very-long-option-name", &v.limit, "number", 1, INT_MAX, "help below"),
        SB_OPT_BOOL(0, "hidden", &v.quiet, "not shown"),
        SB_OPT_END(),
    };
    opts[5].flags |= SB_OPT_HIDDEN;
    static const char *const usage[] = {"prog runs [<options>]", "prog runs --json",
                                        "          [--limit N]", "",
                                        "Lists the runs.", NULL};
    sb_buf b = SB_BUF_INIT;
    sb_usage_with_options(&b, usage, opts);
    assert_string_equal(sb_buf_str(&b),
                        "usage: prog runs [<options>]\n"
                        "   or: prog runs --json\n"
                        "                 [--limit N]\n"
                        "\n"
                        "Lists the runs.\n"
                        "\n"
                        "  -d, --db <path>      database\n"
                        "\n"
                        "Filters:\n"
                        "      --op <op>        operation, e.g. gemm\n"
                        "      --shape K=V,...  the whole shape,\n"
                        "                       names in any order\n"
                        "      --a-very-long-option-name <number>\n"
                        "                       help below\n"
                        "  -h, --help           show this help\n");
    /* sb_usage_write writes the same text */
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(sb_usage_write(f, usage, opts), SB_OK);
    char written[1024] = "";
    rewind(f);
    size_t got = fread(written, 1, sizeof written - 1, f);
    fclose(f);
    assert_int_equal(got, b.len);
    assert_string_equal(written, sb_buf_str(&b));
    sb_buf_free(&b);
    /* a table that starts with a heading gets one blank line before it */
    sb_option grouped[] = {SB_OPT_GROUP("shape:"), SB_OPT_STRING(0, "op", &v.op, "op", "the op"), SB_OPT_END()};
    static const char *const one[] = {"prog x", NULL};
    sb_buf g = SB_BUF_INIT;
    sb_usage_with_options(&g, one, grouped);
    assert_string_equal(sb_buf_str(&g), "usage: prog x\n"
                                        "\n"
                                        "shape:\n"
                                        "      --op <op>  the op\n"
                                        "  -h, --help     show this help\n");
    sb_buf_free(&g);
    /* the hidden option still parses */
    char prog[] = "prog", hidden[] = "--hidden";
    char *argv[4] = {prog, hidden, NULL, NULL};
    sb_error err;
    assert_int_equal(sb_parse_options(2, argv, opts, 0, &err), 0);
    assert_int_equal(v.quiet, 1);
}

/* One table for several subcommands: each refuses the others' options
 * and leaves them out of its help. */
static void test_options_only(void **state)
{
    (void)state;
    values v = {0};
    OPTIONS(v);
    static const char *const names[] = {"db", "json", NULL};
    sb_option only[16];
    assert_int_equal(sb_options_only(opts, names, only, 16), SB_OK);
    assert_int_equal(sb_options_only(opts, names, only, 3), SB_ERR);
    char *argv[32];
    sb_error err;
    const char *ok[] = {"--db", "x.db", "-j", NULL};
    assert_int_equal(parse(argv, ok, only, 0, &err), 0);
    assert_string_equal(v.db, "x.db");
    assert_int_equal(v.json, 1);
    const char *refused[] = {"--limit", "3", NULL};
    assert_int_equal(parse(argv, refused, only, 0, &err), SB_PARSE_ERROR);
    assert_string_equal(err.msg, "option '--limit' does not apply here");
    const char *refused_short[] = {"-q", NULL};
    assert_int_equal(parse(argv, refused_short, only, 0, &err), SB_PARSE_ERROR);
    assert_string_equal(err.msg, "option '-q' does not apply here");
    /* suggestions come from the options that apply */
    const char *typo[] = {"--jsn", NULL};
    assert_int_equal(parse(argv, typo, only, 0, &err), SB_PARSE_ERROR);
    assert_string_equal(err.msg, "unknown option '--jsn'; did you mean '--json'?");
    assert_int_equal(v.limit, 0);
    static const char *const usage[] = {"prog x", NULL};
    sb_buf b = SB_BUF_INIT;
    sb_usage_with_options(&b, usage, only);
    assert_string_equal(sb_buf_str(&b), "usage: prog x\n"
                                        "\n"
                                        "  -d, --db <path>  database\n"
                                        "  -j, --json       JSON instead of the table\n"
                                        "  -h, --help       show this help\n");
    sb_buf_free(&b);
}

static void test_positive_number(void **state)
{
    (void)state;
    double x = 1;
    sb_option opts[] = {
        SB_OPT_DOUBLE(0, "min-speedup", &x, "x", SB_OPT_POSITIVE, HUGE_VAL, "least speedup"),
        SB_OPT_END(),
    };
    char *argv[8];
    sb_error err;
    const char *zero[] = {"--min-speedup", "0", NULL};
    assert_int_equal(parse(argv, zero, opts, 0, &err), SB_PARSE_ERROR);
    assert_string_equal(err.msg, "--min-speedup: expected a positive number, got '0'");
    const char *inf[] = {"--min-speedup=inf", NULL};
    assert_int_equal(parse(argv, inf, opts, 0, &err), SB_PARSE_ERROR);
    const char *good[] = {"--min-speedup", "1.25", NULL};
    assert_int_equal(parse(argv, good, opts, 0, &err), 0);
    assert_true(fabs(x - 1.25) < 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),         cmocka_unit_test(test_short_forms_and_later_wins),
        cmocka_unit_test(test_double_dash_and_stop),
        cmocka_unit_test(test_stop_at_non_option),   cmocka_unit_test(test_errors),
        cmocka_unit_test(test_abbreviations),  cmocka_unit_test(test_help),
        cmocka_unit_test(test_usage),          cmocka_unit_test(test_options_only),
        cmocka_unit_test(test_positive_number),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

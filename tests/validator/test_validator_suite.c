/* test_validator_suite.c - the official JSON-Schema-Test-Suite, draft 7.
 *
 * Runs every case of every file in the suite's tests/draft7/ (optional/ is
 * not part of the required keywords). refRemote.json runs too: its
 * http://localhost:1234/ URIs are served from the suite's remotes/
 * directory through the compiler's resolver hook. Prints
 *   draft7 suite: N cases ran, N passed, N failed, N skipped
 * and fails when any case that ran failed, or when the suite is missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>

#include "json_file.h"
#include "json_schema.h"

#define SUITE_ROOT "/usr/share/json-schema-test-suite"
#define REMOTE_BASE "http://localhost:1234/"

typedef struct counts {
    int ran, passed, failed, skipped;
    int lenient_groups;
} counts;

static const char *suite_root(void)
{
    const char *env = getenv("SOLBOOK_JSON_SCHEMA_TEST_SUITE");
    return env && *env ? env : SUITE_ROOT;
}

static json_t *resolve_remote(void *ctx, const char *uri, sb_error *err)
{
    (void)ctx;
    char path[4096];
    json_t *j = NULL;
    size_t n = strlen(REMOTE_BASE);
    if (strncmp(uri, REMOTE_BASE, n) != 0) {
        sb_error_set(err, NULL, NULL, "the suite only serves %s", REMOTE_BASE);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/remotes/%s", suite_root(), uri + n);
    if (sb_json_load_file(path, &j, err) != SB_OK)
        return NULL;
    return j;
}

typedef struct callback_count {
    size_t calls;
    int empty_field;
} callback_count;

static void count_errors(void *ctx, const char *pointer, const char *keyword, const char *reason)
{
    callback_count *c = ctx;
    c->calls++;
    if (!pointer || !keyword || !*keyword || !reason || !*reason)
        c->empty_field = 1;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_file(const char *dir, const char *file, counts *k)
{
    char path[8200];
    json_t *groups = NULL;
    sb_error err;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
        fail_msg("path too long: %s/%s", dir, file);
    if (sb_json_load_file(path, &groups, &err) != SB_OK) {
        char line[4096];
        sb_error_format(&err, line, sizeof line);
        fail_msg("cannot read suite file: %s", line);
    }
    size_t gi;
    json_t *group;
    json_array_foreach(groups, gi, group) {
        const char *gdesc = json_string_value(json_object_get(group, "description"));
        json_t *schema_json = json_object_get(group, "schema");
        json_t *tests = json_object_get(group, "tests");
        sb_schema_options opts = {0, resolve_remote, NULL};
        sb_schema *schema = NULL;
        sb_error strict_err;
        if (sb_schema_compile_opts(schema_json, file, &opts, &schema, &strict_err) != SB_OK) {
            /* Strict mode refuses what draft-07 would ignore; say so and
             * run the group the way draft-07 specifies. */
            opts.flags = SB_SCHEMA_DRAFT07_LENIENT;
            if (sb_schema_compile_opts(schema_json, file, &opts, &schema, &err) != SB_OK) {
                char line[4096];
                sb_error_format(&err, line, sizeof line);
                printf("FAIL %s / %s: schema does not compile: %s\n", file, gdesc, line);
                k->ran += (int)json_array_size(tests);
                k->failed += (int)json_array_size(tests);
                continue;
            }
            char line[4096];
            sb_error_format(&strict_err, line, sizeof line);
            printf("note %s / %s: strict mode refuses it (%s); ran with "
                   "SB_SCHEMA_DRAFT07_LENIENT\n", file, gdesc, line);
            k->lenient_groups++;
        }
        size_t ti;
        json_t *test;
        json_array_foreach(tests, ti, test) {
            const char *tdesc = json_string_value(json_object_get(test, "description"));
            json_t *data = json_object_get(test, "data");
            int expect_valid = json_is_true(json_object_get(test, "valid"));
            callback_count cc = {0, 0};
            size_t silent_errors = sb_schema_validate(schema, data, NULL, NULL);
            size_t errors = sb_schema_validate(schema, data, count_errors, &cc);
            k->ran++;
            const char *problem = NULL;
            if ((errors == 0) != expect_valid)
                problem = expect_valid ? "rejected a valid instance" : "accepted an invalid instance";
            else if ((silent_errors == 0) != (errors == 0))
                problem = "validity differs with and without an error callback";
            else if (cc.calls != errors)
                problem = "callback count differs from the returned error count";
            else if (cc.empty_field)
                problem = "an error was reported with an empty pointer/keyword/reason";
            if (problem) {
                k->failed++;
                char *text = json_dumps(data, JSON_ENCODE_ANY | JSON_COMPACT);
                printf("FAIL %s / %s / %s: %s (data %s)\n", file, gdesc, tdesc, problem,
                       text ? text : "?");
                free(text);
            } else {
                k->passed++;
            }
        }
        sb_schema_free(schema);
    }
    json_decref(groups);
}

static void test_draft7_suite(void **state)
{
    (void)state;
    char dir[4096];
    counts k = {0, 0, 0, 0, 0};
    snprintf(dir, sizeof dir, "%s/tests/draft7", suite_root());
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("JSON-Schema-Test-Suite not found at %s: install the Debian package "
                 "json-schema-test-suite (a required test dependency)", dir);
    char *names[256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 256) {
        size_t len = strlen(de->d_name);
        if (len > 5 && strcmp(de->d_name + len - 5, ".json") == 0)
            names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    if (n == 0)
        fail_msg("no draft7 test files in %s", dir);
    for (size_t i = 0; i < n; i++) {
        run_file(dir, names[i], &k);
        free(names[i]);
    }
    printf("draft7 suite: %zu files, %d groups ran in lenient mode (strict mode refuses them)\n",
           n, k.lenient_groups);
    printf("draft7 suite: %d cases ran, %d passed, %d failed, %d skipped\n", k.ran, k.passed,
           k.failed, k.skipped);
    fflush(stdout);
    assert_int_equal(k.failed, 0);
    assert_true(k.ran > 400);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_draft7_suite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

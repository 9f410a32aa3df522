/* test_validator_schemas.c - the solbook schemas against their example
 * instances (tests/data/schemas/, with expectations.json saying which
 * errors each must give), the shared provenance definition, and the
 * documentation covering every property name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>

#include "home.h"
#include "json_file.h"
#include "json_schema.h"

static const char *const SCHEMA_IDS[] = {"solbook.result.v1", "solbook.training.v1",
                                         "solbook.calibration.v1"};

static json_t *load_json(const char *path)
{
    json_t *j = NULL;
    sb_error err;
    if (sb_json_load_file(path, &j, &err) != SB_OK) {
        char line[4096];
        sb_error_format(&err, line, sizeof line);
        fail_msg("%s", line);
    }
    return j;
}

static json_t *load_schema_json(const char *id)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/schemas/%s.json", sb_home(), id);
    return load_json(path);
}

typedef struct found {
    json_t *errors; /* [{"pointer", "keyword", "reason"}] */
} found;

static void collect(void *ctx, const char *pointer, const char *keyword, const char *reason)
{
    found *f = ctx;
    json_array_append_new(f->errors, json_pack("{s:s,s:s,s:s}", "pointer",
                                               pointer[0] ? pointer : "/", "keyword", keyword,
                                               "reason", reason));
}

static void test_examples_match_expectations(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    sb_schema_set *set = NULL;
    sb_error err;
    snprintf(dir, sizeof dir, "%s/data/schemas", sb_home());
    if (sb_schema_set_load(dir, &set, &err) != SB_OK)
        fail_msg("%s: %s", err.file, err.msg);

    snprintf(dir, sizeof dir, "%s/schemas", SOLBOOK_TEST_DATA);
    snprintf(path, sizeof path, "%s/expectations.json", dir);
    json_t *manifest = load_json(path);
    json_t *instances = json_object_get(manifest, "instances");
    assert_true(json_is_object(instances));

    /* Every instance file is in the manifest, and the other way round. */
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    size_t files = 0;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n <= 5 || strcmp(de->d_name + n - 5, ".json") != 0 ||
            strcmp(de->d_name, "expectations.json") == 0)
            continue;
        files++;
        if (!json_object_get(instances, de->d_name))
            fail_msg("%s/%s is not listed in expectations.json", dir, de->d_name);
    }
    closedir(d);
    assert_int_equal(files, json_object_size(instances));

    int valid_count[3] = {0, 0, 0}, invalid_count[3] = {0, 0, 0};
    const char *name;
    json_t *want;
    json_object_foreach(instances, name, want) {
        const char *schema_id = json_string_value(json_object_get(want, "schema"));
        json_t *want_errors = json_object_get(want, "errors");
        assert_non_null(schema_id);
        assert_true(json_is_array(want_errors));
        snprintf(path, sizeof path, "%s/%s", dir, name);
        json_t *instance = load_json(path);
        /* The instance's own "schema" field picks the schema, as in
         * `solbook validate FILE` and ingest. */
        const char *own = json_string_value(json_object_get(instance, "schema"));
        if (!own || strcmp(own, schema_id) != 0)
            fail_msg("%s: its \"schema\" field is %s, the manifest says %s", name,
                     own ? own : "missing", schema_id);
        const sb_schema *schema = sb_schema_set_find(set, schema_id);
        assert_non_null(schema);
        found f = {json_array()};
        size_t n = sb_schema_validate(schema, instance, collect, &f);
        assert_int_equal(n, json_array_size(f.errors));
        int ok = json_array_size(f.errors) == json_array_size(want_errors);
        for (size_t i = 0; ok && i < json_array_size(want_errors); i++) {
            json_t *w = json_array_get(want_errors, i), *g = json_array_get(f.errors, i);
            ok = json_equal(json_object_get(w, "pointer"), json_object_get(g, "pointer")) &&
                 json_equal(json_object_get(w, "keyword"), json_object_get(g, "keyword"));
        }
        if (!ok) {
            char *got = json_dumps(f.errors, JSON_COMPACT);
            char *exp = json_dumps(want_errors, JSON_COMPACT);
            fail_msg("%s: expected errors %s, got %s", name, exp, got);
        }
        for (int s = 0; s < 3; s++) {
            if (strcmp(schema_id, SCHEMA_IDS[s]) != 0)
                continue;
            if (json_array_size(want_errors) == 0) {
                valid_count[s]++;
            } else {
                invalid_count[s]++;
                /* Broken in exactly one documented way. */
                assert_int_equal(json_array_size(want_errors), 1);
                assert_true(json_is_string(json_object_get(want, "broken")));
                assert_non_null(strstr(name, ".invalid."));
            }
        }
        if (json_array_size(want_errors) == 0)
            assert_non_null(strstr(name, ".valid."));
        printf("%-50s %s\n", name,
               n ? json_string_value(json_object_get(json_array_get(f.errors, 0), "reason"))
                 : "valid");
        json_decref(f.errors);
        json_decref(instance);
    }
    for (int s = 0; s < 3; s++) {
        printf("%s: %d valid and %d invalid examples checked\n", SCHEMA_IDS[s], valid_count[s],
               invalid_count[s]);
        assert_true(valid_count[s] >= 2);
        assert_true(invalid_count[s] >= 5);
    }
    json_decref(manifest);
    sb_schema_set_free(set);
}

static void test_provenance_shared(void **state)
{
    (void)state;
    json_t *first = NULL;
    for (int s = 0; s < 3; s++) {
        json_t *schema = load_schema_json(SCHEMA_IDS[s]);
        json_t *prov = json_object_get(json_object_get(schema, "definitions"), "provenance");
        assert_non_null(prov);
        /* And the top-level provenance property uses it. */
        json_t *ref = json_object_get(json_object_get(json_object_get(schema, "properties"),
                                                      "provenance"), "$ref");
        assert_string_equal(json_string_value(ref), "#/definitions/provenance");
        if (!first) {
            first = json_incref(prov);
        } else if (!json_equal(first, prov)) {
            fail_msg("definitions/provenance in %s differs from the one in %s", SCHEMA_IDS[s],
                     SCHEMA_IDS[0]);
        }
        json_decref(schema);
    }
    json_decref(first);
}

/* Adds every key of every "properties" object under j to names. */
static void property_names(const json_t *j, json_t *names)
{
    const char *k;
    json_t *v;
    size_t i;
    if (json_is_object(j)) {
        json_t *props = json_object_get(j, "properties");
        if (json_is_object(props))
            json_object_foreach(props, k, v)
                json_object_set_new(names, k, json_true());
        json_object_foreach((json_t *)j, k, v)
            property_names(v, names);
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v)
            property_names(v, names);
    }
}

static void test_docs_cover_every_property(void **state)
{
    (void)state;
    char path[4096], *doc;
    size_t len;
    sb_error err;
    snprintf(path, sizeof path, "%s/docs/SCHEMAS.md", sb_home());
    if (sb_file_read_all(path, &doc, &len, &err) != SB_OK)
        fail_msg("%s: %s", err.file, err.msg);
    json_t *names = json_object();
    for (int s = 0; s < 3; s++) {
        json_t *schema = load_schema_json(SCHEMA_IDS[s]);
        property_names(schema, names);
        if (!strstr(doc, SCHEMA_IDS[s]))
            fail_msg("docs/SCHEMAS.md does not mention %s", SCHEMA_IDS[s]);
        json_decref(schema);
    }
    const char *name;
    json_t *v;
    size_t missing = 0;
    json_object_foreach(names, name, v) {
        char needle[300];
        snprintf(needle, sizeof needle, "`%s`", name);
        if (!strstr(doc, needle)) {
            printf("docs/SCHEMAS.md does not document `%s`\n", name);
            missing++;
        }
    }
    printf("docs/SCHEMAS.md documents all %zu property names of the three schemas\n",
           json_object_size(names) - missing);
    assert_int_equal(missing, 0);
    assert_true(json_object_size(names) > 100);
    json_decref(names);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples_match_expectations),
        cmocka_unit_test(test_provenance_shared),
        cmocka_unit_test(test_docs_cover_every_property),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_validator_unit.c - the validator's own behaviour beyond the official
 * suite: error pointers and keywords, refusal of unknown keywords and bad
 * keyword values, regex errors and semantics, int64 exactness, numbers by
 * value, Unicode lengths, $ref loops, sb_schema_check and the schema set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "home.h"
#include "json_file.h"
#include "json_schema.h"

/* Inline JSON; scalars allowed at the top, unlike files. */
static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!j)
        fail_msg("test JSON does not parse: %s: %s", text, je.text);
    return j;
}

static sb_schema *compile_text(const char *text)
{
    json_t *j = parse(text);
    sb_schema *s = NULL;
    sb_error err;
    if (sb_schema_compile(j, "t.schema.json", &s, &err) != SB_OK)
        fail_msg("schema %s does not compile: %s: %s", text, err.where, err.msg);
    json_decref(j);
    return s;
}

/* Compile must fail; the error must sit at where and mention needle. */
static void expect_refused(const char *text, const char *where, const char *needle)
{
    json_t *j = parse(text);
    sb_schema *s = NULL;
    sb_error err;
    sb_error_clear(&err);
    if (sb_schema_compile(j, "t.schema.json", &s, &err) == SB_OK)
        fail_msg("schema %s compiled but should be refused", text);
    assert_null(s);
    assert_string_equal(err.file, "t.schema.json");
    if (strcmp(err.where, where) != 0)
        fail_msg("schema %s: error at '%s', expected '%s' (%s)", text, err.where, where, err.msg);
    if (!strstr(err.msg, needle))
        fail_msg("schema %s: error '%s' does not mention '%s'", text, err.msg, needle);
    json_decref(j);
}

typedef struct collected {
    size_t n;
    char lines[16][16384];
} collected;

static void collect(void *ctx, const char *pointer, const char *keyword, const char *reason)
{
    collected *c = ctx;
    if (c->n < 16)
        snprintf(c->lines[c->n], sizeof c->lines[0], "%s|%s|%s", pointer, keyword, reason);
    c->n++;
}

static size_t errors_of(const sb_schema *s, const char *instance, collected *c)
{
    json_t *j = parse(instance);
    memset(c, 0, sizeof *c);
    size_t n = sb_schema_validate(s, j, collect, c);
    json_decref(j);
    assert_int_equal(n, c->n);
    return n;
}

static int valid(const sb_schema *s, const char *instance)
{
    json_t *j = parse(instance);
    size_t n = sb_schema_validate(s, j, NULL, NULL);
    json_decref(j);
    return n == 0;
}

/* The error line must start with "pointer|keyword|", the whole pointer
 * compared however long it is. */
static void assert_error(const collected *c, size_t i, const char *pointer, const char *keyword)
{
    size_t np = strlen(pointer), nk = strlen(keyword);
    const char *line = i < c->n ? c->lines[i] : NULL;
    if (!line || strncmp(line, pointer, np) != 0 || line[np] != '|' ||
        strncmp(line + np + 1, keyword, nk) != 0 || line[np + 1 + nk] != '|')
        fail_msg("error %zu is '%s', expected it to start '%s|%s|'", i, line ? line : "none", pointer,
                 keyword);
}

static void test_error_pointers(void **state)
{
    (void)state;
    sb_schema *s = compile_text(
        "{\"type\": \"object\", \"required\": [\"a\", \"z\"], \"additionalProperties\": false,"
        " \"properties\": {"
        "  \"a\": {\"type\": \"object\", \"properties\": {"
        "     \"b\": {\"type\": \"array\", \"items\": {\"type\": \"integer\", \"minimum\": 0}}}},"
        "  \"x/y\": {\"type\": \"string\"}, \"m~n\": {\"const\": 1}}}");
    collected c;
    assert_int_equal(errors_of(s, "{\"a\": {\"b\": [1, 2, -3, \"q\"]}, \"x/y\": 5, \"m~n\": 2,"
                                  " \"extra\": true}", &c), 6);
    assert_error(&c, 0, "", "required");
    assert_non_null(strstr(c.lines[0], "\"z\""));
    assert_error(&c, 1, "/a/b/2", "minimum");
    assert_error(&c, 2, "/a/b/3", "type");
    assert_error(&c, 3, "/x~1y", "type");
    assert_error(&c, 4, "/m~0n", "const");
    assert_error(&c, 5, "/extra", "additionalProperties");
    assert_int_equal(errors_of(s, "[]", &c), 1);
    assert_error(&c, 0, "", "type");
    assert_string_equal(c.lines[0], "|type|expected object, found array");
    sb_schema_free(s);

    /* Combinators report once, not their branches' errors. */
    s = compile_text("{\"anyOf\": [{\"type\": \"string\"}, {\"minimum\": 10}],"
                     " \"not\": {\"const\": 3}}");
    assert_int_equal(errors_of(s, "3", &c), 2);
    assert_error(&c, 0, "", "anyOf");
    assert_error(&c, 1, "", "not");
    sb_schema_free(s);

    /* then/else errors are reported as themselves; the if is silent. */
    s = compile_text("{\"if\": {\"properties\": {\"status\": {\"const\": \"passed\"}}},"
                     " \"then\": {\"required\": [\"timing\"]},"
                     " \"else\": {\"not\": {\"required\": [\"timing\"]}}}");
    assert_int_equal(errors_of(s, "{\"status\": \"passed\"}", &c), 1);
    assert_error(&c, 0, "", "required");
    assert_int_equal(errors_of(s, "{\"status\": \"failed\", \"timing\": {}}", &c), 1);
    assert_error(&c, 0, "", "not");
    assert_true(valid(s, "{\"status\": \"failed\"}"));
    sb_schema_free(s);
}

static void test_keyword_refusal(void **state)
{
    (void)state;
    expect_refused("{\"properties\": {\"x\": {\"minimun\": 1}}}", "/properties/x/minimun",
                   "unknown keyword \"minimun\"");
    expect_refused("{\"additionalPropertes\": false}", "/additionalPropertes",
                   "unknown keyword");
    expect_refused("{\"items\": [{\"type\": \"string\"}, {\"nullable\": true}]}",
                   "/items/1/nullable", "\"nullable\"");
    expect_refused("{\"definitions\": {\"a\": {\"$ref\": \"#\", \"minimum\": 2}}}",
                   "/definitions/a/minimum", "beside \"$ref\"");
    expect_refused("{\"then\": {\"required\": [\"a\"]}}", "/then", "without \"if\"");
    expect_refused("{\"exclusiveMinimum\": true, \"minimum\": 1}", "/exclusiveMinimum",
                   "draft-04");
    expect_refused("{\"type\": \"float\"}", "/type", "unknown type \"float\"");
    expect_refused("{\"type\": [\"string\", \"string\"]}", "/type", "twice");
    expect_refused("{\"required\": \"a\"}", "/required", "an array of strings");
    expect_refused("{\"required\": [\"a\", \"a\"]}", "/required/1", "twice");
    expect_refused("{\"minLength\": -1}", "/minLength", "non-negative integer");
    expect_refused("{\"maxItems\": 1.5}", "/maxItems", "non-negative integer");
    expect_refused("{\"multipleOf\": 0}", "/multipleOf", "greater than 0");
    expect_refused("{\"items\": 3}", "/items", "schema");
    expect_refused("{\"anyOf\": []}", "/anyOf", "non-empty array");
    expect_refused("{\"properties\": {\"a\": 1}}", "/properties/a", "schemas");
    expect_refused("{\"title\": 1}", "/title", "a string");
    expect_refused("3", "/", "object or a boolean");
    expect_refused("{\"$ref\": \"#/definitions/nope\", \"definitions\": {}}", "/$ref", "nothing at /definitions/nope");
    expect_refused("{\"$ref\": \"#/definitions/a~2\", \"definitions\": {}}", "/$ref",
                   "malformed JSON pointer");
    expect_refused("{\"$ref\": \"https://example.com/other.json#/x\"}", "/$ref",
                   "points outside this schema");
    /* Unknown keywords anywhere, also in definitions nobody uses. */
    expect_refused("{\"definitions\": {\"unused\": {\"typo\": 1}}}", "/definitions/unused/typo",
                   "unknown keyword");
    /* Annotations are accepted, format is not checked. */
    sb_schema *s = compile_text("{\"$schema\": \"http://json-schema.org/draft-07/schema#\","
                                " \"$id\": \"https://x.test/s.json\", \"$comment\": \"c\","
                                " \"title\": \"t\", \"description\": \"d\", \"default\": 1,"
                                " \"examples\": [1], \"format\": \"date-time\","
                                " \"readOnly\": true, \"writeOnly\": false,"
                                " \"contentMediaType\": \"text/plain\","
                                " \"contentEncoding\": \"base64\"}");
    assert_true(valid(s, "\"not a date\""));
    sb_schema_free(s);
    /* The lenient mode does what draft-07 says. */
    json_t *j = parse("{\"nullable\": true, \"properties\": {\"a\": {\"$ref\": \"#/x\","
                      " \"minimum\": 5}}, \"x\": {\"type\": \"integer\"}}");
    sb_schema_options opts = {SB_SCHEMA_DRAFT07_LENIENT, NULL, NULL};
    sb_error err;
    assert_int_equal(sb_schema_compile_opts(j, "lenient", &opts, &s, &err), SB_OK);
    assert_true(valid(s, "{\"a\": 1}"));
    assert_false(valid(s, "{\"a\": \"s\"}"));
    sb_schema_free(s);
    json_decref(j);
}

static void test_regex(void **state)
{
    (void)state;
    expect_refused("{\"pattern\": \"(abc\"}", "/pattern", "invalid regular expression \"(abc\"");
    expect_refused("{\"properties\": {\"a\": {\"pattern\": \"[z-a]\"}}}", "/properties/a/pattern",
                   "invalid regular expression");
    expect_refused("{\"patternProperties\": {\"*x\": true}}", "/patternProperties/*x",
                   "invalid regular expression \"*x\"");
    sb_schema *s = compile_text("{\"pattern\": \"b\"}");
    assert_true(valid(s, "\"abc\"")); /* not anchored */
    assert_false(valid(s, "\"xyz\""));
    assert_true(valid(s, "12")); /* only strings */
    sb_schema_free(s);
    s = compile_text("{\"pattern\": \"^a$\"}");
    assert_true(valid(s, "\"a\""));
    assert_false(valid(s, "\"a\\n\"")); /* ECMAScript $: the very end only */
    sb_schema_free(s);
    s = compile_text("{\"pattern\": \"^\\\\u0041.$\"}"); /* \u escapes, UTF-8 code points */
    assert_true(valid(s, "\"A\xc3\xa9\""));
    assert_true(valid(s, "\"A\xf0\x9f\x9a\x80\""));
    assert_false(valid(s, "\"B\xc3\xa9\""));
    sb_schema_free(s);
    s = compile_text("{\"patternProperties\": {\"^[0-9]+$\": {\"type\": \"integer\"}},"
                     " \"additionalProperties\": false}");
    collected c;
    assert_int_equal(errors_of(s, "{\"12\": 1, \"3\": \"x\", \"k\": 1}", &c), 2);
    assert_error(&c, 0, "/3", "type");
    assert_error(&c, 1, "/k", "additionalProperties");
    sb_schema_free(s);
}

static void test_int64(void **state)
{
    (void)state;
    sb_schema *s = compile_text("{\"minimum\": 9223372036854775807}");
    assert_true(valid(s, "9223372036854775807"));
    assert_false(valid(s, "9223372036854775806")); /* equal as doubles, not as integers */
    assert_false(valid(s, "9.2233720368547748e18"));
    sb_schema_free(s);
    s = compile_text("{\"maximum\": -9223372036854775807}");
    assert_true(valid(s, "-9223372036854775808"));
    assert_false(valid(s, "-9223372036854775806"));
    sb_schema_free(s);
    s = compile_text("{\"exclusiveMaximum\": 9007199254740993}");
    assert_true(valid(s, "9007199254740992"));
    assert_false(valid(s, "9007199254740993"));
    assert_true(valid(s, "9007199254740992.0"));
    sb_schema_free(s);
    s = compile_text("{\"const\": 9007199254740993}");
    assert_true(valid(s, "9007199254740993"));
    assert_false(valid(s, "9007199254740992"));
    assert_false(valid(s, "9007199254740992.0")); /* 2^53 + 1 is not a double */
    sb_schema_free(s);
    s = compile_text("{\"multipleOf\": 2}");
    assert_true(valid(s, "9223372036854775806"));
    assert_false(valid(s, "9223372036854775807"));
    assert_true(valid(s, "-9223372036854775808"));
    sb_schema_free(s);
    s = compile_text("{\"enum\": [9223372036854775807, -9223372036854775808]}");
    assert_true(valid(s, "-9223372036854775808"));
    assert_false(valid(s, "9223372036854775806"));
    sb_schema_free(s);
}

static void test_number_equality(void **state)
{
    (void)state;
    sb_schema *s = compile_text("{\"enum\": [1, \"1\", [2.5], {\"a\": 3}]}");
    assert_true(valid(s, "1.0"));
    assert_true(valid(s, "1"));
    assert_true(valid(s, "[2.50]"));
    assert_true(valid(s, "{\"a\": 3.0}"));
    assert_false(valid(s, "true")); /* true is not 1 */
    assert_false(valid(s, "1.5"));
    sb_schema_free(s);
    s = compile_text("{\"const\": 1.0}");
    assert_true(valid(s, "1"));
    sb_schema_free(s);
    s = compile_text("{\"uniqueItems\": true}");
    collected c;
    assert_int_equal(errors_of(s, "[0, 1, 1.0]", &c), 1);
    assert_error(&c, 0, "", "uniqueItems");
    assert_non_null(strstr(c.lines[0], "items 1 and 2"));
    assert_false(valid(s, "[{\"a\": 1, \"b\": [2]}, {\"b\": [2.0], \"a\": 1.0}]"));
    assert_true(valid(s, "[1, true, \"1\", [1], {\"a\": 1}, null, 0, false]"));
    sb_schema_free(s);
    s = compile_text("{\"type\": \"integer\"}");
    assert_true(valid(s, "4096.0"));
    assert_false(valid(s, "1.5"));
    assert_int_equal(errors_of(s, "1.5", &c), 1);
    assert_string_equal(c.lines[0], "|type|expected integer, found a number that is not an integer");
    sb_schema_free(s);
    s = compile_text("{\"multipleOf\": 0.01}");
    assert_true(valid(s, "0.07"));
    assert_true(valid(s, "19.99"));
    assert_false(valid(s, "0.075"));
    sb_schema_free(s);
}

static void test_unicode_lengths(void **state)
{
    (void)state;
    sb_schema *s = compile_text("{\"minLength\": 2, \"maxLength\": 3}");
    assert_false(valid(s, "\"\xe2\x82\xac\""));                     /* 1 code point, 3 bytes */
    assert_true(valid(s, "\"\xc3\xa9\xe2\x82\xac\""));              /* 2 code points, 5 bytes */
    assert_true(valid(s, "\"\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\"")); /* 3, 12 bytes */
    assert_false(valid(s, "\"abcd\""));
    assert_true(valid(s, "\"a\\u0000b\"")); /* NUL counts as a code point */
    collected c;
    assert_int_equal(errors_of(s, "\"\xe2\x82\xac\"", &c), 1);
    assert_string_equal(c.lines[0], "|minLength|string has 1 characters, fewer than the minimum 2");
    sb_schema_free(s);
}

static void test_ref_loops(void **state)
{
    (void)state;
    expect_refused("{\"$ref\": \"#\"}", "/$ref", "loop of $refs");
    expect_refused("{\"$ref\": \"#/definitions/a\", \"definitions\": {\"a\": {\"$ref\":"
                   " \"#/definitions/b\"}, \"b\": {\"$ref\": \"#/definitions/a\"}}}",
                   "/$ref", "loop of $refs");
    /* A loop through allOf compiles, and is caught while validating. */
    sb_schema *s = compile_text("{\"definitions\": {\"a\": {\"allOf\": [{\"$ref\":"
                                " \"#/definitions/a\"}]}}, \"properties\": {\"x\":"
                                " {\"$ref\": \"#/definitions/a\"}}}");
    collected c;
    clock_t t0 = clock();
    assert_int_equal(errors_of(s, "{\"x\": 1}", &c), 1);
    assert_error(&c, 0, "/x", "$ref");
    assert_non_null(strstr(c.lines[0], "schema loops"));
    /* Also under anyOf/not, where branch errors are otherwise silent. */
    sb_schema_free(s);
    s = compile_text("{\"anyOf\": [{\"not\": {\"$ref\": \"#\"}}, {\"type\": \"string\"}]}");
    assert_int_equal(errors_of(s, "1", &c), 1);
    assert_error(&c, 0, "", "$ref");
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
    sb_schema_free(s);
    /* Legitimate recursion: a tree 60 levels deep. */
    s = compile_text("{\"type\": \"object\", \"properties\": {\"child\": {\"$ref\": \"#\"},"
                     " \"v\": {\"type\": \"integer\"}}, \"additionalProperties\": false}");
    char deep[2048] = "";
    for (int i = 0; i < 60; i++)
        strcat(deep, "{\"v\": 1, \"child\": ");
    strcat(deep, "{\"v\": \"bad\"}");
    for (int i = 0; i < 60; i++)
        strcat(deep, "}");
    assert_int_equal(errors_of(s, deep, &c), 1);
    assert_error(&c, 0, "/child/child/child/child/child/child/child/child/child/child/child/child"
                        "/child/child/child/child/child/child/child/child/child/child/child/child"
                        "/child/child/child/child/child/child/child/child/child/child/child/child"
                        "/child/child/child/child/child/child/child/child/child/child/child/child"
                        "/child/child/child/child/child/child/child/child/child/child/child/child/v",
                 "type");
    sb_schema_free(s);
}

static void test_refs_and_ids(void **state)
{
    (void)state;
    /* %-escapes and ~0/~1 in pointers, $ref into items, $id base change. */
    sb_schema *s = compile_text(
        "{\"definitions\": {\"a b\": {\"type\": \"integer\"}, \"c/d~e\": {\"type\": \"string\"}},"
        " \"items\": [{\"$ref\": \"#/definitions/a%20b\"}, {\"$ref\": \"#/definitions/c~1d~0e\"},"
        " {\"$ref\": \"#/items/0\"}]}");
    assert_true(valid(s, "[1, \"x\", 2]"));
    collected c;
    assert_int_equal(errors_of(s, "[\"no\", 1, 2.5]", &c), 3);
    assert_error(&c, 0, "/0", "type");
    assert_error(&c, 2, "/2", "type");
    sb_schema_free(s);
    s = compile_text("{\"$id\": \"https://x.test/root.json\", \"properties\": {\"n\":"
                     " {\"$ref\": \"inner.json\"}}, \"definitions\": {\"i\": {\"$id\":"
                     " \"inner.json\", \"type\": \"null\"}, \"named\": {\"$id\": \"#named\","
                     " \"type\": \"boolean\"}}, \"additionalProperties\": {\"$ref\": \"#named\"}}");
    assert_true(valid(s, "{\"n\": null, \"b\": true}"));
    assert_false(valid(s, "{\"n\": 1}"));
    assert_false(valid(s, "{\"b\": 1}"));
    sb_schema_free(s);
    /* The bundled metaschema: every solbook schema is a valid schema. */
    s = compile_text("{\"$ref\": \"http://json-schema.org/draft-07/schema#\"}");
    static const char *const ids[] = {"solbook.result.v1", "solbook.training.v1",
                                      "solbook.calibration.v1"};
    for (size_t i = 0; i < 3; i++) {
        char path[4096];
        json_t *j = NULL;
        sb_error err;
        snprintf(path, sizeof path, "%s/data/schemas/%s.json", sb_home(), ids[i]);
        assert_int_equal(sb_json_load_file(path, &j, &err), SB_OK);
        assert_int_equal(sb_schema_validate(s, j, NULL, NULL), 0);
        json_decref(j);
    }
    assert_int_equal(errors_of(s, "{\"type\": 5}", &c), 1);
    assert_error(&c, 0, "/type", "anyOf");
    sb_schema_free(s);
}

static void test_check_and_set(void **state)
{
    (void)state;
    sb_schema *s = compile_text("{\"required\": [\"schema\"]}");
    json_t *j = parse("{}");
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_schema_check(s, j, "run.json", &err), SB_ERR);
    assert_string_equal(err.file, "run.json");
    assert_string_equal(err.where, "/");
    assert_string_equal(err.msg,
                        "schema t.schema.json: required: required property \"schema\" is missing");
    assert_string_equal(sb_schema_name(s), "t.schema.json");
    json_decref(j);
    sb_schema_free(s);

    char dir[4096];
    sb_schema_set *set = NULL;
    snprintf(dir, sizeof dir, "%s/data/schemas", sb_home());
    assert_int_equal(sb_schema_set_load(dir, &set, &err), SB_OK);
    assert_non_null(sb_schema_set_find(set, "solbook.result.v1"));
    assert_non_null(sb_schema_set_find(set, "solbook.training.v1"));
    assert_non_null(sb_schema_set_find(set, "solbook.calibration.v1"));
    assert_null(sb_schema_set_find(set, "solbook.result.v2"));
    assert_true(sb_schema_set_count(set) >= 3);
    for (size_t i = 1; i < sb_schema_set_count(set); i++)
        assert_true(strcmp(sb_schema_set_id(set, i - 1), sb_schema_set_id(set, i)) < 0);
    assert_null(sb_schema_set_id(set, sb_schema_set_count(set)));
    sb_schema_set_free(set);
    assert_int_equal(sb_schema_set_load("/nonexistent-dir", &set, &err), SB_ERR);
    assert_string_equal(err.file, "/nonexistent-dir");
    assert_int_equal(sb_schema_load_file("/nonexistent.json", &s, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "cannot open"));
}

/* Hostile depth: a 1500-link chain of definitions is refused at compile
 * time, and an instance 3000 arrays deep stops with an error, not a crash. */
static void test_depth_guards(void **state)
{
    (void)state;
    json_t *defs = json_object();
    char ref[64];
    for (int i = 0; i < 1500; i++) {
        snprintf(ref, sizeof ref, "#/definitions/d%d", i + 1);
        json_t *link = json_pack("{s:[{s:s}]}", "allOf", "$ref", ref);
        snprintf(ref, sizeof ref, "d%d", i);
        json_object_set_new(defs, ref, link);
    }
    json_object_set_new(defs, "d1500", json_pack("{s:s}", "type", "integer"));
    json_t *chain = json_pack("{s:s,s:o}", "$ref", "#/definitions/d0", "definitions", defs);
    sb_schema *s = NULL;
    sb_error err;
    assert_int_equal(sb_schema_compile(chain, "chain.json", &s, &err), SB_ERR);
    if (!strstr(err.msg, "nest more than 1000"))
        fail_msg("unexpected error %s: %s", err.where, err.msg);
    json_decref(chain);

    s = compile_text("{\"items\": {\"$ref\": \"#\"}, \"type\": \"array\"}");
    json_t *deep = json_array(), *cur = deep;
    for (int i = 0; i < 3000; i++) {
        json_t *inner = json_array();
        json_array_append_new(cur, inner);
        cur = inner;
    }
    json_array_append_new(cur, json_integer(1)); /* the innermost value is not an array */
    collected c;
    memset(&c, 0, sizeof c);
    assert_int_equal(sb_schema_validate(s, deep, collect, &c), 1);
    assert_int_equal(strncmp(c.lines[0], "/0/0/0/0", 8), 0); /* pointer cut by collect() */
    assert_non_null(strstr(c.lines[0], "|$ref|schemas nested more than 4000 deep"));
    json_decref(deep);
    sb_schema_free(s);
}

/* Arrays of plain numbers (a result's samples) take a tight loop; what it
 * accepts and refuses, and the errors of a refused array, are the general
 * path's. */
static void test_plain_number_arrays(void **state)
{
    (void)state;
    sb_schema *s = compile_text("{\"type\": \"array\", \"items\": {\"type\": \"number\", \"minimum\": 0},"
                                " \"contains\": {\"const\": 7}}");
    collected c;
    assert_true(valid(s, "[0, 0.5, 7, 1e300, 9007199254740993]"));
    assert_int_equal(errors_of(s, "[0.25, 7, -0.0, -1e-300, \"x\", null]", &c), 3);
    assert_error(&c, 0, "/3", "minimum");
    assert_error(&c, 1, "/4", "type");
    assert_error(&c, 2, "/5", "type");
    /* every item passes, and contains is still checked */
    assert_int_equal(errors_of(s, "[1, 2, 3]", &c), 1);
    assert_error(&c, 0, "", "contains");
    sb_schema_free(s);

    /* integer: an integral real passes, a fraction is refused */
    s = compile_text("{\"items\": {\"type\": \"integer\", \"minimum\": -9007199254740992}}");
    assert_true(valid(s, "[3.0, -9007199254740992, 12]"));
    assert_int_equal(errors_of(s, "[3.5, -9007199254740993]", &c), 2);
    assert_error(&c, 0, "/0", "type");
    assert_error(&c, 1, "/1", "minimum");
    sb_schema_free(s);

    /* a minimum that is a real, an item that needs exact comparison */
    s = compile_text("{\"items\": {\"type\": \"number\", \"minimum\": 0.1}}");
    assert_true(valid(s, "[0.1, 0.10000000000000001, 1]"));
    assert_int_equal(errors_of(s, "[0.09999999999999999]", &c), 1);
    assert_error(&c, 0, "/0", "minimum");
    sb_schema_free(s);

    /* anything more than type and minimum goes the general way */
    s = compile_text("{\"items\": {\"type\": \"number\", \"maximum\": 2, \"multipleOf\": 0.5}}");
    assert_true(valid(s, "[0.5, 2]"));
    assert_int_equal(errors_of(s, "[2.5, 0.3]", &c), 2);
    assert_error(&c, 0, "/0", "maximum");
    assert_error(&c, 1, "/1", "multipleOf");
    sb_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_pointers),
        cmocka_unit_test(test_keyword_refusal),
        cmocka_unit_test(test_regex),
        cmocka_unit_test(test_int64),
        cmocka_unit_test(test_number_equality),
        cmocka_unit_test(test_unicode_lengths),
        cmocka_unit_test(test_ref_loops),
        cmocka_unit_test(test_refs_and_ids),
        cmocka_unit_test(test_check_and_set),
        cmocka_unit_test(test_depth_guards),
        cmocka_unit_test(test_plain_number_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_canonical_json.c - sb_canonical_json writes exactly what
 * json_dumps(SORT_KEYS | COMPACT | REAL_PRECISION(17) | ENCODE_ANY) writes:
 * the content digest of every stored run depends on these bytes. Reals at
 * the edges of the integer fast path (powers of ten, ties, 1e-16, 1e17,
 * subnormals, the largest double), random bit patterns, and whole
 * documents with escapes, unicode and unsorted keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "canonical_json.h"

#define FLAGS (JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY)

static void same_json(const json_t *j)
{
    char *want = json_dumps(j, FLAGS);
    size_t len = 0;
    char *got = sb_canonical_json(j, &len);
    assert_non_null(want);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_int_equal(len, strlen(want));
    free(want);
    free(got);
}

static void same_real(double d)
{
    json_t *r = json_real(d);
    assert_non_null(r);
    same_json(r);
    json_decref(r);
}

static void test_reals_at_the_edges(void **state)
{
    (void)state;
    static const double fixed[] = {
        0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 2.5, 1e-4, 1e-5, 9.9999999999999995e-5, 1e-16,
        9.9999999999999998e-17, 1e16, 9999999999999998.0, 1e17, 99999999999999984.0, 1e22,
        1234567890123456.75, 1234567890123456.25, 0.30000000000000004, 5e-324,
        2.2250738585072014e-308, 1.7976931348623157e308, 123456.789, 0.001953125,
    };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        same_real(fixed[i]);
        same_real(-fixed[i]);
    }
    for (int e = -330; e <= 308; e++) {
        double p = pow(10, e);
        same_real(p);
        same_real(nextafter(p, 0));
        if (isfinite(nextafter(p, INFINITY)))
            same_real(nextafter(p, INFINITY));
    }
    /* Exact ties at the 18th digit: x.25 and x.75 around 1e15..1e16. */
    for (long long k = 1000000000000000LL; k < 1000000000000000LL + 2000; k += 7) {
        same_real((double)k + 0.25);
        same_real((double)k + 0.75);
        same_real((double)(k * 4 + 1) / 4.0 * 4.0);
    }
}

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_random_reals(void **state)
{
    (void)state;
    for (int i = 0; i < 300000; i++) {
        double d;
        uint64_t u = next();
        switch (i % 4) {
        case 0:
            memcpy(&d, &u, sizeof d);
            if (!isfinite(d))
                continue;
            break;
        case 1:
            d = (double)(u % 100000000) / 1e6; /* a solbench sample in ms */
            break;
        case 2:
            d = ldexp((double)(u >> 11), (int)(next() % 140) - 110);
            break;
        default:
            d = (double)(int64_t)(u >> (next() % 64));
        }
        same_real(d);
    }
}

static void test_documents(void **state)
{
    (void)state;
    json_error_t je;
    static const char *const docs[] = {
        "{\"b\":1,\"a\":[1.5,-2,true,false,null],\"c\":{\"z\":{},\"y\":[]}}",
        "{\"s\":\"quote \\\" backslash \\\\ slash / tab \\t nl \\n cr \\r bs \\b ff \\f\"}",
        "{\"ctl\":\"\\u0001\\u001f\\u007f\",\"uni\":\"\\u00e9\\u4e2d\\ud83d\\ude00\"}",
        "{\"ab\":1,\"a\":2,\"b\":3,\"\\u00e9\":4,\"A\":5,\"\":6}",
        "[-9223372036854775808,9223372036854775807,0,-1]",
        "\"top-level string\"", "3.25", "[]", "{}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
        json_t *j = json_loads(docs[i], JSON_DECODE_ANY, &je);
        if (!j)
            fail_msg("%s: %s", docs[i], je.text);
        same_json(j);
        json_decref(j);
    }
    /* An object with more keys than the small-object path sorts in place. */
    json_t *big = json_object();
    for (int i = 0; i < 200; i++) {
        char k[32];
        snprintf(k, sizeof k, "key%llu", (unsigned long long)(next() % 100000));
        json_object_set_new(big, k, json_real((double)i / 7.0));
    }
    same_json(big);
    json_decref(big);
}

/* The text of json with member key of object obj taken out, by the
 * member's span and a comma beside it, is the text written without it. */
static void same_without(json_t *json, json_t *obj, const char *key)
{
    json_t *value = json_object_get(obj, key);
    assert_non_null(value);
    size_t len, from, to;
    char *whole = sb_canonical_json_member(json, value, &len, &from, &to);
    assert_non_null(whole);
    assert_true(from < to && to <= len);
    char *plain = sb_canonical_json(json, NULL);
    assert_string_equal(whole, plain);
    free(plain);
    if (from > 0 && whole[from - 1] == ',')
        from--;
    else if (whole[to] == ',')
        to++;
    char *cut = malloc(len + 1);
    memcpy(cut, whole, from);
    memcpy(cut + from, whole + to, len - to + 1);
    json_incref(value);
    json_object_del(obj, key);
    char *expect = sb_canonical_json(json, NULL);
    assert_string_equal(cut, expect);
    json_object_set_new(obj, key, value);
    free(expect);
    free(cut);
    free(whole);
}

static void test_member_spans(void **state)
{
    (void)state;
    json_error_t je;
    /* samples first, between, last and alone in timing; a member of the
     * same name and value elsewhere is not the one asked for */
    static const char *const docs[] = {
        "{\"timing\":{\"samples\":[[1.5,2.5]],\"unit\":\"ms\"},\"z\":1}",
        "{\"timing\":{\"a\":0,\"samples\":[[1.5],[2.25]],\"unit\":\"ms\"}}",
        "{\"a\":{\"samples\":[[1.5,2.5]]},\"timing\":{\"a\":[],\"samples\":[[1.5,2.5]]}}",
        "{\"timing\":{\"samples\":[[0.125]]}}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
        json_t *j = json_loads(docs[i], 0, &je);
        if (!j)
            fail_msg("%s: %s", docs[i], je.text);
        json_t *timing = json_object_get(j, "timing");
        same_without(j, timing, "samples");
        same_without(j, j, "timing");
        json_decref(j);
    }
    /* A value that is no member's: no span. */
    json_t *j = json_loads("{\"a\":[1.5]}", 0, &je), *other = json_array();
    size_t len, from = 7, to = 7;
    char *text = sb_canonical_json_member(j, other, &len, &from, &to);
    assert_string_equal(text, "{\"a\":[1.5]}");
    assert_int_equal(from, 0);
    assert_int_equal(to, 0);
    free(text);
    json_decref(other);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reals_at_the_edges),
        cmocka_unit_test(test_random_reals),
        cmocka_unit_test(test_documents),
        cmocka_unit_test(test_member_spans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_json_fast.c - the fast loader gives what the strict loader gives:
 * the same tree (values, types, key order) for every document it takes,
 * and for everything else the strict loader's own refusal, message and
 * all. Fixed cases for each edge of the subset, then random documents and
 * random corruptions of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json_fast.h"
#include "json_file.h"

/* a and b dump to the same text (key order kept), else the test fails
 * naming the document and the loader that made b. */
static void same_tree(const json_t *a, const json_t *b, const char *b_loader, const char *buf,
                      size_t len)
{
    size_t flags = JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY;
    char *da = json_dumps(a, flags), *db = json_dumps(b, flags);
    if (strcmp(da, db) != 0)
        fail_msg("trees differ on %.*s:\nstrict %s\n%-6s %s", (int)len, buf, da, b_loader, db);
    free(da);
    free(db);
}

/* Both loaders on the same bytes: same verdict, same tree or same error. */
static void same(const char *buf, size_t len)
{
    json_t *a = NULL, *b = NULL;
    sb_error ea, eb;
    sb_error_clear(&ea);
    sb_error_clear(&eb);
    int ra = sb_json_load_buffer(buf, len, "doc.json", &a, &ea);
    int rb = sb_json_fast_load_buffer(buf, len, "doc.json", &b, &eb);
    if (ra != rb)
        fail_msg("strict %d, fast %d on %.*s", ra, rb, (int)len, buf);
    if (ra == SB_OK) {
        same_tree(a, b, "fast", buf, len);
    } else {
        assert_string_equal(ea.file, eb.file);
        assert_string_equal(ea.where, eb.where);
        assert_string_equal(ea.msg, eb.msg);
    }
    /* Through a pool of reals, twice: the second load reuses the first's. */
    sb_json_fast_reals pool = {0};
    for (int k = 0; k < 2; k++) {
        json_t *c = NULL;
        sb_error ec;
        sb_error_clear(&ec);
        int rc = sb_json_fast_load_reusing(buf, len, "doc.json", &pool, &c, &ec);
        if (rc != ra)
            fail_msg("strict %d, fast with a pool %d on %.*s", ra, rc, (int)len, buf);
        if (ra == SB_OK) {
            same_tree(a, c, "pooled", buf, len);
        } else {
            assert_string_equal(ea.msg, ec.msg);
        }
        json_decref(c);
    }
    sb_json_fast_reals_free(&pool);
    json_decref(a);
    json_decref(b);
}

static void same_str(const char *s)
{
    same(s, strlen(s));
}

static void test_edges(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "{}", "[]", " \t\r\n{ } ", "{\"a\":1}", "[1,2.5,-3,-0,-0.0,0.0,1e5,1E-5,2e+3,0.1]",
        "[true,false,null]", "{\"a\":{\"b\":[{\"c\":\"d\"}]}}", "{\"b\":1,\"a\":2,\"c\":3}",
        "[123456789012345678]", "[1234567890123456789]", "[9223372036854775807]",
        "[9223372036854775808]", "[-9223372036854775809]", "[0.30000000000000004]",
        "[1.7976931348623157e308]", "[1e309]", "[-1e309]", "[4.9e-324]", "[1e-400]",
        "[12345678901234567890.5]", "[1.00000000000000000000001]", "[0.000000000000000000001]",
        "[9007199254740993]", "[9007199254740993.0]", "[1e22]", "[1e23]", "[123e-22]",
        "[01]", "[-]", "[1.]", "[.5]", "[1e]", "[1e+]", "[+1]", "[-01]", "[1.5x]", "[1 2]",
        "[1,]", "{\"a\":1,}", "{\"a\"}", "{\"a\" 1}", "{1:2}", "[\"a\\nb\"]", "[\"\\u00e9\"]",
        "[\"\xc3\xa9\"]", "[\"\xff\"]", "[\"tab\there\"]", "[\"del\x7f\"]", "[\"a\\\"b\"]",
        "{\"a\":1,\"a\":2}", "{\"a\":{\"x\":1},\"b\":{\"x\":2}}", "[NaN]", "[Infinity]", "[-Infinity]",
        "", "   ", "3", "\"s\"", "null", "{} {}", "{}x", "[tru]", "[nul]", "[falsey]",
        "[\"unterminated", "{\"a\":", "[[[[[[[[[[]]]]]]]]]]", "[1e99999]", "[-0e0]",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        same_str(cases[i]);
    same("[1,\0 2]", 7);
    /* Nesting around the strict loader's limit. */
    char deep[300];
    for (int depth = 55; depth <= 70; depth++) {
        size_t n = 0;
        for (int i = 0; i < depth; i++)
            deep[n++] = '[';
        for (int i = 0; i < depth; i++)
            deep[n++] = ']';
        same(deep, n);
    }
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void gen_number(char *buf, size_t *n, size_t cap)
{
    switch (next() % 5) {
    case 0:
        *n += (size_t)snprintf(buf + *n, cap - *n, "%lld", (long long)(next() >> (next() % 64)) * (next() % 2 ? 1 : -1));
        break;
    case 1:
        *n += (size_t)snprintf(buf + *n, cap - *n, "%.6f", (double)(next() % 100000000) / 1e3);
        break;
    case 2: {
        double d;
        uint64_t u = next();
        memcpy(&d, &u, sizeof d);
        if (d != d || d - d != 0)
            d = 1.5;
        *n += (size_t)snprintf(buf + *n, cap - *n, "%.*g", (int)(next() % 18) + 1, d);
        break;
    }
    case 3:
        *n += (size_t)snprintf(buf + *n, cap - *n, "%llue%d", (unsigned long long)(next() % 1000000),
                               (int)(next() % 80) - 40);
        break;
    default:
        *n += (size_t)snprintf(buf + *n, cap - *n, "0.%0*llu", (int)(next() % 25) + 1,
                               (unsigned long long)(next() % 1000));
    }
}

static void gen_value(char *buf, size_t *n, size_t cap, int depth)
{
    if (*n + 200 > cap)
        depth = 99;
    unsigned pick = depth > 5 ? (unsigned)(next() % 4) : (unsigned)(next() % 6);
    static const char *const words[] = {"true", "false", "null", "\"cuda-event\"", "\"h100\"",
                                        "\"a/b~c\"", "\"\""};
    switch (pick) {
    case 0:
    case 1:
        gen_number(buf, n, cap);
        break;
    case 2:
    case 3: {
        const char *w = words[next() % 7];
        *n += (size_t)snprintf(buf + *n, cap - *n, "%s", w);
        break;
    }
    case 4: {
        int k = (int)(next() % 6);
        buf[(*n)++] = '[';
        for (int i = 0; i < k; i++) {
            if (i)
                buf[(*n)++] = ',';
            gen_value(buf, n, cap, depth + 1);
        }
        buf[(*n)++] = ']';
        break;
    }
    default: {
        int k = (int)(next() % 6);
        buf[(*n)++] = '{';
        for (int i = 0; i < k; i++) {
            if (i)
                buf[(*n)++] = ',';
            *n += (size_t)snprintf(buf + *n, cap - *n, "%s\"k%d\" : ", next() % 4 ? "" : " ",
                                   (int)(next() % 8));
            gen_value(buf, n, cap, depth + 1);
        }
        buf[(*n)++] = '}';
    }
    }
}

static char *dump(const json_t *j)
{
    return json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
}

/* A pooled real is reused only once no tree holds it: a tree kept while
 * the next document loads keeps its values, and a real taken out of a
 * tree keeps its value after the tree is gone. */
static void test_reals_pool(void **state)
{
    (void)state;
    static const char x[] = "{\"s\":[0.5,1.5,2.5],\"n\":3}";
    static const char y[] = "{\"s\":[10.25,20.25,30.25,40.25],\"t\":[7.5]}";
    sb_json_fast_reals pool = {0};
    json_t *tx, *ty, *tz;
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sb_json_fast_load_reusing(x, strlen(x), "x.json", &pool, &tx, &e), SB_OK);
    assert_int_equal(pool.n, 3);
    /* x is still held: y gets five new reals, pooled beside x's. */
    assert_int_equal(sb_json_fast_load_reusing(y, strlen(y), "y.json", &pool, &ty, &e), SB_OK);
    assert_int_equal(pool.n, 8);
    char *dx = dump(tx), *dy = dump(ty);
    assert_string_equal(dx, x);
    assert_string_equal(dy, y);
    free(dx);
    free(dy);
    json_t *kept = json_incref(json_array_get(json_object_get(tx, "s"), 1));
    json_decref(tx);
    json_decref(ty);
    /* All but the real held outside a tree are free: y reuses them. */
    assert_int_equal(sb_json_fast_load_reusing(y, strlen(y), "y.json", &pool, &tz, &e), SB_OK);
    assert_int_equal(pool.n, 8);
    dy = dump(tz);
    assert_string_equal(dy, y);
    free(dy);
    assert_true(json_real_value(kept) == 1.5);
    json_decref(kept);
    json_decref(tz);
    sb_json_fast_reals_free(&pool);
    assert_int_equal(pool.n, 0);
}

static void test_random_documents(void **state)
{
    (void)state;
    static char buf[1 << 16];
    static const char junk[] = "{}[],:\"\\ 0-.eE+x\xc3\n";
    for (int round = 0; round < 20000; round++) {
        size_t n = 0;
        buf[n++] = next() % 2 ? '{' : '[';
        buf[n++] = buf[0] == '{' ? '}' : ']';
        if (buf[0] == '{') {
            n = 0;
            buf[n++] = '{';
            int k = (int)(next() % 8);
            for (int i = 0; i < k; i++) {
                if (i)
                    buf[n++] = ',';
                n += (size_t)snprintf(buf + n, sizeof buf - n, "\"f%d\":", (int)(next() % 10));
                gen_value(buf, &n, sizeof buf, 1);
            }
            buf[n++] = '}';
        } else {
            n = 1;
            gen_value(buf, &n, sizeof buf, 1);
            buf[n++] = ']';
        }
        same(buf, n);
        /* The same document with one byte changed, dropped or cut short. */
        size_t at = (size_t)(next() % n);
        switch (next() % 3) {
        case 0:
            buf[at] = junk[next() % (sizeof junk - 1)];
            same(buf, n);
            break;
        case 1:
            memmove(buf + at, buf + at + 1, n - at - 1);
            same(buf, n - 1);
            break;
        default:
            same(buf, at);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_reals_pool),
        cmocka_unit_test(test_random_documents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

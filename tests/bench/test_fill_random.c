/* test_fill_random.c - sb_fill_random: the values do not depend on how the
 * buffer is split over threads (each element is the one a single
 * sequential splitmix64 stream gives), seeds and streams differ, every
 * value lies in [lo, hi) rounded to the dtype, and sb_random_value gives
 * any one element without the buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "op.h"

/* The generator written out once more, sequentially, as the reference. */
static void fill_sequential(void *buf, size_t n, sb_dtype d, double lo, double hi, uint64_t seed, uint64_t stream)
{
    uint64_t s = seed ^ (stream * 0xd1b54a32d192ed03ull + 0x2545f4914f6cdd1dull);
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        sb_store_elem(buf, i, d, lo + (hi - lo) * ((double)(z >> 11) * 0x1.0p-53));
    }
}

static void check_same(sb_dtype d, size_t n)
{
    size_t es = sb_dtype_size(d);
    unsigned char *a = malloc(n * es), *b = malloc(n * es);
    assert_non_null(a);
    assert_non_null(b);
    sb_fill_random(a, n, d, -2.0, 3.0, 42, 7);
    fill_sequential(b, n, d, -2.0, 3.0, 42, 7);
    assert_memory_equal(a, b, n * es);
    for (size_t i = 0; i < n; i += n / 1000 + 1) {
        double v = sb_load_elem(a, i, d);
        assert_true(v >= -2.0 && v <= 3.0);
    }
    free(a);
    free(b);
}

/* Sizes around the threading threshold (2^21 elements a thread) and one
 * that does not divide evenly. */
static void test_split_matches_sequential(void **state)
{
    (void)state;
    check_same(SB_DTYPE_FP32, 1000);
    check_same(SB_DTYPE_BF16, (size_t)1 << 21);
    check_same(SB_DTYPE_FP32, ((size_t)1 << 23) + 12345);
    check_same(SB_DTYPE_FP16, ((size_t)5 << 21) + 3);
}

static void test_seeds_and_streams_differ(void **state)
{
    (void)state;
    size_t n = (size_t)1 << 22;
    float *a = malloc(n * 4), *b = malloc(n * 4);
    assert_non_null(a);
    assert_non_null(b);
    sb_fill_random(a, n, SB_DTYPE_FP32, -1.0, 1.0, 42, 1);
    sb_fill_random(b, n, SB_DTYPE_FP32, -1.0, 1.0, 43, 1);
    assert_true(memcmp(a, b, n * 4) != 0);
    sb_fill_random(b, n, SB_DTYPE_FP32, -1.0, 1.0, 42, 2);
    assert_true(memcmp(a, b, n * 4) != 0);
    sb_fill_random(b, n, SB_DTYPE_FP32, -1.0, 1.0, 42, 1);
    assert_memory_equal(a, b, n * 4);
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++)
        zeros += a[i] == 0.0f;
    assert_true(zeros < n / 1000);
    free(a);
    free(b);
}

/* sb_random_value(i) is element i of the filled buffer, read back: the
 * float64 reference of an input made on the device uses it. */
static void test_value_matches_buffer(void **state)
{
    (void)state;
    const sb_dtype types[] = {SB_DTYPE_FP32, SB_DTYPE_FP16, SB_DTYPE_BF16, SB_DTYPE_FP64};
    size_t n = ((size_t)3 << 20) + 17;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        sb_dtype d = types[t];
        unsigned char *a = malloc(n * sb_dtype_size(d));
        assert_non_null(a);
        sb_fill_random(a, n, d, -4.0, 4.0, 7, 3001);
        for (size_t i = 0; i < n; i += 997)
            assert_true(sb_random_value(i, d, -4.0, 4.0, 7, 3001) == sb_load_elem(a, i, d));
        assert_true(sb_random_value(n - 1, d, -4.0, 4.0, 7, 3001) == sb_load_elem(a, n - 1, d));
        assert_true(sb_random_value(5, d, -4.0, 4.0, 7, 3002) != sb_load_elem(a, 5, d));
        free(a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_matches_sequential),
        cmocka_unit_test(test_seeds_and_streams_differ),
        cmocka_unit_test(test_value_matches_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_output_scan.c - the host side of bench/output_scan.h, which is the
 * definition the device scan must agree with (tests/bench/
 * test_device_data.c checks that on a GPU): poison and non-finite counts,
 * row padding left out, and a checksum that any one changed element
 * alters, that does not depend on the order of the elements' terms, and
 * that numbers outputs apart by their index base. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "op.h"
#include "output_scan.h"

static void test_counts_poison_and_nonfinite(void **state)
{
    (void)state;
    float v[12];
    sb_fill_random(v, 12, SB_DTYPE_FP32, -1.0, 1.0, 1, 1);
    memset(&v[3], 0xff, sizeof v[3]); /* poison (a NaN pattern, counted once, as poison) */
    v[5] = INFINITY;
    v[7] = NAN;
    sb_output_scan s;
    sb_output_scan_host(v, 3, 4, 4, SB_DTYPE_FP32, 0, &s);
    assert_int_equal(s.poison, 1);
    assert_int_equal(s.nonfinite, 2);
    uint16_t h[4] = {0x3c00, 0xffff, 0x7c00, 0x0001}; /* fp16: 1, poison, inf, subnormal */
    sb_output_scan_host(h, 1, 4, 4, SB_DTYPE_FP16, 0, &s);
    assert_int_equal(s.poison, 1);
    assert_int_equal(s.nonfinite, 1);
    uint16_t b[3] = {0x3f80, 0x7f80, 0x7fc1}; /* bf16: 1, inf, nan */
    sb_output_scan_host(b, 1, 3, 3, SB_DTYPE_BF16, 0, &s);
    assert_int_equal(s.poison, 0);
    assert_int_equal(s.nonfinite, 2);
}

/* The checksum is the documented sum over elements, whatever the order. */
static void test_checksum_definition(void **state)
{
    (void)state;
    enum { R = 5, C = 7 };
    uint16_t x[R * C];
    sb_fill_random(x, R * C, SB_DTYPE_BF16, -2.0, 2.0, 3, 4);
    uint64_t want = 0;
    for (int i = R * C - 1; i >= 0; i--) /* backwards: the order must not matter */
        want += sb_mix64((uint64_t)x[i] ^ sb_mix64((uint64_t)i + 0x6a09e667f3bcc909ull));
    sb_output_scan s;
    sb_output_scan_host(x, R, C, C, SB_DTYPE_BF16, 0, &s);
    assert_true(s.checksum == want);
    /* another index base (another output of the case): another sum */
    sb_output_scan t;
    sb_output_scan_host(x, R, C, C, SB_DTYPE_BF16, (uint64_t)1 << 56, &t);
    assert_true(t.checksum != s.checksum);
}

/* Any one element changed, in any bit, changes the checksum; padding
 * between rows (ld > cols) does not count. */
static void test_one_change_always_shows(void **state)
{
    (void)state;
    enum { R = 4, C = 6, LD = 8 };
    float x[R * LD];
    sb_fill_random(x, R * LD, SB_DTYPE_FP32, -1.0, 1.0, 9, 9);
    sb_output_scan base;
    sb_output_scan_host(x, R, C, LD, SB_DTYPE_FP32, 0, &base);
    for (int r = 0; r < R; r++)
        for (int j = 0; j < LD; j++)
            for (int bit = 0; bit < 32; bit += 7) {
                float y[R * LD];
                memcpy(y, x, sizeof y);
                uint32_t u;
                memcpy(&u, &y[r * LD + j], 4);
                u ^= 1u << bit;
                memcpy(&y[r * LD + j], &u, 4);
                sb_output_scan s;
                sb_output_scan_host(y, R, C, LD, SB_DTYPE_FP32, 0, &s);
                if (j < C)
                    assert_true(s.checksum != base.checksum);
                else
                    assert_true(s.checksum == base.checksum);
            }
    /* two equal elements swapped between positions do show */
    float y[R * LD];
    memcpy(y, x, sizeof y);
    y[0] = x[1];
    y[1] = x[0];
    sb_output_scan s;
    sb_output_scan_host(y, R, C, LD, SB_DTYPE_FP32, 0, &s);
    assert_true(s.checksum != base.checksum);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_poison_and_nonfinite),
        cmocka_unit_test(test_checksum_definition),
        cmocka_unit_test(test_one_change_always_shows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

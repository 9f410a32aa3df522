/* test_dtype_convert.c - the fp16 and bf16 conversions of
 * bench/kernels/sbk_types.c, which solbench's host side (bench/dtype.c)
 * uses too: all 65536 bit patterns of each type decode to the value the
 * format defines (worked out here in double, from sign, exponent and
 * mantissa) and encode back to themselves; every float halfway between two
 * neighbouring values rounds to the even one, and the floats next to it to
 * the nearer one; NaN stays NaN (quiet, sign kept), overflow goes to
 * infinity, and dtype.c's element load and store give the same bits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/sbk_types.h"
#include "op.h"

/* The value of an fp16 pattern: 1 sign, 5 exponent, 10 mantissa bits. */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* The value of a bf16 pattern: 1 sign, 8 exponent, 7 mantissa bits. */
static double bf16_value(uint16_t b)
{
    int e = (b >> 7) & 0xff, m = b & 0x7f;
    double v = e == 0 ? ldexp(m, -133) : e == 255 ? (m ? NAN : INFINITY) : ldexp(128 + m, e - 134);
    return (b & 0x8000) ? -v : v;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

typedef struct fmt {
    float (*decode)(uint16_t);
    uint16_t (*encode)(float);
    double (*value)(uint16_t);
    uint16_t max_finite, quiet_bit;
    sb_dtype dtype;
} fmt;

static const fmt half = {sbk_half_to_float, sbk_float_to_half, half_value, 0x7bff, 0x200, SB_DTYPE_FP16};
static const fmt bf16 = {sbk_bf16_to_float, sbk_float_to_bf16, bf16_value, 0x7f7f, 0x40, SB_DTYPE_BF16};

static void every_pattern(const fmt *t)
{
    for (uint32_t p = 0; p < 65536; p++) {
        uint16_t h = (uint16_t)p;
        float x = t->decode(h);
        double want = t->value(h);
        uint16_t back = t->encode(x);
        double loaded = sb_load_elem(&h, 0, t->dtype);
        uint16_t stored = 0;
        sb_store_elem(&stored, 0, t->dtype, loaded);
        if (isnan(want)) {
            if (!isnan(x) || !isnan(loaded))
                fail_msg("pattern 0x%04x: NaN decoded as %g", p, (double)x);
            /* NaN stays NaN: quiet, with its sign */
            if (!isnan(t->value(back)) || !(back & t->quiet_bit) || (back & 0x8000) != (h & 0x8000) ||
                stored != back)
                fail_msg("pattern 0x%04x: NaN encoded as 0x%04x (stored 0x%04x)", p, back, stored);
            continue;
        }
        if ((double)x != want || !signbit(x) != !signbit(want))
            fail_msg("pattern 0x%04x: decoded %.17g, want %.17g", p, (double)x, want);
        if (back != h || stored != h || loaded != want)
            fail_msg("pattern 0x%04x: encoded back as 0x%04x, stored as 0x%04x", p, back, stored);
    }
}

/* Between every two neighbouring finite values (and between the largest
 * and the next power, where infinity takes over), of both signs. */
static void every_tie(const fmt *t)
{
    for (uint32_t p = 0; p <= t->max_finite; p++) {
        uint16_t lo = (uint16_t)p, hi = (uint16_t)(p + 1);
        double a = t->value(lo);
        double b = p == t->max_finite ? 2 * a - t->value((uint16_t)(p - 1)) : t->value(hi);
        float mid = (float)((a + b) / 2);
        assert_true((double)mid == (a + b) / 2); /* the tie is a float */
        uint16_t even = (lo & 1) ? hi : lo;
        float below = nextafterf(mid, 0.0f), above = nextafterf(mid, INFINITY);
        const float in[] = {mid, below, above, (float)a};
        const uint16_t want[] = {even, lo, hi, lo};
        for (int k = 0; k < 4; k++) {
            uint16_t got = t->encode(in[k]), neg = t->encode(-in[k]);
            if (got != want[k] || neg != (uint16_t)(want[k] | 0x8000))
                fail_msg("%.17g (float 0x%08x): 0x%04x and -: 0x%04x, want 0x%04x", (double)in[k], bits(in[k]),
                         got, neg, want[k]);
        }
    }
}

static void test_half_patterns(void **state)
{
    (void)state;
    every_pattern(&half);
}

static void test_bf16_patterns(void **state)
{
    (void)state;
    every_pattern(&bf16);
}

static void test_half_rounding(void **state)
{
    (void)state;
    every_tie(&half);
    /* the edges by name */
    assert_int_equal(sbk_float_to_half(65504.0f), 0x7bff);
    assert_int_equal(sbk_float_to_half(65519.99f), 0x7bff);
    assert_int_equal(sbk_float_to_half(65520.0f), 0x7c00);
    assert_int_equal(sbk_float_to_half(1e30f), 0x7c00);
    assert_int_equal(sbk_float_to_half(-INFINITY), 0xfc00);
    assert_int_equal(sbk_float_to_half(0x1p-25f), 0x0000);          /* tie between 0 and 2^-24: 0 */
    assert_int_equal(sbk_float_to_half(0x1.000002p-25f), 0x0001);
    assert_int_equal(sbk_float_to_half(0x1.8p-24f), 0x0002);        /* 1.5 steps: up to even */
    assert_int_equal(sbk_float_to_half(1e-30f), 0x0000);
    assert_int_equal(sbk_float_to_half(-0.0f), 0x8000);
    assert_int_equal(sbk_float_to_half(1.0f + 0x1p-11f), 0x3c00);   /* tie: down to even */
    assert_int_equal(sbk_float_to_half(1.0f + 0x3p-11f), 0x3c02);   /* tie: up to even */
    assert_int_equal(sbk_float_to_half(from_bits(0x7f800001u)), 0x7e00); /* signalling NaN: quiet */
    assert_int_equal(sbk_float_to_half(from_bits(0xffc00000u)), 0xfe00);
}

static void test_bf16_rounding(void **state)
{
    (void)state;
    every_tie(&bf16);
    assert_int_equal(sbk_float_to_bf16(1.0f), 0x3f80);
    assert_int_equal(sbk_float_to_bf16(1.0f + 0x1p-8f), 0x3f80);    /* tie: down to even */
    assert_int_equal(sbk_float_to_bf16(1.0f + 0x3p-8f), 0x3f82);    /* tie: up to even */
    assert_int_equal(sbk_float_to_bf16(from_bits(0x7f7f8000u)), 0x7f80); /* past the largest: inf */
    assert_int_equal(sbk_float_to_bf16(from_bits(0x7f7f7fffu)), 0x7f7f);
    assert_int_equal(sbk_float_to_bf16(from_bits(0x00008000u)), 0x0000); /* subnormal tie: even */
    assert_int_equal(sbk_float_to_bf16(from_bits(0x00018000u)), 0x0002);
    assert_int_equal(sbk_float_to_bf16(from_bits(0x7f800001u)), 0x7fc0); /* signalling NaN: quiet */
    assert_int_equal(sbk_float_to_bf16(from_bits(0xff800001u)), 0xffc0);
    assert_int_equal(sbk_float_to_bf16(-INFINITY), 0xff80);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_patterns),
        cmocka_unit_test(test_bf16_patterns),
        cmocka_unit_test(test_half_rounding),
        cmocka_unit_test(test_bf16_rounding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

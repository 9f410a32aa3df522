/* dtype.c - dtype names, host conversions and the seeded input generator. */
#include "op.h"

#include <math.h>
#include <string.h>

#include "host_parallel.h"
#include "kernels/sbk_types.h"
#include "random_stream.h"

static const char *const dtype_names[SB_DTYPE_COUNT] = {
    "fp64", "fp32", "tf32", "fp16", "bf16", "fp8e4m3",
};

const char *sb_dtype_name(sb_dtype d)
{
    return (unsigned)d < SB_DTYPE_COUNT ? dtype_names[d] : "unknown";
}

int sb_dtype_parse(const char *name)
{
    for (int i = 0; i < SB_DTYPE_COUNT; i++)
        if (strcmp(name, dtype_names[i]) == 0)
            return i;
    return -1;
}

size_t sb_dtype_size(sb_dtype d)
{
    switch (d) {
    case SB_DTYPE_FP64: return 8;
    case SB_DTYPE_FP32:
    case SB_DTYPE_TF32: return 4;
    case SB_DTYPE_FP16:
    case SB_DTYPE_BF16: return 2;
    case SB_DTYPE_FP8E4M3: return 1;
    default: return 0;
    }
}

/* fp16 and bf16 convert through bench/kernels/sbk_types.c, the one
 * converter the host side and the kernels' CPU path share. */

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float sb_f32_round_tf32(float f)
{
    uint32_t x = f32_bits(f);
    if ((x & 0x7f800000u) == 0x7f800000u)
        return f;
    uint32_t rounding = 0xfffu + ((x >> 13) & 1u);
    return bits_f32((x + rounding) & 0xffffe000u);
}

/* fp8 e4m3 (OCP "fn": no infinities, 0x7f/0xff are NaN, max 448). */
static float fp8e4m3_to_f32(uint8_t b)
{
    uint32_t sign = b >> 7, exp = (b >> 3) & 0xfu, mant = b & 7u;
    float v;
    if (exp == 0xfu && mant == 7u)
        return NAN;
    if (exp == 0)
        v = ldexpf((float)mant, -9);
    else
        v = ldexpf((float)(8u + mant), (int)exp - 10);
    return sign ? -v : v;
}

static uint8_t f32_to_fp8e4m3(float f)
{
    if (isnan(f))
        return 0x7f;
    uint8_t sign = signbit(f) ? 0x80 : 0;
    double a = fabs((double)f);
    if (a >= 464.0) /* at or past the midpoint above 448 (the largest finite): saturate */
        return (uint8_t)(sign | 0x7e);
    if (a < 0x1p-6) { /* subnormal: multiples of 2^-9, ties to even */
        double q = nearbyint(a * 512.0);
        return (uint8_t)(sign | (uint8_t)q); /* q == 8 is the smallest normal's code */
    }
    int e;
    (void)frexp(a, &e); /* a = m 2^e, m in [0.5, 1): a in [2^(e-1), 2^e) */
    int E = e - 1;      /* a in [2^E, 2^(E+1)) */
    double q = nearbyint(ldexp(a, 3 - E)); /* 8 .. 16 */
    if (q >= 16.0) {
        q = 8.0;
        E++;
    }
    int code = ((E + 7) << 3) | ((int)q - 8);
    if (code > 0x7e)
        code = 0x7e;
    return (uint8_t)(sign | code);
}

double sb_load_elem(const void *buf, size_t i, sb_dtype d)
{
    switch (d) {
    case SB_DTYPE_FP64: return ((const double *)buf)[i];
    case SB_DTYPE_FP32:
    case SB_DTYPE_TF32: return ((const float *)buf)[i];
    case SB_DTYPE_FP16: return sbk_half_to_float(((const uint16_t *)buf)[i]);
    case SB_DTYPE_BF16: return sbk_bf16_to_float(((const uint16_t *)buf)[i]);
    case SB_DTYPE_FP8E4M3: return fp8e4m3_to_f32(((const uint8_t *)buf)[i]);
    default: return NAN;
    }
}

void sb_store_elem(void *buf, size_t i, sb_dtype d, double v)
{
    switch (d) {
    case SB_DTYPE_FP64: ((double *)buf)[i] = v; break;
    case SB_DTYPE_FP32: ((float *)buf)[i] = (float)v; break;
    case SB_DTYPE_TF32: ((float *)buf)[i] = sb_f32_round_tf32((float)v); break;
    case SB_DTYPE_FP16: ((uint16_t *)buf)[i] = sbk_float_to_half((float)v); break;
    case SB_DTYPE_BF16: ((uint16_t *)buf)[i] = sbk_float_to_bf16((float)v); break;
    case SB_DTYPE_FP8E4M3: ((uint8_t *)buf)[i] = f32_to_fp8e4m3((float)v); break;
    default: break;
    }
}

double sb_random_value(size_t i, sb_dtype d, double lo, double hi, uint64_t seed, uint64_t stream_id)
{
    uint64_t cell = 0;
    sb_store_elem(&cell, 0, d, lo + (hi - lo) * sb_random_u(sb_random_s0(seed, stream_id), i));
    return sb_load_elem(&cell, 0, d);
}

/* Large inputs (the memory-bound suite's go to 2^31 elements) are filled by
 * up to FILL_THREADS threads: one thread makes about 250 M elements/s, so a
 * 17 G-element quack tensor took over a minute of host time per case. */
#define FILL_THREADS 16
#define FILL_MIN_PER_THREAD ((size_t)1 << 21)

typedef struct fill_job {
    void *buf;
    size_t n;
    int parts;
    sb_dtype d;
    double lo, span;
    uint64_t s0;
} fill_job;

/* Part p of the buffer (random_stream.h: element i depends on i alone, so
 * the values do not depend on how the buffer is split). */
static void fill_part(void *arg, int p)
{
    const fill_job *j = arg;
    size_t per = j->n / (size_t)j->parts, to = p + 1 == j->parts ? j->n : per * (size_t)(p + 1);
    for (size_t i = per * (size_t)p; i < to; i++)
        sb_store_elem(j->buf, i, j->d, j->lo + j->span * sb_random_u(j->s0, i));
}

void sb_fill_random(void *buf, size_t n, sb_dtype d, double lo, double hi,
                    uint64_t seed, uint64_t stream_id)
{
    size_t t = n / FILL_MIN_PER_THREAD;
    if (t > FILL_THREADS)
        t = FILL_THREADS;
    if (t < 1)
        t = 1;
    fill_job j = {buf, n, (int)t, d, lo, hi - lo, sb_random_s0(seed, stream_id)};
    sb_host_parallel(j.parts, FILL_THREADS, fill_part, &j);
}

/* sbk_types.c - element type names and scalar conversions. */
#include "sbk_types.h"

#include <string.h>

size_t sbk_dtype_size(sbk_dtype dt)
{
    switch (dt) {
    case SBK_F32: return 4;
    case SBK_F16: return 2;
    case SBK_BF16: return 2;
    }
    return 0;
}

const char *sbk_dtype_name(sbk_dtype dt)
{
    switch (dt) {
    case SBK_F32: return "fp32";
    case SBK_F16: return "fp16";
    case SBK_BF16: return "bf16";
    }
    return NULL;
}

int sbk_dtype_parse(const char *name, sbk_dtype *out)
{
    static const sbk_dtype all[] = {SBK_F32, SBK_F16, SBK_BF16};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (name && strcmp(name, sbk_dtype_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    }
    return -1;
}

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

float sbk_bf16_to_float(uint16_t b) { return u2f((uint32_t)b << 16); }

uint16_t sbk_float_to_bf16(float f)
{
    uint32_t u = f2u(f);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu))
        return (uint16_t)((u >> 16) | 0x0040u); /* quiet NaN, sign kept */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float sbk_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) return u2f(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        if (man == 0) return u2f(sign);
        /* subnormal: man * 2^-24 */
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return u2f(sign | ((exp + 112u) << 23) | (man << 13));
}

uint16_t sbk_float_to_half(float f)
{
    uint32_t u = f2u(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    if (abs >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return (uint16_t)(sign | 0x7c00u);
    if (abs < 0x38800000u) { /* below 2^-14: subnormal or zero */
        if (abs < 0x33000000u) return sign; /* below half of 2^-24 */
        uint32_t e = abs >> 23;
        uint32_t m = (abs & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; /* 14..24 (+ 13 mantissa drop) */
        uint32_t total = shift; /* m >> total gives units of 2^-24 */
        uint32_t r = m >> total;
        uint32_t rem = m & ((1u << total) - 1u);
        uint32_t half = 1u << (total - 1u);
        if (rem > half || (rem == half && (r & 1u))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = abs + 0xfffu + ((abs >> 13) & 1u);
    r -= 0x38000000u; /* rebias exponent 127 -> 15 */
    return (uint16_t)(sign | (r >> 13));
}

float sbk_load(const void *p, sbk_dtype dt, size_t i)
{
    switch (dt) {
    case SBK_F32: return ((const float *)p)[i];
    case SBK_F16: return sbk_half_to_float(((const uint16_t *)p)[i]);
    case SBK_BF16: return sbk_bf16_to_float(((const uint16_t *)p)[i]);
    }
    return 0.0f;
}

void sbk_store(void *p, sbk_dtype dt, size_t i, float v)
{
    switch (dt) {
    case SBK_F32: ((float *)p)[i] = v; break;
    case SBK_F16: ((uint16_t *)p)[i] = sbk_float_to_half(v); break;
    case SBK_BF16: ((uint16_t *)p)[i] = sbk_float_to_bf16(v); break;
    }
}

/* content_key.c - a digest's runs.content_key (content_key.h). */
#include "content_key.h"

#include <stdint.h>

/* The digits of the first 16 characters of text, then fill for each place
 * past its end, as an unsigned number. */
static uint64_t digits(const char *text, unsigned fill)
{
    uint64_t u = 0;
    const unsigned char *p = (const unsigned char *)text;
    for (int place = 0; place < 16; place++) {
        unsigned d = fill;
        if (*p) {
            if (*p >= '0' && *p <= '9')
                d = *p - '0';
            else if (*p >= 'a' && *p <= 'f')
                d = *p - 'a' + 10;
            else
                d = 0;
            /* the rest of a UTF-8 character is no place of its own */
            p++;
            while ((*p & 0xC0) == 0x80)
                p++;
        }
        u = u << 4 | d;
    }
    return u;
}

/* u - 2^63 without overflow: the top bit flipped, read as signed. */
static long long shifted(uint64_t u)
{
    u ^= UINT64_C(1) << 63;
    return u > INT64_MAX ? -(long long)(~u) - 1 : (long long)u;
}

long long sb_content_key(const char *hex)
{
    return shifted(digits(hex, 0));
}

void sb_content_key_range(const char *prefix, long long *lo, long long *hi)
{
    *lo = shifted(digits(prefix, 0));
    *hi = shifted(digits(prefix, 15));
}

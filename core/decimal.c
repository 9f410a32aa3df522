/* decimal.c - exact reading of printed numbers at another scale (decimal.h). */
#include "decimal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int sb_decimal_scaled(const char *text, int shift, double *out, int *decimals)
{
    size_t mant = 0;
    int dots = 0, digits = 0, after = 0;
    for (; text[mant] && text[mant] != 'e' && text[mant] != 'E'; mant++) {
        if (text[mant] == '.') {
            dots++;
        } else if (isdigit((unsigned char)text[mant])) {
            digits++;
            after += dots != 0;
        } else {
            return -1;
        }
    }
    if (dots > 1 || digits == 0 || mant > 400)
        return -1;
    long ex = 0;
    if (text[mant]) {
        const char *e = text + mant + 1;
        if (!(isdigit((unsigned char)*e) || ((*e == '+' || *e == '-') && isdigit((unsigned char)e[1]))))
            return -1;
        char *end;
        errno = 0;
        ex = strtol(e, &end, 10);
        /* a bound far past any double keeps ex + shift from overflowing */
        if (*end || errno == ERANGE || ex > 100000 || ex < -100000)
            return -1;
    }
    char buf[440];
    snprintf(buf, sizeof buf, "%.*se%ld", (int)mant, text, ex + shift);
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || (errno == ERANGE && v != 0) || !isfinite(v))
        return -1;
    *out = v;
    if (decimals)
        *decimals = after;
    return 0;
}

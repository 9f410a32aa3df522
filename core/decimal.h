/* decimal.h - a number as a tool printed it, read exactly at another
 * scale (20012.1 ns as the double nearest 0.0200121 ms, which
 * 20012.1 / 1e6 is not). */
#ifndef SOLBOOK_CORE_DECIMAL_H
#define SOLBOOK_CORE_DECIMAL_H

/* text: digits with at most one '.', at least one digit, an optional
 * exponent (e or E, an optional sign, digits), nothing else; no sign.
 * *out: that number times 10^shift, the decimal exponent moved before
 * strtod rounds; *decimals (when not NULL): the digits written after the
 * point. 0, or -1 for any other text or a result that is not finite. */
int sb_decimal_scaled(const char *text, int shift, double *out, int *decimals);

#endif

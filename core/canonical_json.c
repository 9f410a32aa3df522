/* canonical_json.c - json_dumps(SORT_KEYS | COMPACT | REAL_PRECISION(17)),
 * byte for byte, without printf for the common reals. */
#include "canonical_json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

typedef unsigned __int128 u128;

/* ---- numbers ---- */

static const char DIGIT_PAIRS[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Decimal digits of v into buf (no NUL); returns the count. Two digits a
 * division: every real of a document goes through here with 17 digits. */
static size_t utoa(unsigned long long v, char *buf)
{
    char tmp[24];
    size_t n = sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        n -= 2;
        memcpy(tmp + n, DIGIT_PAIRS + 2 * r, 2);
    }
    if (v >= 10) {
        n -= 2;
        memcpy(tmp + n, DIGIT_PAIRS + 2 * v, 2);
    } else {
        tmp[--n] = (char)('0' + v);
    }
    memcpy(buf, tmp + n, sizeof tmp - n);
    return sizeof tmp - n;
}

/* Eight digits of x (< 10^8) into buf, in independent 32-bit steps. */
static void eight_digits(unsigned x, char *buf)
{
    unsigned hi = x / 10000, lo = x % 10000;
    memcpy(buf, DIGIT_PAIRS + 2 * (hi / 100), 2);
    memcpy(buf + 2, DIGIT_PAIRS + 2 * (hi % 100), 2);
    memcpy(buf + 4, DIGIT_PAIRS + 2 * (lo / 100), 2);
    memcpy(buf + 6, DIGIT_PAIRS + 2 * (lo % 100), 2);
}

/* The 17 digits of n in [10^16, 10^17), every real's significand. */
static void digits17_text(unsigned long long n, char *buf)
{
    unsigned long long hi = n / 100000000ull; /* 9 digits */
    buf[0] = (char)('0' + hi / 100000000ull);
    eight_digits((unsigned)(hi % 100000000ull), buf + 1);
    eight_digits((unsigned)(n % 100000000ull), buf + 9);
}

static const unsigned long long POW10[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull};

/* 5^0 .. 5^27, the powers of five that fit 64 bits. */
static const unsigned long long POW5[28] = {
    1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull, 1953125ull,
    9765625ull, 48828125ull, 244140625ull, 1220703125ull, 6103515625ull, 30517578125ull,
    152587890625ull, 762939453125ull, 3814697265625ull, 19073486328125ull, 95367431640625ull,
    476837158203125ull, 2384185791015625ull, 11920928955078125ull, 59604644775390625ull,
    298023223876953125ull, 1490116119384765625ull, 7450580596923828125ull};

/* The 17 significant digits of m * 2^e (m < 2^53) correctly rounded (ties
 * to even, as glibc's printf in the default rounding mode), as digits *n
 * in [10^16, 10^17) and decimal exponent *x, for values in [1e-16, 1e17).
 * Returns 0 outside that range: the caller uses printf there. */
static int digits17(unsigned long long m, int e, unsigned long long *n, int *x)
{
    /* floor(log10(2^b)), b the top bit of the value, less at most 1 for
     * the rounded constant: X is this, or one or two more. */
    int b = e + 63 - __builtin_clzll(m);
    int x0 = b >= 0 ? (int)(((long long)b * 78913) >> 18) : -(int)(((long long)-b * 78913 + 262143) >> 18);
    for (int x_try = x0; x_try <= x0 + 2; x_try++) {
        int s = 16 - x_try; /* N = value * 10^s */
        if (s < 0 || s > 32)
            return 0;
        u128 five = s <= 27 ? (u128)POW5[s] : (u128)POW5[27] * POW5[s - 27];
        u128 v = (u128)m * five; /* value * 10^s = v * 2^(e + s) */
        int shift = e + s;
        u128 q, rem = 0, half = 0;
        if (shift >= 0) {
            if (shift > 60 || (v >> (127 - shift)) != 0)
                continue; /* far over 10^17: x_try too small */
            q = v << shift;
        } else {
            int k = -shift;
            if (k >= 127)
                return 0;
            q = v >> k;
            rem = v & (((u128)1 << k) - 1);
            half = (u128)1 << (k - 1);
        }
        if (q >= (u128)POW10[17]) {
            continue; /* x_try too small */
        }
        if (q < (u128)POW10[16])
            return 0; /* cannot happen for a correct estimate; leave it to printf */
        unsigned long long nn = (unsigned long long)q;
        if (rem > half || (rem == half && half && (nn & 1)))
            nn++;
        if (nn == POW10[17]) {
            nn = POW10[16];
            x_try++;
        }
        *n = nn;
        *x = x_try;
        return 1;
    }
    return 0;
}

/* jansson's form of a printf result: '.' or 'e' present (".0" added),
 * exponent without '+' or leading zeros. */
static size_t jansson_fixup(char *buf, size_t len)
{
    if (!memchr(buf, '.', len) && !memchr(buf, 'e', len)) {
        buf[len++] = '.';
        buf[len++] = '0';
        buf[len] = 0;
    }
    char *start = memchr(buf, 'e', len);
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, len - (size_t)(end - buf) + 1);
            len -= (size_t)(end - start);
        }
    }
    return len;
}

size_t sb_canonical_real(double d, char *buf)
{
    union {
        double d;
        uint64_t u;
    } bits = {d};
    int neg = (int)(bits.u >> 63);
    int bexp = (int)((bits.u >> 52) & 0x7ff);
    unsigned long long frac = bits.u & ((1ull << 52) - 1);
    unsigned long long n;
    int x;
    if (bexp == 0x7ff || (bexp == 0 && frac == 0) ||
        !digits17(bexp ? frac | (1ull << 52) : frac, bexp ? bexp - 1075 : -1074, &n, &x)) {
        int len = snprintf(buf, 32, "%.17g", d);
        return jansson_fixup(buf, (size_t)len);
    }
    char dig[17];
    digits17_text(n, dig);
    int nd = 17;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    size_t len = 0;
    if (neg)
        buf[len++] = '-';
    if (x < -4) {
        /* %e style: d.ddde-XX */
        buf[len++] = dig[0];
        if (nd > 1) {
            buf[len++] = '.';
            memcpy(buf + len, dig + 1, (size_t)nd - 1);
            len += (size_t)nd - 1;
        }
        buf[len++] = 'e';
        buf[len++] = '-';
        len += utoa((unsigned long long)-x, buf + len);
    } else if (x < 0) {
        buf[len++] = '0';
        buf[len++] = '.';
        for (int i = 0; i < -x - 1; i++)
            buf[len++] = '0';
        memcpy(buf + len, dig, (size_t)nd);
        len += (size_t)nd;
    } else {
        /* x + 1 integer digits, then the rest of the significant ones */
        memcpy(buf + len, dig, (size_t)x + 1);
        len += (size_t)x + 1;
        buf[len++] = '.';
        if (nd > x + 1) {
            memcpy(buf + len, dig + x + 1, (size_t)(nd - x - 1));
            len += (size_t)(nd - x - 1);
        } else {
            buf[len++] = '0';
        }
    }
    buf[len] = 0;
    return len;
}

/* ---- strings ---- */

static void put_string(sb_buf *o, const char *s, size_t n)
{
    sb_buf_putc(o, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        sb_buf_add(o, s + run, i - run);
        run = i + 1;
        char esc[8];
        const char *text = esc;
        size_t len = 2;
        switch (c) {
        case '\\': text = "\\\\"; break;
        case '"': text = "\\\""; break;
        case '\b': text = "\\b"; break;
        case '\f': text = "\\f"; break;
        case '\n': text = "\\n"; break;
        case '\r': text = "\\r"; break;
        case '\t': text = "\\t"; break;
        default:
            snprintf(esc, sizeof esc, "\\u%04X", (unsigned)c);
            len = 6;
        }
        sb_buf_add(o, text, len);
    }
    sb_buf_add(o, s + run, n - run);
    sb_buf_putc(o, '"');
}

/* ---- values ---- */

/* The text being written and, when asked for, where one object member
 * lies in it. */
typedef struct writer {
    sb_buf out;
    const json_t *mark;         /* the value of the member to find, or NULL */
    size_t mark_from, mark_to;  /* its member's text: key, colon and value */
    int marked;
} writer;

typedef struct key {
    const char *s;
    size_t len;
    json_t *value;
} key;

static int key_less(const key *a, const key *b)
{
    size_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->s, b->s, m);
    return c < 0 || (c == 0 && a->len < b->len);
}

static int cmp_keys(const void *a, const void *b)
{
    return key_less(a, b) ? -1 : key_less(b, a) ? 1 : 0;
}

static void put_value(writer *w, const json_t *j);

static void put_object(writer *w, const json_t *j)
{
    sb_buf *o = &w->out;
    size_t n = json_object_size(j);
    if (n == 0) {
        sb_buf_add(o, "{}", 2);
        return;
    }
    key small[32];
    key *keys = n <= 32 ? small : malloc(n * sizeof *keys);
    if (!keys) {
        o->failed = 1;
        return;
    }
    size_t i = 0;
    for (void *it = json_object_iter((json_t *)j); it && i < n;
         it = json_object_iter_next((json_t *)j, it), i++) {
        keys[i].s = json_object_iter_key(it);
        keys[i].len = json_object_iter_key_len(it);
        keys[i].value = json_object_iter_value(it);
    }
    if (n <= 32) {
        for (size_t a = 1; a < n; a++) {
            key k = keys[a];
            size_t b = a;
            for (; b > 0 && key_less(&k, &keys[b - 1]); b--)
                keys[b] = keys[b - 1];
            keys[b] = k;
        }
    } else {
        qsort(keys, n, sizeof *keys, cmp_keys);
    }
    sb_buf_putc(o, '{');
    for (i = 0; i < n; i++) {
        if (i)
            sb_buf_putc(o, ',');
        size_t from = o->len;
        put_string(o, keys[i].s, keys[i].len);
        sb_buf_putc(o, ':');
        put_value(w, keys[i].value);
        if (keys[i].value == w->mark && !w->marked) {
            w->marked = 1;
            w->mark_from = from;
            w->mark_to = o->len;
        }
    }
    sb_buf_putc(o, '}');
    if (keys != small)
        free(keys);
}

static void put_value(writer *w, const json_t *j)
{
    sb_buf *o = &w->out;
    char num[40];
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        put_object(w, j);
        break;
    case JSON_ARRAY: {
        size_t n = json_array_size(j);
        sb_buf_putc(o, '[');
        for (size_t i = 0; i < n; i++) {
            if (i)
                sb_buf_putc(o, ',');
            put_value(w, json_array_get(j, i));
        }
        sb_buf_putc(o, ']');
        break;
    }
    case JSON_STRING:
        put_string(o, json_string_value(j), json_string_length(j));
        break;
    case JSON_INTEGER: {
        json_int_t v = json_integer_value(j);
        size_t len = 0;
        unsigned long long u = (unsigned long long)v;
        if (v < 0) {
            num[len++] = '-';
            u = 0 - u;
        }
        len += utoa(u, num + len);
        sb_buf_add(o, num, len);
        break;
    }
    case JSON_REAL: {
        /* written in place: one copy less for each of a document's reals */
        char *at = sb_buf_room(o, 32);
        if (at)
            sb_buf_grew(o, sb_canonical_real(json_real_value(j), at));
        break;
    }
    case JSON_TRUE:
        sb_buf_add(o, "true", 4);
        break;
    case JSON_FALSE:
        sb_buf_add(o, "false", 5);
        break;
    case JSON_NULL:
        sb_buf_add(o, "null", 4);
        break;
    }
}

/* Writes json into w and returns the text (NULL when out of memory). */
static char *write_text(writer *w, const json_t *json, size_t *len)
{
    if (!json)
        return NULL;
    put_value(w, json);
    size_t n = w->out.len;
    char *text = sb_buf_take(&w->out); /* NULL when out of memory */
    if (text && len)
        *len = n;
    return text;
}

char *sb_canonical_json(const json_t *json, size_t *len)
{
    writer w = {SB_BUF_INIT, NULL, 0, 0, 0};
    return write_text(&w, json, len);
}

char *sb_canonical_json_member(const json_t *json, const json_t *value, size_t *len, size_t *from,
                               size_t *to)
{
    writer w = {SB_BUF_INIT, value, 0, 0, 0};
    char *text = write_text(&w, json, len);
    *from = w.marked ? w.mark_from : 0;
    *to = w.marked ? w.mark_to : 0;
    return text;
}

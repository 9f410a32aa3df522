/* json_fast.c - a direct parser for the plain subset of JSON, with the
 * strict loader behind it for everything else. */
#include "json_fast.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_file.h"

/* Deepest nesting taken here (the root is 1); deeper documents go to the
 * strict loader, which refuses those over SB_JSON_MAX_DEPTH. */
#define FAST_MAX_DEPTH (SB_JSON_MAX_DEPTH - 4)

typedef struct parser {
    const char *p, *end;
    sb_json_fast_reals *reals; /* NULL: every real is new */
} parser;

/* A real for the tree: the pool's next that no tree holds any more, its
 * value set, or a new one, which the pool keeps a reference to. */
static json_t *real_value(parser *ps, double d)
{
    sb_json_fast_reals *r = ps->reals;
    if (!r)
        return json_real(d);
    while (r->next < r->n && r->v[r->next]->refcount != 1)
        r->next++; /* still held outside the pool: passed over */
    if (r->next < r->n) {
        json_t *j = r->v[r->next++];
        json_real_set(j, d);
        return json_incref(j);
    }
    json_t *j = json_real(d);
    if (!j)
        return NULL;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        json_t **v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return j; /* not pooled */
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = json_incref(j);
    r->next = r->n;
    return j;
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* An ASCII string without escapes or control characters; *s and *n get
 * its bytes. 0: something else (left to the strict loader). */
static int parse_string(parser *ps, const char **s, size_t *n)
{
    const char *start = ++ps->p; /* past the opening quote */
    const char *p = start;
    while (p < ps->end) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *s = start;
            *n = (size_t)(p - start);
            ps->p = p + 1;
            return 1;
        }
        if (c < 0x20 || c >= 0x80 || c == '\\')
            return 0;
        p++;
    }
    return 0;
}

static const double EXACT_POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A number as jansson reads it: an integer when it has no '.', 'e' or 'E',
 * else a real, correctly rounded. */
static json_t *parse_number(parser *ps)
{
    const char *start = ps->p, *p = ps->p, *end = ps->end;
    int neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    if (p >= end || !is_digit(*p))
        return NULL;
    uint64_t mant = 0;
    int sig = 0, frac_digits = 0, int_digits = 0;
    if (*p == '0') {
        p++;
        int_digits = 1;
        if (p < end && is_digit(*p))
            return NULL; /* leading zero */
    } else {
        while (p < end && is_digit(*p)) {
            if (sig < 19)
                mant = mant * 10 + (uint64_t)(*p - '0');
            else
                return NULL;
            sig++;
            int_digits++;
            p++;
        }
    }
    int is_real = 0;
    if (p < end && *p == '.') {
        is_real = 1;
        p++;
        if (p >= end || !is_digit(*p))
            return NULL;
        while (p < end && is_digit(*p)) {
            if (mant == 0 && *p == '0') {
                frac_digits++; /* leading zeros of the fraction do not count */
            } else if (sig < 19) {
                mant = mant * 10 + (uint64_t)(*p - '0');
                sig++;
                frac_digits++;
            } else {
                return NULL;
            }
            p++;
        }
    }
    long exp10 = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        is_real = 1;
        p++;
        int eneg = 0;
        if (p < end && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            p++;
        }
        if (p >= end || !is_digit(*p))
            return NULL;
        int nd = 0;
        while (p < end && is_digit(*p)) {
            if (++nd > 4)
                return NULL;
            exp10 = exp10 * 10 + (*p - '0');
            p++;
        }
        if (eneg)
            exp10 = -exp10;
    }
    ps->p = p;
    if (!is_real) {
        if (int_digits > 18)
            return NULL;
        long long v = (long long)mant;
        return json_integer(neg ? -v : v);
    }
    long e = exp10 - frac_digits;
    double d;
    if (mant <= (1ull << 53) && e >= -22 && e <= 22) {
        /* Both exact in a double: one correctly rounded operation. */
        d = (double)mant;
        d = e < 0 ? d / EXACT_POW10[-e] : d * EXACT_POW10[e];
    } else {
        char tmp[64];
        size_t n = (size_t)(p - start);
        if (n >= sizeof tmp)
            return NULL;
        memcpy(tmp, start, n);
        tmp[n] = 0;
        d = strtod(tmp, NULL);
        if (isinf(d))
            return NULL;
        return real_value(ps, d);
    }
    return real_value(ps, neg ? -d : d);
}

static json_t *parse_value(parser *ps, int depth);

static json_t *parse_object(parser *ps, int depth)
{
    json_t *obj = json_object();
    if (!obj)
        return NULL;
    ps->p++; /* '{' */
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return obj;
    }
    for (;;) {
        const char *key;
        size_t klen;
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != '"' || !parse_string(ps, &key, &klen))
            break;
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != ':')
            break;
        ps->p++;
        json_t *v = parse_value(ps, depth);
        if (!v)
            break;
        /* A key already there is replaced, and the size stays: a
         * duplicate, which the strict loader refuses and says so. */
        size_t size = json_object_size(obj);
        if (json_object_setn_new_nocheck(obj, key, klen, v) != 0 || json_object_size(obj) == size)
            break; /* v was released, or is the object's */
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return obj;
        }
        break;
    }
    json_decref(obj);
    return NULL;
}

static json_t *parse_array(parser *ps, int depth)
{
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    ps->p++; /* '[' */
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return arr;
    }
    for (;;) {
        json_t *v = parse_value(ps, depth);
        if (!v || json_array_append_new(arr, v) != 0)
            break;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return arr;
        }
        break;
    }
    json_decref(arr);
    return NULL;
}

static int literal(parser *ps, const char *word, size_t n)
{
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return 0;
    ps->p += n;
    return 1;
}

/* depth: of the container the value is in (the root's is 0). */
static json_t *parse_value(parser *ps, int depth)
{
    skip_ws(ps);
    if (ps->p >= ps->end)
        return NULL;
    switch (*ps->p) {
    case '{':
        return depth + 1 > FAST_MAX_DEPTH ? NULL : parse_object(ps, depth + 1);
    case '[':
        return depth + 1 > FAST_MAX_DEPTH ? NULL : parse_array(ps, depth + 1);
    case '"': {
        const char *s;
        size_t n;
        return parse_string(ps, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    }
    case 't':
        return literal(ps, "true", 4) ? json_true() : NULL;
    case 'f':
        return literal(ps, "false", 5) ? json_false() : NULL;
    case 'n':
        return literal(ps, "null", 4) ? json_null() : NULL;
    default:
        return parse_number(ps);
    }
}

int sb_json_fast_load_buffer(const char *buf, size_t len, const char *name, json_t **out,
                             sb_error *err)
{
    return sb_json_fast_load_reusing(buf, len, name, NULL, out, err);
}

int sb_json_fast_load_reusing(const char *buf, size_t len, const char *name,
                              sb_json_fast_reals *reals, json_t **out, sb_error *err)
{
    if (reals)
        reals->next = 0;
    /* a text the strict loader refuses unparsed for what its tree would
     * take is refused here too, before the tree is built */
    if (sb_json_parsed_cost_check(buf, len, name, err) != SB_OK)
        return SB_ERR;
    parser ps = {buf, buf + len, reals};
    skip_ws(&ps);
    if (ps.p < ps.end && (*ps.p == '{' || *ps.p == '[')) {
        json_t *doc = parse_value(&ps, 0);
        if (doc) {
            skip_ws(&ps);
            if (ps.p == ps.end) {
                *out = doc;
                return SB_OK;
            }
            json_decref(doc);
        }
    }
    return sb_json_load_buffer(buf, len, name, out, err);
}

void sb_json_fast_reals_free(sb_json_fast_reals *r)
{
    for (size_t i = 0; i < r->n; i++)
        json_decref(r->v[i]);
    free(r->v);
    memset(r, 0, sizeof *r);
}

int sb_json_fast_load_file(const char *path, json_t **out, sb_error *err)
{
    char *buf;
    size_t len;
    *out = NULL;
    if (sb_file_read_all(path, &buf, &len, err) != SB_OK)
        return SB_ERR;
    int rc = sb_json_fast_load_buffer(buf, len, path, out, err);
    free(buf);
    return rc;
}

/* json_schema.c - JSON Schema draft-07 validation on jansson and PCRE2.
 *
 * Compilation turns every schema location reachable from the root (and from
 * $refs) into a node, memoised by the json_t it came from, so a $ref cycle
 * becomes a cycle in the node graph rather than endless compilation. Every
 * keyword value is type-checked and every regex compiled once, here.
 * Validation walks the node graph over the instance; branches of anyOf,
 * oneOf, not and if are evaluated silently and stop at their first error.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "json_schema.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "home.h"
#include "json_file.h"

/* Most $refs followed one inside another during one validation. Legitimate
 * recursion follows a few per level of the instance; the instance loader
 * caps nesting at SB_JSON_MAX_DEPTH, so this is only a backstop. */
#define MAX_REF_DEPTH 2000
/* Most schemas applied one inside another: instance depth times schema
 * nesting. Bounds the stack (a few hundred bytes per level). */
#define MAX_NESTING 4000
/* Deepest schema nesting compiled, following $refs: bounds the compiler's
 * stack on a hostile schema (a long chain of definitions). */
#define MAX_COMPILE_DEPTH 1000

enum {
    T_NULL = 1 << 0,
    T_BOOLEAN = 1 << 1,
    T_OBJECT = 1 << 2,
    T_ARRAY = 1 << 3,
    T_NUMBER = 1 << 4,
    T_STRING = 1 << 5,
    T_INTEGER = 1 << 6,
};

static const char *const TYPE_NAMES[] = {"null", "boolean", "object", "array",
                                         "number", "string", "integer"};

typedef struct node node;

typedef struct named_node {
    const char *name; /* borrowed from the schema JSON */
    node *schema;
} named_node;

typedef struct pattern_node {
    const char *source;
    pcre2_code *re;
    node *schema;
} pattern_node;

typedef struct dependency {
    const char *name;
    node *schema;             /* schema dependency, or NULL */
    const json_t *properties; /* property dependency (array of strings), or NULL */
} dependency;

typedef struct node_list {
    node **items;
    size_t count;
} node_list;

enum { NODE_TRUE, NODE_FALSE, NODE_OBJECT };

struct node {
    int kind;
    const json_t *json;
    char *where; /* schema pointer, for messages ("" is the root) */

    node *ref; /* draft-07: when $ref is present nothing else applies */
    const char *ref_text;

    unsigned types; /* 0: no type keyword */
    const json_t *enum_values;
    const json_t *const_value; /* NULL: no const */

    const json_t *minimum, *maximum, *exclusive_minimum, *exclusive_maximum;
    const json_t *multiple_of;

    long long min_length, max_length; /* -1: absent */
    const char *pattern_source;
    pcre2_code *pattern;

    named_node *properties;
    size_t n_properties;
    pattern_node *pattern_properties;
    size_t n_pattern_properties;
    node *additional_properties;
    const json_t *required;
    long long min_properties, max_properties;
    dependency *dependencies;
    size_t n_dependencies;
    node *property_names;

    node *items;           /* single-schema form */
    node_list items_tuple; /* array form */
    int items_is_tuple;
    node *additional_items;
    node *contains;
    long long min_items, max_items;
    int unique_items;

    node_list all_of, any_of, one_of;
    node *not_schema, *if_schema, *then_schema, *else_schema;

    /* A schema that is "type": "number" (or integer), with at most a
     * minimum exact in a double, and nothing else that applies to a
     * number: arrays of them (a result's samples) are checked with a
     * tight loop, and only an array with a failing item takes the general
     * path, which words the errors. */
    int plain_number;
    int plain_integer_only;
    int plain_has_min;
    double plain_min;
};

/* A schema document: the compiled one, the metaschema, or one a resolver
 * fetched. */
typedef struct document {
    char *uri;
    json_t *root;
} document;

/* An $id (or a document's own URI) and the schema it names. */
typedef struct id_entry {
    char *uri;          /* absolute, no fragment (or a #plain-name one) */
    json_t *node;       /* the schema */
    char *parent_base;  /* base URI in effect around node, before its $id */
    char *where;        /* pointer to node for messages */
} id_entry;

struct sb_schema {
    char *name;
    node *root;
    node **nodes;
    size_t n_nodes, cap_nodes;
    document *docs;
    size_t n_docs, cap_docs;
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    int n;
    char *s;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* where + "/" + escaped token, newly allocated. */
static char *pointer_join(const char *where, const char *token)
{
    size_t n = strlen(where), extra = 0;
    for (const char *t = token; *t; t++)
        extra += (*t == '~' || *t == '/') ? 2 : 1;
    char *p = malloc(n + extra + 2);
    if (!p)
        return NULL;
    memcpy(p, where, n);
    p[n++] = '/';
    for (const char *t = token; *t; t++) {
        if (*t == '~') {
            p[n++] = '~';
            p[n++] = '0';
        } else if (*t == '/') {
            p[n++] = '~';
            p[n++] = '1';
        } else {
            p[n++] = *t;
        }
    }
    p[n] = '\0';
    return p;
}

static char *pointer_join_index(const char *where, size_t i)
{
    char num[32];
    snprintf(num, sizeof num, "%zu", i);
    return pointer_join(where, num);
}

static const char *json_type_name(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    case JSON_NULL: return "null";
    }
    return "value";
}

/* ------------------------------------------------------------------ */
/* Numbers by value                                                     */

/* Sign of i - d, exact for every int64 and double. */
static int cmp_int_real(long long i, double d)
{
    if (d >= 9223372036854775808.0)
        return -1;
    if (d < -9223372036854775808.0)
        return 1;
    double t = trunc(d);
    long long ti = (long long)t;
    if (i != ti)
        return i < ti ? -1 : 1;
    double frac = d - t;
    return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

/* Sign of a - b for two JSON numbers. */
static int cmp_numbers(const json_t *a, const json_t *b)
{
    if (json_is_integer(a) && json_is_integer(b)) {
        json_int_t x = json_integer_value(a), y = json_integer_value(b);
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (json_is_integer(a))
        return cmp_int_real(json_integer_value(a), json_real_value(b));
    if (json_is_integer(b))
        return -cmp_int_real(json_integer_value(b), json_real_value(a));
    double x = json_real_value(a), y = json_real_value(b);
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* Equality by value: numbers numerically, objects regardless of key order. */
static int values_equal(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return cmp_numbers(a, b) == 0;
    if (json_typeof(a) != json_typeof(b))
        return 0;
    switch (json_typeof(a)) {
    case JSON_STRING:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    case JSON_ARRAY: {
        size_t n = json_array_size(a);
        if (n != json_array_size(b))
            return 0;
        for (size_t i = 0; i < n; i++)
            if (!values_equal(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    case JSON_OBJECT: {
        const char *k;
        json_t *v;
        if (json_object_size(a) != json_object_size(b))
            return 0;
        json_object_foreach((json_t *)a, k, v) {
            const json_t *w = json_object_get(b, k);
            if (!w || !values_equal(v, w))
                return 0;
        }
        return 1;
    }
    default:
        return 1; /* true, false, null */
    }
}

static int is_integral(const json_t *j)
{
    if (json_is_integer(j))
        return 1;
    if (json_is_real(j)) {
        double d = json_real_value(j);
        return isfinite(d) && d == trunc(d);
    }
    return 0;
}

static double number_value(const json_t *j)
{
    return json_is_integer(j) ? (double)json_integer_value(j) : json_real_value(j);
}

static int is_multiple_of(const json_t *x, const json_t *m)
{
    if (json_is_integer(x) && is_integral(m)) {
        double md = number_value(m);
        if (md < 9223372036854775808.0) {
            long long mi = json_is_integer(m) ? json_integer_value(m) : (long long)md;
            return json_integer_value(x) % mi == 0;
        }
        /* m beyond int64: only 0 is a multiple. */
        return json_integer_value(x) == 0;
    }
    double xv = number_value(x), mv = number_value(m);
    double q = xv / mv;
    if (!isfinite(q))
        return 0;
    double n = nearbyint(q);
    double tolerance = fmax(1e-9, fabs(q) * 2 * DBL_EPSILON);
    return fabs(q - n) <= tolerance;
}

/* Unicode code points in a valid UTF-8 string of len bytes. */
static size_t utf8_length(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            n++;
    return n;
}

/* Integers exactly; reals in the fewest digits that read back the same. */
static void format_number(const json_t *j, char *buf, size_t size)
{
    if (json_is_integer(j)) {
        snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
        return;
    }
    double d = json_real_value(j);
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, d);
        if (strtod(buf, NULL) == d)
            return;
    }
}

/* ------------------------------------------------------------------ */
/* URIs (RFC 3986 section 5 reference resolution)                       */

typedef struct uri_parts {
    char *scheme, *authority, *path, *query, *fragment; /* NULL: absent; path never NULL */
} uri_parts;

static void uri_parts_free(uri_parts *u)
{
    free(u->scheme);
    free(u->authority);
    free(u->path);
    free(u->query);
    free(u->fragment);
}

static char *dup_range(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static int uri_parse(const char *s, uri_parts *u)
{
    const char *p = s, *e;
    memset(u, 0, sizeof *u);
    /* scheme */
    if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')) {
        e = p;
        while ((*e >= 'A' && *e <= 'Z') || (*e >= 'a' && *e <= 'z') ||
               (*e >= '0' && *e <= '9') || *e == '+' || *e == '-' || *e == '.')
            e++;
        if (*e == ':') {
            if (!(u->scheme = dup_range(p, (size_t)(e - p))))
                goto oom;
            p = e + 1;
        }
    }
    if (p[0] == '/' && p[1] == '/') {
        p += 2;
        e = p + strcspn(p, "/?#");
        if (!(u->authority = dup_range(p, (size_t)(e - p))))
            goto oom;
        p = e;
    }
    e = p + strcspn(p, "?#");
    if (!(u->path = dup_range(p, (size_t)(e - p))))
        goto oom;
    p = e;
    if (*p == '?') {
        p++;
        e = p + strcspn(p, "#");
        if (!(u->query = dup_range(p, (size_t)(e - p))))
            goto oom;
        p = e;
    }
    if (*p == '#')
        if (!(u->fragment = dup_str(p + 1)))
            goto oom;
    return 0;
oom:
    uri_parts_free(u);
    return -1;
}

/* RFC 3986 5.2.4, in place. */
static void remove_dot_segments(char *path)
{
    char *in = path, *out = path;
    while (*in) {
        if (strncmp(in, "../", 3) == 0) {
            in += 3;
        } else if (strncmp(in, "./", 2) == 0) {
            in += 2;
        } else if (strncmp(in, "/./", 3) == 0) {
            in += 2;
        } else if (strcmp(in, "/.") == 0) {
            in[1] = '\0';
        } else if (strncmp(in, "/../", 4) == 0 || strcmp(in, "/..") == 0) {
            if (in[3] == '/')
                in += 3;
            else {
                in += 2;
                *in = '/';
            }
            while (out > path && *--out != '/')
                ;
        } else if (strcmp(in, ".") == 0 || strcmp(in, "..") == 0) {
            in += strlen(in);
        } else {
            if (*in == '/')
                *out++ = *in++;
            while (*in && *in != '/')
                *out++ = *in++;
        }
    }
    *out = '\0';
}

/* Resolves ref against base; newly allocated, NULL when out of memory. */
static char *uri_resolve(const char *base, const char *ref)
{
    uri_parts b, r;
    char *scheme, *authority, *path = NULL, *query, *result = NULL;
    if (uri_parse(ref, &r) != 0)
        return NULL;
    if (uri_parse(base, &b) != 0) {
        uri_parts_free(&r);
        return NULL;
    }
    if (r.scheme) {
        scheme = r.scheme;
        authority = r.authority;
        path = dup_str(r.path);
        query = r.query;
    } else {
        scheme = b.scheme;
        if (r.authority) {
            authority = r.authority;
            path = dup_str(r.path);
            query = r.query;
        } else {
            authority = b.authority;
            if (r.path[0] == '\0') {
                path = dup_str(b.path);
                query = r.query ? r.query : b.query;
            } else {
                query = r.query;
                if (r.path[0] == '/') {
                    path = dup_str(r.path);
                } else if (b.authority && b.path[0] == '\0') {
                    path = dup_printf("/%s", r.path);
                } else {
                    const char *slash = strrchr(b.path, '/');
                    size_t keep = slash ? (size_t)(slash - b.path) + 1 : 0;
                    path = dup_printf("%.*s%s", (int)keep, b.path, r.path);
                }
            }
        }
    }
    if (path) {
        remove_dot_segments(path);
        result = dup_printf("%s%s%s%s%s%s%s%s%s", scheme ? scheme : "", scheme ? ":" : "",
                            authority ? "//" : "", authority ? authority : "", path,
                            query ? "?" : "", query ? query : "", r.fragment ? "#" : "",
                            r.fragment ? r.fragment : "");
    }
    free(path);
    uri_parts_free(&b);
    uri_parts_free(&r);
    return result;
}

/* Splits "abs#frag" in place: returns the fragment ("" when none) and cuts
 * uri at the '#'. */
static char *uri_cut_fragment(char *uri)
{
    char *hash = strchr(uri, '#');
    if (!hash)
        return uri + strlen(uri);
    *hash = '\0';
    return hash + 1;
}

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decodes in place; -1 on a malformed escape or an encoded NUL. */
static int percent_decode(char *s)
{
    char *out = s;
    for (char *in = s; *in; in++) {
        if (*in == '%') {
            int h = hex_digit((unsigned char)in[1]), l = h < 0 ? -1 : hex_digit((unsigned char)in[2]);
            if (h < 0 || l < 0 || (h == 0 && l == 0))
                return -1;
            *out++ = (char)(h * 16 + l);
            in += 2;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
    return 0;
}

/* ------------------------------------------------------------------ */
/* Compilation                                                          */

typedef struct memo_slot {
    const json_t *key;
    node *value;
} memo_slot;

typedef struct compiler {
    sb_schema *schema;
    unsigned flags;
    sb_schema_resolve_fn resolve;
    void *resolve_ctx;
    id_entry *ids;
    size_t n_ids, cap_ids;
    memo_slot *memo;
    size_t memo_cap, memo_count;
    int depth; /* compile_schema calls in progress */
    sb_error *err;
} compiler;

static int oom(compiler *c)
{
    return sb_error_set(c->err, c->schema->name, NULL, "out of memory compiling schema");
}

/* Error at a schema location: where "" is shown as "/". */
static int compile_error(compiler *c, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int compile_error(compiler *c, const char *where, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sb_error_set(c->err, c->schema->name, where && *where ? where : "/", "%s", msg);
}

static size_t memo_hash(const json_t *key, size_t cap)
{
    uintptr_t h = (uintptr_t)key;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static node *memo_get(const compiler *c, const json_t *key)
{
    if (!c->memo_cap)
        return NULL;
    for (size_t i = memo_hash(key, c->memo_cap);; i = (i + 1) & (c->memo_cap - 1)) {
        if (!c->memo[i].key)
            return NULL;
        if (c->memo[i].key == key)
            return c->memo[i].value;
    }
}

static int memo_put(compiler *c, const json_t *key, node *value)
{
    if ((c->memo_count + 1) * 2 > c->memo_cap) {
        size_t cap = c->memo_cap ? c->memo_cap * 2 : 64;
        memo_slot *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < c->memo_cap; i++) {
            if (!c->memo[i].key)
                continue;
            size_t j = memo_hash(c->memo[i].key, cap);
            while (slots[j].key)
                j = (j + 1) & (cap - 1);
            slots[j] = c->memo[i];
        }
        free(c->memo);
        c->memo = slots;
        c->memo_cap = cap;
    }
    size_t i = memo_hash(key, c->memo_cap);
    while (c->memo[i].key)
        i = (i + 1) & (c->memo_cap - 1);
    c->memo[i].key = key;
    c->memo[i].value = value;
    c->memo_count++;
    return 0;
}

static void node_free(node *n)
{
    if (!n)
        return;
    free(n->where);
    pcre2_code_free(n->pattern);
    free(n->properties);
    for (size_t i = 0; i < n->n_pattern_properties; i++)
        pcre2_code_free(n->pattern_properties[i].re);
    free(n->pattern_properties);
    free(n->dependencies);
    free(n->items_tuple.items);
    free(n->all_of.items);
    free(n->any_of.items);
    free(n->one_of.items);
    free(n);
}

static int add_document(compiler *c, const char *uri, json_t *root)
{
    sb_schema *s = c->schema;
    if (s->n_docs == s->cap_docs) {
        size_t cap = s->cap_docs ? s->cap_docs * 2 : 4;
        document *d = realloc(s->docs, cap * sizeof *d);
        if (!d)
            return -1;
        s->docs = d;
        s->cap_docs = cap;
    }
    char *u = dup_str(uri);
    if (!u)
        return -1;
    s->docs[s->n_docs].uri = u;
    s->docs[s->n_docs].root = root;
    s->n_docs++;
    return 0;
}

static int add_id(compiler *c, const char *uri, json_t *node_json, const char *parent_base,
                  const char *where)
{
    for (size_t i = 0; i < c->n_ids; i++)
        if (strcmp(c->ids[i].uri, uri) == 0)
            return c->ids[i].node == node_json
                       ? 0
                       : compile_error(c, where, "$id \"%s\" names two different schemas", uri);
    if (c->n_ids == c->cap_ids) {
        size_t cap = c->cap_ids ? c->cap_ids * 2 : 16;
        id_entry *e = realloc(c->ids, cap * sizeof *e);
        if (!e)
            return oom(c);
        c->ids = e;
        c->cap_ids = cap;
    }
    id_entry *e = &c->ids[c->n_ids];
    e->uri = dup_str(uri);
    e->parent_base = dup_str(parent_base);
    e->where = dup_str(where);
    e->node = node_json;
    if (!e->uri || !e->parent_base || !e->where) {
        free(e->uri);
        free(e->parent_base);
        free(e->where);
        return oom(c);
    }
    c->n_ids++;
    return SB_OK;
}

static const id_entry *find_id(const compiler *c, const char *uri)
{
    for (size_t i = 0; i < c->n_ids; i++)
        if (strcmp(c->ids[i].uri, uri) == 0)
            return &c->ids[i];
    return NULL;
}

/* Keywords whose values are one subschema, a map of them, or a list. */
static const char *const SINGLE_SUBSCHEMA[] = {
    "additionalItems", "additionalProperties", "contains", "propertyNames",
    "not", "if", "then", "else", NULL};
static const char *const MAP_SUBSCHEMAS[] = {"properties", "patternProperties", "definitions",
                                             "dependencies", NULL};
static const char *const LIST_SUBSCHEMAS[] = {"allOf", "anyOf", "oneOf", "items", NULL};

static int scan_ids(compiler *c, json_t *j, const char *parent_base, const char *where);

static int scan_child(compiler *c, json_t *child, const char *base, const char *where,
                      const char *token)
{
    if (!json_is_object(child))
        return SB_OK;
    char *w = pointer_join(where, token);
    if (!w)
        return oom(c);
    int rc = scan_ids(c, child, base, w);
    free(w);
    return rc;
}

/* Registers every $id at schema positions under j (draft-07 8.2). */
static int scan_ids(compiler *c, json_t *j, const char *parent_base, const char *where)
{
    const json_t *id = json_object_get(j, "$id");
    char *base = NULL;
    int rc = SB_OK;
    if (json_is_string(id) && !json_object_get(j, "$ref")) {
        const char *idv = json_string_value(id);
        char *resolved = uri_resolve(parent_base, idv);
        if (!resolved)
            return oom(c);
        char *frag = uri_cut_fragment(resolved);
        if (*frag) {
            /* "#name" (location-independent) or "uri#name" */
            char *key = dup_printf("%s#%s", resolved, frag);
            if (!key) {
                free(resolved);
                return oom(c);
            }
            rc = add_id(c, key, j, parent_base, where);
            free(key);
            if (idv[0] == '#') {
                base = dup_str(parent_base);
                free(resolved);
            } else {
                base = resolved;
                if (rc == SB_OK)
                    rc = add_id(c, base, j, parent_base, where);
            }
        } else {
            base = resolved;
            rc = add_id(c, base, j, parent_base, where);
        }
        if (!base)
            return oom(c);
    } else {
        base = dup_str(parent_base);
        if (!base)
            return oom(c);
    }
    for (int k = 0; rc == SB_OK && SINGLE_SUBSCHEMA[k]; k++)
        rc = scan_child(c, json_object_get(j, SINGLE_SUBSCHEMA[k]), base, where,
                        SINGLE_SUBSCHEMA[k]);
    for (int k = 0; rc == SB_OK && MAP_SUBSCHEMAS[k]; k++) {
        json_t *m = json_object_get(j, MAP_SUBSCHEMAS[k]);
        const char *key;
        json_t *v;
        if (!json_is_object(m))
            continue;
        char *w = pointer_join(where, MAP_SUBSCHEMAS[k]);
        if (!w) {
            rc = oom(c);
            break;
        }
        json_object_foreach(m, key, v) {
            if ((rc = scan_child(c, v, base, w, key)) != SB_OK)
                break;
        }
        free(w);
    }
    for (int k = 0; rc == SB_OK && LIST_SUBSCHEMAS[k]; k++) {
        json_t *a = json_object_get(j, LIST_SUBSCHEMAS[k]);
        if (json_is_object(a)) {
            rc = scan_child(c, a, base, where, LIST_SUBSCHEMAS[k]);
        } else if (json_is_array(a)) {
            char *w = pointer_join(where, LIST_SUBSCHEMAS[k]);
            if (!w) {
                rc = oom(c);
                break;
            }
            for (size_t i = 0; rc == SB_OK && i < json_array_size(a); i++) {
                char num[32];
                snprintf(num, sizeof num, "%zu", i);
                rc = scan_child(c, json_array_get(a, i), base, w, num);
            }
            free(w);
        }
    }
    free(base);
    return rc;
}

/* Registers a document's root under uri and scans its $ids. */
static int register_document(compiler *c, const char *uri, json_t *root, const char *where)
{
    int rc = add_id(c, uri, root, uri, where);
    if (rc == SB_OK && json_is_object(root))
        rc = scan_ids(c, root, uri, where);
    return rc;
}

static node *compile_schema(compiler *c, const json_t *j, const char *parent_base,
                            const char *where);

static node *compile_child(compiler *c, const json_t *j, const char *base, const char *where,
                           const char *token)
{
    char *w = pointer_join(where, token);
    if (!w) {
        oom(c);
        return NULL;
    }
    node *n = compile_schema(c, j, base, w);
    free(w);
    return n;
}

static node *compile_child_index(compiler *c, const json_t *j, const char *base,
                                 const char *where, size_t index)
{
    char num[32];
    snprintf(num, sizeof num, "%zu", index);
    return compile_child(c, j, base, where, num);
}

/* Loads the bundled draft-07 metaschema as a document. */
static json_t *load_metaschema(compiler *c, const char *uri)
{
    char path[4096];
    json_t *j = NULL;
    sb_error e;
    if (sb_data_path(path, sizeof path, "schemas/json-schema-draft-07.json", &e) != SB_OK ||
        sb_json_load_file(path, &j, &e) != SB_OK) {
        char line[2048];
        sb_error_format(&e, line, sizeof line);
        sb_error_set(c->err, c->schema->name, NULL,
                     "cannot load the bundled metaschema for %s: %s", uri, line);
        return NULL;
    }
    return j;
}

/* Fetches a document that is not loaded yet and registers it. */
static int fetch_document(compiler *c, const char *abs, const char *ref_where, const char *ref)
{
    json_t *doc = NULL;
    if (strcmp(abs, SB_SCHEMA_DRAFT07_URI) == 0 ||
        strcmp(abs, "https://json-schema.org/draft-07/schema") == 0) {
        doc = load_metaschema(c, abs);
        if (!doc)
            return SB_ERR;
    } else if (c->resolve) {
        sb_error e;
        sb_error_clear(&e);
        doc = c->resolve(c->resolve_ctx, abs, &e);
        if (!doc) {
            char line[1500];
            sb_error_format(&e, line, sizeof line);
            return compile_error(c, ref_where, "$ref \"%s\": cannot fetch %s: %s", ref, abs, line);
        }
    } else {
        return compile_error(c, ref_where,
                             "$ref \"%s\" points outside this schema (%s); only local "
                             "references and the draft-07 metaschema are supported",
                             ref, abs[0] ? abs : "a relative URI");
    }
    if (add_document(c, abs, doc) != 0) {
        json_decref(doc);
        return oom(c);
    }
    char *where = dup_printf("%s#", abs);
    if (!where)
        return oom(c);
    int rc = register_document(c, abs, doc, where);
    free(where);
    return rc;
}

/* Resolves a $ref and compiles its target. */
static node *compile_ref(compiler *c, const char *ref, const char *base, const char *ref_where)
{
    char *full = uri_resolve(base, ref);
    node *result = NULL;
    if (!full) {
        oom(c);
        return NULL;
    }
    char *frag = uri_cut_fragment(full);
    const id_entry *e = find_id(c, full);
    if (!e) {
        /* Not loaded yet: the metaschema or a resolver's document. */
        if (fetch_document(c, full, ref_where, ref) != SB_OK)
            goto out;
        e = find_id(c, full);
        if (!e) {
            compile_error(c, ref_where, "$ref \"%s\": no schema has the URI %s", ref, full);
            goto out;
        }
    }
    if (*frag && frag[0] != '/') {
        /* A location-independent identifier: "$id": "#name". */
        char *key = dup_printf("%s#%s", full, frag);
        if (!key) {
            oom(c);
            goto out;
        }
        const id_entry *named = find_id(c, key);
        free(key);
        if (!named) {
            compile_error(c, ref_where, "$ref \"%s\": no schema has \"$id\": \"#%s\"", ref, frag);
            goto out;
        }
        result = compile_schema(c, named->node, named->parent_base, named->where);
        goto out;
    }
    if (percent_decode(frag) != 0) {
        compile_error(c, ref_where, "$ref \"%s\": bad %%-escape in the fragment", ref);
        goto out;
    }
    {
        /* Walk the JSON pointer from the named schema, following $ids on
         * the way so the target gets the base URI of its own location. */
        json_t *cur = e->node;
        char *cur_base = dup_str(e->parent_base);
        char *where = dup_str(e->where);
        const char *p = frag;
        int failed = 0;
        if (!cur_base || !where) {
            oom(c);
            failed = 1;
        }
        while (!failed && *p) {
            const char *next = strchr(p + 1, '/');
            const char *end = next ? next : p + strlen(p);
            char *token = malloc((size_t)(end - p) + 1);
            size_t tlen = 0;
            if (!token) {
                oom(c);
                failed = 1;
                break;
            }
            for (const char *t = p + 1; t < end && !failed; t++) {
                if (*t != '~')
                    token[tlen++] = *t;
                else if (t + 1 < end && (t[1] == '0' || t[1] == '1'))
                    token[tlen++] = *++t == '0' ? '~' : '/';
                else
                    failed = 1;
            }
            token[tlen] = '\0';
            if (failed) {
                compile_error(c, ref_where, "$ref \"%s\": malformed JSON pointer (~ must be "
                              "followed by 0 or 1)", ref);
                free(token);
                break;
            }
            if (json_is_object(cur)) {
                const json_t *id = json_object_get(cur, "$id");
                if (json_is_string(id) && json_string_value(id)[0] != '#' &&
                    !json_object_get(cur, "$ref")) {
                    char *nb = uri_resolve(cur_base, json_string_value(id));
                    free(cur_base);
                    cur_base = nb;
                    if (cur_base)
                        uri_cut_fragment(cur_base);
                }
                cur = json_object_get(cur, token);
            } else if (json_is_array(cur)) {
                char *endp;
                unsigned long long idx = strtoull(token, &endp, 10);
                if (!token[0] || *endp || (token[0] == '0' && token[1]) || token[0] == '-' ||
                    token[0] == '+')
                    cur = NULL;
                else
                    cur = idx < json_array_size(cur) ? json_array_get(cur, (size_t)idx) : NULL;
            } else {
                cur = NULL;
            }
            char *w = pointer_join(where, token);
            free(token);
            free(where);
            where = w;
            if (!cur_base || !where) {
                oom(c);
                failed = 1;
            } else if (!cur) {
                compile_error(c, ref_where, "$ref \"%s\": nothing at %s", ref, where);
                failed = 1;
            }
            p = end;
        }
        if (!failed)
            result = compile_schema(c, cur, cur_base, where);
        free(cur_base);
        free(where);
    }
out:
    free(full);
    return result;
}

static int check_type(compiler *c, const json_t *v, const char *where, const char *keyword,
                      int ok, const char *expected)
{
    if (ok)
        return SB_OK;
    char *w = pointer_join(where, keyword);
    int rc = compile_error(c, w ? w : where, "%s must be %s, found %s", keyword, expected,
                           json_type_name(v));
    free(w);
    return rc;
}

static int is_schema_json(const json_t *v)
{
    return json_is_object(v) || json_is_boolean(v);
}

static long long count_value(const json_t *v)
{
    double d = number_value(v);
    if (json_is_integer(v))
        return json_integer_value(v);
    return d >= 9.2e18 ? LLONG_MAX : (long long)d;
}

static int compile_regex(compiler *c, const char *src, size_t len, const char *where,
                         pcre2_code **out)
{
    int code;
    PCRE2_SIZE offset;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)src, len,
                                   PCRE2_UTF | PCRE2_ALT_BSUX | PCRE2_DOLLAR_ENDONLY, &code,
                                   &offset, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
            snprintf((char *)msg, sizeof msg, "PCRE2 error %d", code);
        return compile_error(c, where, "invalid regular expression \"%s\": %s at offset %zu", src,
                             (const char *)msg, (size_t)offset);
    }
    *out = re;
    return SB_OK;
}

static int is_annotation(const char *k)
{
    static const char *const names[] = {"$schema", "$id", "$comment", "title", "description",
                                        "default", "examples", "format", "readOnly",
                                        "writeOnly", "contentMediaType", "contentEncoding",
                                        NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(k, names[i]) == 0)
            return 1;
    return 0;
}

static int check_annotation(compiler *c, const char *k, const json_t *v, const char *where)
{
    if (strcmp(k, "default") == 0)
        return SB_OK;
    if (strcmp(k, "examples") == 0)
        return check_type(c, v, where, k, json_is_array(v), "an array");
    if (strcmp(k, "readOnly") == 0 || strcmp(k, "writeOnly") == 0)
        return check_type(c, v, where, k, json_is_boolean(v), "a boolean");
    return check_type(c, v, where, k, json_is_string(v), "a string");
}

static int compile_list(compiler *c, const json_t *v, const char *base, const char *where,
                        const char *keyword, node_list *out)
{
    if (check_type(c, v, where, keyword, json_is_array(v) && json_array_size(v) > 0,
                   "a non-empty array of schemas") != SB_OK)
        return SB_ERR;
    char *w = pointer_join(where, keyword);
    if (!w)
        return oom(c);
    out->count = json_array_size(v);
    out->items = calloc(out->count, sizeof *out->items);
    if (!out->items) {
        free(w);
        return oom(c);
    }
    for (size_t i = 0; i < out->count; i++) {
        if (!(out->items[i] = compile_child_index(c, json_array_get(v, i), base, w, i))) {
            free(w);
            return SB_ERR;
        }
    }
    free(w);
    return SB_OK;
}

static int compile_single(compiler *c, const json_t *v, const char *base, const char *where,
                          const char *keyword, node **out)
{
    if (check_type(c, v, where, keyword, is_schema_json(v), "a schema (object or boolean)") !=
        SB_OK)
        return SB_ERR;
    *out = compile_child(c, v, base, where, keyword);
    return *out ? SB_OK : SB_ERR;
}

static int compile_count(compiler *c, const json_t *v, const char *where, const char *keyword,
                         long long *out)
{
    if (check_type(c, v, where, keyword, is_integral(v) && number_value(v) >= 0,
                   "a non-negative integer") != SB_OK)
        return SB_ERR;
    *out = count_value(v);
    return SB_OK;
}

static int compile_string_array(compiler *c, const json_t *v, const char *where,
                                const char *keyword)
{
    if (check_type(c, v, where, keyword, json_is_array(v), "an array of strings") != SB_OK)
        return SB_ERR;
    for (size_t i = 0; i < json_array_size(v); i++) {
        const json_t *s = json_array_get(v, i);
        char *w = pointer_join(where, keyword), *wi = w ? pointer_join_index(w, i) : NULL;
        int rc = SB_OK;
        if (!wi)
            rc = oom(c);
        else if (!json_is_string(s))
            rc = compile_error(c, wi, "%s must list strings, found %s", keyword,
                               json_type_name(s));
        else
            for (size_t k = 0; k < i && rc == SB_OK; k++)
                if (json_equal(json_array_get(v, k), (json_t *)s))
                    rc = compile_error(c, wi, "%s lists \"%s\" twice", keyword,
                                       json_string_value(s));
        free(w);
        free(wi);
        if (rc != SB_OK)
            return rc;
    }
    return SB_OK;
}

static int compile_keyword(compiler *c, node *n, const char *k, const json_t *v,
                           const char *base, const char *where)
{
    if (strcmp(k, "type") == 0) {
        const json_t *list = v;
        json_t *tmp = NULL;
        if (json_is_string(v)) {
            tmp = json_pack("[O]", v);
            if (!tmp)
                return oom(c);
            list = tmp;
        }
        int rc = check_type(c, v, where, k, json_is_array(list) && json_array_size(list) > 0,
                            "a type name or a non-empty array of them");
        for (size_t i = 0; rc == SB_OK && i < json_array_size(list); i++) {
            const json_t *t = json_array_get(list, i);
            unsigned bit = 0;
            for (int b = 0; json_is_string(t) && b < 7; b++)
                if (strcmp(json_string_value(t), TYPE_NAMES[b]) == 0)
                    bit = 1u << b;
            char *w = pointer_join(where, k);
            if (!w)
                rc = oom(c);
            else if (!bit)
                rc = compile_error(c, w, "unknown type %s%s%s (draft-07 types: null, boolean, "
                                   "object, array, number, string, integer)",
                                   json_is_string(t) ? "\"" : "",
                                   json_is_string(t) ? json_string_value(t) : json_type_name(t),
                                   json_is_string(t) ? "\"" : "");
            else if (n->types & bit)
                rc = compile_error(c, w, "type lists \"%s\" twice", json_string_value(t));
            n->types |= bit;
            free(w);
        }
        json_decref(tmp);
        return rc;
    }
    if (strcmp(k, "enum") == 0) {
        if (check_type(c, v, where, k, json_is_array(v), "an array") != SB_OK)
            return SB_ERR;
        n->enum_values = v;
        return SB_OK;
    }
    if (strcmp(k, "const") == 0) {
        n->const_value = v;
        return SB_OK;
    }
    if (strcmp(k, "exclusiveMinimum") == 0 || strcmp(k, "exclusiveMaximum") == 0) {
        if (json_is_boolean(v)) {
            char *w = pointer_join(where, k);
            int rc = compile_error(c, w ? w : where,
                                   "boolean %s is draft-04 syntax; in draft-07 %s is the "
                                   "bound itself, a number", k, k);
            free(w);
            return rc;
        }
    }
    if (strcmp(k, "minimum") == 0 || strcmp(k, "maximum") == 0 ||
        strcmp(k, "exclusiveMinimum") == 0 || strcmp(k, "exclusiveMaximum") == 0 ||
        strcmp(k, "multipleOf") == 0) {
        int positive = strcmp(k, "multipleOf") == 0;
        if (check_type(c, v, where, k, json_is_number(v) && (!positive || number_value(v) > 0),
                       positive ? "a number greater than 0" : "a number") != SB_OK)
            return SB_ERR;
        if (k[0] == 'm' && k[1] == 'i')
            n->minimum = v;
        else if (k[0] == 'm' && k[1] == 'a')
            n->maximum = v;
        else if (strcmp(k, "exclusiveMinimum") == 0)
            n->exclusive_minimum = v;
        else if (strcmp(k, "exclusiveMaximum") == 0)
            n->exclusive_maximum = v;
        else
            n->multiple_of = v;
        return SB_OK;
    }
    if (strcmp(k, "minLength") == 0)
        return compile_count(c, v, where, k, &n->min_length);
    if (strcmp(k, "maxLength") == 0)
        return compile_count(c, v, where, k, &n->max_length);
    if (strcmp(k, "minItems") == 0)
        return compile_count(c, v, where, k, &n->min_items);
    if (strcmp(k, "maxItems") == 0)
        return compile_count(c, v, where, k, &n->max_items);
    if (strcmp(k, "minProperties") == 0)
        return compile_count(c, v, where, k, &n->min_properties);
    if (strcmp(k, "maxProperties") == 0)
        return compile_count(c, v, where, k, &n->max_properties);
    if (strcmp(k, "pattern") == 0) {
        if (check_type(c, v, where, k, json_is_string(v), "a string") != SB_OK)
            return SB_ERR;
        char *w = pointer_join(where, k);
        if (!w)
            return oom(c);
        int rc = compile_regex(c, json_string_value(v), json_string_length(v), w, &n->pattern);
        free(w);
        n->pattern_source = json_string_value(v);
        return rc;
    }
    if (strcmp(k, "uniqueItems") == 0) {
        if (check_type(c, v, where, k, json_is_boolean(v), "a boolean") != SB_OK)
            return SB_ERR;
        n->unique_items = json_is_true(v);
        return SB_OK;
    }
    if (strcmp(k, "required") == 0) {
        if (compile_string_array(c, v, where, k) != SB_OK)
            return SB_ERR;
        n->required = v;
        return SB_OK;
    }
    if (strcmp(k, "properties") == 0 || strcmp(k, "patternProperties") == 0 ||
        strcmp(k, "definitions") == 0 || strcmp(k, "dependencies") == 0) {
        const char *key;
        const json_t *sub;
        size_t i = 0, count;
        int rc = SB_OK;
        if (check_type(c, v, where, k, json_is_object(v), "an object") != SB_OK)
            return SB_ERR;
        count = json_object_size(v);
        char *w = pointer_join(where, k);
        if (!w)
            return oom(c);
        if (k[0] == 'p' && k[1] == 'r' && count) {
            n->properties = calloc(count, sizeof *n->properties);
            rc = n->properties ? SB_OK : oom(c);
        } else if (k[0] == 'p' && count) {
            n->pattern_properties = calloc(count, sizeof *n->pattern_properties);
            rc = n->pattern_properties ? SB_OK : oom(c);
        } else if (k[0] == 'd' && k[1] == 'e' && k[2] == 'p' && count) {
            n->dependencies = calloc(count, sizeof *n->dependencies);
            rc = n->dependencies ? SB_OK : oom(c);
        }
        json_object_foreach((json_t *)v, key, sub) {
            if (rc != SB_OK)
                break;
            char *wk = pointer_join(w, key);
            if (!wk) {
                rc = oom(c);
                break;
            }
            if (k[0] == 'd' && k[1] == 'e' && k[2] == 'p' && json_is_array(sub)) {
                char *wd = dup_str(w);
                rc = wd ? compile_string_array(c, sub, wd, key) : oom(c);
                free(wd);
                n->dependencies[i].name = key;
                n->dependencies[i].properties = sub;
                n->n_dependencies = ++i;
                free(wk);
                continue;
            }
            if (!is_schema_json(sub)) {
                rc = compile_error(c, wk, "%s must map names to schemas%s, found %s", k,
                                   k[0] == 'd' && k[2] == 'p' ? " or arrays of names" : "",
                                   json_type_name(sub));
                free(wk);
                break;
            }
            node *child = compile_schema(c, sub, base, wk);
            if (!child)
                rc = SB_ERR;
            else if (k[0] == 'p' && k[1] == 'r') {
                n->properties[i].name = key;
                n->properties[i].schema = child;
                n->n_properties = ++i;
            } else if (k[0] == 'p') {
                pattern_node *pn = &n->pattern_properties[i];
                pn->source = key;
                pn->schema = child;
                rc = compile_regex(c, key, strlen(key), wk, &pn->re);
                n->n_pattern_properties = ++i;
            } else if (k[2] == 'p') {
                n->dependencies[i].name = key;
                n->dependencies[i].schema = child;
                n->n_dependencies = ++i;
            }
            free(wk);
        }
        free(w);
        return rc;
    }
    if (strcmp(k, "additionalProperties") == 0)
        return compile_single(c, v, base, where, k, &n->additional_properties);
    if (strcmp(k, "propertyNames") == 0)
        return compile_single(c, v, base, where, k, &n->property_names);
    if (strcmp(k, "additionalItems") == 0)
        return compile_single(c, v, base, where, k, &n->additional_items);
    if (strcmp(k, "contains") == 0)
        return compile_single(c, v, base, where, k, &n->contains);
    if (strcmp(k, "not") == 0)
        return compile_single(c, v, base, where, k, &n->not_schema);
    if (strcmp(k, "if") == 0)
        return compile_single(c, v, base, where, k, &n->if_schema);
    if (strcmp(k, "then") == 0)
        return compile_single(c, v, base, where, k, &n->then_schema);
    if (strcmp(k, "else") == 0)
        return compile_single(c, v, base, where, k, &n->else_schema);
    if (strcmp(k, "items") == 0) {
        if (json_is_array(v)) {
            char *w = pointer_join(where, k);
            if (!w)
                return oom(c);
            n->items_is_tuple = 1;
            n->items_tuple.count = json_array_size(v);
            n->items_tuple.items = calloc(n->items_tuple.count ? n->items_tuple.count : 1,
                                          sizeof *n->items_tuple.items);
            int rc = n->items_tuple.items ? SB_OK : oom(c);
            for (size_t i = 0; rc == SB_OK && i < n->items_tuple.count; i++) {
                const json_t *sub = json_array_get(v, i);
                char *wi = pointer_join_index(w, i);
                if (!wi)
                    rc = oom(c);
                else if (!is_schema_json(sub))
                    rc = compile_error(c, wi, "items must be a schema or an array of schemas, "
                                       "found %s in the array", json_type_name(sub));
                else if (!(n->items_tuple.items[i] = compile_schema(c, sub, base, wi)))
                    rc = SB_ERR;
                free(wi);
            }
            free(w);
            return rc;
        }
        if (check_type(c, v, where, k, is_schema_json(v),
                       "a schema or an array of schemas") != SB_OK)
            return SB_ERR;
        return compile_single(c, v, base, where, k, &n->items);
    }
    if (strcmp(k, "allOf") == 0)
        return compile_list(c, v, base, where, k, &n->all_of);
    if (strcmp(k, "anyOf") == 0)
        return compile_list(c, v, base, where, k, &n->any_of);
    if (strcmp(k, "oneOf") == 0)
        return compile_list(c, v, base, where, k, &n->one_of);
    if (is_annotation(k))
        return check_annotation(c, k, v, where);
    if (c->flags & SB_SCHEMA_DRAFT07_LENIENT)
        return SB_OK;
    char *w = pointer_join(where, k);
    int rc = compile_error(c, w ? w : where,
                           "unknown keyword \"%s\": not a draft-07 keyword this validator "
                           "checks, so it is refused rather than ignored", k);
    free(w);
    return rc;
}

static node *new_node(compiler *c, const json_t *j, const char *where)
{
    sb_schema *s = c->schema;
    node *n = calloc(1, sizeof *n);
    if (!n || !(n->where = dup_str(where))) {
        free(n);
        oom(c);
        return NULL;
    }
    n->json = j;
    n->min_length = n->max_length = n->min_items = n->max_items = -1;
    n->min_properties = n->max_properties = -1;
    if (s->n_nodes == s->cap_nodes) {
        size_t cap = s->cap_nodes ? s->cap_nodes * 2 : 64;
        node **nodes = realloc(s->nodes, cap * sizeof *nodes);
        if (!nodes) {
            node_free(n);
            oom(c);
            return NULL;
        }
        s->nodes = nodes;
        s->cap_nodes = cap;
    }
    s->nodes[s->n_nodes++] = n;
    if (memo_put(c, j, n) != 0) {
        oom(c);
        return NULL;
    }
    return n;
}

static node *compile_object(compiler *c, node *n, const json_t *j, const char *parent_base,
                            const char *where);

static node *compile_schema(compiler *c, const json_t *j, const char *parent_base,
                            const char *where)
{
    node *n = memo_get(c, j);
    if (n)
        return n;
    if (c->depth >= MAX_COMPILE_DEPTH) {
        compile_error(c, where, "schemas nest more than %d deep here, counting $ref targets",
                      MAX_COMPILE_DEPTH);
        return NULL;
    }
    if (!is_schema_json(j)) {
        compile_error(c, where, "a schema must be an object or a boolean, found %s",
                      json_type_name(j));
        return NULL;
    }
    if (!(n = new_node(c, j, where)))
        return NULL;
    if (json_is_boolean(j)) {
        n->kind = json_is_true(j) ? NODE_TRUE : NODE_FALSE;
        return n;
    }
    n->kind = NODE_OBJECT;
    c->depth++;
    n = compile_object(c, n, j, parent_base, where);
    c->depth--;
    return n;
}

/* Integers up to 2^53 convert to double exactly. */
#define EXACT_INT_LIMIT 9007199254740992LL

static void mark_plain_number(node *n)
{
    unsigned numeric = T_NUMBER | T_INTEGER;
    if (!n->types || (n->types & ~numeric) || n->ref || n->enum_values || n->const_value ||
        n->maximum || n->exclusive_minimum || n->exclusive_maximum || n->multiple_of ||
        n->all_of.count || n->any_of.count || n->one_of.count || n->not_schema || n->if_schema)
        return;
    if (n->minimum) {
        if (json_is_integer(n->minimum)) {
            long long m = json_integer_value(n->minimum);
            if (m > EXACT_INT_LIMIT || m < -EXACT_INT_LIMIT)
                return;
            n->plain_min = (double)m;
        } else if (json_is_real(n->minimum)) {
            n->plain_min = json_real_value(n->minimum);
        } else {
            return;
        }
        n->plain_has_min = 1;
    }
    n->plain_integer_only = !(n->types & T_NUMBER);
    n->plain_number = 1;
}

static node *compile_object(compiler *c, node *n, const json_t *j, const char *parent_base,
                            const char *where)
{
    const json_t *ref = json_object_get(j, "$ref");
    const json_t *id = json_object_get(j, "$id");
    char *base;
    if (json_is_string(id) && !ref) {
        base = uri_resolve(parent_base, json_string_value(id));
        if (base)
            uri_cut_fragment(base);
    } else {
        base = dup_str(parent_base);
    }
    if (!base) {
        oom(c);
        return NULL;
    }

    const char *k;
    const json_t *v;
    int rc = SB_OK;
    if (ref) {
        /* draft-07 8.3: all other properties of a $ref object are ignored.
         * Annotations and definitions beside it do no harm; assertions
         * would be silently dropped, so strict mode refuses them. */
        if (check_type(c, ref, where, "$ref", json_is_string(ref), "a string") != SB_OK) {
            free(base);
            return NULL;
        }
        json_object_foreach((json_t *)j, k, v) {
            if (strcmp(k, "$ref") == 0 || (c->flags & SB_SCHEMA_DRAFT07_LENIENT))
                continue;
            if (is_annotation(k))
                rc = check_annotation(c, k, v, where);
            else if (strcmp(k, "definitions") == 0)
                rc = compile_keyword(c, n, k, v, base, where);
            else {
                char *w = pointer_join(where, k);
                rc = compile_error(c, w ? w : where,
                                   "\"%s\" beside \"$ref\" would be ignored (draft-07 ignores "
                                   "everything next to $ref); put both under allOf", k);
                free(w);
            }
            if (rc != SB_OK)
                break;
        }
        if (rc == SB_OK) {
            char *w = pointer_join(where, "$ref");
            n->ref_text = json_string_value(ref);
            if (!w)
                rc = oom(c);
            else if (!(n->ref = compile_ref(c, n->ref_text, base, w)))
                rc = SB_ERR;
            free(w);
        }
        free(base);
        return rc == SB_OK ? n : NULL;
    }
    json_object_foreach((json_t *)j, k, v) {
        if ((rc = compile_keyword(c, n, k, v, base, where)) != SB_OK)
            break;
    }
    if (rc == SB_OK && !n->if_schema && (n->then_schema || n->else_schema) &&
        !(c->flags & SB_SCHEMA_DRAFT07_LENIENT)) {
        const char *which = n->then_schema ? "then" : "else";
        char *w = pointer_join(where, which);
        rc = compile_error(c, w ? w : where,
                           "\"%s\" without \"if\" would be ignored; add the \"if\"", which);
        free(w);
    }
    if (rc == SB_OK && !n->if_schema)
        n->then_schema = n->else_schema = NULL;
    if (rc == SB_OK)
        mark_plain_number(n);
    free(base);
    return rc == SB_OK ? n : NULL;
}

/* A chain of nodes that are nothing but $ref and comes back to itself can
 * match nothing and would recurse forever: refuse it. */
static int check_ref_loops(compiler *c)
{
    sb_schema *s = c->schema;
    for (size_t i = 0; i < s->n_nodes; i++) {
        node *start = s->nodes[i];
        if (!start->ref)
            continue;
        node *slow = start, *fast = start;
        while (fast->ref && fast->ref->ref) {
            slow = slow->ref;
            fast = fast->ref->ref;
            if (slow == fast) {
                char *w = pointer_join(start->where, "$ref");
                int rc = compile_error(c, w ? w : start->where,
                                       "$ref \"%s\" starts a loop of $refs that never reaches "
                                       "a schema", start->ref_text);
                free(w);
                return rc;
            }
        }
    }
    return SB_OK;
}

void sb_schema_free(sb_schema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_nodes; i++)
        node_free(s->nodes[i]);
    free(s->nodes);
    for (size_t i = 0; i < s->n_docs; i++) {
        free(s->docs[i].uri);
        json_decref(s->docs[i].root);
    }
    free(s->docs);
    free(s->name);
    free(s);
}

int sb_schema_compile_opts(json_t *json, const char *name, const sb_schema_options *opts,
                           sb_schema **out, sb_error *err)
{
    sb_error local;
    compiler c;
    int rc = SB_ERR;
    *out = NULL;
    if (!err)
        err = &local;
    sb_error_clear(err);
    memset(&c, 0, sizeof c);
    c.err = err;
    if (opts) {
        c.flags = opts->flags;
        c.resolve = opts->resolve;
        c.resolve_ctx = opts->resolve_ctx;
    }
    c.schema = calloc(1, sizeof *c.schema);
    if (!c.schema)
        return sb_error_set(err, name, NULL, "out of memory compiling schema");
    c.schema->name = dup_str(name ? name : "schema");
    if (!c.schema->name) {
        free(c.schema);
        return sb_error_set(err, name, NULL, "out of memory compiling schema");
    }
    if (!json) {
        sb_error_set(err, name, NULL, "no schema given");
        goto done;
    }
    /* The root's base URI is its $id, or empty: then "#..." refs are local. */
    json_incref(json);
    if (add_document(&c, "", json) != 0) {
        json_decref(json);
        oom(&c);
        goto done;
    }
    if (register_document(&c, "", json, "") != SB_OK)
        goto done;
    c.schema->root = compile_schema(&c, json, "", "");
    if (!c.schema->root)
        goto done;
    if (check_ref_loops(&c) != SB_OK)
        goto done;
    rc = SB_OK;
done:
    for (size_t i = 0; i < c.n_ids; i++) {
        free(c.ids[i].uri);
        free(c.ids[i].parent_base);
        free(c.ids[i].where);
    }
    free(c.ids);
    free(c.memo);
    if (rc != SB_OK) {
        if (err->msg[0] == '\0')
            sb_error_set(err, c.schema->name, NULL, "schema does not compile");
        sb_schema_free(c.schema);
        return SB_ERR;
    }
    *out = c.schema;
    return SB_OK;
}

int sb_schema_compile(json_t *json, const char *name, sb_schema **out, sb_error *err)
{
    return sb_schema_compile_opts(json, name, NULL, out, err);
}

int sb_schema_load_file_opts(const char *path, const sb_schema_options *opts, sb_schema **out,
                             sb_error *err)
{
    json_t *j = NULL;
    *out = NULL;
    /* A schema file may be a boolean schema: `true` or `false`. */
    if (sb_json_load_file_any(path, &j, err) != SB_OK)
        return SB_ERR;
    int rc = sb_schema_compile_opts(j, path, opts, out, err);
    json_decref(j);
    return rc;
}

int sb_schema_load_file(const char *path, sb_schema **out, sb_error *err)
{
    return sb_schema_load_file_opts(path, NULL, out, err);
}

const char *sb_schema_name(const sb_schema *s)
{
    return s->name;
}

/* ------------------------------------------------------------------ */
/* Validation                                                           */

typedef struct first_error {
    int seen;
    char pointer[512];
    char keyword[64];
    char reason[1024];
} first_error;

static void keep_first(void *ctx, const char *pointer, const char *keyword, const char *reason)
{
    first_error *f = ctx;
    if (f->seen++)
        return;
    snprintf(f->pointer, sizeof f->pointer, "%s", pointer[0] ? pointer : "/");
    snprintf(f->keyword, sizeof f->keyword, "%s", keyword);
    snprintf(f->reason, sizeof f->reason, "%s", reason);
}

typedef struct frame {
    const node *n;
    const json_t *instance;
} frame;

/* One step of the instance pointer: an object key (not escaped yet) or
 * an array index. */
typedef struct step {
    const char *key; /* NULL: index */
    size_t klen, index;
} step;

typedef struct validator {
    sb_schema_error_fn on_error;
    void *ctx;
    /* The instance pointer of the value being checked, as steps: spelled
     * out (into ptr) only when an error is reported, since a valid
     * document, the common case, never needs it. */
    step *path;
    size_t len, cap;
    char *ptr;
    size_t ptr_cap;
    pcre2_match_data *match;
    frame *stack; /* $refs being followed, to catch loops */
    size_t depth, stack_cap;
    size_t reported; /* errors passed to report() */
    int nesting;     /* check() calls in progress */
    int fatal;
    char *fatal_ptr; /* instance pointer of the fatal error (malloc'd) */
    char fatal_reason[1024];
    int out_of_memory;
} validator;

static size_t check(validator *v, const node *n, const json_t *in, int silent, const char *via);
static const char *pointer_text(validator *v);

static void report(validator *v, const char *keyword, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(validator *v, const char *keyword, const char *fmt, ...)
{
    char reason[1024];
    va_list ap;
    v->reported++;
    if (!v->on_error)
        return;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    v->on_error(v->ctx, pointer_text(v), keyword, reason);
}

static void set_fatal(validator *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_fatal(validator *v, const char *fmt, ...)
{
    va_list ap;
    if (v->fatal)
        return;
    v->fatal = 1;
    v->fatal_ptr = dup_str(pointer_text(v));
    va_start(ap, fmt);
    vsnprintf(v->fatal_reason, sizeof v->fatal_reason, fmt, ap);
    va_end(ap);
}

/* Appends one step; returns the old length for pop(). */
static size_t push_step(validator *v, const char *key, size_t klen, size_t index)
{
    size_t old = v->len;
    if (v->len == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 32;
        step *p = realloc(v->path, cap * sizeof *p);
        if (!p) {
            v->out_of_memory = 1;
            return old;
        }
        v->path = p;
        v->cap = cap;
    }
    v->path[v->len++] = (step){key, klen, index};
    return old;
}

static size_t push(validator *v, const char *token, size_t tlen)
{
    return push_step(v, token, tlen, 0);
}

/* Called for every item of every array (a result's 250 samples). */
static size_t push_index(validator *v, size_t i)
{
    return push_step(v, NULL, 0, i);
}

static void pop(validator *v, size_t old)
{
    v->len = old;
}

/* The instance pointer of the value being checked, RFC 6901 ("" for the
 * document; '~' and '/' in keys escaped), in v->ptr. */
static const char *pointer_text(validator *v)
{
    size_t need = 1;
    for (size_t k = 0; k < v->len; k++)
        need += 1 + (v->path[k].key ? 2 * v->path[k].klen : 20);
    if (need > v->ptr_cap) {
        char *p = realloc(v->ptr, need);
        if (!p)
            return "";
        v->ptr = p;
        v->ptr_cap = need;
    }
    size_t n = 0;
    for (size_t k = 0; k < v->len; k++) {
        const step *st = &v->path[k];
        v->ptr[n++] = '/';
        if (!st->key) {
            n += (size_t)snprintf(v->ptr + n, 21, "%zu", st->index);
            continue;
        }
        for (size_t i = 0; i < st->klen; i++) {
            if (st->key[i] == '~') {
                v->ptr[n++] = '~';
                v->ptr[n++] = '0';
            } else if (st->key[i] == '/') {
                v->ptr[n++] = '~';
                v->ptr[n++] = '1';
            } else {
                v->ptr[n++] = st->key[i];
            }
        }
    }
    v->ptr[n] = 0;
    return v->ptr;
}

/* 1 match, 0 no match, a negative PCRE2 error code when matching failed
 * (a resource limit). */
static int regex_matches(validator *v, pcre2_code *re, const char *s, size_t len)
{
    int rc = pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, v->match, NULL);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    return rc < 0 ? rc : -1;
}

/* A string for quoting inside a message: " and control characters escaped
 * (backslashes left alone so regexes read as written), cut when long. */
static void quote(char *buf, size_t size, const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 16 < size; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"') {
            buf[n++] = '\\';
            buf[n++] = (char)ch;
        } else if (ch < 0x20) {
            n += (size_t)snprintf(buf + n, size - n, "\\u%04x", ch);
        } else {
            buf[n++] = (char)ch;
        }
        if (i + 1 < len && n + 16 >= size) {
            memcpy(buf + n, "...", 3);
            n += 3;
        }
    }
    buf[n] = '\0';
}

/* A value as compact JSON for a message, cut with "..." when long. */
static const char *json_text(const json_t *j, char *buf, size_t size)
{
    char *text = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!text) {
        snprintf(buf, size, "(value)");
        return buf;
    }
    size_t n = strlen(text);
    if (n < size) {
        memcpy(buf, text, n + 1);
    } else {
        size_t keep = size - 4;
        while (keep > 0 && ((unsigned char)text[keep] & 0xC0) == 0x80)
            keep--; /* do not cut a UTF-8 sequence */
        memcpy(buf, text, keep);
        memcpy(buf + keep, "...", 4);
    }
    free(text);
    return buf;
}

static const char *types_text(unsigned types, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    static const int order[] = {6, 4, 5, 1, 2, 3, 0}; /* integer ... null */
    for (int i = 0; i < 7; i++)
        if (types & (1u << order[i]))
            n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? " or " : "",
                                  TYPE_NAMES[order[i]]);
    return buf;
}

static unsigned instance_type_bits(const json_t *in)
{
    switch (json_typeof(in)) {
    case JSON_NULL: return T_NULL;
    case JSON_TRUE:
    case JSON_FALSE: return T_BOOLEAN;
    case JSON_OBJECT: return T_OBJECT;
    case JSON_ARRAY: return T_ARRAY;
    case JSON_STRING: return T_STRING;
    case JSON_INTEGER: return T_NUMBER | T_INTEGER;
    case JSON_REAL: return T_NUMBER | (is_integral(in) ? T_INTEGER : 0);
    }
    return 0;
}

/* One error found: count it, and stop at once when silent or fatal. */
#define FAIL(keyword, ...)                                                                     \
    do {                                                                                       \
        errors++;                                                                              \
        if (silent || v->fatal)                                                                \
            return errors;                                                                     \
        report(v, keyword, __VA_ARGS__);                                                       \
    } while (0)

/* Adds the errors of a nested check; stops when silent or fatal. */
#define ADD(expr)                                                                              \
    do {                                                                                       \
        size_t e_ = (expr);                                                                    \
        errors += e_;                                                                          \
        if (e_ && (silent || v->fatal))                                                        \
            return errors;                                                                     \
        if (v->fatal)                                                                          \
            return errors + 1;                                                                 \
    } while (0)

static const char *where_text(const node *n)
{
    return n->where[0] ? n->where : "/";
}

/* Reporters that format values. They are kept out of line so that the
 * recursive checkers below keep small stack frames: nesting depth times
 * frame size is what bounds the stack. */
#define NOINLINE __attribute__((noinline))

static NOINLINE void report_missing(validator *v, const char *name, const char *because)
{
    char q[300], q2[300];
    quote(q, sizeof q, name, strlen(name));
    if (because) {
        quote(q2, sizeof q2, because, strlen(because));
        report(v, "dependencies", "property \"%s\" is required when \"%s\" is present", q, q2);
    } else {
        report(v, "required", "required property \"%s\" is missing", q);
    }
}

static NOINLINE void report_regex_failure(validator *v, const char *keyword, const char *source,
                                          int rc)
{
    char q[300], why[256];
    quote(q, sizeof q, source, strlen(source));
    if (pcre2_get_error_message(rc, (PCRE2_UCHAR *)why, sizeof why) < 0)
        snprintf(why, sizeof why, "PCRE2 error %d", rc);
    report(v, keyword, "matching against the pattern \"%s\" failed: %s", q, why);
}

static NOINLINE void report_property_name(validator *v, const char *key, size_t klen,
                                          const char *keyword, const char *reason)
{
    char q[300];
    quote(q, sizeof q, key, klen);
    report(v, "propertyNames", "property name \"%s\" is not allowed: %s: %s", q, keyword, reason);
}

static NOINLINE void report_type(validator *v, unsigned types, const json_t *in)
{
    char buf[128];
    report(v, "type", "expected %s, found %s", types_text(types, buf, sizeof buf),
           json_is_real(in) && (types & T_INTEGER) ? "a number that is not an integer"
                                                   : json_type_name(in));
}

static NOINLINE void report_value(validator *v, const char *keyword, const json_t *in,
                                  const json_t *allowed)
{
    char q[300], q2[120];
    if (strcmp(keyword, "const") == 0)
        report(v, keyword, "%s is not the required value %s", json_text(in, q2, sizeof q2),
               json_text(allowed, q, sizeof q));
    else
        report(v, keyword, "%s is not one of %s", json_text(in, q2, sizeof q2),
               json_text(allowed, q, sizeof q));
}

static NOINLINE void report_not(validator *v, const node *n)
{
    char q[300];
    report(v, "not", "matches %s (the schema at %s/not), which it must not",
           json_text(n->not_schema->json, q, sizeof q), n->where);
}

/* propertyNames for one key: the name checked as a string, reported once
 * with the first reason the name schema gave. */
static NOINLINE size_t check_property_name(validator *v, const node *n, const char *key,
                                           size_t klen, int silent)
{
    json_t *name = json_stringn(key, klen);
    if (!name) {
        v->out_of_memory = 1;
        set_fatal(v, "out of memory checking a property name");
        return 1;
    }
    first_error first;
    sb_schema_error_fn saved = v->on_error;
    void *saved_ctx = v->ctx;
    size_t saved_reported = v->reported;
    memset(&first, 0, sizeof first);
    v->on_error = keep_first;
    v->ctx = &first;
    size_t e = check(v, n->property_names, name, silent, "propertyNames");
    v->on_error = saved;
    v->ctx = saved_ctx;
    v->reported = saved_reported;
    json_decref(name);
    if (e && !silent && !v->fatal)
        report_property_name(v, key, klen, first.keyword, first.reason);
    return e ? 1 : 0;
}

static size_t check_object(validator *v, const node *n, const json_t *in, int silent)
{
    size_t errors = 0;
    const char *key;
    json_t *value;
    size_t size = json_object_size(in);

    if (n->min_properties >= 0 && size < (unsigned long long)n->min_properties)
        FAIL("minProperties", "object has %zu properties, fewer than the minimum %lld", size,
             n->min_properties);
    if (n->max_properties >= 0 && size > (unsigned long long)n->max_properties)
        FAIL("maxProperties", "object has %zu properties, more than the maximum %lld", size,
             n->max_properties);
    if (n->required) {
        for (size_t i = 0; i < json_array_size(n->required); i++) {
            const char *name = json_string_value(json_array_get(n->required, i));
            if (!json_object_get(in, name)) {
                errors++;
                if (silent || v->fatal)
                    return errors;
                report_missing(v, name, NULL);
            }
        }
    }
    for (size_t d = 0; d < n->n_dependencies; d++) {
        const dependency *dep = &n->dependencies[d];
        if (!json_object_get(in, dep->name))
            continue;
        if (dep->properties) {
            for (size_t i = 0; i < json_array_size(dep->properties); i++) {
                const char *name = json_string_value(json_array_get(dep->properties, i));
                if (!json_object_get(in, name)) {
                    errors++;
                    if (silent || v->fatal)
                        return errors;
                    report_missing(v, name, dep->name);
                }
            }
        } else {
            ADD(check(v, dep->schema, in, silent, "dependencies"));
        }
    }
/* Inside the property loop: add e_expr's errors, and unwind (restoring the
 * pointer) when silent and failing, or fatal. */
#define STEP(e_expr)                                                                           \
    do {                                                                                       \
        size_t e_ = (e_expr);                                                                  \
        errors += e_;                                                                          \
        if ((e_ && silent) || v->fatal) {                                                      \
            pop(v, old);                                                                       \
            return errors + (v->fatal ? 1 : 0);                                                \
        }                                                                                      \
    } while (0)

    json_object_foreach((json_t *)in, key, value) {
        size_t klen = strlen(key);
        int matched = 0;
        size_t old = push(v, key, klen);
        for (size_t i = 0; i < n->n_properties; i++) {
            if (strcmp(n->properties[i].name, key) == 0) {
                matched = 1;
                STEP(check(v, n->properties[i].schema, value, silent, "properties"));
                break;
            }
        }
        for (size_t i = 0; i < n->n_pattern_properties; i++) {
            int m = regex_matches(v, n->pattern_properties[i].re, key, klen);
            if (m < 0) {
                if (!silent)
                    report_regex_failure(v, "patternProperties", n->pattern_properties[i].source,
                                         m);
                STEP(1);
            } else if (m) {
                matched = 1;
                STEP(check(v, n->pattern_properties[i].schema, value, silent,
                           "patternProperties"));
            }
        }
        if (!matched && n->additional_properties) {
            if (n->additional_properties->kind == NODE_FALSE) {
                if (!silent)
                    report(v, "additionalProperties",
                           "property is not allowed (additionalProperties is false and it is "
                           "not listed in properties)");
                STEP(1);
            } else {
                STEP(check(v, n->additional_properties, value, silent, "additionalProperties"));
            }
        }
        if (n->property_names)
            STEP(check_property_name(v, n, key, klen, silent));
        pop(v, old);
    }
#undef STEP
    return errors;
}

/* 1 when every item of the array passes the plain number schema s; 0
 * means "not known to pass": the caller checks item by item. Exact: a
 * real against a minimum exact in a double, an integer within 2^53. */
static int plain_numbers_pass(const node *s, const json_t *in)
{
    size_t size = json_array_size(in);
    for (size_t i = 0; i < size; i++) {
        const json_t *x = json_array_get(in, i);
        double d;
        if (json_is_real(x)) {
            if (s->plain_integer_only)
                return 0;
            d = json_real_value(x);
        } else if (json_is_integer(x)) {
            long long k = json_integer_value(x);
            if (k > EXACT_INT_LIMIT || k < -EXACT_INT_LIMIT)
                return 0;
            d = (double)k;
        } else {
            return 0;
        }
        if (s->plain_has_min && !(d >= s->plain_min))
            return 0;
    }
    return 1;
}

static size_t check_array(validator *v, const node *n, const json_t *in, int silent)
{
    size_t errors = 0, size = json_array_size(in);
    if (n->min_items >= 0 && size < (unsigned long long)n->min_items)
        FAIL("minItems", "array has %zu items, fewer than the minimum %lld", size, n->min_items);
    if (n->max_items >= 0 && size > (unsigned long long)n->max_items)
        FAIL("maxItems", "array has %zu items, more than the maximum %lld", size, n->max_items);
    if (n->unique_items) {
        for (size_t i = 1; i < size; i++)
            for (size_t j = 0; j < i; j++)
                if (values_equal(json_array_get(in, i), json_array_get(in, j))) {
                    FAIL("uniqueItems", "items %zu and %zu are equal", j, i);
                    j = i; /* one report per duplicate item */
                }
    }
    int items_pass = !n->items_is_tuple && n->items && n->items->plain_number &&
                     plain_numbers_pass(n->items, in);
    for (size_t i = 0; i < size && !items_pass; i++) {
        const node *s = NULL;
        const char *via = "items";
        if (n->items_is_tuple) {
            if (i < n->items_tuple.count) {
                s = n->items_tuple.items[i];
            } else {
                s = n->additional_items;
                via = "additionalItems";
            }
        } else {
            s = n->items;
        }
        if (!s)
            continue;
        size_t old = push_index(v, i);
        size_t e;
        if (s->kind == NODE_FALSE) {
            e = 1;
            if (!silent && via[0] == 'a')
                report(v, via, "item is not allowed: additionalItems is false and items lists "
                               "only %zu schemas", n->items_tuple.count);
            else if (!silent)
                report(v, via, "item is not allowed: its schema at %s is false", where_text(s));
        } else {
            e = check(v, s, json_array_get(in, i), silent, via);
        }
        pop(v, old);
        errors += e;
        if ((e && silent) || v->fatal)
            return errors + (v->fatal && !e);
    }
    if (n->contains) {
        int found = 0;
        for (size_t i = 0; i < size && !found; i++) {
            size_t old = push_index(v, i);
            found = check(v, n->contains, json_array_get(in, i), 1, "contains") == 0;
            pop(v, old);
            if (v->fatal)
                return errors + 1;
        }
        if (!found)
            FAIL("contains", "no item matches the schema at %s",
                 n->contains->where[0] ? n->contains->where : "/");
    }
    return errors;
}

static NOINLINE size_t check_string(validator *v, const node *n, const json_t *in, int silent)
{
    size_t errors = 0, bytes = json_string_length(in);
    const char *s = json_string_value(in);
    char q[300];
    if (n->min_length >= 0 || n->max_length >= 0) {
        size_t len = utf8_length(s, bytes);
        if (n->min_length >= 0 && len < (unsigned long long)n->min_length)
            FAIL("minLength", "string has %zu characters, fewer than the minimum %lld", len,
                 n->min_length);
        if (n->max_length >= 0 && len > (unsigned long long)n->max_length)
            FAIL("maxLength", "string has %zu characters, more than the maximum %lld", len,
                 n->max_length);
    }
    if (n->pattern) {
        int m = regex_matches(v, n->pattern, s, bytes);
        if (m == 0) {
            char qs[300];
            quote(q, sizeof q, s, bytes);
            quote(qs, sizeof qs, n->pattern_source, strlen(n->pattern_source));
            FAIL("pattern", "\"%s\" does not match the pattern \"%s\"", q, qs);
        } else if (m < 0) {
            errors++;
            if (silent || v->fatal)
                return errors;
            report_regex_failure(v, "pattern", n->pattern_source, m);
        }
    }
    return errors;
}

static NOINLINE size_t check_number(validator *v, const node *n, const json_t *in, int silent)
{
    size_t errors = 0;
    char a[64], b[64];
    if (n->minimum && cmp_numbers(in, n->minimum) < 0) {
        format_number(in, a, sizeof a);
        format_number(n->minimum, b, sizeof b);
        FAIL("minimum", "%s is less than the minimum %s", a, b);
    }
    if (n->maximum && cmp_numbers(in, n->maximum) > 0) {
        format_number(in, a, sizeof a);
        format_number(n->maximum, b, sizeof b);
        FAIL("maximum", "%s is greater than the maximum %s", a, b);
    }
    if (n->exclusive_minimum && cmp_numbers(in, n->exclusive_minimum) <= 0) {
        format_number(in, a, sizeof a);
        format_number(n->exclusive_minimum, b, sizeof b);
        FAIL("exclusiveMinimum", "%s is not greater than %s", a, b);
    }
    if (n->exclusive_maximum && cmp_numbers(in, n->exclusive_maximum) >= 0) {
        format_number(in, a, sizeof a);
        format_number(n->exclusive_maximum, b, sizeof b);
        FAIL("exclusiveMaximum", "%s is not less than %s", a, b);
    }
    if (n->multiple_of && !is_multiple_of(in, n->multiple_of)) {
        format_number(in, a, sizeof a);
        format_number(n->multiple_of, b, sizeof b);
        FAIL("multipleOf", "%s is not a multiple of %s", a, b);
    }
    return errors;
}


static size_t check_ref(validator *v, const node *n, const json_t *in, int silent,
                        const char *via)
{
    for (size_t i = 0; i < v->depth; i++) {
        if (v->stack[i].n == n && v->stack[i].instance == in) {
            set_fatal(v, "schema loops: $ref \"%s\" at %s/$ref comes back to the same value "
                         "without moving into it",
                      n->ref_text, n->where);
            return 1;
        }
    }
    if (v->depth >= MAX_REF_DEPTH) {
        set_fatal(v, "more than %d $refs followed one inside another (at %s/$ref); giving up",
                  MAX_REF_DEPTH, n->where);
        return 1;
    }
    if (v->depth == v->stack_cap) {
        size_t cap = v->stack_cap ? v->stack_cap * 2 : 32;
        frame *f = realloc(v->stack, cap * sizeof *f);
        if (!f) {
            v->out_of_memory = 1;
            set_fatal(v, "out of memory following $ref");
            return 1;
        }
        v->stack = f;
        v->stack_cap = cap;
    }
    v->stack[v->depth].n = n;
    v->stack[v->depth].instance = in;
    v->depth++;
    size_t e = check(v, n->ref, in, silent, via);
    v->depth--;
    return e;
}

static size_t check_node(validator *v, const node *n, const json_t *in, int silent,
                         const char *via);

static size_t check(validator *v, const node *n, const json_t *in, int silent, const char *via)
{
    if (v->nesting >= MAX_NESTING) {
        set_fatal(v, "schemas nested more than %d deep at schema %s; giving up", MAX_NESTING,
                  where_text(n));
        return 1;
    }
    v->nesting++;
    size_t errors = check_node(v, n, in, silent, via);
    v->nesting--;
    return errors;
}

static size_t check_node(validator *v, const node *n, const json_t *in, int silent,
                         const char *via)
{
    size_t errors = 0;

    if (v->fatal)
        return 1;
    if (n->kind == NODE_TRUE)
        return 0;
    if (n->kind == NODE_FALSE) {
        FAIL(via ? via : "false", "no value is allowed here (the schema at %s is false)",
             where_text(n));
        return errors;
    }
    if (n->ref)
        return check_ref(v, n, in, silent, via);

    unsigned bits = instance_type_bits(in);
    if (n->types && !(n->types & bits)) {
        errors++;
        if (silent || v->fatal)
            return errors;
        report_type(v, n->types, in);
    }
    if (n->const_value && !values_equal(in, n->const_value)) {
        errors++;
        if (silent || v->fatal)
            return errors;
        report_value(v, "const", in, n->const_value);
    }
    if (n->enum_values) {
        int found = 0;
        for (size_t i = 0; i < json_array_size(n->enum_values) && !found; i++)
            found = values_equal(in, json_array_get(n->enum_values, i));
        if (!found) {
            errors++;
            if (silent || v->fatal)
                return errors;
            report_value(v, "enum", in, n->enum_values);
        }
    }
    if (json_is_number(in))
        ADD(check_number(v, n, in, silent));
    else if (json_is_string(in))
        ADD(check_string(v, n, in, silent));
    else if (json_is_object(in))
        ADD(check_object(v, n, in, silent));
    else if (json_is_array(in))
        ADD(check_array(v, n, in, silent));

    for (size_t i = 0; i < n->all_of.count; i++)
        ADD(check(v, n->all_of.items[i], in, silent, "allOf"));
    if (n->any_of.count) {
        int ok = 0;
        for (size_t i = 0; i < n->any_of.count && !ok; i++) {
            ok = check(v, n->any_of.items[i], in, 1, "anyOf") == 0;
            if (v->fatal)
                return errors + 1;
        }
        if (!ok)
            FAIL("anyOf", "matches none of the %zu schemas under %s/anyOf", n->any_of.count,
                 n->where);
    }
    if (n->one_of.count) {
        size_t first = 0, matches = 0;
        for (size_t i = 0; i < n->one_of.count && matches < 2; i++) {
            if (check(v, n->one_of.items[i], in, 1, "oneOf") == 0) {
                if (!matches)
                    first = i;
                matches++;
                if (matches == 2) {
                    FAIL("oneOf", "matches more than one schema under %s/oneOf (%zu and %zu)",
                         n->where, first, i);
                }
            }
            if (v->fatal)
                return errors + 1;
        }
        if (!matches)
            FAIL("oneOf", "matches none of the %zu schemas under %s/oneOf", n->one_of.count,
                 n->where);
    }
    if (n->not_schema) {
        int matched = check(v, n->not_schema, in, 1, "not") == 0;
        if (v->fatal)
            return errors + 1;
        if (matched) {
            errors++;
            if (silent || v->fatal)
                return errors;
            report_not(v, n);
        }
    }
    if (n->if_schema) {
        int cond = check(v, n->if_schema, in, 1, "if") == 0;
        if (v->fatal)
            return errors + 1;
        if (cond && n->then_schema)
            ADD(check(v, n->then_schema, in, silent, "then"));
        else if (!cond && n->else_schema)
            ADD(check(v, n->else_schema, in, silent, "else"));
    }
    return errors;
}

size_t sb_schema_validate(const sb_schema *s, const json_t *instance, sb_schema_error_fn on_error,
                          void *ctx)
{
    validator v;
    if (!s || !instance) {
        if (on_error)
            on_error(ctx, "", "validate", s ? "no document to validate" : "no schema");
        return 1;
    }
    memset(&v, 0, sizeof v);
    v.on_error = on_error;
    v.ctx = ctx;
    v.match = pcre2_match_data_create(1, NULL);
    if (!v.match) {
        if (on_error)
            on_error(ctx, "", "validate", "out of memory");
        return 1;
    }
    size_t found = check(&v, s->root, instance, 0, NULL);
    /* The count is what the callback saw: errors inside a silent branch
     * collapse into their combinator's one error. */
    size_t errors = v.reported;
    if (v.fatal) {
        if (on_error)
            on_error(ctx, v.fatal_ptr ? v.fatal_ptr : "", "$ref", v.fatal_reason);
        errors++;
    } else if (v.out_of_memory) {
        if (on_error)
            on_error(ctx, "", "validate", "out of memory while validating");
        errors++;
    } else if (found && !errors) {
        if (on_error)
            on_error(ctx, "", "validate", "invalid");
        errors = 1;
    }
    pcre2_match_data_free(v.match);
    free(v.path);
    free(v.ptr);
    free(v.stack);
    free(v.fatal_ptr);
    return errors;
}

int sb_schema_check(const sb_schema *s, const json_t *instance, const char *file, sb_error *err)
{
    first_error f;
    memset(&f, 0, sizeof f);
    if (sb_schema_validate(s, instance, keep_first, &f) == 0)
        return SB_OK;
    return sb_error_set(err, file, f.pointer, "schema %s: %s: %s", s->name, f.keyword, f.reason);
}

/* ------------------------------------------------------------------ */
/* The solbook schema set                                               */

typedef struct set_entry {
    char *id;
    sb_schema *schema;
} set_entry;

struct sb_schema_set {
    set_entry *entries;
    size_t count;
};

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const set_entry *)a)->id, ((const set_entry *)b)->id);
}

void sb_schema_set_free(sb_schema_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->count; i++) {
        free(set->entries[i].id);
        sb_schema_free(set->entries[i].schema);
    }
    free(set->entries);
    free(set);
}

int sb_schema_set_load(const char *dir, sb_schema_set **out, sb_error *err)
{
    DIR *d;
    struct dirent *de;
    size_t cap = 0;
    sb_schema_set *set;
    *out = NULL;
    d = opendir(dir);
    if (!d)
        return sb_error_set(err, dir, NULL, "cannot open schema directory: %s", strerror(errno));
    set = calloc(1, sizeof *set);
    if (!set) {
        closedir(d);
        return sb_error_set(err, dir, NULL, "out of memory");
    }
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        char path[4096];
        struct stat st;
        if (n <= 5 || strcmp(de->d_name + n - 5, ".json") != 0 || de->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path) {
            closedir(d);
            sb_schema_set_free(set);
            return sb_error_set(err, dir, NULL, "path too long: %s", de->d_name);
        }
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (set->count == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            set_entry *e = realloc(set->entries, ncap * sizeof *e);
            if (!e) {
                closedir(d);
                sb_schema_set_free(set);
                return sb_error_set(err, dir, NULL, "out of memory");
            }
            set->entries = e;
            cap = ncap;
        }
        set_entry *e = &set->entries[set->count];
        e->id = dup_range(de->d_name, n - 5);
        e->schema = NULL;
        if (!e->id) {
            closedir(d);
            sb_schema_set_free(set);
            return sb_error_set(err, dir, NULL, "out of memory");
        }
        set->count++;
        if (sb_schema_load_file(path, &e->schema, err) != SB_OK) {
            closedir(d);
            sb_schema_set_free(set);
            return SB_ERR;
        }
    }
    closedir(d);
    if (set->count == 0) {
        sb_schema_set_free(set);
        return sb_error_set(err, dir, NULL, "no *.json schemas in this directory");
    }
    qsort(set->entries, set->count, sizeof *set->entries, entry_cmp);
    *out = set;
    return SB_OK;
}

const sb_schema *sb_schema_set_find(const sb_schema_set *set, const char *id)
{
    set_entry key = {(char *)id, NULL};
    const set_entry *e;
    if (!set || !id)
        return NULL;
    e = bsearch(&key, set->entries, set->count, sizeof *set->entries, entry_cmp);
    return e ? e->schema : NULL;
}

size_t sb_schema_set_count(const sb_schema_set *set)
{
    return set ? set->count : 0;
}

const char *sb_schema_set_id(const sb_schema_set *set, size_t i)
{
    return set && i < set->count ? set->entries[i].id : NULL;
}

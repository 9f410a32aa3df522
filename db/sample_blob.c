/* sample_blob.c - packing and unpacking run_samples values. */
#include "sample_blob.h"

#include <jansson.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canonical_json.h"

/* The stored order is little-endian on any host: a plain copy where the
 * host is little-endian, byte by byte elsewhere. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LITTLE_ENDIAN 1
#else
#define HOST_LITTLE_ENDIAN 0
#endif

_Static_assert(sizeof(double) == 8, "samples are stored as IEEE 754 binary64");

void sb_sample_blob_encode(const double *v, size_t n, unsigned char *out)
{
    if (HOST_LITTLE_ENDIAN) {
        memcpy(out, v, n * sizeof *v);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t u;
        memcpy(&u, &v[i], sizeof u);
        for (int b = 0; b < 8; b++)
            out[8 * i + (size_t)b] = (unsigned char)(u >> (8 * b));
    }
}

int sb_sample_blob_decode(const void *blob, size_t bytes, double *out)
{
    if (bytes % 8)
        return -1;
    if (HOST_LITTLE_ENDIAN) {
        if (bytes)
            memcpy(out, blob, bytes);
        return 0;
    }
    const unsigned char *p = blob;
    for (size_t i = 0; i < bytes / 8; i++) {
        uint64_t u = 0;
        for (int b = 0; b < 8; b++)
            u |= (uint64_t)p[8 * i + (size_t)b] << (8 * b);
        memcpy(&out[i], &u, sizeof u);
    }
    return 0;
}

const char *sb_sample_blob_column(sqlite3_stmt *st, int col, double **buf, size_t *cap,
                                  size_t *n)
{
    *n = 0;
    const void *blob = sqlite3_column_blob(st, col); /* before the size: it may convert */
    size_t bytes = (size_t)sqlite3_column_bytes(st, col);
    if (bytes % 8)
        return "the stored samples are not a whole number of 8-byte values";
    if (!bytes)
        return NULL;
    if (!blob)
        return "out of memory";
    if (bytes / 8 > *cap) {
        double *b = realloc(*buf, bytes);
        if (!b)
            return "out of memory";
        *buf = b;
        *cap = bytes / 8;
    }
    sb_sample_blob_decode(blob, bytes, *buf);
    *n = bytes / 8;
    return NULL;
}

int sb_sample_blob_rep_lengths(const size_t *len, size_t n, char *out, size_t out_size)
{
    size_t k = 0;
    if (out_size < 3)
        return -1;
    out[k++] = '[';
    for (size_t r = 0; r < n; r++) {
        int w = snprintf(out + k, out_size - k, r ? ",%zu" : "%zu", len[r]);
        if (w < 0 || (size_t)w >= out_size - k)
            return -1;
        k += (size_t)w;
    }
    if (k + 2 > out_size)
        return -1;
    out[k++] = ']';
    out[k] = 0;
    return (int)k;
}

/* ---- the migration aggregates ---- */

typedef struct sample_row {
    sqlite3_int64 rep, idx;
    double value;
} sample_row;

typedef struct collected {
    sample_row *rows;
    size_t n, cap;
    int failed;
} collected;

static void collect(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    collected *c = sqlite3_aggregate_context(ctx, sizeof *c);
    if (!c || c->failed)
        return;
    sqlite3_int64 rep = sqlite3_value_int64(argv[0]), idx = sqlite3_value_int64(argv[1]);
    if (rep < 0 || idx < 0) {
        c->failed = 1;
        return;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        sample_row *r = realloc(c->rows, cap * sizeof *r);
        if (!r) {
            c->failed = 2;
            return;
        }
        c->rows = r;
        c->cap = cap;
    }
    c->rows[c->n++] = (sample_row){rep, idx, argc > 2 ? sqlite3_value_double(argv[2]) : 0};
}

static int by_rep_idx(const void *a, const void *b)
{
    const sample_row *x = a, *y = b;
    if (x->rep != y->rep)
        return x->rep < y->rep ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The collected rows in (rep, idx) order; NULL with an error set on ctx
 * when collecting failed. *n 0 for a group of no rows. */
static collected *sorted(sqlite3_context *ctx)
{
    collected *c = sqlite3_aggregate_context(ctx, 0);
    if (c && c->failed) {
        if (c->failed == 2)
            sqlite3_result_error_nomem(ctx);
        else
            sqlite3_result_error(ctx, "samples: negative rep or idx", -1);
        free(c->rows);
        return NULL;
    }
    if (c && c->n)
        qsort(c->rows, c->n, sizeof *c->rows, by_rep_idx);
    return c;
}

static void pack_final(sqlite3_context *ctx)
{
    collected *c = sorted(ctx);
    if (!c || !c->n) {
        if (c)
            sqlite3_result_zeroblob(ctx, 0);
        return;
    }
    unsigned char *blob = malloc(SB_SAMPLE_BLOB_BYTES(c->n));
    if (!blob) {
        sqlite3_result_error_nomem(ctx);
        free(c->rows);
        return;
    }
    for (size_t i = 0; i < c->n; i++)
        sb_sample_blob_encode(&c->rows[i].value, 1, blob + 8 * i);
    sqlite3_result_blob64(ctx, blob, SB_SAMPLE_BLOB_BYTES(c->n), free);
    free(c->rows);
}

/* Repeats from 0 to the highest one present; one with no rows is 0 long. */
static void rep_lengths_final(sqlite3_context *ctx)
{
    collected *c = sorted(ctx);
    if (!c)
        return;
    sqlite3_str *s = sqlite3_str_new(sqlite3_context_db_handle(ctx));
    sqlite3_str_appendchar(s, 1, '[');
    size_t i = 0;
    for (sqlite3_int64 rep = 0; c->n && rep <= c->rows[c->n - 1].rep; rep++) {
        sqlite3_int64 len = 0;
        while (i < c->n && c->rows[i].rep == rep) {
            len++;
            i++;
        }
        sqlite3_str_appendf(s, rep ? ",%lld" : "%lld", len);
    }
    sqlite3_str_appendchar(s, 1, ']');
    free(c->rows);
    int len = sqlite3_str_length(s);
    char *text = sqlite3_str_finish(s);
    if (!text) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_result_text(ctx, text, len, sqlite3_free);
}

int sb_sample_blob_register(sqlite3 *conn)
{
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY;
    int rc = sqlite3_create_function_v2(conn, "sb_pack_samples", 3, flags, NULL, NULL, collect,
                                        pack_final, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(conn, "sb_rep_lengths", 2, flags, NULL, NULL, collect,
                                        rep_lengths_final, NULL);
    return rc;
}

/* ---- the samples cut out of a result's canonical JSON ---- */

static const char MEMBER[] = "\"samples\":";
#define MEMBER_LEN (sizeof MEMBER - 1)

int sb_samples_json(const char *rep_lengths, const void *blob, size_t bytes, sb_buf *out)
{
    if (!rep_lengths || *rep_lengths != '[' || bytes % 8)
        return -1;
    size_t n = bytes / 8, k = 0;
    const char *p = rep_lengths + 1;
    sb_buf_putc(out, '[');
    while (*p != ']') {
        char *end;
        unsigned long long len = strtoull(p, &end, 10);
        if (end == p || len > n - k || (*end != ',' && *end != ']'))
            return -1;
        if (p != rep_lengths + 1)
            sb_buf_putc(out, ',');
        sb_buf_putc(out, '[');
        for (unsigned long long i = 0; i < len; i++, k++) {
            double v;
            char text[32];
            sb_sample_blob_decode((const unsigned char *)blob + 8 * k, 8, &v);
            if (i)
                sb_buf_putc(out, ',');
            sb_buf_add(out, text, sb_canonical_real(v, text));
        }
        sb_buf_putc(out, ']');
        p = *end == ',' ? end + 1 : end;
    }
    sb_buf_putc(out, ']');
    return k == n && !p[1] && !sb_buf_failed(out) ? 0 : -1;
}

int sb_raw_json_join(const char *raw_json, size_t len, long long at, const char *rep_lengths,
                     const void *blob, size_t bytes, sb_buf *out)
{
    if (at < 0) {
        sb_buf_add(out, raw_json, len);
        return sb_buf_failed(out) ? -1 : 0;
    }
    if (at < 1 || (size_t)at >= len)
        return -1;
    size_t a = (size_t)at;
    /* the member goes after a member before it, else before the first
     * one after it, else alone in its object */
    int after = raw_json[a - 1] != '{', before = !after && raw_json[a] != '}';
    sb_buf_add(out, raw_json, a);
    if (after)
        sb_buf_putc(out, ',');
    sb_buf_add(out, MEMBER, MEMBER_LEN);
    if (sb_samples_json(rep_lengths, blob, bytes, out) != 0)
        return -1;
    if (before)
        sb_buf_putc(out, ',');
    sb_buf_add(out, raw_json + a, len - a);
    return sb_buf_failed(out) ? -1 : 0;
}

int sb_raw_json_column(sqlite3_stmt *st, int col, sb_buf *out)
{
    const char *raw = (const char *)sqlite3_column_text(st, col);
    size_t len = (size_t)sqlite3_column_bytes(st, col);
    long long at = sqlite3_column_type(st, col + 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, col + 1);
    const void *blob = sqlite3_column_blob(st, col + 3);
    size_t bytes = (size_t)sqlite3_column_bytes(st, col + 3);
    return sb_raw_json_join(raw ? raw : "", raw ? len : 0, at,
                            (const char *)sqlite3_column_text(st, col + 2), blob, bytes, out);
}

long long sb_raw_json_cut_at(const char *whole, size_t whole_len, const char *cut, size_t cut_len)
{
    if (cut_len >= whole_len || !cut_len)
        return -1;
    size_t gap = whole_len - cut_len, d = 0, s = 0;
    while (d < cut_len && whole[d] == cut[d])
        d++;
    while (s < cut_len && whole[whole_len - 1 - s] == cut[cut_len - 1 - s])
        s++;
    /* at: whole[0, at) is cut[0, at) and whole[at + gap, ...) is cut[at, ...) */
    for (size_t at = d + 1; at-- > (cut_len > s ? cut_len - s : 0) && at > 0;) {
        if (at >= cut_len)
            continue;
        const char *m = whole + at;
        int after = cut[at - 1] != '{', before = !after && cut[at] != '}';
        size_t head = (size_t)after, tail = (size_t)before;
        if (gap < head + MEMBER_LEN + tail + 2 || (after && m[0] != ',') ||
            memcmp(m + head, MEMBER, MEMBER_LEN) || m[head + MEMBER_LEN] != '[' ||
            m[gap - tail - 1] != ']' || (before && m[gap - 1] != ','))
            continue;
        return (long long)at;
    }
    return -1;
}

/* The cut of one stored run: its offset (-1: none) and the text without
 * the samples (NULL with -1). */
static long long cut_run(const char *raw, size_t len, const char *rep_lengths, const void *blob,
                         size_t bytes, char **text)
{
    *text = NULL;
    if (!raw || !rep_lengths || !blob || !bytes)
        return -1;
    json_t *doc = json_loadb(raw, len, 0, NULL);
    json_t *timing = json_object_get(doc, "timing");
    json_t *samples = json_object_get(timing, "samples");
    int ok = json_is_string(json_object_get(doc, "schema")) &&
             strcmp(json_string_value(json_object_get(doc, "schema")), "solbook.result.v1") == 0 &&
             json_array_size(samples) > 0;
    for (size_t r = 0; ok && r < json_array_size(samples); r++) {
        json_t *rep = json_array_get(samples, r);
        ok = json_is_array(rep);
        for (size_t i = 0; ok && i < json_array_size(rep); i++)
            ok = json_is_real(json_array_get(rep, i));
    }
    long long at = -1;
    char *cut = ok && json_object_del(timing, "samples") == 0 ? sb_canonical_json(doc, NULL) : NULL;
    json_decref(doc);
    if (cut)
        at = sb_raw_json_cut_at(raw, len, cut, strlen(cut));
    if (at >= 0) {
        /* kept only where the samples join back into the same bytes */
        sb_buf b = SB_BUF_INIT;
        if (sb_raw_json_join(cut, strlen(cut), at, rep_lengths, blob, bytes, &b) != 0 ||
            b.len != len || memcmp(b.data, raw, len) != 0)
            at = -1;
        sb_buf_free(&b);
    }
    if (at < 0)
        free(cut);
    else
        *text = cut;
    return at;
}

static void cut_function(sqlite3_context *ctx, int argc, sqlite3_value **argv, int want_text)
{
    (void)argc;
    const char *raw = (const char *)sqlite3_value_text(argv[0]);
    size_t len = (size_t)sqlite3_value_bytes(argv[0]);
    char *text;
    long long at = cut_run(raw, len, (const char *)sqlite3_value_text(argv[1]),
                           sqlite3_value_blob(argv[2]), (size_t)sqlite3_value_bytes(argv[2]), &text);
    if (want_text && at >= 0)
        sqlite3_result_text(ctx, text, -1, free);
    else if (want_text)
        sqlite3_result_value(ctx, argv[0]);
    else if (at >= 0)
        sqlite3_result_int64(ctx, at);
    else
        sqlite3_result_null(ctx);
    if (!want_text)
        free(text);
}

static void cut_at_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    cut_function(ctx, argc, argv, 0);
}

static void cut_text_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    cut_function(ctx, argc, argv, 1);
}

int sb_samples_cut_register(sqlite3 *conn)
{
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY;
    int rc = sqlite3_create_function_v2(conn, "sb_samples_cut_at", 3, flags, NULL, cut_at_function,
                                        NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(conn, "sb_samples_cut_text", 3, flags, NULL,
                                        cut_text_function, NULL, NULL, NULL);
    return rc;
}

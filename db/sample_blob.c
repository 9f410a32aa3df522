/* sample_blob.c - packing and unpacking run_samples values. */
#include "sample_blob.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

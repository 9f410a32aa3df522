/* csv_rows.c - CSV records with libcsv: fields gathered into one reused
 * buffer, fed one physical line at a time so errors carry line numbers. */
#include "csv_rows.h"

#include <csv.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "json_file.h"
#include "strbuf.h"

typedef struct reader {
    const char *name;
    size_t max_fields, max_field_bytes;
    sb_csv_row_fn row_fn;
    void *ctx;
    sb_error *err;
    sb_buf text;          /* the current record's fields, each followed by NUL */
    size_t *starts;       /* offset of each field in text */
    const char **fields;  /* built from starts when the record ends */
    size_t n, cap;
    size_t line;          /* physical line being fed */
    size_t start_line;    /* line the current record started on, when started */
    int started;
    int failed;
} reader;

int sb_csv_line_error(sb_error *err, const char *file, size_t line, const char *fmt, ...)
{
    char where[64], msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(where, sizeof where, "line %zu", line);
    return sb_error_set(err, file, where, "%s", msg);
}

/* Marks the read failed; 1 the first time, so only the first error is
 * kept (libcsv goes on calling back to the end of the line). */
static int first_failure(reader *r)
{
    if (r->failed)
        return 0;
    r->failed = 1;
    return 1;
}

static size_t record_line(const reader *r)
{
    return r->started ? r->start_line : r->line;
}

static void on_field(void *data, size_t len, void *v)
{
    reader *r = v;
    if (r->failed)
        return;
    if (r->n >= r->max_fields) {
        if (first_failure(r))
            sb_csv_line_error(r->err, r->name, record_line(r), "a record with more than %zu fields",
                              r->max_fields);
        return;
    }
    if (len > r->max_field_bytes) {
        if (first_failure(r))
            sb_csv_line_error(r->err, r->name, record_line(r), "field %zu is longer than %zu bytes",
                              r->n + 1, r->max_field_bytes);
        return;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 32;
        size_t *s = realloc(r->starts, cap * sizeof *s);
        const char **f = s ? realloc(r->fields, cap * sizeof *f) : NULL;
        if (s)
            r->starts = s;
        if (!f) {
            if (first_failure(r))
                sb_csv_line_error(r->err, r->name, record_line(r), "out of memory");
            return;
        }
        r->fields = f;
        r->cap = cap;
    }
    r->starts[r->n++] = r->text.len;
    if (len)
        sb_buf_add(&r->text, data, len);
    sb_buf_putc(&r->text, '\0');
}

static void on_row(int term, void *v)
{
    reader *r = v;
    size_t line = record_line(r);
    (void)term;
    r->started = 0;
    if (!r->failed && sb_buf_failed(&r->text) && first_failure(r))
        sb_csv_line_error(r->err, r->name, line, "out of memory");
    if (!r->failed) {
        for (size_t i = 0; i < r->n; i++)
            r->fields[i] = r->text.data + r->starts[i];
        if (r->row_fn(r->ctx, r->fields, r->n, line, r->err) != SB_OK) {
            r->failed = 1;
            sb_error_set_file(r->err, r->name);
        }
    }
    r->n = 0;
    sb_buf_reset(&r->text);
}

/* Whether libcsv would start a record on this line: anything but the
 * spaces, tabs and line ends it skips between records. */
static int has_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return 1;
    return 0;
}

static const char *parse_problem(int code)
{
    return code == CSV_EPARSE ? "a quote inside an unquoted field, or text after a closing quote"
                              : csv_strerror(code);
}

int sb_csv_read_buffer(const char *buf, size_t len, const char *name, const sb_csv_options *opts,
                       sb_csv_row_fn row_fn, void *ctx, sb_error *err)
{
    static const sb_csv_options defaults = {0};
    struct csv_parser p;
    reader r;
    size_t pos = 0;

    if (!opts)
        opts = &defaults;
    memset(&r, 0, sizeof r);
    r.name = name;
    r.max_fields = opts->max_fields ? opts->max_fields : SB_CSV_MAX_FIELDS;
    r.max_field_bytes = opts->max_field_bytes ? opts->max_field_bytes : SB_CSV_MAX_FIELD_BYTES;
    r.row_fn = row_fn;
    r.ctx = ctx;
    r.err = err;
    r.line = opts->first_line ? opts->first_line : 1;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
        return sb_error_set(err, name, NULL, "cannot start the CSV parser");
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        pos = 3;
    while (pos < len && !r.failed) {
        const char *at = buf + pos;
        const char *nl = memchr(at, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - at) + 1 : len - pos;
        size_t valid;
        if (memchr(at, '\0', n)) {
            if (first_failure(&r))
                sb_csv_line_error(err, name, r.line, "NUL byte: not a text CSV file");
        } else if ((valid = sb_utf8_valid_len(at, n)) < n) {
            /* every field becomes JSON text, which must be UTF-8: a field
             * that is not would be dropped from its run, or refused as a
             * missing field, instead of named */
            if (first_failure(&r))
                sb_csv_line_error(err, name, r.line,
                                  "byte 0x%02X at column %zu is not UTF-8: not a UTF-8 text CSV file",
                                  (unsigned)(unsigned char)at[valid], valid + 1);
        } else if (!(opts->skip_line && opts->skip_line(at, n))) {
            if (!r.started && has_text(at, n)) {
                r.started = 1;
                r.start_line = r.line;
            }
            if (csv_parse(&p, at, n, on_field, on_row, &r) != n && first_failure(&r))
                sb_csv_line_error(err, name, r.line,
                                  "malformed CSV: %s", parse_problem(csv_error(&p)));
        }
        pos += n;
        if (nl)
            r.line++;
    }
    if (!r.failed && csv_fini(&p, on_field, on_row, &r) != 0 && first_failure(&r)) {
        if (csv_error(&p) == CSV_EPARSE)
            sb_csv_line_error(err, name, record_line(&r),
                              "malformed CSV: unterminated quoted field: its quote is not closed "
                              "before the end of the file");
        else
            sb_csv_line_error(err, name, record_line(&r), "malformed CSV: %s",
                              csv_strerror(csv_error(&p)));
    }
    csv_free(&p);
    sb_buf_free(&r.text);
    free(r.starts);
    free(r.fields);
    return r.failed ? SB_ERR : SB_OK;
}

int sb_csv_read_file(const char *path, const sb_csv_options *opts, sb_csv_row_fn row_fn,
                     void *ctx, sb_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    if (sb_file_read_all(path, &buf, &len, err) != SB_OK) {
        sb_error_set_file(err, path);
        return SB_ERR;
    }
    int rc = sb_csv_read_buffer(buf, len, path, opts, row_fn, ctx, err);
    free(buf);
    return rc;
}

/* Keeps a record: the pointer array and the text in one allocation. */
static int keep_record(void *ctx, const char *const *fields, size_t nfields, size_t line,
                       sb_error *err)
{
    sb_csv_table *t = ctx;
    size_t bytes = nfields * sizeof(char *);
    for (size_t i = 0; i < nfields; i++)
        bytes += strlen(fields[i]) + 1;
    /* what the record takes on the heap: its allocation with malloc's
     * header, rounded as malloc rounds, and its slot in the array (which
     * doubles, so up to two) */
    t->held += ((bytes ? bytes : 1) + 16 + 15) / 16 * 16 + 2 * sizeof *t->records;
    if (t->held > SB_CSV_MAX_HELD)
        return sb_error_set(err, NULL, NULL,
                            "the file's records would take more than %zu MiB held (%zu records so far): refused",
                            (size_t)SB_CSV_MAX_HELD >> 20, t->n);
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        sb_csv_record *g = realloc(t->records, cap * sizeof *g);
        if (!g)
            return sb_error_set(err, NULL, NULL, "out of memory");
        t->records = g;
        t->cap = cap;
    }
    const char **f = malloc(bytes ? bytes : 1);
    if (!f)
        return sb_error_set(err, NULL, NULL, "out of memory");
    char *text = (char *)(f + nfields);
    for (size_t i = 0; i < nfields; i++) {
        size_t n = strlen(fields[i]) + 1;
        memcpy(text, fields[i], n);
        f[i] = text;
        text += n;
    }
    t->records[t->n++] = (sb_csv_record){.fields = f, .n = nfields, .line = line};
    return SB_OK;
}

int sb_csv_read_table(const char *buf, size_t len, const char *name, const sb_csv_options *opts,
                      sb_csv_table *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    out->held = len; /* the text is held beside its records */
    return sb_csv_read_buffer(buf, len, name, opts, keep_record, out, err);
}

void sb_csv_table_free(sb_csv_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free((void *)t->records[i].fields);
    free(t->records);
    memset(t, 0, sizeof *t);
}

size_t sb_csv_find_columns(const char *const *fields, size_t nfields, const char *const *names,
                           size_t n_names, int *col)
{
    size_t repeated = nfields;
    for (size_t k = 0; k < n_names; k++)
        col[k] = -1;
    for (size_t i = 0; i < nfields; i++)
        for (size_t k = 0; k < n_names; k++)
            if (strcmp(fields[i], names[k]) == 0) {
                if (col[k] >= 0) {
                    if (repeated == nfields)
                        repeated = i;
                } else {
                    col[k] = (int)i;
                }
            }
    return repeated;
}

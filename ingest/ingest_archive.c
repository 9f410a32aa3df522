/* ingest_archive.c - tar and JSON Lines archives through libarchive. */
#include "ingest_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>

#include "json_file.h" /* SB_JSON_MAX_BYTES */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int is_jsonl(const char *path)
{
    return ends_with(path, ".jsonl") || ends_with(path, ".jsonl.gz");
}

int sb_archive_named(const char *path)
{
    return ends_with(path, ".tar") || ends_with(path, ".tar.gz") || ends_with(path, ".tgz") ||
           is_jsonl(path);
}

typedef struct member {
    char *name;
    char *data;
    size_t len;
} member;

typedef struct members {
    member *v;
    size_t n, cap;
} members;

static void members_free(members *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].name);
        free(m->v[i].data);
    }
    free(m->v);
}

static int cmp_member(const void *a, const void *b)
{
    return strcmp(((const member *)a)->name, ((const member *)b)->name);
}

static const member *find(const members *m, const char *name)
{
    member key = {(char *)name, NULL, 0};
    return bsearch(&key, m->v, m->n, sizeof *m->v, cmp_member);
}

/* The whole current entry's data, NUL-terminated. */
static int read_data(struct archive *a, const char *path, const char *name, int64_t size,
                     char **out, size_t *len, sb_error *err)
{
    if (size < 0 || (uint64_t)size > SB_JSON_MAX_BYTES)
        return sb_error_set(err, path, name, "member larger than %u bytes", SB_JSON_MAX_BYTES);
    char *buf = malloc((size_t)size + 1);
    if (!buf)
        return sb_error_set(err, path, name, "out of memory");
    size_t got = 0;
    while (got < (size_t)size) {
        la_ssize_t n = archive_read_data(a, buf + got, (size_t)size - got);
        if (n < 0) {
            free(buf);
            return sb_error_set(err, path, name, "cannot read the member: %s", archive_error_string(a));
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    buf[got] = 0;
    *out = buf;
    *len = got;
    return SB_OK;
}

static int open_archive(const char *path, int raw, struct archive **out, sb_error *err)
{
    *out = NULL;
    struct archive *a = archive_read_new();
    if (!a)
        return sb_error_set(err, path, NULL, "out of memory");
    archive_read_support_filter_gzip(a);
    if (raw) {
        archive_read_support_format_raw(a);
    } else {
        archive_read_support_format_tar(a);
        archive_read_support_format_gnutar(a);
    }
    if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
        sb_error_set(err, path, NULL, "cannot read the archive: %s", archive_error_string(a));
        archive_read_free(a);
        return SB_ERR;
    }
    *out = a;
    return SB_OK;
}

static int each_tar(const char *path, sb_archive_fn fn, void *ctx, sb_error *err)
{
    struct archive *a = NULL;
    if (open_archive(path, 0, &a, err) != SB_OK)
        return SB_ERR;
    members m = {0};
    int rc = SB_OK, damaged = 0;
    struct archive_entry *e;
    for (;;) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            sb_error_set(err, path, NULL, "damaged archive after %zu members: %s", m.n,
                         archive_error_string(a));
            damaged = 1;
            break;
        }
        const char *name = archive_entry_pathname(e);
        if (archive_entry_filetype(e) != AE_IFREG || !name ||
            !(ends_with(name, ".json") || ends_with(name, ".ncu.csv")))
            continue;
        if (m.n == m.cap) {
            size_t cap = m.cap ? 2 * m.cap : 64;
            member *v = realloc(m.v, cap * sizeof *v);
            if (!v) {
                rc = sb_error_set(err, path, name, "out of memory");
                goto out;
            }
            m.v = v;
            m.cap = cap;
        }
        member *mm = &m.v[m.n];
        if (read_data(a, path, name, archive_entry_size(e), &mm->data, &mm->len, err) != SB_OK) {
            damaged = 1;
            break;
        }
        if (!(mm->name = strdup(name))) {
            free(mm->data);
            rc = sb_error_set(err, path, name, "out of memory");
            goto out;
        }
        m.n++;
    }
    qsort(m.v, m.n, sizeof *m.v, cmp_member);
    for (size_t i = 0; i < m.n && rc == SB_OK; i++) {
        const member *mm = &m.v[i];
        if (!ends_with(mm->name, ".json"))
            continue;
        size_t base = strlen(mm->name) - 5;
        char *side = malloc(base + sizeof ".ncu.csv");
        if (!side) {
            rc = sb_error_set(err, path, mm->name, "out of memory");
            break;
        }
        memcpy(side, mm->name, base);
        memcpy(side + base, ".ncu.csv", sizeof ".ncu.csv");
        const member *s = find(&m, side);
        free(side);
        rc = fn(ctx, mm->name, mm->data, mm->len, s ? s->data : NULL, s ? s->len : 0);
    }
    if (rc == SB_OK && damaged)
        rc = SB_ERR;
out:
    members_free(&m);
    archive_read_free(a);
    return rc;
}

/* JSON Lines: the decompressed stream split at newlines, a line at a time. */
static int each_jsonl(const char *path, sb_archive_fn fn, void *ctx, sb_error *err)
{
    struct archive *a = NULL;
    if (open_archive(path, 1, &a, err) != SB_OK)
        return SB_ERR;
    struct archive_entry *e;
    if (archive_read_next_header(a, &e) != ARCHIVE_OK) {
        sb_error_set(err, path, NULL, "cannot read: %s", archive_error_string(a));
        archive_read_free(a);
        return SB_ERR;
    }
    char *line = NULL;
    size_t len = 0, cap = 0;
    long lineno = 1;
    int rc = SB_OK;
    char chunk[1 << 16];
    for (;;) {
        la_ssize_t n = archive_read_data(a, chunk, sizeof chunk);
        if (n < 0) {
            rc = sb_error_set(err, path, NULL, "damaged after line %ld: %s", lineno - 1,
                              archive_error_string(a));
            break;
        }
        /* n == 0: the end; a last line without a newline is still a line */
        size_t i = 0;
        while (rc == SB_OK && (i < (size_t)n || (n == 0 && len))) {
            const char *nl = n ? memchr(chunk + i, '\n', (size_t)n - i) : NULL;
            size_t take = nl ? (size_t)(nl - (chunk + i)) : (size_t)n - i;
            if (len + take + 1 > cap) {
                size_t c2 = cap ? cap : 4096;
                while (c2 < len + take + 1)
                    c2 *= 2;
                char *l2 = realloc(line, c2);
                if (!l2) {
                    rc = sb_error_set(err, path, NULL, "out of memory");
                    break;
                }
                line = l2;
                cap = c2;
            }
            memcpy(line + len, chunk + i, take);
            len += take;
            line[len] = 0;
            i += take;
            if (len > SB_JSON_MAX_BYTES) {
                char where[32];
                snprintf(where, sizeof where, "%ld", lineno);
                rc = sb_error_set(err, path, where, "line longer than %u bytes", SB_JSON_MAX_BYTES);
                break;
            }
            if (!nl && n)
                break; /* the line goes on in the next chunk */
            if (nl)
                i++;
            size_t k = 0;
            while (k < len && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
                k++;
            if (k < len) {
                char where[32];
                snprintf(where, sizeof where, "%ld", lineno);
                rc = fn(ctx, where, line, len, NULL, 0);
            }
            lineno++;
            len = 0;
        }
        if (rc != SB_OK || n == 0)
            break;
    }
    free(line);
    archive_read_free(a);
    return rc;
}

int sb_archive_each(const char *path, sb_archive_fn fn, void *ctx, sb_error *err)
{
    return is_jsonl(path) ? each_jsonl(path, fn, ctx, err) : each_tar(path, fn, ctx, err);
}

/* ingest_archive.c - tar and JSON Lines archives through libarchive. */
#include "ingest_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_name.h"
#include "json_file.h" /* SB_JSON_MAX_BYTES, sb_file_read_fd_max */

static int is_jsonl(const char *path)
{
    return sb_name_ends_with(path, ".jsonl") || sb_name_ends_with(path, ".jsonl.gz");
}

int sb_archive_named(const char *path)
{
    return sb_name_ends_with(path, ".tar") || sb_name_ends_with(path, ".tar.gz") || sb_name_ends_with(path, ".tgz") ||
           is_jsonl(path);
}

/* A member held until every member is read. Its name lies in the names
 * arena (name_at, an offset while the arena grows), its bytes in the
 * inflated tar (borrowed), in a buffer of its own, or nowhere (empty). */
typedef struct member {
    const char *name;
    size_t name_at;
    const char *data;
    size_t len;
    int borrowed; /* data is not this member's allocation: not to be freed */
} member;

typedef struct members {
    member *v;
    size_t n, cap;
    char *names; /* every member's name, each ending in a NUL */
    size_t names_len, names_cap;
} members;

static void members_free(members *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (!m->v[i].borrowed)
            free((char *)m->v[i].data);
    free(m->v);
    free(m->names);
}

static int cmp_member(const void *a, const void *b)
{
    return strcmp(((const member *)a)->name, ((const member *)b)->name);
}

static const member *find(const members *m, const char *name)
{
    member key = {name, 0, NULL, 0, 0};
    return bsearch(&key, m->v, m->n, sizeof *m->v, cmp_member);
}

/* What a tar archive's reader holds: the bounds and the bytes so far. */
typedef struct held {
    size_t member_max, total_max;
    size_t doc_max;     /* a NAME.json member */
    size_t sidecar_max; /* a NAME.ncu.csv or NAME.nsys.csv member */
    size_t total;       /* bytes held: the inflated tar, members' buffers, names, records */
} held;

/* The bytes malloc(n) takes from the heap: glibc's chunk of n plus its
 * 8-byte header, rounded up to 16 and at least 32. Counting n alone
 * undercounts small blocks: 3.7 million empty members, each a name and a
 * one-byte buffer, were counted as 128 MiB and held 343 MB. */
static size_t heap_cost(size_t n)
{
    size_t c = (n + 8 + 15) & ~(size_t)15;
    return c < 32 ? 32 : c;
}

/* The bound on one member named name, and what the refusal calls it. */
typedef struct member_bound {
    size_t max;
    const char *what;
} member_bound;

static member_bound bound_of(const held *h, const char *name)
{
    if (sb_name_ends_with(name, ".json") && h->doc_max < h->member_max)
        return (member_bound){h->doc_max, "result document"};
    if (sb_name_ends_with(name, ".ncu.csv") && h->sidecar_max < h->member_max)
        return (member_bound){h->sidecar_max, "Nsight Compute sidecar"};
    if (sb_name_ends_with(name, ".nsys.csv") && h->sidecar_max < h->member_max)
        return (member_bound){h->sidecar_max, "Nsight Systems sidecar"};
    return (member_bound){h->member_max, "member"};
}

/* Refuses the archive at member name: one line naming ARCHIVE:MEMBER. */
static int past_limit(sb_error *err, const char *path, const char *name, const char *what,
                      size_t limit)
{
    char where[sizeof err->file];
    snprintf(where, sizeof where, "%s:%s", path, name);
    return sb_error_set(err, where, NULL, "%s more than %zu bytes (%zu MiB) inflated: refused", what,
                        limit, limit >> 20);
}

/* An allocation of the heap bytes given, growing one of old heap bytes
 * (0: a new one): SB_OK, counted, or the archive refused at member name.
 * A block that grows may be copied, so the new block is counted while
 * the old one still lives. */
static int charge(held *h, size_t old, size_t bytes, const char *path, const char *name, sb_error *err)
{
    if (h->total > h->total_max || bytes > h->total_max - h->total)
        return past_limit(err, path, name, "members held together", h->total_max);
    h->total += bytes - old;
    return SB_OK;
}

/* The current entry's data. Read from a tar in memory (tar not NULL), a
 * member whose bytes lie there in one piece is borrowed, not copied: the
 * 13 MB of a 2,000-result archive copied once more were a third of the
 * time the reader worked before any member could go out (the tar itself
 * is counted as held). An empty member holds nothing. Otherwise the bytes
 * are copied into a buffer that grows as they come, counted as the heap
 * bytes it takes. A member past its bound (counted on the bytes that
 * arrive, not the header's) or the archive past the held bound is
 * refused (SB_ERR with *over set). */
static int read_data(struct archive *a, const char *path, const char *name, int64_t size,
                     const unsigned char *tar, size_t tar_len, held *h, member *mm, int *over,
                     sb_error *err)
{
    *over = 0;
    member_bound mb = bound_of(h, name);
    if (size < 0)
        return sb_error_set(err, path, name, "cannot read the member: negative size");
    if ((uint64_t)size > mb.max) {
        *over = 1;
        return past_limit(err, path, name, mb.what, mb.max);
    }
    if ((uint64_t)size > SB_JSON_MAX_BYTES)
        return sb_error_set(err, path, name, "member larger than %u bytes", SB_JSON_MAX_BYTES);
    const void *block;
    size_t n;
    la_int64_t off;
    int r = archive_read_data_block(a, &block, &n, &off);
    if (r == ARCHIVE_EOF) {
        n = 0;
        off = 0;
    } else if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
        return sb_error_set(err, path, name, "cannot read the member: %s", archive_error_string(a));
    }
    const unsigned char *b = block;
    if (r == ARCHIVE_EOF || (tar && n > 0 && off == 0 && n == (size_t)size && b >= tar && b + n <= tar + tar_len)) {
        mm->data = r == ARCHIVE_EOF ? "" : block;
        mm->len = r == ARCHIVE_EOF ? 0 : n;
        mm->borrowed = 1;
        return SB_OK;
    }
    size_t cap = (size_t)size < ((size_t)1 << 20) ? (size_t)size : (size_t)1 << 20;
    if (charge(h, 0, heap_cost(cap + 1), path, name, err) != SB_OK) {
        *over = 1;
        return SB_ERR;
    }
    char *buf = malloc(cap + 1);
    if (!buf)
        return sb_error_set(err, path, name, "out of memory");
    size_t got = 0;
    while (r != ARCHIVE_EOF) {
        if (off < 0 || (uint64_t)off > (uint64_t)size || n > (size_t)size - (size_t)off) {
            free(buf);
            return sb_error_set(err, path, name, "cannot read the member: a block outside its size");
        }
        size_t end = (size_t)off + n;
        if (end > got) {
            if (end > mb.max) {
                free(buf);
                *over = 1;
                return past_limit(err, path, name, mb.what, mb.max);
            }
            if (end > cap) {
                size_t c2 = cap * 2 > end ? cap * 2 : end;
                if (c2 > (size_t)size)
                    c2 = (size_t)size;
                if (charge(h, heap_cost(cap + 1), heap_cost(c2 + 1), path, name, err) != SB_OK) {
                    free(buf);
                    *over = 1;
                    return SB_ERR;
                }
                char *b2 = realloc(buf, c2 + 1);
                if (!b2) {
                    free(buf);
                    return sb_error_set(err, path, name, "out of memory");
                }
                buf = b2;
                cap = c2;
            }
            if ((size_t)off > got) /* a hole (sparse member): zeros */
                memset(buf + got, 0, (size_t)off - got);
        }
        memcpy(buf + off, block, n);
        if (end > got)
            got = end;
        r = archive_read_data_block(a, &block, &n, &off);
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN && r != ARCHIVE_EOF) {
            free(buf);
            return sb_error_set(err, path, name, "cannot read the member: %s", archive_error_string(a));
        }
    }
    buf[got] = 0;
    mm->data = buf;
    mm->len = got;
    mm->borrowed = 0;
    return SB_OK;
}

/* Opens the archive open as fd (named path), or the tar in memory when
 * mem is not NULL (already inflated). */
static int open_archive(const char *path, int fd, int raw, const void *mem, size_t mem_len,
                        struct archive **out, sb_error *err)
{
    *out = NULL;
    struct archive *a = archive_read_new();
    if (!a)
        return sb_error_set(err, path, NULL, "out of memory");
    if (!mem)
        archive_read_support_filter_gzip(a);
    if (raw) {
        archive_read_support_format_raw(a);
    } else {
        archive_read_support_format_tar(a);
        archive_read_support_format_gnutar(a);
    }
    /* from its start: inflate_whole may have read it through */
    if (!mem && lseek(fd, 0, SEEK_SET) != 0) {
        sb_error_set(err, path, NULL, "cannot read the archive from its start");
        archive_read_free(a);
        return SB_ERR;
    }
    int r = mem ? archive_read_open_memory(a, mem, mem_len) : archive_read_open_fd(a, fd, 1 << 16);
    if (r != ARCHIVE_OK) {
        sb_error_set(err, path, NULL, "cannot read the archive: %s", archive_error_string(a));
        archive_read_free(a);
        return SB_ERR;
    }
    *out = a;
    return SB_OK;
}

/* ---- gzip inflated whole. The members of a tar archive go out only once
 * all are read (in name order), so inflating it is work no other thread
 * can share while it lasts; libdeflate inflates about twice as fast as
 * zlib through libarchive's stream. It needs the whole input and output in
 * memory, as the members are anyway. Anything it does not take whole (a
 * file that is not gzip, damaged or truncated data, a file over
 * SB_JSON_MAX_BYTES, or a tar larger inflated than WHOLE_MAX_OUT or the
 * bound on held bytes) goes through libarchive's stream instead, which
 * hands over the members one by one, so that the bounds are checked on
 * each member's bytes, and names any damage. Result archives are a few
 * MB to tens of MB inflated; a larger tar is mostly something else. ---- */

#define WHOLE_MAX_OUT ((size_t)256 << 20)

static int gzip_named(const char *path)
{
    return sb_name_ends_with(path, ".tar.gz") || sb_name_ends_with(path, ".tgz");
}

/* A gzip member's ISIZE field: its inflated size modulo 2^32. */
static size_t trailer_size(const unsigned char *in, size_t len)
{
    const unsigned char *t = in + len - 4;
    return (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
}

/* Inflates the gzip members of in (one, or several concatenated) into a
 * new buffer; NULL when libdeflate cannot take the data whole. */
static unsigned char *inflate_members(struct libdeflate_decompressor *d, const unsigned char *in,
                                      size_t in_len, size_t max_out, size_t *out_len)
{
    if (in_len < 18) /* less than a gzip header and trailer */
        return NULL;
    /* ISIZE is the size when there is one member of less than 4 GiB and
     * the file is whole. Deflate shrinks by at most 1032:1, so a larger
     * ISIZE comes from a cut or damaged file: then, as when ISIZE is
     * smaller than the input, the buffer starts at a guess and grows. */
    size_t cap = trailer_size(in, in_len);
    if (cap > max_out && cap / 1032 <= in_len)
        return NULL; /* a whole file says it is too large: streamed, member by member */
    if (cap < in_len || cap / 1032 > in_len)
        cap = in_len * 4;
    if (cap > max_out)
        cap = max_out;
    unsigned char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t in_at = 0, out_at = 0;
    while (in_at < in_len) {
        if (in_len - in_at < 18 || in[in_at] != 0x1f || in[in_at + 1] != 0x8b)
            goto fail; /* trailing bytes that are no gzip member */
        size_t used_in = 0, got = 0;
        enum libdeflate_result r = libdeflate_gzip_decompress_ex(
            d, in + in_at, in_len - in_at, out + out_at, cap - out_at, &used_in, &got);
        if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
            if (cap >= max_out)
                goto fail;
            size_t c2 = cap * 2 < max_out ? cap * 2 : max_out;
            unsigned char *o2 = realloc(out, c2);
            if (!o2)
                goto fail;
            out = o2;
            cap = c2;
            continue; /* this member again, into the larger buffer */
        }
        if (r != LIBDEFLATE_SUCCESS)
            goto fail;
        in_at += used_in;
        out_at += got;
    }
    if (out_at == 0)
        goto fail; /* nothing inside: libarchive says what it makes of that */
    if (out_at < cap) { /* what is held is what the tar takes */
        unsigned char *o2 = realloc(out, out_at);
        if (o2)
            out = o2;
    }
    *out_len = out_at;
    return out;
fail:
    free(out);
    return NULL;
}

/* The tar of path (open as fd), inflated whole, or NULL: then libarchive
 * streams it. */
static unsigned char *inflate_whole(const char *path, int fd, size_t max_out, size_t *out_len)
{
    *out_len = 0;
    if (!gzip_named(path))
        return NULL;
    char *in = NULL;
    size_t in_len, in_cap = 0;
    sb_error ignored; /* the stream reports what is wrong with the file */
    int own = dup(fd); /* sb_file_read_fd_max closes what it reads */
    if (own < 0 || sb_file_read_fd_max(own, path, SB_JSON_MAX_BYTES, &in, &in_cap, &in_len, &ignored) != SB_OK ||
        in_len > SB_JSON_MAX_BYTES) {
        free(in);
        return NULL;
    }
    unsigned char *out = NULL;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (d) {
        out = inflate_members(d, (const unsigned char *)in, in_len, max_out, out_len);
        libdeflate_free_decompressor(d);
    }
    free(in);
    return out;
}

/* Why a member that looks like data is not read from an archive; NULL
 * for the rest (logs, text, sidecars, documents). */
static const char *passed_over(const char *name)
{
    if (sb_name_ends_with(name, ".ncu.csv") || sb_name_ends_with(name, ".nsys.csv"))
        return NULL;
    if (sb_name_ends_with(name, ".csv"))
        return "a CSV member is not read from an archive: unpack it and import it as a file "
               "(solbook ingest --format, docs/IMPORT.md); passed over";
    if (is_jsonl(name))
        return "a JSON Lines member is not read from an archive: unpack it and ingest it as a file; "
               "passed over";
    if (sb_name_ends_with(name, ".tar") || sb_name_ends_with(name, ".tar.gz") || sb_name_ends_with(name, ".tgz"))
        return "an archive inside an archive is not read: unpack it and ingest it; passed over";
    return NULL;
}

/* Why a member named as a result or sidecar is not read: links are
 * never followed (their target may lie outside the archive, or be another
 * member, which is read as itself), nor are devices, FIFOs or folders. */
static const char *not_a_file(struct archive_entry *e)
{
    if (archive_entry_hardlink(e))
        return "a hard link inside an archive is not followed (the member it names is read as itself); "
               "passed over";
    if (archive_entry_filetype(e) == AE_IFLNK)
        return "a symbolic link inside an archive is not followed; passed over";
    return "not a regular file; passed over";
}

static int each_tar(const char *path, int fd, const sb_ingest_limits *limits, sb_archive_fn fn, sb_archive_skip_fn skip,
                    void *ctx,
                    sb_error *err)
{
    held h = {SB_INGEST_MEMBER_BYTES, SB_INGEST_HELD_BYTES, SB_INGEST_DOC_BYTES, SB_INGEST_SIDECAR_BYTES, 0};
    if (limits && limits->member_bytes)
        h.member_max = limits->member_bytes;
    if (limits && limits->held_bytes)
        h.total_max = limits->held_bytes;
    if (limits && limits->doc_bytes)
        h.doc_max = limits->doc_bytes;
    if (limits && limits->sidecar_bytes)
        h.sidecar_max = limits->sidecar_bytes;
    struct archive *a = NULL;
    size_t tar_len;
    unsigned char *tar =
        inflate_whole(path, fd, h.total_max < WHOLE_MAX_OUT ? h.total_max : WHOLE_MAX_OUT, &tar_len);
    if (open_archive(path, fd, 0, tar, tar_len, &a, err) != SB_OK) {
        free(tar);
        return SB_ERR;
    }
    if (tar) /* within total_max: inflate_whole took no more */
        h.total = heap_cost(tar_len);
    members m = {0};
    int rc = SB_OK, damaged = 0, over = 0;
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
        int wanted = name && (sb_name_ends_with(name, ".json") || sb_name_ends_with(name, ".ncu.csv") ||
                              sb_name_ends_with(name, ".nsys.csv"));
        int regular = archive_entry_filetype(e) == AE_IFREG && !archive_entry_hardlink(e);
        if (!regular || !wanted) {
            const char *why = regular && name ? passed_over(name) : wanted ? not_a_file(e) : NULL;
            if (why && skip)
                skip(ctx, name, why);
            continue;
        }
        /* A member's name and record are held too, to the end: counted
         * as the heap bytes their arrays take, so many members with long
         * names (a 1 MB name costs 1 MB held, however little data
         * follows), or millions of empty ones, meet the bound. */
        if (m.n == m.cap) {
            size_t cap = m.cap ? 2 * m.cap : 64;
            if (charge(&h, m.cap ? heap_cost(m.cap * sizeof *m.v) : 0, heap_cost(cap * sizeof *m.v), path, name,
                       err) != SB_OK) {
                over = 1;
                break;
            }
            member *v = realloc(m.v, cap * sizeof *v);
            if (!v) {
                rc = sb_error_set(err, path, name, "out of memory");
                goto out;
            }
            m.v = v;
            m.cap = cap;
        }
        size_t name_len = strlen(name) + 1;
        if (name_len > m.names_cap - m.names_len) {
            size_t cap = m.names_cap ? m.names_cap : 4096;
            while (cap - m.names_len < name_len && cap <= SIZE_MAX / 2)
                cap *= 2;
            if (cap - m.names_len < name_len ||
                charge(&h, m.names_cap ? heap_cost(m.names_cap) : 0, heap_cost(cap), path, name, err) != SB_OK) {
                if (cap - m.names_len < name_len)
                    past_limit(err, path, name, "members held together", h.total_max);
                over = 1;
                break;
            }
            char *names = realloc(m.names, cap);
            if (!names) {
                rc = sb_error_set(err, path, name, "out of memory");
                goto out;
            }
            m.names = names;
            m.names_cap = cap;
        }
        member *mm = &m.v[m.n];
        if (read_data(a, path, name, archive_entry_size(e), tar, tar_len, &h, mm, &over, err) != SB_OK) {
            damaged = 1;
            break;
        }
        memcpy(m.names + m.names_len, name, name_len);
        mm->name_at = m.names_len;
        m.names_len += name_len;
        m.n++;
    }
    if (over) { /* past a bound: nothing from the archive goes out */
        rc = SB_ERR;
        goto out;
    }
    for (size_t i = 0; i < m.n; i++) /* the arena has stopped moving */
        m.v[i].name = m.names + m.v[i].name_at;
    if (m.n) /* qsort may not be given NULL, even for nothing */
        qsort(m.v, m.n, sizeof *m.v, cmp_member);
    for (size_t i = 0; i < m.n && rc == SB_OK; i++) {
        const member *mm = &m.v[i];
        if (!sb_name_ends_with(mm->name, ".json"))
            continue;
        char *side = sb_name_resuffixed(mm->name, ".json", ".ncu.csv");
        char *side2 = sb_name_resuffixed(mm->name, ".json", ".nsys.csv");
        if (!side || !side2) {
            free(side);
            free(side2);
            rc = sb_error_set(err, path, mm->name, "out of memory");
            break;
        }
        const member *s = find(&m, side), *s2 = find(&m, side2);
        free(side);
        free(side2);
        rc = fn(ctx, mm->name, mm->data, mm->len, s ? s->data : NULL, s ? s->len : 0, s2 ? s2->data : NULL,
                s2 ? s2->len : 0);
    }
    if (rc == SB_OK && damaged)
        rc = SB_ERR;
out:
    members_free(&m);
    archive_read_free(a);
    free(tar);
    return rc;
}

/* JSON Lines: the decompressed stream split at newlines, a line at a
 * time; a line longer than the member bound, or the bound on a result
 * document when that is lower, is refused as it grows. */
static int each_jsonl(const char *path, int fd, const sb_ingest_limits *limits, sb_archive_fn fn, void *ctx,
                      sb_error *err)
{
    size_t line_max = limits && limits->member_bytes ? limits->member_bytes : SB_INGEST_MEMBER_BYTES;
    size_t doc_max = limits && limits->doc_bytes ? limits->doc_bytes : SB_INGEST_DOC_BYTES;
    const char *line_what = "line";
    if (doc_max < line_max) {
        line_max = doc_max;
        line_what = "result document";
    }
    struct archive *a = NULL;
    if (open_archive(path, fd, 1, NULL, 0, &a, err) != SB_OK)
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
            if (len > line_max) {
                char where[32];
                snprintf(where, sizeof where, "%ld", lineno);
                rc = past_limit(err, path, where, line_what, line_max);
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
                rc = fn(ctx, where, line, len, NULL, 0, NULL, 0);
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

int sb_archive_each_fd(const char *path, int fd, const sb_ingest_limits *limits, sb_archive_fn fn,
                       sb_archive_skip_fn skip, void *ctx, sb_error *err)
{
    return is_jsonl(path) ? each_jsonl(path, fd, limits, fn, ctx, err)
                          : each_tar(path, fd, limits, fn, skip, ctx, err);
}

int sb_archive_each(const char *path, const sb_ingest_limits *limits, sb_archive_fn fn, sb_archive_skip_fn skip,
                    void *ctx, sb_error *err)
{
    int fd;
    if (sb_file_open_inside(path, NULL, 0, &fd, err) != SB_OK)
        return SB_ERR;
    int rc = sb_archive_each_fd(path, fd, limits, fn, skip, ctx, err);
    close(fd);
    return rc;
}

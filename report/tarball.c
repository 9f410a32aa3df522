/* tarball.c - gzip-compressed ustar archives in memory (tarball.h). */
#include "tarball.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct sb_tarball {
    sb_buf tar;
};

int sb_tarball_new(sb_tarball **out, sb_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return sb_error_set(err, NULL, NULL, "out of memory");
    return SB_OK;
}

void sb_tarball_free(sb_tarball *t)
{
    if (!t)
        return;
    sb_buf_free(&t->tar);
    free(t);
}

static void octal(char *field, size_t width, unsigned long long v)
{
    /* width - 1 digits and a NUL, as ustar writes numbers */
    for (size_t i = width - 1; i-- > 0; v >>= 3)
        field[i] = (char)('0' + (v & 7));
    field[width - 1] = '\0';
}

int sb_tarball_add(sb_tarball *t, const char *name, const char *data, size_t len, sb_error *err)
{
    size_t ln = strlen(name);
    if (ln == 0 || ln > 100 || name[0] == '/' || strstr(name, ".."))
        return sb_error_set(err, NULL, NULL, "archive entry name '%s' is empty, too long or not "
                                             "relative", name);
    if (len > 077777777777ULL)
        return sb_error_set(err, NULL, NULL, "archive entry '%s' is too large", name);
    char h[512];
    memset(h, 0, sizeof h);
    memcpy(h, name, ln);
    octal(h + 100, 8, 0644);
    octal(h + 108, 8, 0);
    octal(h + 116, 8, 0);
    octal(h + 124, 12, len);
    octal(h + 136, 12, 0);
    memset(h + 148, ' ', 8);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    unsigned sum = 0;
    for (size_t i = 0; i < sizeof h; i++)
        sum += (unsigned char)h[i];
    octal(h + 148, 7, sum);
    h[155] = ' ';
    sb_buf_add(&t->tar, h, sizeof h);
    sb_buf_add(&t->tar, data, len);
    static const char zero[512];
    if (len % 512)
        sb_buf_add(&t->tar, zero, 512 - len % 512);
    if (sb_buf_failed(&t->tar))
        return sb_error_set(err, NULL, NULL, "out of memory");
    return SB_OK;
}

int sb_tarball_finish(sb_tarball *t, sb_buf *gz, sb_error *err)
{
    static const char zero[1024];
    sb_buf_add(&t->tar, zero, sizeof zero);
    if (sb_buf_failed(&t->tar))
        return sb_error_set(err, NULL, NULL, "out of memory");
    if (t->tar.len > 0xffffffffu)
        return sb_error_set(err, NULL, NULL, "archive of %zu bytes is over 4 GiB", t->tar.len);
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 + 16: a gzip wrapper; its default header has no name and time 0 */
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return sb_error_set(err, NULL, NULL, "zlib: cannot start compression");
    z.next_in = (Bytef *)t->tar.data;
    z.avail_in = (uInt)t->tar.len;
    unsigned char chunk[65536];
    int rc;
    do {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        rc = deflate(&z, Z_FINISH);
        if (rc == Z_STREAM_ERROR)
            break;
        sb_buf_add(gz, (const char *)chunk, sizeof chunk - z.avail_out);
    } while (rc != Z_STREAM_END);
    deflateEnd(&z);
    if (rc != Z_STREAM_END || sb_buf_failed(gz))
        return sb_error_set(err, NULL, NULL, "zlib: compression failed");
    return SB_OK;
}

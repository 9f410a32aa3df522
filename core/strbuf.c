/* strbuf.c - growable string buffer and escapers. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_buf_free(sb_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

void sb_buf_reset(sb_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static int grow(sb_buf *b, size_t extra)
{
    if (b->failed)
        return 0;
    if (extra > (size_t)-1 / 2 - b->len) {
        b->failed = 1;
        return 0;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return 0;
    }
    b->data = p;
    b->cap = cap;
    return 1;
}

void sb_buf_add(sb_buf *b, const char *s, size_t n)
{
    if (!grow(b, n))
        return;
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sb_buf_puts(sb_buf *b, const char *s)
{
    sb_buf_add(b, s, strlen(s));
}

void sb_buf_putc(sb_buf *b, char c)
{
    if (!grow(b, 1))
        return;
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

char *sb_buf_room(sb_buf *b, size_t n)
{
    return grow(b, n) ? b->data + b->len : NULL;
}

void sb_buf_grew(sb_buf *b, size_t n)
{
    if (b->failed || !b->data || b->len + n >= b->cap)
        return;
    b->len += n;
    b->data[b->len] = '\0';
}

void sb_buf_vprintf(sb_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0) {
        b->failed = 1;
        va_end(ap2);
        return;
    }
    if (grow(b, (size_t)n)) {
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

void sb_buf_printf(sb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

int sb_buf_failed(const sb_buf *b)
{
    return b->failed;
}

const char *sb_buf_str(const sb_buf *b)
{
    return b->data ? b->data : "";
}

char *sb_buf_take(sb_buf *b)
{
    if (b->failed) {
        sb_buf_free(b);
        return NULL;
    }
    char *s = b->data;
    if (!s)
        s = calloc(1, 1);
    b->data = NULL;
    b->len = b->cap = 0;
    return s;
}

void sb_buf_csv_field(sb_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        sb_buf_puts(b, s);
        return;
    }
    sb_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            sb_buf_putc(b, '"');
        sb_buf_putc(b, *s);
    }
    sb_buf_putc(b, '"');
}

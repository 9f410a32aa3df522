/* strbuf.h - a growable, always NUL-terminated byte buffer for building
 * reports, SVG and Markdown in memory before one atomic write.
 *
 * Allocation failure is sticky: after the first failed growth every append
 * is ignored and sb_buf_failed() returns 1, so callers check once at the end
 * instead of after every append.
 */
#ifndef SOLBOOK_CORE_STRBUF_H
#define SOLBOOK_CORE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct sb_buf {
    char *data;   /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
    int failed;   /* 1 after an allocation failure */
} sb_buf;

#define SB_BUF_INIT {NULL, 0, 0, 0}

void sb_buf_free(sb_buf *b);
void sb_buf_reset(sb_buf *b);                 /* len = 0, keeps memory */
void sb_buf_add(sb_buf *b, const char *s, size_t n);
void sb_buf_puts(sb_buf *b, const char *s);
void sb_buf_putc(sb_buf *b, char c);
/* Writing in place: sb_buf_room gives space for n more bytes at the end
 * (NULL once an allocation failed); after writing k <= n bytes there,
 * sb_buf_grew(b, k) takes them in. For formatters that would otherwise
 * write into a temporary and copy. */
char *sb_buf_room(sb_buf *b, size_t n);
void sb_buf_grew(sb_buf *b, size_t n);
void sb_buf_printf(sb_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_buf_vprintf(sb_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
int sb_buf_failed(const sb_buf *b);
/* The contents ("" when empty); valid until the next append. */
const char *sb_buf_str(const sb_buf *b);
/* Hands the malloc'd string to the caller and empties b (NULL on failure). */
char *sb_buf_take(sb_buf *b);

/* Appends s as a CSV field, RFC 4180 quoting when needed (HTML, XML,
 * shell, Markdown and terminal text: encode.h). */
void sb_buf_csv_field(sb_buf *b, const char *s);

#endif

/* term.c - one-line terminal messages with stored text (term.h). */
#include "term.h"

#include "encode.h"

static void append_v(sb_buf *b, const char *fmt, va_list ap)
{
    sb_buf raw = SB_BUF_INIT;
    sb_buf_vprintf(&raw, fmt, ap);
    sb_enc_terminal(b, sb_buf_str(&raw), 0);
    sb_buf_putc(b, '\n');
    sb_buf_free(&raw);
}

void sb_term_append(sb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    append_v(b, fmt, ap);
    va_end(ap);
}

void sb_term_line(FILE *f, const char *fmt, ...)
{
    sb_buf b = SB_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    append_v(&b, fmt, ap);
    va_end(ap);
    fputs(sb_buf_failed(&b) ? "solbook: out of memory while printing a message\n" : sb_buf_str(&b), f);
    sb_buf_free(&b);
}

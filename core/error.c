/* error.c - filling and printing sb_error. */
#include "error.h"

#include <stdarg.h>
#include <string.h>

#include "term.h"

static void copy_one_line(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    if (size == 0)
        return;
    for (; src && src[i] && i + 1 < size; i++)
        dst[i] = (src[i] == '\n' || src[i] == '\r') ? ' ' : src[i];
    dst[i] = '\0';
}

void sb_error_clear(sb_error *e)
{
    if (e)
        e->file[0] = e->where[0] = e->msg[0] = '\0';
}

int sb_error_set(sb_error *e, const char *file, const char *where,
                 const char *fmt, ...)
{
    char buf[sizeof e->msg];
    va_list ap;
    if (!e)
        return SB_ERR;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    copy_one_line(e->file, sizeof e->file, file ? file : "");
    copy_one_line(e->where, sizeof e->where, where ? where : "");
    copy_one_line(e->msg, sizeof e->msg, buf);
    return SB_ERR;
}

void sb_error_set_file(sb_error *e, const char *file)
{
    if (e && e->file[0] == '\0' && file)
        copy_one_line(e->file, sizeof e->file, file);
}

void sb_error_format(const sb_error *e, char *buf, size_t size)
{
    size_t n = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    if (e->file[0])
        n += (size_t)snprintf(buf + n, size - n, "%s: ", e->file);
    if (n < size && e->where[0])
        n += (size_t)snprintf(buf + n, size - n, "%s: ", e->where);
    if (n < size)
        snprintf(buf + n, size - n, "%s", e->msg[0] ? e->msg : "unknown error");
}

void sb_error_print(const sb_error *e, FILE *f)
{
    char line[sizeof e->file + sizeof e->where + sizeof e->msg + 8];
    sb_error_format(e, line, sizeof line);
    /* file names and messages can carry stored text: terminal-encoded */
    sb_term_line(f, "solbook: %s", line);
}

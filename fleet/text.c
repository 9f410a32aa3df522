/* text.c - growable strings for the renderers. */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(sb_text *t, size_t more)
{
    if (t->failed)
        return -1;
    if (t->len + more + 1 <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + more + 1)
        cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
        t->failed = 1;
        return -1;
    }
    t->s = s;
    t->cap = cap;
    return 0;
}

void sb_text_puts(sb_text *t, const char *s)
{
    size_t n = strlen(s);
    if (reserve(t, n))
        return;
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

void sb_text_printf(sb_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(t, (size_t)n)) {
        t->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

char *sb_text_take(sb_text *t)
{
    char *s = NULL;
    if (!t->failed) {
        if (!t->s && reserve(t, 0) == 0)
            t->s[0] = '\0';
        s = t->failed ? NULL : t->s;
        t->s = NULL;
    }
    sb_text_free(t);
    return s;
}

void sb_text_free(sb_text *t)
{
    free(t->s);
    memset(t, 0, sizeof *t);
}

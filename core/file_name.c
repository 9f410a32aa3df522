/* file_name.c - see file_name.h. */
#include "file_name.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_slug(const char *in, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = in; *p && n + 1 < size; p++) {
        char c = (char)tolower((unsigned char)*p);
        out[n++] = (isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-') ? c : '-';
    }
    out[n] = '\0';
}

uint64_t sb_name_hash48(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h & 0xffffffffffffull;
}

void sb_hashed_name(const char *s, char out[SB_SAFE_NAME_SIZE])
{
    char slug[SB_NAME_SLUG_MAX + 1];
    sb_slug(s, slug, sizeof slug);
    snprintf(out, SB_SAFE_NAME_SIZE, "%s-%012llx", slug, (unsigned long long)sb_name_hash48(s));
}

void sb_safe_name(const char *s, char out[SB_SAFE_NAME_SIZE])
{
    char slug[SB_NAME_SLUG_MAX + 1];
    sb_slug(s, slug, sizeof slug);
    if (strcmp(slug, s) == 0 && slug[0] && slug[0] != '.')
        snprintf(out, SB_SAFE_NAME_SIZE, "%s", slug);
    else
        sb_hashed_name(s, out);
}

int sb_name_ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), m = strlen(suffix);
    return n >= m && strcmp(name + n - m, suffix) == 0;
}

char *sb_name_resuffixed(const char *name, const char *from, const char *to)
{
    if (!sb_name_ends_with(name, from))
        return NULL;
    size_t base = strlen(name) - strlen(from), m = strlen(to);
    char *s = malloc(base + m + 1);
    if (!s)
        return NULL;
    memcpy(s, name, base);
    memcpy(s + base, to, m + 1);
    return s;
}
